//! Counting the words of documents on every thread, in first-appearance
//! order, whatever the number of threads.
//!
//! The input comes as segments in order: each block of documents (a call's
//! list, or one read of a file) cut into one part per thread, of similar
//! byte size, or the pieces of a large file (`LinePieces`) that the threads
//! claim in turn. Each thread counts its segments into a map of its own,
//! which lives as long as the input: its table and its front table of short
//! words keep what earlier segments taught them, and no segment's words are
//! hashed again to merge them. A word's place in the result is its first
//! appearance: its first segment, then its place in that segment. Each map
//! remembers where each of its segments began and its place in the input,
//! and `finish` merges the maps once, on every thread (`part_merge.rs`),
//! which gives exactly that order.
//!
//! One thread counts straight into the result: there is nothing to merge.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use super::counts::WordCounts;
use super::part_merge::{merge_parts, CountedPart};
use super::short_words::ShortWords;
use crate::cancel::Cancel;
use crate::error::{Error, Result};
use crate::io::{DocBlock, LinePieces};
use crate::splitter::SplitBuffers;

/// What one counting thread keeps from document to document.
#[derive(Default)]
pub(super) struct CountScratch {
    /// Short words wait here until the thread's part is done.
    pub(super) short: ShortWords,
    pub(super) split: SplitBuffers,
}

/// One thread's share of the input: part t of every block, or the pieces
/// it claimed.
#[derive(Default)]
struct Part {
    counts: WordCounts,
    scratch: CountScratch,
    /// Each segment's place in the input, and `counts.len()` when it began
    /// (places rise: a thread's segments come in input order).
    segments: Vec<(usize, usize)>,
}

impl Part {
    /// Counts the segment at `place` of the input, by `count`.
    fn segment<T>(
        &mut self,
        place: usize,
        count: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.segments.push((place, self.counts.len()));
        let counted = count(self);
        // A segment's words must all be in before the next one's start is
        // marked (the last few short ones wait for their slot until then).
        self.scratch.short.settle(&mut self.counts);
        counted
    }
}

/// Counting in progress over the blocks of one input, into `into` (whose
/// words stay first).
pub(super) struct ParallelCounting<'a> {
    into: &'a mut WordCounts,
    /// One thread: its scratch, counting into `into` itself.
    direct: CountScratch,
    /// Several threads: one part each.
    parts: Vec<Part>,
    /// The place in the input of the next segment.
    next_place: usize,
}

impl<'a> ParallelCounting<'a> {
    pub(super) fn new(into: &'a mut WordCounts) -> Self {
        let threads = rayon::current_num_threads();
        let parts = if threads > 1 {
            (0..threads).map(|_| Part::default()).collect()
        } else {
            Vec::new()
        };
        Self {
            into,
            direct: CountScratch::default(),
            parts,
            next_place: 0,
        }
    }

    /// Whether counting runs on several threads.
    pub(super) fn is_parallel(&self) -> bool {
        !self.parts.is_empty()
    }

    /// Counts the next block of documents, each by `count_doc`; stops with
    /// `Error::Interrupted` soon after `cancel` is raised.
    pub(super) fn add<S, F>(&mut self, docs: &[S], cancel: &Cancel, count_doc: &F) -> Result<()>
    where
        S: AsRef<str> + Sync,
        F: Fn(&str, &mut WordCounts, &mut CountScratch) -> Result<()> + Sync,
    {
        let ranges = part_ranges(docs, self.parts.len().max(1));
        self.count_parts(ranges, cancel, count_doc, |range| {
            docs[range].iter().map(|d| d.as_ref())
        })
    }

    /// [`ParallelCounting::add`] for a block of lines given as one text (each
    /// `str::lines` item a document): each thread finds the lines of its own
    /// part, cut after a newline, so none waits for the block to be split.
    pub(super) fn add_lines<F>(&mut self, text: &str, cancel: &Cancel, count_doc: &F) -> Result<()>
    where
        F: Fn(&str, &mut WordCounts, &mut CountScratch) -> Result<()> + Sync,
    {
        let ranges = line_ranges(text, self.parts.len().max(1));
        self.count_parts(ranges, cancel, count_doc, |range| text[range].lines())
    }

    /// Counts the documents `docs_of` each range gives, part t's range into
    /// part t (or, on one thread, the one range into the result).
    fn count_parts<'d, F, I>(
        &mut self,
        ranges: Vec<std::ops::Range<usize>>,
        cancel: &Cancel,
        count_doc: &F,
        docs_of: impl Fn(std::ops::Range<usize>) -> I + Sync,
    ) -> Result<()>
    where
        F: Fn(&str, &mut WordCounts, &mut CountScratch) -> Result<()> + Sync,
        I: Iterator<Item = &'d str>,
    {
        if self.parts.is_empty() {
            for range in ranges {
                for d in docs_of(range) {
                    cancel.check()?;
                    count_doc(d, self.into, &mut self.direct)?;
                }
            }
            self.direct.short.settle(self.into);
            return Ok(());
        }
        let first = self.next_place;
        self.next_place += self.parts.len();
        self.parts
            .par_iter_mut()
            .zip(ranges)
            .enumerate()
            .try_for_each(|(t, (part, range))| {
                part.segment(first + t, |part| {
                    for d in docs_of(range) {
                        cancel.check()?;
                        count_doc(d, &mut part.counts, &mut part.scratch)?;
                    }
                    Ok(())
                })
            })
    }

    /// Counts the lines of a file's pieces, each claimed by the next thread
    /// free (several threads only: see [`ParallelCounting::is_parallel`]).
    /// The error returned is the first piece's that fails (the one reading
    /// the file in turn meets first), whichever thread meets it first.
    pub(super) fn add_pieces<F>(
        &mut self,
        pieces: &LinePieces,
        cancel: &Cancel,
        count_doc: &F,
    ) -> Result<()>
    where
        F: Fn(&str, &mut WordCounts, &mut CountScratch) -> Result<()> + Sync,
    {
        debug_assert!(self.is_parallel());
        let first = self.next_place;
        self.next_place += pieces.len();
        let next = AtomicUsize::new(0);
        // The first failing piece so far: the pieces after it are left.
        let failed: Mutex<Option<(usize, Error)>> = Mutex::new(None);
        let first_failed = AtomicUsize::new(usize::MAX);
        let count_lines = |k: usize, lines: &mut dyn Iterator<Item = &str>, part: &mut Part| {
            if k > first_failed.load(Relaxed) {
                return Err(Error::Interrupted);
            }
            for d in lines {
                cancel.check()?;
                count_doc(d, &mut part.counts, &mut part.scratch)?;
            }
            Ok(())
        };
        self.parts.par_iter_mut().for_each(|part| loop {
            let k = next.fetch_add(1, Relaxed);
            if k >= pieces.len() || k > first_failed.load(Relaxed) {
                return;
            }
            let read = part.segment(first + k, |part| {
                pieces.read(k, cancel, &mut |block| match block {
                    DocBlock::Lines(text) => count_lines(k, &mut text.lines(), part),
                    DocBlock::Docs(docs) => count_lines(k, &mut docs.iter().copied(), part),
                })
            });
            if let Err(e) = read {
                let mut failed = failed.lock().unwrap_or_else(|p| p.into_inner());
                if failed.as_ref().is_none_or(|(f, _)| k < *f) {
                    first_failed.store(k, Relaxed);
                    *failed = Some((k, e));
                }
                return;
            }
        });
        match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Completes `into`: the parts' words in first-appearance order.
    pub(super) fn finish(mut self, cancel: &Cancel) -> Result<()> {
        std::mem::take(&mut self.direct.short).flush_into(self.into);
        if self.parts.is_empty() {
            return Ok(());
        }
        // Each part's front table (megabytes of slots to scan) is flushed
        // and dropped on its own thread.
        let parts: Vec<CountedPart> = self
            .parts
            .into_par_iter()
            .map(|mut part| {
                std::mem::take(&mut part.scratch.short).flush_into(&mut part.counts);
                let (words, hashes) = part.counts.into_hashed();
                CountedPart {
                    segments: part.segments,
                    words,
                    hashes,
                }
            })
            .collect();
        self.into.merge(merge_parts(parts, cancel)?);
        Ok(())
    }
}

/// `n` ranges of `docs`, in order, of similar byte size (the last ones empty
/// when the documents are few).
fn part_ranges<S: AsRef<str>>(docs: &[S], n: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = docs.iter().map(|d| d.as_ref().len() + 1).sum();
    // Small blocks stay whole: a part has a cost of its own.
    let target = (total / n).max(1 << 16);
    let mut ranges = Vec::with_capacity(n);
    let (mut start, mut acc) = (0, 0);
    for (i, d) in docs.iter().enumerate() {
        acc += d.as_ref().len() + 1;
        if acc >= target && ranges.len() + 1 < n {
            ranges.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    ranges.push(start..docs.len());
    ranges.resize(n, docs.len()..docs.len());
    ranges
}

/// `n` byte ranges of `text`, in order, of similar size, each cut just
/// after a newline (so their lines are the whole's; the last ones empty
/// when the text is short).
fn line_ranges(text: &str, n: usize) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    // Small blocks stay whole: a part has a cost of its own.
    let target = (bytes.len() / n).max(1 << 16);
    let mut ranges = Vec::with_capacity(n);
    let mut start = 0;
    while ranges.len() + 1 < n && start + target < bytes.len() {
        let Some(at) = memchr::memchr(b'\n', &bytes[start + target..]) else {
            break;
        };
        let end = start + target + at + 1;
        ranges.push(start..end);
        start = end;
    }
    ranges.push(start..bytes.len());
    ranges.resize(n, bytes.len()..bytes.len());
    ranges
}

/// Counts the words of `docs` in parallel, in first-appearance order, into
/// `into` (whose words stay first), each document by `count_doc`; stops with
/// `Error::Interrupted` soon after `cancel` is raised.
pub(super) fn count_docs_with<S: AsRef<str> + Sync>(
    docs: &[S],
    into: &mut WordCounts,
    cancel: &Cancel,
    count_doc: impl Fn(&str, &mut WordCounts, &mut CountScratch) -> Result<()> + Sync,
) -> Result<()> {
    let mut counting = ParallelCounting::new(into);
    counting.add(docs, cancel, &count_doc)?;
    counting.finish(cancel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitter::Splitter;

    #[test]
    fn blocks_and_parts_keep_first_appearance_order() {
        // Words that first appear late in one block's later part and early
        // in the next block's first part; blocks of every size, including
        // empty ones and ones smaller than a part. `count_into` leaves the
        // last short words of a part waiting for their slot: the counting
        // must take them in before the next block begins.
        let mut state = 3u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let docs: Vec<String> = (0..40_000)
            .map(|i| {
                let n = 1 + next(6);
                (0..n)
                    .map(|_| format!("w{}x{}", next(3000), "y".repeat(next(20) as usize)))
                    .collect::<Vec<_>>()
                    .join(" ")
                    + if i % 7 == 0 { " first" } else { "" }
            })
            .collect();
        let mut cuts = vec![0, 0, 1, 2, 3000, 3001, 9000, 9000, 25_000, docs.len()];
        cuts.dedup_by(|a, b| a == b && *a != 0);
        let splitter = Splitter::default();
        let mut expected = WordCounts::default();
        let mut short = ShortWords::default();
        for d in &docs {
            splitter.count_general(d, &mut expected, &mut short);
        }
        short.flush_into(&mut expected);
        for threads in [1, 2, 3, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // Each block as a list of documents, or as lines of one text.
            let count = |by_lines: bool| {
                let mut into = WordCounts::default();
                into.add("first", 1);
                into.add("before", 2);
                pool.install(|| {
                    let mut counting = ParallelCounting::new(&mut into);
                    let count_doc = |d: &str, out: &mut WordCounts, s: &mut CountScratch| {
                        splitter.count_into(d, out, s, Cancel::never())
                    };
                    for b in cuts.windows(2) {
                        let block = &docs[b[0]..b[1]];
                        if by_lines {
                            let text: String = block.iter().map(|d| d.clone() + "\n").collect();
                            counting.add_lines(&text, Cancel::never(), &count_doc)
                        } else {
                            counting.add(block, Cancel::never(), &count_doc)
                        }
                        .unwrap();
                    }
                    counting.finish(Cancel::never()).unwrap();
                });
                into
            };
            let mut want = WordCounts::default();
            want.add("first", 1);
            want.add("before", 2);
            want.merge(expected.clone());
            assert!(count(false).same_as(&want), "{threads} threads");
            // The same blocks as lines of one text each: the same counts
            // in the same order.
            assert!(count(true).same_as(&want), "lines, {threads} threads");
        }
    }

    /// Documents of random words, some first met late in the text.
    fn random_docs(n: usize, seed: u64) -> Vec<String> {
        let mut state = seed;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        (0..n)
            .map(|i| {
                let words = (0..next(8))
                    .map(|_| {
                        format!(
                            "w{}x{}",
                            next(1 + i as u64 / 4),
                            "y".repeat(next(20) as usize)
                        )
                    })
                    .collect::<Vec<_>>();
                words.join(if i % 5 == 0 { "\r\n" } else { " " })
            })
            .collect()
    }

    /// The pieces of a whole file of lines, however small.
    fn pieces_of(path: &std::path::Path, threads: usize, smallest: u64) -> LinePieces {
        let source = crate::io::DocSource::of(None);
        LinePieces::plan_sized(path, &source, None, threads, Cancel::never(), 0, smallest)
            .unwrap()
            .pieces()
            .unwrap()
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn pieces_claimed_by_any_thread_keep_first_appearance_order() {
        let docs = random_docs(20_000, 5);
        let text = docs.join("\n");
        let dir = std::env::temp_dir().join(format!("wpiece-counting-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pieces.txt");
        std::fs::write(&path, &text).unwrap();
        let splitter = Splitter::default();
        let count_doc = |d: &str, out: &mut WordCounts, s: &mut CountScratch| {
            splitter.count_into(d, out, s, Cancel::never())
        };
        // Counted one document after another, after "first" (and `head`).
        let sequential = |head: &[&str]| {
            let mut want = WordCounts::default();
            want.add("first", 1);
            let mut short = ShortWords::default();
            for d in head.iter().copied().chain(text.lines()) {
                splitter.count_general(d, &mut want, &mut short);
            }
            short.flush_into(&mut want);
            want
        };
        // A block counted before the pieces stays before them.
        let head = ["w0xy w1x head", "first"];
        let (want, want_after_head) = (sequential(&[]), sequential(&head));
        for threads in [2, 3, 4] {
            for smallest in [1, 100, 5000, 1 << 20] {
                let pieces = pieces_of(&path, threads, smallest);
                for with_head in [false, true] {
                    let mut into = WordCounts::default();
                    into.add("first", 1);
                    pool(threads).install(|| {
                        let mut counting = ParallelCounting::new(&mut into);
                        if with_head {
                            counting.add(&head, Cancel::never(), &count_doc).unwrap();
                        }
                        counting
                            .add_pieces(&pieces, Cancel::never(), &count_doc)
                            .unwrap();
                        counting.finish(Cancel::never()).unwrap();
                    });
                    let want = if with_head { &want_after_head } else { &want };
                    assert!(
                        into.same_as(want),
                        "{threads} threads, pieces of {smallest}"
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_first_failing_piece_gives_the_error_whichever_thread_fails_first() {
        use crate::io::{read_file_blocks, DocSource};
        let mut bytes = random_docs(30_000, 9).join("\n").into_bytes();
        // Bad UTF-8 early, in the middle and at the end: reading in turn
        // meets the first; so must the pieces, though the thread with a
        // later one may fail first.
        let n = bytes.len();
        for at in [n / 3, n / 2, n - 2] {
            bytes[at] = 0xFF;
        }
        let dir = std::env::temp_dir().join(format!("wpiece-counting-err-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.txt");
        std::fs::write(&path, &bytes).unwrap();
        let source = DocSource::of(None);
        let want = read_file_blocks(&path, &source, None, 1 << 16, Cancel::never(), &mut |_| {
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert!(want.contains(&format!("byte offset {}", n / 3)), "{want}");
        let splitter = Splitter::default();
        let count_doc = |d: &str, out: &mut WordCounts, s: &mut CountScratch| {
            splitter.count_into(d, out, s, Cancel::never())
        };
        for threads in [2, 3, 4] {
            for smallest in [1000, 20_000, 200_000] {
                for _ in 0..10 {
                    let pieces = pieces_of(&path, threads, smallest);
                    let mut into = WordCounts::default();
                    let got = pool(threads).install(|| {
                        let mut counting = ParallelCounting::new(&mut into);
                        counting.add_pieces(&pieces, Cancel::never(), &count_doc)
                    });
                    assert_eq!(got.unwrap_err().to_string(), want, "{threads} threads");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn line_ranges_cut_after_newlines_into_the_whole_lines() {
        let text: String = (0..120_000)
            .map(|i| match i % 7 {
                0 => "\r\n".to_string(),
                1 => "\n".to_string(),
                _ => format!("w{i} \u{e9}x\n"),
            })
            .collect::<String>()
            + "open end";
        for n in 1..6 {
            for t in [&text[..], &text[..70_000], "", "\n", "no newline"] {
                let ranges = line_ranges(t, n);
                assert_eq!(ranges.len(), n);
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[n - 1].end, t.len());
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
                // Each range followed by text ends after a newline.
                assert!(ranges
                    .windows(2)
                    .all(|w| w[1].is_empty() || t.as_bytes()[w[0].end - 1] == b'\n'));
                let joined: Vec<&str> = ranges.iter().flat_map(|r| t[r.clone()].lines()).collect();
                assert_eq!(joined, t.lines().collect::<Vec<_>>());
            }
            // Long text is shared out.
            assert!(line_ranges(&text, n)
                .iter()
                .all(|r| r.len() > text.len() / (2 * n)));
        }
    }
}
