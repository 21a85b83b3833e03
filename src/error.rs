//! Errors of the core; the binding layer maps each kind to a Python exception.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Bad value or bad file content (Python `ValueError`).
    Value(String),
    /// A configuration we cannot honour exactly (Python `UnsupportedComponentError`).
    Unsupported(String),
    /// Missing file (Python `FileNotFoundError`).
    NotFound(String),
    /// Other I/O failure (Python `OSError`).
    Io(String),
    /// A size asked for that memory cannot hold (Python `MemoryError`).
    Memory(String),
    /// A sum that does not fit in 64 bits (Python `OverflowError`).
    Overflow(String),
    /// The caller asked the work to stop (Ctrl-C: Python `KeyboardInterrupt`).
    Interrupted,
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Value(m)
            | Error::Unsupported(m)
            | Error::NotFound(m)
            | Error::Io(m)
            | Error::Memory(m)
            | Error::Overflow(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Wraps an I/O error, naming the path it concerns.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> Self {
        let p = path.display();
        match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(format!("no such file: {p}")),
            std::io::ErrorKind::InvalidData => Error::Value(format!("{p}: {e}")),
            _ => Error::Io(format!("{p}: {e}")),
        }
    }
}
