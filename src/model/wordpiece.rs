//! WordPiece encoding of single words: greedy longest-match-first.

use std::str::FromStr;

use super::trie::Trie;
use super::vocab::Vocab;
use crate::error::{Error, Result};

/// What a word that cannot be fully matched becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnknownPolicy {
    /// The whole word becomes one unk token (BERT, HF).
    #[default]
    Word,
    /// Only each unmatched character becomes an unk token; matching goes on after it.
    Char,
}

impl UnknownPolicy {
    pub fn name(self) -> &'static str {
        match self {
            UnknownPolicy::Word => "word",
            UnknownPolicy::Char => "char",
        }
    }
}

impl FromStr for UnknownPolicy {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        match name {
            "word" => Ok(UnknownPolicy::Word),
            "char" => Ok(UnknownPolicy::Char),
            _ => Err(Error::Value(format!(
                "unknown must be 'word' or 'char', got {name:?}"
            ))),
        }
    }
}

/// One piece of a word: token id and byte range inside the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub id: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug)]
pub struct WordPieceConfig {
    pub unk_token: String,
    pub continuing_subword_prefix: String,
    pub max_input_chars_per_word: usize,
    pub unknown: UnknownPolicy,
    /// Appended to every word before matching (e.g. `_` in the D2L style);
    /// empty for BERT.
    pub end_of_word_suffix: String,
}

impl Default for WordPieceConfig {
    fn default() -> Self {
        Self {
            unk_token: "[UNK]".into(),
            continuing_subword_prefix: "##".into(),
            max_input_chars_per_word: 100,
            unknown: UnknownPolicy::Word,
            end_of_word_suffix: String::new(),
        }
    }
}

/// The WordPiece model: two tries, one for word starts (every token) and one
/// for continuations (tokens with the prefix, stored without it), so no
/// `prefix + rest` string is ever built.
#[derive(Clone, Debug)]
pub struct WordPiece {
    pub config: WordPieceConfig,
    pub unk_id: u32,
    start: Trie,
    continuation: Trie,
}

/// The unknown id of a vocabulary without its unknown token: HF loads such
/// a tokenizer and fails only on a word that needs the token, so encoding
/// writes this id and the encoder turns it into that error. No vocabulary
/// reaches it (ids are below the vocabulary's size, at most u32::MAX).
pub const MISSING_UNK: u32 = u32::MAX;

impl WordPiece {
    /// `unk_id` must be the id of `config.unk_token` (checked by the caller),
    /// or [`MISSING_UNK`] when the vocabulary lacks it.
    pub fn new(vocab: &Vocab, config: WordPieceConfig, unk_id: u32) -> Result<Self> {
        let start = Trie::new(
            vocab
                .tokens()
                .iter()
                .zip(0u32..)
                .map(|(t, i)| (t.as_bytes(), i)),
        )?;
        let prefix = config.continuing_subword_prefix.as_bytes();
        let continuation = Trie::new(
            vocab
                .tokens()
                .iter()
                .zip(0u32..)
                .filter(|(t, _)| t.as_bytes().starts_with(prefix))
                .map(|(t, i)| (&t.as_bytes()[prefix.len()..], i)),
        )?;
        Ok(Self {
            config,
            unk_id,
            start,
            continuation,
        })
    }

    /// Whether the vocabulary holds the unknown token.
    pub fn has_unk(&self) -> bool {
        self.unk_id != MISSING_UNK
    }

    /// Appends the pieces of `word` (UTF-8 bytes of one word) to `out`.
    pub fn encode_word(&self, word: &[u8], out: &mut Vec<Piece>) {
        let len = word.len();
        let max = self.config.max_input_chars_per_word;
        // Bytes bound chars from above: count chars only when bytes exceed the limit.
        if len > max && word.iter().filter(|&&b| (b & 0xC0) != 0x80).count() > max {
            out.push(Piece {
                id: self.unk_id,
                start: 0,
                end: len as u32,
            });
            return;
        }
        let first = out.len();
        let mut pos = 0usize;
        while pos < len {
            let trie = if pos == 0 {
                &self.start
            } else {
                &self.continuation
            };
            match trie.longest_prefix(&word[pos..]) {
                Some((id, n)) => {
                    out.push(Piece {
                        id,
                        start: pos as u32,
                        end: (pos + n) as u32,
                    });
                    pos += n;
                }
                None => match self.config.unknown {
                    UnknownPolicy::Word => {
                        out.truncate(first);
                        out.push(Piece {
                            id: self.unk_id,
                            start: 0,
                            end: len as u32,
                        });
                        return;
                    }
                    UnknownPolicy::Char => {
                        let n = utf8_len(word[pos]);
                        out.push(Piece {
                            id: self.unk_id,
                            start: pos as u32,
                            end: (pos + n) as u32,
                        });
                        pos += n;
                    }
                },
            }
        }
    }
}

/// Length of the UTF-8 sequence that starts with `lead`.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(tokens: &[&str], unknown: UnknownPolicy) -> (Vocab, WordPiece) {
        let vocab = Vocab::new(tokens.iter().map(|s| s.to_string()).collect()).unwrap();
        let config = WordPieceConfig {
            unknown,
            ..Default::default()
        };
        let unk = vocab.id("[UNK]").unwrap();
        let wp = WordPiece::new(&vocab, config, unk).unwrap();
        (vocab, wp)
    }

    fn pieces(wp: &WordPiece, vocab: &Vocab, word: &str) -> Vec<String> {
        let mut out = Vec::new();
        wp.encode_word(word.as_bytes(), &mut out);
        out.iter()
            .map(|p| vocab.token(p.id).unwrap().to_string())
            .collect()
    }

    #[test]
    fn longest_match_first() {
        let (v, wp) = model(
            &["[UNK]", "un", "##aff", "##able", "##a"],
            UnknownPolicy::Word,
        );
        assert_eq!(pieces(&wp, &v, "unaffable"), vec!["un", "##aff", "##able"]);
        assert_eq!(pieces(&wp, &v, "unx"), vec!["[UNK]"]);
        // Greedy: once "una" is taken there is no backtracking, so the word is unknown.
        let (v, wp) = model(
            &["[UNK]", "un", "una", "##aff", "##able"],
            UnknownPolicy::Word,
        );
        assert_eq!(pieces(&wp, &v, "unaffable"), vec!["[UNK]"]);
    }

    #[test]
    fn per_char_unknowns() {
        let (v, wp) = model(&["[UNK]", "un", "##a"], UnknownPolicy::Char);
        assert_eq!(pieces(&wp, &v, "unxa"), vec!["un", "[UNK]", "##a"]);
    }

    #[test]
    fn too_long_words_are_unknown() {
        let (v, wp) = model(&["[UNK]", "a", "##a"], UnknownPolicy::Word);
        assert_eq!(pieces(&wp, &v, &"a".repeat(100)).len(), 100);
        assert_eq!(pieces(&wp, &v, &"a".repeat(101)), vec!["[UNK]"]);
    }
}
