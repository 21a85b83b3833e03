//! The added vocabulary: which tokens, with which ids, exactly as HF assigns
//! them. A token already in the model's vocab (or already added) keeps that
//! id; a new one takes the next id after both. Ids in a tokenizer.json are
//! not trusted: HF re-adds its tokens in file order, so do we.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::matching::{Matcher, Split};
use super::AddedToken;
use super::AsciiOccurrences;
use crate::error::{Error, Result};
use crate::model::Vocab;

#[derive(Clone, Debug, Default)]
pub struct AddedVocabulary {
    /// Every added token by id, inside the model's vocab or after it.
    by_id: BTreeMap<u32, AddedToken>,
    ids: FxHashMap<String, u32>,
    /// Contents of the tokens ever added as special (HF never forgets one).
    special: FxHashSet<String>,
    /// Normalized forms of `normalized` tokens that normalization changes:
    /// what they match, show and decode as.
    forms: FxHashMap<u32, String>,
    /// Tokens matched in raw text, and tokens matched in normalized text.
    raw: Option<Matcher>,
    normalized: Option<Matcher>,
    /// HF's `encode_special_tokens`: matches of special tokens typed in a
    /// text are dropped (that text is encoded as any other); the others kept.
    encode_special: bool,
}

impl AddedVocabulary {
    /// Adds `tokens` in order, as HF's `add_tokens` does; returns how many
    /// were not ignored (empty, or already there with the same flags).
    /// `normalize` is the tokenizer's normalizer.
    pub fn add(
        &mut self,
        tokens: impl IntoIterator<Item = AddedToken>,
        model: &Vocab,
        normalize: impl Fn(&str) -> String,
    ) -> Result<usize> {
        let model_size = u32::try_from(model.len()).unwrap_or(u32::MAX);
        let mut next_id = match self.by_id.keys().next_back() {
            Some(&max) if max >= model_size || model_size == 0 => max.checked_add(1),
            _ => Some(model_size),
        };
        let mut added = 0;
        for token in tokens {
            if token.content.is_empty() {
                continue;
            }
            let known = self.ids.get(&token.content).copied();
            if known.is_some_and(|id| self.by_id.get(&id) == Some(&token)) {
                continue;
            }
            let id = match known.or_else(|| model.id(&token.content)) {
                Some(id) => id,
                None => {
                    let id = next_id.ok_or_else(|| {
                        Error::Value(format!("no id left for added token {:?}", token.content))
                    })?;
                    next_id = id.checked_add(1);
                    id
                }
            };
            if token.normalized {
                let form = normalize(&token.content);
                if form.is_empty() {
                    // HF's matcher then matches empty at every char and
                    // splits all text apart: refused, not reproduced.
                    return Err(Error::Unsupported(format!(
                        "added token {:?} with normalized=true: the normalizer empties it",
                        token.content
                    )));
                }
                if form != token.content {
                    self.forms.insert(id, form);
                }
            }
            self.ids.insert(token.content.clone(), id);
            if token.special {
                self.special.insert(token.content.clone());
            }
            self.by_id.insert(id, token);
            added += 1;
        }
        self.index()?;
        Ok(added)
    }

    /// Builds the two matchers, patterns in id order (a normalized form is
    /// never empty: `add` refuses such tokens).
    fn index(&mut self) -> Result<()> {
        let (mut raw, mut normalized) = (Vec::new(), Vec::new());
        for (&id, t) in &self.by_id {
            if !t.normalized {
                raw.push((t.content.as_str(), id));
            } else if let Some(form) = Some(self.pattern(id, t)).filter(|p| !p.is_empty()) {
                normalized.push((form, id));
            }
        }
        let raw = Matcher::new(raw)?;
        let normalized = Matcher::new(normalized)?;
        (self.raw, self.normalized) = (raw, normalized);
        Ok(())
    }

    /// Whether special tokens typed in a text are encoded as text (HF's
    /// `encode_special_tokens`) rather than matched.
    pub fn encode_special(&self) -> bool {
        self.encode_special
    }

    /// Sets [`AddedVocabulary::encode_special`].
    pub fn set_encode_special(&mut self, on: bool) {
        self.encode_special = on;
    }

    /// What a normalized token matches: its normalized form.
    fn pattern<'a>(&'a self, id: u32, t: &'a AddedToken) -> &'a str {
        self.forms
            .get(&id)
            .map_or(t.content.as_str(), String::as_str)
    }

    /// Patterns that several tokens match by (`(pattern, ids)`, ids in
    /// order), each kind apart: "COVID19" and "covid19" added to a
    /// lowercasing tokenizer match the same normalized text. HF then gives
    /// the id of one chosen by hash order, which changes from process to
    /// process; wpiece always gives the first.
    pub fn shared_patterns(&self) -> Vec<(String, Vec<u32>)> {
        let mut by_pattern: BTreeMap<(bool, &str), Vec<u32>> = BTreeMap::new();
        for (&id, t) in &self.by_id {
            let pattern = match t.normalized {
                true => self.pattern(id, t),
                false => t.content.as_str(),
            };
            by_pattern
                .entry((t.normalized, pattern))
                .or_default()
                .push(id);
        }
        let mut shared: Vec<(String, Vec<u32>)> = by_pattern
            .into_iter()
            .filter(|(_, ids)| ids.len() > 1)
            .map(|((_, pattern), ids)| (pattern.to_string(), ids))
            .collect();
        shared.sort_by_key(|(_, ids)| ids[0]);
        shared
    }

    /// The tokens with their ids, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &AddedToken)> + '_ {
        self.by_id.iter().map(|(&id, t)| (id, t))
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn get(&self, id: u32) -> Option<&AddedToken> {
        self.by_id.get(&id)
    }

    /// The error for a text that splits as `Split::Unsplittable(id)` says.
    pub fn unsplittable(&self, id: u32) -> Error {
        super::matching::unsplittable(self.get(id).map_or("", |t| t.content.as_str()))
    }

    pub fn token_to_id(&self, content: &str) -> Option<u32> {
        self.ids.get(content).copied()
    }

    /// The largest id, if any token was added.
    pub fn max_id(&self) -> Option<u32> {
        self.by_id.keys().next_back().copied()
    }

    /// The string `id` decodes as (HF's `simple_id_to_token`): the normalized
    /// form of a normalized token, else the content.
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        let t = self.by_id.get(&id)?;
        Some(
            self.forms
                .get(&id)
                .map_or(t.content.as_str(), String::as_str),
        )
    }

    /// Whether `token` was added as special (decode skips it by this string).
    pub fn is_special_token(&self, token: &str) -> bool {
        self.special.contains(token)
    }

    /// Whether the token with this id was added as special.
    pub fn is_special_id(&self, id: u32) -> bool {
        self.by_id
            .get(&id)
            .is_some_and(|t| self.special.contains(&t.content))
    }

    /// Whether some tokens are matched in normalized text.
    pub fn has_normalized(&self) -> bool {
        self.normalized.is_some()
    }

    /// Whether a raw-text match may start with byte `b`.
    pub fn raw_may_start_with(&self, b: u8) -> bool {
        self.raw.as_ref().is_some_and(|m| m.may_start_with(b))
    }

    /// Whether a normalized-text match may start with byte `b`.
    pub fn normalized_may_start_with(&self, b: u8) -> bool {
        self.normalized
            .as_ref()
            .is_some_and(|m| m.may_start_with(b))
    }

    /// Every pattern matched (contents and normalized forms).
    pub fn patterns(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_id.iter().map(|(&id, t)| match t.normalized {
            true => self.pattern(id, t),
            false => t.content.as_str(),
        })
    }

    /// The patterns matched in raw text, and those matched in normalized text.
    pub fn patterns_by_kind(&self) -> (Vec<&str>, Vec<&str>) {
        let (mut raw, mut normalized) = (Vec::new(), Vec::new());
        for (&id, t) in &self.by_id {
            match t.normalized {
                true => normalized.push(self.pattern(id, t)),
                false => raw.push(t.content.as_str()),
            }
        }
        (raw, normalized)
    }

    /// Where these tokens may occur in ASCII text whose normalization makes
    /// each byte itself or (with `lowercase`) its lowercase.
    pub fn ascii_occurrences(&self, lowercase: bool) -> Option<AsciiOccurrences> {
        AsciiOccurrences::new(self, lowercase)
    }

    /// Whether some token takes the whitespace beside its matches.
    pub fn strips(&self) -> bool {
        self.by_id.values().any(AddedToken::strips)
    }

    /// Whether a match may show a string other than its content (what an
    /// encoding shows for its id): whitespace it strips, or a normalized form.
    pub fn may_show_other_strings(&self) -> bool {
        let normalized_form =
            |(id, t): (&u32, &AddedToken)| t.normalized && self.forms.contains_key(id);
        self.strips() || self.by_id.iter().any(normalized_form)
    }

    /// The pieces of raw `text`: matches of tokens with `normalized = false`.
    pub fn split_raw(&self, text: &str, each: impl FnMut(Split)) {
        self.split(self.raw.as_ref(), text, each)
    }

    /// The pieces of normalized `text`: matches of the other tokens.
    pub fn split_normalized(&self, text: &str, each: impl FnMut(Split)) {
        self.split(self.normalized.as_ref(), text, each)
    }

    fn split(&self, matcher: Option<&Matcher>, text: &str, mut each: impl FnMut(Split)) {
        // With `encode_special`, special tokens are still matched (a match of
        // one hides the tokens it overlaps) and their matches dropped, as HF.
        let kept = |id: u32| {
            let t = &self.by_id[&id];
            let dropped = self.encode_special && self.special.contains(&t.content);
            (!dropped).then_some(t)
        };
        match matcher {
            Some(m) => m.split(text, kept, each),
            None if text.is_empty() => {}
            None => each(Split::Text(0..text.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocab {
        Vocab::new(["[UNK]", "[CLS]", "hello", "a"].map(String::from).to_vec()).unwrap()
    }

    fn lower(s: &str) -> String {
        s.to_lowercase()
    }

    #[test]
    fn ids_are_assigned_as_hf_assigns_them() {
        let mut v = AddedVocabulary::default();
        let toks = ["[CLS]", "<x>", "", "Hello", "<y>"].map(|c| AddedToken::new(c, c == "[CLS]"));
        assert_eq!(v.add(toks.clone(), &vocab(), lower).unwrap(), 4);
        let ids: Vec<_> = v.iter().map(|(id, t)| (id, t.content.as_str())).collect();
        assert_eq!(ids, [(1, "[CLS]"), (4, "<x>"), (5, "Hello"), (6, "<y>")]);
        // Again with the same flags: ignored; with other flags: same id.
        assert_eq!(v.add(toks, &vocab(), lower).unwrap(), 0);
        let mut special = AddedToken::new("<x>", true);
        special.normalized = true;
        assert_eq!(
            v.add([special, AddedToken::new("<z>", false)], &vocab(), lower)
                .unwrap(),
            2
        );
        assert_eq!(v.token_to_id("<x>"), Some(4));
        assert_eq!(v.token_to_id("<z>"), Some(7));
        assert!(v.is_special_token("<x>") && v.is_special_id(4) && !v.is_special_id(5));
        // A normalized token decodes as its normalized form.
        assert_eq!(v.id_to_token(5), Some("hello"));
        assert_eq!(v.id_to_token(1), Some("[CLS]"));
        assert!(v.may_show_other_strings() && !v.strips() && v.has_normalized());
        assert_eq!(v.max_id(), Some(7));
    }

    #[test]
    fn raw_tokens_match_first_then_normalized_forms() {
        let mut v = AddedVocabulary::default();
        let mut raw = AddedToken::new("<X>", false);
        raw.normalized = false;
        v.add([raw, AddedToken::new("Hello", false)], &vocab(), lower)
            .unwrap();
        let mut out = Vec::new();
        v.split_raw("a<X>b", |s| out.push(s));
        assert_eq!(
            out,
            [Split::Text(0..1), Split::Token(4, 1..4), Split::Text(4..5)]
        );
        out.clear();
        v.split_normalized("say hello", |s| out.push(s));
        assert_eq!(out, [Split::Text(0..4), Split::Token(5, 4..9)]);
        assert!(v.raw_may_start_with(b'<') && v.normalized_may_start_with(b'h'));
        assert!(!v.raw_may_start_with(b'h'));
    }
}
