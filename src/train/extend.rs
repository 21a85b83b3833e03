//! Training on from an existing vocabulary (domain adaptation): every word
//! starts as the units that vocabulary gives it by longest match first, as
//! the encoder would split it, and merges then add tokens after it. Where no
//! token matches, the word takes that one character (a new alphabet entry),
//! and the match goes on after it, so a word the old vocabulary could not
//! encode at all still trains. Every character of the words also joins the
//! alphabet alone, as it stands (first, or a continuation), where the old
//! vocabulary lacks it (`trainer.rs`): otherwise a new token could make
//! longest match stop inside an old one and find nothing after it, and a
//! word the old vocabulary encoded would become unknown.

use super::longest_match::LongestMatch;
use crate::error::{Error, Result};

/// The tokens of the vocabulary being extended, by id, and how longest
/// match reads them.
#[derive(Debug)]
pub struct InitialVocab {
    tokens: Vec<String>,
    matcher: LongestMatch,
}

impl InitialVocab {
    /// `tokens` in id order (each once); `prefix` marks continuations.
    pub fn new(tokens: Vec<String>, prefix: &str) -> Result<Self> {
        let mut seen = rustc_hash::FxHashSet::default();
        if let Some(t) = tokens.iter().find(|t| !seen.insert(t.as_str())) {
            return Err(Error::Value(format!(
                "the vocabulary to extend holds {t:?} twice"
            )));
        }
        let matcher = LongestMatch::new(&tokens, prefix)?;
        Ok(Self { tokens, matcher })
    }

    /// The tokens, by id.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// Appends the units of `word` to `out`: at each position the longest
    /// token (a continuation after the first), else the character there
    /// (`prefix`ed after the first), or `None` for a character `kept` refuses
    /// (a barrier no pair crosses, as in fresh training).
    pub fn segment(
        &self,
        word: &str,
        prefix: &str,
        kept: impl Fn(char) -> bool,
        out: &mut Vec<Option<String>>,
    ) {
        let mut at = 0;
        while at < word.len() {
            if let Some((id, len)) = self.matcher.longest(word.as_bytes(), at) {
                out.push(Some(self.tokens[id as usize].clone()));
                at += len;
                continue;
            }
            let ch = word[at..].chars().next().expect("at < word.len()");
            out.push(kept(ch).then(|| match at {
                0 => ch.to_string(),
                _ => format!("{prefix}{ch}"),
            }));
            at += ch.len_utf8();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(vocab: &[&str], word: &str) -> Vec<Option<String>> {
        let v = InitialVocab::new(vocab.iter().map(|t| t.to_string()).collect(), "##").unwrap();
        let mut out = Vec::new();
        v.segment(word, "##", |ch| ch != '!', &mut out);
        out
    }

    fn some(units: &[&str]) -> Vec<Option<String>> {
        units.iter().map(|u| Some(u.to_string())).collect()
    }

    #[test]
    fn words_start_as_longest_match_splits_them() {
        let vocab = ["un", "una", "##able", "##b", "##le", "a", "##ab"];
        assert_eq!(units(&vocab, "unable"), some(&["una", "##b", "##le"]));
        // No token at a position: that character, and matching goes on.
        assert_eq!(units(&vocab, "unxable"), some(&["un", "##x", "##able"]));
        assert_eq!(units(&vocab, "zab"), some(&["z", "##ab"]));
        // A character the alphabet leaves out is a barrier.
        assert_eq!(units(&vocab, "a!"), vec![Some("a".into()), None]);
        // A word may start with a continuation token's whole string.
        assert_eq!(units(&vocab, "##ab"), some(&["##ab"]));
    }

    #[test]
    fn a_repeated_token_is_refused() {
        let err = InitialVocab::new(vec!["a".into(), "a".into()], "##").unwrap_err();
        assert!(err.to_string().contains("twice"));
    }
}
