//! What a training run gives: the vocabulary and the record of each merge.

use super::config::Score;

/// One merge of the training run.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeRecord {
    pub left: String,
    pub right: String,
    pub merged: String,
    pub pair_frequency: u64,
    pub left_frequency: u64,
    pub right_frequency: u64,
    /// Σ count × symbols over all words after this merge.
    pub tokens_after: u64,
    /// False when the merged string was already in the vocabulary.
    pub added: bool,
    /// The merge's gain in log-likelihood ΔL (`gain::merge_gain`), whatever
    /// score chose it.
    pub gain: f64,
    /// What ranked the merge: ΔL for the likelihood score, p / (f(left)
    /// f(right)) for WordPiece, p for frequency (the last two as the nearest
    /// f64; training compared them exactly, in integers).
    pub score: f64,
}

/// The value of `score` for a merge of these counts and gain.
pub fn score_value(score: Score, pair: u64, left: u64, right: u64, gain: f64) -> f64 {
    match score {
        Score::Likelihood => gain,
        Score::Frequency => pair as f64,
        Score::WordPiece => {
            let below = u128::from(left) * u128::from(right);
            // Both exact in f64 (the usual case): one correctly rounded division.
            pair as f64 / below as f64
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TrainOutput {
    pub vocab: Vec<String>,
    pub merges: Vec<MergeRecord>,
    /// Number of alphabet entries in `vocab` (after the special tokens).
    pub alphabet_size: usize,
    /// The special tokens and the alphabet: the size before the first merge.
    pub base_vocab_size: usize,
    /// Σ count × characters before any merge.
    pub initial_tokens: u64,
    /// Σ count: the number of words in the corpus.
    pub total_words: u64,
}
