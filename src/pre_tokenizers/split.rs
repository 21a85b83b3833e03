//! HF's `Split`: the pattern's matches are the delimiter runs. A string
//! pattern matches literally; a `Regex` one through Oniguruma (the `onig`
//! crate), the engine HF matches it with, so both find the same matches.

use std::sync::Arc;

use super::runs::Run;
use crate::error::{Error, Result};

/// What a `Split` splits at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitPattern {
    /// A non-empty string, matched literally.
    Literal(String),
    Regex(RegexPattern),
}

/// A compiled Oniguruma regex and its source (what it is saved as, and
/// what it compares by).
#[derive(Clone)]
pub struct RegexPattern {
    source: String,
    regex: Arc<onig::Regex>,
}

impl RegexPattern {
    /// Compiles `source` as HF does (Oniguruma's default syntax, Ruby's).
    pub fn new(source: &str) -> Result<Self> {
        let regex = onig::Regex::new(source)
            .map_err(|e| Error::Value(format!("invalid Regex pattern {source:?}: {e}")))?;
        Ok(Self {
            source: source.to_owned(),
            regex: Arc::new(regex),
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }
}

impl std::fmt::Debug for RegexPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Regex({:?})", self.source)
    }
}

impl PartialEq for RegexPattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for RegexPattern {}

impl SplitPattern {
    /// The runs of `text`: each match a delimiter run, the text between
    /// them plain runs, left to right (an empty text is one empty run).
    pub(super) fn runs(&self, text: &str, runs: &mut Vec<Run>) {
        match self {
            SplitPattern::Literal(pattern) => matches_to_runs(
                text,
                text.match_indices(pattern.as_str())
                    .map(|(at, m)| (at, at + m.len())),
                runs,
            ),
            SplitPattern::Regex(p) => matches_to_runs(text, p.regex.find_iter(text), runs),
        }
    }
}

/// Non-overlapping matches `(start, end)`, left to right, as runs.
fn matches_to_runs(text: &str, matches: impl Iterator<Item = (usize, usize)>, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (start, end) in matches {
        if last != start {
            runs.push((last, start, false));
        }
        runs.push((start, end, true));
        last = end;
    }
    if last != text.len() {
        runs.push((last, text.len(), false));
    }
}
