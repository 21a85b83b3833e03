//! The normalizers of HF `tokenizers` other than BERT's, chained as its
//! `Sequence` chains them, each honoured exactly (text and alignment).
//!
//! Alignment: HF maps every normalized char to one original char. A step
//! that rewrites text yields `(char, change)` pairs: `change <= 0` means the
//! char takes the place of the next input char (and drops `-change` more);
//! `change > 0` means it is inserted and aligned to the input char before
//! it. [`Normalized::source`] carries that map through the chain.

use unicode_normalization_alignments::char::is_combining_mark;
use unicode_normalization_alignments::UnicodeNormalization;

use crate::normalizer::{Normalized, NormalizerConfig};

/// The source of a char HF aligns to no original char: one inserted before
/// the first (its span is `(0, 0)`).
pub const NO_SOURCE: u32 = u32::MAX;

/// The char span `(start, end)` of normalized chars `first..=last`, as HF
/// spans them: from the first one's start to the last one's end.
pub fn span(source: &[u32], first: usize, last: usize) -> (u32, u32) {
    let start = match source[first] {
        NO_SOURCE => 0,
        s => s,
    };
    let end = match source[last] {
        NO_SOURCE => 0,
        s => s + 1,
    };
    (start, end)
}

/// One normalizer of a chain, as tokenizer.json names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NormalizerStep {
    Bert(NormalizerConfig),
    Nfd,
    Nfkd,
    Nfc,
    Nfkc,
    Lowercase,
    /// Drops combining marks (every `M` category, as HF's `StripAccents`).
    StripAccents,
    Strip {
        left: bool,
        right: bool,
    },
    /// Every non-overlapping occurrence of `pattern` (a non-empty literal),
    /// left to right, becomes `content`.
    Replace {
        pattern: String,
        content: String,
    },
    /// `prepend` goes before a non-empty text.
    Prepend(String),
}

/// Normalizes `input` through `steps` into `out`; source indices start at
/// `first_char`.
pub fn normalize_chain(
    steps: &[NormalizerStep],
    input: &str,
    first_char: u32,
    out: &mut Normalized,
) {
    out.text.clear();
    out.text.push_str(input);
    out.source.clear();
    out.source
        .extend(first_char..first_char + input.chars().count() as u32);
    let mut next = Normalized::default();
    for step in steps {
        next.text.clear();
        next.source.clear();
        step.apply(out, &mut next);
        std::mem::swap(out, &mut next);
    }
}

impl NormalizerStep {
    /// `input` normalized by this step into `out` (empty on entry).
    fn apply(&self, input: &Normalized, out: &mut Normalized) {
        let text = input.text.as_str();
        let src = &input.source;
        match self {
            NormalizerStep::Bert(config) => {
                let mut local = Normalized::default();
                config.normalize_into(text, 0, &mut local);
                out.text = local.text;
                out.source = local.source.iter().map(|&i| src[i as usize]).collect();
            }
            NormalizerStep::Nfd => transform(src, text.nfd(), out),
            NormalizerStep::Nfkd => transform(src, text.nfkd(), out),
            NormalizerStep::Nfc => transform(src, text.nfc(), out),
            NormalizerStep::Nfkc => transform(src, text.nfkc(), out),
            NormalizerStep::Lowercase => {
                for (c, &s) in text.chars().zip(src) {
                    for low in c.to_lowercase() {
                        out.text.push(low);
                        out.source.push(s);
                    }
                }
            }
            NormalizerStep::StripAccents => keep(text, src, |_, c| !is_combining_mark(c), out),
            NormalizerStep::Strip { left, right } => {
                let n = src.len();
                let lead = if *left {
                    text.chars().take_while(|c| c.is_whitespace()).count()
                } else {
                    0
                };
                let trail = if *right {
                    text.chars().rev().take_while(|c| c.is_whitespace()).count()
                } else {
                    0
                };
                keep(text, src, |i, _| i >= lead && i + trail < n, out);
            }
            NormalizerStep::Replace { pattern, content } => {
                // Content is aligned to the last char it replaces.
                let mut last = 0;
                let mut char_at = 0usize;
                for (at, m) in text.match_indices(pattern.as_str()) {
                    let before = &text[last..at];
                    push_kept(before, &src[char_at..], out);
                    char_at += before.chars().count();
                    let matched = m.chars().count();
                    let align = src[char_at + matched - 1];
                    for c in content.chars() {
                        out.text.push(c);
                        out.source.push(align);
                    }
                    char_at += matched;
                    last = at + m.len();
                }
                push_kept(&text[last..], &src[char_at..], out);
            }
            NormalizerStep::Prepend(prefix) => {
                out.text.push_str(prefix);
                out.text.push_str(text);
                if let Some(&first) = src.first() {
                    // HF re-inserts the first char after the prefix: with an
                    // empty prefix nothing precedes it, and it aligns to nothing.
                    let first = if prefix.is_empty() { NO_SOURCE } else { first };
                    out.source
                        .extend(std::iter::repeat_n(first, prefix.chars().count() + 1));
                    out.source.extend_from_slice(&src[1..]);
                } else {
                    out.text.clear();
                }
            }
        }
    }
}

fn push_kept(text: &str, src: &[u32], out: &mut Normalized) {
    out.text.push_str(text);
    out.source.extend_from_slice(&src[..text.chars().count()]);
}

/// The chars of `text` for which `keep(index, char)` holds, with their sources.
fn keep(text: &str, src: &[u32], keep: impl Fn(usize, char) -> bool, out: &mut Normalized) {
    for (i, (c, &s)) in text.chars().zip(src).enumerate() {
        if keep(i, c) {
            out.text.push(c);
            out.source.push(s);
        }
    }
}

/// Applies `(char, change)` pairs to `text` (see the module comment).
fn transform(src: &[u32], pairs: impl Iterator<Item = (char, isize)>, out: &mut Normalized) {
    let mut at = 0usize; // index of the next input char
    for (c, change) in pairs {
        let align = if change > 0 {
            match at {
                0 => NO_SOURCE,
                _ => src[(at - 1).min(src.len() - 1)],
            }
        } else {
            let s = src[at.min(src.len() - 1)];
            at += 1 + change.unsigned_abs();
            s
        };
        out.text.push(c);
        out.source.push(align);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: &[NormalizerStep], text: &str) -> (String, Vec<u32>) {
        let mut out = Normalized::default();
        normalize_chain(steps, text, 0, &mut out);
        (out.text, out.source)
    }

    #[test]
    fn decomposition_aligns_marks_to_their_letter() {
        let (t, s) = run(&[NormalizerStep::Nfd, NormalizerStep::StripAccents], "aé");
        assert_eq!((t.as_str(), s), ("ae", vec![0, 1]));
        let (t, s) = run(&[NormalizerStep::Nfc], "e\u{301}x");
        assert_eq!((t.as_str(), s), ("éx", vec![0, 2]));
    }

    #[test]
    fn replace_aligns_content_to_the_last_replaced_char() {
        let replace = NormalizerStep::Replace {
            pattern: "ab".into(),
            content: "XYZ".into(),
        };
        let (t, s) = run(&[replace], "cabab");
        assert_eq!((t.as_str(), s), ("cXYZXYZ", vec![0, 2, 2, 2, 4, 4, 4]));
    }

    #[test]
    fn strip_and_prepend() {
        let strip = NormalizerStep::Strip {
            left: true,
            right: true,
        };
        let (t, s) = run(&[strip, NormalizerStep::Prepend("_".into())], "  ab ");
        assert_eq!((t.as_str(), s), ("_ab", vec![2, 2, 3]));
        let (t, s) = run(&[NormalizerStep::Prepend("_".into())], "");
        assert_eq!((t.as_str(), s), ("", vec![]));
        let (t, s) = run(&[NormalizerStep::Prepend(String::new())], "ab");
        assert_eq!((t.as_str(), &s), ("ab", &vec![NO_SOURCE, 1]));
        assert_eq!(span(&s, 0, 0), (0, 0));
        assert_eq!(span(&s, 0, 1), (0, 2));
    }
}
