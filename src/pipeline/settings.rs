//! Changing a tokenizer's settings after it is built: a `SettingsUpdate`
//! names what changes (each field `None` keeps the current value), and
//! `Tokenizer::updated` validates the result as `Tokenizer::new` does.

use super::Tokenizer;
use crate::error::{Error, Result};
use crate::model::UnknownPolicy;
use crate::pre_tokenizers::PreTokenizer;

#[derive(Clone, Debug, Default)]
pub struct SettingsUpdate {
    pub unk_token: Option<String>,
    pub continuing_subword_prefix: Option<String>,
    pub max_input_chars_per_word: Option<usize>,
    pub unknown: Option<UnknownPolicy>,
    pub lowercase: Option<bool>,
    /// `Some(None)`: accents follow `lowercase`.
    pub strip_accents: Option<Option<bool>>,
    pub clean_text: Option<bool>,
    pub handle_chinese_chars: Option<bool>,
    pub pre_tokenizer: Option<PreTokenizer>,
}

impl SettingsUpdate {
    fn touches_normalizer(&self) -> bool {
        self.lowercase.is_some()
            || self.strip_accents.is_some()
            || self.clean_text.is_some()
            || self.handle_chinese_chars.is_some()
    }
}

impl Tokenizer {
    /// A copy with the settings `update` names changed. A normalizer setting
    /// on a tokenizer without normalizer starts from BERT's defaults.
    pub fn updated(&self, update: &SettingsUpdate) -> Result<Self> {
        if self.splitter().chain().is_some()
            && (update.touches_normalizer() || update.pre_tokenizer.is_some())
        {
            return Err(Error::Unsupported(
                "normalizer and pre-tokenizer options on a tokenizer whose tokenizer.json \
                 has other normalizers or pre-tokenizers than BERT's (edit the file instead)"
                    .into(),
            ));
        }
        let u = update.clone();
        let mut model = self.model().config.clone();
        model.unk_token = u.unk_token.unwrap_or(model.unk_token);
        model.continuing_subword_prefix = u
            .continuing_subword_prefix
            .unwrap_or(model.continuing_subword_prefix);
        model.max_input_chars_per_word = u
            .max_input_chars_per_word
            .unwrap_or(model.max_input_chars_per_word);
        model.unknown = u.unknown.unwrap_or(model.unknown);
        let normalizer = match (self.normalizer(), update.touches_normalizer()) {
            (None, false) => None,
            (n, _) => {
                let mut n = n.cloned().unwrap_or_default();
                n.lowercase = u.lowercase.unwrap_or(n.lowercase);
                n.strip_accents = u.strip_accents.unwrap_or(n.strip_accents);
                n.clean_text = u.clean_text.unwrap_or(n.clean_text);
                n.handle_chinese_chars = u.handle_chinese_chars.unwrap_or(n.handle_chinese_chars);
                Some(n)
            }
        };
        let pre_tokenizer = u.pre_tokenizer.unwrap_or(self.pre_tokenizer());
        self.with_settings(model, normalizer, pre_tokenizer)
    }

    /// The special tokens' strings, in order.
    pub fn special_tokens(&self) -> Vec<&str> {
        self.added_tokens()
            .iter()
            .filter(|(_, t)| t.special)
            .map(|(_, t)| t.content.as_str())
            .collect()
    }
}
