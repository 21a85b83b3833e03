//! A large plain text file cut into pieces of whole lines that threads
//! claim in order and read on their own, by positioned reads: no thread
//! waits while another reads a block, or for a block to be split among
//! them.
//!
//! A piece holds the lines whose first byte lies in its byte span (the rule
//! of `byte_range`), so consecutive pieces hold every line exactly once
//! wherever the cuts fall. A piece looks for its first line start only
//! inside its own span: a line longer than many pieces is searched once in
//! all, then read once by the piece it starts in.
//!
//! Memory: a thread holds the line it is reading whole, as reading in turn
//! does; with several threads each may hold one, so a file of several lines
//! of hundreds of megabytes peaks at about threads times the longest.

use std::io::Read;
use std::path::Path;

use super::byte_range::ByteRange;
use super::documents::{check_file_source, range_name, DocSource};
use super::files::{is_gz, open_regular};
use super::stream::{DocBlock, DocumentReader};
use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// Files smaller than this are read block by block: pieces would save
/// less than they cost.
const MIN_PIECES_FILE: u64 = 4 << 20;
/// Piece sizes: each is the bytes left over twice the threads (so the last
/// pieces, small, even out the threads' ends), within these bounds.
const LARGEST_PIECE: u64 = 16 << 20;
const SMALLEST_PIECE: u64 = 1 << 20;
/// Bytes read at a time within a piece: a block is counted while it is
/// still in the core's cache.
const PIECE_BLOCK: usize = 512 << 10;

/// The pieces of one file (or of one byte range of it).
pub struct LinePieces {
    file: std::fs::File,
    /// The file (and the range's first line), as errors name it.
    name: String,
    /// Piece k spans bytes `cuts[k]..cuts[k + 1]`.
    cuts: Vec<u64>,
    /// Whether the pieces read on past the end the file had when planned (a
    /// whole file: text appended meanwhile is read, as reading it in turn
    /// reads it): the last piece's span then has no end.
    to_end: bool,
}

/// How to read a file: in pieces, or in turn, block by block (all of it,
/// or the lines of a range: the range asked for, its ends moved to line
/// starts if they were found already).
pub enum Plan {
    Pieces(LinePieces),
    InTurn(Option<ByteRange>),
}

impl Plan {
    /// The pieces, if that is the plan (for the tests).
    #[cfg(test)]
    pub(crate) fn pieces(self) -> Option<LinePieces> {
        match self {
            Plan::Pieces(p) => Some(p),
            Plan::InTurn(_) => None,
        }
    }
}

impl LinePieces {
    /// How to read `path` (the lines of `range`, if given) on `threads`
    /// threads: in pieces, unless they do not apply (`.gz` files, documents
    /// not one per line, fewer than `MIN_PIECES_FILE` bytes, one thread).
    pub fn plan(
        path: &Path,
        source: &DocSource,
        range: Option<ByteRange>,
        threads: usize,
        cancel: &Cancel,
    ) -> Result<Plan> {
        Self::plan_sized(
            path,
            source,
            range,
            threads,
            cancel,
            MIN_PIECES_FILE,
            SMALLEST_PIECE,
        )
    }

    /// [`LinePieces::plan`] with the smallest file and piece given (tests
    /// cut small files into pieces of a few bytes).
    pub fn plan_sized(
        path: &Path,
        source: &DocSource,
        range: Option<ByteRange>,
        threads: usize,
        cancel: &Cancel,
        min_file: u64,
        smallest: u64,
    ) -> Result<Plan> {
        check_file_source(path, range, source)?;
        let lines = matches!(source, DocSource::Separated(sep) if sep == "\n");
        let too_short = range.is_some_and(|r| r.end - r.start < min_file);
        if !lines || is_gz(path) || threads < 2 || too_short {
            return Ok(Plan::InTurn(range));
        }
        let (mut file, meta) = open_regular(path)?;
        let (span, to_end) = match range {
            Some(r) => (r.lines_in_file(&mut file, meta.len(), path, cancel)?, false),
            None => (0..meta.len(), true),
        };
        if span.end - span.start < min_file {
            // Its ends are line starts now: reading it in turn finds them
            // at once, where a long line was searched again.
            let aligned = range.map(|_| ByteRange {
                start: span.start,
                end: span.end,
            });
            return Ok(Plan::InTurn(aligned));
        }
        Ok(Plan::Pieces(Self {
            file,
            name: range_name(path, span.start),
            cuts: cuts(span.clone(), threads, smallest),
            to_end,
        }))
    }

    /// How many pieces there are.
    pub fn len(&self) -> usize {
        self.cuts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads piece `k`, handing `docs` its lines block by block (each
    /// block's lines whole, checked as UTF-8; errors give offsets in the
    /// file, as reading it in turn does).
    pub fn read(
        &self,
        k: usize,
        cancel: &Cancel,
        docs: &mut dyn FnMut(DocBlock) -> Result<()>,
    ) -> Result<()> {
        let (lo, hi) = (self.cuts[k], self.span_end(k));
        let Some(start) = self.first_line_start(lo, hi, cancel)? else {
            return Ok(());
        };
        let mut input = PieceInput {
            file: &self.file,
            at: start,
            // A piece ends with the line that holds its span's last byte,
            // never past the range's end; a whole file's, wherever that is.
            limit: match self.to_end {
                true => u64::MAX,
                false => self.cuts[self.len()],
            },
            ends_after: hi,
            done: false,
        };
        let reader = DocumentReader::new(DocSource::Separated("\n".into()), self.name.clone())?;
        reader
            .starting_at(start)
            .read_all(&mut input, false, PIECE_BLOCK, cancel, docs)
    }

    /// Where piece k's span ends: the next piece's start, or for a whole
    /// file's last piece, nowhere (`u64::MAX`: the file may have grown).
    fn span_end(&self, k: usize) -> u64 {
        match k + 2 == self.cuts.len() && self.to_end {
            true => u64::MAX,
            false => self.cuts[k + 1],
        }
    }

    /// The first line start in `lo..hi`, if any: the piece's span's first
    /// byte if a line ends just before it, else just after the first
    /// newline in `lo - 1..hi - 1` (the piece's span, searched alone).
    fn first_line_start(&self, lo: u64, hi: u64, cancel: &Cancel) -> Result<Option<u64>> {
        if lo == self.cuts[0] {
            return Ok(Some(lo));
        }
        let mut block = vec![0u8; 64 << 10];
        let mut at = lo - 1;
        while at < hi - 1 {
            cancel.check()?;
            let want = block.len().min((hi - 1 - at) as usize);
            let n = read_at(&self.file, &mut block[..want], at)
                .map_err(|e| Error::Io(format!("{}: {e}", self.name)))?;
            if n == 0 {
                return Ok(None);
            }
            if let Some(i) = memchr::memchr(b'\n', &block[..n]) {
                return Ok(Some(at + i as u64 + 1));
            }
            at += n as u64;
        }
        Ok(None)
    }
}

/// Where the pieces of `span` begin, and where the last ends: each piece
/// the bytes left over twice the threads, from `LARGEST_PIECE` (or
/// `smallest`, if larger) down to `smallest`.
fn cuts(span: std::ops::Range<u64>, threads: usize, smallest: u64) -> Vec<u64> {
    let (smallest, threads) = (smallest.max(1), threads.max(1) as u64);
    let largest = LARGEST_PIECE.max(smallest);
    let mut cuts = vec![span.start];
    let mut at = span.start;
    while at < span.end {
        let size = ((span.end - at) / (2 * threads)).clamp(smallest, largest);
        at = (at + size).min(span.end);
        cuts.push(at);
    }
    cuts
}

/// One piece's bytes as a stream: from its first line start to the end of
/// the line that holds byte `ends_after - 1` (the first newline at or
/// after it), never past `limit`.
struct PieceInput<'a> {
    file: &'a std::fs::File,
    at: u64,
    limit: u64,
    ends_after: u64,
    done: bool,
}

impl Read for PieceInput<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = (buf.len() as u64).min(self.limit.saturating_sub(self.at)) as usize;
        if self.done || want == 0 {
            return Ok(0);
        }
        let mut n = read_at(self.file, &mut buf[..want], self.at)?;
        // Where the piece's last newline may be, within what was just read.
        let from = self.ends_after.saturating_sub(1).max(self.at) - self.at;
        if from < n as u64 {
            let from = from as usize;
            if let Some(i) = memchr::memchr(b'\n', &buf[from..n]) {
                n = from + i + 1;
                self.done = true;
            }
        }
        self.done |= n == 0;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
thread_local! {
    /// Bytes this thread read by `read_at`, for the tests.
    static READ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    loop {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(file, buf, at);
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(file, buf, at);
        match n {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            #[cfg(test)]
            Ok(n) => {
                READ.with(|r| r.set(r.get() + n as u64));
                return Ok(n);
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A file of the tests', removed with its folder when dropped.
    struct TempFile(std::path::PathBuf);

    impl TempFile {
        fn new(tag: &str, bytes: &[u8]) -> Self {
            let dir =
                std::env::temp_dir().join(format!("wpiece-pieces-{}-{tag}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(tag);
            std::fs::write(&path, bytes).unwrap();
            Self(path)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
        }
    }

    /// Every piece's documents in order, or the first error met.
    fn pieces_docs(pieces: &LinePieces) -> Result<Vec<String>> {
        let mut docs = Vec::new();
        for k in 0..pieces.len() {
            pieces.read(k, Cancel::never(), &mut |block| {
                block.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
                Ok(())
            })?;
        }
        Ok(docs)
    }

    /// The documents (or the error) of reading the file in turn.
    fn in_turn(path: &Path, range: Option<ByteRange>) -> Result<Vec<String>> {
        let mut docs = Vec::new();
        let source = DocSource::of(None);
        crate::io::read_file_blocks(path, &source, range, 7, Cancel::never(), &mut |block| {
            block.with_docs(|d| docs.extend(d.iter().map(|s| s.to_string())));
            Ok(())
        })?;
        Ok(docs)
    }

    fn plan(path: &Path, range: Option<ByteRange>, threads: usize, smallest: u64) -> LinePieces {
        let source = DocSource::of(None);
        LinePieces::plan_sized(path, &source, range, threads, Cancel::never(), 0, smallest)
            .unwrap()
            .pieces()
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        // Pieces of any size (a byte and up) of any text (long lines, blank
        // ones, CRLF, no newline at the end, bad UTF-8), whole or by byte
        // range, give the documents of reading in turn, or its error.
        #[test]
        fn pieces_read_as_the_file_read_in_turn(
            lines in prop::collection::vec(
                prop_oneof![
                    "[a\u{e9} ]{0,3}",
                    "x{20,90}",
                    Just("\r".to_string()),
                    Just(String::new()),
                ],
                0..30,
            ),
            open_end in any::<bool>(),
            bad in prop::option::of(0usize..400),
            smallest in 1u64..40,
            threads in 2usize..5,
            range in prop::option::of((0u64..500, 0u64..500)),
        ) {
            let mut bytes = lines.join("\n").into_bytes();
            if !open_end && !bytes.is_empty() {
                bytes.push(b'\n');
            }
            if let Some(at) = bad.filter(|&b| b < bytes.len()) {
                bytes[at] = 0xFF;
            }
            let file = TempFile::new("prop.txt", &bytes);
            let path = &file.0;
            let range = range.map(|(a, b)| ByteRange::new(a.min(b), a.max(b)).unwrap());
            let pieces = plan(path, range, threads, smallest);
            let (got, want) = (pieces_docs(&pieces), in_turn(path, range));
            match (got, want) {
                (Ok(g), Ok(w)) => prop_assert_eq!(g, w),
                (Err(g), Err(w)) => prop_assert_eq!(g.to_string(), w.to_string()),
                (g, w) => prop_assert!(false, "{:?} against {:?}", g, w),
            }
        }
    }

    #[test]
    fn pieces_go_from_large_to_small_and_cover_the_span() {
        for (span, threads) in [
            (0..100 << 20, 2),
            (7..(300 << 20) + 3, 4),
            (5..6, 2),
            (9..9, 2),
        ] {
            let c = cuts(span.clone(), threads, SMALLEST_PIECE);
            assert_eq!((c[0], *c.last().unwrap()), (span.start, span.end));
            let sizes: Vec<u64> = c.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(sizes.iter().all(|&s| s > 0 && s <= LARGEST_PIECE));
            // Non-increasing, but for the last, cut short by the span's end.
            let body = &sizes[..sizes.len().saturating_sub(1)];
            assert!(body.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
            if span.end - span.start > 100 << 20 {
                assert_eq!(sizes[0], LARGEST_PIECE);
                assert!(body.iter().rev().take(3).all(|&s| s == SMALLEST_PIECE));
            }
        }
    }

    #[test]
    fn a_long_line_cut_by_many_pieces_is_searched_once() {
        // One line of 3 MiB, cut into 64 KiB pieces: every piece but the
        // first finds no line start in its span and reads nothing more.
        let mut bytes = vec![b'x'; 3 << 20];
        bytes.extend_from_slice(b"\nend\n");
        let file = TempFile::new("long.txt", &bytes);
        let pieces = plan(&file.0, None, 2, 64 << 10);
        assert!(pieces.len() >= 10, "{}", pieces.len());
        READ.with(|r| r.set(0));
        let mut first = Vec::new();
        for k in 0..pieces.len() {
            let mut lines = 0;
            pieces
                .read(k, Cancel::never(), &mut |b| {
                    b.with_docs(|d| lines += d.len());
                    Ok(())
                })
                .unwrap();
            first.push(lines);
        }
        assert_eq!(first[0], 1);
        assert_eq!(first.iter().sum::<usize>(), 2);
        // The line read once by its piece, once by the others' searches.
        let read = READ.with(|r| r.get());
        assert!(read <= 2 * bytes.len() as u64 + (2 << 20), "{read}");
        // A piece's search for its first line start stays in its span.
        let (lo, hi) = (pieces.cuts[3], pieces.cuts[4]);
        assert_eq!(
            pieces.first_line_start(lo, hi, Cancel::never()).unwrap(),
            None
        );
    }

    #[test]
    fn gz_other_separators_small_files_and_one_thread_take_no_pieces() {
        let file = TempFile::new("p.txt", b"a\nb\n");
        let path = &file.0;
        let lines = DocSource::of(None);
        let never = Cancel::never();
        let plan = |p: &Path, s: &DocSource, t, min| {
            LinePieces::plan_sized(p, s, None, t, never, min, 1)
                .unwrap()
                .pieces()
        };
        assert!(plan(path, &lines, 2, 0).is_some());
        assert!(plan(path, &lines, 2, 5).is_none());
        assert!(plan(path, &lines, 1, 0).is_none());
        assert!(plan(path, &DocSource::Separated("\n\n".into()), 2, 0).is_none());
        assert!(plan(path, &DocSource::of(Some("t".into())), 2, 0).is_none());
        let gz = TempFile::new("p.txt.gz", b"not read");
        assert!(plan(&gz.0, &lines, 2, 0).is_none());
        // A missing file is the error reading it would give.
        let missing = path.with_file_name("missing.txt");
        let err = LinePieces::plan(&missing, &lines, None, 2, never)
            .err()
            .unwrap();
        assert!(matches!(err, Error::NotFound(_)), "{err}");
    }

    #[test]
    fn text_appended_after_planning_is_read_as_reading_in_turn_reads_it() {
        // The last pieces are a byte or a few, inside the last line: the
        // last piece finds no line start where the file ended when planned,
        // and must look on past that end for lines appended since.
        let bodies: [&[u8]; 4] = [
            b"a b\nlast line",
            b"a b\nlast line\n",
            b"x\n",
            b"no newline",
        ];
        let appended: [&[u8]; 4] = [b"", b" more", b" more\nZZ appended\n", b"\n\nZZ\r\nend"];
        for body in bodies {
            for extra in appended {
                for threads in [2, 3] {
                    let file = TempFile::new("grows.txt", &body.repeat(7));
                    let pieces = plan(&file.0, None, threads, 1);
                    let mut f = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&file.0)
                        .unwrap();
                    std::io::Write::write_all(&mut f, extra).unwrap();
                    let want = in_turn(&file.0, None).unwrap();
                    assert_eq!(pieces_docs(&pieces).unwrap(), want, "{body:?} + {extra:?}");
                }
            }
        }
    }

    #[test]
    fn a_short_range_is_read_in_turn_with_its_ends_found_once() {
        let mut bytes = vec![b'x'; 1 << 16];
        bytes.extend_from_slice(b"\nsecond\nthird line\n");
        let file = TempFile::new("short.txt", &bytes);
        let source = DocSource::of(None);
        let never = Cancel::never();
        let plan = |r: ByteRange, min| {
            LinePieces::plan_sized(&file.0, &source, Some(r), 2, never, min, 1).unwrap()
        };
        // Shorter than the least file for pieces: not looked at, as asked.
        let short = ByteRange::new(10, 20).unwrap();
        assert!(matches!(plan(short, 11), Plan::InTurn(Some(r)) if r == short));
        // Long enough to look at, too short once its ends are line starts:
        // read in turn from those starts, which hold the same lines.
        let inside = ByteRange::new(10, (1 << 16) + 5).unwrap();
        let Plan::InTurn(Some(aligned)) = plan(inside, 100) else {
            panic!("not read in turn")
        };
        assert_eq!((aligned.start, aligned.end), ((1 << 16) + 1, (1 << 16) + 8));
        assert_eq!(
            in_turn(&file.0, Some(aligned)).unwrap(),
            in_turn(&file.0, Some(inside)).unwrap()
        );
        assert_eq!(
            in_turn(&file.0, Some(aligned)).unwrap(),
            vec!["second".to_string()]
        );
    }

    #[test]
    fn reading_a_piece_stops_when_told() {
        let bytes = b"one line\n".repeat(1000);
        let file = TempFile::new("stop.txt", &bytes);
        let pieces = plan(&file.0, None, 2, 100);
        let stop = Cancel::new();
        stop.cancel();
        let got = pieces.read(1, &stop, &mut |_| Ok(()));
        assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
    }
}
