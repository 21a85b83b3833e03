//! The PyO3 binding layer: the only place that knows about Python.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::cache;
use crate::cancel::Cancel;
use crate::encode::{UnknownPolicy, WordPieceConfig};
use crate::error::Error;
use crate::io;
use crate::normalize::NormalizerConfig;
use crate::parallel;
use crate::pretokenize::PreTokenizer;
use crate::quality;
use crate::tokenizer::{
    pad_batch, Encoding, PadLength, Padding, Tokenizer, Truncation, TruncationStrategy,
    BERT_SPECIAL_TOKENS,
};
use crate::train::counts::{WordCounts, WordSplitter};
use crate::train::{self, Score, TrainerConfig};
use crate::vocab::Vocab;

create_exception!(
    _core,
    UnsupportedComponentError,
    PyValueError,
    "A tokenizer.json component that wpiece cannot reproduce exactly."
);

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Value(m) => PyValueError::new_err(m),
        Error::Unsupported(m) => UnsupportedComponentError::new_err(m),
        Error::NotFound(m) => PyFileNotFoundError::new_err(m),
        Error::IsADirectory(m) => PyIsADirectoryError::new_err(m),
        Error::PermissionDenied(m) => PyPermissionError::new_err(m),
        Error::Io(m) => PyOSError::new_err(m),
        Error::Memory(m) => PyMemoryError::new_err(m),
        Error::Overflow(m) => PyOverflowError::new_err(m),
        Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
    }
}

/// Runs core code so that a Rust panic becomes a Python `RuntimeError`.
fn guard<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(PyRuntimeError::new_err(format!(
                "wpiece internal error: {msg}"
            )))
        }
    }
}

/// Inputs smaller than this finish in milliseconds: they run inline, without
/// a watcher for Ctrl-C (which costs a thread start).
const INTERRUPTIBLE_BYTES: usize = 256 << 10;

/// How often a long call looks for Ctrl-C.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` with the GIL released. Large inputs (`bytes`) run on a scoped
/// thread while this one checks for signals every 50 ms: on Ctrl-C the work
/// is told to stop (it polls its `Cancel` between documents), and once it
/// has, the signal's exception (`KeyboardInterrupt`) is raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    bytes: usize,
    work: impl FnOnce(&Cancel) -> Result<T, Error> + Send,
) -> PyResult<T> {
    if bytes < INTERRUPTIBLE_BYTES {
        return py.allow_threads(|| guard(|| work(Cancel::never())));
    }
    let cancel = Cancel::new();
    let mut signal: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let (waiter, cancel) = (std::thread::current(), &cancel);
            let worker = scope.spawn(move || {
                let r = guard(|| work(cancel));
                waiter.unpark();
                r
            });
            while !worker.is_finished() {
                std::thread::park_timeout(SIGNAL_POLL);
                if signal.is_none() && !worker.is_finished() {
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        signal = Some(e);
                        cancel.cancel();
                    }
                }
            }
            worker
                .join()
                .unwrap_or_else(|_| Err(PyRuntimeError::new_err("wpiece internal error")))
        })
    });
    match signal {
        Some(e) => Err(e),
        None => result,
    }
}

fn text_bytes(texts: &[&str]) -> usize {
    texts.iter().map(|t| t.len()).sum()
}

fn unknown_policy(name: &str) -> PyResult<UnknownPolicy> {
    match name {
        "word" => Ok(UnknownPolicy::Word),
        "char" => Ok(UnknownPolicy::Char),
        _ => Err(PyValueError::new_err(format!(
            "unknown must be 'word' or 'char', got {name:?}"
        ))),
    }
}

fn pre_tokenizer(name: &str) -> PyResult<PreTokenizer> {
    PreTokenizer::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "pre_tokenizer must be 'bert' or 'whitespace', got {name:?}"
        ))
    })
}

type TruncationArg = Option<(usize, String)>;
/// `(length or None, pad_to_multiple_of, pad_id or None, pad_token, pad_type_id)`;
/// a missing pad id is the id of the pad token.
type PaddingArg = Option<(Option<usize>, Option<usize>, Option<u32>, String, u32)>;

fn truncation_setting(arg: TruncationArg) -> PyResult<Option<Truncation>> {
    arg.map(|(max_length, name)| {
        let strategy = TruncationStrategy::from_name(&name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "truncation strategy must be 'longest_first', 'only_first' or 'only_second', got {name:?}"
            ))
        })?;
        Ok(Truncation { max_length, strategy })
    })
    .transpose()
}

fn padding_setting(tok: &Tokenizer, arg: PaddingArg) -> PyResult<Option<Padding>> {
    arg.map(|(length, multiple, pad_id, pad_token, pad_type_id)| {
        let pad_id = match pad_id {
            Some(id) => id,
            None => tok.token_to_id(&pad_token).ok_or_else(|| {
                PyValueError::new_err(format!("pad token {pad_token:?} is not in the vocabulary"))
            })?,
        };
        Ok(Padding {
            length: length.map_or(PadLength::Longest, PadLength::Fixed),
            pad_to_multiple_of: multiple,
            pad_id,
            pad_type_id,
            pad_token,
        })
    })
    .transpose()
}

/// Result of encoding one input; tokens are looked up lazily.
#[pyclass(module = "wpiece._core", name = "Encoding", frozen)]
pub struct PyEncoding {
    enc: Encoding,
    tokens: TokenStrings,
}

/// Where an encoding's token strings come from.
enum TokenStrings {
    /// Looked up when asked for; padding is named by the pad token (HF names
    /// it so, whatever its id).
    Lazy {
        tok: Arc<Tokenizer>,
        pad_token: Option<Arc<str>>,
    },
    /// Given whole (an unpickled encoding: no tokenizer travels with it).
    Owned(Vec<String>),
}

/// An encoding as plain values, for pickling:
/// `(ids, type_ids, tokens, offsets, special_tokens_mask, attention_mask)`.
type EncodingState = (
    Vec<u32>,
    Vec<u32>,
    Vec<String>,
    Vec<(u32, u32)>,
    Vec<u8>,
    Vec<u8>,
);

#[pymethods]
impl PyEncoding {
    #[getter]
    fn ids(&self) -> Vec<u32> {
        self.enc.ids.clone()
    }
    #[getter]
    fn type_ids(&self) -> Vec<u32> {
        self.enc.type_ids.clone()
    }
    #[getter]
    fn tokens(&self) -> Vec<String> {
        let (tok, pad_token) = match &self.tokens {
            TokenStrings::Owned(tokens) => return tokens.clone(),
            TokenStrings::Lazy { tok, pad_token } => (tok, pad_token),
        };
        let e = &self.enc;
        e.ids
            .iter()
            .zip(&e.attention_mask)
            .map(|(&i, &attended)| match (pad_token, attended) {
                // Only padding is not attended to.
                (Some(pad), 0) => pad.to_string(),
                _ => tok.id_to_token(i).unwrap_or_default().to_owned(),
            })
            .collect()
    }

    /// Rebuilds a pickled encoding (see `__reduce__`).
    #[staticmethod]
    fn _from_state(state: EncodingState) -> PyResult<Self> {
        let (ids, type_ids, tokens, offsets, special_tokens_mask, attention_mask) = state;
        let n = ids.len();
        if [type_ids.len(), tokens.len(), offsets.len()] != [n; 3]
            || [special_tokens_mask.len(), attention_mask.len()] != [n; 2]
        {
            return Err(PyValueError::new_err(
                "an encoding's columns differ in length",
            ));
        }
        Ok(Self {
            enc: Encoding {
                ids,
                type_ids,
                offsets,
                special_tokens_mask,
                attention_mask,
            },
            tokens: TokenStrings::Owned(tokens),
        })
    }

    /// Pickles as plain values, token strings included (no tokenizer).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (EncodingState,))> {
        let rebuild = py.get_type::<Self>().getattr("_from_state")?;
        let e = &self.enc;
        let state = (
            e.ids.clone(),
            e.type_ids.clone(),
            self.tokens(),
            e.offsets.clone(),
            e.special_tokens_mask.clone(),
            e.attention_mask.clone(),
        );
        Ok((rebuild, (state,)))
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.enc == other.enc && self.tokens() == other.tokens()
    }
    #[getter]
    fn offsets(&self) -> Vec<(u32, u32)> {
        self.enc.offsets.clone()
    }
    #[getter]
    fn attention_mask(&self) -> Vec<u32> {
        self.enc.attention_mask.iter().map(|&x| x as u32).collect()
    }
    #[getter]
    fn special_tokens_mask(&self) -> Vec<u32> {
        self.enc
            .special_tokens_mask
            .iter()
            .map(|&x| x as u32)
            .collect()
    }
    fn __len__(&self) -> usize {
        self.enc.len()
    }
    fn __repr__(&self) -> String {
        format!("Encoding(num_tokens={})", self.enc.len())
    }
}

#[pyclass(module = "wpiece._core", name = "Tokenizer")]
#[derive(Clone)]
pub struct PyTokenizer {
    inner: Arc<Tokenizer>,
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

    fn wrap(&self, enc: Encoding, pad_token: Option<&Arc<str>>) -> PyEncoding {
        PyEncoding {
            enc,
            tokens: TokenStrings::Lazy {
                tok: Arc::clone(&self.inner),
                pad_token: pad_token.cloned(),
            },
        }
    }
}

/// The strs of a big batch, each held by a reference (they must outlive the
/// GIL's release). Python strings lie anywhere in memory, so every pass over
/// them (taking references, reading their text, dropping them) asks for the
/// object a few items ahead: otherwise each of a million documents costs a
/// cache miss in a row, all while the GIL is held.
struct TextList<'py> {
    items: Vec<Bound<'py, PyString>>,
}

/// How many items ahead the passes over a `TextList` prefetch.
const TEXTS_AHEAD: usize = 16;

impl<'py> TextList<'py> {
    fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let Ok(list) = obj.downcast::<PyList>() else {
            return Ok(Self {
                items: obj.extract()?,
            });
        };
        let n = list.len();
        let mut items = Vec::with_capacity(n);
        for k in 0..n {
            if k + TEXTS_AHEAD < n {
                // SAFETY: the index is in bounds and the GIL is held (nothing
                // can shrink the list meanwhile); the borrowed pointer is only
                // used as a prefetch address.
                let ahead =
                    unsafe { pyo3::ffi::PyList_GET_ITEM(list.as_ptr(), (k + TEXTS_AHEAD) as _) };
                cache::prefetch_address(ahead as *const u8);
            }
            items.push(list.get_item(k)?.downcast_into::<PyString>()?);
        }
        Ok(Self { items })
    }

    fn strs(&self) -> PyResult<Vec<&str>> {
        let items = &self.items;
        let mut out = Vec::with_capacity(items.len());
        for (k, s) in items.iter().enumerate() {
            if let Some(ahead) = items.get(k + TEXTS_AHEAD) {
                cache::prefetch_address(ahead.as_ptr() as *const u8);
            }
            out.push(s.to_str()?);
        }
        Ok(out)
    }
}

impl Drop for TextList<'_> {
    fn drop(&mut self) {
        let addresses: Vec<*const u8> =
            self.items.iter().map(|s| s.as_ptr() as *const u8).collect();
        for (k, item) in self.items.drain(..).enumerate() {
            if let Some(&ahead) = addresses.get(k + TEXTS_AHEAD) {
                cache::prefetch_address(ahead);
            }
            drop(item);
        }
    }
}

#[pymethods]
impl PyTokenizer {
    /// Builds a BERT-like tokenizer from a list of tokens (index = id).
    #[new]
    #[pyo3(signature = (vocab, *, unk_token="[UNK]", continuing_subword_prefix="##",
        max_input_chars_per_word=100, unknown="word", normalize=true, lowercase=true,
        strip_accents=None, clean_text=true, handle_chinese_chars=true, pre_tokenizer="bert",
        special_tokens=None, end_of_word_suffix=""))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        vocab: Vec<String>,
        unk_token: &str,
        continuing_subword_prefix: &str,
        max_input_chars_per_word: usize,
        unknown: &str,
        normalize: bool,
        lowercase: bool,
        strip_accents: Option<bool>,
        clean_text: bool,
        handle_chinese_chars: bool,
        pre_tokenizer: &str,
        special_tokens: Option<Vec<String>>,
        end_of_word_suffix: &str,
    ) -> PyResult<Self> {
        let model = WordPieceConfig {
            unk_token: unk_token.to_owned(),
            continuing_subword_prefix: continuing_subword_prefix.to_owned(),
            max_input_chars_per_word,
            unknown: unknown_policy(unknown)?,
            end_of_word_suffix: end_of_word_suffix.to_owned(),
        };
        let normalizer = normalize.then_some(NormalizerConfig {
            clean_text,
            handle_chinese_chars,
            strip_accents,
            lowercase,
        });
        let pre = self::pre_tokenizer(pre_tokenizer)?;
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
    fn from_json(json: &str) -> PyResult<Self> {
        Ok(Self {
            inner: Arc::new(guard(|| io::tokenizer_from_json(json))?),
        })
    }

    /// `tokenizer.json` text, with the given truncation and padding settings.
    #[pyo3(signature = (truncation=None, padding=None))]
    fn to_json(&self, truncation: TruncationArg, padding: PaddingArg) -> PyResult<String> {
        let mut tok = (*self.inner).clone();
        tok.truncation = truncation_setting(truncation)?;
        tok.padding = padding_setting(&tok, padding)?;
        guard(|| io::tokenizer_to_json(&tok))
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
        unknown: Option<&str>,
        lowercase: Option<bool>,
        strip_accents: Option<bool>,
        set_strip_accents: bool,
        clean_text: Option<bool>,
        handle_chinese_chars: Option<bool>,
        pre_tokenizer: Option<&str>,
    ) -> PyResult<Self> {
        let t = &self.inner;
        let mut model = t.model.config.clone();
        if let Some(u) = unk_token {
            model.unk_token = u;
        }
        if let Some(p) = continuing_subword_prefix {
            model.continuing_subword_prefix = p;
        }
        if let Some(m) = max_input_chars_per_word {
            model.max_input_chars_per_word = m;
        }
        if let Some(u) = unknown {
            model.unknown = unknown_policy(u)?;
        }
        let touches_normalizer = lowercase.is_some()
            || set_strip_accents
            || clean_text.is_some()
            || handle_chinese_chars.is_some();
        let normalizer = match (&t.normalizer, touches_normalizer) {
            (None, false) => None,
            (n, _) => {
                let mut n = n.clone().unwrap_or_default();
                if let Some(l) = lowercase {
                    n.lowercase = l;
                }
                if set_strip_accents {
                    n.strip_accents = strip_accents;
                }
                if let Some(c) = clean_text {
                    n.clean_text = c;
                }
                if let Some(h) = handle_chinese_chars {
                    n.handle_chinese_chars = h;
                }
                Some(n)
            }
        };
        let pre = match pre_tokenizer {
            Some(p) => self::pre_tokenizer(p)?,
            None => t.pre_tokenizer,
        };
        Ok(Self {
            inner: Arc::new(guard(|| t.with_settings(model, normalizer, pre))?),
        })
    }

    /// Settings as a dict (for repr, pickling and the Python layer).
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner;
        let d = PyDict::new(py);
        let m = &t.model.config;
        d.set_item("unk_token", &m.unk_token)?;
        d.set_item("continuing_subword_prefix", &m.continuing_subword_prefix)?;
        d.set_item("max_input_chars_per_word", m.max_input_chars_per_word)?;
        d.set_item(
            "unknown",
            if m.unknown == UnknownPolicy::Char {
                "char"
            } else {
                "word"
            },
        )?;
        d.set_item("pre_tokenizer", t.pre_tokenizer.name())?;
        d.set_item("end_of_word_suffix", &m.end_of_word_suffix)?;
        d.set_item("normalize", t.normalizer.is_some())?;
        if let Some(n) = &t.normalizer {
            d.set_item("lowercase", n.lowercase)?;
            d.set_item("strip_accents", n.strip_accents)?;
            d.set_item("clean_text", n.clean_text)?;
            d.set_item("handle_chinese_chars", n.handle_chinese_chars)?;
        }
        let specials: Vec<&str> = t
            .added_tokens
            .iter()
            .filter(|a| a.special)
            .map(|a| a.content.as_str())
            .collect();
        d.set_item("special_tokens", specials)?;
        Ok(d)
    }

    #[pyo3(signature = (text, pair=None, add_special_tokens=true, truncation=None, padding=None))]
    fn encode(
        &self,
        py: Python<'_>,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: PaddingArg,
    ) -> PyResult<PyEncoding> {
        let trunc = truncation_setting(truncation)?;
        let pad = padding_setting(&self.inner, padding)?;
        let enc = py.allow_threads(|| {
            guard(|| {
                let mut e =
                    self.inner
                        .encode_with(text, pair, add_special_tokens, trunc.as_ref())?;
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
    #[pyo3(signature = (texts, pairs=None, add_special_tokens=true, truncation=None, padding=None, num_threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch_arrays<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pairs: Option<&Bound<'py, PyAny>>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        padding: PaddingArg,
        num_threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pad_setting = match padding {
            Some(_) => padding_setting(&self.inner, padding)?,
            // Rows must be rectangular: pad to the longest with id 0 by default.
            None => Some(Padding {
                length: PadLength::Longest,
                pad_to_multiple_of: None,
                pad_id: 0,
                pad_type_id: 0,
                pad_token: self.inner.id_to_token(0).unwrap_or_default().to_owned(),
            }),
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
        let (rows, width) = (encs.len(), encs.first().map_or(0, Encoding::len));
        let mut cols: [Vec<i64>; 4] = std::array::from_fn(|_| Vec::with_capacity(rows * width));
        for e in &encs {
            if e.len() != width {
                return Err(PyValueError::new_err(format!(
                    "rows have different lengths ({} and {width}) after padding; \
                     enable truncation to the padding length",
                    e.len()
                )));
            }
            cols[0].extend(e.ids.iter().map(|&x| x as i64));
            cols[1].extend(e.attention_mask.iter().map(|&x| x as i64));
            cols[2].extend(e.type_ids.iter().map(|&x| x as i64));
            cols[3].extend(e.special_tokens_mask.iter().map(|&x| x as i64));
        }
        let d = PyDict::new(py);
        let names = [
            "input_ids",
            "attention_mask",
            "token_type_ids",
            "special_tokens_mask",
        ];
        for (name, col) in names.into_iter().zip(cols) {
            let arr = col.into_pyarray(py).reshape([rows, width])?;
            d.set_item(name, arr)?;
        }
        Ok(d)
    }

    /// All ids of the batch in one flat uint32 array, plus `row_offsets`
    /// (length n+1): row i is `ids[row_offsets[i]:row_offsets[i+1]]`; with
    /// `return_offsets`, also an (n_tokens, 2) uint32 array of char offsets.
    #[pyo3(signature = (texts, add_special_tokens=true, truncation=None, num_threads=None, return_offsets=false))]
    fn encode_batch_flat<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        return_offsets: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let items = TextList::extract(texts)?;
        let texts = items.strs()?;
        let trunc = truncation_setting(truncation)?;
        let flat = interruptible(py, text_bytes(&texts), |cancel| {
            parallel::install(num_threads, || {
                self.inner.encode_batch_flat(
                    &texts,
                    add_special_tokens,
                    trunc.as_ref(),
                    return_offsets,
                    cancel,
                )
            })?
        })?;
        let rows: Vec<i64> = flat.rows.into_iter().map(|r| r as i64).collect();
        let ids = flat.ids.into_pyarray(py).into_any();
        let rows = rows.into_pyarray(py).into_any();
        if !return_offsets {
            return PyTuple::new(py, [ids, rows]);
        }
        let n = flat.offsets.len() / 2;
        let offsets = flat.offsets.into_pyarray(py).reshape([n, 2])?.into_any();
        PyTuple::new(py, [ids, rows, offsets])
    }

    /// Encodes files read in Rust (no Python string per document): flat ids
    /// and row offsets, as `encode_batch_flat`.
    #[pyo3(signature = (paths, separator="\n", jsonl_field=None, add_special_tokens=true, truncation=None, num_threads=None, mmap=true))]
    #[allow(clippy::too_many_arguments)]
    fn encode_files<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<std::path::PathBuf>,
        separator: &str,
        jsonl_field: Option<String>,
        add_special_tokens: bool,
        truncation: TruncationArg,
        num_threads: Option<usize>,
        mmap: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let trunc = truncation_setting(truncation)?;
        let source = match jsonl_field {
            Some(f) => io::DocSource::JsonlField(f),
            None => io::DocSource::Separated(separator.to_owned()),
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

    fn set_decoder_cleanup(&mut self, cleanup: bool) {
        Arc::make_mut(&mut self.inner).decoder.cleanup = cleanup;
    }

    #[getter]
    fn decoder_cleanup(&self) -> bool {
        self.inner.decoder.cleanup
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id).map(str::to_owned)
    }

    fn get_vocab(&self) -> Vec<String> {
        self.inner.vocab.tokens().to_vec()
    }

    fn vocab_size(&self) -> usize {
        self.inner.vocab.len()
    }

    fn is_special_id(&self, id: u32) -> bool {
        self.inner.is_special_id(id)
    }

    /// Truncation stored in the loaded file: `(max_length, strategy)` or None.
    #[getter]
    fn truncation(&self) -> Option<(usize, &'static str)> {
        self.inner
            .truncation
            .as_ref()
            .map(|t| (t.max_length, t.strategy.name()))
    }

    /// Padding stored in the loaded file, as the padding argument of the encode calls.
    #[getter]
    fn padding(&self) -> PaddingArg {
        self.inner.padding.as_ref().map(|p| {
            let len = match p.length {
                PadLength::Longest => None,
                PadLength::Fixed(n) => Some(n),
            };
            (
                len,
                p.pad_to_multiple_of,
                Some(p.pad_id),
                p.pad_token.clone(),
                p.pad_type_id,
            )
        })
    }
}

/// Counts words of a corpus with the encoder's normalizer and pre-tokenizer.
#[pyclass(module = "wpiece._core", name = "WordCounter")]
pub struct PyWordCounter {
    splitter: WordSplitter,
    counts: WordCounts,
    num_threads: Option<usize>,
}

/// `quality::TextStats` as a tuple: (words, tokens, chars, whole, unknown).
type StatsRow = (u64, u64, u64, u64, u64);

#[pymethods]
impl PyWordCounter {
    #[new]
    #[pyo3(signature = (*, normalize=true, lowercase=true, strip_accents=None, clean_text=true,
        handle_chinese_chars=true, pre_tokenizer="bert", num_threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        normalize: bool,
        lowercase: bool,
        strip_accents: Option<bool>,
        clean_text: bool,
        handle_chinese_chars: bool,
        pre_tokenizer: &str,
        num_threads: Option<usize>,
    ) -> PyResult<Self> {
        parallel::check_threads(num_threads).map_err(to_py)?;
        Ok(Self {
            splitter: WordSplitter {
                normalizer: normalize.then_some(NormalizerConfig {
                    clean_text,
                    handle_chinese_chars,
                    strip_accents,
                    lowercase,
                }),
                pre_tokenizer: self::pre_tokenizer(pre_tokenizer)?,
            },
            counts: WordCounts::default(),
            num_threads,
        })
    }

    /// An empty counter that splits words as `tokenizer` does.
    #[staticmethod]
    #[pyo3(signature = (tokenizer, num_threads=None))]
    fn like(tokenizer: &PyTokenizer, num_threads: Option<usize>) -> PyResult<Self> {
        parallel::check_threads(num_threads).map_err(to_py)?;
        let t = &tokenizer.inner;
        Ok(Self {
            splitter: WordSplitter {
                normalizer: t.normalizer.clone(),
                pre_tokenizer: t.pre_tokenizer,
            },
            counts: WordCounts::default(),
            num_threads,
        })
    }

    /// How `tokenizer`'s model encodes the counted words: `(words, tokens,
    /// chars, whole_words, unknown_words)`, once with the whole vocabulary or,
    /// with `sizes`, once per size with the vocabulary cut to its first n tokens.
    #[pyo3(signature = (tokenizer, sizes=None))]
    fn measure(
        &self,
        py: Python<'_>,
        tokenizer: &PyTokenizer,
        sizes: Option<Vec<usize>>,
    ) -> PyResult<Vec<StatsRow>> {
        let t = &tokenizer.inner;
        let stats = py.allow_threads(|| match &sizes {
            None => Ok(vec![quality::measure(&t.model, &self.counts)]),
            Some(sizes) => quality::curve(t.vocab.tokens(), sizes, &t.model.config, &self.counts),
        });
        Ok(stats
            .map_err(to_py)?
            .into_iter()
            .map(|s| (s.words, s.tokens, s.chars, s.whole_words, s.unknown_words))
            .collect())
    }

    /// Counts the words of documents (the GIL is released while counting).
    fn add_texts(&mut self, py: Python<'_>, texts: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = TextList::extract(texts)?;
        let texts = items.strs()?;
        let (splitter, threads) = (&self.splitter, self.num_threads);
        let part = interruptible(py, text_bytes(&texts), |cancel| {
            parallel::install(threads, || splitter.count_docs(&texts, cancel))?
        })?;
        self.counts.merge(part);
        Ok(())
    }

    /// Counts a text file, plain or `.gz`, one document per line; on an
    /// error or Ctrl-C none of the file is counted.
    fn add_file(&mut self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let (splitter, threads) = (&self.splitter, self.num_threads);
        let part = interruptible(py, usize::MAX, |cancel| {
            let mut part = WordCounts::default();
            parallel::install(threads, || splitter.count_file(&path, &mut part, cancel))??;
            Ok(part)
        })?;
        self.counts.merge(part);
        Ok(())
    }

    /// Adds ready `(word, count)` pairs, taken as words as they are.
    fn add_counts(&mut self, items: Vec<(String, u64)>) -> PyResult<()> {
        for (w, c) in items {
            self.counts.try_add(&w, c).map_err(to_py)?;
        }
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.counts.len()
    }

    /// `(word, count)` pairs in first-appearance order.
    fn items(&self) -> Vec<(String, u64)> {
        self.counts.iter().map(|(w, c)| (w.to_owned(), c)).collect()
    }

    /// Trains; returns `(vocab, merges, alphabet_size, initial_tokens, total_words)`
    /// where each merge is `(left, right, merged, pair_freq, left_freq, right_freq,
    /// tokens_after, added, gain)`. `progress(merges_done, vocab_len)` is called now and then.
    #[pyo3(signature = (*, vocab_size, min_frequency=0, special_tokens, limit_alphabet=None,
        initial_alphabet=Vec::new(), continuing_subword_prefix="##", end_of_word_suffix="",
        score="likelihood", progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        &self,
        py: Python<'_>,
        vocab_size: usize,
        min_frequency: u64,
        special_tokens: Vec<String>,
        limit_alphabet: Option<usize>,
        initial_alphabet: Vec<char>,
        continuing_subword_prefix: &str,
        end_of_word_suffix: &str,
        score: &str,
        progress: Option<PyObject>,
    ) -> PyResult<PyObject> {
        let score = match score {
            "wordpiece" => Score::WordPiece,
            "frequency" => Score::Frequency,
            "likelihood" => Score::Likelihood,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "score must be 'likelihood', 'wordpiece' or 'frequency', got {score:?}"
                )))
            }
        };
        let config = TrainerConfig {
            vocab_size,
            min_frequency,
            special_tokens,
            limit_alphabet,
            initial_alphabet,
            continuing_subword_prefix: continuing_subword_prefix.to_owned(),
            end_of_word_suffix: end_of_word_suffix.to_owned(),
            score,
        };
        // Training runs on this thread: every 50 ms it looks for Ctrl-C (and
        // calls `progress`); an exception from either ends training with it.
        let mut raised: Option<PyErr> = None;
        let out = py.allow_threads(|| {
            let mut last = std::time::Instant::now();
            let mut report = |done: usize, vocab_len: usize| {
                if last.elapsed() < SIGNAL_POLL {
                    return Ok(());
                }
                last = std::time::Instant::now();
                Python::with_gil(|py| {
                    py.check_signals()?;
                    match &progress {
                        Some(cb) if done > 0 => cb.call1(py, (done, vocab_len)).map(drop),
                        _ => Ok(()),
                    }
                })
                .map_err(|e| {
                    raised = Some(e);
                    Error::Interrupted
                })
            };
            let (words, counts): (Vec<&str>, Vec<u64>) = self.counts.iter().unzip();
            guard(|| train::train(&words, &counts, &config, &mut report))
        });
        if let Some(e) = raised {
            return Err(e);
        }
        let out = out?;
        let merges: Vec<_> = out
            .merges
            .into_iter()
            .map(|m| {
                (
                    m.left,
                    m.right,
                    m.merged,
                    m.pair_frequency,
                    m.left_frequency,
                    m.right_frequency,
                    m.tokens_after,
                    m.added,
                    m.gain,
                )
            })
            .collect();
        Ok((
            out.vocab,
            merges,
            out.alphabet_size,
            out.initial_tokens,
            out.total_words,
        )
            .into_pyobject(py)?
            .into_any()
            .unbind())
    }
}

/// Reads a text file as UTF-8 (errors name the file and byte offset).
#[pyfunction]
fn read_text(path: std::path::PathBuf) -> PyResult<String> {
    guard(|| io::read_text(&path))
}

/// Replaces files of a folder as a set (see `io::write_set_atomic`).
#[pyfunction]
fn write_set_atomic(
    dir: std::path::PathBuf,
    files: Vec<(String, Vec<u8>)>,
    stale: Vec<String>,
) -> PyResult<()> {
    guard(|| io::write_set_atomic(&dir, &files, &stale))
}

/// The tokens of a `vocab.txt` file, read exactly as HF reads them.
#[pyfunction]
fn read_vocab_txt(path: std::path::PathBuf) -> PyResult<Vec<String>> {
    guard(|| crate::vocab::vocab_txt_tokens(&io::read_text(&path)?))
}

/// Writes a file atomically (temp file + rename).
#[pyfunction]
fn write_atomic(path: std::path::PathBuf, data: &[u8]) -> PyResult<()> {
    guard(|| io::write_atomic(&path, data))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTokenizer>()?;
    m.add_class::<PyEncoding>()?;
    m.add_class::<PyWordCounter>()?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_vocab_txt, m)?)?;
    m.add_function(wrap_pyfunction!(write_set_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(write_atomic, m)?)?;
    m.add(
        "UnsupportedComponentError",
        m.py().get_type::<UnsupportedComponentError>(),
    )?;
    Ok(())
}
