//! Word types in first-appearance order with their counts (counting
//! documents into them is `counting.rs`).

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

use super::short_words::IndexedCounts;
use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::error::{Error, Result};

/// Word types in first-appearance order with their counts (each word stored once).
#[derive(Clone, Debug, Default)]
pub struct WordCounts {
    map: IndexMap<Box<str>, u64, FxBuildHasher>,
    /// Whether a count may be at or past `NEAR_MAX`: only counts given by a
    /// caller (or loaded) get there, and only then must sums be checked.
    near_max: bool,
}

/// Counting text never gets a count this high (it would take 2^62 words),
/// so below it two counts always add without overflow.
const NEAR_MAX: u64 = 1 << 62;

impl WordCounts {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Adds `count` occurrences of `word` (appended if new).
    pub fn add(&mut self, word: &str, count: u64) {
        match self.map.get_mut(word) {
            Some(c) => *c += count,
            None => {
                self.map.insert(word.into(), count);
            }
        }
    }

    /// `add`, for counts given by a caller: a total past 2^64-1 is an error.
    pub fn try_add(&mut self, word: &str, count: u64) -> Result<()> {
        let total = match self.map.get_mut(word) {
            Some(c) => {
                *c = c.checked_add(count).ok_or_else(|| {
                    Error::Overflow(format!("the count of {word:?} exceeds 2^64-1"))
                })?;
                *c
            }
            None => {
                self.map.insert(word.into(), count);
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
        if self.map.is_empty() {
            self.map = other.map;
            return;
        }
        for (w, c) in other.map {
            *self.map.entry(w).or_insert(0) += c;
        }
    }

    /// Adds `part`, just counted from text, to counts that may hold counts
    /// given by a caller: checked (nothing changes on overflow) once any
    /// count is that high, the plain merge otherwise.
    pub fn add_counted(&mut self, part: WordCounts) -> Result<()> {
        if self.near_max || part.near_max {
            return self.try_merge(&part);
        }
        self.merge(part);
        Ok(())
    }

    /// Adds `other`'s counts, its new words after this map's, checking every
    /// sum first: on overflow nothing changes. Looks at the call's ambient
    /// flag as it goes (millions of words take seconds); stopped, it undoes
    /// what it did, so nothing changes then either.
    pub fn try_merge(&mut self, other: &WordCounts) -> Result<()> {
        for (k, (w, &c)) in other.map.iter().enumerate() {
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                cancel::checkpoint()?;
            }
            if let Some(&mine) = self.map.get(w) {
                mine.checked_add(c).ok_or_else(|| {
                    Error::Overflow(format!("the count of {w:?} would exceed 2^64-1"))
                })?;
            }
        }
        let (old_len, old_near_max) = (self.map.len(), self.near_max);
        self.try_reserve(other.len().min(1 << 20))?;
        for (k, (w, &c)) in other.map.iter().enumerate() {
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                if let Err(stopped) = cancel::checkpoint() {
                    self.undo_merge(other, k, old_len, old_near_max);
                    return Err(stopped);
                }
            }
            let total = match self.map.get_mut(&**w) {
                Some(mine) => {
                    *mine += c;
                    *mine
                }
                None => {
                    self.map.insert(w.clone(), c);
                    c
                }
            };
            self.near_max |= total >= NEAR_MAX;
        }
        Ok(())
    }

    /// Takes back the first `done` words of `other` added by `try_merge` to
    /// counts that held `old_len` words.
    fn undo_merge(&mut self, other: &WordCounts, done: usize, old_len: usize, near_max: bool) {
        self.map.truncate(old_len);
        for (w, &c) in other.map.iter().take(done) {
            if let Some(mine) = self.map.get_mut(&**w) {
                *mine -= c;
            }
        }
        self.near_max = near_max;
    }

    /// A copy, looking at the call's ambient flag as it goes.
    pub fn try_copy(&self) -> Result<WordCounts> {
        let mut map = IndexMap::with_hasher(FxBuildHasher);
        map.try_reserve(self.len())
            .map_err(|_| Error::Memory("word counts: out of memory".into()))?;
        for (k, (w, &c)) in self.map.iter().enumerate() {
            if k % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 {
                cancel::checkpoint()?;
            }
            map.insert(w.clone(), c);
        }
        Ok(WordCounts {
            map,
            near_max: self.near_max,
        })
    }

    /// Room for `n` more words, or `Error::Memory`.
    pub fn try_reserve(&mut self, n: usize) -> Result<()> {
        self.map
            .try_reserve(n)
            .map_err(|_| Error::Memory("word counts: out of memory".into()))
    }

    /// Adds a word not yet present; false (and nothing changes) if it is.
    pub fn insert_new(&mut self, word: String, count: u64) -> bool {
        match self.map.entry(word.into_boxed_str()) {
            indexmap::map::Entry::Occupied(_) => false,
            indexmap::map::Entry::Vacant(v) => {
                v.insert(count);
                self.near_max |= count >= NEAR_MAX;
                true
            }
        }
    }

    pub fn contains(&self, word: &str) -> bool {
        self.map.contains_key(word)
    }

    /// The count of `word` (0 if never seen).
    pub fn get(&self, word: &str) -> u64 {
        self.map.get(word).copied().unwrap_or(0)
    }

    /// The sum of all counts (past 2^64 for huge corpora, hence u128).
    pub fn total(&self) -> u128 {
        self.map.values().map(|&c| c as u128).sum()
    }

    /// Drops the words counted fewer than `min_count` times; the others keep
    /// their order.
    pub fn prune(&mut self, min_count: u64) {
        self.map.retain(|_, c| *c >= min_count);
    }

    /// The `n` most frequent words (all when `n` is None), most frequent
    /// first, ties in first-appearance order.
    pub fn most_common(&self, n: Option<usize>) -> Vec<(&str, u64)> {
        let mut order: Vec<usize> = (0..self.map.len()).collect();
        let rank = |&i: &usize| (std::cmp::Reverse(self.map[i]), i);
        let n = n.unwrap_or(order.len()).min(order.len());
        if n < order.len() && n > 0 {
            order.select_nth_unstable_by_key(n - 1, rank);
        }
        order.truncate(n);
        order.sort_unstable_by_key(rank);
        order
            .into_iter()
            .filter_map(|i| self.map.get_index(i).map(|(w, &c)| (&**w, c)))
            .collect()
    }

    /// Equal words and counts in the same order.
    pub fn same_as(&self, other: &WordCounts) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }

    /// `(word, count)` pairs in first-appearance order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.map.iter().map(|(w, &c)| (&**w, c))
    }

    /// Adds `count` to `word`, taking the word's allocation if it is new. For
    /// parts of one counting run (see `merge`).
    pub(super) fn absorb(&mut self, word: Box<str>, count: u64) {
        debug_assert!(!self.near_max);
        *self.map.entry(word).or_insert(0) += count;
    }

    /// `(word, count)` pairs in first-appearance order, consuming the map.
    pub(super) fn into_entries(self) -> impl Iterator<Item = (Box<str>, u64)> {
        self.map.into_iter()
    }

    /// Words and counts as two parallel vectors, consuming the map.
    pub fn into_parts(self) -> (Vec<Box<str>>, Vec<u64>) {
        self.map.into_iter().unzip()
    }
}

impl IndexedCounts for WordCounts {
    fn add(&mut self, word: &str, count: u64) {
        WordCounts::add(self, word, count);
    }

    fn add_indexed(&mut self, word: &str, count: u64) -> usize {
        match self.map.get_full_mut(word) {
            Some((i, _, c)) => {
                *c += count;
                i
            }
            None => self.map.insert_full(word.into(), count).0,
        }
    }

    #[inline]
    fn add_at(&mut self, index: usize, count: u64) {
        if let Some((_, c)) = self.map.get_index_mut(index) {
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
}
