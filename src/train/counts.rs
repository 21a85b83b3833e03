//! Parallel word counting that keeps first-appearance order.
//!
//! Documents are cut into chunks; each chunk is counted on its own thread into
//! an insertion-ordered map, and chunk results are merged in chunk order. A
//! word's global position is therefore its first appearance in the input,
//! whatever the number of threads or the chunk size.

use indexmap::IndexMap;
use rayon::prelude::*;
use rustc_hash::FxBuildHasher;

use super::short_words::{IndexedCounts, ShortWords};
use crate::cancel::{self, Cancel, CHECKPOINT_STEPS};
use crate::error::{Error, Result};
use crate::splitter::{SplitBuffers, Splitter, PIECE_BYTES};

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

/// What one counting thread keeps from document to document.
#[derive(Default)]
pub(super) struct CountScratch {
    /// Short words wait here until the thread's part is done.
    pub(super) short: ShortWords,
    pub(super) split: SplitBuffers,
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
    // One thread counts straight into the result: every part counted
    // apart would hash and store its words once more to be merged.
    if rayon::current_num_threads() == 1 {
        let mut scratch = CountScratch::default();
        for d in docs {
            cancel.check()?;
            count_doc(d.as_ref(), into, &mut scratch)?;
        }
        scratch.short.flush_into(into);
        return Ok(());
    }
    // One part of similar byte size per thread: each part's words are
    // hashed once more when merged, on one thread (eight parts a thread
    // made two threads slower than one).
    let total: usize = docs.iter().map(|d| d.as_ref().len()).sum();
    let target = (total / rayon::current_num_threads()).max(1 << 16);
    let mut bounds = vec![0usize];
    let mut acc = 0usize;
    for (i, d) in docs.iter().enumerate() {
        acc += d.as_ref().len() + 1;
        if acc >= target {
            bounds.push(i + 1);
            acc = 0;
        }
    }
    if *bounds.last().unwrap_or(&0) != docs.len() {
        bounds.push(docs.len());
    }
    let parts: Vec<WordCounts> = bounds
        .par_windows(2)
        .map(|b| {
            let mut local = WordCounts::default();
            let mut scratch = CountScratch::default();
            for d in &docs[b[0]..b[1]] {
                cancel.check()?;
                count_doc(d.as_ref(), &mut local, &mut scratch)?;
            }
            scratch.short.flush_into(&mut local);
            Ok(local)
        })
        .collect::<Result<_>>()?;
    for p in parts {
        into.merge(p);
    }
    Ok(())
}

/// Counting words as the encoder finds them: through its [`Splitter`] (these
/// methods live here, with the counting they serve).
impl Splitter {
    /// Counts the words of `doc` (an ASCII document in one pass over its
    /// bytes when the splitter's table handles all of them); a long one in
    /// pieces that split as the whole does, looking for `cancel` between them.
    pub(super) fn count_into(
        &self,
        doc: &str,
        out: &mut WordCounts,
        scratch: &mut CountScratch,
        cancel: &Cancel,
    ) -> Result<()> {
        let CountScratch { short, split } = scratch;
        if doc.len() <= PIECE_BYTES {
            self.words(doc, split, |w| short.add(w, out));
            return Ok(());
        }
        for (_, piece) in self.cuts().pieces(doc, PIECE_BYTES) {
            cancel.check()?;
            self.words(piece, split, |w| short.add(w, out));
        }
        Ok(())
    }

    /// [`Splitter::count_into`] through the splitter's general path alone.
    #[cfg(test)]
    fn count_general(&self, doc: &str, out: &mut WordCounts, short: &mut ShortWords) {
        let mut split = SplitBuffers::default();
        self.words_general(doc, &mut split, |w| short.add(w, out));
    }

    /// Counts the words of `docs` in parallel, in first-appearance order;
    /// stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn count_docs<S: AsRef<str> + Sync>(
        &self,
        docs: &[S],
        cancel: &Cancel,
    ) -> Result<WordCounts> {
        let mut out = WordCounts::default();
        self.count_docs_into(docs, &mut out, cancel)?;
        Ok(out)
    }

    /// [`Splitter::count_docs`], adding to `into` (whose words stay first).
    pub fn count_docs_into<S: AsRef<str> + Sync>(
        &self,
        docs: &[S],
        into: &mut WordCounts,
        cancel: &Cancel,
    ) -> Result<()> {
        count_docs_with(docs, into, cancel, |doc, out, scratch| {
            self.count_into(doc, out, scratch, cancel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::NormalizerConfig;
    use crate::pre_tokenizers::PreTokenizer;

    #[test]
    fn keeps_first_appearance_order_for_any_chunking() {
        let docs: Vec<String> = (0..5000)
            .map(|i| format!("w{} common w{}", i % 97, i % 13))
            .collect();
        let splitter = Splitter::default();
        let all = splitter.count_docs(&docs, Cancel::never()).unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = one
            .install(|| splitter.count_docs(&docs, Cancel::never()))
            .unwrap();
        let mut sequential = WordCounts::default();
        for d in &docs {
            let mut short = ShortWords::default();
            splitter.count_general(d, &mut sequential, &mut short);
            short.flush_into(&mut sequential);
        }
        let expected: Vec<(&str, u64)> = sequential.iter().collect();
        assert_eq!(all.iter().collect::<Vec<_>>(), expected);
        assert_eq!(single.iter().collect::<Vec<_>>(), expected);
        assert_eq!(expected[0].0, "w0");
        assert_eq!(expected[1].0, "common");
    }

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

    #[test]
    fn ascii_documents_count_as_the_general_path_in_every_configuration() {
        // Every ASCII byte, control characters and runs of one class included.
        let alphabet: Vec<char> = (0u8..128).map(char::from).collect();
        let mut state = 11u64;
        let docs: Vec<String> = (0..3000)
            .map(|_| {
                let mut d = String::new();
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                let len = (state >> 58) as usize;
                for _ in 0..len {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let r = (state >> 33) as usize;
                    // Mostly letters and spaces, so that words repeat.
                    d.push(match r % 4 {
                        0 => alphabet[r / 4 % 128],
                        1 => ' ',
                        _ => ['a', 'B', 'c', '1', '.', 'E'][r / 4 % 6],
                    });
                }
                d
            })
            .collect();
        let normalizers = [
            None,
            Some(NormalizerConfig::default()),
            Some(NormalizerConfig {
                lowercase: false,
                ..Default::default()
            }),
            Some(NormalizerConfig {
                clean_text: false,
                ..Default::default()
            }),
        ];
        let mut fast_taken = 0;
        for normalizer in normalizers {
            for pre_tokenizer in [PreTokenizer::Bert, PreTokenizer::Whitespace] {
                let splitter = Splitter::new(normalizer.clone(), pre_tokenizer);
                let (mut fast, mut general) = (WordCounts::default(), WordCounts::default());
                let mut scratch = CountScratch::default();
                let ascii = splitter.ascii_classes().unwrap();
                let mut short = ShortWords::default();
                for d in &docs {
                    fast_taken += ascii.words(d, &mut Vec::new(), |_| ()) as usize;
                    splitter
                        .count_into(d, &mut fast, &mut scratch, Cancel::never())
                        .unwrap();
                    splitter.count_general(d, &mut general, &mut short);
                }
                scratch.short.flush_into(&mut fast);
                short.flush_into(&mut general);
                assert_eq!(
                    fast.iter().collect::<Vec<_>>(),
                    general.iter().collect::<Vec<_>>(),
                    "{normalizer:?} {pre_tokenizer:?}"
                );
            }
        }
        // Both paths were taken: documents with control bytes go the general way.
        assert!(fast_taken > 3000 && fast_taken < 8 * 3000, "{fast_taken}");
    }
}
