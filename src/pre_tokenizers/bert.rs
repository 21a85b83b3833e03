//! HF's `BertPreTokenizer` and `WhitespaceSplit` as one setting: the two
//! pre-tokenizers the fast paths serve (a word's first char is reported, so
//! offsets need no counting).

use std::str::FromStr;

use crate::error::{Error, Result};
use crate::unicode::is_bert_punctuation;

/// How normalized text is split into words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PreTokenizer {
    /// HF `BertPreTokenizer`: split on whitespace, isolate every punctuation char.
    #[default]
    Bert,
    /// Split on whitespace only.
    Whitespace,
}

impl FromStr for PreTokenizer {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        match name {
            "bert" => Ok(PreTokenizer::Bert),
            "whitespace" => Ok(PreTokenizer::Whitespace),
            _ => Err(Error::Value(format!(
                "pre_tokenizer must be 'bert' or 'whitespace', got {name:?}"
            ))),
        }
    }
}

/// A word: its byte range in the normalized text and the index of its first char.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordSpan {
    pub start: usize,
    pub end: usize,
    pub first_char: u32,
}

impl PreTokenizer {
    pub fn name(self) -> &'static str {
        match self {
            PreTokenizer::Bert => "bert",
            PreTokenizer::Whitespace => "whitespace",
        }
    }

    /// Calls `emit` for each word of `text`, in order.
    pub fn split(self, text: &str, mut emit: impl FnMut(WordSpan)) {
        let isolate_punct = self == PreTokenizer::Bert;
        let mut word_start: Option<(usize, u32)> = None;
        for (char_index, (byte, c)) in text.char_indices().enumerate() {
            let char_index = char_index as u32;
            if c.is_whitespace() {
                if let Some((s, fc)) = word_start.take() {
                    emit(WordSpan {
                        start: s,
                        end: byte,
                        first_char: fc,
                    });
                }
            } else if isolate_punct && is_bert_punctuation(c) {
                if let Some((s, fc)) = word_start.take() {
                    emit(WordSpan {
                        start: s,
                        end: byte,
                        first_char: fc,
                    });
                }
                emit(WordSpan {
                    start: byte,
                    end: byte + c.len_utf8(),
                    first_char: char_index,
                });
            } else if word_start.is_none() {
                word_start = Some((byte, char_index));
            }
        }
        if let Some((s, fc)) = word_start {
            emit(WordSpan {
                start: s,
                end: text.len(),
                first_char: fc,
            });
        }
    }

    /// The words of `text` as string slices.
    pub fn words(self, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        self.split(text, |w| out.push(&text[w.start..w.end]));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bert_isolates_punctuation() {
        assert_eq!(
            PreTokenizer::Bert.words("Hello, world!! a$b"),
            vec!["Hello", ",", "world", "!", "!", "a", "$", "b"]
        );
    }

    #[test]
    fn whitespace_keeps_punctuation() {
        assert_eq!(
            PreTokenizer::Whitespace.words(" a,b  c\u{3000}d "),
            vec!["a,b", "c", "d"]
        );
    }
}
