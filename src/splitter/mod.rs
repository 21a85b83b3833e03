//! The splitter: text to words, normalization then pre-tokenization, the
//! one place that chooses how. The encoder, the trainer's word counting and
//! the tokenizer all hold one [`Splitter`].
//!
//! Two implementations stand behind it:
//!
//! | file       | handles                                                        |
//! |------------|----------------------------------------------------------------|
//! | `bert.rs`  | BERT's normalizer (or none) and BERT's or whitespace pre-tokenization |
//! | `ascii.rs` | the fast path of both: an ASCII text in one pass over its bytes (a 256-entry table), declining any byte it does not handle |
//! | `pieces.rs` | where a long text may be cut into pieces that split as the whole does |
//! | `chain.rs` | any other normalizers and pre-tokenizers of a tokenizer.json, chained as HF's `Sequence`; the ASCII fast path when each step acts on chars alone |
//!
//! Each fast path either declines, having written nothing, or gives exactly
//! the words of the general path (`train/counts.rs` and `tests/fast_paths.rs`
//! check it). The encoder reads from the splitter which of its own fast
//! paths hold (one-pass ASCII, chunks between ASCII whitespace, word ids
//! read off token ids) and calls the ASCII table directly in its hot loops.

mod ascii;
mod bert;
mod chain;
mod pieces;

pub use ascii::{AsciiClass, AsciiClasses};
pub use chain::Chain;
pub use pieces::{Cuts, Pieces, PIECE_BYTES};

pub use bert::BertSplitter;

use std::ops::Range;

use crate::normalizers::{Normalized, NormalizerConfig};
use crate::pre_tokenizers::{PreTokenizer, WordSpan};

/// The ASCII whitespace bytes a text may be cut at, when normalization
/// keeps them whitespace and pre-tokenization splits there (the encoder's
/// `scan::is_ascii_whitespace` tests the same four).
pub const ASCII_WHITESPACE: &[u8; 4] = b" \t\n\r";

/// How text becomes words: BERT's normalizer and pre-tokenizer (with a fast
/// path), or a chain of other ones.
#[derive(Clone, Debug)]
pub enum Splitter {
    Bert(BertSplitter),
    /// A chain, with its ASCII table when each of its steps acts on ASCII
    /// chars alone (boxed: the table is ten times the size of a chain).
    Chain(Chain, Option<Box<AsciiClasses>>),
}

impl Default for Splitter {
    /// No normalizer, BERT's pre-tokenizer.
    fn default() -> Self {
        Self::new(None, PreTokenizer::Bert)
    }
}

/// Buffers one thread reuses from text to text, so splitting allocates
/// nothing once warm.
#[derive(Debug, Default)]
pub struct SplitBuffers {
    pub normalized: Normalized,
    /// A chain's words (byte ranges of the normalized text).
    pub words: Vec<(usize, usize)>,
    /// The normalized bytes of the word being found by the ASCII table.
    word: Vec<u8>,
}

impl Splitter {
    /// BERT's normalizer (`None`: no normalization) and `pre_tokenizer`.
    pub fn new(normalizer: Option<NormalizerConfig>, pre_tokenizer: PreTokenizer) -> Self {
        Self::Bert(BertSplitter::new(normalizer, pre_tokenizer))
    }

    /// Normalizers and pre-tokenizers other than BERT's alone.
    pub fn from_chain(chain: Chain) -> Self {
        let ascii = AsciiClasses::from_steps(&chain.normalizers, &chain.pre_tokenizers);
        Self::Chain(chain, ascii.map(Box::new))
    }

    /// This splitter with other BERT settings; a chain stays as it is (its
    /// tokenizer.json alone says how it splits).
    pub fn with_settings(
        &self,
        normalizer: Option<NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
    ) -> Self {
        match self {
            Self::Bert(_) => Self::new(normalizer, pre_tokenizer),
            Self::Chain(..) => self.clone(),
        }
    }

    /// BERT's normalizer, if this splitter normalizes with it alone.
    pub fn normalizer(&self) -> Option<&NormalizerConfig> {
        match self {
            Self::Bert(b) => b.normalizer.as_ref(),
            Self::Chain(..) => None,
        }
    }

    /// Whether [`Splitter::normalize`] honours [`Normalized::text_only`]
    /// (a chain composes its steps through the sources).
    pub fn normalizes_text_only(&self) -> bool {
        matches!(self, Self::Bert(_))
    }

    /// BERT's pre-tokenizer or whitespace splitting (a chain reports BERT's).
    pub fn pre_tokenizer(&self) -> PreTokenizer {
        match self {
            Self::Bert(b) => b.pre_tokenizer,
            Self::Chain(..) => PreTokenizer::Bert,
        }
    }

    /// The chain of other normalizers and pre-tokenizers, if any.
    pub fn chain(&self) -> Option<&Chain> {
        match self {
            Self::Bert(_) => None,
            Self::Chain(c, _) => Some(c),
        }
    }

    /// Whether both split every text into the same words (`strip_accents:
    /// None` is the same as `lowercase`'s value).
    pub fn splits_as(&self, other: &Splitter) -> bool {
        match (self, other) {
            (Self::Bert(a), Self::Bert(b)) => a.splits_as(b),
            (Self::Chain(a, _), Self::Chain(b, _)) => a == b,
            _ => false,
        }
    }

    /// The one-pass ASCII table, when this splitter has that fast path.
    pub fn ascii_classes(&self) -> Option<&AsciiClasses> {
        match self {
            Self::Bert(b) => Some(&*b.ascii),
            Self::Chain(_, ascii) => ascii.as_deref(),
        }
    }

    /// Whether pieces of text between ASCII whitespace bytes split
    /// independently of each other: normalization keeps those bytes
    /// whitespace and pre-tokenization splits there.
    pub fn splits_at_ascii_whitespace(&self) -> bool {
        match self {
            Self::Bert(b) => b.splits_at_ascii_whitespace(),
            Self::Chain(c, ascii) => ascii
                .as_deref()
                .is_some_and(|a| c.splits_at_ascii_whitespace(a)),
        }
    }

    /// Where a long text may be cut into pieces that split into the words of
    /// the whole (see `pieces.rs`).
    pub fn cuts(&self) -> Cuts {
        match self {
            Self::Bert(b) => b.cuts(),
            Self::Chain(c, _) => c.cuts(),
        }
    }

    /// Whether every BERT punctuation char is a word of its own.
    pub fn isolates_bert_punctuation(&self) -> bool {
        matches!(self, Self::Bert(b) if b.pre_tokenizer == PreTokenizer::Bert)
    }

    /// Normalizes `text`, whose first char is char `first_char` of the input,
    /// and calls `word` with the normalized text and each of its words, in
    /// order (the general path: any text, offsets kept).
    #[inline]
    pub fn split(
        &self,
        text: &str,
        first_char: u32,
        buffers: &mut SplitBuffers,
        word: impl FnMut(&Normalized, WordSpan),
    ) {
        let SplitBuffers {
            normalized, words, ..
        } = buffers;
        normalized.text_only = false;
        self.normalize(text, first_char, normalized);
        let all = 0..normalized.text.len();
        self.pre_tokenize(normalized, all, 0, words, word);
    }

    /// Normalizes `text` (whose first char is char `first_char` of the
    /// input) into `normalized`, each char with its source.
    pub fn normalize(&self, text: &str, first_char: u32, normalized: &mut Normalized) {
        match self {
            Self::Bert(b) => b.normalize(text, first_char, normalized),
            Self::Chain(c, _) => c.normalize(text, first_char, normalized),
        }
    }

    /// `text` normalized (an added token's normalized form).
    pub fn normalize_str(&self, text: &str) -> String {
        let mut normalized = Normalized::default();
        self.normalize(text, 0, &mut normalized);
        normalized.text
    }

    /// Calls `word` with each word of the bytes `range` of normalized text,
    /// in order; `first_char` is the char index where `range` starts (HF
    /// pre-tokenizes each piece between added tokens on its own).
    #[inline]
    pub fn pre_tokenize(
        &self,
        normalized: &Normalized,
        range: Range<usize>,
        first_char: u32,
        words: &mut Vec<(usize, usize)>,
        word: impl FnMut(&Normalized, WordSpan),
    ) {
        match self {
            Self::Bert(b) => b.pre_tokenize(normalized, range, first_char, word),
            Self::Chain(c, _) => c.pre_tokenize(normalized, range, first_char, words, word),
        }
    }

    /// Calls `word` with each normalized word of `text`, in order: in one pass
    /// over its bytes when the ASCII table handles them all, else as
    /// [`Splitter::words_general`] does.
    #[inline]
    pub fn words(&self, text: &str, buffers: &mut SplitBuffers, mut word: impl FnMut(&str)) {
        if let Some(ascii) = self.ascii_classes() {
            // Bytes past ASCII are of class `Other`: `words` declines those texts.
            if ascii.words(text, &mut buffers.word, &mut word) {
                return;
            }
        }
        self.words_general(text, buffers, word);
    }

    /// Calls `word` with each normalized word of `text`, in order, through the
    /// general path (no fast path; no offsets).
    pub fn words_general(&self, text: &str, buffers: &mut SplitBuffers, word: impl FnMut(&str)) {
        match self {
            Self::Bert(b) => b.words(text, word),
            Self::Chain(c, _) => c.words(text, buffers, word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::NormalizerStep;
    use crate::pre_tokenizers::PreTokenizerStep;

    fn words(s: &Splitter, text: &str, general: bool) -> Vec<String> {
        let (mut out, mut buffers) = (Vec::new(), SplitBuffers::default());
        let mut push = |w: &str| out.push(w.to_owned());
        match general {
            true => s.words_general(text, &mut buffers, &mut push),
            false => s.words(text, &mut buffers, &mut push),
        }
        out
    }

    /// Words with their char spans in the input, from `split`.
    fn spans(s: &Splitter, text: &str) -> Vec<(String, (u32, u32))> {
        let mut out = Vec::new();
        s.split(text, 0, &mut SplitBuffers::default(), |n, w| {
            let chars = n.text[w.start..w.end].chars().count();
            let last = w.first_char as usize + chars - 1;
            let span = crate::normalizers::span(&n.source, w.first_char as usize, last);
            out.push((n.text[w.start..w.end].to_owned(), span));
        });
        out
    }

    #[test]
    fn the_bert_path_declines_or_matches_its_general_path() {
        let bert = Splitter::new(Some(NormalizerConfig::default()), PreTokenizer::Bert);
        for text in ["Hello, World!", "a\u{7}b", "Café, 中文!", ""] {
            assert_eq!(
                words(&bert, text, false),
                words(&bert, text, true),
                "{text:?}"
            );
        }
        assert!(bert.ascii_classes().is_some() && bert.splits_at_ascii_whitespace());
        assert!(bert.isolates_bert_punctuation());
        assert_eq!(
            spans(&bert, "Hé, x"),
            [
                ("he".into(), (0, 2)),
                (",".into(), (2, 3)),
                ("x".into(), (4, 5))
            ]
        );
    }

    #[test]
    fn a_chain_has_no_fast_path() {
        let chain = Splitter::from_chain(Chain {
            normalizers: vec![NormalizerStep::Prepend("_".into())],
            pre_tokenizers: vec![PreTokenizerStep::WhitespaceSplit],
        });
        assert!(chain.ascii_classes().is_none());
        assert!(!chain.splits_at_ascii_whitespace() && !chain.isolates_bert_punctuation());
        assert_eq!(words(&chain, "ab cd", false), ["_ab", "cd"]);
        assert_eq!(words(&chain, "ab cd", true), ["_ab", "cd"]);
        assert_eq!(
            spans(&chain, "ab cd"),
            [("_ab".into(), (0, 2)), ("cd".into(), (3, 5))]
        );
        assert!(!chain.splits_as(&Splitter::default()) && chain.splits_as(&chain.clone()));
        assert!(chain
            .with_settings(None, PreTokenizer::Whitespace)
            .chain()
            .is_some());
    }
}
