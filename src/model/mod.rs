//! The model stage: the vocabulary, the trie that matches its tokens, and
//! WordPiece's greedy longest-match-first split of one word into pieces.

pub mod trie;
pub mod vocab;
pub mod wordpiece;

pub use vocab::Vocab;
pub use wordpiece::{Piece, UnknownPolicy, WordPiece, WordPieceConfig, MISSING_UNK};
