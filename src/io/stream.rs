//! Documents of a stream, block by block: bytes arriving in pieces of any
//! size (a file read in blocks, with the next read ahead on a thread of its
//! own; a stream Python holds) turned into documents with bounded memory,
//! each block's bytes checked as UTF-8 once and its lines handed on
//! without a copy. Errors name the file or stream and, for bad UTF-8 or
//! JSON, the byte offset or line.

use std::io::Read;
use std::path::Path;

use super::byte_range::{check_rangeable, ByteRange};
use super::documents::{check_file_source, check_separator, for_each_field, range_name, DocSource};
use super::files::{is_gz, open_regular};
use super::parallel_text::{lines_on_every_thread, utf8_on_every_thread};
use super::read_ahead::{read_ahead, HEADROOM};
use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// Documents handed on by a reader: a block of lines as one text (each
/// `str::lines` item a document, for the taker to split on its own threads),
/// or documents one by one.
#[derive(Clone, Copy, Debug)]
pub enum DocBlock<'a> {
    Lines(&'a str),
    Docs(&'a [&'a str]),
}

impl DocBlock<'_> {
    /// The documents one by one (lines split on every thread).
    pub fn with_docs<T>(self, take: impl FnOnce(&[&str]) -> T) -> T {
        match self {
            DocBlock::Lines(text) => take(&lines_on_every_thread(text)),
            DocBlock::Docs(docs) => take(docs),
        }
    }
}

/// Turns bytes, arriving in pieces of any size, into documents: each piece
/// adds to what is pending, and every document it completes is handed on
/// (its bytes checked as UTF-8 once, without a copy for lines).
pub struct DocumentReader {
    source: DocSource,
    /// The file or stream, for error messages.
    name: String,
    /// Bytes read whose document has not ended yet.
    pending: Vec<u8>,
    /// Bytes before `pending`.
    offset: u64,
    /// Lines before `pending` (counted for JSON Lines, whose errors name one).
    line: u64,
    /// Bytes of `pending` known to hold no whole separator: a document
    /// longer than many blocks is searched once, not once per block.
    searched: usize,
}

impl DocumentReader {
    pub fn new(source: DocSource, name: impl Into<String>) -> Result<Self> {
        if let DocSource::Separated(sep) = &source {
            check_separator(sep)?;
        }
        Ok(Self {
            source,
            name: name.into(),
            pending: Vec::new(),
            offset: 0,
            line: 0,
            searched: 0,
        })
    }

    /// A reader whose first byte is byte `offset` of the file (its errors
    /// give offsets in the file).
    pub fn starting_at(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    /// The file or stream read, as errors name it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Adds `bytes`; `docs` gets the documents they complete.
    pub fn push(
        &mut self,
        bytes: &[u8],
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<()> {
        self.pending.extend_from_slice(bytes);
        self.split_pending(false, docs)
    }

    /// Ends the input; `docs` gets the last document, which had no end.
    pub fn finish(&mut self, docs: &mut dyn FnMut(DocBlock) -> Result<()>) -> Result<()> {
        self.split_pending(true, docs)
    }

    /// Reads `input` to its end in blocks of about `block` bytes, handing
    /// `docs` the documents of each block (memory stays near three blocks).
    /// If `ahead` and there is more than one thread, the next block is read
    /// on a thread of its own while `docs` takes this one's: worth it where
    /// reading is work (inflating `.gz`: counting 103 MB on two threads took
    /// a tenth less time), not where it is a copy from the page cache (a
    /// tenth more: the reading thread takes a core from the workers).
    pub fn read_all(
        &mut self,
        input: &mut (dyn Read + Send),
        ahead: bool,
        block: usize,
        cancel: &Cancel,
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<()> {
        if !ahead || rayon::current_num_threads() == 1 {
            return self.read_all_in_turn(input, block, cancel, docs);
        }
        let name = self.name.clone();
        read_ahead(input, block, &name, cancel, |next| {
            let mut spent = None;
            while let Some(mut buf) = next(spent.take())? {
                cancel.check()?;
                if self.pending.len() > HEADROOM {
                    // A document longer than the room before the block:
                    // joined by a copy.
                    self.pending
                        .try_reserve(buf.len() - HEADROOM)
                        .map_err(|_| Error::Memory(format!("{}: out of memory", self.name)))?;
                    self.pending.extend_from_slice(&buf[HEADROOM..]);
                    self.split_pending(false, docs)?;
                } else {
                    // The unfinished document goes in front of the block.
                    let from = HEADROOM - self.pending.len();
                    buf[from..HEADROOM].copy_from_slice(&self.pending);
                    let bytes = &buf[from..];
                    let end = self.split(bytes, false, docs)?;
                    self.pending.clear();
                    self.pending.extend_from_slice(&bytes[end..]);
                }
                spent = Some(buf);
            }
            self.finish(docs)
        })
    }

    /// [`DocumentReader::read_all`], reading each block when the one before
    /// is done.
    fn read_all_in_turn(
        &mut self,
        input: &mut dyn Read,
        block: usize,
        cancel: &Cancel,
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<()> {
        loop {
            cancel.check()?;
            // Room first, so the read goes straight in, in large pieces.
            self.pending
                .try_reserve(block)
                .map_err(|_| Error::Memory(format!("{}: out of memory", self.name)))?;
            let n = input
                .take(block as u64)
                .read_to_end(&mut self.pending)
                .map_err(|e| Error::Io(format!("{}: {e}", self.name)))?;
            if n == 0 {
                break;
            }
            self.split_pending(false, docs)?;
        }
        self.finish(docs)
    }

    /// Hands on the documents that `pending` completes (all of them if
    /// `last`) and drops their bytes.
    fn split_pending(
        &mut self,
        last: bool,
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let done = self.split(&pending, last, docs);
        self.pending = pending;
        self.pending.drain(..done?);
        Ok(())
    }

    /// Hands on the documents that `bytes` (the bytes after what was handed
    /// on so far) completes, all of them if `last`; returns how many bytes
    /// they took.
    fn split(
        &mut self,
        bytes: &[u8],
        last: bool,
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<usize> {
        let sep = match &self.source {
            DocSource::Separated(sep) => sep.as_str(),
            DocSource::JsonlField(_) => "\n",
        };
        // The bytes before `skip` hold no whole separator, so the leftmost
        // match (and those after it) starts at `skip` or later.
        let skip = self.searched.saturating_sub(sep.len() - 1).min(bytes.len());
        let rest = &bytes[skip..];
        let found = if sep.len() == 1 {
            memchr::memrchr(sep.as_bytes()[0], rest)
        } else {
            // The last match left to right, as the whole text splits: a
            // separator that overlaps itself ("\n\n" in "\n\n\n") matches
            // elsewhere from the right, and blocks of another size would
            // give other documents.
            memchr::memmem::find_iter(rest, sep.as_bytes()).last()
        };
        let end = match (last, found) {
            (true, _) => bytes.len(),
            (false, Some(at)) => skip + at + sep.len(),
            (false, None) => 0,
        };
        // What is left after the last separator holds none.
        self.searched = bytes.len() - end;
        if end == 0 {
            return Ok(0);
        }
        let text = utf8_on_every_thread(&bytes[..end]).map_err(|valid_up_to| {
            Error::Value(format!(
                "{}: invalid UTF-8 at byte offset {}",
                self.name,
                self.offset + valid_up_to as u64
            ))
        })?;
        match &self.source {
            DocSource::Separated(sep) if sep == "\n" => docs(DocBlock::Lines(text))?,
            DocSource::Separated(sep) => {
                let mut refs: Vec<&str> = text.split(sep.as_str()).collect();
                // Every part but the last ended with the separator; the last
                // is no document if empty (or, at the end, only whitespace).
                if refs
                    .last()
                    .is_some_and(|t| t.is_empty() || (last && t.trim().is_empty()))
                {
                    refs.pop();
                }
                docs(DocBlock::Docs(&refs))?;
            }
            DocSource::JsonlField(field) => {
                let mut owned = Vec::new();
                let (offset, line) = (self.offset, self.line);
                for_each_field(text, offset, field, &self.name, line, |s| owned.push(s))?;
                let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
                docs(DocBlock::Docs(&refs))?;
                // Only JSON errors name a line: plain text is not counted.
                self.line += memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
            }
        }
        self.offset += end as u64;
        Ok(end)
    }
}

/// Reads the documents of a file (plain or `.gz`), or of the lines of a byte
/// `range` of a plain file, block by block, handing `docs` each block's
/// documents.
pub fn read_file_blocks(
    path: &Path,
    source: &DocSource,
    range: Option<ByteRange>,
    block: usize,
    cancel: &Cancel,
    docs: &mut dyn FnMut(DocBlock) -> Result<()>,
) -> Result<()> {
    check_file_source(path, range, source)?;
    let (mut input, begin) = open_documents_range(path, range, cancel)?;
    let reader = DocumentReader::new(source.clone(), range_name(path, begin))?;
    reader
        .starting_at(begin)
        .read_all(&mut input, is_gz(path), block, cancel, docs)
}

/// A plain file's bytes from the first line of byte `range` to its last
/// (the whole file, `.gz` unpacked, without a range), and where they begin.
pub fn open_documents_range(
    path: &Path,
    range: Option<ByteRange>,
    cancel: &Cancel,
) -> Result<(Box<dyn Read + Send + Sync>, u64)> {
    check_rangeable(path, range)?;
    let Some(range) = range else {
        return Ok((open_documents(path)?, 0));
    };
    let (mut file, meta) = open_regular(path)?;
    let span = range.lines_in_file(&mut file, meta.len(), path, cancel)?;
    let begin = span.start;
    Ok((Box::new(file.take(span.end - span.start)), begin))
}

/// A file's bytes as a stream: decompressed if it is `.gz`.
pub fn open_documents(path: &Path) -> Result<Box<dyn Read + Send + Sync>> {
    let (file, _) = open_regular(path)?;
    // Plain files are read in blocks of megabytes straight into the
    // caller's buffer: a buffer between would only copy them once more.
    Ok(if is_gz(path) {
        let file = std::io::BufReader::with_capacity(1 << 20, file);
        Box::new(flate2::bufread::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The documents of `text` pushed in pieces cut at `cuts`.
    fn pushed(sep: &str, text: &str, cuts: &[usize]) -> Vec<String> {
        let mut reader = DocumentReader::new(DocSource::Separated(sep.into()), "t").unwrap();
        let mut docs = Vec::new();
        let mut take = |b: DocBlock| {
            b.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
            Ok(())
        };
        let mut at = 0;
        for &cut in cuts {
            let cut = cut.clamp(at, text.len());
            reader.push(&text.as_bytes()[at..cut], &mut take).unwrap();
            at = cut;
        }
        reader.push(&text.as_bytes()[at..], &mut take).unwrap();
        reader.finish(&mut take).unwrap();
        docs
    }

    proptest! {
        // A document searched in earlier pushes (the reader skips what it
        // searched) ends where the whole text, pushed at once, ends it,
        // separators that overlap themselves included.
        #[test]
        fn pieces_split_as_the_whole(
            text in "[ab\n]{0,60}",
            sep in prop::sample::select(vec!["\n", "\n\n", "ab", "aa", "aba"]),
            mut cuts in prop::collection::vec(0usize..60, 0..12),
        ) {
            cuts.sort_unstable();
            prop_assert_eq!(pushed(sep, &text, &cuts), pushed(sep, &text, &[]));
        }
    }
}
