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

use aho_corasick::{packed, AhoCorasick, Anchored, Input, MatchKind, Span, StartKind};

use super::AddedVocabulary;

/// The SIMD search takes at most this many heads (its own limit is 64
/// patterns); more go to the automaton alone.
const MAX_HEADS: usize = 64;
/// Bytes of each pattern that the SIMD search looks for.
const HEAD: usize = 3;

/// Finds where a set of patterns first starts in a text.
#[derive(Clone, Debug)]
enum Finder {
    /// A SIMD search (Teddy) for every case form of each pattern's first
    /// bytes, each candidate checked by the automaton anchored there (so a
    /// check costs at most the longest pattern's length, however many
    /// patterns share a head). The automaton alone stepped through every
    /// byte (16.5 ms for 10 MB of English with three case-insensitive
    /// patterns, a tenth of encoding it); this takes 0.7.
    Heads {
        heads: packed::Searcher,
        check: AhoCorasick,
    },
    /// The automaton alone, when there are too many heads for the SIMD
    /// search (or it declines them).
    Automaton(AhoCorasick),
}

impl Finder {
    /// A finder of `patterns` (none empty), ignoring ASCII case if
    /// `any_case`; None if they cannot be indexed.
    fn new(patterns: &[&str], any_case: bool) -> Option<Self> {
        let automaton = |start: StartKind| {
            AhoCorasick::builder()
                .ascii_case_insensitive(any_case)
                .match_kind(MatchKind::LeftmostFirst)
                .start_kind(start)
                .build(patterns)
                .ok()
        };
        let forms = head_forms(patterns, any_case);
        let heads = (forms.len() <= MAX_HEADS)
            .then(|| packed::Config::new().builder().extend(forms).build())
            .flatten();
        Some(match heads {
            Some(heads) => Self::Heads {
                heads,
                check: automaton(StartKind::Anchored)?,
            },
            None => Self::Automaton(automaton(StartKind::Unanchored)?),
        })
    }

    /// The leftmost start of an occurrence at or after `from`.
    fn find(&self, text: &[u8], from: usize) -> Option<usize> {
        match self {
            Self::Automaton(ac) => ac
                .find(Input::new(text).span(from..text.len()))
                .map(|m| m.start()),
            Self::Heads { heads, check } => {
                let mut at = from;
                while let Some(m) = heads.find_in(text, Span::from(at..text.len())) {
                    let start = m.start();
                    let here = Input::new(text)
                        .span(start..text.len())
                        .anchored(Anchored::Yes);
                    if check.find(here).is_some() {
                        return Some(start);
                    }
                    at = start + 1;
                }
                None
            }
        }
    }
}

/// The first `HEAD` bytes of each pattern, in every ASCII case form if
/// `any_case`, each once.
fn head_forms(patterns: &[&str], any_case: bool) -> Vec<Vec<u8>> {
    let mut forms: Vec<Vec<u8>> = Vec::new();
    for p in patterns {
        let head = &p.as_bytes()[..p.len().min(HEAD)];
        let letters: Vec<usize> = (0..head.len())
            .filter(|&k| any_case && head[k].is_ascii_alphabetic())
            .collect();
        // Each subset of the letters with its case flipped (bit 5 of ASCII).
        for flips in 0..1u32 << letters.len() {
            let mut form = head.to_vec();
            for (bit, &k) in letters.iter().enumerate() {
                form[k] ^= ((flips >> bit & 1) as u8) << 5;
            }
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

/// Finds the added tokens' ASCII patterns in raw ASCII text.
#[derive(Clone, Debug)]
pub struct AsciiOccurrences {
    raw: Option<Finder>,
    /// Normalized forms, case-insensitive when normalization lowercases.
    normalized: Option<Finder>,
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
        let build = |patterns: Vec<&str>, any_case: bool| -> Option<Option<Finder>> {
            if patterns.is_empty() {
                return Some(None);
            }
            if patterns.iter().any(|p| p.is_empty()) {
                return None;
            }
            Some(Some(Finder::new(&patterns, any_case)?))
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

    /// The leftmost start of an occurrence of a pattern at or after byte
    /// `from` of `text` (so no occurrence starts before it), or
    /// `text.len()`.
    pub fn next(&self, text: &[u8], from: usize) -> usize {
        let find = |f: &Option<Finder>| {
            f.as_ref()
                .and_then(|f| f.find(text, from))
                .unwrap_or(text.len())
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

    /// The leftmost start of a pattern at or after `from`, by trying each
    /// position in turn.
    fn leftmost(text: &[u8], from: usize, patterns: &[String], any_case: bool) -> Option<usize> {
        (from..=text.len()).find(|&at| {
            patterns.iter().any(|p| {
                text[at..].get(..p.len()).is_some_and(|t| match any_case {
                    true => t.eq_ignore_ascii_case(p.as_bytes()),
                    false => t == p.as_bytes(),
                })
            })
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

        /// Both searches (SIMD heads, and the automaton past 64 heads) find
        /// the leftmost start a plain scan finds, from any position, in
        /// text made of the patterns' own bytes in both cases.
        #[test]
        fn finders_agree_with_a_plain_scan(
            patterns in proptest::collection::vec("[aAbB<>-]{1,6}", 1..8),
            text in "[aAbB<> -]{0,80}",
            from in 0usize..90,
            any_case in proptest::bool::ANY,
            many in proptest::bool::ANY,
        ) {
            let mut patterns = patterns;
            if many {
                // Past the heads the SIMD search takes: the automaton.
                patterns.extend((0..70).map(|k| format!("x{k:02}y")));
            }
            let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let finder = Finder::new(&refs, any_case).unwrap();
            // Past 64 heads, the automaton (below, the SIMD search may still
            // decline some sets, single bytes among them).
            proptest::prop_assert!(!many || matches!(finder, Finder::Automaton(_)));
            let text = text.as_bytes();
            let from = from.min(text.len());
            proptest::prop_assert_eq!(
                finder.find(text, from),
                leftmost(text, from, &patterns, any_case)
            );
        }
    }

    #[test]
    fn usual_added_tokens_take_the_simd_search() {
        for any_case in [true, false] {
            let finder = Finder::new(&["covid", "<url>", "e-mail"], any_case).unwrap();
            // Where aho-corasick has its SIMD search.
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            assert!(matches!(finder, Finder::Heads { .. }));
            assert_eq!(
                finder.find(b"an E-Mail about COVID", 0),
                Some(3).filter(|_| any_case)
            );
        }
    }

    #[test]
    fn many_patterns_of_one_head_in_a_text_of_candidates() {
        // 256 tokens sharing a head, in a text of candidates only (the case
        // the anchored check is for: its cost is a pattern's length, not
        // the patterns' count); this checks the answer, not the time.
        let patterns: Vec<String> = (0..256).map(|k| format!("[unused{k}]")).collect();
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        let finder = Finder::new(&refs, true).unwrap();
        let mut text = b"[un".repeat(100_000);
        text.extend_from_slice(b"[UNUSED255]");
        assert_eq!(finder.find(&text, 0), Some(300_000));
        assert_eq!(finder.find(&text, 300_001), None);
    }

    #[test]
    fn head_forms_hold_every_case_of_the_first_bytes_once() {
        let mut forms = head_forms(&["a-Bc", "A-b", "x"], true);
        forms.sort();
        let expected: Vec<&[u8]> = vec![b"A-B", b"A-b", b"X", b"a-B", b"a-b", b"x"];
        assert_eq!(forms, expected);
        assert_eq!(head_forms(&["Ab", "Ab"], false), vec![b"Ab".to_vec()]);
    }
}
