//! The sides truncation cuts from and padding goes on.

use std::str::FromStr;

use crate::error::{Error, Result};

/// The side tokens are cut from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TruncationDirection {
    #[default]
    Right,
    Left,
}

impl TruncationDirection {
    pub fn name(self) -> &'static str {
        match self {
            TruncationDirection::Right => "right",
            TruncationDirection::Left => "left",
        }
    }
}

impl FromStr for TruncationDirection {
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

/// The side padding goes on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PadDirection {
    #[default]
    Right,
    Left,
}

impl PadDirection {
    pub fn name(self) -> &'static str {
        match self {
            PadDirection::Right => "right",
            PadDirection::Left => "left",
        }
    }
}

impl FromStr for PadDirection {
    type Err = Error;

    /// The Python names (`right`) and the tokenizer.json ones (`Right`).
    fn from_str(name: &str) -> Result<Self> {
        match name {
            "right" | "Right" => Ok(Self::Right),
            "left" | "Left" => Ok(Self::Left),
            _ => Err(Error::Value(format!(
                "padding direction must be 'right' or 'left', got {name:?}"
            ))),
        }
    }
}
