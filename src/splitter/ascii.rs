//! The BERT path's fast path: what normalization then pre-tokenization make
//! of each ASCII byte, the table behind the one-pass ASCII paths of encoding
//! and of word counting (a byte's class and the byte it becomes, looked up
//! instead of running the Unicode normalizer and pre-tokenizer). It declines
//! a text holding a byte it does not handle, or finds the words the general
//! path finds (checked in `train/counts.rs` and `tests/fast_paths.rs`).

use crate::normalizers::NormalizerConfig;
use crate::pre_tokenizers::PreTokenizer;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiClass {
    Word,
    Space,
    Punct,
    /// Needs the general path (dropped by cleaning, or not ASCII).
    Other,
}

/// Per byte: its class and what normalization makes of it.
#[derive(Clone, Debug)]
pub struct AsciiClasses {
    pub class: [AsciiClass; 256],
    pub normalized: [u8; 256],
}

impl AsciiClasses {
    /// The table of a splitter without this fast path: every byte declines.
    pub const DECLINE_ALL: Self = Self {
        class: [AsciiClass::Other; 256],
        normalized: [0; 256],
    };

    pub fn new(normalizer: Option<&NormalizerConfig>, pre_tokenizer: PreTokenizer) -> Self {
        let mut class = [AsciiClass::Other; 256];
        let mut normalized = [0u8; 256];
        for b in 0u8..128 {
            let c = b as char;
            // The byte after normalization; None: cleaning drops it (general path).
            let Some(n) = normalizer.map_or(Some(c), |n| n.normalize_ascii(c)) else {
                continue;
            };
            normalized[b as usize] = n as u8;
            class[b as usize] = if n.is_whitespace() {
                AsciiClass::Space
            } else if pre_tokenizer == PreTokenizer::Bert && n.is_ascii_punctuation() {
                AsciiClass::Punct
            } else {
                AsciiClass::Word
            };
        }
        Self { class, normalized }
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
                    word(std::str::from_utf8(buf).unwrap_or_default());
                    i += 1;
                }
                _ => {
                    buf.clear();
                    while i < n && self.class[bytes[i] as usize] == AsciiClass::Word {
                        buf.push(self.normalized[bytes[i] as usize]);
                        i += 1;
                    }
                    word(std::str::from_utf8(buf).unwrap_or_default());
                }
            }
        }
        true
    }
}
