//! The normalizers of HF `tokenizers` other than BERT's alone, chained as its
//! `Sequence` chains them, each honoured exactly (text and alignment).

use super::lowercase::lowercase;
use super::prepend::prepend;
use super::replace::replace;
use super::strip::strip;
use super::strip_accents::strip_accents;
use super::unicode_forms::{self, Form};
use super::{Normalized, NormalizerConfig};
use crate::pattern::Pattern;

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
    /// Every non-overlapping match of `pattern` (a non-empty literal or a
    /// regex), left to right, becomes `content`.
    Replace {
        pattern: Pattern,
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
            NormalizerStep::Nfd => unicode_forms::normalize(Form::Nfd, text, src, out),
            NormalizerStep::Nfkd => unicode_forms::normalize(Form::Nfkd, text, src, out),
            NormalizerStep::Nfc => unicode_forms::normalize(Form::Nfc, text, src, out),
            NormalizerStep::Nfkc => unicode_forms::normalize(Form::Nfkc, text, src, out),
            NormalizerStep::Lowercase => lowercase(text, src, out),
            NormalizerStep::StripAccents => strip_accents(text, src, out),
            NormalizerStep::Strip { left, right } => strip(*left, *right, text, src, out),
            NormalizerStep::Replace { pattern, content } => {
                replace(pattern, content, text, src, out)
            }
            NormalizerStep::Prepend(prefix) => prepend(prefix, text, src, out),
        }
    }
}

/// What a normalizer makes of one ASCII char, when it acts on each char
/// alone (the splitters' one-pass ASCII table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiChar {
    /// Becomes this one char.
    To(char),
    /// Becomes this one char, and so does each run of chars of its class
    /// (a regex `C+`): the same as `To` where the run's chars are dropped
    /// between words, and only there (the table checks it).
    RunTo(char),
    /// Dropped, rewritten to other than one ASCII char, or the start of a
    /// longer literal to replace: texts holding it need the general path.
    Decline,
}

impl NormalizerStep {
    /// What this step makes of the ASCII char `c`, or None when the step
    /// does not act on each char alone (`Strip`, `Prepend` and a regex
    /// `Replace` other than one of a class of chars act on the whole text).
    pub fn ascii_char(&self, c: char) -> Option<AsciiChar> {
        let to = AsciiChar::To;
        Some(match self {
            NormalizerStep::Bert(config) => {
                config.normalize_ascii(c).map_or(AsciiChar::Decline, to)
            }
            // ASCII is its own normal form in all four, and has no marks.
            NormalizerStep::Nfd
            | NormalizerStep::Nfkd
            | NormalizerStep::Nfc
            | NormalizerStep::Nfkc
            | NormalizerStep::StripAccents => to(c),
            NormalizerStep::Lowercase => to(c.to_ascii_lowercase()),
            NormalizerStep::Replace {
                pattern: Pattern::Literal(p),
                content,
            } => {
                let mut p_chars = p.chars();
                let first = p_chars.next();
                if first != Some(c) {
                    to(c)
                } else if p_chars.next().is_some() {
                    // A match reaches past this char: it needs its neighbours.
                    AsciiChar::Decline
                } else {
                    let mut k = content.chars();
                    match (k.next(), k.next()) {
                        (Some(r), None) if r.is_ascii() => to(r),
                        _ => AsciiChar::Decline,
                    }
                }
            }
            NormalizerStep::Replace { pattern, content } => {
                let class = pattern.class_run()?;
                let mut k = content.chars();
                let one = match (k.next(), k.next()) {
                    (Some(r), None) if r.is_ascii() => Some(r),
                    _ => None,
                };
                match (class.ascii[c as usize], one) {
                    (false, _) => to(c),
                    (true, None) => AsciiChar::Decline,
                    (true, Some(r)) if class.run => AsciiChar::RunTo(r),
                    (true, Some(r)) => to(r),
                }
            }
            NormalizerStep::Strip { .. } | NormalizerStep::Prepend(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::{span, NO_SOURCE};

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
            pattern: Pattern::Literal("ab".into()),
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
