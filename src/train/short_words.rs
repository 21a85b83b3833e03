//! Counting's front table: words of up to 15 bytes, kept inline in their
//! slot with a count of occurrences not yet added to the counts. A hit reads
//! and writes one slot; the map behind it would hash the word, follow its
//! entry to the word's own allocation and compare bytes there (most of
//! counting's time on English text). The map learns a word, and so its
//! first-appearance place, the first time the table meets it.
//!
//! Most lookups of a large table miss the cache, and the next word's
//! lookup waited for this one's: a word's slot is asked for as it arrives
//! and read `AHEAD` words later, so that the misses overlap.

use crate::cache::table::{index, prefetch};
use crate::cache::word::padded_key;

/// The counts behind the table: words in first-appearance order, each at an index.
pub trait IndexedCounts {
    /// Adds `count` occurrences of `word` (appended if new).
    fn add(&mut self, word: &str, count: u64);
    /// `add`, returning the word's index.
    fn add_indexed(&mut self, word: &str, count: u64) -> usize;
    /// Adds `count` to the word at `index`.
    fn add_at(&mut self, index: usize, count: u64);
}

/// Longest word kept in the table, in bytes (the key's last byte holds the length).
const MAX_SHORT: usize = 15;
/// The table stops growing here (128 MiB) and, half full, takes no more
/// words: in Zipf-distributed text the frequent ones come first.
const MAX_SLOTS: usize = 1 << 22;
/// Words between asking for a slot and reading it (a power of two): enough
/// to cover a miss with the splitting of the words in between.
const AHEAD: usize = 8;

/// A word of up to 15 bytes: its bytes zero padded, its length in the last byte.
type Key = [u64; 2];

fn key_of(word: &[u8]) -> Key {
    debug_assert!(!word.is_empty() && word.len() <= MAX_SHORT);
    let [lo, hi] = padded_key(word);
    [lo, hi | (word.len() as u64) << 56]
}

/// The word a key holds (its bytes are the word's, in order).
fn word_of(key: &Key) -> ([u8; 16], usize) {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&key[0].to_le_bytes());
    bytes[8..].copy_from_slice(&key[1].to_le_bytes());
    (bytes, (key[1] >> 56) as usize)
}

/// A 64-bit hash of a key; the table uses its top bits.
fn hash(key: Key) -> u64 {
    (key[0] ^ key[1].rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[derive(Clone, Copy)]
struct Slot {
    /// All zero when free (a key's length byte is never zero).
    key: Key,
    /// The word's index in the counts.
    at: usize,
    /// Occurrences since, to be added by `flush_into`.
    pending: u64,
}

const FREE: Slot = Slot {
    key: [0; 2],
    at: 0,
    pending: 0,
};

/// Short words seen by one counting pass and where their counts are. Valid
/// for one set of counts while words are only added to it. The last few
/// words added may wait for their slot: the counts hold every word, in
/// first-appearance order, once `settle` has run, and every occurrence once
/// `flush_into` has.
pub struct ShortWords {
    slots: Vec<Slot>,
    filled: usize,
    max_slots: usize,
    /// Words whose slot is being loaded, oldest at `waiting_from`, each with its hash.
    waiting: [(Key, u64); AHEAD],
    waiting_from: usize,
    waiting_len: usize,
}

impl Default for ShortWords {
    fn default() -> Self {
        Self::with_max_slots(MAX_SLOTS)
    }
}

impl ShortWords {
    fn with_max_slots(max_slots: usize) -> Self {
        Self {
            slots: vec![FREE; (1 << 12).min(max_slots)],
            filled: 0,
            max_slots,
            waiting: [([0; 2], 0); AHEAD],
            waiting_from: 0,
            waiting_len: 0,
        }
    }

    /// Adds one occurrence of `word` to `counts` (a short one once `AHEAD`
    /// more words have come, or at `settle`).
    #[inline]
    pub fn add(&mut self, word: &str, counts: &mut impl IndexedCounts) {
        let bytes = word.as_bytes();
        if bytes.is_empty() || bytes.len() > MAX_SHORT {
            // The words before it go first: the counts keep their order.
            self.settle(counts);
            counts.add(word, 1);
            return;
        }
        let key = key_of(bytes);
        let h = hash(key);
        prefetch(&self.slots[index(h, self.slots.len())]);
        if self.waiting_len == AHEAD {
            let (oldest, oldest_hash) = self.waiting[self.waiting_from];
            self.waiting[self.waiting_from] = (key, h);
            self.waiting_from = (self.waiting_from + 1) % AHEAD;
            self.add_short(oldest, oldest_hash, counts);
        } else {
            self.waiting[(self.waiting_from + self.waiting_len) % AHEAD] = (key, h);
            self.waiting_len += 1;
        }
    }

    /// Adds the words still waiting for their slot, in order.
    pub fn settle(&mut self, counts: &mut impl IndexedCounts) {
        while self.waiting_len > 0 {
            let (key, h) = self.waiting[self.waiting_from];
            self.waiting_from = (self.waiting_from + 1) % AHEAD;
            self.waiting_len -= 1;
            self.add_short(key, h, counts);
        }
    }

    /// Adds one occurrence of the short word `key` holds (`h` its hash).
    #[inline]
    fn add_short(&mut self, key: Key, h: u64, counts: &mut impl IndexedCounts) {
        let i = self.find_hashed(key, h);
        if self.slots[i].key == key {
            self.slots[i].pending += 1;
            return;
        }
        let (bytes, len) = word_of(&key);
        // A key is built from a word's bytes, which are UTF-8.
        let word = std::str::from_utf8(&bytes[..len]).unwrap_or_default();
        debug_assert_eq!(key_of(word.as_bytes()), key);
        if 2 * (self.filled + 1) > self.slots.len() && self.slots.len() >= self.max_slots {
            counts.add(word, 1);
            return;
        }
        self.slots[i] = Slot {
            key,
            at: counts.add_indexed(word, 1),
            pending: 0,
        };
        self.filled += 1;
        if 2 * self.filled > self.slots.len() && self.slots.len() < self.max_slots {
            self.grow();
        }
    }

    /// Adds the occurrences counted here to `counts`.
    pub fn flush_into(mut self, counts: &mut impl IndexedCounts) {
        self.settle(counts);
        for s in self.slots.iter().filter(|s| s.pending > 0) {
            counts.add_at(s.at, s.pending);
        }
    }

    /// The slot holding `key`, or the free slot where it would go (the table
    /// is at most half full, so probing ends).
    #[inline]
    fn find(&self, key: Key) -> usize {
        self.find_hashed(key, hash(key))
    }

    /// `find` for a key whose hash is `h`.
    #[inline]
    fn find_hashed(&self, key: Key, h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        while self.slots[i].key != key && self.slots[i].key != [0; 2] {
            i = (i + 1) & mask;
        }
        i
    }

    fn grow(&mut self) {
        let bigger = vec![FREE; 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, bigger);
        for s in old.into_iter().filter(|s| s.key != [0; 2]) {
            let i = self.find(s.key);
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::counts::WordCounts;

    #[test]
    fn counts_as_the_map_alone_in_the_same_order() {
        // Words around the 15-byte limit, multi-byte ones, repeats far apart
        // (past several table growths), on top of counts already there.
        let mut words: Vec<String> = Vec::new();
        let mut state = 7u64;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = (state >> 33) % 20_000;
            let len = 1 + (n % 19) as usize;
            let mut w: String = format!("{n:x}").repeat(len).chars().take(len).collect();
            if n.is_multiple_of(7) {
                w.push('é');
            }
            words.push(w);
        }
        let mut plain = WordCounts::default();
        let mut fast = WordCounts::default();
        for w in ["seen", "before", "0"] {
            plain.add(w, 5);
            fast.add(w, 5);
        }
        let mut capped = fast.clone();
        let mut short = ShortWords::default();
        // A table that stops at 1024 slots: most words go past it to the map.
        let mut small = ShortWords::with_max_slots(1024);
        for w in &words {
            plain.add(w, 1);
            short.add(w, &mut fast);
            small.add(w, &mut capped);
        }
        assert_eq!(small.slots.len(), 1024);
        short.flush_into(&mut fast);
        small.flush_into(&mut capped);
        let plain: Vec<(&str, u64)> = plain.iter().collect();
        assert!(plain.len() > 10_000);
        assert_eq!(plain, fast.iter().collect::<Vec<_>>());
        assert_eq!(plain, capped.iter().collect::<Vec<_>>());
    }

    #[test]
    fn waiting_words_keep_their_place() {
        // Fewer words than wait for a slot, then a long word (straight to the
        // map) and the empty one: the short words before it are counted first.
        let mut counts = WordCounts::default();
        let mut short = ShortWords::default();
        for w in ["b", "a", "b", "éé", "a_word_of_16byte", "b", "", "c"] {
            short.add(w, &mut counts);
        }
        let words: Vec<&str> = counts.iter().map(|(w, _)| w).collect();
        assert_eq!(words, ["b", "a", "éé", "a_word_of_16byte", ""]);
        short.settle(&mut counts);
        let words: Vec<&str> = counts.iter().map(|(w, _)| w).collect();
        assert_eq!(words, ["b", "a", "éé", "a_word_of_16byte", "", "c"]);
        short.flush_into(&mut counts);
        let all: Vec<(&str, u64)> = counts.iter().collect();
        assert_eq!(
            all,
            [
                ("b", 3),
                ("a", 1),
                ("éé", 1),
                ("a_word_of_16byte", 1),
                ("", 1),
                ("c", 1)
            ]
        );
    }
}
