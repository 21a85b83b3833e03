//! Added tokens: HF's "added vocabulary", strings matched whole in a text
//! before the model sees it (`[CLS]` or `<mask>` typed in a text, tokens a
//! user adds before fine-tuning).
//!
//! | file            | handles                                                  |
//! |-----------------|----------------------------------------------------------|
//! | `vocabulary.rs` | the tokens, their ids (inside the vocab or after it) and lookups |
//! | `matching.rs`   | finding them in a text: leftmost-longest, then `single_word`, `lstrip`, `rstrip` |
//! | `occurrences.rs` | whether any may occur in a stretch of ASCII text (the encoder's ASCII pass) |
//!
//! Where they are matched (HF's order): tokens with `normalized = false` in
//! the raw text first; then, in each piece between those, normalized, the
//! tokens with `normalized = true` by their normalized form.

mod matching;
mod occurrences;
mod vocabulary;

pub use matching::Split;
pub use occurrences::AsciiOccurrences;
pub use vocabulary::AddedVocabulary;

/// BERT's special tokens, in their conventional order.
pub const BERT_SPECIAL_TOKENS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// A token matched whole in a text, with HF's flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedToken {
    pub content: String,
    /// Matched only where no word char (`\w`) touches it on either side.
    pub single_word: bool,
    /// Takes the whitespace on its left into its match.
    pub lstrip: bool,
    /// Takes the whitespace on its right into its match.
    pub rstrip: bool,
    /// Matched by its normalized form in normalized text (else in raw text).
    pub normalized: bool,
    /// Skipped by `decode(skip_special_tokens=True)`.
    pub special: bool,
}

impl AddedToken {
    /// A token with HF's defaults: special tokens are matched in raw text,
    /// others in normalized text.
    pub fn new(content: impl Into<String>, special: bool) -> Self {
        Self {
            content: content.into(),
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: !special,
            special,
        }
    }

    /// Whether a match may take whitespace beside it.
    fn strips(&self) -> bool {
        self.lstrip || self.rstrip
    }
}
