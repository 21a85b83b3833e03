//! `Encoding`: the result of encoding one input, its columns copied out on
//! demand and its token strings looked up lazily. An `Encoding` of a batch
//! of single inputs is a row of one shared flat batch: building the batch's
//! Python objects allocates nothing per input but the object itself.

use std::borrow::Cow;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::pipeline::{Encoding, EncodingRows, Tokenizer};

/// Result of encoding one input; tokens are looked up lazily.
#[pyclass(module = "wpiece._core", name = "Encoding", frozen)]
pub struct PyEncoding {
    pub(crate) enc: Source,
    pub(crate) tokens: TokenStrings,
}

/// Where an encoding's columns live.
pub(crate) enum Source {
    Owned(Encoding),
    /// Row `row` of a batch of single inputs, made when read.
    Row {
        rows: Arc<EncodingRows>,
        row: usize,
    },
}

impl Source {
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
pub(crate) enum TokenStrings {
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
            TokenStrings::Owned(tokens) => return tokens.clone(),
            TokenStrings::Lazy { tok, pad_token } => (tok, pad_token),
        };
        self.enc
            .ids()
            .iter()
            .zip(self.enc.attention_mask().iter())
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
            enc: Source::Owned(Encoding {
                ids,
                type_ids,
                offsets,
                special_tokens_mask,
                attention_mask,
            }),
            tokens: TokenStrings::Owned(tokens),
        })
    }

    /// Pickles as plain values, token strings included (no tokenizer).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (EncodingState,))> {
        let rebuild = py.get_type::<Self>().getattr("_from_state")?;
        let e = self.enc.encoding().into_owned();
        let state = (
            e.ids,
            e.type_ids,
            self.tokens(),
            e.offsets,
            e.special_tokens_mask,
            e.attention_mask,
        );
        Ok((rebuild, (state,)))
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.enc.encoding() == other.enc.encoding() && self.tokens() == other.tokens()
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
