//! The word cache: normalized words to their WordPiece pieces.
//!
//! An open-addressing table (linear probing) whose slots hold the word bytes
//! and its pieces inline: a lookup is one hash of two machine words and
//! usually one slot read, with no pointer to follow. Words are only added,
//! never evicted, so frequent words (which come early) stay; once the table
//! is half full it takes no more. Words longer than `KEY` bytes or with more
//! than `PIECES` pieces are not cached.

use super::table::{index, prefetch, PROBES};
use crate::memory::ZeroedPages;
use crate::model::Piece;

const KEY: usize = 16;
/// Tokens stored inline in a slot.
const PIECES: usize = 3;
const SLOTS: usize = 1 << 17;
/// 32 bytes, aligned: a lookup touches one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Slot {
    key: [u64; 2],
    ids: [u32; PIECES],
    /// Word length; 0 marks an empty slot (words are never empty).
    len: u8,
    n: u8,
    /// Where the first pieces end (the last one ends at `len`).
    ends: [u8; PIECES - 1],
}

const EMPTY: Slot = Slot {
    key: [0; 2],
    ids: [0; PIECES],
    len: 0,
    n: 0,
    ends: [0; PIECES - 1],
};

pub(super) struct Table {
    slots: ZeroedPages<Slot>,
    filled: usize,
}

impl Table {
    /// An empty table of `n` slots, in fresh zeroed memory on huge pages
    /// where the system has them (see `ZeroedPages`).
    fn new(n: usize) -> Self {
        // SAFETY: all-zero bytes are a valid `Slot` (integers only, no
        // padding: 32 bytes of fields), and it is `EMPTY`.
        let slots = unsafe { ZeroedPages::new(n) };
        Self { slots, filled: 0 }
    }

    fn is_full(&self) -> bool {
        self.filled >= self.slots.len() / 2
    }

    #[inline]
    fn find(&self, h: u64, key: Key, len: usize) -> Option<&Slot> {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        for _ in 0..PROBES {
            let s = &self.slots[i];
            if s.len as usize == len && s.key == key {
                return Some(s);
            }
            if s.len == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
        None
    }

    fn insert(&mut self, h: u64, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        for _ in 0..PROBES {
            let s = &mut self.slots[i];
            if s.len == 0 {
                *s = slot;
                self.filled += 1;
                return;
            }
            if s.len == slot.len && s.key == slot.key {
                return;
            }
            i = (i + 1) & mask;
        }
    }
}

/// A copy on huge pages: each thread's cache starts as a copy of its
/// model's seed, and copying 4 MiB into fresh 4 KiB pages took about 2 ms
/// (1024 page faults), three quarters of a thread's first call; now two
/// faults and the copy itself.
impl Clone for Table {
    fn clone(&self) -> Self {
        let mut copy = Self::new(self.slots.len());
        copy.slots.copy_from_slice(&self.slots);
        copy.filled = self.filled;
        copy
    }
}

#[derive(Clone)]
pub struct WordCache {
    pub(super) table: Table,
}

impl std::fmt::Debug for WordCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordCache")
            .field("filled", &self.table.filled)
            .finish()
    }
}

/// Words up to this many bytes are cached.
pub const MAX_WORD: usize = KEY;

/// A cache key: the word's bytes as two little-endian words, zero padded.
pub type Key = [u64; 2];

/// The key of `word`; None if it is too long.
#[inline]
pub fn key_of(word: &[u8]) -> Option<Key> {
    if word.len() > KEY {
        return None;
    }
    Some(padded_key(word))
}

/// `word` (at most 16 bytes) as two little-endian words, zero padded, read
/// with a few overlapping loads: copying it into a zeroed buffer first made
/// each read of the buffer wait for the copy's bytes (a failed store
/// forward, a fifth of the time counting spent in its table).
#[inline]
pub(crate) fn padded_key(word: &[u8]) -> Key {
    let n = word.len();
    debug_assert!(n <= KEY);
    let u64_at = |at: usize| u64::from_le_bytes(word[at..at + 8].try_into().unwrap_or_default());
    let u32_at = |at: usize| {
        u64::from(u32::from_le_bytes(
            word[at..at + 4].try_into().unwrap_or_default(),
        ))
    };
    let byte = |at: usize| u64::from(word[at]) << (8 * at);
    match n {
        0 => [0, 0],
        // The loads overlap where n is not a whole number of them: the
        // bytes read twice are the same bytes, so OR keeps them.
        1..=3 => [byte(0) | byte(n / 2) | byte(n - 1), 0],
        4..=7 => [u32_at(0) | u32_at(n - 4) << (8 * (n - 4)), 0],
        8 => [u64_at(0), 0],
        _ => [u64_at(0), u64_at(n - 8) >> (8 * (KEY - n))],
    }
}

/// The key of `text[start..start + len]` (len <= 16), reading whole words
/// when the text allows it.
#[inline]
pub fn key_at(text: &[u8], start: usize, len: usize) -> Key {
    if start + KEY > text.len() {
        return padded_key(&text[start..start + len]);
    }
    let mut buf = [0u8; KEY];
    buf.copy_from_slice(&text[start..start + KEY]);
    key_from_bytes(&buf, len)
}

#[inline]
fn key_from_bytes(buf: &[u8; KEY], len: usize) -> Key {
    let mut lo = u64::from_le_bytes([
        buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7],
    ]);
    let mut hi = u64::from_le_bytes([
        buf[8], buf[9], buf[10], buf[11], buf[12], buf[13], buf[14], buf[15],
    ]);
    // Keep the first `len` bytes only.
    if len < 8 {
        lo &= (1u64 << (8 * len)) - 1;
        hi = 0;
    } else if len < 16 {
        hi &= (1u64 << (8 * (len - 8))) - 1;
    }
    [lo, hi]
}

/// The word's bytes back from its key.
#[inline]
pub fn key_bytes(key: Key) -> [u8; KEY] {
    let mut out = [0u8; KEY];
    out[..8].copy_from_slice(&key[0].to_le_bytes());
    out[8..].copy_from_slice(&key[1].to_le_bytes());
    out
}

/// ASCII lowercase of eight bytes at once (bytes must be ASCII).
#[inline]
pub fn ascii_lower(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let ge_a = x + ONES * (0x80 - b'A' as u64);
    let gt_z = x + ONES * (0x80 - (b'Z' as u64 + 1));
    x | (((ge_a & !gt_z) & (ONES * 0x80)) >> 2)
}

/// A 64-bit hash of the key; tables use its top bits.
#[inline]
pub fn hash(key: [u64; 2], len: usize) -> u64 {
    (key[0] ^ key[1].rotate_left(29) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl WordCache {
    fn new() -> Self {
        Self {
            table: Table::new(SLOTS),
        }
    }

    /// A cache holding, to begin with, each of `words` with the pieces
    /// `encode` gives it, while the table is less than half full.
    pub fn seeded<'a>(
        words: impl IntoIterator<Item = &'a [u8]>,
        mut encode: impl FnMut(&[u8], &mut Vec<Piece>),
    ) -> Self {
        let mut cache = Self::new();
        let mut pieces = Vec::new();
        for w in words {
            if cache.table.is_full() {
                break;
            }
            pieces.clear();
            encode(w, &mut pieces);
            cache.insert(w, &pieces);
        }
        cache
    }

    /// Calls `emit` with each cached piece of `word` and returns true, or
    /// returns false if the word is not cached.
    #[inline]
    pub fn lookup(&self, word: &[u8], emit: impl FnMut(Piece)) -> bool {
        match key_of(word) {
            Some(key) => self.lookup_key(key, word.len(), emit),
            None => false,
        }
    }

    /// Asks the CPU to start loading the slot of hash `h`, so that a lookup a
    /// little later finds it in cache.
    #[inline]
    pub fn prefetch(&self, h: u64) {
        prefetch(&self.table.slots[index(h, self.table.slots.len())]);
    }

    /// [`WordCache::lookup`] by key.
    #[inline]
    pub fn lookup_key(&self, key: Key, len: usize, emit: impl FnMut(Piece)) -> bool {
        self.lookup_hashed(hash(key, len), key, len, emit)
    }

    /// [`WordCache::lookup`] by key and its [`hash`].
    #[inline]
    pub fn lookup_hashed(&self, h: u64, key: Key, len: usize, mut emit: impl FnMut(Piece)) -> bool {
        let Some(s) = self.table.find(h, key, len) else {
            return false;
        };
        let n = s.n as usize;
        let mut start = 0u32;
        for k in 0..n {
            let end = if k + 1 == n {
                s.len as u32
            } else {
                s.ends[k] as u32
            };
            emit(Piece {
                id: s.ids[k],
                start,
                end,
            });
            start = end;
        }
        true
    }

    /// Stores the pieces of `word` (pieces must tile the word).
    pub fn insert(&mut self, word: &[u8], pieces: &[Piece]) {
        if let Some(key) = key_of(word) {
            self.insert_key(key, word.len(), pieces);
        }
    }

    /// [`WordCache::insert`] by key.
    pub fn insert_key(&mut self, key: Key, len: usize, pieces: &[Piece]) {
        if pieces.len() > PIECES {
            return;
        }
        let mut slot = Slot {
            key,
            len: len as u8,
            n: pieces.len() as u8,
            ..EMPTY
        };
        let mut start = 0u32;
        for (k, p) in pieces.iter().enumerate() {
            if p.start != start {
                return;
            }
            if k + 1 < pieces.len() {
                slot.ends[k] = p.end as u8;
            }
            slot.ids[k] = p.id;
            start = p.end;
        }
        if start as usize != len {
            return;
        }
        if !self.table.is_full() {
            self.table.insert(hash(key, len), slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fill_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<Slot>(), 32);
    }

    #[test]
    fn swar_lowercase_and_keys() {
        let all: Vec<u8> = (0u8..128).collect();
        for chunk in all.chunks(8) {
            let x = u64::from_le_bytes(chunk.try_into().unwrap());
            let expected: Vec<u8> = chunk.iter().map(u8::to_ascii_lowercase).collect();
            assert_eq!(ascii_lower(x).to_le_bytes().to_vec(), expected);
        }
        let text = b"Hello, wonderful world of words";
        for (start, len) in [(0, 5), (7, 9), (17, 5), (26, 5), (20, 11), (0, 16)] {
            let word = &text[start..start + len];
            assert_eq!(Some(key_at(text, start, len)), key_of(word));
            assert_eq!(&key_bytes(key_at(text, start, len))[..len], word);
        }
    }

    #[test]
    fn stores_and_returns_pieces() {
        let mut c = WordCache::new();
        let pieces = [
            Piece {
                id: 7,
                start: 0,
                end: 2,
            },
            Piece {
                id: 8,
                start: 2,
                end: 3,
            },
            Piece {
                id: 9,
                start: 3,
                end: 5,
            },
        ];
        c.insert(b"hello", &pieces);
        let mut got = Vec::new();
        assert!(c.lookup(b"hello", |p| got.push(p)));
        assert_eq!(got, pieces);
        assert!(!c.lookup(b"hell", |_| {}));
        assert!(!c.lookup(b"a-very-long-word-indeed", |_| {}));
    }

    #[test]
    fn a_seeded_cache_holds_what_the_encoder_gave_each_word_until_half_full() {
        let piece = |id, end| Piece { id, start: 0, end };
        let words: Vec<String> = (0..SLOTS).map(|i| format!("w{i}")).collect();
        let c = WordCache::seeded(words.iter().map(|w| w.as_bytes()), |w, out| {
            out.push(piece(w.len() as u32 * 10, w.len() as u32));
        });
        assert_eq!(c.table.filled, SLOTS / 2, "seeding stops half full");
        let mut got = Vec::new();
        assert!(c.lookup(b"w12", |p| got.push(p)));
        assert_eq!(got, [piece(30, 3)]);
        // Past half full: not seeded, and lookups say so.
        assert!(!c.lookup(words[SLOTS - 1].as_bytes(), |_| {}));
        // Pieces that do not tile the word are not kept.
        let gapped = WordCache::seeded([&b"abc"[..]], |_, out| out.push(piece(1, 2)));
        assert!(!gapped.lookup(b"abc", |_| {}));
    }

    #[test]
    fn a_copy_answers_as_its_original_and_grows_apart() {
        let piece = |id, end| Piece { id, start: 0, end };
        let seed = WordCache::seeded([&b"one"[..], b"two"], |w, out| {
            out.push(piece(w[0].into(), w.len() as u32));
        });
        let mut copy = seed.clone();
        assert_eq!(copy.table.filled, 2);
        let mut got = Vec::new();
        assert!(copy.lookup(b"two", |p| got.push(p)));
        assert_eq!(got, [piece(u32::from(b't'), 3)]);
        copy.insert(b"three", &[piece(3, 5)]);
        assert!(copy.lookup(b"three", |_| {}));
        assert!(
            !seed.lookup(b"three", |_| {}),
            "the original is not changed"
        );
        assert_eq!((seed.table.filled, copy.table.filled), (2, 3));
    }

    #[test]
    fn padded_keys_are_the_bytes_zero_padded() {
        let text: Vec<u8> = (0..64u8)
            .map(|b| b.wrapping_mul(37).wrapping_add(201))
            .collect();
        for start in 0..20 {
            for len in 0..=KEY {
                let word = &text[start..start + len];
                let mut buf = [0u8; KEY];
                buf[..len].copy_from_slice(word);
                assert_eq!(key_bytes(padded_key(word)), buf, "start {start} len {len}");
            }
        }
    }
}
