//! The pre-tokenizers of HF `tokenizers` that split without rewriting,
//! chained as its `Sequence` chains them: each step splits every word the
//! previous one left, and empty words are dropped.
//!
//! A step finds matches (runs of text flagged as delimiter or not, `runs.rs`)
//! and a [`SplitBehavior`] says what becomes of the delimiters. `Whitespace`
//! and `Split` find theirs in `whitespace.rs` and `split.rs`; the others
//! (BERT's, `WhitespaceSplit`, `Punctuation`, `Digits`,
//! `CharDelimiterSplit`) delimit single chars of one class, below.

use unicode_categories::UnicodeCategories;

use super::runs::{apply, char_runs, split_by, Run, SplitBehavior};
use super::split::pattern_runs;
use super::whitespace::whitespace_runs;
use super::word_chars::{class, CharClass};
use crate::pattern::Pattern;
use crate::unicode::is_bert_punctuation;

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
    /// `Split` on a non-empty literal string or a regex.
    Split {
        pattern: Pattern,
        behavior: SplitBehavior,
        invert: bool,
    },
    CharDelimiterSplit(char),
}

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
                pattern_runs(piece, pattern, runs);
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

/// What a pre-tokenizer does with one ASCII char, when each char's role
/// alone decides where it splits (the splitters' one-pass ASCII table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiRole {
    /// Split at and dropped.
    Removed,
    /// A word of its own.
    Isolated,
    /// Joined with the chars next to it of the same run class.
    Run(u8),
}

impl PreTokenizerStep {
    /// The role of the ASCII char `c`: a word is then a maximal run of chars
    /// of one `Run` class. None when splits depend on more than each char's
    /// role (a `Split` on more than a class of chars, an inverted one,
    /// delimiters merged with a neighbour).
    pub fn ascii_role(&self, c: char) -> Option<AsciiRole> {
        use AsciiRole::{Isolated, Removed, Run};
        Some(match self {
            PreTokenizerStep::Bert if c.is_whitespace() => Removed,
            PreTokenizerStep::Bert if is_bert_punctuation(c) => Isolated,
            PreTokenizerStep::Bert => Run(0),
            PreTokenizerStep::Whitespace => match class(c) {
                CharClass::Space => Removed,
                CharClass::Word => Run(0),
                CharClass::Other => Run(1),
            },
            PreTokenizerStep::WhitespaceSplit if c.is_whitespace() => Removed,
            PreTokenizerStep::WhitespaceSplit => Run(0),
            PreTokenizerStep::Punctuation(behavior) => {
                if !(c.is_ascii_punctuation() || c.is_punctuation()) {
                    Run(0)
                } else {
                    match behavior {
                        SplitBehavior::Removed => Removed,
                        SplitBehavior::Isolated => Isolated,
                        SplitBehavior::Contiguous => Run(1),
                        SplitBehavior::MergedWithPrevious | SplitBehavior::MergedWithNext => {
                            return None
                        }
                    }
                }
            }
            PreTokenizerStep::Digits { individual } => match (c.is_numeric(), individual) {
                (false, _) => Run(0),
                (true, true) => Isolated,
                (true, false) => Run(1),
            },
            PreTokenizerStep::CharDelimiterSplit(d) if c == *d => Removed,
            PreTokenizerStep::CharDelimiterSplit(_) => Run(0),
            // One char of a class, or runs of them, split off (see
            // `Pattern::class_run`); inverted splits keep what matches.
            PreTokenizerStep::Split {
                pattern,
                behavior,
                invert: false,
            } => {
                let class = pattern.class_run()?;
                if !class.ascii[c as usize] {
                    Run(0)
                } else {
                    match behavior {
                        SplitBehavior::Removed => Removed,
                        SplitBehavior::Isolated if !class.run => Isolated,
                        SplitBehavior::Isolated | SplitBehavior::Contiguous => Run(1),
                        SplitBehavior::MergedWithPrevious | SplitBehavior::MergedWithNext => {
                            return None
                        }
                    }
                }
            }
            PreTokenizerStep::Split { invert: true, .. } => return None,
        })
    }
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
