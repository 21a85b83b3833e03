//! Errors across the boundary: each core `Error` kind becomes its Python
//! exception, a panic becomes `RuntimeError`, and long calls stop on Ctrl-C.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;

use crate::cancel::Cancel;
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

/// Inputs smaller than this finish in milliseconds: they run inline, without
/// a watcher for Ctrl-C (which costs a thread start).
const INTERRUPTIBLE_BYTES: usize = 256 << 10;

/// How often a long call looks for Ctrl-C.
pub(crate) const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` with the GIL released. Large inputs (`bytes`) run on a scoped
/// thread while this one checks for signals every 50 ms: on Ctrl-C the work
/// is told to stop (it polls its `Cancel` between documents), and once it
/// has, the signal's exception (`KeyboardInterrupt`) is raised.
pub(crate) fn interruptible<T: Send>(
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
