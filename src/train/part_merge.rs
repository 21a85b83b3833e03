//! Merging the counting threads' maps into one list in first-appearance
//! order, on every thread.
//!
//! Each thread counted its segments of the input into a map of its own, so
//! a word may be in several maps; its place in the result is its first
//! appearance, the earliest segment holding it. Adding the maps one word at
//! a time into one growing map runs on one thread and misses the cache at
//! nearly every word (on two threads it was a seventh to a fifth of counting's
//! time). Here the words are cut by hash into shards small enough for a
//! core's cache, and each shard is merged on its own (a word is in one
//! shard only): that decides each word's owner, the part whose segment
//! holds it first, and its total. A shard's items carry their words' first
//! bytes, so most words are compared without reading their strings, which
//! lie all over memory. Each part then keeps the words it owns, and the
//! segments are laid end to end in input order while the index is made.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hashbrown::HashTable;
use rayon::prelude::*;

use super::counts::{out_of_memory, WordCounts};
use crate::cancel::Cancel;
use crate::error::{Error, Result};

/// One thread's counts: its words in the order it met them, and where each
/// of its segments begins.
pub(super) struct CountedPart {
    /// Each segment's place in the input and the index of its first word
    /// (places rise; a segment may be empty).
    pub(super) segments: Vec<(usize, usize)>,
    pub(super) words: Vec<(Box<str>, u64)>,
    /// Each word's hash (`hash_word`).
    pub(super) hashes: Vec<u64>,
}

/// A shard this size or so fits a core's cache with its table.
const SHARD_WORDS: usize = 2048;

/// The parts' words, each once with its total, in first-appearance order,
/// indexed. Every count must be positive (counted words are) and
/// no total past 2^64-1 (one counting run's cannot be).
pub(super) fn merge_parts(parts: Vec<CountedPart>, cancel: &Cancel) -> Result<WordCounts> {
    // Indices are kept as u32 (a part past 2^32 words would need hundreds of GB).
    if parts.iter().any(|p| p.words.len() > u32::MAX as usize) {
        return Err(Error::Memory(
            "word counts: more than 2^32 words on one thread".into(),
        ));
    }
    let total: usize = parts.iter().map(|p| p.words.len()).sum();
    let shards = (total / SHARD_WORDS).next_power_of_two().clamp(1, 1 << 12);
    // Bits 32 and up pick the shard: hashbrown takes the top 7 bits and the
    // lowest ones, which must still vary within a shard.
    let shard_of = |h: u64| (h >> 32) as usize & (shards - 1);
    let hashed: Vec<Hashed> = parts
        .par_iter()
        .map(|p| Hashed::of(p, shards, shard_of))
        .collect();
    // The owner's total for each word it owns, 0 for the others.
    let totals: Vec<Vec<AtomicU64>> = parts
        .iter()
        .map(|p| (0..p.words.len()).map(|_| AtomicU64::new(0)).collect())
        .collect();
    (0..shards).into_par_iter().try_for_each(|s| {
        cancel.check()?;
        merge_shard(s, &parts, &hashed, &totals);
        Ok(())
    })?;
    drop(hashed);
    // Each part moves the words it owns to its front, in order, with their
    // totals, and says how many of each segment's it owns. In place: a copy
    // into new memory took most of this step's time. The others stay behind
    // them, freed beside the index's making.
    struct Kept {
        words: Vec<(Box<str>, u64)>,
        hashes: Vec<u64>,
        sizes: Vec<(usize, usize)>,
    }
    let kept: Vec<Kept> = parts
        .into_par_iter()
        .zip(totals)
        .map(|(part, totals)| {
            let CountedPart {
                segments,
                mut words,
                mut hashes,
            } = part;
            let ends = segments.iter().skip(1).map(|&(_, start)| start);
            let ends: Vec<usize> = ends.chain([words.len()]).collect();
            let mut sizes: Vec<(usize, usize)> =
                segments.iter().map(|&(place, _)| (place, 0)).collect();
            let (mut owned, mut segment) = (0, 0);
            for (i, total) in totals.into_iter().enumerate() {
                while i >= ends[segment] {
                    segment += 1;
                }
                let total = total.into_inner();
                if total > 0 {
                    words.swap(owned, i);
                    words[owned].1 = total;
                    hashes[owned] = hashes[i];
                    sizes[segment].1 += 1;
                    owned += 1;
                }
            }
            hashes.truncate(owned);
            Kept {
                words,
                hashes,
                sizes,
            }
        })
        .collect();
    // Every segment, in input order: (place, its part, its words).
    let mut order: Vec<(usize, usize, usize)> = kept
        .iter()
        .enumerate()
        .flat_map(|(t, k)| k.sizes.iter().map(move |&(place, n)| (place, t, n)))
        .collect();
    order.sort_unstable();
    let size = kept.iter().map(|k| k.hashes.len()).sum();
    let (mut merged, mut merged_hashes) = (Vec::new(), Vec::new());
    merged
        .try_reserve_exact(size)
        .map_err(|_| out_of_memory())?;
    merged_hashes
        .try_reserve_exact(size)
        .map_err(|_| out_of_memory())?;
    let mut hashes: Vec<_> = kept.iter().map(|k| k.hashes.iter()).collect();
    for &(_, t, n) in &order {
        merged_hashes.extend(hashes[t].by_ref().take(n));
    }
    drop(hashes);
    // The words laid end to end (and the others freed) on one thread, their
    // index made on another.
    let ((), index) = rayon::join(
        || {
            let mut words: Vec<_> = kept.into_iter().map(|k| k.words.into_iter()).collect();
            for &(_, t, n) in &order {
                merged.extend(words[t].by_ref().take(n));
            }
        },
        || WordCounts::index_of(&merged_hashes),
    );
    Ok(WordCounts::from_indexed(
        merged,
        merged_hashes,
        index?,
        false,
    ))
}

/// A part's words by shard: each word's hash, index and count, shard by
/// shard, rising by index within each (read in order when merging).
struct Hashed {
    items: Vec<Item>,
    /// Where each shard's items start (one more entry than shards).
    starts: Vec<usize>,
}

/// Bytes of a word kept beside its hash: most words fit, and comparing
/// them there spares a read of the word's own memory, far away (the
/// comparisons took three quarters of the shards' time).
const HEAD: usize = 16;

#[derive(Clone, Copy, Default)]
struct Item {
    hash: u64,
    count: u64,
    index: u32,
    /// The place in the input of the segment holding the word.
    place: usize,
    /// The word's length in bytes (at most `u32::MAX`: a longer word is
    /// compared whole) and its first `HEAD` bytes (zeros after).
    len: u32,
    head: [u8; HEAD],
}

impl Item {
    /// Whether two items hold the same word, reading the words themselves
    /// (`mine`, `theirs`) only past their heads.
    fn same_word<'a>(
        &self,
        other: &Item,
        mine: impl FnOnce() -> &'a str,
        theirs: impl FnOnce() -> &'a str,
    ) -> bool {
        self.hash == other.hash
            && self.len == other.len
            && self.head == other.head
            && (self.len as usize <= HEAD || mine() == theirs())
    }
}

impl Hashed {
    fn of(part: &CountedPart, shards: usize, shard_of: impl Fn(u64) -> usize) -> Self {
        let hashes = &part.hashes;
        let mut starts = vec![0usize; shards + 1];
        for &h in hashes {
            starts[shard_of(h) + 1] += 1;
        }
        for s in 0..shards {
            starts[s + 1] += starts[s];
        }
        let mut next: Vec<usize> = starts[..shards].to_vec();
        let mut items = vec![Item::default(); hashes.len()];
        let mut segments = part.segments.iter().peekable();
        let mut place = 0;
        for (i, (&hash, (word, count))) in hashes.iter().zip(&part.words).enumerate() {
            while let Some(&(p, _)) = segments.next_if(|&&(_, start)| start <= i) {
                place = p;
            }
            let s = shard_of(hash);
            let bytes = word.as_bytes();
            let mut head = [0u8; HEAD];
            let n = bytes.len().min(HEAD);
            head[..n].copy_from_slice(&bytes[..n]);
            items[next[s]] = Item {
                hash,
                count: *count,
                index: i as u32,
                place,
                len: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
                head,
            };
            next[s] += 1;
        }
        Self { items, starts }
    }

    fn shard(&self, s: usize) -> &[Item] {
        &self.items[self.starts[s]..self.starts[s + 1]]
    }
}

/// A word of a shard: its earliest appearance so far (the part, and the
/// item there) and its total so far.
#[derive(Clone, Copy)]
struct Owner {
    part: u32,
    item: Item,
    total: u64,
}

/// Merges shard `s` of every part: each of its words' owner gets its total.
fn merge_shard(s: usize, parts: &[CountedPart], hashed: &[Hashed], totals: &[Vec<AtomicU64>]) {
    let size: usize = hashed.iter().map(|h| h.shard(s).len()).sum();
    let mut table: HashTable<Owner> = HashTable::with_capacity(size);
    for (t, h) in hashed.iter().enumerate() {
        let t = t as u32;
        let word = |part: u32, item: &Item| &*parts[part as usize].words[item.index as usize].0;
        for item in h.shard(s) {
            let same =
                |o: &Owner| item.same_word(&o.item, || word(t, item), || word(o.part, &o.item));
            match table.find_mut(item.hash, same) {
                Some(o) => {
                    o.total += item.count;
                    // Parts come in order but their segments interleave:
                    // the earliest place owns the word.
                    if item.place < o.item.place {
                        (o.part, o.item) = (t, *item);
                    }
                }
                None => {
                    let owner = Owner {
                        part: t,
                        item: *item,
                        total: item.count,
                    };
                    table.insert_unique(item.hash, owner, |o| o.item.hash);
                }
            }
        }
    }
    for o in table {
        totals[o.part as usize][o.item.index as usize].store(o.total, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::counts::hash_word;
    use proptest::prelude::*;

    /// The input as segments in order, each counted by the part named with
    /// it: the parts as counting leaves them, and the plain count of the
    /// whole input one word after another (the order the merge must give).
    fn counted(
        segments: &[(usize, Vec<String>)],
        parts: usize,
        hash: fn(&str) -> u64,
    ) -> (Vec<CountedPart>, Vec<(String, u64)>) {
        let mut out: Vec<CountedPart> = (0..parts)
            .map(|_| CountedPart {
                segments: Vec::new(),
                words: Vec::new(),
                hashes: Vec::new(),
            })
            .collect();
        let mut plain: Vec<(String, u64)> = Vec::new();
        for (place, (t, words)) in segments.iter().enumerate() {
            let part = &mut out[*t];
            part.segments.push((place, part.words.len()));
            for w in words {
                match part.words.iter_mut().find(|(x, _)| &**x == w.as_str()) {
                    Some((_, c)) => *c += 1,
                    None => {
                        part.words.push((w.as_str().into(), 1));
                        part.hashes.push(hash(w));
                    }
                }
                match plain.iter_mut().find(|(x, _)| x == w) {
                    Some((_, c)) => *c += 1,
                    None => plain.push((w.clone(), 1)),
                }
            }
        }
        (out, plain)
    }

    fn check_hashed(segments: &[(usize, Vec<String>)], parts: usize, hash: fn(&str) -> u64) {
        let (counted, want) = counted(segments, parts, hash);
        let (words, hashes) = merge_parts(counted, Cancel::never()).unwrap().into_hashed();
        let got: Vec<(String, u64)> = words.iter().map(|(w, c)| (w.to_string(), *c)).collect();
        assert_eq!(got, want);
        let rehashed: Vec<u64> = words.iter().map(|(w, _)| hash(w)).collect();
        assert_eq!(hashes, rehashed);
    }

    fn check(segments: &[(usize, Vec<String>)], parts: usize) {
        check_hashed(segments, parts, hash_word);
    }

    /// Words around the length of the bytes kept beside a hash (`HEAD`):
    /// equal heads with other tails, equal tails with other heads.
    const AROUND_HEAD: &str = "[ab\u{e9}]{0,3}|#{1,2}|a{14,17}[ab\u{e9}]{0,3}|[ab]{1,3}a{14,16}";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        // Segments in any order among the parts (empty ones, parts with
        // none), words met again in later segments of other parts.
        #[test]
        fn merged_parts_are_the_input_counted_in_turn(
            segments in prop::collection::vec(
                (0usize..4, prop::collection::vec(AROUND_HEAD, 0..12)),
                0..20,
            ),
        ) {
            check(&segments, 4);
        }

        // Every word with the same hash: only the words themselves (their
        // lengths, heads and the rest) tell them apart.
        #[test]
        fn words_of_one_hash_are_told_apart(
            segments in prop::collection::vec(
                (0usize..3, prop::collection::vec(AROUND_HEAD, 0..12)),
                0..12,
            ),
        ) {
            check_hashed(&segments, 3, |_| 7 << 32);
        }
    }

    #[test]
    fn many_shards_keep_first_appearance_order() {
        // Enough words for dozens of shards, each word met by several parts
        // in interleaved segments.
        let mut state = 11u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let segments: Vec<(usize, Vec<String>)> = (0..300)
            .map(|k| {
                let words = (0..next(400))
                    .map(|_| format!("w{}", next(20 + 100 * k)))
                    .collect();
                (next(3) as usize, words)
            })
            .collect();
        let (all, _) = counted(&segments, 3, hash_word);
        let total: usize = all.iter().map(|p| p.words.len()).sum();
        assert!(total / SHARD_WORDS >= 8, "{total} words");
        check(&segments, 3);
    }

    #[test]
    fn stops_when_told() {
        let segments = vec![(0, vec!["a".to_string()]), (1, vec!["a".to_string()])];
        let (parts, _) = counted(&segments, 2, hash_word);
        let stopped = Cancel::new();
        stopped.cancel();
        assert!(matches!(
            merge_parts(parts, &stopped),
            Err(Error::Interrupted)
        ));
    }
}
