//! `Encoding`: the result of encoding one input, its columns copied out on
//! demand and its token strings looked up lazily. An `Encoding` of a batch
//! of single inputs is a row of one shared flat batch: building the batch's
//! Python objects allocates nothing per input but the object itself.

use std::borrow::Cow;
use std::sync::Arc;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

use crate::pipeline::{Encoding, EncodingRows, Tokenizer};

/// Result of encoding one input; tokens are looked up lazily.
#[pyclass(module = "wpiece._core", name = "Encoding", frozen)]
pub struct PyEncoding {
    pub(crate) enc: Source,
    pub(crate) tokens: TokenStrings,
}

// A batch makes one of these per text: kept small (a million texts, 48 MB).
const _: () = assert!(std::mem::size_of::<PyEncoding>() <= 48);

/// Where an encoding's columns live.
pub(crate) enum Source {
    /// Boxed: a batch holds a million `Row`s, each the size of the enum.
    Owned(Box<Encoding>),
    /// Row `row` of a batch of single inputs, made when read.
    Row { rows: Arc<EncodingRows>, row: usize },
}

impl Source {
    /// An encoding of its own (boxed: see the variant).
    pub(crate) fn owned(e: Encoding) -> Self {
        Source::Owned(Box::new(e))
    }

    fn encoding(&self) -> Cow<'_, Encoding> {
        match self {
            Source::Owned(e) => Cow::Borrowed(e),
            Source::Row { rows, row } => Cow::Owned(rows.encoding(*row)),
        }
    }

    fn ids(&self) -> Vec<u32> {
        match self {
            Source::Owned(e) => e.ids.clone(),
            Source::Row { rows, row } => rows.ids(*row),
        }
    }

    fn attention_mask(&self) -> Cow<'_, [u8]> {
        match self {
            Source::Owned(e) => Cow::Borrowed(&e.attention_mask),
            Source::Row { rows, row } => Cow::Owned(rows.attention_mask(*row)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Source::Owned(e) => e.len(),
            Source::Row { rows, row } => rows.len(*row),
        }
    }
}

/// Where an encoding's token strings come from.
#[derive(Clone)]
pub(crate) enum TokenStrings {
    /// Looked up when asked for; padding is named by the pad token (HF names
    /// it so, whatever its id).
    Lazy {
        tok: Arc<Tokenizer>,
        pad_token: Option<Arc<str>>,
    },
    /// Given whole (an unpickled encoding: no tokenizer travels with it):
    /// its own strings, then those of each overflowing part (boxed, as
    /// `Source::Owned`).
    Owned(Box<(Vec<String>, Vec<TokenStrings>)>),
}

/// An encoding as plain values, for pickling (token strings included, so
/// no tokenizer travels with it).
#[derive(IntoPyObject)]
pub(crate) struct EncodingState {
    #[pyo3(item)]
    ids: Vec<u32>,
    #[pyo3(item)]
    type_ids: Vec<u32>,
    #[pyo3(item)]
    tokens: Vec<String>,
    #[pyo3(item)]
    offsets: Vec<(u32, u32)>,
    #[pyo3(item)]
    special_tokens_mask: Vec<u8>,
    #[pyo3(item)]
    attention_mask: Vec<u8>,
    #[pyo3(item)]
    word_ids: Vec<Option<u32>>,
    #[pyo3(item)]
    sequence_ranges: Vec<(usize, usize, usize)>,
    #[pyo3(item)]
    overflowing: Vec<EncodingState>,
}

/// Overflowing parts nest as deep as a template has sequences to merge (two
/// for a pair); a forged state nested thousands deep would exhaust the stack.
const MAX_NESTING: usize = 32;

impl EncodingState {
    /// Reads a pickled state, its overflowing parts at most `MAX_NESTING` deep.
    fn extract(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Self> {
        if depth > MAX_NESTING {
            return Err(PyValueError::new_err(format!(
                "an encoding's overflowing parts nest more than {MAX_NESTING} deep"
            )));
        }
        let item = |key: &str| obj.get_item(key);
        let mut overflowing = Vec::new();
        for part in item("overflowing")?.try_iter()? {
            overflowing.push(Self::extract(&part?, depth + 1)?);
        }
        Ok(Self {
            ids: item("ids")?.extract()?,
            type_ids: item("type_ids")?.extract()?,
            tokens: item("tokens")?.extract()?,
            offsets: item("offsets")?.extract()?,
            special_tokens_mask: item("special_tokens_mask")?.extract()?,
            attention_mask: item("attention_mask")?.extract()?,
            word_ids: item("word_ids")?.extract()?,
            sequence_ranges: item("sequence_ranges")?.extract()?,
            overflowing,
        })
    }

    /// The encoding and its token strings, checked.
    fn into_parts(self) -> PyResult<(Encoding, TokenStrings)> {
        let n = self.ids.len();
        let lens = [
            self.type_ids.len(),
            self.tokens.len(),
            self.offsets.len(),
            self.special_tokens_mask.len(),
            self.attention_mask.len(),
            self.word_ids.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            return Err(PyValueError::new_err(
                "an encoding's columns differ in length",
            ));
        }
        if self.sequence_ranges.iter().any(|&(_, s, e)| s > e || e > n) {
            return Err(PyValueError::new_err(
                "an encoding's sequence range lies outside it",
            ));
        }
        let ids: Vec<usize> = self.sequence_ranges.iter().map(|r| r.0).collect();
        if ids.iter().any(|&id| id > 1) || (ids.len() == 2 && ids[0] == ids[1]) || ids.len() > 2 {
            return Err(PyValueError::new_err(
                "an encoding's sequences are 0 and 1, each with one range",
            ));
        }
        let binary = |m: &[u8]| m.iter().all(|&x| x <= 1);
        if !binary(&self.attention_mask) || !binary(&self.special_tokens_mask) {
            return Err(PyValueError::new_err(
                "an encoding's masks hold 0 and 1 only",
            ));
        }
        let mut overflowing = Vec::new();
        let mut strings = Vec::new();
        for o in self.overflowing {
            let (e, t) = o.into_parts()?;
            overflowing.push(e);
            strings.push(t);
        }
        let e = Encoding {
            ids: self.ids,
            type_ids: self.type_ids,
            offsets: self.offsets,
            special_tokens_mask: self.special_tokens_mask,
            attention_mask: self.attention_mask,
            word_ids: self.word_ids,
            sequence_ranges: self
                .sequence_ranges
                .into_iter()
                .map(|(id, s, e)| (id, s..e))
                .collect(),
            overflowing,
            // The token strings travel whole beside the columns.
            surfaces: Vec::new(),
        };
        Ok((e, TokenStrings::Owned(Box::new((self.tokens, strings)))))
    }
}

impl PyEncoding {
    fn state(&self) -> EncodingState {
        let e = self.enc.encoding();
        EncodingState {
            ids: e.ids.clone(),
            type_ids: e.type_ids.clone(),
            tokens: self.tokens(),
            offsets: e.offsets.clone(),
            special_tokens_mask: e.special_tokens_mask.clone(),
            attention_mask: e.attention_mask.clone(),
            word_ids: e.word_ids.clone(),
            sequence_ranges: e
                .sequence_ranges
                .iter()
                .map(|(s, r)| (*s, r.start, r.end))
                .collect(),
            overflowing: self.overflowing().iter().map(Self::state).collect(),
        }
    }
}

#[pymethods]
impl PyEncoding {
    #[getter]
    fn ids(&self) -> Vec<u32> {
        self.enc.ids()
    }
    #[getter]
    fn type_ids(&self) -> Vec<u32> {
        match &self.enc {
            Source::Owned(e) => e.type_ids.clone(),
            Source::Row { rows, row } => rows.type_ids(*row),
        }
    }
    #[getter]
    fn tokens(&self) -> Vec<String> {
        let (tok, pad_token) = match &self.tokens {
            TokenStrings::Owned(owned) => return owned.0.clone(),
            TokenStrings::Lazy { tok, pad_token } => (tok, pad_token),
        };
        let special = match &self.enc {
            Source::Owned(e) => Cow::Borrowed(&e.special_tokens_mask[..]),
            Source::Row { rows, row } => Cow::Owned(rows.special_tokens_mask(*row)),
        };
        let surface = |k: usize| match &self.enc {
            Source::Owned(e) => e.surface(k),
            Source::Row { .. } => None,
        };
        self.enc
            .ids()
            .iter()
            .zip(self.enc.attention_mask().iter())
            .zip(special.iter())
            .enumerate()
            .map(
                |(k, ((&i, &attended), &special))| match (pad_token, attended) {
                    // Only padding is not attended to.
                    (Some(pad), 0) => pad.to_string(),
                    _ => surface(k)
                        .or_else(|| tok.special_token_string(i, special == 1))
                        .unwrap_or_default()
                        .to_owned(),
                },
            )
            .collect()
    }

    /// The word of each token in its sequence (None: special or padding).
    #[getter]
    fn word_ids(&self) -> Vec<Option<u32>> {
        match &self.enc {
            Source::Owned(e) => e.word_ids.clone(),
            Source::Row { rows, row } => rows.word_ids(*row),
        }
    }

    /// Same as `word_ids` (HF's older name).
    #[getter]
    fn words(&self) -> Vec<Option<u32>> {
        self.word_ids()
    }

    /// The sequence (0 or 1) of each token, None for special and padding tokens.
    #[getter]
    fn sequence_ids(&self) -> Vec<Option<usize>> {
        self.enc.encoding().sequence_ids()
    }

    #[getter]
    fn n_sequences(&self) -> usize {
        self.enc.encoding().n_sequences()
    }

    /// The parts truncation cut off, each an encoding of its own.
    #[getter]
    fn overflowing(&self) -> Vec<PyEncoding> {
        let e = self.enc.encoding();
        e.overflowing
            .iter()
            .enumerate()
            .map(|(i, part)| PyEncoding {
                enc: Source::owned(part.clone()),
                tokens: match &self.tokens {
                    TokenStrings::Lazy { .. } => self.tokens.clone(),
                    TokenStrings::Owned(owned) => owned
                        .1
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| TokenStrings::Owned(Box::default())),
                },
            })
            .collect()
    }

    #[pyo3(signature = (char_pos, sequence_index=None))]
    fn char_to_token(&self, char_pos: Arg<'_>, sequence_index: Opt<'_>) -> PyResult<Option<usize>> {
        let c = index(char_pos, "char_pos", USIZE)?;
        let s = sequence(sequence_index)?;
        Ok(self.enc.encoding().char_to_token(c as usize, s))
    }

    #[pyo3(signature = (char_pos, sequence_index=None))]
    fn char_to_word(&self, char_pos: Arg<'_>, sequence_index: Opt<'_>) -> PyResult<Option<u32>> {
        let c = index(char_pos, "char_pos", USIZE)?;
        let s = sequence(sequence_index)?;
        Ok(self.enc.encoding().char_to_word(c as usize, s))
    }

    fn token_to_chars(&self, token_index: Arg<'_>) -> PyResult<Option<(u32, u32)>> {
        let t = index(token_index, "token_index", USIZE)? as usize;
        Ok(self.enc.encoding().token_to_chars(t).map(|(_, o)| o))
    }

    fn token_to_word(&self, token_index: Arg<'_>) -> PyResult<Option<u32>> {
        let t = index(token_index, "token_index", USIZE)? as usize;
        Ok(self.enc.encoding().token_to_word(t).map(|(_, w)| w))
    }

    fn token_to_sequence(&self, token_index: Arg<'_>) -> PyResult<Option<usize>> {
        let t = index(token_index, "token_index", USIZE)? as usize;
        Ok(self.enc.encoding().token_to_sequence(t))
    }

    #[pyo3(signature = (word_index, sequence_index=None))]
    fn word_to_tokens(
        &self,
        word_index: Arg<'_>,
        sequence_index: Opt<'_>,
    ) -> PyResult<Option<(usize, usize)>> {
        // HF takes word indices as u32, the others as usize.
        let w = index(word_index, "word_index", u32::MAX.into())? as u32;
        let s = sequence(sequence_index)?;
        Ok(self.enc.encoding().word_to_tokens(w, s))
    }

    #[pyo3(signature = (word_index, sequence_index=None))]
    fn word_to_chars(
        &self,
        word_index: Arg<'_>,
        sequence_index: Opt<'_>,
    ) -> PyResult<Option<(u32, u32)>> {
        let w = index(word_index, "word_index", u32::MAX.into())? as u32;
        let s = sequence(sequence_index)?;
        Ok(self.enc.encoding().word_to_chars(w, s))
    }

    /// Rebuilds a pickled encoding (see `__reduce__`).
    #[staticmethod]
    fn _from_state(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (e, tokens) = EncodingState::extract(state, 0)?.into_parts()?;
        Ok(Self {
            enc: Source::owned(e),
            tokens,
        })
    }

    /// Pickles as plain values, token strings included (no tokenizer).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (EncodingState,))> {
        let rebuild = py.get_type::<Self>().getattr("_from_state")?;
        Ok((rebuild, (self.state(),)))
    }

    /// Equal columns and token strings, overflowing parts included (how the
    /// strings are kept, in the encoding or beside it once pickled, aside).
    fn __eq__(&self, other: &Self) -> bool {
        self.enc.encoding().same_values(&other.enc.encoding())
            && self.tokens() == other.tokens()
            && (self.overflowing().iter())
                .zip(&other.overflowing())
                .all(|(a, b)| a.__eq__(b))
    }
    #[getter]
    fn offsets(&self) -> Vec<(u32, u32)> {
        match &self.enc {
            Source::Owned(e) => e.offsets.clone(),
            Source::Row { rows, row } => rows.offsets(*row),
        }
    }
    #[getter]
    fn attention_mask(&self) -> Vec<u32> {
        self.enc
            .attention_mask()
            .iter()
            .map(|&x| x as u32)
            .collect()
    }
    #[getter]
    fn special_tokens_mask(&self) -> Vec<u32> {
        let mask = match &self.enc {
            Source::Owned(e) => Cow::Borrowed(&e.special_tokens_mask[..]),
            Source::Row { rows, row } => Cow::Owned(rows.special_tokens_mask(*row)),
        };
        mask.iter().map(|&x| x as u32).collect()
    }
    fn __len__(&self) -> usize {
        self.enc.len()
    }
    fn __repr__(&self) -> String {
        format!("Encoding(num_tokens={})", self.enc.len())
    }
}

type Arg<'a> = &'a Bound<'a, PyAny>;
type Opt<'a> = Option<&'a Bound<'a, PyAny>>;

/// The largest index HF's usize arguments take.
const USIZE: u64 = usize::MAX as u64;

/// A lookup's index argument: an int (not a bool) in `0..=max`, else a
/// `TypeError` or (as HF) an `OverflowError` naming `name` and the range.
fn index(value: &Bound<'_, PyAny>, name: &str, max: u64) -> PyResult<u64> {
    let kind = || {
        value
            .get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string())
    };
    // Numpy ints count (they have `__index__`); bools and floats do not.
    if value.is_instance_of::<PyBool>() || !value.hasattr("__index__").unwrap_or(false) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {}",
            kind()
        )));
    }
    match value.extract::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(PyOverflowError::new_err(format!(
            "{name} must be at least 0 and at most {max}, got {value}"
        ))),
    }
}

/// `sequence_index`, 0 when not given.
fn sequence(value: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    value.map_or(Ok(0), |v| {
        index(v, "sequence_index", USIZE).map(|n| n as usize)
    })
}
