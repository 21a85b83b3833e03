//! Documents: the one reader of the formats documents come in, for
//! counting, `encode_files` and training. A document is a line of a plain
//! or `.gz` text file (or the part between a chosen separator), or the
//! string field of each line of a JSON Lines file. Whole files can be
//! memory-mapped and split in place ([`read_documents`]); files and streams
//! of any size are read block by block with bounded memory (`stream.rs`).
//! Errors name the file and, for bad UTF-8 or JSON, the byte offset or
//! line.

use std::path::Path;

use serde_json::Value;

use super::byte_range::{check_rangeable, ByteRange};
use super::files::{is_gz, open_regular, read_to_end_fallibly};
use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// Where the documents of a file are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocSource {
    /// Text split at a separator (`"\n"`: one document per line).
    Separated(String),
    /// JSON Lines; each line's string `field` is a document.
    JsonlField(String),
}

impl DocSource {
    /// Lines, or with a field, JSON Lines.
    pub fn of(jsonl_field: Option<String>) -> Self {
        match jsonl_field {
            Some(field) => DocSource::JsonlField(field),
            None => DocSource::Separated("\n".into()),
        }
    }
}

/// A file's bytes: mapped from disk (plain files) or decompressed (`.gz`).
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// The documents of a file: its bytes and, for each document, a byte range of
/// them (or, for JSON Lines, the extracted strings).
pub enum Documents {
    Ranges {
        path: std::path::PathBuf,
        bytes: FileBytes,
        /// The bytes read (all of them, or a byte range's lines).
        span: std::ops::Range<usize>,
        ranges: Vec<(usize, usize)>,
    },
    Owned(Vec<String>),
}

impl Documents {
    /// The documents as text; the file's bytes are checked to be UTF-8 here,
    /// once, without copying them.
    pub fn as_strs(&self) -> Result<Vec<&str>> {
        match self {
            Documents::Ranges {
                path,
                bytes,
                span,
                ranges,
            } => {
                let text = utf8_span(path, bytes, span.clone())?;
                let base = span.start;
                Ok(ranges
                    .iter()
                    .map(|&(a, b)| &text[a - base..b - base])
                    .collect())
            }
            Documents::Owned(docs) => Ok(docs.iter().map(String::as_str).collect()),
        }
    }
}

/// `bytes[span]` as text; an error gives the offset in the whole file.
fn utf8_span<'a>(path: &Path, bytes: &'a [u8], span: std::ops::Range<usize>) -> Result<&'a str> {
    let start = span.start;
    std::str::from_utf8(&bytes[span]).map_err(|e| {
        Error::Value(format!(
            "{}: invalid UTF-8 at byte offset {}",
            path.display(),
            start + e.valid_up_to()
        ))
    })
}

/// A file's bytes: regular files are memory-mapped if `mmap` (no copy into
/// the heap; the kernel reads ahead as we go), else read; `.gz` files are
/// decompressed into memory.
pub fn read_bytes(path: &Path, mmap: bool, cancel: &Cancel) -> Result<FileBytes> {
    let (file, meta) = open_regular(path)?;
    let gz = is_gz(path);
    // Empty files cannot be mapped: they are read.
    if gz || !mmap || meta.len() == 0 {
        let bytes = if gz {
            read_to_end_fallibly(flate2::read::MultiGzDecoder::new(file), path, cancel)
        } else {
            read_to_end_fallibly(std::io::BufReader::new(file), path, cancel)
        }?;
        return Ok(FileBytes::Read(bytes));
    }
    // SAFETY: the map is only read, and its bytes are checked to be UTF-8
    // before any `&str` is made of them. No check can exclude another process
    // changing the file while it is mapped: truncating it kills the process
    // (SIGBUS), rewriting it in place breaks the UTF-8 check. That is the
    // contract of every memory map; the Python API documents it and offers
    // `mmap=False`.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(FileBytes::Mapped(map))
}

/// Reads the documents of a file (plain or `.gz`; mapped if `mmap`) without
/// copying them one by one, or with `range`, the lines of that byte range of
/// a plain file (lines only: the separator must be a newline); errors name
/// the file and, for bad UTF-8 or JSON, the byte offset or line.
pub fn read_documents(
    path: &Path,
    source: &DocSource,
    mmap: bool,
    range: Option<ByteRange>,
    cancel: &Cancel,
) -> Result<Documents> {
    check_file_source(path, range, source)?;
    let bytes = read_bytes(path, mmap, cancel)?;
    let span = range.map_or(0..bytes.len(), |r| r.lines_in(&bytes));
    let sep = match source {
        DocSource::Separated(sep) => sep.as_str(),
        DocSource::JsonlField(field) => {
            let text = utf8_span(path, &bytes, span.clone())?;
            let mut docs = Vec::new();
            let name = range_name(path, span.start as u64);
            for_each_field(text, span.start as u64, field, &name, 0, |s| docs.push(s))?;
            return Ok(Documents::Owned(docs));
        }
    };
    check_separator(sep)?;
    // Ranges on bytes: the separator is valid UTF-8, so in valid UTF-8 text
    // every match lies on char boundaries.
    let mut ranges = Vec::new();
    let mut start = span.start;
    for at in memchr::memmem::find_iter(&bytes[span.clone()], sep.as_bytes()) {
        let at = span.start + at;
        ranges.push((start, at));
        start = at + sep.len();
    }
    let ended = ranges.len();
    if start < span.end {
        ranges.push((start, span.end));
    }
    if sep == "\n" {
        // As `str::lines`: a line that ends may end in "\r\n".
        for r in &mut ranges[..ended] {
            if bytes[r.0..r.1].ends_with(b"\r") {
                r.1 -= 1;
            }
        }
    } else if ranges
        .last()
        .is_some_and(|&(a, b)| std::str::from_utf8(&bytes[a..b]).is_ok_and(|t| t.trim().is_empty()))
    {
        ranges.pop();
    }
    Ok(Documents::Ranges {
        path: path.to_path_buf(),
        bytes,
        span,
        ranges,
    })
}

/// A file as errors name it; a part starting at byte `begin` says so (the
/// lines JSON errors give count from there).
pub(super) fn range_name(path: &Path, begin: u64) -> String {
    match begin {
        0 => path.display().to_string(),
        _ => format!("{} (from byte {begin})", path.display()),
    }
}

/// The names that say JSON Lines, in lower case (`ndjson` is the same
/// format under another name), plain or gzipped.
const JSON_LINES_SUFFIXES: [&str; 4] = [".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz"];

/// Whether the file name says JSON Lines, in any case (as Python's
/// `documents.is_jsonl`).
pub(super) fn is_json_lines_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase());
    name.is_some_and(|n| JSON_LINES_SUFFIXES.iter().any(|s| n.ends_with(s)))
}

/// Whether `source` can read `path`: a JSON Lines file (`.jsonl`,
/// `.ndjson`, gzipped or not) only by the field holding its text (its lines
/// are JSON, not text); a byte range holds lines (of text or JSON), of plain
/// files only.
pub(super) fn check_file_source(
    path: &Path,
    range: Option<ByteRange>,
    source: &DocSource,
) -> Result<()> {
    if is_json_lines_name(path) && matches!(source, DocSource::Separated(_)) {
        return Err(Error::Value(format!(
            "{}: JSON Lines input needs the name of the field holding the text (jsonl_field)",
            path.display()
        )));
    }
    check_rangeable(path, range)?;
    match (range, source) {
        (Some(_), DocSource::Separated(sep)) if sep != "\n" => Err(Error::Value(
            "a byte range holds lines: its documents cannot end at another separator".into(),
        )),
        _ => Ok(()),
    }
}

pub(super) fn check_separator(sep: &str) -> Result<()> {
    if sep.is_empty() {
        return Err(Error::Value(
            "the document separator cannot be empty".into(),
        ));
    }
    Ok(())
}

/// The string `field` of each non-blank line of `text` (JSON Lines), in
/// order; `first_line` lines came before `text` (for error messages). A
/// byte order mark opening the file (`text` starts at byte `offset` of it)
/// is skipped, as Arrow's and pandas' JSON readers skip it.
pub(super) fn for_each_field(
    text: &str,
    offset: u64,
    field: &str,
    name: &str,
    first_line: u64,
    mut doc: impl FnMut(String),
) -> Result<()> {
    let text = match offset {
        0 => text.strip_prefix('\u{feff}').unwrap_or(text),
        _ => text,
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = first_line + n as u64 + 1;
        let value: Value = serde_json::from_str(line)
            .map_err(|e| Error::Value(format!("{name}:{at}: invalid JSON ({e})")))?;
        match value.get(field) {
            Some(Value::String(s)) => doc(s.clone()),
            Some(other) => {
                let kind = match other {
                    Value::Null => "null",
                    Value::Bool(_) => "bool",
                    Value::Number(n) if n.is_f64() => "float",
                    Value::Number(_) => "int",
                    Value::Array(_) => "list",
                    Value::Object(_) => "dict",
                    Value::String(_) => "str",
                };
                return Err(Error::Value(format!(
                    "{name}:{at}: field '{field}' is not a string (it is {kind})"
                )));
            }
            None => {
                return Err(Error::Value(format!(
                    "{name}:{at}: no string field '{field}'"
                )))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::stream::{DocBlock, DocumentReader};
    use super::*;

    fn docs(content: &[u8], name: &str, sep: &str) -> Result<Vec<String>> {
        let dir = std::env::temp_dir().join(format!("wpiece-io-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let read = |mmap| {
            read_documents(
                &path,
                &DocSource::Separated(sep.into()),
                mmap,
                None,
                Cancel::never(),
            )
            .and_then(|d| Ok(d.as_strs()?.iter().map(|s| s.to_string()).collect()))
        };
        let got: Result<Vec<String>> = read(true);
        if let (Ok(mapped), Ok(read)) = (&got, read(false)) {
            assert_eq!(mapped, &read);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        got
    }

    #[test]
    fn mapped_files_split_like_lines() {
        assert_eq!(
            docs(b"one\r\ntwo\n\nthree", "a.txt", "\n").unwrap(),
            ["one", "two", "", "three"]
        );
        assert_eq!(docs(b"", "empty.txt", "\n").unwrap(), Vec::<String>::new());
        // A last part of only (Unicode) whitespace is no document.
        assert_eq!(
            docs("a<s>b<s>\u{a0}\n".as_bytes(), "b.txt", "<s>").unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            docs("é<s>ü".as_bytes(), "c.txt", "<s>").unwrap(),
            ["é", "ü"]
        );
    }

    #[test]
    fn bad_files_give_errors_naming_them() {
        let err = docs(b"fine\n\xff\n", "bad.txt", "\n").unwrap_err();
        assert!(
            matches!(&err, Error::Value(m) if m.ends_with("bad.txt: invalid UTF-8 at byte offset 5")),
            "{err}"
        );
        let dir = std::env::temp_dir();
        let err = read_documents(
            &dir,
            &DocSource::Separated("\n".into()),
            true,
            None,
            Cancel::never(),
        )
        .err();
        assert!(matches!(err, Some(Error::IsADirectory(_))), "{err:?}");
        let missing = dir.join("wpiece-no-such-file.txt");
        let err = read_documents(
            &missing,
            &DocSource::Separated("\n".into()),
            true,
            None,
            Cancel::never(),
        )
        .err();
        assert!(matches!(err, Some(Error::NotFound(_))), "{err:?}");
    }

    #[test]
    fn pieces_of_any_size_give_the_documents_of_the_whole_file() {
        let cases: [(&[u8], &str); 6] = [
            (b"one\r\ntwo\n\nthree\r", "\n"),
            ("é\nüx\n\n".as_bytes(), "\n"),
            ("a<s>b<s>\u{a0}\n".as_bytes(), "<s>"),
            (b"<s><s>a<s>", "<s>"),
            (b"", "\n"),
            (b"\n", "\n"),
        ];
        for (content, sep) in cases {
            let whole = docs(content, "p.txt", sep).unwrap();
            for piece in 1..=content.len().max(1) {
                let source = DocSource::Separated(sep.into());
                let mut reader = DocumentReader::new(source, "p.txt").unwrap();
                let mut got: Vec<String> = Vec::new();
                let mut take = |block: DocBlock| {
                    block.with_docs(|d| got.extend(d.iter().map(|s| s.to_string())));
                    Ok(())
                };
                for chunk in content.chunks(piece) {
                    reader.push(chunk, &mut take).unwrap();
                }
                reader.finish(&mut take).unwrap();
                assert_eq!(got, whole, "{content:?} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn a_byte_order_mark_opening_json_lines_is_skipped_there_only() {
        let bom = "\u{feff}".as_bytes();
        let file = [bom, b"{\"text\": \"a\"}\n{\"text\": \"\xef\xbb\xbfb\"}\n"].concat();
        let source = DocSource::JsonlField("text".into());
        let want = ["a", "\u{feff}b"];
        // Block by block, the mark split across blocks too.
        for block in [1, 2, 3, 1 << 16] {
            let mut reader = DocumentReader::new(source.clone(), "d.jsonl").unwrap();
            let mut got: Vec<String> = Vec::new();
            let mut take = |b: DocBlock| {
                b.with_docs(|d| got.extend(d.iter().map(|s| s.to_string())));
                Ok(())
            };
            for piece in file.chunks(block) {
                reader.push(piece, &mut take).unwrap();
            }
            reader.finish(&mut take).unwrap();
            assert_eq!(got, want, "blocks of {block}");
        }
        let dir = std::env::temp_dir().join(format!("wpiece-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bom.jsonl");
        std::fs::write(&path, &file).unwrap();
        for mmap in [true, false] {
            let docs = read_documents(&path, &source, mmap, None, Cancel::never()).unwrap();
            assert_eq!(docs.as_strs().unwrap(), want);
        }
        // Anywhere else it is what it is: not JSON.
        std::fs::write(&path, [b"{\"text\": \"a\"}\n", bom, b"{}\n"].concat()).unwrap();
        let err = read_documents(&path, &source, true, None, Cancel::never()).err();
        assert!(
            matches!(&err, Some(Error::Value(m)) if m.contains("bom.jsonl:2: invalid JSON")),
            "{err:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_lines_and_bad_bytes_name_the_line_or_offset() {
        let source = DocSource::JsonlField("text".into());
        let mut reader = DocumentReader::new(source, "d.jsonl").unwrap();
        let mut got: Vec<String> = Vec::new();
        let mut take = |block: DocBlock| {
            block.with_docs(|d| got.extend(d.iter().map(|s| s.to_string())));
            Ok(())
        };
        reader
            .push(b"{\"text\": \"a\"}\n\n{\"te", &mut take)
            .unwrap();
        reader
            .push(b"xt\": \"b\"}\n{\"text\": 3}\n", &mut take)
            .unwrap_err();
        assert_eq!(got, ["a"]);
        let err = DocumentReader::new(DocSource::JsonlField("text".into()), "d.jsonl")
            .unwrap()
            .push(b"{}\n{\"text\": 3}\n", &mut |_| Ok(()))
            .unwrap_err();
        assert_eq!(err.to_string(), "d.jsonl:1: no string field 'text'");
        let mut lines = DocumentReader::new(DocSource::Separated("\n".into()), "x").unwrap();
        lines.push(b"ok\n", &mut |_| Ok(())).unwrap();
        let err = lines.push(b"\xff\n", &mut |_| Ok(())).unwrap_err();
        assert_eq!(err.to_string(), "x: invalid UTF-8 at byte offset 3");
    }

    #[test]
    fn json_lines_files_are_read_only_by_their_field() {
        let dir = std::env::temp_dir().join(format!("wpiece-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines = DocSource::of(None);
        let field = DocSource::of(Some("text".into()));
        for (name, refused) in [
            ("d.jsonl", true),
            ("d.jsonl.gz", true),
            ("D.JSONL", true),
            ("d.Jsonl.gz", true),
            ("d.ndjson", true),
            ("D.NDJSON.GZ", true),
            ("d.txt", false),
            ("jsonl", false),
            ("d.jsonl.txt", false),
            ("d.ndjson.txt", false),
            ("d.json", false),
        ] {
            let path = dir.join(name);
            let err = check_file_source(&path, None, &lines).err();
            assert_eq!(err.is_some(), refused, "{name}");
            if let Some(err) = err {
                let message = err.to_string();
                assert!(
                    message.starts_with(&path.display().to_string()),
                    "{message}"
                );
                assert!(message.contains("needs the name of the field"), "{message}");
            }
            assert!(check_file_source(&path, None, &field).is_ok(), "{name}");
        }
        // Every reader of a path asks: mapped, in blocks, in pieces.
        let path = dir.join("d.jsonl");
        std::fs::write(&path, "{\"text\": \"a b\"}\n".repeat(64)).unwrap();
        let never = Cancel::never();
        assert!(read_documents(&path, &lines, true, None, never).is_err());
        let mut seen = 0;
        let mut blocks = |_: DocBlock| {
            seen += 1;
            Ok(())
        };
        let blocked =
            super::super::stream::read_file_blocks(&path, &lines, None, 64, never, &mut blocks);
        assert!(blocked.is_err());
        let planned =
            super::super::line_pieces::LinePieces::plan_sized(&path, &lines, None, 2, never, 1, 1);
        assert!(planned.is_err());
        let docs = read_documents(&path, &field, true, None, never).unwrap();
        assert_eq!(docs.as_strs().unwrap().len(), 64);
        assert_eq!(seen, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
