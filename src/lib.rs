//! wpiece: WordPiece tokenization with exact WordPiece training.
//!
//! Encoding flows one way, a module per stage: `added_tokens` → `unicode`
//! (character classes) → `normalizer` → `pre_tokenizer` → `model` (vocab, trie, WordPiece) →
//! `pipeline` (added tokens, post-processing, truncation, padding, and the
//! `Tokenizer` that puts them together); `encode` is the fast engine behind
//! `Tokenizer`'s encode methods, `cache` its per-thread caches, `decoder` the
//! way back. Training flows `train::counts` → `train` (merges) → vocab.
//! Files live in `io`, tokenizer.json in `hf_json`. The core has no Python
//! dependency; the PyO3 layer lives in `python/` behind the `python` feature.

pub mod added_tokens;
pub mod arrow;
pub mod ascii_words;
pub mod cache;
pub mod cancel;
pub mod cut;
pub mod decoder;
pub mod encode;
pub mod error;
pub mod hf_json;
pub mod io;
pub mod memory;
pub mod model;
pub mod normalizer;
pub mod normalizer_chain;
pub mod parallel;
pub mod pipeline;
pub mod pre_tokenizer;
pub mod pre_tokenizer_chain;
pub mod quality;
pub mod train;
pub mod unicode;
pub mod word_chars;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
pub use pipeline::{Encoding, Tokenizer};
