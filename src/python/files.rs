//! File helpers the Python layer writes and reads through: UTF-8 checked
//! reads and atomic writes.

use std::path::PathBuf;

use pyo3::prelude::*;

use pyo3::types::PyList;

use super::run::{run, watched_list, watching_signals, Run};
use crate::io;
use crate::model::vocab::vocab_txt_tokens;

/// Reads a text file as UTF-8 (errors name the file and byte offset).
#[pyfunction]
pub(crate) fn read_text(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    // On a pool: a large file is checked as UTF-8 on every thread.
    run(py, Run::parallel(usize::MAX, None), |_| {
        io::read_text(&path)
    })
}

/// Replaces files of a folder as a set (see `io::write_set_atomic`),
/// looking for Ctrl-C between chunks: interrupted, the old set stays.
#[pyfunction]
pub(crate) fn write_set_atomic(
    py: Python<'_>,
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
    stale: Vec<String>,
) -> PyResult<()> {
    watching_signals(py, |keep_going| {
        io::write_set_atomic(&dir, &files, &stale, keep_going)
    })
}

/// The tokens of a `vocab.txt` file, read exactly as HF reads them.
#[pyfunction]
pub(crate) fn read_vocab_txt(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyList>> {
    let tokens = run(py, Run::serial(usize::MAX), |_| {
        vocab_txt_tokens(&io::read_text(&path)?)
    })?;
    watched_list(py, tokens)
}

/// Writes a file atomically (temp file + rename), looking for Ctrl-C
/// between chunks: interrupted, the old file stays.
#[pyfunction]
pub(crate) fn write_atomic(py: Python<'_>, path: PathBuf, data: &[u8]) -> PyResult<()> {
    watching_signals(py, |keep_going| {
        io::write_atomic_watched(&path, data, keep_going)
    })
}
