//! `Tokenizer`: thin wrappers over `pipeline::Tokenizer`, each releasing the
//! GIL for the work.
//!
//! Why this file is long: it is one Python class, a wrapper per method of
//! `wpiece.Tokenizer` (encode in its five shapes, settings, vocab, decode).

use std::sync::{Arc, PoisonError, RwLock};

use numpy::{IntoPyArray, PyArrayMethods};
use std::borrow::Cow;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::arrow::ArrowChunk;
use super::encoding::{PyEncoding, Source, TokenStrings};
use super::errors::guard;
use super::numpy_api::numpy_ready;
use super::run::{run, watched_string_lists, watched_strings, Run};
use super::specs::{
    call_settings, objects_call, padding_setting, truncation_setting, AddedTokenSpec,
    AddedTokenTuple, BertOptions, PaddingArg, PaddingSpec, PerCallArg, TruncationArg,
    TruncationSpec,
};
use super::text::{as_strs, text_bytes, text_of, TextList};
use crate::cancel::Cancel;
use crate::decoder::DecoderKind;
use crate::encode::FlatBatch;
use crate::error::Error;
use crate::hf_json;
use crate::io;
use crate::model::Vocab;
use crate::pipeline::{
    pad_batch, pad_flat, BatchEncodings, Encoding, EncodingRows, Input, PadLength, Padding,
    SettingsUpdate, Tokenizer, Truncation, BERT_SPECIAL_TOKENS,
};

/// The tokenizer of a `wpiece.Tokenizer`. Its truncation and padding
/// settings change in place; each call encodes with the tokenizer as it was
/// when the call began, whatever another thread sets meanwhile.
#[pyclass(module = "wpiece._core", name = "Tokenizer", frozen)]
pub struct PyTokenizer {
    inner: RwLock<Arc<Tokenizer>>,
}

impl PyTokenizer {
    pub(crate) fn of(tok: Tokenizer) -> Self {
        Self {
            inner: RwLock::new(Arc::new(tok)),
        }
    }

    /// The tokenizer as it is now.
    pub(crate) fn tokenizer(&self) -> Arc<Tokenizer> {
        Arc::clone(&self.inner.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Changes the tokenizer (a copy, if calls still use it).
    fn change(&self, f: impl FnOnce(&mut Tokenizer)) {
        let mut guard = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        f(Arc::make_mut(&mut guard));
    }

    /// Runs `op` on the single texts of a Python list, on the call's thread
    /// pool, with the GIL released and Ctrl-C watched.
    fn over_texts<T: Send>(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        num_threads: Option<usize>,
        op: impl Fn(&Tokenizer, &[&str], &Cancel) -> Result<T, Error> + Sync,
    ) -> PyResult<T> {
        let items = TextList::extract(texts, "texts")?;
        let texts = items.strs()?;
        let tok = self.tokenizer();
        let how = Run::encoding(text_bytes(&texts), texts.len(), num_threads);
        run(py, how, |cancel| op(&tok, &texts, cancel))
    }

    /// A batch's texts (and pairs) encoded in parallel with the GIL released,
    /// truncated and padded as the call says.
    #[allow(clippy::too_many_arguments)]
    fn batch(
        &self,
        py: Python<'_>,
        tok: &Tokenizer,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        num_threads: Option<usize>,
    ) -> PyResult<BatchEncodings> {
        let text_items = TextList::extract(texts, "texts")?;
        let pair_items = pairs.map(|p| TextList::extract(p, "pairs")).transpose()?;
        let texts = text_items.strs()?;
        let pairs = pair_items.as_ref().map(TextList::strs).transpose()?;
        let bytes = text_bytes(&texts) + pairs.as_deref().map_or(0, text_bytes);
        let items = texts.len() + pairs.as_deref().map_or(0, <[&str]>::len);
        run(py, Run::encoding(bytes, items, num_threads), |cancel| {
            tok.encode_batch_with(
                &texts,
                pairs.as_deref(),
                add_special_tokens,
                truncation,
                padding,
                cancel,
            )
        })
    }

    /// One input (and pair) encoded, truncated and padded as set: the end
    /// of [`PyTokenizer::encode`] and [`PyTokenizer::encode_words`].
    fn encode_one(
        &self,
        py: Python<'_>,
        input: Input<'_>,
        pair: Option<Input<'_>>,
        bytes: usize,
        add_special_tokens: bool,
    ) -> PyResult<PyEncoding> {
        let tok = self.tokenizer();
        let enc = run(py, Run::serial(bytes), |cancel| {
            let truncation = tok.truncation.as_ref();
            let mut e = tok.encode_inputs(input, pair, add_special_tokens, truncation, cancel)?;
            pad_batch(std::slice::from_mut(&mut e), tok.padding.as_ref())?;
            Ok(e)
        })?;
        let pad_token = tok
            .padding
            .as_ref()
            .map(|p| Arc::from(p.pad_token.as_str()));
        Ok(wrap(&tok, Source::owned(enc), pad_token.as_ref()))
    }

    /// [`PyTokenizer::batch`] of words given apart (HF's `is_pretokenized`):
    /// each text and pair a list of words.
    #[allow(clippy::too_many_arguments)]
    fn batch_words(
        &self,
        py: Python<'_>,
        tok: &Tokenizer,
        inputs: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        num_threads: Option<usize>,
    ) -> PyResult<Vec<Encoding>> {
        let inputs = watched_string_lists(inputs, "texts")?;
        let pairs = pairs
            .map(|p| watched_string_lists(p, "pairs"))
            .transpose()?;
        let (inputs, pairs) = (as_strs(&inputs), pairs.as_deref().map(as_strs));
        let bytes = |lists: &[Vec<&str>]| lists.iter().map(|l| text_bytes(l)).sum::<usize>();
        let total = bytes(&inputs) + pairs.as_deref().map_or(0, bytes);
        let items = inputs.len() + pairs.as_ref().map_or(0, Vec::len);
        run(py, Run::encoding(total, items, num_threads), |cancel| {
            let pairs = pairs.as_deref();
            tok.encode_batch_words(
                &inputs,
                pairs,
                add_special_tokens,
                truncation,
                padding,
                cancel,
            )
        })
    }
}

/// An encoding whose token strings are read from `tok` when asked for.
fn wrap(tok: &Arc<Tokenizer>, enc: Source, pad_token: Option<&Arc<str>>) -> PyEncoding {
    PyEncoding {
        enc,
        tokens: TokenStrings::Lazy {
            tok: Arc::clone(tok),
            pad_token: pad_token.cloned(),
        },
    }
}

#[pymethods]
impl PyTokenizer {
    /// Builds a BERT-like tokenizer from a list of tokens (index = id).
    #[new]
    #[pyo3(signature = (vocab, *, unk_token="[UNK]".into(), continuing_subword_prefix="##".into(),
        max_input_chars_per_word=100, unknown="word".into(), normalize=true, lowercase=true,
        strip_accents=None, clean_text=true, handle_chinese_chars=true, pre_tokenizer="bert".into(),
        special_tokens=None, end_of_word_suffix=String::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        vocab: &Bound<'_, PyAny>,
        unk_token: String,
        continuing_subword_prefix: String,
        max_input_chars_per_word: usize,
        unknown: String,
        normalize: bool,
        lowercase: bool,
        strip_accents: Option<bool>,
        clean_text: bool,
        handle_chinese_chars: bool,
        pre_tokenizer: String,
        special_tokens: Option<Vec<String>>,
        end_of_word_suffix: String,
    ) -> PyResult<Self> {
        let options = BertOptions {
            unk_token,
            continuing_subword_prefix,
            max_input_chars_per_word,
            unknown,
            normalize,
            lowercase,
            strip_accents,
            clean_text,
            handle_chinese_chars,
            pre_tokenizer,
            special_tokens: special_tokens
                .unwrap_or_else(|| BERT_SPECIAL_TOKENS.iter().map(|s| s.to_string()).collect()),
            end_of_word_suffix,
        };
        let vocab = watched_strings(vocab, "vocab")?;
        let bytes = vocab.iter().map(String::len).sum();
        Ok(Self::of(run(py, Run::serial(bytes), |_| {
            options.build(vocab)
        })?))
    }

    /// Parses the text of an HF `tokenizer.json`.
    #[staticmethod]
    fn from_json(py: Python<'_>, json: &Bound<'_, PyString>) -> PyResult<Self> {
        let json = text_of(json)?;
        let how = Run::serial(json.len());
        Ok(Self::of(run(py, how, |_| {
            hf_json::tokenizer_from_json(&json)
        })?))
    }

    /// The same pipeline over another vocab (a list of tokens, index = id).
    fn with_vocab(&self, vocab: Vec<String>) -> PyResult<Self> {
        let vocab = Vocab::new(vocab)?;
        Ok(Self::of(self.tokenizer().with_vocab(vocab)?))
    }

    /// The special tokens (added tokens marked special), in id order.
    fn special_tokens_in_order(&self) -> Vec<String> {
        let tok = self.tokenizer();
        let added = tok.added_tokens().iter();
        added
            .filter(|(_, t)| t.special)
            .map(|(_, t)| t.content.clone())
            .collect()
    }

    /// Adds tokens `(content, single_word, lstrip, rstrip, normalized,
    /// special)` in order, as HF's `add_tokens`; returns how many were added.
    fn add_tokens(&self, tokens: Vec<AddedTokenSpec>) -> PyResult<usize> {
        let tokens = tokens.into_iter().map(AddedTokenSpec::token).collect();
        let mut guard = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        let (tok, n) = guard.with_added_tokens(tokens)?;
        *guard = Arc::new(tok);
        Ok(n)
    }

    /// Added tokens that match by the same pattern, as `(pattern, ids)`
    /// (see `AddedVocabulary::shared_patterns`).
    fn shared_added_patterns(&self) -> Vec<(String, Vec<u32>)> {
        self.tokenizer().added_tokens().shared_patterns()
    }

    /// The added tokens as `(id, (content, single_word, lstrip, rstrip,
    /// normalized, special))`, in id order.
    fn added_tokens(&self) -> Vec<(u32, AddedTokenSpec)> {
        let tok = self.tokenizer();
        let added = tok.added_tokens().iter();
        added.map(|(id, t)| (id, AddedTokenSpec::of(t))).collect()
    }

    /// `tokenizer.json` text, truncation and padding included.
    fn to_json(&self) -> PyResult<String> {
        let tok = self.tokenizer();
        guard(|| hf_json::tokenizer_to_json(&tok))
    }

    fn vocab_txt(&self) -> PyResult<String> {
        guard(|| self.tokenizer().vocab.to_vocab_txt())
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
        Ok(Self::of(guard(|| self.tokenizer().updated(&update))?))
    }

    /// Settings as a dict (for repr, pickling and the Python layer).
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = self.tokenizer();
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

    /// Encodes one text (or pair), truncated and padded as set.
    #[pyo3(signature = (text, pair=None, add_special_tokens=true))]
    fn encode(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        pair: Option<&Bound<'_, PyString>>,
        add_special_tokens: bool,
    ) -> PyResult<PyEncoding> {
        let text = text_of(text)?;
        let pair = pair.map(text_of).transpose()?;
        let bytes = text.len() + pair.as_ref().map_or(0, |p| p.len());
        let pair = pair.as_deref().map(Input::Text);
        self.encode_one(py, Input::Text(&text), pair, bytes, add_special_tokens)
    }

    /// Encodes words given apart (HF's `is_pretokenized`), and a pair's.
    #[pyo3(signature = (words, pair=None, add_special_tokens=true))]
    fn encode_words(
        &self,
        py: Python<'_>,
        words: &Bound<'_, PyAny>,
        pair: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
    ) -> PyResult<PyEncoding> {
        let words = watched_strings(words, "text")?;
        let pair = pair.map(|p| watched_strings(p, "pair")).transpose()?;
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let pair: Option<Vec<&str>> = pair
            .as_ref()
            .map(|p| p.iter().map(String::as_str).collect());
        let bytes = text_bytes(&words) + pair.as_deref().map_or(0, text_bytes);
        let pair = pair.as_deref().map(Input::Words);
        self.encode_one(py, Input::Words(&words), pair, bytes, add_special_tokens)
    }

    /// The tokens of `text` alone: no special tokens, truncation or padding.
    fn tokenize(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
        let text = text_of(text)?;
        let tok = self.tokenizer();
        let enc = run(py, Run::serial(text.len()), |cancel| {
            tok.encode_with(&text, None, false, None, cancel)
        })?;
        let token = |(k, &id): (usize, &u32)| {
            let shown = enc.surface(k).or_else(|| tok.token_string(id));
            shown.unwrap_or_default().to_owned()
        };
        Ok(enc.ids.iter().enumerate().map(token).collect())
    }

    /// Encodes a batch; `padding`, `truncation` and `max_length` change the
    /// tokenizer's settings for this call only, as `carried` (the transformers
    /// settings the tokenizer came with) says.
    /// With `is_pretokenized`, each text and pair is a list of words.
    #[pyo3(signature = (texts, pairs, add_special_tokens, padding, truncation, max_length, num_threads=None, pad_to_multiple_of=None, is_pretokenized=false, carried=None))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        add_special_tokens: bool,
        padding: &Bound<'_, PyAny>,
        truncation: &Bound<'_, PyAny>,
        max_length: Option<usize>,
        num_threads: Option<usize>,
        pad_to_multiple_of: Option<usize>,
        is_pretokenized: bool,
        carried: Option<PerCallArg>,
    ) -> PyResult<Vec<PyEncoding>> {
        let tok = self.tokenizer();
        let call = call_settings(padding, truncation, max_length, pad_to_multiple_of, carried)?;
        let (trunc, pad, pad_token) = objects_call(&tok, &call)?;
        let (trunc, pad) = (trunc.as_ref(), pad.as_ref());
        let batch = if is_pretokenized {
            let encs = self.batch_words(
                py,
                &tok,
                texts,
                pairs,
                add_special_tokens,
                trunc,
                pad,
                num_threads,
            )?;
            BatchEncodings::Each(encs)
        } else {
            self.batch(
                py,
                &tok,
                texts,
                pairs,
                add_special_tokens,
                trunc,
                pad,
                num_threads,
            )?
        };
        Ok(match batch {
            // Single inputs: one flat batch, each Encoding a row of it.
            BatchEncodings::Rows(rows) => {
                let rows: Arc<EncodingRows> = Arc::from(rows);
                (0..rows.rows())
                    .map(|row| {
                        let rows = Arc::clone(&rows);
                        wrap(&tok, Source::Row { rows, row }, pad_token.as_ref())
                    })
                    .collect()
            }
            BatchEncodings::Each(encs) => encs
                .into_iter()
                .map(|e| wrap(&tok, Source::owned(e), pad_token.as_ref()))
                .collect(),
        })
    }

    /// Padded 2-D int64 arrays `input_ids`, `attention_mask`, `token_type_ids`
    /// (and `special_tokens_mask`), padded as `encode_batch` pads (to the
    /// longest row when no padding is set or asked for).
    #[pyo3(signature = (texts, pairs, add_special_tokens, padding, truncation, max_length, num_threads=None, return_word_ids=false, pad_to_multiple_of=None, carried=None))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pairs: Option<&Bound<'py, PyAny>>,
        add_special_tokens: bool,
        padding: &Bound<'py, PyAny>,
        truncation: &Bound<'py, PyAny>,
        max_length: Option<usize>,
        num_threads: Option<usize>,
        return_word_ids: bool,
        pad_to_multiple_of: Option<usize>,
        carried: Option<PerCallArg>,
    ) -> PyResult<Bound<'py, PyDict>> {
        numpy_ready(py)?;
        let tok = self.tokenizer();
        let call = call_settings(padding, truncation, max_length, pad_to_multiple_of, carried)?;
        let trunc = tok.call_truncation(&call)?;
        let pad = tok.call_padding(&call, true)?;
        let text_items = TextList::extract(texts, "texts")?;
        let pair_items = pairs.map(|p| TextList::extract(p, "pairs")).transpose()?;
        let texts = text_items.strs()?;
        let pairs = pair_items.as_ref().map(TextList::strs).transpose()?;
        let bytes = text_bytes(&texts) + pairs.as_deref().map_or(0, text_bytes);
        let items = texts.len() + pairs.as_deref().map_or(0, <[&str]>::len);
        let table = run(py, Run::encoding(bytes, items, num_threads), |cancel| {
            tok.encode_batch_columns(
                &texts,
                pairs.as_deref(),
                add_special_tokens,
                trunc.as_ref(),
                pad.as_ref(),
                return_word_ids,
                cancel,
            )
        })?;
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
    #[pyo3(signature = (texts, add_special_tokens=true, num_threads=None, return_offsets=false, return_word_ids=false))]
    fn encode_batch_flat<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        add_special_tokens: bool,
        num_threads: Option<usize>,
        return_offsets: bool,
        return_word_ids: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        numpy_ready(py)?;
        let flat = self.over_texts(py, texts, num_threads, |tok, t, c| {
            let mut flat = tok.encode_batch_flat(
                t,
                add_special_tokens,
                tok.truncation.as_ref(),
                return_offsets,
                return_word_ids,
                c,
            )?;
            pad_flat(
                &mut flat,
                tok.padding.as_ref(),
                return_offsets,
                return_word_ids,
            )?;
            Ok(flat)
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
    #[pyo3(signature = (offsets, data, validity, offset, length, add_special_tokens=true, num_threads=None, return_offsets=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_arrow_flat<'py>(
        &self,
        py: Python<'py>,
        offsets: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        validity: Option<&Bound<'py, PyAny>>,
        offset: usize,
        length: usize,
        add_special_tokens: bool,
        num_threads: Option<usize>,
        return_offsets: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let chunk = ArrowChunk::extract(offsets, data, validity, offset, length)?;
        let rows = chunk.rows()?;
        let texts: Vec<&str> = rows.iter().flatten().copied().collect();
        let tok = self.tokenizer();
        let how = Run::encoding(text_bytes(&texts), texts.len(), num_threads);
        let flat = run(py, how, |cancel| {
            encode_flat_padded(&tok, &texts, add_special_tokens, return_offsets, cancel)
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
        let offsets = return_offsets.then_some(flat.offsets);
        flat_arrays(py, flat.ids, bounds, offsets)
    }

    /// Encodes files read in Rust (no Python string per document): flat ids
    /// and row offsets, as `encode_batch_flat`.
    #[pyo3(signature = (paths, separator=Cow::Borrowed("\n"), jsonl_field=None, add_special_tokens=true, num_threads=None, mmap=true))]
    #[allow(clippy::too_many_arguments)]
    fn encode_files<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<std::path::PathBuf>,
        separator: Cow<'_, str>,
        jsonl_field: Option<String>,
        add_special_tokens: bool,
        num_threads: Option<usize>,
        mmap: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        numpy_ready(py)?;
        let tok = self.tokenizer();
        let source = match jsonl_field {
            Some(f) => io::DocSource::JsonlField(f),
            None => io::DocSource::Separated(separator.into_owned()),
        };
        // Files are of any size: always watch for Ctrl-C.
        let flat = run(py, Run::parallel(usize::MAX, num_threads), |cancel| {
            let mut flat = tok.encode_files(&paths, &source, mmap, add_special_tokens, cancel)?;
            pad_flat(&mut flat, tok.padding.as_ref(), false, false)?;
            Ok(flat)
        })?;
        let rows: Vec<i64> = flat.rows.into_iter().map(|r| r as i64).collect();
        flat_arrays(py, flat.ids, rows, None)
    }

    #[pyo3(signature = (ids, skip_special_tokens=true))]
    fn decode(&self, ids: Vec<u32>, skip_special_tokens: bool) -> String {
        self.tokenizer().decode(&ids, skip_special_tokens)
    }

    #[getter]
    fn decoder_cleanup(&self) -> bool {
        let decoder = &self.tokenizer().decoder;
        decoder.cleanup && decoder.kind != DecoderKind::Join
    }

    /// Without a decoder (tokens joined by spaces, as HF decodes then) there
    /// is no cleanup to turn on.
    #[setter]
    fn set_decoder_cleanup(&self, cleanup: bool) -> PyResult<()> {
        if cleanup && self.tokenizer().decoder.kind == DecoderKind::Join {
            return Err(PyValueError::new_err(
                "this tokenizer has no decoder (its tokenizer.json's is null): decode joins \
                 the tokens with spaces, with no cleanup to turn on",
            ));
        }
        self.change(|t| t.decoder.cleanup = cleanup);
        Ok(())
    }

    /// Whether special tokens typed in a text are encoded as text (HF's
    /// `encode_special_tokens`) rather than matched.
    #[getter]
    fn encode_special_tokens(&self) -> bool {
        self.tokenizer().added_tokens().encode_special()
    }

    #[setter]
    fn set_encode_special_tokens(&self, on: bool) {
        self.change(|t| t.set_encode_special_tokens(on));
    }

    fn token_to_id(&self, token: Cow<'_, str>) -> Option<u32> {
        self.tokenizer().token_to_id(&token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.tokenizer().id_to_token(id).map(str::to_owned)
    }

    /// The model's vocab, index = id (added tokens are in `added_tokens`).
    fn get_vocab(&self) -> Vec<String> {
        self.tokenizer().vocab.tokens().to_vec()
    }

    /// Number of ids: the model's, and with `with_added_tokens` the added
    /// tokens outside it.
    #[pyo3(signature = (with_added_tokens=true))]
    fn get_vocab_size(&self, with_added_tokens: bool) -> usize {
        self.tokenizer().vocab_size(with_added_tokens)
    }

    fn is_special_id(&self, id: u32) -> bool {
        self.tokenizer().is_special_id(id)
    }

    /// Truncates encodings from now on (`None`: no more truncation). With
    /// `check_stride`, a stride HF's `enable_truncation` refuses is refused
    /// (a tokenizer.json's own is taken as HF loads it, checked when a cut
    /// is made).
    #[pyo3(signature = (truncation, check_stride=false))]
    fn set_truncation(&self, truncation: TruncationArg, check_stride: bool) -> PyResult<()> {
        let t = truncation_setting(truncation)?;
        if let (Some(t), true) = (&t, check_stride) {
            let tok = self.tokenizer();
            guard(|| t.check_stride(tok.n_added(true, false)))?;
        }
        self.change(|tok| tok.truncation = t);
        Ok(())
    }

    /// Pads encodings from now on (`None`: no more padding); `pad_id` None is
    /// the id of `pad_token`, which must then be in the vocab.
    fn set_padding(&self, padding: PaddingArg) -> PyResult<()> {
        let p = padding_setting(&self.tokenizer(), padding)?;
        self.change(|tok| tok.padding = p);
        Ok(())
    }

    /// The truncation setting, or None.
    #[getter]
    fn truncation(&self) -> TruncationArg {
        self.tokenizer()
            .truncation
            .as_ref()
            .map(|t| TruncationSpec {
                max_length: t.max_length,
                stride: t.stride,
                strategy: t.strategy.name().to_owned(),
                direction: t.direction.name().to_owned(),
            })
    }

    /// The padding setting, or None.
    #[getter]
    fn padding(&self) -> PaddingArg {
        self.tokenizer().padding.as_ref().map(|p| PaddingSpec {
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

/// `encode_batch_flat` of `texts` with the tokenizer's truncation and
/// padding: ids and, if asked, char offsets.
pub(crate) fn encode_flat_padded(
    tok: &Tokenizer,
    texts: &[&str],
    add_special_tokens: bool,
    return_offsets: bool,
    cancel: &Cancel,
) -> Result<FlatBatch, Error> {
    let mut flat = tok.encode_batch_flat(
        texts,
        add_special_tokens,
        tok.truncation.as_ref(),
        return_offsets,
        false,
        cancel,
    )?;
    pad_flat(&mut flat, tok.padding.as_ref(), return_offsets, false)?;
    Ok(flat)
}

/// Flat ids, int64 row bounds and, if given, flat char offsets as numpy
/// arrays `(ids, bounds[, offsets of shape (n, 2)])`.
pub(crate) fn flat_arrays<'py>(
    py: Python<'py>,
    ids: Vec<u32>,
    bounds: Vec<i64>,
    offsets: Option<Vec<u32>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let ids = ids.into_pyarray(py).into_any();
    let bounds = bounds.into_pyarray(py).into_any();
    let Some(offsets) = offsets else {
        return PyTuple::new(py, [ids, bounds]);
    };
    let n = offsets.len() / 2;
    let offsets = offsets.into_pyarray(py).reshape([n, 2])?.into_any();
    PyTuple::new(py, [ids, bounds, offsets])
}
