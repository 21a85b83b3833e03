//! The counting options as counts files and Python name them: BERT's
//! normalizer and pre-tokenizer settings (or, for counts split through a
//! tokenizer, its pipeline), to record, compare and describe how words were
//! made.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::normalizers::NormalizerConfig;
use crate::splitter::Splitter;

/// The counting options, as the file (and Python) name them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountingOptions {
    pub normalize: bool,
    pub lowercase: bool,
    pub strip_accents: Option<bool>,
    pub clean_text: bool,
    pub handle_chinese_chars: bool,
    pub pre_tokenizer: String,
    /// Counted through a tokenizer's pipeline: what makes its words, as
    /// `hf_json::pipeline_to_json` writes it (the options above are then
    /// its splitter's, for show).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<serde_json::Value>,
}

impl CountingOptions {
    /// `name=value, ...` as Python names them.
    pub fn describe(&self) -> String {
        if self.pipeline.is_some() {
            return "a tokenizer's pipeline (normalizers, pre-tokenizers, added tokens)".into();
        }
        self.named().join(", ")
    }

    /// Each BERT option as `name=value`, as Python names them.
    pub fn named(&self) -> [String; 6] {
        let py = |b: bool| if b { "True" } else { "False" };
        [
            format!("normalize={}", py(self.normalize)),
            format!("lowercase={}", py(self.lowercase)),
            format!("strip_accents={}", self.strip_accents.map_or("None", py)),
            format!("clean_text={}", py(self.clean_text)),
            format!("handle_chinese_chars={}", py(self.handle_chinese_chars)),
            format!("pre_tokenizer={:?}", self.pre_tokenizer),
        ]
    }
}

impl From<&Splitter> for CountingOptions {
    fn from(s: &Splitter) -> Self {
        let n = s.normalizer().cloned().unwrap_or_default();
        Self {
            normalize: s.normalizer().is_some(),
            lowercase: n.lowercase,
            strip_accents: n.strip_accents,
            clean_text: n.clean_text,
            handle_chinese_chars: n.handle_chinese_chars,
            pre_tokenizer: s.pre_tokenizer().name().to_owned(),
            pipeline: None,
        }
    }
}

impl TryFrom<&CountingOptions> for Splitter {
    type Error = Error;

    fn try_from(o: &CountingOptions) -> Result<Self> {
        let normalizer = o.normalize.then_some(NormalizerConfig {
            clean_text: o.clean_text,
            handle_chinese_chars: o.handle_chinese_chars,
            strip_accents: o.strip_accents,
            lowercase: o.lowercase,
        });
        Ok(Splitter::new(normalizer, o.pre_tokenizer.parse()?))
    }
}
