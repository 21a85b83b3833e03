//! The splitters' fast path: what normalization then pre-tokenization make
//! of each ASCII byte (BERT's, or a chain whose steps each act on chars
//! alone), the table behind the one-pass ASCII paths of encoding
//! and of word counting (a byte's class and the byte it becomes, looked up
//! instead of running the Unicode normalizer and pre-tokenizer). It declines
//! a text holding a byte it does not handle, or finds the words the general
//! path finds (checked in `train/counts.rs` and `tests/fast_paths.rs`).

use crate::normalizers::{AsciiChar, NormalizerStep};
use crate::pre_tokenizers::{AsciiRole, PreTokenizerStep};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiClass {
    /// Joined with the `Word` bytes next to it.
    Word,
    /// Split at and dropped (whitespace, for most pre-tokenizers).
    Space,
    /// A word of its own (BERT's punctuation).
    Punct,
    /// Joined with the `Symbol` bytes next to it, apart from words (the runs
    /// of non-word chars of HF's `Whitespace`).
    Symbol,
    /// Needs the general path (dropped or rewritten by normalization, a
    /// third kind of run, or not ASCII).
    Other,
}

/// Per byte: its class and what normalization makes of it.
#[derive(Clone, Debug)]
pub struct AsciiClasses {
    pub class: [AsciiClass; 256],
    /// Private: `words` relies on its bytes being ASCII where the class is not `Other`.
    normalized: [u8; 256],
    /// Normalization lowercases the bytes of words (`Word` and `Symbol`
    /// bytes become themselves, or their ASCII lowercase when this is set).
    pub lowercase: bool,
}

impl AsciiClasses {
    /// The table of a splitter without this fast path: every byte declines.
    pub const DECLINE_ALL: Self = Self {
        class: [AsciiClass::Other; 256],
        normalized: [0; 256],
        lowercase: false,
    };

    /// The table of normalizers then pre-tokenizers, each chained as HF's
    /// `Sequence` chains them; None when one does not act on each ASCII
    /// char alone. A word is a maximal run of bytes that every step joins:
    /// a byte any step drops is `Space`, one any step isolates is `Punct`,
    /// and the others are runs of one class at every step (the two most
    /// common such classes are `Word` and `Symbol`; bytes of any other one
    /// decline).
    pub fn from_steps(
        normalizers: &[NormalizerStep],
        pre_tokenizers: &[PreTokenizerStep],
    ) -> Option<Self> {
        let per_char = normalizers.iter().all(|n| n.ascii_char('a').is_some())
            && pre_tokenizers.iter().all(|p| p.ascii_role('a').is_some())
            && pre_tokenizers.len() <= 64;
        if !per_char {
            return None;
        }
        let mut table = Self::DECLINE_ALL;
        // Per byte, the run class at every step (bit k: step k's class).
        let mut run_of: [Option<u64>; 128] = [None; 128];
        // Bytes whose runs a normalizer replaces by one char.
        let mut collapsed = [false; 128];
        for b in 0u8..128 {
            let Some(c) = normalizers
                .iter()
                .try_fold(b as char, |c, n| match n.ascii_char(c) {
                    Some(AsciiChar::To(next)) => Some(next),
                    Some(AsciiChar::RunTo(next)) => {
                        collapsed[b as usize] = true;
                        Some(next)
                    }
                    _ => None,
                })
            else {
                continue;
            };
            // `words` relies on it: a byte it keeps becomes one ASCII byte.
            if !c.is_ascii() {
                continue;
            }
            table.normalized[b as usize] = c as u8;
            let (mut dropped, mut isolated, mut run) = (false, false, 0u64);
            for (k, p) in pre_tokenizers.iter().enumerate() {
                match p.ascii_role(c)? {
                    AsciiRole::Removed => dropped = true,
                    AsciiRole::Isolated => isolated = true,
                    AsciiRole::Run(r) => run |= u64::from(r & 1) << k,
                }
            }
            table.class[b as usize] = if dropped {
                AsciiClass::Space
            } else if isolated {
                AsciiClass::Punct
            } else {
                run_of[b as usize] = Some(run);
                AsciiClass::Word
            };
        }
        table.name_runs(&run_of);
        // A run replaced by one char leaves the words alone only where it
        // is dropped between them.
        for (class, &collapsed) in table.class.iter_mut().zip(&collapsed) {
            if collapsed && *class != AsciiClass::Space {
                *class = AsciiClass::Other;
            }
        }
        Some(table)
    }

    /// Names the run classes: the one most letters and digits have is
    /// `Word`, the most common other one `Symbol`; bytes of others, and
    /// word bytes that normalization makes other than themselves or their
    /// lowercase, decline.
    fn name_runs(&mut self, run_of: &[Option<u64>; 128]) {
        let mut runs: Vec<(u64, usize, usize)> = Vec::new(); // (class, alnum, bytes)
        for (b, r) in run_of.iter().enumerate() {
            let Some(r) = *r else { continue };
            let alnum = (b as u8).is_ascii_alphanumeric() as usize;
            match runs.iter_mut().find(|e| e.0 == r) {
                Some(e) => (e.1, e.2) = (e.1 + alnum, e.2 + 1),
                None => runs.push((r, alnum, 1)),
            }
        }
        let most = |runs: &[(u64, usize, usize)],
                    by: fn(&(u64, usize, usize)) -> (usize, usize)| {
            // Ties go to the lower class: the table does not depend on order.
            runs.iter()
                .max_by_key(|e| (by(e), std::cmp::Reverse(e.0)))
                .map(|e| e.0)
        };
        let word = most(&runs, |e| (e.1, e.2));
        runs.retain(|e| Some(e.0) != word);
        let symbol = most(&runs, |e| (e.2, 0));
        self.lowercase = (b'A'..=b'Z').any(|b| {
            run_of[b as usize].is_some() && self.normalized[b as usize] == b.to_ascii_lowercase()
        });
        for b in 0u8..128 {
            let Some(r) = run_of[b as usize] else {
                continue;
            };
            let expected = match self.lowercase {
                true => b.to_ascii_lowercase(),
                false => b,
            };
            self.class[b as usize] = if self.normalized[b as usize] != expected {
                AsciiClass::Other
            } else if Some(r) == word {
                AsciiClass::Word
            } else if Some(r) == symbol {
                AsciiClass::Symbol
            } else {
                AsciiClass::Other
            };
        }
    }

    /// What normalization makes of each byte (meaningful where the class is
    /// not `Other`, and then ASCII).
    pub fn normalized(&self) -> &[u8; 256] {
        &self.normalized
    }

    /// Calls `word` with each word of `text` (normalized), in order, and
    /// returns true; or returns false, having called nothing, when `text`
    /// holds a byte of class `Other`.
    pub fn words(&self, text: &str, buf: &mut Vec<u8>, mut word: impl FnMut(&str)) -> bool {
        let bytes = text.as_bytes();
        if bytes
            .iter()
            .any(|&b| self.class[b as usize] == AsciiClass::Other)
        {
            return false;
        }
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            match self.class[bytes[i] as usize] {
                AsciiClass::Space => i += 1,
                AsciiClass::Punct => {
                    buf.clear();
                    buf.push(self.normalized[bytes[i] as usize]);
                    word(ascii_str(buf));
                    i += 1;
                }
                run => {
                    buf.clear();
                    while i < n && self.class[bytes[i] as usize] == run {
                        buf.push(self.normalized[bytes[i] as usize]);
                        i += 1;
                    }
                    word(ascii_str(buf));
                }
            }
        }
        true
    }
}

/// `buf` as a str, without a check: it holds only bytes `normalized` gives
/// for bytes of a class other than `Other`, which `from_steps` keeps ASCII
/// (a check per word took a tenth of counting's time).
#[inline]
fn ascii_str(buf: &[u8]) -> &str {
    debug_assert!(buf.is_ascii());
    // SAFETY: every entry of `normalized` is ASCII (`from_steps` writes only
    // ASCII ones, `DECLINE_ALL` holds zeros, and the field is private), so
    // the bytes are UTF-8.
    unsafe { std::str::from_utf8_unchecked(buf) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;

    #[test]
    fn a_chain_of_per_char_steps_has_a_table_of_its_runs() {
        // The tokenizers docs' pipeline: `\w` runs are words, other runs symbols.
        let docs = AsciiClasses::from_steps(
            &[NormalizerStep::Nfd, NormalizerStep::Lowercase],
            &[PreTokenizerStep::Whitespace],
        )
        .unwrap();
        let class = |t: &AsciiClasses, b: u8| t.class[b as usize];
        assert!(docs.lowercase && docs.normalized[b'Q' as usize] == b'q');
        for (b, want) in [
            (b'Q', AsciiClass::Word),
            (b'_', AsciiClass::Word),
            (b'7', AsciiClass::Word),
            (b'.', AsciiClass::Symbol),
            (b'#', AsciiClass::Symbol),
            (b' ', AsciiClass::Space),
            (b'\x0b', AsciiClass::Space),
        ] {
            assert_eq!(class(&docs, b), want, "{:?}", b as char);
        }
        let mut words = Vec::new();
        assert!(docs.words("Hi_5!? ..x", &mut Vec::new(), |w| words.push(w.to_owned())));
        assert_eq!(words, ["hi_5", "!?", "..", "x"]);

        // A third kind of run (digits apart from letters and symbols) and
        // chars normalization rewrites otherwise than by lowercasing decline.
        let replace = |from: &str, to: &str| NormalizerStep::Replace {
            pattern: Pattern::Literal(from.into()),
            content: to.into(),
        };
        let digits = AsciiClasses::from_steps(
            &[replace("x", "y"), replace("ab", "c")],
            &[
                PreTokenizerStep::Whitespace,
                PreTokenizerStep::Digits { individual: false },
            ],
        )
        .unwrap();
        assert!(!digits.lowercase);
        assert_eq!(class(&digits, b'Z'), AsciiClass::Word);
        assert_eq!(class(&digits, b'-'), AsciiClass::Symbol);
        for b in [b'1', b'x', b'a'] {
            assert_eq!(class(&digits, b), AsciiClass::Other, "{:?}", b as char);
        }
        assert_eq!(class(&digits, b'b'), AsciiClass::Word);

        // Steps that act on more than one char: no table.
        assert!(AsciiClasses::from_steps(&[NormalizerStep::Prepend("_".into())], &[]).is_none());
        let split = |p: &str| PreTokenizerStep::Split {
            pattern: Pattern::Literal(p.into()),
            behavior: crate::pre_tokenizers::SplitBehavior::Isolated,
            invert: false,
        };
        assert!(AsciiClasses::from_steps(&[], &[split(",,")]).is_none());
        // A split on one char (or a regex class) is a role of each char.
        let comma = AsciiClasses::from_steps(&[], &[split(",")]).unwrap();
        assert_eq!(class(&comma, b','), AsciiClass::Punct);
        assert_eq!(class(&comma, b' '), AsciiClass::Word);
    }
}
