//! The ASCII layer: an ASCII segment normalized and split into words in one
//! pass over its bytes with a 256-entry table, each word looked up in the
//! word cache. It declines (writing nothing) at a byte it does not handle:
//! one that cleaning drops, or one that may start an added token.

use super::scan::{count_utf8_chars, end_of_word, first_unprintable, is_ascii_whitespace};
use super::Encoder;
use super::{Output, Span, WordScratch};
use crate::cache::{self, word, Caches, WordCache};
use crate::model::{Piece, WordPiece};
use crate::splitter::{AsciiClass, AsciiClasses, Splitter};

/// Words found (and their cache slots requested) before any is emitted.
const WORD_BATCH: usize = 32;

/// Bytes of text one general call takes at most when it joins the
/// non-ASCII words that follow each other: its buffers stay this small.
const GENERAL_STRETCH: usize = 4096;

/// The word bytes of a table, when a scan finds them eight at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WordBytes {
    /// ASCII letters and digits (BERT's).
    Alnum,
    /// ASCII letters, digits and `_` (HF `Whitespace`'s `\w`).
    AlnumUnderscore,
    /// Others: byte by byte through the table.
    Table,
}

/// What normalization plus pre-tokenization does to each ASCII byte.
#[derive(Clone, Debug)]
pub(super) struct AsciiTable {
    class: [AsciiClass; 256],
    lower: [u8; 256],
    /// Whether the normalizer lowercases.
    lowercase: bool,
    /// Which bytes are word bytes, when words can be found eight bytes at a time.
    word_bytes: WordBytes,
    /// The id of each byte as a one-character word (token or unk).
    single: [u32; 256],
    /// Whether it takes every printable ASCII byte (0x20..=0x7E), so that a
    /// scan for the bytes it declines skips those eight at a time.
    takes_printable: bool,
}

impl AsciiTable {
    /// The splitter's ASCII table (one that declines every byte if it has
    /// none) with what the model makes of single bytes.
    pub(super) fn new(splitter: &Splitter, model: &WordPiece) -> Self {
        let classes = splitter
            .ascii_classes()
            .cloned()
            .unwrap_or(AsciiClasses::DECLINE_ALL);
        let (class, lower, lowercase) = (classes.class, *classes.normalized(), classes.lowercase);
        let mut single = [model.unk_id; 256];
        let mut pieces = Vec::new();
        for b in 0u8..128 {
            if class[b as usize] == AsciiClass::Other {
                continue;
            }
            pieces.clear();
            model.encode_word(&[lower[b as usize]], &mut pieces);
            single[b as usize] = pieces[0].id;
        }
        let mut table = Self {
            class,
            lower,
            lowercase,
            word_bytes: WordBytes::Table,
            single,
            takes_printable: false,
        };
        table.classes_changed();
        table
    }

    /// This table, with the bytes for which `decline(b)` holds sent to the
    /// general path (for whole texts: bytes that may start an added token).
    pub(super) fn declining(&self, decline: impl Fn(u8) -> bool) -> Self {
        let mut t = self.clone();
        for b in 0..=255u8 {
            if decline(b) {
                t.class[b as usize] = AsciiClass::Other;
            }
        }
        t.classes_changed();
        t
    }

    fn classes_changed(&mut self) {
        self.word_bytes = self.word_bytes_of_classes();
        self.takes_printable = (0x20..0x7F).all(|b| !self.declines(b));
    }

    /// The first byte of `text[from..to]` this table declines, or `to`.
    fn first_declined(&self, text: &[u8], from: usize, to: usize) -> usize {
        let mut i = from;
        if self.takes_printable {
            while i < to {
                i = first_unprintable(text, i, to);
                if i == to || self.declines(text[i]) {
                    return i;
                }
                i += 1;
            }
            return to;
        }
        text[from..to]
            .iter()
            .position(|&b| self.declines(b))
            .map_or(to, |k| from + k)
    }

    /// Whether the ASCII pass declines byte `b` (non-ASCII bytes included).
    fn declines(&self, b: u8) -> bool {
        self.class[b as usize] == AsciiClass::Other
    }

    /// Whether normalization lowercases word bytes.
    pub(super) fn lowercase(&self) -> bool {
        self.lowercase
    }

    /// What normalization makes of ASCII byte `b`.
    pub(super) fn normalized(&self, b: u8) -> u8 {
        self.lower[b as usize]
    }

    fn word_bytes_of_classes(&self) -> WordBytes {
        let words_are = |is: fn(u8) -> bool| {
            (0u8..=255).all(|b| (self.class[b as usize] == AsciiClass::Word) == is(b))
        };
        if words_are(|b| b.is_ascii_alphanumeric()) {
            WordBytes::Alnum
        } else if words_are(|b| b.is_ascii_alphanumeric() || b == b'_') {
            WordBytes::AlnumUnderscore
        } else {
            WordBytes::Table
        }
    }
}

impl Encoder {
    /// Encodes `seg` (a whole text with `whole_text`, else a segment between
    /// added tokens), which starts at char `first_char` of the input, and
    /// returns true; or declines, with `out` as it was, and returns false.
    pub(super) fn try_ascii(
        &self,
        seg: &str,
        first_char: u32,
        whole_text: bool,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) -> bool {
        if !self.use_ascii || !seg.is_ascii() {
            return false;
        }
        let table = if whole_text {
            &self.ascii_text
        } else {
            &self.ascii
        };
        let mark = out.mark();
        let done = self.encode_ascii(seg.as_bytes(), first_char, table, out, words, caches);
        if !done {
            out.roll_back(mark);
        }
        done
    }

    /// Encodes a whole text whose words never reach across ASCII whitespace
    /// (`Encoder::resume`), which starts at char `first_char` of the input:
    /// its stretches of bytes the ASCII pass handles in that pass, and each
    /// stretch between ASCII whitespace holding a byte it declines
    /// (non-ASCII text) or an added token through the general layer. One
    /// accented word no longer sends a whole text there.
    pub(super) fn encode_ascii_around(
        &self,
        text: &str,
        first_char: u32,
        resume: &super::Resume,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        let t = &resume.table;
        let bytes = text.as_bytes();
        let space = |&b: &u8| is_ascii_whitespace(b);
        // The ASCII whitespace (or the text's end) after byte `from`.
        let word_end = |from: usize| {
            bytes[from..]
                .iter()
                .position(space)
                .map_or(bytes.len(), |k| from + k)
        };
        let next_added = |from: usize| {
            resume
                .added
                .as_ref()
                .map_or(bytes.len(), |a| a.next(bytes, from))
        };
        let (mut pos, mut chars) = (0, first_char);
        let mut added = next_added(0);
        while pos < bytes.len() {
            // The first byte the ASCII pass cannot take on its own.
            let hard = t.first_declined(bytes, pos, added);
            if hard == bytes.len() {
                let done = self.encode_ascii(&bytes[pos..], chars, t, out, words, caches);
                debug_assert!(done, "no byte it declines");
                return;
            }
            // Both ends fall on ASCII bytes (or the text's ends): char boundaries.
            let start = bytes[pos..hard]
                .iter()
                .rposition(space)
                .map_or(pos, |k| pos + k + 1);
            let mut end = word_end(hard);
            // The next words join the stretch while each holds a byte the
            // ASCII pass declines (most words of Cyrillic or Hindi text).
            while end - start < GENERAL_STRETCH && end < added {
                let Some(next) = bytes[end..added].iter().position(|b| !space(b)) else {
                    break;
                };
                let next = end + next;
                let next_end = word_end(next);
                if next_end > added || t.first_declined(bytes, next, next_end) == next_end {
                    break;
                }
                end = next_end;
            }
            if start > pos {
                let done = self.encode_ascii(&bytes[pos..start], chars, t, out, words, caches);
                debug_assert!(done, "no byte it declines");
                chars += (start - pos) as u32;
            }
            // No raw-text token starts before `added`: the stretch needs no
            // search for one.
            let no_raw_token = resume
                .added
                .as_ref()
                .is_some_and(|a| added >= end && a.finds_every_raw_token());
            match no_raw_token {
                true => self.encode_piece(&text[start..end], chars, out, words, caches),
                false => self.encode_general(&text[start..end], chars, out, words, caches),
            }
            chars += count_utf8_chars(&bytes[start..end]);
            pos = end;
            if added < pos {
                added = next_added(pos);
            }
        }
    }

    /// Normalization and pre-tokenization in one pass over bytes, words
    /// looked up in the thread's word cache. Returns false, output partly
    /// written, at the first byte it does not handle (class `Other`).
    fn encode_ascii(
        &self,
        seg: &[u8],
        first_char: u32,
        t: &AsciiTable,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) -> bool {
        let WordScratch {
            pieces,
            word: lowered,
            spans: batch,
            ..
        } = words;
        let cache = &mut caches.words;
        let use_cache = self.paths.word_cache;
        {
            let n = seg.len();
            let mut i = 0;
            while i < n {
                // 1. Find the next words, start loading their cache slots.
                batch.clear();
                while i < n && batch.len() < WORD_BATCH {
                    let b = seg[i];
                    // Tested in order of frequency; a plain branch predicts
                    // better than a jump table here.
                    let class = t.class[b as usize];
                    if class == AsciiClass::Word {
                        let start = i;
                        i = match t.word_bytes {
                            WordBytes::Alnum => end_of_word::<false>(seg, i),
                            WordBytes::AlnumUnderscore => end_of_word::<true>(seg, i),
                            WordBytes::Table => end_of_run(seg, i, t, class),
                        };
                        batch.push(word_span(seg, start, i, t, cache));
                        // The usual case: one space, then the next word.
                        if i + 1 < n
                            && t.class[seg[i] as usize] == AsciiClass::Space
                            && t.class[seg[i + 1] as usize] == AsciiClass::Word
                        {
                            i += 1;
                        }
                    } else if class == AsciiClass::Space {
                        i += 1;
                    } else if class == AsciiClass::Punct {
                        batch.push(Span {
                            start: i as u32,
                            len: 0,
                            key: [0; 2],
                            hash: 0,
                        });
                        i += 1;
                    } else if class == AsciiClass::Symbol {
                        let start = i;
                        i = end_of_run(seg, i, t, class);
                        batch.push(word_span(seg, start, i, t, cache));
                    } else {
                        return false;
                    }
                }
                // 2. Emit them in order.
                for sp in batch.iter() {
                    out.begin_word();
                    let at = first_char + sp.start;
                    let len = sp.len as usize;
                    let offsets = |p: &Piece| (at + p.start, at + p.end);
                    if len == 0 {
                        out.push(t.single[seg[sp.start as usize] as usize], (at, at + 1));
                    } else if len <= cache::MAX_WORD {
                        if use_cache
                            && cache.lookup_hashed(sp.hash, sp.key, len, |p| {
                                out.push(p.id, offsets(&p))
                            })
                        {
                            continue;
                        }
                        let bytes = word::key_bytes(sp.key);
                        let cache = use_cache.then_some((&mut *cache, sp.key));
                        self.emit_matched(&bytes[..len], cache, pieces, out, offsets);
                    } else {
                        let start = sp.start as usize;
                        lowered.clear();
                        lowered
                            .extend(seg[start..start + len].iter().map(|&b| t.lower[b as usize]));
                        self.emit_matched(lowered, None, pieces, out, offsets);
                    }
                }
            }
            true
        }
    }

    /// Matches `word` in the trie, caches the pieces under `key` if given, and
    /// pushes them with offsets from `offsets(piece)`.
    #[inline]
    fn emit_matched(
        &self,
        word: &[u8],
        cache: Option<(&mut WordCache, cache::Key)>,
        pieces: &mut Vec<Piece>,
        out: &mut Output,
        offsets: impl Fn(&Piece) -> (u32, u32),
    ) {
        pieces.clear();
        self.model.encode_word(word, pieces);
        if let Some((cache, key)) = cache {
            cache.insert_key(key, word.len(), pieces);
        }
        for p in pieces.iter() {
            out.push(p.id, offsets(p));
        }
    }
}

/// The end of the run of bytes of `class` that starts at `i`.
#[inline]
fn end_of_run(seg: &[u8], mut i: usize, t: &AsciiTable, class: AsciiClass) -> usize {
    while i < seg.len() && t.class[seg[i] as usize] == class {
        i += 1;
    }
    i
}

/// The word `seg[start..end]` with its cache key and hash (when short
/// enough to have one), its cache slot requested.
#[inline]
fn word_span(seg: &[u8], start: usize, end: usize, t: &AsciiTable, cache: &WordCache) -> Span {
    let len = end - start;
    let (mut key, mut hash) = ([0; 2], 0);
    if len <= cache::MAX_WORD {
        key = word::key_at(seg, start, len);
        if t.lowercase {
            key = [word::ascii_lower(key[0]), word::ascii_lower(key[1])];
        }
        hash = word::hash(key, len);
        cache.prefetch(hash);
    }
    Span {
        start: start as u32,
        len: len as u32,
        key,
        hash,
    }
}
