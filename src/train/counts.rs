//! Word types in first-appearance order with their counts (counting
//! documents into them is `counting.rs`).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::short_words::IndexedCounts;
use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::error::{Error, Result};

/// What a `try_merge` changed: enough to take it back (`take_back`).
#[derive(Debug)]
pub struct MergeMark {
    /// Words held before the merge (the new ones come after).
    old_len: usize,
    near_max: bool,
}

/// Word types in first-appearance order with their counts (each word stored
/// once), indexed by word.
#[derive(Clone, Debug, Default)]
pub struct WordCounts {
    /// The words and their counts, in first-appearance order.
    words: Vec<(Box<str>, u64)>,
    /// Each word's hash: the index grows, and counts built elsewhere with
    /// their hashes (`from_distinct`) are indexed, without hashing a string.
    hashes: Vec<u64>,
    /// Each word's position in `words`, by word.
    index: HashTable<usize>,
    /// Whether a count may be at or past `NEAR_MAX`: only counts given by a
    /// caller (or loaded) get there, and only then must sums be checked.
    near_max: bool,
}

/// Counting text never gets a count this high (it would take 2^62 words),
/// so below it two counts always add without overflow.
const NEAR_MAX: u64 = 1 << 62;

/// Words and their counts in order, with each word's hash (`hash_word`).
pub(super) type HashedWords = (Vec<(Box<str>, u64)>, Vec<u64>);

/// The hash words are indexed by (the part merge shards by it too).
pub(super) fn hash_word(word: &str) -> u64 {
    FxBuildHasher.hash_one(word)
}

pub(super) fn out_of_memory() -> Error {
    Error::Memory("word counts: out of memory".into())
}

impl WordCounts {
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The position of `word` (whose hash is `hash`), if present.
    fn find(&self, word: &str, hash: u64) -> Option<usize> {
        let words = &self.words;
        self.index.find(hash, |&i| &*words[i].0 == word).copied()
    }

    /// Appends a word not present, with its hash; its position.
    fn push(&mut self, word: Box<str>, count: u64, hash: u64) -> usize {
        let at = self.words.len();
        self.words.push((word, count));
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index.insert_unique(hash, at, |&i| hashes[i]);
        at
    }

    /// The index made again from `hashes` (after words were dropped: the
    /// table already has room, so nothing is allocated).
    fn reindex(&mut self) {
        let hashes = &self.hashes;
        self.index.clear();
        self.index.reserve(hashes.len(), |&i| hashes[i]);
        for (i, &hash) in hashes.iter().enumerate() {
            self.index.insert_unique(hash, i, |&j| hashes[j]);
        }
    }

    /// Adds `count` occurrences of `word` (appended if new).
    pub fn add(&mut self, word: &str, count: u64) {
        let hash = hash_word(word);
        match self.find(word, hash) {
            Some(i) => self.words[i].1 += count,
            None => {
                self.push(word.into(), count, hash);
            }
        }
    }

    /// `add`, for counts given by a caller: a total past 2^64-1 is an error.
    pub fn try_add(&mut self, word: &str, count: u64) -> Result<()> {
        let hash = hash_word(word);
        let total = match self.find(word, hash) {
            Some(i) => {
                let c = &mut self.words[i].1;
                *c = c.checked_add(count).ok_or_else(|| {
                    Error::Overflow(format!("the count of {word:?} exceeds 2^64-1"))
                })?;
                *c
            }
            None => {
                self.push(word.into(), count, hash);
                count
            }
        };
        self.near_max |= total >= NEAR_MAX;
        Ok(())
    }

    /// Appends `other`, keeping this map's words first. For parts of one
    /// counting run, whose sums cannot overflow (see `add_counted`).
    pub fn merge(&mut self, other: WordCounts) {
        debug_assert!(!self.near_max && !other.near_max);
        if self.words.is_empty() {
            *self = other;
            return;
        }
        for ((w, c), hash) in other.words.into_iter().zip(other.hashes) {
            match self.find(&w, hash) {
                Some(i) => self.words[i].1 += c,
                None => {
                    self.push(w, c, hash);
                }
            }
        }
    }

    /// Adds `part`, just counted from text, to counts that may hold counts
    /// given by a caller: checked (nothing changes on overflow) once any
    /// count is that high, the plain merge otherwise.
    pub fn add_counted(&mut self, part: WordCounts) -> Result<()> {
        if self.near_max || part.near_max {
            return self.try_merge(&part).map(drop);
        }
        self.merge(part);
        Ok(())
    }

    /// Adds `other`'s counts, its new words after this map's, checking every
    /// sum first: on overflow nothing changes. Looks at the call's ambient
    /// flag as it goes (millions of words take seconds); stopped, it undoes
    /// what it did, so nothing changes then either.
    pub fn try_merge(&mut self, other: &WordCounts) -> Result<MergeMark> {
        let theirs = || other.words.iter().zip(&other.hashes).enumerate();
        for (k, ((w, c), &hash)) in theirs() {
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                cancel::checkpoint()?;
            }
            if let Some(i) = self.find(w, hash) {
                self.words[i].1.checked_add(*c).ok_or_else(|| {
                    Error::Overflow(format!("the count of {w:?} would exceed 2^64-1"))
                })?;
            }
        }
        let (old_len, old_near_max) = (self.len(), self.near_max);
        self.try_reserve(other.len().min(1 << 20))?;
        for (k, ((w, c), &hash)) in theirs() {
            let c = *c;
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                if let Err(stopped) = cancel::checkpoint() {
                    self.undo_merge(other, k, old_len, old_near_max);
                    return Err(stopped);
                }
            }
            let total = match self.find(w, hash) {
                Some(i) => {
                    self.words[i].1 += c;
                    self.words[i].1
                }
                None => {
                    self.push(w.clone(), c, hash);
                    c
                }
            };
            self.near_max |= total >= NEAR_MAX;
        }
        Ok(MergeMark {
            old_len,
            near_max: old_near_max,
        })
    }

    /// Takes back a whole `try_merge` of `other` (the call that made it was
    /// stopped after its last look at the flag, so it must change nothing).
    pub fn take_back(&mut self, other: &WordCounts, mark: MergeMark) {
        self.undo_merge(other, other.len(), mark.old_len, mark.near_max);
    }

    /// Takes back the first `done` words of `other` added by `try_merge` to
    /// counts that held `old_len` words.
    fn undo_merge(&mut self, other: &WordCounts, done: usize, old_len: usize, near_max: bool) {
        if self.len() > old_len {
            self.words.truncate(old_len);
            self.hashes.truncate(old_len);
            self.index.retain(|&mut i| i < old_len);
        }
        for ((w, c), &hash) in other.words.iter().zip(&other.hashes).take(done) {
            let c = *c;
            if let Some(i) = self.find(w, hash) {
                self.words[i].1 -= c;
            }
        }
        self.near_max = near_max;
    }

    /// A copy, looking at the call's ambient flag as it goes.
    pub fn try_copy(&self) -> Result<WordCounts> {
        let mut words = Vec::new();
        words
            .try_reserve_exact(self.len())
            .map_err(|_| out_of_memory())?;
        for (k, (w, c)) in self.words.iter().enumerate() {
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                cancel::checkpoint()?;
            }
            words.push((w.clone(), *c));
        }
        let mut hashes = Vec::new();
        hashes
            .try_reserve_exact(self.len())
            .map_err(|_| out_of_memory())?;
        hashes.extend_from_slice(&self.hashes);
        WordCounts::from_distinct(words, hashes, self.near_max)
    }

    /// Room for `n` more words, or `Error::Memory`.
    pub fn try_reserve(&mut self, n: usize) -> Result<()> {
        self.words.try_reserve(n).map_err(|_| out_of_memory())?;
        self.hashes.try_reserve(n).map_err(|_| out_of_memory())?;
        let hashes = &self.hashes;
        self.index
            .try_reserve(n, |&i| hashes[i])
            .map_err(|_| out_of_memory())
    }

    /// Adds a word not yet present; false (and nothing changes) if it is.
    pub fn insert_new(&mut self, word: String, count: u64) -> bool {
        let hash = hash_word(&word);
        if self.find(&word, hash).is_some() {
            return false;
        }
        self.push(word.into_boxed_str(), count, hash);
        self.near_max |= count >= NEAR_MAX;
        true
    }

    pub fn contains(&self, word: &str) -> bool {
        self.find(word, hash_word(word)).is_some()
    }

    /// The count of `word` (0 if never seen).
    pub fn get(&self, word: &str) -> u64 {
        self.find(word, hash_word(word))
            .map_or(0, |i| self.words[i].1)
    }

    /// The sum of all counts (past 2^64 for huge corpora, hence u128).
    pub fn total(&self) -> u128 {
        self.words.iter().map(|&(_, c)| c as u128).sum()
    }

    /// Drops the words counted fewer than `min_count` times; the others keep
    /// their order.
    pub fn prune(&mut self, min_count: u64) {
        if self.words.iter().all(|&(_, c)| c >= min_count) {
            return;
        }
        // The hashes first, each kept as its word will be.
        let (words, mut i) = (&self.words, 0);
        self.hashes.retain(|_| {
            i += 1;
            words[i - 1].1 >= min_count
        });
        self.words.retain(|&(_, c)| c >= min_count);
        self.reindex();
    }

    /// The `n` most frequent words (all when `n` is None), most frequent
    /// first, ties in first-appearance order.
    pub fn most_common(&self, n: Option<usize>) -> Vec<(&str, u64)> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        let rank = |&i: &usize| (std::cmp::Reverse(self.words[i].1), i);
        let n = n.unwrap_or(order.len()).min(order.len());
        if n < order.len() && n > 0 {
            order.select_nth_unstable_by_key(n - 1, rank);
        }
        order.truncate(n);
        order.sort_unstable_by_key(rank);
        order
            .into_iter()
            .map(|i| (&*self.words[i].0, self.words[i].1))
            .collect()
    }

    /// Equal words and counts in the same order.
    pub fn same_as(&self, other: &WordCounts) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }

    /// `(word, count)` pairs in first-appearance order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.words.iter().map(|(w, c)| (&**w, *c))
    }

    /// Counts of words given once each, in their order, with their hashes
    /// (`hash_word`): for parts of one counting run (see `merge`), and copies.
    pub(super) fn from_distinct(
        words: Vec<(Box<str>, u64)>,
        hashes: Vec<u64>,
        near_max: bool,
    ) -> Result<WordCounts> {
        let index = Self::index_of(&hashes)?;
        Ok(Self::from_indexed(words, hashes, index, near_max))
    }

    /// The index of distinct words with these hashes: each one's position.
    pub(super) fn index_of(hashes: &[u64]) -> Result<HashTable<usize>> {
        let mut index = HashTable::new();
        index
            .try_reserve(hashes.len(), |&i: &usize| hashes[i])
            .map_err(|_| out_of_memory())?;
        for (i, &hash) in hashes.iter().enumerate() {
            index.insert_unique(hash, i, |&j| hashes[j]);
        }
        Ok(index)
    }

    /// Distinct words with their hashes and `index_of` them.
    pub(super) fn from_indexed(
        words: Vec<(Box<str>, u64)>,
        hashes: Vec<u64>,
        index: HashTable<usize>,
        near_max: bool,
    ) -> WordCounts {
        debug_assert_eq!(words.len(), hashes.len());
        debug_assert_eq!(index.len(), hashes.len());
        WordCounts {
            words,
            hashes,
            index,
            near_max,
        }
    }

    /// `(word, count)` pairs in first-appearance order, with each word's
    /// hash, consuming the map.
    pub(super) fn into_hashed(self) -> HashedWords {
        (self.words, self.hashes)
    }

    /// Words and counts as two parallel vectors, consuming the map.
    pub fn into_parts(self) -> (Vec<Box<str>>, Vec<u64>) {
        self.words.into_iter().unzip()
    }
}

impl IndexedCounts for WordCounts {
    fn add(&mut self, word: &str, count: u64) {
        WordCounts::add(self, word, count);
    }

    fn add_indexed(&mut self, word: &str, count: u64) -> usize {
        let hash = hash_word(word);
        match self.find(word, hash) {
            Some(i) => {
                self.words[i].1 += count;
                i
            }
            None => self.push(word.into(), count, hash),
        }
    }

    #[inline]
    fn add_at(&mut self, index: usize, count: u64) {
        if let Some((_, c)) = self.words.get_mut(index) {
            *c += count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;

    fn counts(items: &[(&str, u64)]) -> WordCounts {
        let mut c = WordCounts::default();
        for &(w, n) in items {
            c.add(w, n);
        }
        c
    }

    #[test]
    fn merging_keeps_order_and_refuses_overflow_whole() {
        let mut a = counts(&[("x", 1), ("y", u64::MAX - 1)]);
        let b = counts(&[("z", 4), ("x", 2)]);
        a.try_merge(&b).unwrap();
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [("x", 3), ("y", u64::MAX - 1), ("z", 4)]
        );
        let before = a.clone();
        // "w" is new and comes first, but the overflow of "y" must leave no trace.
        let c = counts(&[("w", 1), ("y", 2)]);
        assert!(matches!(a.try_merge(&c), Err(Error::Overflow(_))));
        assert!(a.same_as(&before));
        assert!(!a.same_as(&counts(&[("y", u64::MAX - 1), ("x", 3), ("z", 4)])));
        // Counted text added to caller-given counts near the limit is checked.
        let mut given = WordCounts::default();
        given.try_add("y", u64::MAX - 1).unwrap();
        let before = given.clone();
        let r = given.add_counted(counts(&[("new", 1), ("y", 5)]));
        assert!(matches!(r, Err(Error::Overflow(_))));
        assert!(given.same_as(&before));
        given.add_counted(counts(&[("y", 1)])).unwrap();
        assert_eq!(given.get("y"), u64::MAX);
    }

    #[test]
    fn a_merge_stopped_part_way_is_undone_whole() {
        let base = counts(&[("x", 1), ("y", 7)]);
        let other = counts(&[("z", 4), ("x", 2), ("w", 1), ("y", 3)]);
        for done in 0..=other.len() {
            let mut a = base.clone();
            let mut prefix = WordCounts::default();
            for (w, c) in other.iter().take(done) {
                prefix.add(w, c);
            }
            a.try_merge(&prefix).unwrap();
            a.undo_merge(&other, done, base.len(), base.near_max);
            assert!(a.same_as(&base), "{done}");
        }
    }

    #[test]
    fn a_finished_merge_is_taken_back_whole() {
        let base = counts(&[("x", 1), ("y", u64::MAX - 9)]);
        let other = counts(&[("z", 4), ("x", 2), ("y", 3), ("w", 1)]);
        let mut a = base.clone();
        let mark = a.try_merge(&other).unwrap();
        assert_eq!((a.len(), a.get("y"), a.get("z")), (4, u64::MAX - 6, 4));
        a.take_back(&other, mark);
        assert!(a.same_as(&base));
        assert_eq!(a.near_max, base.near_max);
        // The counts merge again as the first time.
        a.try_merge(&other).unwrap();
        assert_eq!((a.len(), a.get("w")), (4, 1));
    }

    #[test]
    fn merging_and_copying_stop_when_told() {
        let words: Vec<String> = (0..3 * CHECKPOINT_STEPS).map(|k| format!("w{k}")).collect();
        let mut big = WordCounts::default();
        for w in &words {
            big.add(w, 2);
        }
        let mut a = counts(&[("w5", 1), ("new", 3)]);
        let before = a.clone();
        let stopped = std::sync::Arc::new(Cancel::new());
        stopped.cancel();
        cancel::with_ambient(&stopped, || {
            assert!(matches!(a.try_merge(&big), Err(Error::Interrupted)));
            assert!(matches!(big.try_copy(), Err(Error::Interrupted)));
        });
        assert!(a.same_as(&before));
        assert!(big.try_copy().unwrap().same_as(&big));
    }

    #[test]
    fn most_common_breaks_ties_by_first_appearance() {
        let c = counts(&[("a", 2), ("b", 5), ("c", 2), ("d", 5), ("e", 0)]);
        let all = [("b", 5), ("d", 5), ("a", 2), ("c", 2), ("e", 0)];
        assert_eq!(c.most_common(None), all);
        for n in 0..7 {
            assert_eq!(c.most_common(Some(n)), all[..n.min(5)]);
        }
        let mut p = c.clone();
        p.prune(2);
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            [("a", 2), ("b", 5), ("c", 2), ("d", 5)]
        );
        assert_eq!(c.total(), 14);
    }

    #[test]
    fn lookups_follow_pruning_undoing_copying_and_growth() {
        // Thousands of words: the index grows many times over.
        let mut c = WordCounts::default();
        for k in 0..5000u64 {
            c.add(&format!("w{k}"), k % 4);
        }
        c.prune(2);
        assert_eq!(c.len(), 2500);
        for k in 0..5000u64 {
            let want = if k % 4 >= 2 { k % 4 } else { 0 };
            assert_eq!(c.get(&format!("w{k}")), want, "w{k}");
            assert_eq!(c.contains(&format!("w{k}")), want > 0);
        }
        // A word dropped and added again goes last, at its new position.
        c.add("w0", 9);
        assert_eq!(c.iter().last(), Some(("w0", 9)));
        assert_eq!(c.get("w0"), 9);
        let copy = c.try_copy().unwrap();
        assert!(copy.same_as(&c));
        assert_eq!(copy.get("w4999"), 3);
        // Undone new words are gone from the index too.
        let before = c.clone();
        let other = counts(&[("new", 1), ("w3", 2), ("newer", 4)]);
        c.try_merge(&other).unwrap();
        c.undo_merge(&other, other.len(), before.len(), false);
        assert!(c.same_as(&before));
        assert!(!c.contains("new") && !c.contains("newer"));
        assert_eq!(c.get("w3"), 3);
        c.add("newer", 1);
        assert_eq!(c.iter().last(), Some(("newer", 1)));
    }
}
