//! The pre-tokenizers of HF `tokenizers` that split without rewriting,
//! chained as its `Sequence` chains them: each step splits every word the
//! previous one left, and empty words are dropped.
//!
//! A step finds matches (runs of text flagged as delimiter or not) and a
//! [`SplitBehavior`] says what becomes of the delimiters, as in HF's
//! `NormalizedString::split`.

use unicode_categories::UnicodeCategories;

use crate::unicode::is_bert_punctuation;
use crate::word_chars::{class, CharClass};

/// What a split does with the delimiters it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitBehavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

impl SplitBehavior {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "Removed" | "removed" => Self::Removed,
            "Isolated" | "isolated" => Self::Isolated,
            "MergedWithPrevious" | "merged_with_previous" => Self::MergedWithPrevious,
            "MergedWithNext" | "merged_with_next" => Self::MergedWithNext,
            "Contiguous" | "contiguous" => Self::Contiguous,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Removed => "Removed",
            Self::Isolated => "Isolated",
            Self::MergedWithPrevious => "MergedWithPrevious",
            Self::MergedWithNext => "MergedWithNext",
            Self::Contiguous => "Contiguous",
        }
    }
}

/// One pre-tokenizer of a chain, as tokenizer.json names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreTokenizerStep {
    /// `BertPreTokenizer`: whitespace removed, punctuation isolated.
    Bert,
    /// `Whitespace`: runs of word chars and runs of other non-space chars.
    Whitespace,
    /// `WhitespaceSplit`: whitespace removed.
    WhitespaceSplit,
    Punctuation(SplitBehavior),
    Digits {
        individual: bool,
    },
    /// `Split` on a non-empty literal string.
    Split {
        pattern: String,
        behavior: SplitBehavior,
        invert: bool,
    },
    CharDelimiterSplit(char),
}

/// A run of text: its byte range and whether it is a delimiter.
type Run = (usize, usize, bool);

/// Splits `text` through `steps`; `words` receives byte ranges, in order.
pub fn split_chain(steps: &[PreTokenizerStep], text: &str, words: &mut Vec<(usize, usize)>) {
    words.clear();
    if !text.is_empty() {
        words.push((0, text.len()));
    }
    let mut next = Vec::new();
    let mut runs = Vec::new();
    for step in steps {
        next.clear();
        for &(start, end) in words.iter() {
            step.split(&text[start..end], start, &mut runs, &mut next);
        }
        std::mem::swap(words, &mut next);
    }
}

impl PreTokenizerStep {
    /// Appends the words of `piece` (which starts at byte `base`) to `out`.
    fn split(&self, piece: &str, base: usize, runs: &mut Vec<Run>, out: &mut Vec<(usize, usize)>) {
        match self {
            PreTokenizerStep::Bert => {
                let mut spaced = Vec::new();
                split_by(
                    piece,
                    char::is_whitespace,
                    SplitBehavior::Removed,
                    runs,
                    &mut spaced,
                );
                for (s, e) in spaced {
                    let mut inner = Vec::new();
                    split_by(
                        &piece[s..e],
                        is_bert_punctuation,
                        SplitBehavior::Isolated,
                        runs,
                        &mut inner,
                    );
                    out.extend(inner.into_iter().map(|(a, b)| (base + s + a, base + s + b)));
                }
            }
            PreTokenizerStep::Whitespace => {
                whitespace_runs(piece, runs);
                for r in runs.iter_mut() {
                    r.2 = !r.2;
                }
                apply(runs, SplitBehavior::Removed, base, out);
            }
            PreTokenizerStep::WhitespaceSplit => {
                char_runs(piece, char::is_whitespace, runs);
                apply(runs, SplitBehavior::Removed, base, out);
            }
            PreTokenizerStep::Punctuation(behavior) => {
                char_runs(
                    piece,
                    |c| c.is_ascii_punctuation() || c.is_punctuation(),
                    runs,
                );
                apply(runs, *behavior, base, out);
            }
            PreTokenizerStep::Digits { individual } => {
                char_runs(piece, char::is_numeric, runs);
                let behavior = if *individual {
                    SplitBehavior::Isolated
                } else {
                    SplitBehavior::Contiguous
                };
                apply(runs, behavior, base, out);
            }
            PreTokenizerStep::Split {
                pattern,
                behavior,
                invert,
            } => {
                literal_runs(piece, pattern, runs);
                if *invert {
                    for r in runs.iter_mut() {
                        r.2 = !r.2;
                    }
                }
                apply(runs, *behavior, base, out);
            }
            PreTokenizerStep::CharDelimiterSplit(d) => {
                char_runs(piece, |c| c == *d, runs);
                apply(runs, SplitBehavior::Removed, base, out);
            }
        }
    }
}

fn split_by(
    piece: &str,
    pred: impl Fn(char) -> bool,
    behavior: SplitBehavior,
    runs: &mut Vec<Run>,
    out: &mut Vec<(usize, usize)>,
) {
    char_runs(piece, pred, runs);
    apply(runs, behavior, 0, out);
}

/// Each char matching `pred` is a delimiter run of its own; the text
/// between is one run.
fn char_runs(text: &str, pred: impl Fn(char) -> bool, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (b, c) in text.char_indices() {
        if pred(c) {
            if last < b {
                runs.push((last, b, false));
            }
            runs.push((b, b + c.len_utf8(), true));
            last = b + c.len_utf8();
        }
    }
    if last < text.len() {
        runs.push((last, text.len(), false));
    }
}

/// Non-overlapping occurrences of `pattern`, left to right.
fn literal_runs(text: &str, pattern: &str, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (at, m) in text.match_indices(pattern) {
        if last != at {
            runs.push((last, at, false));
        }
        runs.push((at, at + m.len(), true));
        last = at + m.len();
    }
    if last != text.len() {
        runs.push((last, text.len(), false));
    }
}

/// Matches of `\w+|[^\w\s]+` (flagged true) and the gaps between them.
fn whitespace_runs(text: &str, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut current: Option<(usize, CharClass)> = None;
    for (b, c) in text.char_indices() {
        let k = class(c);
        match current {
            Some((_, prev)) if prev == k => {}
            Some((start, prev)) => {
                runs.push((start, b, prev != CharClass::Space));
                current = Some((b, k));
            }
            None => current = Some((b, k)),
        }
    }
    if let Some((start, prev)) = current {
        runs.push((start, text.len(), prev != CharClass::Space));
    }
}

/// Turns runs into words by `behavior` (HF `NormalizedString::split`);
/// empty words are dropped.
fn apply(runs: &[Run], behavior: SplitBehavior, base: usize, out: &mut Vec<(usize, usize)>) {
    let mut kept: Vec<(usize, usize, bool)> = Vec::with_capacity(runs.len());
    match behavior {
        SplitBehavior::Isolated => kept.extend(runs.iter().map(|&(s, e, _)| (s, e, false))),
        SplitBehavior::Removed => kept.extend_from_slice(runs),
        SplitBehavior::Contiguous => {
            let mut previous = false;
            for &(s, e, m) in runs {
                match kept.last_mut() {
                    Some(last) if m == previous => last.1 = e,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
        }
        SplitBehavior::MergedWithPrevious => {
            let mut previous = false;
            for &(s, e, m) in runs {
                match kept.last_mut() {
                    Some(last) if m && !previous => last.1 = e,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
        }
        SplitBehavior::MergedWithNext => {
            let mut previous = false;
            for &(s, e, m) in runs.iter().rev() {
                match kept.last_mut() {
                    Some(last) if m && !previous => last.0 = s,
                    _ => kept.push((s, e, false)),
                }
                previous = m;
            }
            kept.reverse();
        }
    }
    out.extend(
        kept.into_iter()
            .filter(|&(s, e, removed)| !removed && s < e)
            .map(|(s, e, _)| (base + s, base + e)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(steps: &[PreTokenizerStep], text: &str) -> Vec<String> {
        let mut w = Vec::new();
        split_chain(steps, text, &mut w);
        w.iter().map(|&(s, e)| text[s..e].to_owned()).collect()
    }

    #[test]
    fn behaviors_as_hf_documents_them() {
        let p = |b| [PreTokenizerStep::Punctuation(b)];
        let text = "the-final--countdown";
        assert_eq!(
            words(&p(SplitBehavior::Removed), text),
            ["the", "final", "countdown"]
        );
        assert_eq!(
            words(&p(SplitBehavior::Isolated), text),
            ["the", "-", "final", "-", "-", "countdown"]
        );
        assert_eq!(
            words(&p(SplitBehavior::MergedWithPrevious), text),
            ["the-", "final-", "-", "countdown"]
        );
        assert_eq!(
            words(&p(SplitBehavior::MergedWithNext), text),
            ["the", "-final", "-", "-countdown"]
        );
        assert_eq!(
            words(&p(SplitBehavior::Contiguous), text),
            ["the", "-", "final", "--", "countdown"]
        );
    }

    #[test]
    fn whitespace_and_digits_in_sequence() {
        let steps = [
            PreTokenizerStep::Whitespace,
            PreTokenizerStep::Digits { individual: true },
        ];
        assert_eq!(
            words(&steps, "Hey friend!?  a12 é_b"),
            ["Hey", "friend", "!?", "a", "1", "2", "é_b"]
        );
    }
}
