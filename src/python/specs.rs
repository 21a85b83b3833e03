//! The values Python passes for settings and added tokens, and how they
//! become the core's (a BERT-like tokenizer's options, truncation, padding,
//! an added token's flags).

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use crate::cut::Side;
use crate::error::Error;
use crate::model::{Vocab, WordPieceConfig};
use crate::normalizers::NormalizerConfig;
use crate::pipeline::call_settings::missing_pad_token;
use crate::pipeline::{
    AddedToken, CallSettings, PadLength, PadRequest, Padding, PerCall, Tokenizer, Truncation,
};

/// Truncation as Python passes and gets it:
/// `{"max_length", "stride", "strategy", "direction"}`.
#[derive(FromPyObject, IntoPyObject)]
pub(crate) struct TruncationSpec {
    #[pyo3(item)]
    pub(crate) max_length: usize,
    #[pyo3(item)]
    pub(crate) stride: usize,
    #[pyo3(item)]
    pub(crate) strategy: String,
    #[pyo3(item)]
    pub(crate) direction: String,
}

/// Padding as Python passes and gets it: a dict of these keys. `length`
/// None pads to the longest; `pad_id` None is the id of `pad_token`.
#[derive(FromPyObject, IntoPyObject)]
pub(crate) struct PaddingSpec {
    #[pyo3(item)]
    pub(crate) length: Option<usize>,
    #[pyo3(item)]
    pub(crate) pad_to_multiple_of: Option<usize>,
    #[pyo3(item)]
    pub(crate) pad_id: Option<u32>,
    #[pyo3(item)]
    pub(crate) pad_token: String,
    #[pyo3(item)]
    pub(crate) pad_type_id: u32,
    #[pyo3(item)]
    pub(crate) direction: String,
}

/// An added token as Python passes and gets it:
/// `(content, single_word, lstrip, rstrip, normalized, special)`.
pub(crate) type AddedTokenSpec = (String, bool, bool, bool, bool, bool);

pub(crate) trait AddedTokenTuple {
    fn token(self) -> AddedToken;
    fn of(t: &AddedToken) -> Self;
}

impl AddedTokenTuple for AddedTokenSpec {
    fn token(self) -> AddedToken {
        let (content, single_word, lstrip, rstrip, normalized, special) = self;
        AddedToken {
            content,
            single_word,
            lstrip,
            rstrip,
            normalized,
            special,
        }
    }

    fn of(t: &AddedToken) -> Self {
        let t = t.clone();
        (
            t.content,
            t.single_word,
            t.lstrip,
            t.rstrip,
            t.normalized,
            t.special,
        )
    }
}

pub(crate) type TruncationArg = Option<TruncationSpec>;
pub(crate) type PaddingArg = Option<PaddingSpec>;

pub(crate) fn truncation_setting(arg: TruncationArg) -> PyResult<Option<Truncation>> {
    arg.map(|t| {
        Ok(Truncation {
            max_length: t.max_length,
            strategy: t.strategy.parse()?,
            stride: t.stride,
            direction: t.direction.parse()?,
        })
    })
    .transpose()
}

pub(crate) fn padding_setting(tok: &Tokenizer, arg: PaddingArg) -> PyResult<Option<Padding>> {
    arg.map(|p| {
        let pad_id = match p.pad_id {
            Some(id) => id,
            None => tok
                .token_to_id(&p.pad_token)
                .ok_or_else(|| missing_pad_token(&p.pad_token))?,
        };
        Ok(Padding {
            length: p.length.map_or(PadLength::Longest, PadLength::Fixed),
            direction: p.direction.parse()?,
            pad_to_multiple_of: p.pad_to_multiple_of,
            pad_id,
            pad_type_id: p.pad_type_id,
            pad_token: p.pad_token,
        })
    })
    .transpose()
}

/// What a transformers tokenizer applies per call (`padding_side`,
/// `truncation_side`, `model_max_length`, its pad token's id), as the
/// Python layer keeps it.
#[derive(FromPyObject, Default)]
pub(crate) struct PerCallArg {
    #[pyo3(item)]
    padding_side: Option<String>,
    #[pyo3(item)]
    truncation_side: Option<String>,
    #[pyo3(item)]
    model_max_length: Option<usize>,
    #[pyo3(item)]
    pad_id: Option<u32>,
}

impl PerCallArg {
    fn settings(&self) -> PyResult<PerCall> {
        let side = |s: &Option<String>| s.as_deref().map(str::parse::<Side>).transpose();
        Ok(PerCall {
            padding_side: side(&self.padding_side)?,
            truncation_side: side(&self.truncation_side)?,
            model_max_length: self.model_max_length,
            pad_id: self.pad_id,
        })
    }
}

/// A batch call's `padding=` (`True`, `False`, `"longest"`, `"max_length"`),
/// `truncation=` (`True`, `False` or None) and `max_length=`, and what the
/// tokenizer's transformers form applies per call.
pub(crate) fn call_settings(
    padding: &Bound<'_, PyAny>,
    truncation: &Bound<'_, PyAny>,
    max_length: Option<usize>,
    pad_to_multiple_of: Option<usize>,
    carried: Option<PerCallArg>,
) -> PyResult<CallSettings> {
    let request = if let Ok(b) = padding.downcast::<PyBool>() {
        if b.is_true() {
            Some(PadRequest::Longest)
        } else {
            Some(PadRequest::AsSet)
        }
    } else if let Ok(s) = padding.downcast::<PyString>() {
        match s.to_cow()?.as_ref() {
            "longest" => Some(PadRequest::Longest),
            "max_length" => Some(PadRequest::MaxLength),
            _ => None,
        }
    } else {
        None
    };
    let padding = request.ok_or_else(|| {
        PyValueError::new_err(format!(
            "padding must be True, False, 'longest' or 'max_length', got {}",
            padding
                .repr()
                .map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })?;
    // Only True and False change the truncation (as `is True` tests).
    let truncation = truncation.downcast::<PyBool>().ok().map(|b| b.is_true());
    Ok(CallSettings {
        padding,
        truncation,
        max_length,
        pad_to_multiple_of,
        transformers: carried.unwrap_or_default().settings()?,
    })
}

/// The truncation and padding of a batch call that returns `Encoding`
/// objects (the tokenizer's, changed by the call's own settings), and the
/// pad token those encodings show.
pub(crate) type ObjectsCall = (Option<Truncation>, Option<Padding>, Option<Arc<str>>);

pub(crate) fn objects_call(tok: &Tokenizer, call: &CallSettings) -> PyResult<ObjectsCall> {
    let trunc = tok.call_truncation(call)?;
    let pad = tok.call_padding(call, false)?;
    let pad_token = pad.as_ref().map(|p| Arc::from(p.pad_token.as_str()));
    Ok((trunc, pad, pad_token))
}

/// The settings of a BERT-like tokenizer, as `Tokenizer(...)` takes them
/// (and training passes them, as a dict).
#[derive(FromPyObject)]
pub(crate) struct BertOptions {
    #[pyo3(item)]
    pub(crate) unk_token: String,
    #[pyo3(item)]
    pub(crate) continuing_subword_prefix: String,
    #[pyo3(item)]
    pub(crate) max_input_chars_per_word: usize,
    #[pyo3(item)]
    pub(crate) unknown: String,
    #[pyo3(item)]
    pub(crate) normalize: bool,
    #[pyo3(item)]
    pub(crate) lowercase: bool,
    #[pyo3(item)]
    pub(crate) strip_accents: Option<bool>,
    #[pyo3(item)]
    pub(crate) clean_text: bool,
    #[pyo3(item)]
    pub(crate) handle_chinese_chars: bool,
    #[pyo3(item)]
    pub(crate) pre_tokenizer: String,
    #[pyo3(item)]
    pub(crate) special_tokens: Vec<String>,
    #[pyo3(item)]
    pub(crate) end_of_word_suffix: String,
}

impl BertOptions {
    /// The tokenizer of these settings over `vocab` (index = id).
    pub(crate) fn build(&self, vocab: Vec<String>) -> Result<Tokenizer, Error> {
        let model = WordPieceConfig {
            unk_token: self.unk_token.clone(),
            continuing_subword_prefix: self.continuing_subword_prefix.clone(),
            max_input_chars_per_word: self.max_input_chars_per_word,
            unknown: self.unknown.parse()?,
            end_of_word_suffix: self.end_of_word_suffix.clone(),
        };
        let normalizer = self.normalize.then_some(NormalizerConfig {
            clean_text: self.clean_text,
            handle_chinese_chars: self.handle_chinese_chars,
            strip_accents: self.strip_accents,
            lowercase: self.lowercase,
        });
        let pre = self.pre_tokenizer.parse()?;
        let specials: Vec<&str> = self.special_tokens.iter().map(String::as_str).collect();
        Tokenizer::bert_like(Vocab::new(vocab)?, model, normalizer, pre, &specials)
    }
}
