//! The chunk layer: a text cut at ASCII whitespace bytes into chunks, each
//! looked up in the chunk cache (raw bytes to ids); a chunk that misses is
//! encoded by the general layer and cached.

use super::scan::{
    count_utf8_chars, first_separator_in_word, is_chunk_separator, next_chunk_separator,
};
use super::Encoder;
use super::{Output, Scratch, Span, WordScratch};
use crate::cache::chunk::{self, ChunkHit, MAX_CHUNK, MAX_LONG_CHUNK, WRITE};
use crate::cache::Caches;

/// Chunks found ahead of emitting them: enough to hide memory latency, few
/// enough to stay in L1.
const BATCH: usize = 32;
/// Chunks of the next text found at the end of one.
const AHEAD: usize = 16;

/// Chunks found ahead of emitting them (two batches: one being emitted, the
/// next being found), and the first chunks of the next text.
#[derive(Debug, Default)]
pub(super) struct ChunkScratch {
    batch: Vec<Span>,
    found: Vec<Span>,
    ahead: Vec<Span>,
    /// Which text (address, length) `ahead` belongs to, and where in it
    /// finding stopped.
    ahead_of: Option<(usize, usize)>,
    ahead_end: usize,
}

/// Appends the chunks of `bytes` from `*i` on to `batch` (until it holds
/// `limit` or the text ends), asking the CPU to load their cache slots.
#[inline]
fn find_chunks(bytes: &[u8], i: &mut usize, batch: &mut Vec<Span>, limit: usize, caches: &Caches) {
    let n = bytes.len();
    while batch.len() < limit {
        while *i < n && is_chunk_separator(bytes[*i]) {
            *i += 1;
        }
        if *i == n {
            return;
        }
        let start = *i;
        // Most chunks end within the eight bytes from their start: then those
        // bytes, masked, are already the first word of the key.
        let word = bytes
            .get(start..start + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        let in_word = word
            .map(|x| (x, first_separator_in_word(x)))
            .filter(|&(_, len)| len < 8 && is_chunk_separator(bytes[start + len]));
        let (len, key) = match in_word {
            Some((x, len)) => (len, [x & ((1u64 << (8 * len)) - 1), (len as u64) << 56]),
            None => {
                let len = next_chunk_separator(bytes, start) - start;
                let key = if len <= MAX_CHUNK {
                    chunk::chunk_key(bytes, start, len)
                } else {
                    [0; 2]
                };
                (len, key)
            }
        };
        *i = start + len;
        let mut hash = 0;
        if len <= MAX_CHUNK {
            hash = chunk::chunk_hash(key);
            caches.chunks.prefetch(hash);
        } else if len <= MAX_LONG_CHUNK {
            // The long key is rebuilt when emitting; the hash is kept.
            hash = chunk::chunk_hash(chunk::chunk_key::<4>(bytes, start, len));
            caches.long_chunks.prefetch(hash);
        }
        batch.push(Span {
            start: start as u32,
            len: len as u32,
            key,
            hash,
        });
    }
}

/// The char offset of each chunk. In ASCII text (or when offsets are not
/// asked for) it is the byte offset; otherwise chars are counted on from the
/// last chunk emitted.
struct CharCursor {
    counting: bool,
    bytes: usize,
    chars: u32,
}

impl CharCursor {
    fn new(counting: bool) -> Self {
        Self {
            counting,
            bytes: 0,
            chars: 0,
        }
    }

    /// The char offset of byte `start` (at or after the last one asked for).
    #[inline]
    fn at(&mut self, text: &[u8], start: usize) -> u32 {
        if !self.counting {
            return start as u32;
        }
        self.chars += count_utf8_chars(&text[self.bytes..start]);
        self.bytes = start;
        self.chars
    }
}

impl Encoder {
    /// Splits `text` at ASCII whitespace bytes into chunks, which encode
    /// independently (see `chunkable`), and looks each chunk up in the chunk
    /// cache: in real text almost every chunk ("the", "word,", "(see") has been
    /// seen before, so its ids (and offsets) are copied without normalizing,
    /// splitting or matching anything. Chunks are found, and their cache slots
    /// requested, a batch ahead of emitting them; once a text is all found,
    /// the first chunks of the `next` one are.
    pub(super) fn encode_chunks(
        &self,
        text: &str,
        next: Option<&str>,
        out: &mut Output,
        scratch: &mut Scratch,
        caches: &mut Caches,
    ) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut chars = CharCursor::new(out.with_offsets && !text.is_ascii());
        let ChunkScratch {
            batch,
            found,
            ahead,
            ahead_of,
            ahead_end,
        } = &mut scratch.chunks;
        batch.clear();
        let mut i = 0;
        // Chunks of this very text found at the end of the previous one.
        if ahead_of.take() == Some((text.as_ptr() as usize, n)) {
            batch.append(ahead);
            i = *ahead_end;
        } else {
            find_chunks(bytes, &mut i, batch, BATCH, caches);
        }
        let mut looked_ahead = false;
        // Double buffering: the chunks after `batch` are found (and their
        // cache slots requested) before `batch` is emitted, so every slot has
        // a whole batch's time to arrive. Once this text is all found, the
        // first chunks of the next one are (most texts are that short).
        loop {
            found.clear();
            find_chunks(bytes, &mut i, found, BATCH, caches);
            if let (true, false, Some(next)) = (i == n, looked_ahead, next) {
                looked_ahead = true;
                ahead.clear();
                let mut j = 0;
                find_chunks(next.as_bytes(), &mut j, ahead, AHEAD, caches);
                *ahead_of = Some((next.as_ptr() as usize, next.len()));
                *ahead_end = j;
            }
            let words = &mut scratch.words;
            self.emit_chunks(text, batch, &mut chars, out, words, caches);
            if found.is_empty() {
                break;
            }
            std::mem::swap(batch, found);
        }
    }

    /// Emits found chunks in order: cached ones by copying, new ones by
    /// encoding (and caching) them.
    fn emit_chunks(
        &self,
        text: &str,
        batch: &[Span],
        chars: &mut CharCursor,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        let bytes = text.as_bytes();
        // Hits write a fixed `WRITE` ids (and twice as many offsets) at `pos`
        // (`opos`) into room made ahead, then advance by their count: no
        // length-dependent copies.
        let with_offsets = out.with_offsets;
        let room = |out: &mut Output, pos: usize, opos: usize, extra: usize, left: usize| {
            let need = pos + extra + WRITE * left;
            if out.ids.len() < need {
                out.ids.resize(need, 0);
            }
            if with_offsets && out.offsets.len() < 2 * need - 2 * pos + opos {
                out.offsets.resize(2 * need - 2 * pos + opos, 0);
            }
        };
        let (mut pos, mut opos) = (out.ids.len(), out.offsets.len());
        room(out, pos, opos, 0, batch.len());
        for (k, sp) in batch.iter().enumerate() {
            let (start, len) = (sp.start as usize, sp.len as usize);
            let at = chars.at(bytes, start);
            let hit = if len <= MAX_CHUNK {
                caches.chunks.get(sp.hash, sp.key)
            } else if len <= MAX_LONG_CHUNK {
                let key = chunk::chunk_key(bytes, start, len);
                caches.long_chunks.get(sp.hash, key)
            } else {
                None
            };
            match hit {
                Some(ChunkHit::Inline { ids, n }) => {
                    out.ids[pos..pos + WRITE].copy_from_slice(&ids);
                    pos += n;
                    if with_offsets && n > 0 {
                        let width = match (chars.counting, len <= MAX_CHUNK) {
                            (false, _) => sp.len,
                            (true, true) => chunk::char_count(sp.key),
                            (true, false) => count_utf8_chars(&bytes[start..start + len]),
                        };
                        // Each token but the last is as wide as its
                        // vocab entry; the last ends with the chunk.
                        let o = &mut out.offsets[opos..opos + 2 * WRITE];
                        let mut s = at;
                        for (t, &id) in ids[..n - 1].iter().enumerate() {
                            let e = s + self.token_widths[id as usize] as u32;
                            o[2 * t] = s;
                            o[2 * t + 1] = e;
                            s = e;
                        }
                        o[2 * n - 2] = s;
                        o[2 * n - 1] = at + width;
                        opos += 2 * n;
                    }
                }
                Some(ChunkHit::Spilled { ids, offsets }) => {
                    let left = batch.len() - k - 1;
                    room(out, pos, opos, ids.len(), left);
                    out.ids[pos..pos + ids.len()].copy_from_slice(ids);
                    pos += ids.len();
                    if with_offsets {
                        let o = &mut out.offsets[opos..opos + offsets.len()];
                        for (dst, src) in o.iter_mut().zip(offsets) {
                            *dst = src + at;
                        }
                        opos += offsets.len();
                    }
                }
                None => {
                    out.ids.truncate(pos);
                    out.offsets.truncate(opos);
                    // Separators are ASCII, so chunks are whole chars.
                    let chunk = &text[start..start + len];
                    self.encode_new_chunk(chunk, sp, at, out, words, caches);
                    (pos, opos) = (out.ids.len(), out.offsets.len());
                    room(out, pos, opos, 0, batch.len() - k - 1);
                }
            }
        }
        out.ids.truncate(pos);
        out.offsets.truncate(opos);
    }

    /// A chunk not in the cache: encoded from char 0 with offsets, cached if
    /// short enough, then its offsets shifted to `at` (or dropped).
    #[cold]
    fn encode_new_chunk(
        &self,
        chunk: &str,
        sp: &Span,
        at: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        let len = chunk.len();
        if len > MAX_LONG_CHUNK {
            self.encode_text(chunk, at, out, words, caches);
            return;
        }
        let (n_ids, n_offsets) = (out.ids.len(), out.offsets.len());
        let with_offsets = std::mem::replace(&mut out.with_offsets, true);
        self.encode_text(chunk, 0, out, words, caches);
        out.with_offsets = with_offsets;
        let (ids, offsets) = (&out.ids[n_ids..], &out.offsets[n_offsets..]);
        if len <= MAX_CHUNK {
            caches
                .chunks
                .insert(sp.hash, sp.key, ids, offsets, &self.token_widths);
        } else {
            let key = chunk::chunk_key(chunk.as_bytes(), 0, len);
            let hash = chunk::chunk_hash(key);
            caches
                .long_chunks
                .insert(hash, key, ids, offsets, &self.token_widths);
        }
        if with_offsets {
            out.offsets[n_offsets..].iter_mut().for_each(|o| *o += at);
        } else {
            out.offsets.truncate(n_offsets);
        }
    }
}
