//! Parts of a plain file by byte range, for spreading one large file over
//! the workers of a cluster. A range `[start, end)` holds the lines whose
//! first byte lies in it, so consecutive ranges hold every line exactly
//! once, wherever they are cut (the rule of Hadoop's line reader).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::files::is_gz;
use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// A byte range of a file; see the module's rule for the lines it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

impl ByteRange {
    /// A range; `start` after `end` is refused.
    pub fn new(start: u64, end: u64) -> Result<Self> {
        if start > end {
            return Err(Error::Value(format!(
                "a byte range cannot start after it ends (start {start}, end {end})"
            )));
        }
        Ok(Self { start, end })
    }

    /// The bytes of `bytes` (a whole file) this range's lines take.
    pub fn lines_in(&self, bytes: &[u8]) -> std::ops::Range<usize> {
        let at = |pos: u64| -> usize {
            let pos = pos.min(bytes.len() as u64) as usize;
            if pos == 0 || pos == bytes.len() {
                return pos;
            }
            // The first line start at or after `pos`: just after the first
            // newline at or after `pos - 1`.
            memchr::memchr(b'\n', &bytes[pos - 1..]).map_or(bytes.len(), |i| pos + i)
        };
        at(self.start)..at(self.end)
    }

    /// The bytes of the open file `file` (`len` bytes long) this range's
    /// lines take, found by reading from the range's two ends to the next
    /// newline (a long line costs reading it, nothing else does; `cancel` is
    /// polled as it goes).
    pub fn lines_in_file(
        &self,
        file: &mut (impl Read + Seek),
        len: u64,
        path: &Path,
        cancel: &Cancel,
    ) -> Result<std::ops::Range<u64>> {
        let mut at = |pos: u64| -> Result<u64> {
            let pos = pos.min(len);
            if pos == 0 || pos == len {
                return Ok(pos);
            }
            file.seek(SeekFrom::Start(pos - 1))
                .map_err(|e| Error::io(path, e))?;
            let mut block = vec![0u8; 64 << 10];
            let mut read = pos - 1;
            loop {
                cancel.check()?;
                let n = file.read(&mut block).map_err(|e| Error::io(path, e))?;
                if n == 0 {
                    return Ok(len);
                }
                if let Some(i) = memchr::memchr(b'\n', &block[..n]) {
                    return Ok((read + i as u64 + 1).min(len));
                }
                read += n as u64;
            }
        };
        let (begin, finish) = (at(self.start)?, at(self.end)?);
        file.seek(SeekFrom::Start(begin))
            .map_err(|e| Error::io(path, e))?;
        Ok(begin..finish)
    }
}

/// Ranges apply to plain files only: a `.gz` stream cannot be entered in
/// the middle.
pub fn check_rangeable(path: &Path, range: Option<ByteRange>) -> Result<()> {
    if range.is_some() && is_gz(path) {
        return Err(Error::Value(format!(
            "{}: a .gz file cannot be read by byte range (read it whole)",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{read_documents, read_file_blocks, DocBlock, DocSource};

    /// The lines a plain reference gives the range: those starting in it.
    fn plain(bytes: &[u8], r: ByteRange) -> Vec<&[u8]> {
        let mut lines = Vec::new();
        let mut start = 0usize;
        while start < bytes.len() {
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| start + i + 1);
            if (r.start..r.end).contains(&(start as u64)) {
                lines.push(&bytes[start..end]);
            }
            start = end;
        }
        lines
    }

    fn lines(bytes: &[u8]) -> Vec<&[u8]> {
        bytes.split_inclusive(|&b| b == b'\n').collect()
    }

    #[test]
    fn every_cut_of_every_file_holds_the_lines_that_start_in_it() {
        let files: [&[u8]; 6] = [
            b"",
            b"\n",
            b"a",
            b"one\ntwo\n\nthree",
            b"\n\n\nx\n",
            b"long line here\nb\nccc\n",
        ];
        for bytes in files {
            let path = Path::new("t.txt");
            let n = bytes.len() as u64;
            for start in 0..=n + 1 {
                for end in start..=n + 2 {
                    let r = ByteRange::new(start, end).unwrap();
                    let span = r.lines_in(bytes);
                    assert_eq!(lines(&bytes[span.clone()]), plain(bytes, r), "{r:?}");
                    let mut file = std::io::Cursor::new(bytes);
                    let in_file = r
                        .lines_in_file(&mut file, n, path, Cancel::never())
                        .unwrap();
                    assert_eq!(in_file, span.start as u64..span.end as u64);
                    assert_eq!(file.position(), in_file.start);
                }
            }
            // Any cut into three parts holds each line once.
            for a in 0..=n {
                for b in a..=n {
                    let mut all = Vec::new();
                    for (s, e) in [(0, a), (a, b), (b, n)] {
                        let span = ByteRange::new(s, e).unwrap().lines_in(bytes);
                        all.extend(lines(&bytes[span]));
                    }
                    assert_eq!(all, lines(bytes));
                }
            }
        }
    }

    #[test]
    fn looking_for_a_line_start_stops_when_told() {
        // One line of 1 MiB: the range's start is inside it.
        let bytes = vec![b'x'; 1 << 20];
        let stop = Cancel::new();
        stop.cancel();
        let mut file = std::io::Cursor::new(&bytes);
        let r = ByteRange::new(10, 20).unwrap();
        let got = r.lines_in_file(&mut file, bytes.len() as u64, Path::new("x"), &stop);
        assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
        let all = r.lines_in_file(
            &mut file,
            bytes.len() as u64,
            Path::new("x"),
            Cancel::never(),
        );
        assert_eq!(all.unwrap(), bytes.len() as u64..bytes.len() as u64);
    }

    #[test]
    fn a_reversed_range_and_a_gz_range_are_refused() {
        assert!(ByteRange::new(5, 4).is_err());
        let r = Some(ByteRange::new(0, 4).unwrap());
        assert!(check_rangeable(Path::new("a.txt.gz"), r).is_err());
        assert!(check_rangeable(Path::new("a.txt"), r).is_ok());
        assert!(check_rangeable(Path::new("a.txt.gz"), None).is_ok());
    }

    #[test]
    fn the_byte_ranges_of_a_file_hold_its_documents_once_each_in_every_reader() {
        let dir = std::env::temp_dir().join(format!("wpiece-io-{}-ranges", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases: [(&str, &[u8], DocSource); 3] = [
            (
                "r.txt",
                "one\r\ntwo\n\nthré\nlast".as_bytes(),
                DocSource::of(None),
            ),
            ("e.txt", b"\n\n", DocSource::of(None)),
            (
                "r.jsonl",
                b"{\"t\": \"a b\"}\n\n{\"t\": \"c\"}\n{\"t\": \"d\"}\n",
                DocSource::of(Some("t".into())),
            ),
        ];
        for (name, content, source) in cases {
            let path = dir.join(name);
            std::fs::write(&path, content).unwrap();
            let whole: Vec<String> = read_documents(&path, &source, true, None, Cancel::never())
                .unwrap()
                .as_strs()
                .unwrap()
                .iter()
                .map(|s| s.to_string())
                .collect();
            let n = content.len() as u64;
            for cut in 0..=n + 1 {
                let parts = [
                    ByteRange::new(0, cut).unwrap(),
                    ByteRange::new(cut, n + 1).unwrap(),
                ];
                for mmap in [true, false] {
                    let mut got: Vec<String> = Vec::new();
                    for r in parts {
                        let d = read_documents(&path, &source, mmap, Some(r), Cancel::never());
                        got.extend(d.unwrap().as_strs().unwrap().iter().map(|s| s.to_string()));
                    }
                    assert_eq!(got, whole, "{name} cut at {cut}, mmap {mmap}");
                }
                let mut got: Vec<String> = Vec::new();
                for r in parts {
                    let mut take = |block: DocBlock| {
                        block.with_docs(|d| got.extend(d.iter().map(|s| s.to_string())));
                        Ok(())
                    };
                    read_file_blocks(&path, &source, Some(r), 3, Cancel::never(), &mut take)
                        .unwrap();
                }
                assert_eq!(got, whole, "{name} cut at {cut}, in blocks");
            }
        }
        // Errors in a range give the offset in the file, and the part's start.
        let path = dir.join("bad.txt");
        std::fs::write(&path, b"fine\nfine\nbad \xff\n").unwrap();
        let range = Some(ByteRange::new(6, 100).unwrap());
        let source = DocSource::of(None);
        let err = read_documents(&path, &source, true, range, Cancel::never())
            .and_then(|d| d.as_strs().map(|_| ()))
            .unwrap_err();
        assert!(err.to_string().contains("byte offset 14"), "{err}");
        let err = read_file_blocks(&path, &source, range, 4, Cancel::never(), &mut |_| Ok(()))
            .unwrap_err();
        assert!(err.to_string().contains("byte offset 14"), "{err}");
        let path = dir.join("bad.jsonl");
        std::fs::write(&path, b"{\"t\": \"a\"}\n{\"t\": 1}\n").unwrap();
        let source = DocSource::of(Some("t".into()));
        let range = Some(ByteRange::new(3, 100).unwrap());
        let err = read_documents(&path, &source, true, range, Cancel::never())
            .err()
            .expect("a field that is no string");
        assert!(err.to_string().contains("(from byte 11):1:"), "{err}");
        // A JSON Lines part read whole (mapped) gives the file's offset too.
        std::fs::write(&path, b"{\"t\": \"a\"}\n{\"t\": \"\xff\"}\n").unwrap();
        let err = read_documents(&path, &source, true, range, Cancel::never())
            .err()
            .expect("bad UTF-8");
        assert!(err.to_string().contains("byte offset 18"), "{err}");
        // Other separators and .gz files cannot be cut.
        let sep = DocSource::Separated("<s>".into());
        let path = dir.join("r.txt");
        assert!(read_documents(&path, &sep, true, range, Cancel::never()).is_err());
        assert!(read_file_blocks(&path, &sep, range, 4, Cancel::never(), &mut |_| Ok(())).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
