//! wpiece: WordPiece tokenization with exact WordPiece training.
//!
//! The core has no Python dependency; the PyO3 layer lives in `python.rs`
//! behind the `python` feature.

pub mod cache;
pub mod cancel;
pub mod charclass;
pub mod chunk_cache;
pub mod decode;
pub mod encode;
pub mod error;
pub mod io;
pub mod memory;
pub mod normalize;
pub mod parallel;
pub mod pretokenize;
pub mod quality;
pub mod tokenizer;
pub mod train;
pub mod trie;
pub mod vocab;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
pub use tokenizer::{Encoding, Tokenizer};
