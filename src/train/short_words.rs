//! Counting's front table: words of up to 15 bytes, kept inline in their
//! slot with a count of occurrences not yet added to the counts. A hit reads
//! and writes one slot; the map behind it would hash the word, follow its
//! entry to the word's own allocation and compare bytes there (most of
//! counting's time on English text). The map learns a word, and so its
//! first-appearance place, the first time the table meets it.

use crate::cache::table::index;
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

/// A word of up to 15 bytes: its bytes zero padded, its length in the last byte.
type Key = [u64; 2];

fn key_of(word: &[u8]) -> Key {
    debug_assert!(!word.is_empty() && word.len() <= MAX_SHORT);
    let [lo, hi] = padded_key(word);
    [lo, hi | (word.len() as u64) << 56]
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
/// for one set of counts while words are only added to it; its counts are
/// complete once `flush_into` has run.
pub struct ShortWords {
    slots: Vec<Slot>,
    filled: usize,
    max_slots: usize,
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
        }
    }

    /// Adds one occurrence of `word` to `counts`.
    #[inline]
    pub fn add(&mut self, word: &str, counts: &mut impl IndexedCounts) {
        let bytes = word.as_bytes();
        if bytes.is_empty() || bytes.len() > MAX_SHORT {
            counts.add(word, 1);
            return;
        }
        let key = key_of(bytes);
        let i = self.find(key);
        if self.slots[i].key == key {
            self.slots[i].pending += 1;
            return;
        }
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
    pub fn flush_into(self, counts: &mut impl IndexedCounts) {
        for s in self.slots.iter().filter(|s| s.pending > 0) {
            counts.add_at(s.at, s.pending);
        }
    }

    /// The slot holding `key`, or the free slot where it would go (the table
    /// is at most half full, so probing ends).
    #[inline]
    fn find(&self, key: Key) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = index(hash(key), self.slots.len());
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
}
