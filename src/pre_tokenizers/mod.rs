//! Pre-tokenization: splitting normalized text into words (byte ranges of
//! the normalized text), without rewriting it.
//!
//! One file per concern, as HF `tokenizers` has them: `bert.rs`
//! (`BertPreTokenizer` and whitespace splitting, the two with fast paths),
//! `whitespace.rs` (HF's `Whitespace` regex, its character table generated
//! into `word_chars.rs`), `split.rs` (`Split` on a string or a regex, `crate::pattern`); `runs.rs` is what
//! they share (delimiter runs and the split behaviors), and `chain.rs` chains
//! them as HF's `Sequence` (with `Punctuation`, `Digits`,
//! `WhitespaceSplit` and `CharDelimiterSplit`, one char class each).

pub mod bert;
pub mod chain;
mod runs;
mod split;
mod whitespace;
mod word_chars;

pub use bert::{PreTokenizer, WordSpan};
pub use chain::{split_chain, AsciiRole, PreTokenizerStep};
pub use runs::SplitBehavior;
