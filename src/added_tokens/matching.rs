//! Finding added tokens in a text as HF finds them: the leftmost-longest
//! match of any pattern, kept or dropped by `single_word`, widened by
//! `lstrip`/`rstrip` over neighbouring whitespace.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use super::AddedToken;
use crate::error::{Error, Result};

/// A piece of a text: text between tokens, or a token's match (its range
/// includes any whitespace it strips). Ranges are in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    Text(Range<usize>),
    Token(u32, Range<usize>),
    /// The text cannot be split, and nothing comes after this: the match of
    /// this token (a whitespace one stripping left) lies inside whitespace
    /// the match before it stripped. HF fails on such a text ("AddedVocabulary
    /// bad split"); encoding and counting raise
    /// `AddedVocabulary::unsplittable`'s error.
    Unsplittable(u32),
}

/// The error for a text split as [`Split::Unsplittable`] says, `content`
/// being that token's.
pub(super) fn unsplittable(content: &str) -> Error {
    Error::Value(format!(
        "this text cannot be split into added tokens as HF splits it: the added token \
         {content:?} matches inside whitespace that the added token before it strips \
         (rstrip), and HF tokenizers fails on it too (\"AddedVocabulary bad split\")"
    ))
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
            if start > end {
                each(Split::Unsplittable(id));
                return;
            }
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

/// A char of `\w` as HF's `single_word` check has it: its regex crate's
/// class (alphabetic, marks, decimal digits, connector punctuation, join
/// controls), from the same tables (regex-syntax's, Unicode 16.0). Rust's
/// own `is_alphabetic` is a newer Unicode's, and the category crate's marks
/// and digits an older one's: about 5,000 chars differed.
pub(super) fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let ranges = word_ranges();
    let i = ranges.partition_point(|&(_, last)| last < c);
    ranges.get(i).is_some_and(|&(first, _)| first <= c)
}

/// The ranges of `\w`, in order, read once from regex-syntax.
fn word_ranges() -> &'static [(char, char)] {
    static RANGES: OnceLock<Vec<(char, char)>> = OnceLock::new();
    RANGES.get_or_init(|| {
        use regex_syntax::hir::{Class, HirKind};
        let parsed = regex_syntax::Parser::new().parse(r"\w");
        match parsed.as_ref().map(|hir| hir.kind()) {
            Ok(HirKind::Class(Class::Unicode(class))) => class
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .collect(),
            _ => Vec::new(), // never: `\w` is a Unicode class
        }
    })
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
        // Marks and digits of Unicode 11-14, letters of 16: word chars to HF.
        let word = [
            'a',
            'é',
            '7',
            '_',
            '\u{301}',
            '\u{200D}',
            '中',
            '\u{7FD}',
            '\u{10D31}',
        ];
        for c in word.into_iter().chain(['\u{105C0}', '\u{16D40}']) {
            assert!(is_word_char(c), "{c:?}");
        }
        // Letters of Unicode 17 are not, to HF's tables (Unicode 16).
        for c in ['²', ' ', '-', '\u{a0}', '!', '\u{A7CE}', '\u{C5C}'] {
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
