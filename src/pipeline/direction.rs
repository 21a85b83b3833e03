//! The side truncation cuts from and padding goes on (HF names them
//! `TruncationDirection` and `PaddingDirection`; both are left or right).

use std::str::FromStr;

use crate::error::{Error, Result};

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
