//! The batch layer: many single texts to one flat array of ids (and
//! offsets) plus row bounds. The texts are cut into parts of similar byte
//! size, claimed in order by the threads; each part is encoded into a
//! buffer of a small pool and appended to the result as soon as every part
//! before it has been, by whichever thread finds it next in line.
//!
//! Why a pool and not one buffer per part: a fresh buffer's pages are
//! faulted in (zeroed by the kernel) on first write, and the result's pages
//! are too. With a buffer per part every token's output was faulted twice;
//! with reused buffers, once (the result's). Parts are small enough that a
//! part's output is still in cache when it is appended.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use rayon::prelude::*;

use super::{check_length, Encoder, Output, WordScratch};
use crate::cancel::Cancel;
use crate::cut::Cut;
use crate::error::Result;
use crate::memory;

/// A batch as flat arrays: row i is `ids[rows[i]..rows[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatBatch {
    pub ids: Vec<u32>,
    /// Char offsets per token, flattened (`[s0, e0, s1, e1, ...]`); empty
    /// unless asked for.
    pub offsets: Vec<u32>,
    /// The word of each token within its row (`u32::MAX`: none); empty
    /// unless asked for.
    pub words: Vec<u32>,
    pub rows: Vec<usize>,
}

/// How each row of a flat batch is cut and framed.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    /// Where each row's text is cut (truncation; `Cut::NONE` keeps all).
    pub cut: Cut,
    /// Ids put before and after each row (post-processing), if any.
    pub frame: Option<(u32, u32)>,
    /// Whether char offsets are written too (framing ids get `(0, 0)`).
    pub with_offsets: bool,
    /// Whether word ids are written too.
    pub with_words: bool,
}

/// Text bytes per part at most when several threads share a batch: its
/// output (about 3.6 bytes of ids and offsets per byte of text) fits in a
/// core's L2 cache, so appending it reads it from there.
pub(super) const PART_BYTES: usize = 512 << 10;

/// Parts per thread at least, batch allowing: the last parts of a batch
/// keep every thread busy to its end (a batch of a few MB in parts of the
/// largest size left one thread idle for a part in four calls out of ten).
const PARTS_PER_THREAD: usize = 16;

/// Text bytes per part at least: a part's own cost stays small beside it.
const MIN_PART_BYTES: usize = 64 << 10;

/// One part's output: its tokens, and the end of each of its rows (counted
/// from the part's first token). Reused from part to part.
#[derive(Default)]
struct PartOutput {
    out: Output,
    rows: Vec<usize>,
    ids_ahead: memory::Prefault,
    offsets_ahead: memory::Prefault,
}

impl PartOutput {
    fn new(rows_as: Rows) -> Self {
        let out = if rows_as.with_words {
            Output::with_words(rows_as.with_offsets)
        } else {
            Output::new(rows_as.with_offsets)
        };
        Self {
            out,
            ..Default::default()
        }
    }
}

/// Parts waiting to be appended, in a pipeline of ordered parts.
struct Waiting {
    /// Encoded parts not appended yet, by part index.
    done: Vec<Option<PartOutput>>,
    /// The next part to append.
    next: usize,
    /// Whether a thread is appending now (it takes every part next in line).
    appending: bool,
    /// Outputs appended, ready to be reused.
    free: Vec<PartOutput>,
}

impl Encoder {
    /// Ids of many single texts as one flat vector plus row bounds (length
    /// n + 1): no per-token or per-text objects. Stops with
    /// `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_flat(&self, texts: &[&str], rows_as: Rows, cancel: &Cancel) -> Result<FlatBatch> {
        texts.iter().try_for_each(|t| check_length(t.len()))?;
        let threads = crate::parallel::threads_here();
        let largest = self.paths.parts;
        let bounds = if largest == usize::MAX || (threads == 1 && largest >= PART_BYTES) {
            vec![0, texts.len()]
        } else {
            let total: usize = texts.iter().map(|t| t.len()).sum();
            let even = total / (threads * PARTS_PER_THREAD);
            part_bounds(texts, even.max(MIN_PART_BYTES).min(largest))
        };
        if bounds.len() <= 2 {
            // One part: its buffers become the result (no copy).
            let mut part = PartOutput::new(rows_as);
            let mut scratch = WordScratch::default();
            self.encode_part(texts, rows_as, &mut part, &mut scratch, false, cancel)?;
            let PartOutput { out, rows, .. } = part;
            let mut all_rows = Vec::with_capacity(texts.len() + 1);
            all_rows.push(0);
            all_rows.extend(rows);
            return Ok(FlatBatch {
                ids: out.ids,
                offsets: out.offsets,
                words: out.words,
                rows: all_rows,
            });
        }
        self.encode_parts(texts, &bounds, threads, rows_as, cancel)
    }

    /// The parts `bounds` of `texts`, claimed in order by `threads` workers
    /// and appended in order to one result.
    fn encode_parts(
        &self,
        texts: &[&str],
        bounds: &[usize],
        threads: usize,
        rows_as: Rows,
        cancel: &Cancel,
    ) -> Result<FlatBatch> {
        let n_parts = bounds.len() - 1;
        let mut result = FlatBatch::default();
        let bytes: usize = texts.iter().map(|t| t.len()).sum();
        // Address space only: pages are faulted in as they are written.
        let tokens = expected_tokens(bytes, texts.len());
        let _ = result.ids.try_reserve_exact(tokens);
        if rows_as.with_offsets {
            let _ = result.offsets.try_reserve_exact(2 * tokens);
        }
        if rows_as.with_words {
            let _ = result.words.try_reserve_exact(tokens);
        }
        result.rows.reserve_exact(texts.len() + 1);
        result.rows.push(0);
        let pipeline = Pipeline {
            claimed: AtomicUsize::new(0),
            n_parts,
            ahead: PARTS_AHEAD * threads,
            waiting: Mutex::new(Waiting {
                done: (0..n_parts).map(|_| None).collect(),
                next: 0,
                appending: false,
                free: Vec::new(),
            }),
            keep: 2 * threads,
            turn: Condvar::new(),
            failed: AtomicBool::new(false),
            result: Mutex::new(Appended {
                batch: result,
                ..Default::default()
            }),
        };
        let worker = |_| {
            let mut scratch = WordScratch::default();
            // A panicking worker stops the others too (its panic ends the batch).
            let _stop = StopOnPanic(&pipeline);
            let mut work = || -> Result<()> {
                while let Some((k, reused)) = pipeline.claim() {
                    let mut part = reused.unwrap_or_else(|| PartOutput::new(rows_as));
                    let texts = &texts[bounds[k]..bounds[k + 1]];
                    self.encode_part(texts, rows_as, &mut part, &mut scratch, true, cancel)?;
                    pipeline.deposit(k, part)?;
                }
                Ok(())
            };
            work().inspect_err(|_| pipeline.fail())
        };
        // Inline (see `parallel::inline`): one worker, this thread.
        match crate::parallel::serial_here() {
            true => worker(0)?,
            false => (0..threads).into_par_iter().try_for_each(worker)?,
        }
        let appended = pipeline.result.into_inner();
        Ok(appended.unwrap_or_else(|e| e.into_inner()).batch)
    }

    /// Encodes `texts` into `part` (emptied first), row by row; `joined`:
    /// the part's buffers are freed at the end of the batch (see
    /// [`memory::reserve_output`]).
    fn encode_part(
        &self,
        texts: &[&str],
        rows_as: Rows,
        part: &mut PartOutput,
        scratch: &mut WordScratch,
        joined: bool,
        cancel: &Cancel,
    ) -> Result<()> {
        let PartOutput {
            out,
            rows,
            ids_ahead,
            offsets_ahead,
        } = part;
        out.ids.clear();
        out.offsets.clear();
        out.words.clear();
        rows.clear();
        rows.reserve(texts.len());
        let bytes = texts.iter().map(|t| t.len()).sum();
        reserve_tokens(out, expected_tokens(bytes, texts.len()), joined);
        for text in texts {
            cancel.check()?;
            ids_ahead.ahead(&mut out.ids);
            if rows_as.with_offsets {
                offsets_ahead.ahead(&mut out.offsets);
            }
            if let Some((cls, _)) = rows_as.frame {
                out.push_special(cls);
            }
            let start = out.ids.len();
            self.encode_reusing(text, out, scratch, cancel)?;
            out.cut_sequence(start, rows_as.cut);
            if let Some((_, sep)) = rows_as.frame {
                out.push_special(sep);
            }
            rows.push(out.ids.len());
        }
        Ok(())
    }
}

/// The result being appended to, with its pages faulted in a window ahead.
#[derive(Default)]
struct Appended {
    batch: FlatBatch,
    ids_ahead: memory::Prefault,
    offsets_ahead: memory::Prefault,
    words_ahead: memory::Prefault,
}

impl Appended {
    /// Appends `part` after everything appended so far.
    fn append(&mut self, part: &PartOutput) -> Result<()> {
        let batch = &mut self.batch;
        let base = batch.ids.len();
        memory::append_prefaulted(&mut batch.ids, &part.out.ids, &mut self.ids_ahead)?;
        memory::append_prefaulted(
            &mut batch.offsets,
            &part.out.offsets,
            &mut self.offsets_ahead,
        )?;
        memory::append_prefaulted(&mut batch.words, &part.out.words, &mut self.words_ahead)?;
        batch.rows.extend(part.rows.iter().map(|r| r + base));
        Ok(())
    }
}

/// Parts a thread may be ahead of the next part to append, per thread: when
/// one part is slow (a huge text), the parts after it wait for it in memory,
/// so their number is bounded.
const PARTS_AHEAD: usize = 4;

/// The parts of one batch on their way to the result.
struct Pipeline {
    /// Parts claimed so far (the next one to claim).
    claimed: AtomicUsize,
    n_parts: usize,
    /// How far past the next part to append a part may be claimed.
    ahead: usize,
    /// How many outputs the pool keeps at most (two a thread): outputs of
    /// parts that waited behind a slow one are freed, not all kept.
    keep: usize,
    waiting: Mutex<Waiting>,
    /// Signalled when the next part to append moves on, or the batch fails.
    turn: Condvar,
    failed: AtomicBool,
    result: Mutex<Appended>,
}

impl Pipeline {
    /// The next part to encode, with an output to reuse if one is free,
    /// once it is less than `ahead` parts past the next to append; `None`
    /// when every part is claimed or the batch failed.
    fn claim(&self) -> Option<(usize, Option<PartOutput>)> {
        let k = self.claimed.fetch_add(1, Ordering::Relaxed);
        if k >= self.n_parts {
            return None;
        }
        let mut w = lock(&self.waiting);
        // The part next in line is being encoded by a thread that does not
        // wait here (it is less than `ahead` past itself), so `next` moves.
        while k >= w.next + self.ahead && !self.failed.load(Ordering::Relaxed) {
            w = self.turn.wait(w).unwrap_or_else(|e| e.into_inner());
        }
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        Some((k, w.free.pop()))
    }

    /// Stops the other threads: no more claims, and none left waiting.
    fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
        // Under the lock, so that a thread about to wait sees the flag or
        // is woken.
        let _w = lock(&self.waiting);
        self.turn.notify_all();
    }

    /// Files part `k` as encoded; then, unless another thread is appending,
    /// appends every part next in line (this one, and any that finished
    /// while it was being appended).
    fn deposit(&self, k: usize, part: PartOutput) -> Result<()> {
        let mut w = lock(&self.waiting);
        w.done[k] = Some(part);
        if w.appending {
            return Ok(());
        }
        w.appending = true;
        loop {
            let next = w.next;
            let Some(part) = w.done.get_mut(next).and_then(Option::take) else {
                w.appending = false;
                return Ok(());
            };
            w.next += 1;
            self.turn.notify_all();
            drop(w);
            // Only the appending thread takes this lock: never waited on.
            let appended = lock(&self.result).append(&part);
            w = lock(&self.waiting);
            if let Err(e) = appended {
                w.appending = false;
                return Err(e);
            }
            if w.free.len() < self.keep {
                w.free.push(part);
            }
        }
    }
}

/// Fails the batch if its thread panics while it lives.
struct StopOnPanic<'a>(&'a Pipeline);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.fail();
        }
    }
}

/// A lock whose data stays sound if a thread panicked holding it (the
/// panic ends the batch anyway).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where parts of about `part_bytes` bytes of text start, cut between texts
/// (`[0, ..., texts.len()]`).
fn part_bounds(texts: &[&str], part_bytes: usize) -> Vec<usize> {
    let mut bounds = vec![0usize];
    let mut acc = 0usize;
    for (i, t) in texts.iter().enumerate() {
        acc += t.len() + 16;
        if acc >= part_bytes {
            bounds.push(i + 1);
            acc = 0;
        }
    }
    if *bounds.last().unwrap_or(&0) != texts.len() {
        bounds.push(texts.len());
    }
    bounds
}

/// Room for the usual token count of `bytes` of text in `texts` rows
/// (about one per 3-4 bytes, plus framing): growing by copying would move
/// it all again.
fn expected_tokens(bytes: usize, texts: usize) -> usize {
    bytes / 2 + 2 * texts + 64
}

/// Reserves room for `tokens` tokens in `out`'s (empty) arrays.
fn reserve_tokens(out: &mut Output, tokens: usize, joined: bool) {
    memory::reserve_output(&mut out.ids, tokens, joined);
    if out.with_offsets {
        memory::reserve_output(&mut out.offsets, 2 * tokens, joined);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipeline(n_parts: usize, ahead: usize) -> Pipeline {
        Pipeline {
            claimed: AtomicUsize::new(0),
            n_parts,
            ahead,
            waiting: Mutex::new(Waiting {
                done: (0..n_parts).map(|_| None).collect(),
                next: 0,
                appending: false,
                free: Vec::new(),
            }),
            keep: 2,
            turn: Condvar::new(),
            failed: AtomicBool::new(false),
            result: Mutex::new(Appended::default()),
        }
    }

    /// Part `k`'s output: one row holding the token `k`.
    fn output(k: usize) -> PartOutput {
        let mut part = PartOutput::default();
        part.out.ids.push(k as u32);
        part.rows.push(1);
        part
    }

    #[test]
    fn threads_wait_behind_a_slow_part_and_go_on_once_it_is_in() {
        // Part 0 is held back: the other thread claims up to `ahead` parts
        // past it and then waits; once part 0 is in, all go through in order.
        let p = pipeline(50, 3);
        let (k, _) = p.claim().unwrap();
        assert_eq!(k, 0);
        std::thread::scope(|s| {
            s.spawn(|| {
                while let Some((k, _)) = p.claim() {
                    p.deposit(k, output(k)).unwrap();
                }
            });
            // Parts 1 and 2 come in, part 3 is claimed and waits (a
            // loaded machine gets seconds), and nothing more is claimed.
            let held = || {
                let done = lock(&p.waiting).done.iter().flatten().count();
                (p.claimed.load(Ordering::Relaxed), done)
            };
            let start = std::time::Instant::now();
            while held() != (4, 2) && start.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert_eq!(held(), (4, 2));
            p.deposit(0, output(0)).unwrap();
        });
        let batch = &lock(&p.result).batch;
        assert_eq!(batch.ids, (0..50).collect::<Vec<u32>>());
        assert_eq!(lock(&p.waiting).next, 50);
    }

    #[test]
    fn a_failure_wakes_the_threads_waiting_behind_it() {
        let p = pipeline(50, 2);
        let _part0 = p.claim().unwrap();
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let mut claimed = Vec::new();
                while let Some((k, _)) = p.claim() {
                    claimed.push(k);
                    p.deposit(k, output(k)).unwrap();
                }
                claimed
            });
            std::thread::sleep(std::time::Duration::from_millis(100));
            p.fail();
            // It returns (no part past the window), without part 0 ever in.
            assert_eq!(waiter.join().unwrap(), [1]);
        });
        assert!(lock(&p.result).batch.ids.is_empty());
    }
}
