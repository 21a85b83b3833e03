//! Arrow string columns from Python: the buffers of a pyarrow array arrive
//! as numpy views (no copy, no Python `str` per row) and are read in place
//! by `crate::arrow`, which checks them first.

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use super::numpy_api::numpy_ready;

use crate::arrow::{string_rows, Offsets};
use crate::error::Error;

/// One chunk of a string column: `(offsets, data, validity, offset, length)`
/// as `wpiece.arrow.string_chunks` hands it over.
pub(crate) struct ArrowChunk<'py> {
    offsets32: Option<PyReadonlyArray1<'py, i32>>,
    offsets64: Option<PyReadonlyArray1<'py, i64>>,
    data: PyReadonlyArray1<'py, u8>,
    validity: Option<PyReadonlyArray1<'py, u8>>,
    offset: usize,
    length: usize,
}

impl<'py> ArrowChunk<'py> {
    /// The buffers, taken as numpy arrays once numpy is imported (so that
    /// rust-numpy never imports it itself: see `numpy_api.rs`).
    pub(crate) fn extract(
        offsets: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        validity: Option<&Bound<'py, PyAny>>,
        offset: usize,
        length: usize,
    ) -> PyResult<Self> {
        numpy_ready(offsets.py())?;
        let data: PyReadonlyArray1<'py, u8> = data.extract()?;
        let validity: Option<PyReadonlyArray1<'py, u8>> =
            validity.map(|v| v.extract()).transpose()?;
        let (offsets32, offsets64) = match offsets.extract::<PyReadonlyArray1<'py, i32>>() {
            Ok(o) => (Some(o), None),
            Err(_) => (None, Some(offsets.extract::<PyReadonlyArray1<'py, i64>>()?)),
        };
        for a in [
            offsets32.as_ref().map(|a| a.is_contiguous()),
            offsets64.as_ref().map(|a| a.is_contiguous()),
        ]
        .into_iter()
        .flatten()
        .chain([data.is_contiguous()])
        .chain(validity.as_ref().map(|v| v.is_contiguous()))
        {
            if !a {
                return Err(Error::Value("Arrow buffers must be contiguous".into()).into());
            }
        }
        Ok(Self {
            offsets32,
            offsets64,
            data,
            validity,
            offset,
            length,
        })
    }

    /// The rows, `None` for nulls, checked.
    pub(crate) fn rows(&self) -> PyResult<Vec<Option<&str>>> {
        let offsets = match (&self.offsets32, &self.offsets64) {
            (Some(o), _) => Offsets::I32(o.as_slice()?),
            (_, Some(o)) => Offsets::I64(o.as_slice()?),
            _ => unreachable!("one of the two is set"),
        };
        let validity = self.validity.as_ref().map(|v| v.as_slice()).transpose()?;
        Ok(string_rows(
            offsets,
            self.data.as_slice()?,
            validity,
            self.offset,
            self.length,
        )?)
    }
}
