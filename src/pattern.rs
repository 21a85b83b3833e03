//! The patterns of HF's `Split` and `Replace`: a string, matched
//! literally, or a `Regex`, matched by Oniguruma (the `onig` crate), the
//! engine HF matches it with, so both find the same matches.

use std::sync::Arc;

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
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

impl Pattern {
    /// The non-overlapping matches `(start, end)` in `text` (byte offsets),
    /// left to right; a regex may match empty strings.
    pub fn matches<'t>(&'t self, text: &'t str) -> Box<dyn Iterator<Item = (usize, usize)> + 't> {
        match self {
            Pattern::Literal(p) => Box::new(
                text.match_indices(p.as_str())
                    .map(|(at, m)| (at, at + m.len())),
            ),
            Pattern::Regex(r) => Box::new(r.regex.find_iter(text)),
        }
    }
}
