//! The documents of files and streams for Python, read by the core's one
//! reader (`io::DocumentReader`): Python only resolves paths and hands on
//! the bytes of streams it holds (standard input). A cluster task's part of
//! a file is encoded as it is read.

use std::io::Read;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::numpy_api::numpy_ready;
use super::run::{run, Run};
use super::tokenizer::{encode_flat_padded, flat_arrays, PyTokenizer};
use crate::error::Error;
use crate::io::{open_documents, read_documents, ByteRange, DocBlock, DocSource, DocumentReader};

/// Bytes read per block of a file.
const BLOCK: usize = 1 << 20;

/// The documents of a file (plain or `.gz`; lines or a JSON Lines field),
/// block by block: iterating gives a list of documents per block.
#[pyclass(module = "wpiece._core", name = "FileDocuments")]
pub struct PyFileDocuments {
    input: Box<dyn Read + Send + Sync>,
    reader: DocumentReader,
    done: bool,
    /// The documents of the block read last, until they are handed out: a
    /// Ctrl-C seen after the block was read raises, and the next call gives
    /// them (the file's position has moved past them).
    pending: Vec<String>,
}

#[pymethods]
impl PyFileDocuments {
    #[new]
    #[pyo3(signature = (path, jsonl_field=None))]
    fn new(path: PathBuf, jsonl_field: Option<String>) -> PyResult<Self> {
        let input = open_documents(&path)?;
        let reader = DocumentReader::new(DocSource::of(jsonl_field), path.display().to_string())?;
        Ok(Self {
            input,
            reader,
            done: false,
            pending: Vec::new(),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The documents of the next block that holds any; None at the end.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Vec<String>>> {
        while self.pending.is_empty() && !self.done {
            let (input, reader, done) = (&mut self.input, &mut self.reader, &mut self.done);
            let docs = &mut self.pending;
            // On a pool: a block's lines are split on every thread
            // (`io::parallel_text`), never on rayon's global pool, which a
            // forked child could not use.
            run(py, Run::parallel(BLOCK, None), |_| {
                let mut take = |block: DocBlock| {
                    block.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
                    Ok(())
                };
                let mut block = Vec::with_capacity(BLOCK);
                let n = input
                    .take(BLOCK as u64)
                    .read_to_end(&mut block)
                    .map_err(|e| Error::Io(format!("{}: {e}", reader.name())))?;
                if n == 0 {
                    *done = true;
                    reader.finish(&mut take)
                } else {
                    reader.push(&block, &mut take)
                }
            })?;
        }
        Ok((!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending)))
    }
}

/// Documents of bytes handed in pieces (a stream Python reads): `push`
/// gives the documents each piece completes, `finish` the last one.
#[pyclass(module = "wpiece._core", name = "DocumentReader")]
pub struct PyDocumentReader {
    reader: DocumentReader,
}

#[pymethods]
impl PyDocumentReader {
    #[new]
    #[pyo3(signature = (name, jsonl_field=None))]
    fn new(name: String, jsonl_field: Option<String>) -> PyResult<Self> {
        Ok(Self {
            reader: DocumentReader::new(DocSource::of(jsonl_field), name)?,
        })
    }

    fn push(&mut self, data: &[u8]) -> PyResult<Vec<String>> {
        let mut docs = Vec::new();
        self.reader.push(data, &mut |block| {
            block.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
            Ok(())
        })?;
        Ok(docs)
    }

    fn finish(&mut self) -> PyResult<Vec<String>> {
        let mut docs = Vec::new();
        self.reader.finish(&mut |block| {
            block.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
            Ok(())
        })?;
        Ok(docs)
    }
}

/// The documents of a file, or of the lines of a byte range of a plain
/// file, encoded by `tok` as they are read (mapped, not copied): flat ids,
/// row bounds (int64) and, with `return_offsets`, an (n, 2) array of char
/// offsets, as `Tokenizer.encode_arrow_flat` gives for a column of them.
#[pyfunction]
#[pyo3(signature = (tok, path, jsonl_field=None, byte_range=None, add_special_tokens=true, num_threads=None, return_offsets=false))]
#[allow(clippy::too_many_arguments)]
pub fn encode_file_part<'py>(
    py: Python<'py>,
    tok: PyRef<'py, PyTokenizer>,
    path: PathBuf,
    jsonl_field: Option<String>,
    byte_range: Option<(u64, u64)>,
    add_special_tokens: bool,
    num_threads: Option<usize>,
    return_offsets: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    numpy_ready(py)?;
    let range = byte_range
        .map(|(start, end)| ByteRange::new(start, end))
        .transpose()?;
    let source = DocSource::of(jsonl_field);
    let tok = tok.tokenizer();
    // A part is of any size: always watch for Ctrl-C.
    let flat = run(py, Run::parallel(usize::MAX, num_threads), |cancel| {
        let docs = read_documents(&path, &source, true, range, cancel)?;
        encode_flat_padded(
            &tok,
            &docs.as_strs()?,
            add_special_tokens,
            return_offsets,
            cancel,
        )
    })?;
    let rows: Vec<i64> = flat.rows.into_iter().map(|r| r as i64).collect();
    flat_arrays(py, flat.ids, rows, return_offsets.then_some(flat.offsets))
}
