//! The chain path: a tokenizer.json's normalizers and pre-tokenizers other
//! than BERT's alone, chained as HF's `Sequence` chains them. When each of
//! its steps acts on ASCII chars alone, it has the one-pass ASCII table too
//! (`ascii.rs`); otherwise the encoder's fast paths stand aside for it.

use std::ops::Range;

use super::{AsciiClass, AsciiClasses, Cuts, SplitBuffers, ASCII_WHITESPACE};
use crate::normalizers::{normalize_chain, Normalized, NormalizerStep};
use crate::pattern::Pattern;
use crate::pre_tokenizers::{split_chain, PreTokenizerStep, WordSpan};

/// Normalizers and pre-tokenizers other than BERT's (from a tokenizer.json).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    pub normalizers: Vec<NormalizerStep>,
    pub pre_tokenizers: Vec<PreTokenizerStep>,
}

impl Chain {
    /// See [`super::Splitter::cuts`]. A chain may be cut after ASCII
    /// whitespace when its first pre-tokenizer splits there and drops the
    /// whitespace (later ones then act within words, as HF's `Sequence`
    /// does), and no normalizer acts across whitespace: each maps chars
    /// alone or composes and reorders only up to a starter, and a literal
    /// `Replace` without whitespace cannot match one. `Prepend`, `Strip` and
    /// regex `Replace` act on the whole text, so they keep it whole.
    pub(super) fn cuts(&self) -> Cuts {
        Cuts {
            after_whitespace: self.first_split_drops_whitespace() && self.normalizes_locally(false),
            before_cjk: false,
        }
    }

    /// See [`super::Splitter::splits_at_ascii_whitespace`]: with `ascii`,
    /// this chain's table (its steps act on ASCII chars alone, so splits
    /// within a stretch do not depend on what lies past whitespace), when
    /// every pre-tokenizer sees ASCII whitespace as it came and one drops it.
    pub(super) fn splits_at_ascii_whitespace(&self, ascii: &AsciiClasses) -> bool {
        self.normalizes_locally(true)
            && ASCII_WHITESPACE
                .iter()
                .all(|&b| ascii.class[b as usize] == AsciiClass::Space)
    }

    fn first_split_drops_whitespace(&self) -> bool {
        matches!(
            self.pre_tokenizers.first(),
            Some(
                PreTokenizerStep::Bert
                    | PreTokenizerStep::Whitespace
                    | PreTokenizerStep::WhitespaceSplit
            )
        )
    }

    /// Whether no normalizer acts across whitespace (see [`Chain::cuts`]).
    /// With `dropped_runs`, a regex `Replace` of runs of a class of chars
    /// counts as local: where its runs may hold whitespace, the ASCII
    /// table has checked that they are dropped between words (replaced by
    /// whitespace), so cutting at whitespace first changes no word.
    fn normalizes_locally(&self, dropped_runs: bool) -> bool {
        self.normalizers.iter().all(|n| match n {
            NormalizerStep::Bert(_)
            | NormalizerStep::Nfd
            | NormalizerStep::Nfkd
            | NormalizerStep::Nfc
            | NormalizerStep::Nfkc
            | NormalizerStep::Lowercase
            | NormalizerStep::StripAccents => true,
            NormalizerStep::Replace {
                pattern: Pattern::Literal(p),
                ..
            } => !p.bytes().any(|b| ASCII_WHITESPACE.contains(&b)),
            NormalizerStep::Replace { pattern, .. } if dropped_runs => {
                pattern.class_run().is_some()
            }
            NormalizerStep::Replace { .. }
            | NormalizerStep::Strip { .. }
            | NormalizerStep::Prepend(_) => false,
        })
    }

    /// See [`super::Splitter::normalize`].
    pub(super) fn normalize(&self, text: &str, first_char: u32, normalized: &mut Normalized) {
        normalize_chain(&self.normalizers, text, first_char, normalized);
    }

    /// See [`super::Splitter::pre_tokenize`].
    pub(super) fn pre_tokenize(
        &self,
        normalized: &Normalized,
        range: Range<usize>,
        first_char: u32,
        words: &mut Vec<(usize, usize)>,
        mut word: impl FnMut(&Normalized, WordSpan),
    ) {
        let base = range.start;
        split_chain(&self.pre_tokenizers, &normalized.text[range], words);
        let bytes = &normalized.text.as_bytes()[base..];
        // Char index of each word's first byte, counted on from the last word.
        let (mut byte, mut chars) = (0usize, first_char as usize);
        for &(start, end) in words.iter() {
            chars += bytes[byte..start]
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count();
            byte = start;
            let span = WordSpan {
                start: base + start,
                end: base + end,
                first_char: chars as u32,
            };
            word(normalized, span);
        }
    }

    /// See [`super::Splitter::words_general`].
    pub(super) fn words(&self, text: &str, buffers: &mut SplitBuffers, mut word: impl FnMut(&str)) {
        let SplitBuffers {
            normalized, words, ..
        } = buffers;
        normalize_chain(&self.normalizers, text, 0, normalized);
        split_chain(&self.pre_tokenizers, &normalized.text, words);
        for &(start, end) in words.iter() {
            word(&normalized.text[start..end]);
        }
    }
}
