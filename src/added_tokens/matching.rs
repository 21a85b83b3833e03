//! Finding added tokens in a text as HF finds them: the leftmost-longest
//! match of any pattern, kept or dropped by `single_word`, widened by
//! `lstrip`/`rstrip` over neighbouring whitespace.

use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use unicode_categories::UnicodeCategories;

use super::AddedToken;
use crate::error::{Error, Result};

/// A piece of a text: text between tokens, or a token's match (its range
/// includes any whitespace it strips). Ranges are in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    Text(Range<usize>),
    Token(u32, Range<usize>),
}

/// Patterns (token contents, or normalized forms) and the id of each.
#[derive(Clone, Debug)]
pub(super) struct Matcher {
    automaton: AhoCorasick,
    ids: Vec<u32>,
    /// Bytes a match may start with: a text without any needs no search.
    first_bytes: [bool; 256],
}

impl Matcher {
    /// `None` without patterns. Among equal patterns the first wins (the
    /// vocabulary passes them in id order; HF picks one by hash order).
    pub(super) fn new(patterns: Vec<(&str, u32)>) -> Result<Option<Self>> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns.iter().map(|(p, _)| p))
            .map_err(|e| Error::Value(format!("cannot index the added tokens: {e}")))?;
        let mut first_bytes = [false; 256];
        for (p, _) in &patterns {
            first_bytes[p.as_bytes()[0] as usize] = true;
        }
        Ok(Some(Self {
            automaton,
            ids: patterns.into_iter().map(|(_, id)| id).collect(),
            first_bytes,
        }))
    }

    pub(super) fn may_start_with(&self, b: u8) -> bool {
        self.first_bytes[b as usize]
    }

    /// Calls `each` with the pieces of `text` in order (HF's `find_matches`);
    /// empty text pieces are left out, as HF drops them. `token` gives a
    /// match's token, or None to drop the match.
    pub(super) fn split<'a>(
        &self,
        text: &str,
        token: impl Fn(u32) -> Option<&'a AddedToken>,
        mut each: impl FnMut(Split),
    ) {
        if !text.bytes().any(|b| self.may_start_with(b)) {
            if !text.is_empty() {
                each(Split::Text(0..text.len()));
            }
            return;
        }
        let mut done = 0;
        for m in self.automaton.find_iter(text) {
            let id = self.ids[m.pattern().as_usize()];
            // A dropped match stays text (and still hid what it overlaps).
            let Some(t) = token(id) else { continue };
            let (mut start, mut end) = (m.start(), m.end());
            if t.single_word {
                let word_before = text[..start].chars().next_back().is_some_and(is_word_char);
                let word_after = text[end..].chars().next().is_some_and(is_word_char);
                if word_before || word_after {
                    continue;
                }
            }
            if t.lstrip {
                // Not back over what an earlier match (stripping right) took.
                start = whitespace_run_start(&text[..start]).max(done);
            }
            if t.rstrip {
                end += whitespace_run_len(&text[end..]);
            }
            if done < start {
                each(Split::Text(done..start));
            }
            // A match an earlier one's stripping left empty is dropped, as
            // HF drops empty pieces; one that starts past its own end (inside
            // whitespace an earlier match took) makes HF fail ("AddedVocabulary
            // bad split"), and wpiece too, never an output HF lacks.
            assert!(
                start <= end,
                "an added token's match lies inside whitespace an earlier match stripped \
                 (HF fails on this text too)"
            );
            if start < end {
                each(Split::Token(id, start..end));
            }
            done = end;
        }
        if done < text.len() {
            each(Split::Text(done..text.len()));
        }
    }
}

/// A char of `\w` as HF's regex engine has it: alphabetic, a mark, a decimal
/// digit, a connector punctuation char, or a join control.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphabetic()
        || c.is_mark()
        || c.is_number_decimal_digit()
        || c.is_punctuation_connector()
        || matches!(c, '\u{200C}' | '\u{200D}')
}

/// Where the whitespace at the end of `s` starts.
fn whitespace_run_start(s: &str) -> usize {
    s.trim_end_matches(char::is_whitespace).len()
}

/// The length of the whitespace at the start of `s`.
fn whitespace_run_len(s: &str) -> usize {
    s.len() - s.trim_start_matches(char::is_whitespace).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Vec<AddedToken> {
        let mut plain = AddedToken::new("ab", false);
        plain.normalized = false;
        let mut single = AddedToken::new("qq", false);
        single.single_word = true;
        let mut both = AddedToken::new("<m>", false);
        (both.lstrip, both.rstrip) = (true, true);
        vec![plain, single, both]
    }

    fn splits(text: &str) -> Vec<Split> {
        let toks = tokens();
        let patterns = toks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.content.as_str(), i as u32))
            .collect();
        let m = Matcher::new(patterns).unwrap().unwrap();
        let mut out = Vec::new();
        m.split(text, |id| Some(&toks[id as usize]), |s| out.push(s));
        out
    }

    #[test]
    fn flags_widen_or_drop_matches() {
        use Split::{Text, Token};
        assert_eq!(splits("xaby"), [Text(0..1), Token(0, 1..3), Text(3..4)]);
        assert_eq!(splits("qq qqx"), [Token(1, 0..2), Text(2..6)]);
        assert_eq!(splits("qq\u{301}"), [Text(0..4)]);
        assert_eq!(splits("qq²"), [Token(1, 0..2), Text(2..4)]);
        assert_eq!(
            splits("a \t<m>  b"),
            [Text(0..1), Token(2, 1..8), Text(8..9)]
        );
        assert_eq!(splits("<m> <m>"), [Token(2, 0..4), Token(2, 4..7)]);
        assert_eq!(splits(""), []);
        // "<m> " strips the space a second "<m>"-like whitespace token would
        // take: nothing empty is emitted.
        assert_eq!(splits("<m> <m>"), [Token(2, 0..4), Token(2, 4..7)]);
    }

    #[test]
    fn word_chars_are_regex_word_chars() {
        for c in ['a', 'é', '7', '_', '\u{301}', '\u{200D}', '中'] {
            assert!(is_word_char(c), "{c:?}");
        }
        for c in ['²', ' ', '-', '\u{a0}', '!'] {
            assert!(!is_word_char(c), "{c:?}");
        }
    }

    #[test]
    fn equal_patterns_give_the_first() {
        let m = Matcher::new(vec![("x", 7), ("x", 3)]).unwrap().unwrap();
        let t = AddedToken::new("x", false);
        let mut out = Vec::new();
        m.split("x", |_| Some(&t), |s| out.push(s));
        assert_eq!(out, [Split::Token(7, 0..1)]);
    }
}
