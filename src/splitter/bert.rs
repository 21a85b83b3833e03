//! The BERT path: BERT's normalizer (or none), then BERT's pre-tokenizer or
//! whitespace splitting; its one-pass ASCII table (`ascii.rs`) built once.

use std::ops::Range;

use super::{AsciiClasses, Cuts, ASCII_WHITESPACE};
use crate::normalizers::{Normalized, NormalizerConfig, NormalizerStep};
use crate::pre_tokenizers::{PreTokenizer, PreTokenizerStep, WordSpan};

#[derive(Clone, Debug)]
pub struct BertSplitter {
    pub(super) normalizer: Option<NormalizerConfig>,
    pub(super) pre_tokenizer: PreTokenizer,
    /// What both make of each ASCII byte (the fast path); boxed, as the
    /// table is ten times the size of a chain.
    pub(super) ascii: Box<AsciiClasses>,
}

impl BertSplitter {
    pub(super) fn new(normalizer: Option<NormalizerConfig>, pre_tokenizer: PreTokenizer) -> Self {
        let normalizers: Vec<_> = normalizer
            .iter()
            .cloned()
            .map(NormalizerStep::Bert)
            .collect();
        let pre_tokenizers = [match pre_tokenizer {
            PreTokenizer::Bert => PreTokenizerStep::Bert,
            PreTokenizer::Whitespace => PreTokenizerStep::WhitespaceSplit,
        }];
        let ascii = AsciiClasses::from_steps(&normalizers, &pre_tokenizers)
            .expect("BERT's normalizer and pre-tokenizers act on each ASCII char alone");
        let ascii = Box::new(ascii);
        Self {
            normalizer,
            pre_tokenizer,
            ascii,
        }
    }

    /// Whether both split every text into the same words.
    pub(super) fn splits_as(&self, other: &BertSplitter) -> bool {
        let effective = |n: &Option<NormalizerConfig>| {
            n.as_ref().map(|n| {
                (
                    n.clean_text,
                    n.handle_chinese_chars,
                    n.lowercase,
                    n.strips_accents(),
                )
            })
        };
        self.pre_tokenizer == other.pre_tokenizer
            && effective(&self.normalizer) == effective(&other.normalizer)
    }

    /// Both pre-tokenizers split at whitespace; the normalizer must keep the
    /// ASCII whitespace bytes whitespace.
    pub(super) fn splits_at_ascii_whitespace(&self) -> bool {
        ASCII_WHITESPACE.iter().all(|&b| {
            let c = b as char;
            self.normalizer
                .as_ref()
                .map_or(Some(c), |n| n.normalize_ascii(c))
                .is_some_and(char::is_whitespace)
        })
    }

    /// See [`super::Splitter::cuts`]: BERT's normalizer isolating CJK
    /// ideographs makes each a word of its own.
    pub(super) fn cuts(&self) -> Cuts {
        Cuts {
            after_whitespace: self.splits_at_ascii_whitespace(),
            before_cjk: self
                .normalizer
                .as_ref()
                .is_some_and(|n| n.handle_chinese_chars),
        }
    }

    /// See [`super::Splitter::normalize`].
    pub(super) fn normalize(&self, text: &str, first_char: u32, normalized: &mut Normalized) {
        match &self.normalizer {
            Some(n) => n.normalize_into(text, first_char, normalized),
            None => {
                normalized.text.clear();
                normalized.text.push_str(text);
                normalized.source.clear();
                let chars = text.chars().count() as u32;
                normalized.source.extend(first_char..first_char + chars);
            }
        }
    }

    /// See [`super::Splitter::pre_tokenize`].
    #[inline]
    pub(super) fn pre_tokenize(
        &self,
        normalized: &Normalized,
        range: Range<usize>,
        first_char: u32,
        mut word: impl FnMut(&Normalized, WordSpan),
    ) {
        let base = range.start;
        self.pre_tokenizer.split(&normalized.text[range], |w| {
            let w = WordSpan {
                start: base + w.start,
                end: base + w.end,
                first_char: first_char + w.first_char,
            };
            word(normalized, w)
        });
    }

    /// See [`super::Splitter::words_general`]: normalized text only, without
    /// sources.
    pub(super) fn words(&self, text: &str, mut word: impl FnMut(&str)) {
        match &self.normalizer {
            Some(n) => {
                let text = n.normalize_text(text);
                self.pre_tokenizer
                    .split(&text, |w| word(&text[w.start..w.end]));
            }
            None => self
                .pre_tokenizer
                .split(text, |w| word(&text[w.start..w.end])),
        }
    }
}
