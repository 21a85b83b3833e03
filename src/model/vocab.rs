//! The vocabulary: token strings and their ids.

use rustc_hash::FxHashMap;

use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::error::{Error, Result};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocab {
    tokens: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Vocab {
    /// Builds a vocab where the position of each token is its id.
    pub fn new(tokens: Vec<String>) -> Result<Self> {
        let mut ids = FxHashMap::default();
        ids.reserve(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            if i % CHECKPOINT_STEPS == 0 {
                cancel::checkpoint()?;
            }
            if let Some(prev) = ids.insert(t.clone(), i as u32) {
                return Err(Error::Value(format!(
                    "duplicate token {t:?} in vocabulary (ids {prev} and {i})"
                )));
            }
        }
        Ok(Self { tokens, ids })
    }

    /// Builds a vocab from (token, id) pairs whose ids must be 0..n without gaps.
    /// Ids are checked against the number of pairs before anything is sized
    /// by them: one huge id must not allocate a huge table.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, u64)>) -> Result<Self> {
        let pairs: Vec<(String, u64)> = pairs.into_iter().collect();
        let n = pairs.len();
        let mut slots: Vec<Option<String>> = vec![None; n];
        for (k, (token, id)) in pairs.into_iter().enumerate() {
            if k % CHECKPOINT_STEPS == 0 {
                cancel::checkpoint()?;
            }
            let slot = usize::try_from(id)
                .ok()
                .and_then(|i| slots.get_mut(i))
                .ok_or_else(|| {
                    Error::Value(format!(
                        "vocabulary ids must be 0 to n-1 without gaps (n = {n}), but {token:?} has id {id}"
                    ))
                })?;
            if let Some(prev) = slot {
                return Err(Error::Value(format!(
                    "id {id} is given to both {prev:?} and {token:?}"
                )));
            }
            *slot = Some(token);
        }
        // n pairs, n slots, no slot taken twice: every slot is full.
        Self::new(slots.into_iter().flatten().collect())
    }

    /// Parses `vocab.txt` exactly as HF's `WordPiece.read_file`: lines end at
    /// `\n` only (a `\r` before it goes too), each token is its line without
    /// trailing whitespace, and the line number is the id. Other line breaks
    /// (U+2028, `\x85`, `\x0c`, ...) inside a line are part of the token; a
    /// byte-order mark is kept, as HF keeps it.
    pub fn from_vocab_txt(text: &str) -> Result<Self> {
        Self::new(vocab_txt_tokens(text)?)
    }

    /// `vocab.txt` text: one token per line.
    /// The vocab.txt text: a token per line. Refused when a token would not
    /// read back as itself ([`vocab_txt_tokens`] splits at "\n" and drops
    /// trailing whitespace, as HF reads the file): every later id would shift
    /// or a token change.
    pub fn to_vocab_txt(&self) -> Result<String> {
        if let Some(t) = self.tokens.iter().find(|t| !fits_a_line(t)) {
            return Err(Error::Value(format!(
                "vocab.txt cannot hold the token {t:?}: its line break or trailing \
                 whitespace would be lost when the file is read (save into a folder, which \
                 leaves vocab.txt out, or as tokenizer.json)"
            )));
        }
        let mut out = String::with_capacity(self.tokens.iter().map(|t| t.len() + 1).sum());
        for t in &self.tokens {
            out.push_str(t);
            out.push('\n');
        }
        Ok(out)
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    pub fn id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }
}

/// Whether `token` written as a vocab.txt line reads back as itself.
fn fits_a_line(token: &str) -> bool {
    !token.contains('\n') && token.trim_end().len() == token.len()
}

/// The tokens of a `vocab.txt`, in id order (see [`Vocab::from_vocab_txt`]).
pub fn vocab_txt_tokens(text: &str) -> Result<Vec<String>> {
    // `str::lines` splits as Rust's `BufRead::lines`, which HF reads with.
    let tokens: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
    if tokens.is_empty() {
        return Err(Error::Value("vocabulary file is empty".into()));
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_as_ids() {
        let v = Vocab::from_vocab_txt("[PAD]\n[UNK]\nhello\r\n##lo\n").unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v.id("hello"), Some(2));
        assert_eq!(v.token(3), Some("##lo"));
    }

    #[test]
    fn writes_only_tokens_that_read_back() {
        for bad in ["[PAD]\n[CLS]", "a ", "b\r", "c\u{3000}", "\n"] {
            let v = Vocab::new(vec!["[UNK]".into(), bad.into(), "z".into()]).unwrap();
            let e = v.to_vocab_txt().unwrap_err();
            assert!(e.to_string().contains("cannot hold the token"), "{e}");
        }
        let good: Vec<String> = ["[UNK]", "", " a", "a\rb", "##\t#", "日本"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let v = Vocab::new(good.clone()).unwrap();
        assert_eq!(vocab_txt_tokens(&v.to_vocab_txt().unwrap()).unwrap(), good);
    }

    #[test]
    fn rejects_duplicates() {
        let e = Vocab::from_vocab_txt("a\nb\na\n").unwrap_err();
        assert!(e.to_string().contains("duplicate token \"a\""), "{e}");
    }
}
