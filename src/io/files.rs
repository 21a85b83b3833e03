//! Files: refusing what is not a regular file, reading a whole text file,
//! and atomic writes of one file or a set.

use std::io::{Read, Write};
use std::path::Path;

use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// Tokenizer files larger than this are refused: no real one comes near it,
/// and reading an endless device must stop somewhere.
pub const MAX_TOKENIZER_FILE: u64 = 1 << 30;

/// Opens a regular file for reading. Folders, FIFOs, devices and sockets are
/// refused before they are opened (a FIFO without a writer would block
/// forever, `/dev/zero` never ends), and the file is opened without blocking
/// and checked again, in case it was swapped meanwhile.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, std::fs::Metadata)> {
    let check = |meta: &std::fs::Metadata| -> Result<()> {
        if meta.is_dir() {
            let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
            return Err(Error::io(path, e));
        }
        if !meta.is_file() {
            return Err(Error::Value(format!(
                "{} is not a regular file ({})",
                path.display(),
                file_kind(meta)
            )));
        }
        Ok(())
    };
    check(&std::fs::metadata(path).map_err(|e| Error::io(path, e))?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    check(&meta)?;
    Ok((file, meta))
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    let _ = meta;
    "not a file"
}

/// Reads a UTF-8 text file of at most `MAX_TOKENIZER_FILE` bytes; errors
/// name the file (and the byte offset for bad UTF-8).
pub fn read_text(path: &Path) -> Result<String> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > MAX_TOKENIZER_FILE {
        return Err(Error::Value(format!(
            "{} has {} bytes; tokenizer files of more than {MAX_TOKENIZER_FILE} are refused",
            path.display(),
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that grew since it was checked.
    file.take(MAX_TOKENIZER_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_TOKENIZER_FILE {
        return Err(Error::Value(format!(
            "{} grew past {MAX_TOKENIZER_FILE} bytes while it was read",
            path.display()
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::Value(format!(
            "{}: invalid UTF-8 at byte offset {}",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Reads to the end, growing the buffer fallibly: a `.gz` that unpacks to
/// more than memory holds is a `MemoryError`, not an abort. Polls `cancel`.
pub(super) fn read_to_end_fallibly(
    mut reader: impl std::io::Read,
    path: &Path,
    cancel: &Cancel,
) -> Result<Vec<u8>> {
    const BLOCK: usize = 4 << 20;
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        cancel.check()?;
        bytes.try_reserve(BLOCK).map_err(|_| {
            Error::Memory(format!(
                "{}: cannot hold its contents in memory ({} bytes read so far)",
                path.display(),
                bytes.len()
            ))
        })?;
        let n = (&mut reader)
            .take(BLOCK as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// Where a write to `path` lands: `path` itself, or, for a symlink, the file
/// it points to (the link stays a link). An empty path is refused.
fn write_target(path: &Path) -> Result<std::path::PathBuf> {
    if path.as_os_str().is_empty() {
        return Err(Error::Value("the output path is empty".into()));
    }
    let target = if path.is_symlink() {
        std::fs::canonicalize(path).map_err(|e| {
            Error::Value(format!(
                "{} is a symbolic link that leads nowhere ({e})",
                path.display()
            ))
        })?
    } else {
        path.to_path_buf()
    };
    match std::fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
            Err(Error::io(path, e))
        }
        // A rename would put a regular file in place of /dev/null (as root)
        // or of a FIFO another program reads.
        Ok(m) if !m.is_file() => Err(Error::Value(format!(
            "{} is not a regular file (a device, FIFO or socket); only files are replaced",
            path.display()
        ))),
        _ => Ok(target),
    }
}

/// A temporary name beside `target`, unique in this process.
fn temp_beside(target: &Path) -> Result<std::path::PathBuf> {
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::Value(format!("not a file path: {}", target.display())))?;
    let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // At most 64 chars of the target's name: a legal name near the 255-byte
    // limit must not make the temp name illegal.
    let name: String = name.to_string_lossy().chars().take(64).collect();
    Ok(dir.join(format!(".{name}.{}-{serial}.tmp", std::process::id())))
}

/// Bytes written between two looks at the caller's `keep_going` (Ctrl-C):
/// a few milliseconds of writing.
const WRITE_CHUNK: usize = 4 << 20;

/// Asked between chunks of a write, and once more before the first rename:
/// an error stops the write, and the temporary files go.
pub type KeepGoing<'a> = &'a mut dyn FnMut() -> Result<()>;

/// Writes `data` to a new temporary file beside `target`, synced to disk, with
/// the mode of the file it will replace (if any). Removed again on failure.
fn stage(target: &Path, data: &[u8], keep_going: KeepGoing<'_>) -> Result<std::path::PathBuf> {
    let tmp = temp_beside(target)?;
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io(target, e))?;
        for chunk in data.chunks(WRITE_CHUNK) {
            keep_going()?;
            f.write_all(chunk).map_err(|e| Error::io(target, e))?;
        }
        if let Ok(old) = std::fs::metadata(target) {
            f.set_permissions(old.permissions())
                .map_err(|e| Error::io(target, e))?;
        }
        f.sync_all().map_err(|e| Error::io(target, e))
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// Writes `data` to a temporary file beside `path`, then renames it over
/// `path`, so readers never see a half-written file. A symlink is written
/// through (its target is replaced), the mode of a replaced file is kept.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_watched(path, data, &mut || Ok(()))
}

/// [`write_atomic`], asking `keep_going` between chunks and before the
/// rename: stopped, it leaves the old file and no temporary one.
pub fn write_atomic_watched(path: &Path, data: &[u8], keep_going: KeepGoing<'_>) -> Result<()> {
    let target = write_target(path)?;
    let tmp = stage(&target, data, keep_going)?;
    let renamed =
        keep_going().and_then(|()| std::fs::rename(&tmp, &target).map_err(|e| Error::io(path, e)));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// A file written under a temporary name beside its target and not yet
/// renamed over it: [`Staged::commit`] renames it, dropping it removes it.
/// For work written on a worker thread whose caller decides, after a last
/// look for Ctrl-C, whether it lands.
#[derive(Debug)]
pub struct Staged {
    tmp: Option<std::path::PathBuf>,
    target: std::path::PathBuf,
    path: std::path::PathBuf,
}

impl Staged {
    /// Writes `data` for `path` (see [`write_atomic`]), asking `keep_going`
    /// between chunks.
    pub fn write(path: &Path, data: &[u8], keep_going: KeepGoing<'_>) -> Result<Self> {
        let target = write_target(path)?;
        let tmp = stage(&target, data, keep_going)?;
        Ok(Self {
            tmp: Some(tmp),
            target,
            path: path.to_path_buf(),
        })
    }

    /// Renames the file over its target.
    pub fn commit(mut self) -> Result<()> {
        let tmp = self.tmp.take().expect("staged once, committed once");
        std::fs::rename(&tmp, &self.target).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::io(&self.path, e)
        })
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Replaces a set of files in folder `dir` (made if missing): every new file
/// is written and synced under a temporary name first, so a failure (a full
/// disk, Ctrl-C seen by `keep_going`) leaves the old set untouched. Then they
/// are renamed into place in the given order, and the files of `stale` (the
/// old set's files the new one lacks) are removed. Put the file readers look
/// for first last, and remove stale ones after: a reader that looks for it
/// sees the old set until the new one is whole.
pub fn write_set_atomic(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    stale: &[String],
    keep_going: KeepGoing<'_>,
) -> Result<()> {
    if dir.as_os_str().is_empty() {
        return Err(Error::Value("the output folder is empty".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut staged: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::new();
    let remove_staged = |staged: &[(std::path::PathBuf, std::path::PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for (name, data) in files {
        let target =
            write_target(&dir.join(name)).and_then(|t| Ok((stage(&t, data, &mut *keep_going)?, t)));
        match target {
            Ok(pair) => staged.push(pair),
            Err(e) => {
                remove_staged(&staged);
                return Err(e);
            }
        }
    }
    if let Err(e) = keep_going() {
        remove_staged(&staged);
        return Err(e);
    }
    for (k, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            remove_staged(&staged[k..]);
            return Err(Error::io(target, e));
        }
    }
    for name in stale {
        match std::fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(&dir.join(name), e))
            }
            Err(_) => {}
            // A subfolder of the set that held only stale files goes too
            // (it fails, harmlessly, while anything is left in it).
            Ok(()) => {
                if let Some(sub) = Path::new(name)
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                {
                    let _ = std::fs::remove_dir(dir.join(sub));
                }
            }
        }
    }
    Ok(())
}

/// Whether the file name says gzip: `.gz` in any case (as Python's
/// `_file_parts` decides which files are read whole).
pub(super) fn is_gz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}
