//! A byte trie for longest-prefix lookups without allocating candidates.

use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::error::{Error, Result};
use crate::memory::check_fits;

/// Marks a state that ends no token, and a free cell.
const NONE: u32 = u32::MAX;

/// One state of the double array: the transition on byte `b` from state `s`
/// leads to cell `cells[s].base + b`, valid when that cell's `check` is `s`.
#[derive(Clone, Copy, Debug)]
struct Cell {
    base: u32,
    check: u32,
    token: u32,
}

const FREE: Cell = Cell {
    base: 0,
    check: NONE,
    token: NONE,
};

/// End of the free list.
const NIL: u32 = u32::MAX;

/// A free cell tried this many times as a place for some node's first child
/// leaves the list of candidates (it stays free for other children). Without
/// this, the free cells that no placement can use (e.g. those below the lowest
/// byte of most words) would be scanned again for every node: a vocabulary of
/// long tokens took minutes instead of a second.
const MAX_TRIES: u8 = 16;

/// A double array under construction with its free cells as a sorted, doubly
/// linked list of candidates for placing a node's children.
struct Builder {
    cells: Vec<Cell>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Failed tries per cell; `LISTED_OUT` once the cell is off the list.
    tries: Vec<u8>,
    head: u32,
    tail: u32,
    /// Free cells looked at while placing nodes (a measure of build work).
    visits: u64,
}

const LISTED_OUT: u8 = u8::MAX;

impl Builder {
    fn new() -> Result<Self> {
        let mut b = Self {
            cells: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            tries: Vec::new(),
            head: NIL,
            tail: NIL,
            visits: 0,
        };
        b.grow(512)?;
        b.unlink(0);
        b.cells[0] = Cell {
            base: 0,
            check: 0,
            token: NONE,
        };
        Ok(b)
    }

    /// Appends `n` free cells, at the end of the list; fails cleanly when
    /// memory or the 32-bit cell index runs out.
    fn grow(&mut self, n: usize) -> Result<()> {
        let old = self.cells.len();
        let new = old
            .checked_add(n)
            .filter(|&len| len < NIL as usize)
            .ok_or_else(|| Error::Memory("the vocabulary is too large for one trie".into()))?;
        let oom = |_| Error::Memory(format!("no memory for a trie of {new} cells"));
        self.cells.try_reserve_exact(n).map_err(oom)?;
        self.next.try_reserve_exact(n).map_err(oom)?;
        self.prev.try_reserve_exact(n).map_err(oom)?;
        self.tries.try_reserve_exact(n).map_err(oom)?;
        for i in old as u32..new as u32 {
            self.cells.push(FREE);
            self.next.push(NIL);
            self.prev.push(self.tail);
            self.tries.push(0);
            match self.tail {
                NIL => self.head = i,
                t => self.next[t as usize] = i,
            }
            self.tail = i;
        }
        Ok(())
    }

    /// Takes cell `i` off the list of candidates.
    fn unlink(&mut self, i: u32) {
        let i = i as usize;
        if self.tries[i] == LISTED_OUT {
            return;
        }
        self.tries[i] = LISTED_OUT;
        let (p, n) = (self.prev[i], self.next[i]);
        match p {
            NIL => self.head = n,
            p => self.next[p as usize] = n,
        }
        match n {
            NIL => self.tail = p,
            n => self.prev[n as usize] = p,
        }
    }

    /// The first base at which every byte of `kids` (sorted) lands on a free cell.
    fn find_base(&mut self, kids: &[(u8, usize, usize)]) -> Result<usize> {
        let first = kids[0].0 as usize;
        let last = kids[kids.len() - 1].0 as usize;
        let mut f = self.head;
        loop {
            self.visits += 1;
            if f == NIL {
                let old = self.cells.len();
                self.grow(old.max(512))?;
                f = old as u32;
                continue;
            }
            // Bases start at 1, so that no transition leads back to the root.
            if f as usize > first {
                let base = f as usize - first;
                if base + last >= self.cells.len() {
                    let old = self.cells.len();
                    self.grow((base + last + 1 - old).max(old))?;
                }
                let cells = &self.cells;
                if kids
                    .iter()
                    .all(|&(b, ..)| cells[base + b as usize].check == NONE)
                {
                    return Ok(base);
                }
            }
            let next = self.next[f as usize];
            self.tries[f as usize] += 1;
            if self.tries[f as usize] >= MAX_TRIES {
                self.unlink(f);
            }
            f = next;
        }
    }
}

/// A double-array trie (Aoe, 1989): one array read per input byte, no
/// allocation and no search, which makes longest-prefix lookups cheap.
#[derive(Clone, Debug)]
pub struct Trie {
    cells: Vec<Cell>,
}

impl Trie {
    /// Builds a trie of `(key, token id)`; later duplicates of a key are
    /// ignored. Time is linear in the keys' bytes (plus a sort); memory is
    /// checked against the machine's before it is taken.
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a [u8], u32)>) -> Result<Self> {
        Ok(Self::build(entries)?.0)
    }

    /// The trie and the number of free cells its placement looked at.
    fn build<'a>(entries: impl IntoIterator<Item = (&'a [u8], u32)>) -> Result<(Self, u64)> {
        let mut keys: Vec<(&[u8], u32)> = entries.into_iter().collect();
        // Stable: of equal keys, the first given stays first and wins.
        sort_keys(&mut keys)?;
        let key_bytes = keys.iter().fold(0usize, |n, k| n.saturating_add(k.0.len()));
        // At most one state per key byte, and about as many free cells again.
        let per_cell = std::mem::size_of::<Cell>() + 2 * std::mem::size_of::<u32>() + 1;
        check_fits(
            key_bytes.saturating_add(512).saturating_mul(2 * per_cell),
            "the vocabulary's trie",
        )?;
        let mut builder = Builder::new()?;
        // Depth first: a key's bytes are read one after another while its
        // branch is built (breadth first read them level by level, a cache
        // miss per byte, 6x slower on long tokens). Each node is a key range
        // sharing `depth` bytes; siblings still sit together at their base.
        let mut stack = vec![(0u32, 0usize, keys.len(), 0usize)];
        let mut kids: Vec<(u8, usize, usize)> = Vec::new();
        let mut steps = 0usize;
        while let Some((state, mut lo, hi, depth)) = stack.pop() {
            steps += 1;
            if steps.is_multiple_of(CHECKPOINT_STEPS) {
                cancel::checkpoint()?;
            }
            if lo < hi && keys[lo].0.len() == depth {
                builder.cells[state as usize].token = keys[lo].1;
                while lo < hi && keys[lo].0.len() == depth {
                    lo += 1;
                }
            }
            if lo == hi {
                continue;
            }
            kids.clear();
            while lo < hi {
                let b = keys[lo].0[depth];
                let end = lo + keys[lo..hi].partition_point(|k| k.0[depth] <= b);
                kids.push((b, lo, end));
                lo = end;
            }
            let base = builder.find_base(&kids)?;
            builder.cells[state as usize].base = base as u32;
            for &(b, klo, khi) in kids.iter().rev() {
                let t = (base + b as usize) as u32;
                builder.unlink(t);
                builder.cells[t as usize].check = state;
                stack.push((t, klo, khi, depth + 1));
            }
        }
        let visits = builder.visits;
        let mut cells = builder.cells;
        while cells.last().is_some_and(|c| c.check == NONE) {
            cells.pop();
        }
        cells.shrink_to_fit();
        Ok((Self { cells }, visits))
    }

    /// The longest key that is a prefix of `text`: `(token id, key length)`.
    #[inline]
    pub fn longest_prefix(&self, text: &[u8]) -> Option<(u32, usize)> {
        let cells = &self.cells[..];
        let mut state = 0usize;
        let mut best = None;
        for (i, &b) in text.iter().enumerate() {
            let t = cells[state].base as usize + b as usize;
            match cells.get(t) {
                Some(c) if c.check == state as u32 && t != 0 => {
                    state = t;
                    if c.token != NONE {
                        best = Some((c.token, i + 1));
                    }
                }
                _ => break,
            }
        }
        best
    }

    /// Calls `found(token id, key length)` for every key that is a prefix of
    /// `text`, shortest first: for callers that skip some tokens (the longest
    /// one they accept is the last one they saw accepted).
    #[inline]
    pub fn each_prefix(&self, text: &[u8], mut found: impl FnMut(u32, usize)) {
        let cells = &self.cells[..];
        let mut state = 0usize;
        for (i, &b) in text.iter().enumerate() {
            let t = cells[state].base as usize + b as usize;
            match cells.get(t) {
                Some(c) if c.check == state as u32 && t != 0 => {
                    state = t;
                    if c.token != NONE {
                        found(c.token, i + 1);
                    }
                }
                _ => break,
            }
        }
    }
}

/// Sorts keys stably by their bytes, looking for Ctrl-C as it goes (a
/// vocabulary of millions of tokens takes seconds): runs of
/// `CHECKPOINT_STEPS` keys are sorted apart, then merged pairwise.
fn sort_keys(keys: &mut Vec<(&[u8], u32)>) -> Result<()> {
    let n = keys.len();
    for run in keys.chunks_mut(CHECKPOINT_STEPS) {
        cancel::checkpoint()?;
        run.sort_by(|a, b| a.0.cmp(b.0));
    }
    let mut merged = Vec::new();
    let mut width = CHECKPOINT_STEPS;
    while width < n {
        merged.clear();
        merged.reserve(n);
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut l, mut r) = (start, mid);
            while l < mid || r < end {
                if merged.len() % CHECKPOINT_STEPS == 0 {
                    cancel::checkpoint()?;
                }
                // Of equal keys, the left run's (given earlier) comes first.
                let take_left = r == end || (l < mid && keys[l].0 <= keys[r].0);
                if take_left {
                    merged.push(keys[l]);
                    l += 1;
                } else {
                    merged.push(keys[r]);
                    r += 1;
                }
            }
        }
        std::mem::swap(keys, &mut merged);
        width *= 2;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_in_runs_is_the_stable_sort() {
        // Past one run, with many equal keys (the first given must stay first).
        let words: Vec<Vec<u8>> = (0..3 * CHECKPOINT_STEPS + 123)
            .map(|i| format!("{}", (i * 7919) % 50_000).into_bytes())
            .collect();
        let mut keys: Vec<(&[u8], u32)> = words.iter().map(|w| w.as_slice()).zip(0..).collect();
        let mut expected = keys.clone();
        expected.sort_by(|a, b| a.0.cmp(b.0));
        sort_keys(&mut keys).unwrap();
        assert_eq!(keys, expected);
    }

    #[test]
    fn agrees_with_a_naive_search_on_many_keys() {
        let keys: Vec<String> = (0..3000u32)
            .map(|i| {
                format!(
                    "{:x}{}",
                    i.wrapping_mul(2654435761) % 5000,
                    "é".repeat((i % 3) as usize)
                )
            })
            .collect();
        let t = Trie::new(keys.iter().zip(0u32..).map(|(k, i)| (k.as_bytes(), i))).unwrap();
        for probe in ["a1b2é", "ffffx", "123éé", "9", "", "éé"] {
            let naive = keys
                .iter()
                .zip(0u32..)
                .filter(|(k, _)| probe.as_bytes().starts_with(k.as_bytes()))
                .max_by_key(|(k, i)| (k.len(), std::cmp::Reverse(*i)))
                .map(|(k, i)| {
                    (
                        keys.iter().position(|x| x == k).map_or(i, |p| p as u32),
                        k.len(),
                    )
                });
            assert_eq!(t.longest_prefix(probe.as_bytes()), naive, "{probe}");
        }
    }

    #[test]
    fn placement_work_is_linear_in_the_keys() {
        // Long tokens of multi-byte characters: every node's child byte is
        // high (0x80..0xBF), so the free cells below it can never take it. They
        // used to be scanned again for each of the million nodes (~150 visits
        // a node: minutes for a trained vocabulary of long words).
        let keys: Vec<String> = (0..4000u32)
            .map(|i| {
                let mut k = format!("{i:x}");
                for j in 0..80u32 {
                    k.push(char::from_u32(0x4E00 + (i * 7 + j * 13) % 2000).unwrap());
                }
                k
            })
            .collect();
        let bytes: usize = keys.iter().map(String::len).sum();
        let (t, visits) =
            Trie::build(keys.iter().zip(0u32..).map(|(k, i)| (k.as_bytes(), i))).unwrap();
        assert!(
            visits <= 4 * bytes as u64,
            "{visits} cells visited for {bytes} key bytes"
        );
        for (i, k) in keys.iter().enumerate().step_by(97) {
            assert_eq!(t.longest_prefix(k.as_bytes()), Some((i as u32, k.len())));
        }
    }

    #[test]
    fn duplicate_keys_keep_the_first_id() {
        let t = Trie::new([(&b"ab"[..], 5), (b"a", 1), (b"ab", 2), (b"", 9), (b"a", 3)]).unwrap();
        assert_eq!(t.longest_prefix(b"abc"), Some((5, 2)));
        assert_eq!(t.longest_prefix(b"ax"), Some((1, 1)));
        // The empty key is never a match: lookups report a length of at least one.
        assert_eq!(t.longest_prefix(b"x"), None);
    }

    #[test]
    fn finds_longest_prefix() {
        let keys: Vec<(&[u8], u32)> = vec![(b"a", 0), (b"abc", 1), (b"b", 2), (b"abcd", 3)];
        let t = Trie::new(keys).unwrap();
        assert_eq!(t.longest_prefix(b"abcx"), Some((1, 3)));
        assert_eq!(t.longest_prefix(b"abx"), Some((0, 1)));
        assert_eq!(t.longest_prefix(b"abcde"), Some((3, 4)));
        assert_eq!(t.longest_prefix(b"x"), None);
        assert_eq!(t.longest_prefix(b""), None);
    }
}
