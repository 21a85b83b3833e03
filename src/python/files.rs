//! File helpers the Python layer writes and reads through: UTF-8 checked
//! reads and atomic writes.

use std::path::PathBuf;

use pyo3::prelude::*;

use pyo3::types::PyList;

use super::errors::guard;
use super::run::{run, watched_list, Run};
use crate::io;
use crate::model::vocab::vocab_txt_tokens;

/// Reads a text file as UTF-8 (errors name the file and byte offset).
#[pyfunction]
pub(crate) fn read_text(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    run(py, Run::serial(usize::MAX), |_| io::read_text(&path))
}

/// Replaces files of a folder as a set (see `io::write_set_atomic`).
#[pyfunction]
pub(crate) fn write_set_atomic(
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
    stale: Vec<String>,
) -> PyResult<()> {
    guard(|| io::write_set_atomic(&dir, &files, &stale))
}

/// The tokens of a `vocab.txt` file, read exactly as HF reads them.
#[pyfunction]
pub(crate) fn read_vocab_txt(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyList>> {
    let tokens = run(py, Run::serial(usize::MAX), |_| {
        vocab_txt_tokens(&io::read_text(&path)?)
    })?;
    watched_list(py, tokens)
}

/// Writes a file atomically (temp file + rename).
#[pyfunction]
pub(crate) fn write_atomic(path: PathBuf, data: &[u8]) -> PyResult<()> {
    guard(|| io::write_atomic(&path, data))
}
