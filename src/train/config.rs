//! What a training run is asked for: the vocab size, the special tokens and
//! alphabet, the prefix and suffix, and the score that ranks pairs.

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Score {
    /// p(x, y) / (f(x) f(y)): the WordPiece score.
    #[default]
    WordPiece,
    /// p(x, y): the most frequent pair, as BPE does.
    Frequency,
    /// The gain in log-likelihood of the words under a unigram model of the
    /// units (see `gain.rs`): frequent and strongly associated pairs first.
    Likelihood,
}

impl Score {
    pub fn name(self) -> &'static str {
        match self {
            Score::WordPiece => "wordpiece",
            Score::Frequency => "frequency",
            Score::Likelihood => "likelihood",
        }
    }
}

impl std::str::FromStr for Score {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        match name {
            "wordpiece" => Ok(Score::WordPiece),
            "frequency" => Ok(Score::Frequency),
            "likelihood" => Ok(Score::Likelihood),
            _ => Err(Error::Value(format!(
                "score must be 'likelihood', 'wordpiece' or 'frequency', got {name:?}"
            ))),
        }
    }
}

#[derive(Clone, Debug)]
pub struct TrainerConfig {
    pub vocab_size: usize,
    /// Pairs rarer than this are never merged.
    pub min_frequency: u64,
    pub special_tokens: Vec<String>,
    /// Keep at most this many distinct characters (the most frequent ones;
    /// `initial_alphabet` is always kept). Other characters form no pairs.
    pub limit_alphabet: Option<usize>,
    /// Characters always in the alphabet, in both word-start and continuation form.
    pub initial_alphabet: Vec<char>,
    pub continuing_subword_prefix: String,
    /// Appended to every word before training (e.g. `_`, the D2L style).
    pub end_of_word_suffix: String,
    pub score: Score,
}

impl Default for TrainerConfig {
    fn default() -> Self {
        Self {
            vocab_size: 30_000,
            min_frequency: 0,
            special_tokens: crate::added_tokens::BERT_SPECIAL_TOKENS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            limit_alphabet: None,
            initial_alphabet: Vec::new(),
            continuing_subword_prefix: "##".into(),
            end_of_word_suffix: String::new(),
            score: Score::WordPiece,
        }
    }
}
