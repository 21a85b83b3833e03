//! What a training run gives: the vocabulary and the record of each merge.

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
}

#[derive(Clone, Debug, Default)]
pub struct TrainOutput {
    pub vocab: Vec<String>,
    pub merges: Vec<MergeRecord>,
    /// Number of alphabet entries in `vocab` (after the special tokens).
    pub alphabet_size: usize,
    /// Σ count × characters before any merge.
    pub initial_tokens: u64,
    /// Σ count: the number of words in the corpus.
    pub total_words: u64,
}
