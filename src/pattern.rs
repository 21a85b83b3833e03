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

    /// Whether some text may hold an empty match (conservative: true for
    /// any pattern with a construct whose match depends on the text around
    /// it). Without such constructs a pattern matches empty somewhere
    /// exactly when it matches the empty text.
    pub fn may_match_empty(&self) -> bool {
        depends_on_context(&self.source) || self.regex.find("").is_some()
    }
}

/// Whether an Oniguruma (Ruby syntax) pattern holds an anchor, a word or
/// text-segment boundary, a lookaround, `\K`, a back-reference or
/// subexpression call, a conditional, a callout or an absent operator
/// (named groups are counted too, to stay on the safe side). Classes
/// (`[...]`, nested) hold none of these, but escapes in them are counted.
fn depends_on_context(source: &str) -> bool {
    let mut chars = source.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('b' | 'B' | 'A' | 'z' | 'Z' | 'G' | 'K' | 'y' | 'Y' | 'g' | 'k') => {
                    return true
                }
                Some(d) if d.is_ascii_digit() => return true,
                _ => {}
            },
            '[' => class_depth += 1,
            ']' if class_depth > 0 => class_depth -= 1,
            '^' | '$' if class_depth == 0 => return true,
            '(' if class_depth == 0 => {
                let next = chars.peek().copied();
                if next == Some('*') {
                    return true;
                }
                if next == Some('?') {
                    chars.next();
                    if matches!(chars.peek(), Some('=' | '!' | '<' | '(' | '~')) {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_that_may_match_empty_are_known() {
        for p in [
            "a*", "(?=b)", "(?<=a)", "^", "$", "\\b", "b|", "x?", "(a)\\1", "(?<n>a)", "\\Ka",
            "[a]*",
        ] {
            assert!(RegexPattern::new(p).unwrap().may_match_empty(), "{p}");
        }
        for p in [
            "\\s+",
            "[^\\w\\s]+",
            "a+",
            "(?i)the",
            "[$^]",
            "''|``",
            "\\p{P}",
            "(?:ab)+",
        ] {
            assert!(!RegexPattern::new(p).unwrap().may_match_empty(), "{p}");
        }
    }
}
