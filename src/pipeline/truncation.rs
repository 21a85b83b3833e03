//! Truncation with HF's semantics: strategies for pairs, a side to cut
//! from, and overflowing parts that overlap by a stride.

use std::str::FromStr;

use super::encoding::Encoding;
use crate::cut::TruncationDirection;
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncationStrategy {
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

impl TruncationStrategy {
    pub fn name(self) -> &'static str {
        match self {
            TruncationStrategy::LongestFirst => "longest_first",
            TruncationStrategy::OnlyFirst => "only_first",
            TruncationStrategy::OnlySecond => "only_second",
        }
    }
}

impl FromStr for TruncationStrategy {
    type Err = Error;

    /// The Python names (`longest_first`) and the tokenizer.json ones (`LongestFirst`).
    fn from_str(name: &str) -> Result<Self> {
        match name {
            "longest_first" | "LongestFirst" => Ok(Self::LongestFirst),
            "only_first" | "OnlyFirst" => Ok(Self::OnlyFirst),
            "only_second" | "OnlySecond" => Ok(Self::OnlySecond),
            _ => Err(Error::Value(format!(
                "truncation strategy must be 'longest_first', 'only_first' or \
                 'only_second', got {name:?}"
            ))),
        }
    }
}

/// Truncation to `max_length` tokens, special tokens included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    pub max_length: usize,
    pub strategy: TruncationStrategy,
    /// Tokens each overflowing part repeats of the part before it.
    pub stride: usize,
    pub direction: TruncationDirection,
}

impl Truncation {
    /// Tokens left for the text(s) once `n_added` special tokens are counted.
    /// HF wraps around when `max_length` is smaller and silently skips
    /// truncation; we refuse instead.
    pub fn content_budget(&self, n_added: usize) -> Result<usize> {
        self.max_length.checked_sub(n_added).ok_or_else(|| {
            Error::Value(format!(
                "max_length {} is smaller than the {n_added} special tokens added",
                self.max_length
            ))
        })
    }

    /// How many of a single sequence's `n` tokens are kept: what `apply`
    /// leaves of it without a pair, without building it first.
    pub fn single_len(&self, n: usize, n_added: usize) -> Result<usize> {
        let max = self.content_budget(n_added)?;
        if n <= max || max == 0 {
            return Ok(n.min(max));
        }
        match self.strategy {
            TruncationStrategy::OnlySecond => {
                Err(Error::Value("truncation 'only_second' needs a pair".into()))
            }
            TruncationStrategy::LongestFirst | TruncationStrategy::OnlyFirst => Ok(max),
        }
    }

    /// Refuses a stride HF refuses when truncation is set: one above
    /// `max_length` less the tokens the post-processor adds to a single input
    /// (`processor_adds`, whether or not special tokens are asked for). HF
    /// skips the check when `max_length` is the smaller (its subtraction
    /// wraps); a cut that cannot honour the stride still fails, when made.
    pub fn check_stride(&self, processor_adds: usize) -> Result<()> {
        match self.max_length.checked_sub(processor_adds) {
            Some(budget) if self.stride > budget => Err(Error::Value(format!(
                "stride {} is above max_length {} less the {processor_adds} special tokens \
                 the post-processor adds",
                self.stride, self.max_length
            ))),
            _ => Ok(()),
        }
    }

    /// Cuts `a` (and `b`) to the budget left after `n_added` special tokens;
    /// what is cut becomes their overflowing parts.
    pub fn apply(&self, a: &mut Encoding, b: Option<&mut Encoding>, n_added: usize) -> Result<()> {
        truncate(a, b, self.content_budget(n_added)?, self)
    }
}

/// HF truncation semantics.
fn truncate(
    a: &mut Encoding,
    b: Option<&mut Encoding>,
    max_length: usize,
    t: &Truncation,
) -> Result<()> {
    let (stride, direction, strategy) = (t.stride, t.direction, t.strategy);
    if max_length == 0 {
        a.truncate(0, stride, direction)?;
        if let Some(b) = b {
            b.truncate(0, stride, direction)?;
        }
        return Ok(());
    }
    let total = a.len() + b.as_ref().map_or(0, |b| b.len());
    if total <= max_length {
        return Ok(());
    }
    let to_remove = total - max_length;
    match (strategy, b) {
        (TruncationStrategy::LongestFirst, Some(b)) => {
            let (mut n1, mut n2) = (a.len(), b.len());
            let swap = n1 > n2;
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            n2 = if n1 > max_length {
                n1
            } else {
                n2.min(max_length - n1).max(n1)
            };
            if n1 + n2 > max_length {
                n1 = max_length / 2;
                n2 = n1 + max_length % 2;
            }
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            a.truncate(n1, stride, direction)?;
            b.truncate(n2, stride, direction)?;
        }
        (TruncationStrategy::LongestFirst, None) => a.truncate(max_length, stride, direction)?,
        (TruncationStrategy::OnlySecond, None) => {
            return Err(Error::Value("truncation 'only_second' needs a pair".into()))
        }
        (strategy, b) => {
            let target = match (strategy, b) {
                (TruncationStrategy::OnlySecond, Some(b)) => b,
                _ => a,
            };
            if target.len() <= to_remove {
                return Err(Error::Value(
                    "the sequence to truncate is too short for max_length".into(),
                ));
            }
            let keep = target.len() - to_remove;
            target.truncate(keep, stride, direction)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence(n: usize) -> Encoding {
        let mut e = Encoding::default();
        for i in 0..n {
            e.merge_with(Encoding::special(&[i as u32], 0));
        }
        e
    }

    #[test]
    fn single_len_is_what_apply_leaves_without_a_pair() {
        let strategies = [
            TruncationStrategy::LongestFirst,
            TruncationStrategy::OnlyFirst,
            TruncationStrategy::OnlySecond,
        ];
        for strategy in strategies {
            for max_length in 0..8 {
                for n_added in 0..3 {
                    for n in 0..10 {
                        let t = Truncation {
                            max_length,
                            strategy,
                            stride: 0,
                            direction: TruncationDirection::Right,
                        };
                        let mut a = sequence(n);
                        let applied = t.apply(&mut a, None, n_added).map(|()| a.len());
                        let counted = t.single_len(n, n_added);
                        match (applied, counted) {
                            (Ok(x), Ok(y)) => assert_eq!(x, y, "{t:?} n={n} added={n_added}"),
                            (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
                            (x, y) => panic!("{t:?} n={n} added={n_added}: {x:?} vs {y:?}"),
                        }
                    }
                }
            }
        }
    }
}
