//! Longest match first over a list of tokens, as the encoder matches a word,
//! for the trainer's own use (extending a vocabulary, fitting one): every
//! token may start a word, continuation tokens (without their prefix) go on
//! after its first piece.

use crate::error::Result;
use crate::model::trie::Trie;

#[derive(Debug)]
pub struct LongestMatch {
    starts: Trie,
    continuations: Trie,
}

impl LongestMatch {
    /// The tries of `tokens` (index = id); `prefix` marks continuations.
    pub fn new(tokens: &[String], prefix: &str) -> Result<Self> {
        let id = |k: usize| k as u32;
        let starts = Trie::new(
            tokens
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.is_empty())
                .map(|(k, t)| (t.as_bytes(), id(k))),
        )?;
        let continuations = Trie::new(tokens.iter().enumerate().filter_map(|(k, t)| {
            let rest = t.strip_prefix(prefix)?;
            (!rest.is_empty()).then_some((rest.as_bytes(), id(k)))
        }))?;
        Ok(Self {
            starts,
            continuations,
        })
    }

    fn trie(&self, at: usize) -> &Trie {
        if at == 0 {
            &self.starts
        } else {
            &self.continuations
        }
    }

    /// The longest token that matches `word` at byte `at`: `(id, bytes)`.
    /// Keys are whole UTF-8, so a match ends on a char boundary.
    pub fn longest(&self, word: &[u8], at: usize) -> Option<(u32, usize)> {
        self.trie(at).longest_prefix(&word[at..])
    }

    /// Calls `found(id, bytes)` for every token that matches `word` at
    /// byte `at`, shortest first.
    pub fn each(&self, word: &[u8], at: usize, found: impl FnMut(u32, usize)) {
        self.trie(at).each_prefix(&word[at..], found);
    }
}
