//! Errors across the boundary: each core `Error` kind becomes its Python
//! exception, and a panic becomes `RuntimeError` (long calls stop on
//! Ctrl-C in `run.rs`).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;

use crate::error::Error;

create_exception!(
    _core,
    UnsupportedComponentError,
    PyValueError,
    "A tokenizer.json component that wpiece cannot reproduce exactly."
);

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
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
}

/// Runs core code so that a Rust panic becomes a Python `RuntimeError`.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(PyErr::from),
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
