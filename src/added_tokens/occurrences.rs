//! Where an added token may occur in ASCII text, for the encoder's ASCII
//! pass: it encodes the stretches between whitespace that hold none, and
//! sends the others to the general layer, which matches them as HF does.
//! (Declining every byte a token starts with sent every word holding a "c"
//! there once "covid" was added.)
//!
//! The text is ASCII whose normalization makes each byte itself or its
//! lowercase (the splitter's ASCII table), so a normalized token occurs
//! in the normalized text where its form occurs in the raw text, ignoring
//! case when normalization lowercases. Finding more than HF would match
//! (a `single_word` token inside a word, an uppercase form) only sends a
//! stretch to the general layer; finding less is what must not happen.

use aho_corasick::AhoCorasick;

use super::AddedVocabulary;

/// Finds the added tokens' ASCII patterns in raw ASCII text.
#[derive(Clone, Debug)]
pub struct AsciiOccurrences {
    raw: Option<AhoCorasick>,
    /// Normalized forms, case-insensitive when normalization lowercases.
    normalized: Option<AhoCorasick>,
    /// Whether normalization lowercases (the case the search ignores).
    lowercase: bool,
    /// The bytes of the normalized forms searched for.
    in_normalized: [bool; 128],
    /// Whether every raw-text token is ASCII (so the search finds them all,
    /// in any text).
    raw_all_ascii: bool,
}

impl AsciiOccurrences {
    /// The finder of `added`'s patterns (forms with a non-ASCII char cannot
    /// occur in ASCII text); None when the patterns cannot be indexed.
    pub(super) fn new(added: &AddedVocabulary, lowercase: bool) -> Option<Self> {
        let build = |patterns: Vec<&str>, any_case: bool| -> Option<Option<AhoCorasick>> {
            if patterns.is_empty() {
                return Some(None);
            }
            let ac = AhoCorasick::builder()
                .ascii_case_insensitive(any_case)
                .build(patterns)
                .ok()?;
            Some(Some(ac))
        };
        let (raw, normalized) = added.patterns_by_kind();
        let ascii = |p: &&str| p.is_ascii();
        let normalized: Vec<&str> = normalized.into_iter().filter(ascii).collect();
        let mut in_normalized = [false; 128];
        for b in normalized.iter().flat_map(|p| p.bytes()) {
            in_normalized[b as usize] = true;
        }
        let raw_all_ascii = raw.iter().all(ascii);
        Some(Self {
            raw_all_ascii,
            raw: build(raw.into_iter().filter(ascii).collect(), false)?,
            normalized: build(normalized, lowercase)?,
            lowercase,
            in_normalized,
        })
    }

    /// Whether the search may miss a token through byte `raw`, which
    /// normalization makes `normalized`: it searches raw text, so a byte
    /// rewritten otherwise than by the case it ignores (a chain's `Replace`
    /// of a punctuation char) into a byte of a normalized form must be
    /// declined by the ASCII pass, and its stretch go to the general layer.
    pub fn may_miss(&self, raw: u8, normalized: u8) -> bool {
        let seen_as = match self.lowercase {
            true => raw.to_ascii_lowercase(),
            false => raw,
        };
        normalized != seen_as && self.in_normalized.get(normalized as usize) == Some(&true)
    }

    /// Whether a stretch of any text that holds no occurrence this finds
    /// holds no raw-text token either.
    pub fn finds_every_raw_token(&self) -> bool {
        self.raw_all_ascii
    }

    /// The start of the first occurrence of a pattern at or after byte
    /// `from` of `text` (the earliest to end, so no occurrence lies wholly
    /// before it), or `text.len()`.
    pub fn next(&self, text: &[u8], from: usize) -> usize {
        let find = |ac: &Option<AhoCorasick>| {
            ac.as_ref()
                .and_then(|ac| ac.find(aho_corasick::Input::new(text).span(from..text.len())))
                .map_or(text.len(), |m| m.start())
        };
        find(&self.raw).min(find(&self.normalized))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::added_tokens::AddedToken;
    use crate::model::Vocab;

    #[test]
    fn finds_raw_tokens_by_case_and_normalized_ones_as_normalization_does() {
        let vocab = Vocab::new(vec!["[UNK]".to_owned()]).unwrap();
        let mut added = AddedVocabulary::default();
        let mut raw = AddedToken::new("[X]", true);
        raw.normalized = false;
        let tokens = [
            raw,
            AddedToken::new("covid", false),
            AddedToken::new("é", false),
        ];
        added.add(tokens, &vocab, |s| s.to_lowercase()).unwrap();
        let lowered = AsciiOccurrences::new(&added, true).unwrap();
        let text = b"a [x] CoVid [X] covid";
        assert_eq!(lowered.next(text, 0), 6);
        assert_eq!(lowered.next(text, 7), 12);
        assert_eq!(lowered.next(text, 13), 16);
        assert_eq!(lowered.next(text, 17), text.len());
        // Without lowercasing, the normalized form matches by case.
        let cased = AsciiOccurrences::new(&added, false).unwrap();
        assert_eq!(cased.next(text, 0), 12);
        assert_eq!(cased.next(b"", 0), 0);
        // Bytes normalization rewrites into a byte of a form are not seen.
        assert!(lowered.may_miss(b'!', b'c') && cased.may_miss(b'C', b'c'));
        assert!(!lowered.may_miss(b'C', b'c') && !lowered.may_miss(b'\t', b' '));
    }
}
