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
    /// A folder where a file was expected (Python `IsADirectoryError`).
    IsADirectory(String),
    /// No permission (Python `PermissionError`).
    PermissionDenied(String),
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
            | Error::IsADirectory(m)
            | Error::PermissionDenied(m)
            | Error::Io(m)
            | Error::Memory(m)
            | Error::Overflow(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Wraps an I/O error, naming the path it concerns (and, for a missing
    /// file, whether it is the file or its folder that is missing).
    pub fn io(path: &std::path::Path, e: std::io::Error) -> Self {
        use std::io::ErrorKind;
        let p = path.display();
        match e.kind() {
            ErrorKind::NotFound => match path.parent() {
                Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
                    Error::NotFound(format!("no such folder: {}", dir.display()))
                }
                _ => Error::NotFound(format!("no such file: {p}")),
            },
            ErrorKind::IsADirectory => Error::IsADirectory(format!("{p} is a folder, not a file")),
            ErrorKind::PermissionDenied => {
                Error::PermissionDenied(format!("{p}: permission denied"))
            }
            ErrorKind::InvalidData => Error::Value(format!("{p}: {e}")),
            _ => Error::Io(format!("{p}: {e}")),
        }
    }
}
