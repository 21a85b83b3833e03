//! The documents of files and streams for Python, read by the core's one
//! reader (`io::DocumentReader`): Python only resolves paths and hands on
//! the bytes of streams it holds (standard input).

use std::io::Read;
use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

use super::numpy_api::numpy_ready;
use super::run::{run, Run};
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
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The documents of the next block that holds any; None at the end.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Vec<String>>> {
        while !self.done {
            let (input, reader, done) = (&mut self.input, &mut self.reader, &mut self.done);
            let docs = run(py, Run::serial(BLOCK), |_| {
                let mut docs = Vec::new();
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
                    reader.finish(&mut take)?;
                } else {
                    reader.push(&block, &mut take)?;
                }
                Ok(docs)
            })?;
            if !docs.is_empty() {
                return Ok(Some(docs));
            }
        }
        Ok(None)
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

/// An Arrow large string array's buffers: int64 row offsets, UTF-8 bytes.
type StringBuffers<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u8>>);

/// The documents of a file, or of the lines of a byte range of a plain file,
/// as the buffers of an Arrow large string array: `(offsets, data)`, int64
/// row offsets into the UTF-8 bytes of the documents laid end to end. One
/// copy of the text, made in Rust; no Python `str` per document.
#[pyfunction]
#[pyo3(signature = (path, jsonl_field=None, byte_range=None))]
pub fn documents_arrow<'py>(
    py: Python<'py>,
    path: PathBuf,
    jsonl_field: Option<String>,
    byte_range: Option<(u64, u64)>,
) -> PyResult<StringBuffers<'py>> {
    numpy_ready(py)?;
    let range = byte_range
        .map(|(start, end)| ByteRange::new(start, end))
        .transpose()?;
    let source = DocSource::of(jsonl_field);
    // What is read: watched for Ctrl-C when large (a `.gz` of any size is).
    let size = std::fs::metadata(&path).map_or(u64::MAX, |m| m.len());
    let bytes = match range {
        _ if path.extension().is_some_and(|e| e == "gz") => u64::MAX,
        Some(r) => r.end.min(size).saturating_sub(r.start),
        None => size,
    };
    let how = Run::serial(usize::try_from(bytes).unwrap_or(usize::MAX));
    let (offsets, data) = run(py, how, |cancel| {
        let docs = read_documents(&path, &source, true, range, cancel)?;
        let docs = docs.as_strs()?;
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let mut data: Vec<u8> = Vec::new();
        let mut offsets: Vec<i64> = Vec::new();
        data.try_reserve_exact(bytes)
            .and_then(|()| offsets.try_reserve_exact(docs.len() + 1))
            .map_err(|_| Error::Memory(format!("{}: out of memory", path.display())))?;
        offsets.push(0);
        for (k, d) in docs.iter().enumerate() {
            if k % 65_536 == 0 {
                cancel.check()?;
            }
            data.extend_from_slice(d.as_bytes());
            offsets.push(data.len() as i64);
        }
        Ok((offsets, data))
    })?;
    Ok((offsets.into_pyarray(py), data.into_pyarray(py)))
}
