//! Per-thread caches: whitespace-separated chunks of raw text to their ids and
//! offsets, and normalized words to their WordPiece pieces.
//!
//! Real text repeats its words (Zipf), so most chunks are looked up rather
//! than normalized, split and matched again; a chunk missing from the first
//! cache is split into words, which usually hit the second. The cache is an open-addressing table (linear probing) whose
//! slots hold the word bytes and its pieces inline: a lookup is one hash of two
//! machine words and usually one slot read, with no pointer to follow. Words
//! are only added, never evicted, so frequent words (which come early) stay;
//! once the table is half full it takes no more. Words longer than
//! `KEY` bytes or with more than `PIECES` pieces are not cached. Each thread
//! owns one table; it belongs to one model (by id) and is emptied when another
//! model uses it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::encode::Piece;

const KEY: usize = 16;
/// Tokens stored inline in a slot.
pub const PIECES: usize = 3;
const SLOTS: usize = 1 << 17;
/// Slots looked at before giving up.
const PROBES: usize = 8;

static NEXT_MODEL_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id for a model whose cached results may differ from any other's.
pub fn new_model_id() -> u64 {
    NEXT_MODEL_ID.fetch_add(1, Ordering::Relaxed)
}

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

struct Table {
    slots: Box<[Slot]>,
    filled: usize,
}

impl Table {
    fn new(n: usize) -> Self {
        Self {
            slots: vec![EMPTY; n].into_boxed_slice(),
            filled: 0,
        }
    }

    fn clear(&mut self) {
        self.slots.fill(EMPTY);
        self.filled = 0;
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

pub struct WordCache {
    table: Table,
}

/// Both caches of one thread, for one model.
pub struct Caches {
    model: u64,
    pub words: WordCache,
    pub chunks: ChunkCache,
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
    let mut buf = [0u8; KEY];
    buf[..word.len()].copy_from_slice(word);
    Some(key_from_bytes(&buf, word.len()))
}

/// The key of `text[start..start + len]` (len <= 16), reading whole words
/// when the text allows it.
#[inline]
pub fn key_at(text: &[u8], start: usize, len: usize) -> Key {
    if start + KEY > text.len() {
        let mut buf = [0u8; KEY];
        buf[..len].copy_from_slice(&text[start..start + len]);
        return key_from_bytes(&buf, len);
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

#[inline]
fn index(h: u64, slots: usize) -> usize {
    (h >> (64 - slots.trailing_zeros())) as usize
}

impl WordCache {
    fn new() -> Self {
        Self {
            table: Table::new(SLOTS),
        }
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

/// Asks the CPU to start loading `x`'s cache line.
#[inline]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and cannot fault,
    // and the pointer comes from a live reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast::<i8>(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Chunks up to this many bytes are cached (the key's last byte holds the
/// length).
pub const MAX_CHUNK: usize = KEY - 1;
/// Tokens stored inline in a chunk slot: 92% of English chunks have at most
/// three and 95% at most four (bert-base-uncased).
pub const INLINE: usize = 4;
const CHUNK_SLOTS_MIN: usize = 1 << 12;
/// 64 MiB per thread at most; the table stops taking chunks once half full
/// (a million chunks: 98% of the chunks of the 103 MB English corpus).
const CHUNK_SLOTS_MAX: usize = 1 << 21;
/// Set in `ChunkSlot::n` when the ids and offsets live in the arena.
const SPILLED: u8 = 0x80;
/// Inline ids take 24 bits; larger ids (huge vocabularies) spill.
const MAX_INLINE_ID: u32 = (1 << 24) - 1;

/// A cached chunk: up to four tokens that tile the chunk are stored inline;
/// anything else (more tokens, gaps or overlaps in the offsets) in the arena.
/// Half a cache line: a hit reads one line, and nothing else.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub struct ChunkSlot {
    /// [`chunk_key`]; all zero marks an empty slot (chunks are never empty).
    key: Key,
    /// Inline: the ids, 24 bits each, little-endian. Spilled: the first four
    /// bytes are where the entry starts in the arena.
    ids: [u8; 3 * INLINE],
    /// Inline: char offset (in the chunk) where each token but the last ends.
    ends: [u8; INLINE - 1],
    /// Token count, or'ed with `SPILLED`.
    n: u8,
}

const EMPTY_CHUNK: ChunkSlot = ChunkSlot {
    key: [0; 2],
    ids: [0; 3 * INLINE],
    ends: [0; INLINE - 1],
    n: 0,
};

/// The cache key of the chunk `text[start..start + len]` (len <= MAX_CHUNK):
/// its bytes, zero padded, with the length in the last byte.
#[inline]
pub fn chunk_key(text: &[u8], start: usize, len: usize) -> Key {
    let [lo, hi] = key_at(text, start, len);
    [lo, hi | (len as u64) << 56]
}

/// What the chunk cache holds for a chunk.
pub enum ChunkHit<'a> {
    /// `ids[..n]`; token k spans chars `ends[k - 1]..ends[k]` of the chunk,
    /// with 0 before the first and the chunk's char length after the last.
    Inline {
        ids: [u32; INLINE],
        n: usize,
        ends: [u8; INLINE - 1],
    },
    /// The ids, and flat char offsets `[s0, e0, s1, e1, ...]` in the chunk.
    Spilled { ids: &'a [u32], offsets: &'a [u32] },
}

/// Raw-text chunks (between ASCII whitespace bytes) to their ids and offsets.
/// Open addressing like [`Table`]; grows by doubling while less than
/// `CHUNK_SLOTS_MAX`, then takes no more chunks.
pub struct ChunkCache {
    slots: Vec<ChunkSlot>,
    filled: usize,
    /// Spilled entries: n ids, then 2n offsets.
    arena: Vec<u32>,
}

impl ChunkCache {
    fn new() -> Self {
        Self {
            slots: new_chunk_slots(CHUNK_SLOTS_MIN),
            filled: 0,
            arena: Vec::new(),
        }
    }

    fn clear(&mut self) {
        *self = Self::new();
    }

    /// Asks the CPU to start loading the slot of hash `h`.
    #[inline]
    pub fn prefetch(&self, h: u64) {
        prefetch(&self.slots[index(h, self.slots.len())]);
    }

    /// The cached tokens of the chunk with this [`chunk_key`] and its hash.
    #[inline]
    pub fn get(&self, h: u64, key: Key) -> Option<ChunkHit<'_>> {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        for _ in 0..PROBES {
            let s = &self.slots[i];
            if s.key == key {
                let n = (s.n & !SPILLED) as usize;
                let b = &s.ids;
                return Some(if s.n & SPILLED == 0 {
                    let id =
                        |k: usize| u32::from_le_bytes([b[3 * k], b[3 * k + 1], b[3 * k + 2], 0]);
                    ChunkHit::Inline {
                        ids: [id(0), id(1), id(2), id(3)],
                        n,
                        ends: s.ends,
                    }
                } else {
                    let at = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
                    ChunkHit::Spilled {
                        ids: &self.arena[at..at + n],
                        offsets: &self.arena[at + n..at + 3 * n],
                    }
                });
            }
            if s.key == [0; 2] {
                return None;
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Stores a chunk's ids and flat offsets (chars within the chunk), under
    /// its [`chunk_key`] and hash.
    pub fn insert(&mut self, h: u64, key: Key, ids: &[u32], offsets: &[u32]) {
        debug_assert_eq!(offsets.len(), 2 * ids.len());
        let len = (key[1] >> 56) as usize;
        if len == 0 || len > MAX_CHUNK || ids.len() > 127 {
            return;
        }
        if 2 * (self.filled + 1) > self.slots.len() {
            if self.slots.len() >= CHUNK_SLOTS_MAX {
                return;
            }
            self.grow();
        }
        let chars = char_count(key, len);
        let n = ids.len();
        // Inline when the tokens tile the chunk: each starts where the last ended.
        let tiles = n <= INLINE
            && ids.iter().all(|&id| id <= MAX_INLINE_ID)
            && (n == 0
                || (offsets[0] == 0
                    && offsets[2 * n - 1] == chars
                    && (1..n).all(|k| offsets[2 * k] == offsets[2 * k - 1])));
        let mut slot = ChunkSlot { key, ..EMPTY_CHUNK };
        if tiles {
            slot.n = n as u8;
            for (k, id) in ids.iter().enumerate() {
                slot.ids[3 * k..3 * k + 3].copy_from_slice(&id.to_le_bytes()[..3]);
            }
            for k in 0..n.saturating_sub(1) {
                slot.ends[k] = offsets[2 * k + 1] as u8;
            }
        } else {
            slot.n = n as u8 | SPILLED;
            slot.ids[..4].copy_from_slice(&(self.arena.len() as u32).to_le_bytes());
            self.arena.extend_from_slice(ids);
            self.arena.extend_from_slice(offsets);
        }
        self.put(h, slot);
    }

    fn put(&mut self, h: u64, slot: ChunkSlot) {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        loop {
            let s = &mut self.slots[i];
            if s.key == [0; 2] {
                *s = slot;
                self.filled += 1;
                return;
            }
            if s.key == slot.key {
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bigger = new_chunk_slots(2 * self.slots.len());
        let old = std::mem::replace(&mut self.slots, bigger);
        self.filled = 0;
        for s in old.into_iter().filter(|s| s.key != [0; 2]) {
            self.put(chunk_hash(s.key), s);
        }
    }
}

/// Empty slots; large tables ask for huge pages: lookups of rare chunks land
/// anywhere in up to 64 MiB, and with 4 KiB pages most of them would also miss
/// the TLB (measured: about 15% faster encoding of the 103 MB English corpus).
fn new_chunk_slots(n: usize) -> Vec<ChunkSlot> {
    let mut slots = Vec::with_capacity(n);
    // Before the first write, so the pages are faulted in huge.
    crate::memory::advise_huge_pages(&mut slots);
    slots.resize(n, EMPTY_CHUNK);
    slots
}

/// The hash of a [`chunk_key`].
#[inline]
pub fn chunk_hash(key: Key) -> u64 {
    hash(key, 0)
}

/// Chars in the first `len` bytes of a key (UTF-8): bytes that are not
/// continuation bytes (`0b10xx_xxxx`); padding bytes are zero.
#[inline]
pub fn char_count(key: Key, len: usize) -> u32 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let continuation = |x: u64| (x & !(x << 1) & HIGH).count_ones();
    len as u32 - continuation(key[0]) - continuation(key[1])
}

thread_local! {
    static CACHE: RefCell<Option<Caches>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's caches for `model`.
pub fn with_cache<T>(model: u64, f: impl FnOnce(&mut Caches) -> T) -> T {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        match c.as_mut() {
            Some(cache) if cache.model == model => {}
            Some(cache) => {
                cache.model = model;
                cache.words.table.clear();
                cache.chunks.clear();
            }
            None => {
                *c = Some(Caches {
                    model,
                    words: WordCache::new(),
                    chunks: ChunkCache::new(),
                })
            }
        }
        f(c.as_mut().unwrap_or_else(|| unreachable!()))
    })
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
    fn char_count_skips_continuation_bytes() {
        for word in [
            "",
            "a",
            "café",
            "中文!",
            "👍🏽ok",
            "0123456789abcdef",
            "ééééééé",
        ] {
            let key = key_of(word.as_bytes()).unwrap();
            assert_eq!(
                char_count(key, word.len()),
                word.chars().count() as u32,
                "{word}"
            );
        }
    }

    #[test]
    fn chunks_inline_when_tiled_else_spilled() {
        let mut c = ChunkCache::new();
        let put = |c: &mut ChunkCache, w: &str, ids: &[u32], offsets: &[u32]| {
            let key = chunk_key(w.as_bytes(), 0, w.len());
            c.insert(chunk_hash(key), key, ids, offsets);
        };
        let get = |c: &ChunkCache, w: &str| -> Option<(Vec<u32>, Vec<u32>)> {
            let key = chunk_key(w.as_bytes(), 0, w.len());
            let chars = w.chars().count() as u32;
            c.get(chunk_hash(key), key).map(|hit| match hit {
                ChunkHit::Inline { ids, n, ends } => {
                    let mut b = vec![0u32];
                    b.extend(ends.iter().take(n.saturating_sub(1)).map(|&e| e as u32));
                    b.push(chars);
                    let offsets = (0..n).flat_map(|k| [b[k], b[k + 1]]).collect();
                    (ids[..n].to_vec(), offsets)
                }
                ChunkHit::Spilled { ids, offsets } => (ids.to_vec(), offsets.to_vec()),
            })
        };
        let cases: [(&str, &[u32], &[u32]); 6] = [
            ("word,", &[10, 11], &[0, 4, 4, 5]),
            ("café", &[12], &[0, 4]),
            ("a\u{1}b", &[13], &[0, 3]),
            ("x.y.z", &[1, 2, 3, 4, 5], &[0, 1, 1, 2, 2, 3, 3, 4, 4, 5]),
            ("big-ids", &[1 << 24, 7], &[0, 3, 3, 7]),
            ("a.b,", &[1, 2, 3, 4], &[0, 1, 1, 2, 2, 3, 3, 4]),
        ];
        for (w, ids, offsets) in cases {
            put(&mut c, w, ids, offsets);
        }
        // A gap in the offsets (a dropped char) must be kept exactly.
        put(&mut c, "a\u{1}c", &[14, 15], &[0, 1, 2, 3]);
        for (w, ids, offsets) in cases {
            assert_eq!(get(&c, w), Some((ids.to_vec(), offsets.to_vec())), "{w}");
        }
        assert_eq!(get(&c, "a\u{1}c"), Some((vec![14, 15], vec![0, 1, 2, 3])));
        assert_eq!(get(&c, "word"), None);
        // Growing keeps every entry.
        for i in 0..20_000u32 {
            let w = format!("w{i}");
            put(&mut c, &w, &[i], &[0, w.len() as u32]);
        }
        assert_eq!(get(&c, "w19999"), Some((vec![19_999], vec![0, 6])));
        assert_eq!(get(&c, "x.y.z").unwrap().0, vec![1, 2, 3, 4, 5]);
    }
}
