//! Exact WordPiece training with incremental updates: counted words in, a
//! vocabulary and the record of its merges out.
//!
//! | file | concern |
//! |------|---------|
//! | `counts.rs` | word types and their counts, in first-appearance order |
//! | `counting.rs`, `short_words.rs` | counting the words of documents on every thread, block by block or a file's pieces (short words in a front table) |
//! | `part_merge.rs` | merging the counting threads' maps, shard by shard on every thread |
//! | `splitter_counting.rs` | counting words as the encoder's splitter finds them |
//! | `word_splitting.rs` | how counting makes words: BERT's options, or a tokenizer's whole pipeline |
//! | `counting_options.rs` | the counting options as counts files and Python name them |
//! | `counts_file.rs` | the word counts file format |
//! | `config.rs` | the options of a run (`TrainerConfig`, `Score`) |
//! | `pairs.rs`, `gain.rs`, `queue.rs` | pair statistics; the likelihood gain ΔL and its bounds; queue entries |
//! | `state.rs` | the training state (the linked arena of units, the lazy exact queue) and the proof that it picks the exact argmax |
//! | `makers.rs`, `string_hash.rs` | likelihood score: which unit a pair's merge makes, found by hashes of string parts |
//! | `merge.rs` | one merge applied in place |
//! | `longest_match.rs` | longest match first over a token list, for extending and fitting |
//! | `extend.rs` | the units a word starts as when training on from an existing vocabulary |
//! | `fit.rs` | fitting a trained vocabulary to longest-match encoding (pruning) |
//! | `trainer.rs` | the loop from counts to a finished vocabulary |
//! | `record.rs` | the vocabulary and the record of each merge |

mod config;
mod counting;
pub mod counting_options;
pub mod counts;
pub mod counts_file;
pub mod extend;
pub mod fit;
pub mod gain;
mod longest_match;
mod makers;
mod merge;
mod occurrences;
pub mod pairs;
mod part_merge;
pub mod queue;
mod record;
mod short_words;
mod splitter_counting;
mod state;
mod string_hash;
mod trainer;
pub mod word_splitting;

pub use config::{Score, TrainerConfig};
pub use extend::InitialVocab;
pub use record::{MergeRecord, TrainOutput};
pub use trainer::{train, train_extending};
pub use word_splitting::WordSplitting;
