//! numpy, imported by the first call that makes an array rather than with
//! the module: importing numpy starts OpenBLAS's threads, which spin on a
//! core for about a tenth of a second (on a two-core machine, half of what
//! counting or training on both cores had), and takes most of
//! `import wpiece`'s time, though training, counting and `Encoding`s never
//! touch an array.
//!
//! The import goes through Python, so that a Ctrl-C or a missing numpy is a
//! `KeyboardInterrupt` or an `ImportError`: rust-numpy's own lookup of the C
//! API, if it had to import numpy itself, would panic on either. Afterwards
//! that lookup only finds the modules in `sys.modules`.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyModuleNotFoundError;
use pyo3::prelude::*;

static READY: AtomicBool = AtomicBool::new(false);

/// Imports numpy and the module holding its C API (numpy 2's, else numpy
/// 1's), then looks the API up. Call before making or reading an array.
pub(crate) fn numpy_ready(py: Python<'_>) -> PyResult<()> {
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    py.import("numpy")?;
    match py.import("numpy._core.multiarray") {
        Ok(_) => {}
        // numpy 1 has no `_core`; any other error (a Ctrl-C) is the caller's.
        Err(e) if e.is_instance_of::<PyModuleNotFoundError>(py) => {
            py.import("numpy.core.multiarray")?;
        }
        Err(e) => return Err(e),
    }
    numpy::PyArray1::<u32>::zeros(py, 0, false);
    READY.store(true, Ordering::Release);
    Ok(())
}
