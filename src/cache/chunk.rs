//! The chunk cache: raw text between ASCII whitespace bytes ("the", "word,",
//! "(see") to its ids and char offsets.
//!
//! Chunks are looked up by their raw bytes, before any normalization, so a hit
//! skips normalizing, splitting and matching altogether. The key is the chunk
//! itself (zero padded, length in the last byte), compared in full: a hit is
//! never a guess. Open addressing with linear probing within `PROBES` slots;
//! slots hold everything inline (a hit usually reads one cache line), except
//! entries with more than `INLINE` tokens, ids of 2^17 or more, or offsets
//! that the token widths do not give, which spill to an arena. Tables grow
//! by doubling up to a cap, fill to three quarters there, then take no more
//! chunks: in Zipf-distributed text the frequent chunks come first.

use super::table::{index, prefetch, PROBES};

/// Chunks up to this many bytes go to the short table (`W` = 2).
pub const MAX_CHUNK: usize = 15;
/// Chunks up to this many bytes go to the long table (`W` = 4).
pub const MAX_LONG_CHUNK: usize = 31;
/// Tokens stored inline in a slot, 17 bits each: 97.8% of English chunks
/// have at most seven (bert-base-uncased), and ids below 2^17 cover even
/// multilingual BERT's 119,547 tokens.
pub const INLINE: usize = 7;
/// Ids (and offsets) written per hit: `INLINE` rounded up to a whole store.
pub const WRITE: usize = 8;
const ID_BITS: u32 = 17;
const ID_MASK: u128 = (1 << ID_BITS) - 1;
const MIN_SLOTS: usize = 1 << 12;
/// Set in `Slot::n` when the ids and offsets live in the arena.
const SPILLED: u8 = 0x80;

/// A chunk key of `W` words: up to `8 * W - 1` bytes, zero padded, with the
/// length in the last byte (so all zero means "empty": chunks are never empty).
pub type ChunkKey<const W: usize> = [u64; W];

/// One cached chunk. With `W` = 2 it is 32 bytes, half a cache line.
///
/// Inline entries keep only ids: token k (but the last) spans as many chars
/// as `widths[id]` says, the last one ends with the chunk. Entries for which
/// that does not hold (a char dropped by normalization, an unknown word with
/// a suffix) spill with their offsets.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Slot<const W: usize> {
    key: ChunkKey<W>,
    /// Inline: the ids, `ID_BITS` each, little-endian. Spilled: the first
    /// four bytes are where the entry starts in the arena.
    packed: [u8; 15],
    /// Token count, or'ed with `SPILLED`.
    n: u8,
}

impl<const W: usize> Slot<W> {
    const EMPTY: Self = Self {
        key: [0; W],
        packed: [0; 15],
        n: 0,
    };
}

/// The key of the chunk `text[start..start + len]` (`len < 8 * W`).
#[inline]
pub fn chunk_key<const W: usize>(text: &[u8], start: usize, len: usize) -> ChunkKey<W> {
    debug_assert!(len < 8 * W);
    let mut key = [0u64; W];
    if start + 8 * W <= text.len() {
        // Whole words, then the bytes past the chunk masked off.
        for (w, k) in key.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&text[start + 8 * w..start + 8 * w + 8]);
            let valid = len.saturating_sub(8 * w).min(8);
            let mask = if valid == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * valid)) - 1
            };
            *k = u64::from_le_bytes(b) & mask;
        }
    } else {
        let mut buf = [0u8; 32];
        buf[..len].copy_from_slice(&text[start..start + len]);
        for (w, k) in key.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[8 * w..8 * w + 8]);
            *k = u64::from_le_bytes(b);
        }
    }
    key[W - 1] |= (len as u64) << 56;
    key
}

/// A 64-bit hash of a chunk key; tables use its top bits.
#[inline]
pub fn chunk_hash<const W: usize>(key: ChunkKey<W>) -> u64 {
    let mut h = key[0];
    for (w, k) in key.iter().enumerate().skip(1) {
        h ^= k.rotate_left(29 * w as u32);
    }
    h.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Chars in the chunk of `key` (UTF-8): its bytes that are not continuation
/// bytes (`0b10xx_xxxx`); padding bytes are zero and the length byte is
/// below 0x80, so neither counts.
#[inline]
pub fn char_count<const W: usize>(key: ChunkKey<W>) -> u32 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let len = (key[W - 1] >> 56) as u32;
    let continuation: u32 = key
        .iter()
        .map(|x| (x & !(x << 1) & HIGH).count_ones())
        .sum();
    len - continuation
}

/// What the cache holds for a chunk.
pub enum ChunkHit<'a> {
    /// `ids[..n]` (the rest zero); offsets follow from the token widths.
    Inline { ids: [u32; WRITE], n: usize },
    /// The ids, and flat char offsets `[s0, e0, s1, e1, ...]` in the chunk.
    Spilled { ids: &'a [u32], offsets: &'a [u32] },
}

/// Chunks of up to `8 * W - 1` bytes to their ids and offsets.
pub struct ChunkCache<const W: usize> {
    slots: Vec<Slot<W>>,
    filled: usize,
    max_len: usize,
    max_slots: usize,
    /// Spilled entries: n ids, then 2n offsets.
    arena: Vec<u32>,
}

impl<const W: usize> ChunkCache<W> {
    /// A cache for chunks of up to `max_len` bytes with at most `max_slots`
    /// slots (half of them filled below the cap, three quarters at it).
    pub fn new(max_len: usize, max_slots: usize) -> Self {
        assert!(max_len < 8 * W && max_slots.is_power_of_two());
        Self {
            slots: new_slots(MIN_SLOTS),
            filled: 0,
            max_len,
            max_slots,
            arena: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        *self = Self::new(self.max_len, self.max_slots);
    }

    /// Asks the CPU to start loading the slot of hash `h`.
    #[inline]
    pub fn prefetch(&self, h: u64) {
        prefetch(&self.slots[index(h, self.slots.len())]);
    }

    /// The cached tokens of the chunk with this key and its [`chunk_hash`].
    #[inline]
    pub fn get(&self, h: u64, key: ChunkKey<W>) -> Option<ChunkHit<'_>> {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        for _ in 0..PROBES {
            let s = &self.slots[i];
            if s.key == key {
                let n = (s.n & !SPILLED) as usize;
                let mut b = [0u8; 16];
                b[..15].copy_from_slice(&s.packed);
                let bits = u128::from_le_bytes(b);
                return Some(if s.n & SPILLED == 0 {
                    let id = |k: usize| ((bits >> (ID_BITS as usize * k)) & ID_MASK) as u32;
                    ChunkHit::Inline {
                        ids: [id(0), id(1), id(2), id(3), id(4), id(5), id(6), 0],
                        n,
                    }
                } else {
                    let at = bits as u32 as usize;
                    ChunkHit::Spilled {
                        ids: &self.arena[at..at + n],
                        offsets: &self.arena[at + n..at + 3 * n],
                    }
                });
            }
            if s.key == [0; W] {
                return None;
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Stores a chunk's ids and flat offsets (chars within the chunk), under
    /// its key and [`chunk_hash`]; `widths` gives each id's char count.
    pub fn insert(
        &mut self,
        h: u64,
        key: ChunkKey<W>,
        ids: &[u32],
        offsets: &[u32],
        widths: &[u8],
    ) {
        debug_assert_eq!(offsets.len(), 2 * ids.len());
        let len = (key[W - 1] >> 56) as usize;
        if len == 0 || len > self.max_len || ids.len() > 127 {
            return;
        }
        if 2 * (self.filled + 1) > self.slots.len() {
            // At the cap the table fills on to three quarters: longer probes
            // (a few cache lines at most) beat encoding a chunk again.
            if self.slots.len() < self.max_slots {
                self.grow();
            } else if 4 * (self.filled + 1) > 3 * self.slots.len() {
                return;
            }
        }
        let Some(at) = self.free_slot(h, key) else {
            return;
        };
        let n = ids.len();
        let mut slot = Slot { key, ..Slot::EMPTY };
        let bits = if inline_offsets(ids, offsets, char_count(key), widths) {
            slot.n = n as u8;
            ids.iter().enumerate().fold(0u128, |acc, (k, &id)| {
                acc | (id as u128) << (ID_BITS as usize * k)
            })
        } else {
            slot.n = n as u8 | SPILLED;
            let start = self.arena.len() as u128;
            self.arena.extend_from_slice(ids);
            self.arena.extend_from_slice(offsets);
            start
        };
        slot.packed.copy_from_slice(&bits.to_le_bytes()[..15]);
        self.slots[at] = slot;
        self.filled += 1;
    }

    /// The first free slot within `PROBES` of the place of hash `h` (where
    /// `get` looks), unless `key` is there already.
    fn free_slot(&self, h: u64, key: ChunkKey<W>) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = index(h, self.slots.len());
        for _ in 0..PROBES {
            let s = &self.slots[i];
            if s.key == [0; W] {
                return Some(i);
            }
            if s.key == key {
                return None;
            }
            i = (i + 1) & mask;
        }
        None
    }

    fn grow(&mut self) {
        let bigger = new_slots(2 * self.slots.len());
        let old = std::mem::replace(&mut self.slots, bigger);
        self.filled = 0;
        for s in old.into_iter().filter(|s| s.key != [0; W]) {
            if let Some(at) = self.free_slot(chunk_hash(s.key), s.key) {
                self.slots[at] = s;
                self.filled += 1;
            }
        }
    }
}

/// Whether an entry can be kept inline: few enough tokens with small enough
/// ids, tiling the chunk (each starts where the last ended), each but the
/// last exactly as wide as `widths` says.
fn inline_offsets(ids: &[u32], offsets: &[u32], chars: u32, widths: &[u8]) -> bool {
    let n = ids.len();
    n <= INLINE
        && ids.iter().all(|&id| (id as u128) <= ID_MASK)
        && (n == 0
            || (offsets[0] == 0
                && offsets[2 * n - 1] == chars
                && (1..n).all(|k| offsets[2 * k] == offsets[2 * k - 1])
                && (0..n - 1).all(|k| {
                    widths.get(ids[k] as usize).map(|&w| w as u32)
                        == offsets[2 * k + 1].checked_sub(offsets[2 * k])
                })))
}

/// Empty slots; large tables ask for huge pages: lookups of rare chunks land
/// anywhere in up to 32 MiB, and with 4 KiB pages most of them would also miss
/// the TLB (measured: about 15% faster encoding of the 103 MB English corpus).
fn new_slots<const W: usize>(n: usize) -> Vec<Slot<W>> {
    crate::memory::huge_filled(n, Slot::EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fill_half_or_one_cache_line() {
        assert_eq!(std::mem::size_of::<Slot<2>>(), 32);
        assert_eq!(std::mem::size_of::<Slot<4>>(), 64);
    }

    #[test]
    fn keys_hold_bytes_and_length() {
        let text = b"Hello, wonderful world of words, and some more";
        for (start, len) in [(0, 5), (7, 9), (17, 5), (0, 15), (30, 15), (40, 6)] {
            let key = chunk_key::<2>(text, start, len);
            let mut bytes = Vec::new();
            for k in key {
                bytes.extend_from_slice(&k.to_le_bytes());
            }
            assert_eq!(&bytes[..len], &text[start..start + len]);
            assert!(bytes[len..15].iter().all(|&b| b == 0));
            assert_eq!(bytes[15] as usize, len);
            let long = chunk_key::<4>(text, start, len);
            assert_eq!(long[3] >> 56, len as u64);
            assert_eq!(long[..2], [key[0], key[1] & !(0xFF << 56)]);
        }
        // A chunk at the very end of the text, and the same bytes elsewhere.
        assert_eq!(
            chunk_key::<2>(b"xx abc", 3, 3),
            chunk_key::<2>(b"abc and more text", 0, 3)
        );
        assert_eq!(
            chunk_key::<4>(b"0123456789abcdefghij", 0, 20),
            chunk_key::<4>(b"0123456789abcdefghij and more text here", 0, 20)
        );
    }

    #[test]
    fn char_count_skips_continuation_bytes() {
        for word in ["a", "café", "中文!", "👍🏽ok", "0123456789abcde", "ééééééé"] {
            let key = chunk_key::<2>(word.as_bytes(), 0, word.len());
            assert_eq!(char_count(key), word.chars().count() as u32, "{word}");
        }
        let long = "ünïcödé-wörds-ok";
        let key = chunk_key::<4>(long.as_bytes(), 0, long.len());
        assert_eq!(char_count(key), long.chars().count() as u32);
    }

    /// Test widths: ids below 10 are one char wide, 10 four, 20 five, 21 two.
    fn widths() -> Vec<u8> {
        let mut w = vec![1u8; 64];
        w[10] = 4;
        w[20] = 5;
        w[21] = 2;
        w
    }

    fn put<const W: usize>(c: &mut ChunkCache<W>, w: &str, ids: &[u32], offsets: &[u32]) {
        let key = chunk_key::<W>(w.as_bytes(), 0, w.len());
        c.insert(chunk_hash(key), key, ids, offsets, &widths());
    }

    fn get<const W: usize>(c: &ChunkCache<W>, w: &str) -> Option<(Vec<u32>, Vec<u32>)> {
        let key = chunk_key::<W>(w.as_bytes(), 0, w.len());
        let chars = w.chars().count() as u32;
        let widths = widths();
        c.get(chunk_hash(key), key).map(|hit| match hit {
            ChunkHit::Inline { ids, n } => {
                assert!(ids[n..].iter().all(|&id| id == 0));
                let mut b = vec![0u32];
                for &id in &ids[..n.saturating_sub(1)] {
                    b.push(b.last().unwrap() + widths[id as usize] as u32);
                }
                b.push(chars);
                let offsets = (0..n).flat_map(|k| [b[k], b[k + 1]]).collect();
                (ids[..n].to_vec(), offsets)
            }
            ChunkHit::Spilled { ids, offsets } => (ids.to_vec(), offsets.to_vec()),
        })
    }

    fn is_inline<const W: usize>(c: &ChunkCache<W>, w: &str) -> bool {
        let key = chunk_key::<W>(w.as_bytes(), 0, w.len());
        matches!(c.get(chunk_hash(key), key), Some(ChunkHit::Inline { .. }))
    }

    #[test]
    fn chunks_inline_when_widths_tile_else_spilled() {
        let mut c = ChunkCache::<2>::new(MAX_CHUNK, 1 << 16);
        let seven: Vec<u32> = (1..8).collect();
        let seven_offsets: Vec<u32> = (0..7).flat_map(|k| [k, k + 1]).collect();
        let eight: Vec<u32> = (1..9).collect();
        let eight_offsets: Vec<u32> = (0..8).flat_map(|k| [k, k + 1]).collect();
        let cases: [(&str, &[u32], &[u32], bool); 10] = [
            ("word,", &[10, 11], &[0, 4, 4, 5], true),
            ("café", &[12], &[0, 4], true),
            ("a\u{1}b", &[13], &[0, 3], true),
            ("a.b,", &[1, 2, 3, 4], &[0, 1, 1, 2, 2, 3, 3, 4], true),
            ("a.b.c.d", &seven, &seven_offsets, true),
            ("a.b.c.d.", &eight, &eight_offsets, false),
            ("big-ids", &[1 << 17, 7], &[0, 3, 3, 7], false),
            ("max-id", &[(1 << 17) - 1], &[0, 6], true),
            // Token 20 is five chars wide, but spans two here.
            ("ab,", &[20, 11], &[0, 2, 2, 3], false),
            // A gap in the offsets (a dropped char) must be kept exactly.
            ("a\u{1}c", &[14, 15], &[0, 1, 2, 3], false),
        ];
        for (w, ids, offsets, _) in cases {
            put(&mut c, w, ids, offsets);
        }
        for (w, ids, offsets, inline) in cases {
            assert_eq!(get(&c, w), Some((ids.to_vec(), offsets.to_vec())), "{w}");
            assert_eq!(is_inline(&c, w), inline, "{w}");
        }
        assert_eq!(get(&c, "word"), None);
        // Growing keeps every entry; at the cap the table fills to three
        // quarters, then takes no more (and keeps no spilled data for them).
        for i in 0..60_000u32 {
            let w = format!("w{i}");
            put(&mut c, &w, &[i], &[0, w.len() as u32]);
        }
        assert_eq!(get(&c, "w19999"), Some((vec![19_999], vec![0, 6])));
        assert_eq!(get(&c, "w40000"), Some((vec![40_000], vec![0, 6])));
        assert_eq!(get(&c, "a.b.c.d.").unwrap().0, eight);
        assert_eq!(c.slots.len(), 1 << 16);
        assert!(c.filled <= 3 << 14 && c.filled > 3 << 13, "{}", c.filled);
        assert_eq!(get(&c, "w59999"), None);
        let arena = c.arena.len();
        put(&mut c, "x.y.z.w.v.u.t.s", &eight, &eight_offsets);
        assert_eq!(c.arena.len(), arena);
    }

    #[test]
    fn long_chunks_in_the_wide_table() {
        let mut c = ChunkCache::<4>::new(MAX_LONG_CHUNK, 1 << 14);
        let w = "incomprehensibilities,";
        put(&mut c, w, &[20, 2, 3], &[0, 5, 5, 21, 21, 22]);
        assert_eq!(
            get(&c, w),
            Some((vec![20, 2, 3], vec![0, 5, 5, 21, 21, 22]))
        );
        assert!(!is_inline(&c, w), "token 2 is one char wide, not 16");
        let w = "incomprehensible";
        put(&mut c, w, &[20, 21], &[0, 5, 5, 16]);
        assert!(is_inline(&c, w));
        assert_eq!(get(&c, "incomprehensibilities;"), None);
    }
}
