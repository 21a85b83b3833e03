//! wpiece: WordPiece tokenization with exact WordPiece training.
//!
//! Encoding flows one way, a module per stage: `added_tokens` → `unicode`
//! (BERT's character classes) → `normalizers` → `pre_tokenizers` (a folder
//! each, one file per component and the chain beside them) → `splitter` (the
//! one type that turns text into words: normalize then pre-tokenize, with its
//! fast paths) → `model` (vocab, trie, WordPiece) → `pipeline` (added tokens,
//! post-processing, truncation, padding, how a batch is encoded, and the
//! `Tokenizer` that puts them together; `cut` is where a sequence is cut,
//! for all of them); `encode` is the fast engine behind `Tokenizer`'s encode
//! methods, `cache` its per-thread caches, `decoder` the way back. Training
//! flows `io` (the one document reader) → `train::counts` (words through the
//! same `splitter`) → `train` (merges) → vocab and record.
//! Files live in `io`, tokenizer.json in `hf_json`. The core has no Python
//! dependency; the PyO3 layer lives in `python/` behind the `python` feature,
//! and runs every call's work through one helper (`python/run.rs`).

pub mod added_tokens;
pub mod arrow;
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
pub mod normalizers;
pub mod parallel;
pub mod pattern;
pub mod pipeline;
pub mod pre_tokenizers;
pub mod quality;
pub mod splitter;
pub mod train;
pub mod unicode;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
pub use pipeline::{Encoding, Tokenizer};
