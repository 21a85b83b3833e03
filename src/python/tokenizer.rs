//! `Tokenizer`: thin wrappers over `pipeline::Tokenizer`, each releasing the
//! GIL for the work.
//!
//! Why this file is long: it is one Python class, a wrapper per method of
//! `wpiece.Tokenizer` (encode in its five shapes, settings, vocab, decode).

use std::sync::Arc;

use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::arrow::ArrowChunk;
use super::encoding::{PyEncoding, Source, TokenStrings};
use super::errors::{guard, interruptible};
use super::text::{text_bytes, TextList};
use crate::cancel::Cancel;
use crate::error::Error;
use crate::hf_json;
use crate::io;
use crate::model::{Vocab, WordPieceConfig};
use crate::normalizers::NormalizerConfig;
use crate::parallel;
use crate::pipeline::{
    columns, pad_batch, Encoding, PadLength, Padding, SettingsUpdate, Tokenizer, Truncation,
    BERT_SPECIAL_TOKENS,
};

/// Truncation as Python passes and gets it:
/// `{"max_length", "stride", "strategy", "direction"}`.
#[derive(FromPyObject, IntoPyObject)]
pub(crate) struct TruncationSpec {
    #[pyo3(item)]
    max_length: usize,
    #[pyo3(item)]
    stride: usize,
    #[pyo3(item)]
    strategy: String,
    #[pyo3(item)]
    direction: String,
}

/// Padding as Python passes and gets it: a dict of these keys. `length`
/// None pads to the longest; `pad_id` None is the id of `pad_token`.
#[derive(FromPyObject, IntoPyObject)]
pub(crate) struct PaddingSpec {
    #[pyo3(item)]
    length: Option<usize>,
    #[pyo3(item)]
    pad_to_multiple_of: Option<usize>,
    #[pyo3(item)]
    pad_id: Option<u32>,
    #[pyo3(item)]
    pad_token: String,
    #[pyo3(item)]
    pad_type_id: u32,
    #[pyo3(item)]
    direction: String,
}

type TruncationArg = Option<TruncationSpec>;
type PaddingArg = Option<PaddingSpec>;

fn truncation_setting(arg: TruncationArg) -> PyResult<Option<Truncation>> {
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

fn padding_setting(tok: &Tokenizer, arg: PaddingArg) -> PyResult<Option<Padding>> {
    arg.map(|p| {
        let pad_id = match p.pad_id {
            Some(id) => id,
            None => tok.token_to_id(&p.pad_token).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "pad token {:?} is not in the vocabulary",
                    p.pad_token
                ))
            })?,
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

#[pyclass(module = "wpiece._core", name = "Tokenizer")]
#[derive(Clone)]
pub struct PyTokenizer {
    pub(crate) inner: Arc<Tokenizer>,
}

impl PyTokenizer {
    /// Encodes a batch in parallel with the GIL released.
    #[allow(clippy::too_many_arguments)]
    fn run_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: Option<Padding>,
        num_threads: Option<usize>,
    ) -> PyResult<Vec<Encoding>> {
        let text_items = TextList::extract(texts)?;
        let pair_items = pairs.map(TextList::extract).transpose()?;
        let texts = text_items.strs()?;
        let pairs = pair_items.as_ref().map(TextList::strs).transpose()?;
        let trunc = truncation_setting(truncation)?;
        let bytes = text_bytes(&texts) + pairs.as_deref().map_or(0, text_bytes);
        interruptible(py, bytes, |cancel| {
            parallel::install(num_threads, || {
                self.inner.encode_batch_with(
                    &texts,
                    pairs.as_deref(),
                    add_special_tokens,
                    trunc.as_ref(),
                    padding.as_ref(),
                    cancel,
                )
            })?
        })
    }

    /// Runs `op` on the single texts of a Python list, on the call's thread
    /// pool, with the GIL released and Ctrl-C watched.
    fn over_texts<T: Send>(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        op: impl Fn(&Tokenizer, &[&str], Option<&Truncation>, &Cancel) -> Result<T, Error> + Sync,
    ) -> PyResult<T> {
        let items = TextList::extract(texts)?;
        let texts = items.strs()?;
        let trunc = truncation_setting(truncation)?;
        interruptible(py, text_bytes(&texts), |cancel| {
            parallel::install(num_threads, || {
                op(&self.inner, &texts, trunc.as_ref(), cancel)
            })?
        })
    }

    fn wrap(&self, enc: Encoding, pad_token: Option<&Arc<str>>) -> PyEncoding {
        PyEncoding {
            enc: Source::Owned(enc),
            tokens: TokenStrings::Lazy {
                tok: Arc::clone(&self.inner),
                pad_token: pad_token.cloned(),
            },
        }
    }
}

#[pymethods]
impl PyTokenizer {
    /// Builds a BERT-like tokenizer from a list of tokens (index = id).
    #[new]
    #[pyo3(signature = (vocab, *, unk_token=Cow::Borrowed("[UNK]"), continuing_subword_prefix=Cow::Borrowed("##"),
        max_input_chars_per_word=100, unknown=Cow::Borrowed("word"), normalize=true, lowercase=true,
        strip_accents=None, clean_text=true, handle_chinese_chars=true, pre_tokenizer=Cow::Borrowed("bert"),
        special_tokens=None, end_of_word_suffix=Cow::Borrowed("")))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        vocab: Vec<String>,
        unk_token: Cow<'_, str>,
        continuing_subword_prefix: Cow<'_, str>,
        max_input_chars_per_word: usize,
        unknown: Cow<'_, str>,
        normalize: bool,
        lowercase: bool,
        strip_accents: Option<bool>,
        clean_text: bool,
        handle_chinese_chars: bool,
        pre_tokenizer: Cow<'_, str>,
        special_tokens: Option<Vec<String>>,
        end_of_word_suffix: Cow<'_, str>,
    ) -> PyResult<Self> {
        let model = WordPieceConfig {
            unk_token: unk_token.into_owned(),
            continuing_subword_prefix: continuing_subword_prefix.into_owned(),
            max_input_chars_per_word,
            unknown: unknown.parse()?,
            end_of_word_suffix: end_of_word_suffix.into_owned(),
        };
        let normalizer = normalize.then_some(NormalizerConfig {
            clean_text,
            handle_chinese_chars,
            strip_accents,
            lowercase,
        });
        let pre = pre_tokenizer.parse()?;
        let specials: Vec<String> = special_tokens
            .unwrap_or_else(|| BERT_SPECIAL_TOKENS.iter().map(|s| s.to_string()).collect());
        let specials: Vec<&str> = specials.iter().map(String::as_str).collect();
        let tok =
            guard(|| Tokenizer::bert_like(Vocab::new(vocab)?, model, normalizer, pre, &specials))?;
        Ok(Self {
            inner: Arc::new(tok),
        })
    }

    /// Parses the text of an HF `tokenizer.json`.
    #[staticmethod]
    fn from_json(json: Cow<'_, str>) -> PyResult<Self> {
        Ok(Self {
            inner: Arc::new(guard(|| hf_json::tokenizer_from_json(&json))?),
        })
    }

    /// The same pipeline over another vocab (a list of tokens, index = id).
    fn with_vocab(&self, vocab: Vec<String>) -> PyResult<Self> {
        let vocab = Vocab::new(vocab)?;
        Ok(Self {
            inner: Arc::new(self.inner.with_vocab(vocab)?),
        })
    }

    /// The special tokens (added tokens marked special), in id order.
    fn special_tokens_in_order(&self) -> Vec<String> {
        let mut added: Vec<_> = self
            .inner
            .added_tokens()
            .iter()
            .filter(|t| t.special)
            .collect();
        added.sort_by_key(|t| t.id);
        added.into_iter().map(|t| t.content.clone()).collect()
    }

    /// `tokenizer.json` text, with the given truncation and padding settings.
    #[pyo3(signature = (truncation=None, padding=None))]
    fn to_json(&self, truncation: TruncationArg, padding: PaddingArg) -> PyResult<String> {
        let mut tok = (*self.inner).clone();
        tok.truncation = truncation_setting(truncation)?;
        tok.padding = padding_setting(&tok, padding)?;
        guard(|| hf_json::tokenizer_to_json(&tok))
    }

    fn vocab_txt(&self) -> String {
        self.inner.vocab.to_vocab_txt()
    }

    /// A copy with some settings changed; `None` keeps the current value.
    #[pyo3(signature = (*, unk_token=None, continuing_subword_prefix=None,
        max_input_chars_per_word=None, unknown=None, lowercase=None, strip_accents=None,
        set_strip_accents=false, clean_text=None, handle_chinese_chars=None, pre_tokenizer=None))]
    #[allow(clippy::too_many_arguments)]
    fn with_options(
        &self,
        unk_token: Option<String>,
        continuing_subword_prefix: Option<String>,
        max_input_chars_per_word: Option<usize>,
        unknown: Option<Cow<'_, str>>,
        lowercase: Option<bool>,
        strip_accents: Option<bool>,
        set_strip_accents: bool,
        clean_text: Option<bool>,
        handle_chinese_chars: Option<bool>,
        pre_tokenizer: Option<Cow<'_, str>>,
    ) -> PyResult<Self> {
        let update = SettingsUpdate {
            unk_token,
            continuing_subword_prefix,
            max_input_chars_per_word,
            unknown: unknown.as_deref().map(str::parse).transpose()?,
            lowercase,
            strip_accents: set_strip_accents.then_some(strip_accents),
            clean_text,
            handle_chinese_chars,
            pre_tokenizer: pre_tokenizer.as_deref().map(str::parse).transpose()?,
        };
        Ok(Self {
            inner: Arc::new(guard(|| self.inner.updated(&update))?),
        })
    }

    /// Settings as a dict (for repr, pickling and the Python layer).
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner;
        let d = PyDict::new(py);
        let m = &t.model().config;
        d.set_item("unk_token", &m.unk_token)?;
        d.set_item("continuing_subword_prefix", &m.continuing_subword_prefix)?;
        d.set_item("max_input_chars_per_word", m.max_input_chars_per_word)?;
        d.set_item("unknown", m.unknown.name())?;
        d.set_item("end_of_word_suffix", &m.end_of_word_suffix)?;
        // A tokenizer.json's other normalizers and pre-tokenizers have no
        // option names: the settings say so instead of naming BERT's.
        let custom = t.splitter().chain().is_some();
        d.set_item("pipeline", if custom { "custom" } else { "bert" })?;
        let pre_tokenizer = (!custom).then(|| t.pre_tokenizer().name());
        d.set_item("pre_tokenizer", pre_tokenizer)?;
        d.set_item("normalize", (!custom).then(|| t.normalizer().is_some()))?;
        if let Some(n) = t.normalizer() {
            d.set_item("lowercase", n.lowercase)?;
            d.set_item("strip_accents", n.strip_accents)?;
            d.set_item("clean_text", n.clean_text)?;
            d.set_item("handle_chinese_chars", n.handle_chinese_chars)?;
        }
        d.set_item("special_tokens", t.special_tokens())?;
        Ok(d)
    }

    #[pyo3(signature = (text, pair=None, add_special_tokens=true, truncation=None, padding=None))]
    fn encode(
        &self,
        py: Python<'_>,
        text: Cow<'_, str>,
        pair: Option<Cow<'_, str>>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: PaddingArg,
    ) -> PyResult<PyEncoding> {
        let trunc = truncation_setting(truncation)?;
        let pad = padding_setting(&self.inner, padding)?;
        let enc = py.allow_threads(|| {
            guard(|| {
                let mut e = self.inner.encode_with(
                    &text,
                    pair.as_deref(),
                    add_special_tokens,
                    trunc.as_ref(),
                )?;
                pad_batch(std::slice::from_mut(&mut e), pad.as_ref())?;
                Ok(e)
            })
        })?;
        let pad_token = pad.map(|p| Arc::from(p.pad_token));
        Ok(self.wrap(enc, pad_token.as_ref()))
    }

    #[pyo3(signature = (texts, pairs=None, add_special_tokens=true, truncation=None, padding=None, num_threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: PaddingArg,
        num_threads: Option<usize>,
    ) -> PyResult<Vec<PyEncoding>> {
        let pad = padding_setting(&self.inner, padding)?;
        let pad_token: Option<Arc<str>> = pad.as_ref().map(|p| Arc::from(p.pad_token.as_str()));
        if pairs.is_none() && self.inner.rows_fit(add_special_tokens) {
            // Single inputs: one flat batch, each Encoding a row of it.
            let rows =
                self.over_texts(py, texts, truncation, num_threads, |tok, t, trunc, c| {
                    tok.encode_batch_rows(t, add_special_tokens, trunc, pad.as_ref(), c)
                })?;
            let rows = Arc::new(rows);
            let tokens = || TokenStrings::Lazy {
                tok: Arc::clone(&self.inner),
                pad_token: pad_token.clone(),
            };
            return Ok((0..rows.rows())
                .map(|row| PyEncoding {
                    enc: Source::Row {
                        rows: Arc::clone(&rows),
                        row,
                    },
                    tokens: tokens(),
                })
                .collect());
        }
        let encs = self.run_batch(
            py,
            texts,
            pairs,
            add_special_tokens,
            truncation,
            pad,
            num_threads,
        )?;
        Ok(encs
            .into_iter()
            .map(|e| self.wrap(e, pad_token.as_ref()))
            .collect())
    }

    /// Padded 2-D int64 arrays `input_ids`, `attention_mask`, `token_type_ids`
    /// (and `special_tokens_mask`); pads to the longest row unless padding is set.
    #[pyo3(signature = (texts, pairs=None, add_special_tokens=true, truncation=None, padding=None, num_threads=None, return_word_ids=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pairs: Option<&Bound<'py, PyAny>>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: PaddingArg,
        num_threads: Option<usize>,
        return_word_ids: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pad_setting = match padding {
            Some(_) => padding_setting(&self.inner, padding)?,
            // Rows must be rectangular: pad to the longest with id 0 by default.
            None => Some(Padding::longest_with_id_0(
                self.inner.id_to_token(0).unwrap_or_default(),
            )),
        };
        let encs = self.run_batch(
            py,
            texts,
            pairs,
            add_special_tokens,
            truncation,
            pad_setting,
            num_threads,
        )?;
        let table = guard(|| columns(&encs, return_word_ids))?;
        let d = PyDict::new(py);
        let names = [
            "input_ids",
            "attention_mask",
            "token_type_ids",
            "special_tokens_mask",
            "word_ids",
        ];
        for (name, col) in names.into_iter().zip(table.columns) {
            let arr = col.into_pyarray(py).reshape([table.rows, table.width])?;
            d.set_item(name, arr)?;
        }
        Ok(d)
    }

    /// All ids of the batch in one flat uint32 array, plus `row_offsets`
    /// (length n+1): row i is `ids[row_offsets[i]:row_offsets[i+1]]`; with
    /// `return_offsets`, also an (n_tokens, 2) uint32 array of char offsets.
    #[pyo3(signature = (texts, add_special_tokens=true, truncation=None, num_threads=None, return_offsets=false, return_word_ids=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch_flat<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        return_offsets: bool,
        return_word_ids: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let flat = self.over_texts(py, texts, truncation, num_threads, |tok, t, trunc, c| {
            tok.encode_batch_flat(
                t,
                add_special_tokens,
                trunc,
                return_offsets,
                return_word_ids,
                c,
            )
        })?;
        let rows: Vec<i64> = flat.rows.into_iter().map(|r| r as i64).collect();
        let mut items = vec![
            flat.ids.into_pyarray(py).into_any(),
            rows.into_pyarray(py).into_any(),
        ];
        if return_offsets {
            let n = flat.offsets.len() / 2;
            items.push(flat.offsets.into_pyarray(py).reshape([n, 2])?.into_any());
        }
        if return_word_ids {
            let words: Vec<i64> = flat
                .words
                .iter()
                .map(|&w| if w == u32::MAX { -1 } else { i64::from(w) })
                .collect();
            items.push(words.into_pyarray(py).into_any());
        }
        PyTuple::new(py, items)
    }

    /// `encode_batch_flat` over an Arrow string array chunk read in place
    /// (see `arrow.rs`); a null row is an empty row, and the rows' validity
    /// is returned as a fourth (or third) item for the caller's null mask.
    #[pyo3(signature = (offsets, data, validity, offset, length, add_special_tokens=true, truncation=None, num_threads=None, return_offsets=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_arrow_flat<'py>(
        &self,
        py: Python<'py>,
        offsets: &Bound<'py, PyAny>,
        data: numpy::PyReadonlyArray1<'py, u8>,
        validity: Option<numpy::PyReadonlyArray1<'py, u8>>,
        offset: usize,
        length: usize,
        add_special_tokens: bool,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        return_offsets: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let chunk = ArrowChunk::extract(offsets, data, validity, offset, length)?;
        let rows = chunk.rows()?;
        let texts: Vec<&str> = rows.iter().flatten().copied().collect();
        let trunc = truncation_setting(truncation)?;
        let flat = interruptible(py, text_bytes(&texts), |cancel| {
            parallel::install(num_threads, || {
                self.inner.encode_batch_flat(
                    &texts,
                    add_special_tokens,
                    trunc.as_ref(),
                    return_offsets,
                    false,
                    cancel,
                )
            })?
        })?;
        // Null rows take no tokens: their bounds repeat the one before.
        let mut bounds: Vec<i64> = Vec::with_capacity(rows.len() + 1);
        let mut valid_rows = flat.rows.iter();
        bounds.push(valid_rows.next().copied().unwrap_or(0) as i64);
        for r in &rows {
            let last = *bounds.last().unwrap_or(&0);
            bounds.push(match r {
                Some(_) => valid_rows.next().map_or(last, |&b| b as i64),
                None => last,
            });
        }
        let ids = flat.ids.into_pyarray(py).into_any();
        let bounds = bounds.into_pyarray(py).into_any();
        if !return_offsets {
            return PyTuple::new(py, [ids, bounds]);
        }
        let n = flat.offsets.len() / 2;
        let offsets = flat.offsets.into_pyarray(py).reshape([n, 2])?.into_any();
        PyTuple::new(py, [ids, bounds, offsets])
    }

    /// Encodes files read in Rust (no Python string per document): flat ids
    /// and row offsets, as `encode_batch_flat`.
    #[pyo3(signature = (paths, separator=Cow::Borrowed("\n"), jsonl_field=None, add_special_tokens=true, truncation=None, num_threads=None, mmap=true))]
    #[allow(clippy::too_many_arguments)]
    fn encode_files<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<std::path::PathBuf>,
        separator: Cow<'_, str>,
        jsonl_field: Option<String>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        mmap: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let trunc = truncation_setting(truncation)?;
        let source = match jsonl_field {
            Some(f) => io::DocSource::JsonlField(f),
            None => io::DocSource::Separated(separator.into_owned()),
        };
        // Files are of any size: always watch for Ctrl-C.
        let flat = interruptible(py, usize::MAX, |cancel| {
            let mut files = Vec::with_capacity(paths.len());
            for p in &paths {
                cancel.check()?;
                files.push(io::read_documents(p, &source, mmap, cancel)?);
            }
            let mut refs: Vec<&str> = Vec::new();
            for f in &files {
                refs.extend(f.as_strs()?);
            }
            parallel::install(num_threads, || {
                self.inner.encode_batch_flat(
                    &refs,
                    add_special_tokens,
                    trunc.as_ref(),
                    false,
                    false,
                    cancel,
                )
            })?
        })?;
        let rows: Vec<i64> = flat.rows.into_iter().map(|r| r as i64).collect();
        PyTuple::new(
            py,
            [
                flat.ids.into_pyarray(py).into_any(),
                rows.into_pyarray(py).into_any(),
            ],
        )
    }

    #[pyo3(signature = (ids, skip_special_tokens=true))]
    fn decode(&self, ids: Vec<u32>, skip_special_tokens: bool) -> String {
        self.inner.decode(&ids, skip_special_tokens)
    }

    #[getter]
    fn decoder_cleanup(&self) -> bool {
        self.inner.decoder.cleanup
    }

    #[setter]
    fn set_decoder_cleanup(&mut self, cleanup: bool) {
        Arc::make_mut(&mut self.inner).decoder.cleanup = cleanup;
    }

    fn token_to_id(&self, token: Cow<'_, str>) -> Option<u32> {
        self.inner.token_to_id(&token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id).map(str::to_owned)
    }

    fn get_vocab(&self) -> Vec<String> {
        self.inner.vocab.tokens().to_vec()
    }

    fn get_vocab_size(&self) -> usize {
        self.inner.vocab.len()
    }

    fn is_special_id(&self, id: u32) -> bool {
        self.inner.is_special_id(id)
    }

    /// Truncation stored in the loaded file, or None.
    #[getter]
    fn truncation(&self) -> TruncationArg {
        self.inner.truncation.as_ref().map(|t| TruncationSpec {
            max_length: t.max_length,
            stride: t.stride,
            strategy: t.strategy.name().to_owned(),
            direction: t.direction.name().to_owned(),
        })
    }

    /// Padding stored in the loaded file, as the padding argument of the encode calls.
    #[getter]
    fn padding(&self) -> PaddingArg {
        self.inner.padding.as_ref().map(|p| PaddingSpec {
            length: match p.length {
                PadLength::Longest => None,
                PadLength::Fixed(n) => Some(n),
            },
            pad_to_multiple_of: p.pad_to_multiple_of,
            pad_id: Some(p.pad_id),
            pad_token: p.pad_token.clone(),
            pad_type_id: p.pad_type_id,
            direction: p.direction.name().to_owned(),
        })
    }
}
