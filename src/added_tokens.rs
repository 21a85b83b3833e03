//! Added tokens: strings matched verbatim in raw text before normalization
//! (HF's "added vocabulary"), such as `[CLS]` or `[MASK]` typed in a text.

use aho_corasick::{AhoCorasick, MatchKind};
use rustc_hash::FxHashSet;

use crate::error::{Error, Result};
use crate::model::Vocab;

/// BERT's special tokens, in their conventional order.
pub const BERT_SPECIAL_TOKENS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// A token matched verbatim in raw text before normalization (HF "added token").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedToken {
    pub content: String,
    pub id: u32,
    pub special: bool,
}

/// The added tokens of a tokenizer and what finds them in a text.
#[derive(Clone, Debug)]
pub struct AddedTokens {
    tokens: Vec<AddedToken>,
    /// Leftmost-longest matcher over the tokens' contents (none without tokens).
    matcher: Option<AhoCorasick>,
    /// First bytes of the tokens: a text without any of them needs no search.
    first_bytes: [bool; 256],
    special_ids: FxHashSet<u32>,
}

/// A piece of text between added tokens, or an added token, with the char
/// offset in the input where it starts.
pub enum Segment<'t> {
    Text(&'t str, u32),
    Token(&'t AddedToken, u32, u32),
}

impl AddedTokens {
    /// Checks that every token is the vocabulary's token with that id.
    pub fn new(tokens: Vec<AddedToken>, vocab: &Vocab) -> Result<Self> {
        for t in &tokens {
            if vocab.token(t.id) != Some(t.content.as_str()) {
                return Err(Error::Unsupported(format!(
                    "added token {:?} (id {}) is not the vocabulary's token with that id; \
                     only added tokens that are part of the vocabulary are supported",
                    t.content, t.id
                )));
            }
            if t.content.is_empty() {
                return Err(Error::Value("an added token cannot be empty".into()));
            }
        }
        let matcher = if tokens.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(tokens.iter().map(|t| t.content.as_str()))
                    .map_err(|e| Error::Value(format!("cannot index added tokens: {e}")))?,
            )
        };
        let mut first_bytes = [false; 256];
        for t in &tokens {
            first_bytes[t.content.as_bytes()[0] as usize] = true;
        }
        let special_ids = tokens.iter().filter(|t| t.special).map(|t| t.id).collect();
        Ok(Self {
            tokens,
            matcher,
            first_bytes,
            special_ids,
        })
    }

    pub fn tokens(&self) -> &[AddedToken] {
        &self.tokens
    }

    pub fn is_special_id(&self, id: u32) -> bool {
        self.special_ids.contains(&id)
    }

    /// Whether an added token may start with byte `b`.
    pub fn may_start_with(&self, b: u8) -> bool {
        self.first_bytes[b as usize]
    }

    /// Whether some added token contains byte `b`.
    pub fn contain_byte(&self, b: u8) -> bool {
        self.tokens
            .iter()
            .any(|t| t.content.as_bytes().contains(&b))
    }

    /// Calls `each` with the segments of `text` (which starts at char
    /// `first_char` of the input) in order: text between tokens, and tokens.
    pub fn split<'t>(&'t self, text: &'t str, first_char: u32, mut each: impl FnMut(Segment<'t>)) {
        let matcher = match &self.matcher {
            Some(m) if text.bytes().any(|b| self.may_start_with(b)) => m,
            _ => return each(Segment::Text(text, first_char)),
        };
        let (mut last, mut last_char) = (0usize, first_char);
        for m in matcher.find_iter(text) {
            if m.start() > last {
                each(Segment::Text(&text[last..m.start()], last_char));
            }
            let start_char = last_char + text[last..m.start()].chars().count() as u32;
            let end_char = start_char + text[m.start()..m.end()].chars().count() as u32;
            each(Segment::Token(
                &self.tokens[m.pattern().as_usize()],
                start_char,
                end_char,
            ));
            (last, last_char) = (m.end(), end_char);
        }
        if last < text.len() {
            each(Segment::Text(&text[last..], last_char));
        }
    }
}
