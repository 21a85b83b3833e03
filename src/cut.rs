//! Where a sequence of tokens is cut, with HF's `Encoding::truncate`
//! semantics: the tokens kept, and the overflowing parts after them, each as
//! long as the kept part and repeating `stride` tokens of the part before
//! it, taken from the right or the left. The flat engine (`encode`), the
//! rows of a batch and `Encoding`s all cut here; `pipeline::truncation`
//! decides how long each sequence may be.

use std::ops::Range;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A side of a sequence (HF's `TruncationDirection` and `PaddingDirection`
/// are both left or right).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    #[default]
    Right,
    Left,
}

/// The side tokens are cut from.
pub type TruncationDirection = Side;
/// The side padding goes on.
pub type PadDirection = Side;

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Right => "right",
            Side::Left => "left",
        }
    }
}

impl FromStr for Side {
    type Err = Error;

    /// The Python names (`right`) and the tokenizer.json ones (`Right`).
    fn from_str(name: &str) -> Result<Self> {
        match name {
            "right" | "Right" => Ok(Self::Right),
            "left" | "Left" => Ok(Self::Left),
            _ => Err(Error::Value(format!(
                "direction must be 'right' or 'left', got {name:?}"
            ))),
        }
    }
}

/// Cutting one sequence to `keep` tokens from `side` (the tokens cut from
/// the right are those past the first `keep`; from the left, those before
/// the last `keep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub keep: usize,
    /// Tokens each overflowing part repeats of the part before it.
    pub stride: usize,
    pub side: Side,
}

impl Cut {
    /// Keeps everything.
    pub const NONE: Cut = Cut {
        keep: usize::MAX,
        stride: 0,
        side: Side::Right,
    };

    /// Refuses a cut whose overflowing parts could not advance: HF panics
    /// when `stride >= keep`; we refuse.
    pub fn check(&self) -> Result<()> {
        if self.keep > 0 && self.stride >= self.keep {
            return Err(Error::Value(format!(
                "stride {} must be smaller than the {} tokens a sequence is cut \
                 to (max_length less the special tokens added)",
                self.stride, self.keep
            )));
        }
        Ok(())
    }

    /// The tokens kept of a sequence of `len`.
    pub fn kept(&self, len: usize) -> Range<usize> {
        if len <= self.keep {
            return 0..len;
        }
        match self.side {
            Side::Right => 0..self.keep,
            Side::Left => len - self.keep..len,
        }
    }

    /// The kept part of a sequence of `len` (first) and its overflowing
    /// parts, in HF's order. `len` must be above `keep`, `keep` above 0 and
    /// the cut checked.
    pub(crate) fn parts(&self, len: usize) -> Vec<Range<usize>> {
        let step = self.keep - self.stride;
        let mut parts = Vec::new();
        match self.side {
            Side::Right => {
                for start in (0..len).step_by(step) {
                    let stop = (start + self.keep).min(len);
                    parts.push(start..stop);
                    if stop == len {
                        break;
                    }
                }
            }
            Side::Left => {
                for last in (0..len).rev().step_by(step) {
                    let stop = last + 1;
                    let start = stop.saturating_sub(self.keep);
                    parts.push(start..stop);
                    if start == 0 {
                        break;
                    }
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_part_is_the_first_of_the_parts() {
        for side in [Side::Right, Side::Left] {
            for keep in 1..6 {
                for stride in 0..keep {
                    for len in keep + 1..14 {
                        let cut = Cut { keep, stride, side };
                        let parts = cut.parts(len);
                        assert_eq!(parts[0], cut.kept(len), "{cut:?} len={len}");
                        // Every token is in some part; consecutive parts
                        // overlap by the stride.
                        let mut seen = vec![false; len];
                        for p in &parts {
                            seen[p.clone()].iter_mut().for_each(|s| *s = true);
                        }
                        assert!(seen.iter().all(|&s| s), "{cut:?} len={len}");
                        for w in parts.windows(2) {
                            let overlap = match side {
                                Side::Right => w[0].end.saturating_sub(w[1].start),
                                Side::Left => w[1].end.saturating_sub(w[0].start),
                            };
                            assert_eq!(overlap, stride, "{cut:?} len={len}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_short_sequence_is_kept_whole() {
        let cut = Cut {
            keep: 4,
            stride: 0,
            side: Side::Left,
        };
        assert_eq!(cut.kept(3), 0..3);
        assert_eq!(Cut::NONE.kept(7), 0..7);
    }
}
