//! Reading ahead: a stream's next block read on a thread of its own while
//! the caller works on the one before. Reading a block is a copy out of the
//! page cache (or a gzip inflate) during which every worker thread waited.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::sync_channel;

use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// Bytes left free (zero) before each block read ahead: the unfinished end of
/// the block before it is put there, in front of the block, without moving it.
pub(super) const HEADROOM: usize = 64 << 10;

/// The size of the first block read ahead.
const FIRST_BLOCK: usize = 1 << 20;

/// Gives `work` a source of `input`'s blocks, each `HEADROOM` bytes of
/// room and then up to `block` bytes read (`None` at the end; the first
/// blocks smaller), read on another thread one block ahead of `work`. Each
/// call hands back the block before (if any) to be read into again: a new
/// buffer per block paid its page faults every time. At most three blocks
/// exist at once: one in `work`'s hands, one waiting, one being read. When
/// `work` returns, early or not, the reading thread stops after its read at
/// most. Without a thread to read on, `work` reads in turn.
pub(super) fn read_ahead<T>(
    input: &mut (dyn Read + Send),
    block: usize,
    name: &str,
    cancel: &Cancel,
    work: impl FnOnce(&mut dyn FnMut(Option<Vec<u8>>) -> Result<Option<Vec<u8>>>) -> Result<T>,
) -> Result<T> {
    // Shared with the reading thread, or read here if none can be had.
    let input = std::sync::Mutex::new(input);
    // Blocks start small and double up to `block`: the work waits for the
    // first read, and each read after is hidden behind the work before it.
    let size = AtomicUsize::new(FIRST_BLOCK.min(block));
    let read = |spent: Option<Vec<u8>>| -> Result<Option<Vec<u8>>> {
        cancel.check()?;
        let size = size
            .fetch_update(Relaxed, Relaxed, |s| Some(s.saturating_mul(2).min(block)))
            .unwrap_or(block);
        let mut buf = spent
            .filter(|b| b.capacity() >= HEADROOM + size)
            .unwrap_or_default();
        buf.clear();
        buf.try_reserve_exact(HEADROOM + size)
            .map_err(|_| Error::Memory(format!("{name}: out of memory")))?;
        buf.extend_from_slice(&[0; HEADROOM]);
        let mut input = input
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let n = (&mut **input)
            .take(size as u64)
            .read_to_end(&mut buf)
            .map_err(|e| Error::Io(format!("{name}: {e}")))?;
        Ok((n > 0).then_some(buf))
    };
    std::thread::scope(|scope| {
        let (blocks, arriving) = sync_channel::<Result<Option<Vec<u8>>>>(1);
        let (give_back, spent) = sync_channel::<Vec<u8>>(2);
        let read = &read;
        let reader = std::thread::Builder::new()
            .name("wpiece-read".into())
            .spawn_scoped(scope, move || loop {
                let next = read(spent.try_recv().ok());
                let more = matches!(next, Ok(Some(_)));
                // A closed channel: the work ended; so does the reading.
                if blocks.send(next).is_err() || !more {
                    return;
                }
            });
        let result = match reader {
            // A reader gone without a last word (only by a panic, which the
            // scope passes on) ends the input.
            Ok(_) => work(&mut |done| {
                if let Some(buf) = done {
                    // Full (the reader is behind) or closed: dropped.
                    let _ = give_back.try_send(buf);
                }
                arriving.recv().unwrap_or(Ok(None))
            }),
            Err(_) => work(&mut |done| read(done)),
        };
        drop(arriving);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::super::documents::DocSource;
    use super::super::stream::{DocBlock, DocumentReader};
    use super::*;

    /// A stream handing out at most `step` bytes a read, failing after
    /// `fail_at` bytes if asked.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        fail_at: Option<usize>,
        at: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.step).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn read_all(
        bytes: &[u8],
        source: &DocSource,
        block: usize,
        threads: usize,
        fail_at: Option<usize>,
    ) -> Result<Vec<String>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut input = Trickle {
            bytes,
            step: 7919,
            fail_at,
            at: 0,
        };
        let mut reader = DocumentReader::new(source.clone(), "t.txt")?;
        let mut got = Vec::new();
        pool.install(|| {
            reader.read_all(
                &mut input,
                true,
                block,
                Cancel::never(),
                &mut |b: DocBlock| {
                    b.with_docs(|d| got.extend(d.iter().map(|s| s.to_string())));
                    Ok(())
                },
            )
        })?;
        Ok(got)
    }

    /// Text whose lines are short, empty, end in "\r\n", hold multi-byte
    /// chars anywhere (so blocks end inside them), and some are longer than
    /// the room before a block (joined by a copy).
    fn text() -> String {
        let mut state = 5u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut t = String::new();
        for i in 0..1000 {
            let len = match next(100) {
                0 => HEADROOM as u64 + next(3 * HEADROOM as u64),
                1 => 0,
                _ => next(200),
            };
            for _ in 0..len {
                t.push(['a', ' ', '\u{e9}', '\u{4e2d}', '\u{1f600}', 'z'][next(6) as usize]);
            }
            t.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        }
        t.push_str("no newline at the end");
        t
    }

    #[test]
    fn read_ahead_gives_the_documents_of_reading_in_turn() {
        let text = text();
        let lines: Vec<String> = text.lines().map(String::from).collect();
        for source in [
            DocSource::Separated("\n".into()),
            DocSource::Separated("\u{e9}\u{4e2d}".into()),
        ] {
            let want = read_all(text.as_bytes(), &source, 1 << 16, 1, None).unwrap();
            if source == DocSource::Separated("\n".into()) {
                assert_eq!(want, lines);
            }
            for block in [5000, 1 << 16, 1 << 20, 64 << 20] {
                for threads in [2, 4] {
                    let got = read_all(text.as_bytes(), &source, block, threads, None).unwrap();
                    assert!(got == want, "{source:?}, block {block}, {threads} threads");
                }
            }
        }
        // A separator that overlaps itself splits as the whole text does,
        // left to right, whatever the blocks.
        let runs = "a\n\n\nb\n\n\n\nc\n\n\n\n\nd".repeat(5000);
        let pairs = DocSource::Separated("\n\n".into());
        let whole: Vec<&str> = runs.split("\n\n").collect();
        assert_eq!(&whole[..4], ["a", "\nb", "", "c"]);
        for block in [1, 2, 3, 7, 1000, 1 << 16] {
            for threads in [1, 2] {
                let got = read_all(runs.as_bytes(), &pairs, block, threads, None).unwrap();
                assert!(got == whole, "block {block}, {threads} threads");
            }
        }
        // Blocks of a few bytes, on short text.
        let short: String = text.chars().take(3000).collect();
        let want: Vec<&str> = short.lines().collect();
        for block in [1, 2, 3, 5] {
            let got = read_all(short.as_bytes(), &DocSource::of(None), block, 2, None).unwrap();
            assert_eq!(got, want, "block {block}");
        }
        for empty in ["", "\n", "\r\n\n"] {
            let got = read_all(empty.as_bytes(), &DocSource::of(None), 4, 2, None).unwrap();
            assert_eq!(got, empty.lines().collect::<Vec<_>>());
        }
    }

    #[test]
    fn read_ahead_errors_are_those_of_reading_in_turn() {
        let text = text();
        let source = DocSource::of(None);
        // A bad byte in the first block, in a later one, in a long line.
        for at in [5, 300_000, text.len() - 3] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = 0xFF;
            let want = read_all(&bytes, &source, 1 << 16, 1, None).unwrap_err();
            assert!(want.to_string().contains("invalid UTF-8 at byte offset"));
            for block in [1000, 1 << 16, 1 << 20] {
                let got = read_all(&bytes, &source, block, 2, None).unwrap_err();
                assert_eq!(got.to_string(), want.to_string(), "at {at}, block {block}");
            }
        }
        // The stream fails: its error, whatever was read ahead.
        for fail_at in [0, 100_000, text.len() / 2] {
            let err = read_all(text.as_bytes(), &source, 1 << 16, 2, Some(fail_at)).unwrap_err();
            assert!(err.to_string().contains("t.txt: disk on fire"), "{err}");
        }
    }

    #[test]
    fn read_ahead_stops_when_the_work_does() {
        // The work stops at its first block: the reader does not read the
        // stream to its end (it stops after at most three more blocks).
        let bytes = vec![b'x'; 64 << 20];
        let mut input = Trickle {
            bytes: &bytes,
            step: 1 << 20,
            fail_at: None,
            at: 0,
        };
        let err = read_ahead(&mut input, 1 << 20, "t", Cancel::never(), |next| {
            next(None)?;
            Err::<(), _>(Error::Interrupted)
        })
        .unwrap_err();
        assert!(matches!(err, Error::Interrupted));
        assert!(input.at <= 4 << 20, "read {} bytes", input.at);
        // A raised flag stops the reading itself.
        let cancel = Cancel::new();
        cancel.cancel();
        let mut input = Trickle {
            bytes: &bytes,
            step: 1 << 20,
            fail_at: None,
            at: 0,
        };
        let err = read_ahead(&mut input, 1 << 20, "t", &cancel, |next| {
            while next(None)?.is_some() {}
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(err, Error::Interrupted));
        assert_eq!(input.at, 0);
    }
}
