//! File helpers the Python layer writes and reads through: UTF-8 checked
//! reads and atomic writes.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::errors::guard;
use crate::io;
use crate::model::vocab::vocab_txt_tokens;

/// Reads a text file as UTF-8 (errors name the file and byte offset).
#[pyfunction]
pub(crate) fn read_text(path: PathBuf) -> PyResult<String> {
    guard(|| io::read_text(&path))
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
pub(crate) fn read_vocab_txt(path: PathBuf) -> PyResult<Vec<String>> {
    guard(|| vocab_txt_tokens(&io::read_text(&path)?))
}

/// Writes a file atomically (temp file + rename).
#[pyfunction]
pub(crate) fn write_atomic(path: PathBuf, data: &[u8]) -> PyResult<()> {
    guard(|| io::write_atomic(&path, data))
}
