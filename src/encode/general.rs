//! The general layer: any text, in HF's order. Added tokens matched in raw
//! text come first; each piece between them is normalized (every char
//! remembering its source char), tokens matched by their normalized form
//! come next, and each piece left is pre-tokenized into words, which
//! WordPiece splits (through the word cache). ASCII pieces first offer
//! themselves to the ASCII layer.
//!
//! Words are found a batch ahead of emitting them and their word cache
//! slots prefetched: on text the process has not seen (most of a corpus),
//! a slot is usually out of the CPU's nearer caches, and waiting for each
//! in turn was a sixth of the time on multilingual text.

/// Words found before any of them is emitted.
const WORD_BATCH: usize = 16;

use super::Encoder;
use super::{Ahead, Output, WordScratch};
use crate::added_tokens::Split;
use crate::cache::{word, Caches, Key, WordCache, MAX_WORD};
use crate::model::Piece;
use crate::normalizers::{span, Normalized};
use crate::pre_tokenizers::WordSpan;
use crate::splitter::SplitBuffers;

/// Char index of byte offsets in a text, counted on from the last one asked
/// for (recounted from the start when asked for an earlier one: a match
/// stripping whitespace on its right may overlap the next one, as in HF).
struct Chars<'t> {
    text: &'t [u8],
    byte: usize,
    chars: u32,
}

impl<'t> Chars<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text: text.as_bytes(),
            byte: 0,
            chars: 0,
        }
    }

    fn at(&mut self, byte: usize) -> u32 {
        if byte < self.byte {
            (self.byte, self.chars) = (0, 0);
        }
        let step = &self.text[self.byte..byte];
        self.chars += step.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32;
        self.byte = byte;
        self.chars
    }
}

impl Encoder {
    /// Encodes a text (or one piece of a long one) that starts at char
    /// `first_char` of the input.
    pub(super) fn encode_text(
        &self,
        text: &str,
        first_char: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        if let Some(resume) = &self.resume {
            return self.encode_ascii_around(text, first_char, resume, out, words, caches);
        }
        // Most texts are ASCII without added tokens: one pass does it all.
        if self.try_ascii(text, first_char, true, out, words, caches) {
            return;
        }
        self.encode_general(text, first_char, out, words, caches);
    }

    /// [`Encoder::encode_text`] through the general layer alone.
    pub(super) fn encode_general(
        &self,
        text: &str,
        first_char: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        let mut chars = Chars::new(text);
        self.added.split_raw(text, |split| match split {
            Split::Token(id, r) => {
                let (start, end) = (chars.at(r.start), chars.at(r.end));
                out.begin_word();
                out.push(id, (first_char + start, first_char + end));
                let own = self.added.get(id).map_or("", |t| t.content.as_str());
                out.show(&text[r], own);
            }
            Split::Text(r) => {
                let at = first_char + chars.at(r.start);
                self.encode_piece(&text[r], at, out, words, caches);
            }
            Split::Unsplittable(id) => out.unsplittable(id),
        });
    }

    /// A piece between raw-text added tokens; `first_char` is its char
    /// offset in the input.
    pub(super) fn encode_piece(
        &self,
        piece: &str,
        first_char: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        if self.try_ascii(piece, first_char, false, out, words, caches) {
            return;
        }
        let WordScratch {
            pieces,
            word: suffixed,
            split,
            ahead,
            ..
        } = words;
        let mut cache = self.paths.word_cache.then_some(&mut caches.words);
        let SplitBuffers {
            normalized,
            words: spans,
            ..
        } = split;
        // Without offsets no char needs its source (a fifth of a
        // multilingual pass); a chain's steps compose sources, so keep them.
        normalized.text_only = !out.with_offsets && self.splitter.normalizes_text_only();
        self.splitter.normalize(piece, first_char, normalized);
        let normalized = &*normalized;
        let mut emit =
            |ahead: &mut Vec<Ahead>, cache: &mut Option<&mut WordCache>, out: &mut Output| {
                for a in ahead.drain(..) {
                    self.emit_span(normalized, a, cache.as_deref_mut(), pieces, suffixed, out);
                }
            };
        // Without normalized added tokens the text is one `Text` split.
        let mut chars = Chars::new(&normalized.text);
        self.added
            .split_normalized(&normalized.text, |split| match split {
                Split::Token(id, r) => {
                    emit(ahead, &mut cache, out);
                    let (first, last) = (chars.at(r.start), chars.at(r.end) - 1);
                    let offsets = match normalized.text_only {
                        true => (0, 0),
                        false => span(&normalized.source, first as usize, last as usize),
                    };
                    out.begin_word();
                    out.push(id, offsets);
                    // The token shows the normalized text it matched, as in HF.
                    let own = self.added.get(id).map_or("", |t| t.content.as_str());
                    out.show(&normalized.text[r], own);
                }
                Split::Text(r) => {
                    let at = chars.at(r.start);
                    self.splitter
                        .pre_tokenize(normalized, r, at, spans, |_, w| {
                            if self.find_ahead(normalized, w, ahead, cache.as_deref()) == WORD_BATCH
                            {
                                emit(ahead, &mut cache, out);
                            }
                        });
                }
                Split::Unsplittable(id) => out.unsplittable(id),
            });
        emit(ahead, &mut cache, out);
    }

    /// Queues word `w` of `normalized`, asking the CPU for its cache slot;
    /// returns how many words wait.
    #[inline]
    fn find_ahead(
        &self,
        normalized: &Normalized,
        w: WordSpan,
        ahead: &mut Vec<Ahead>,
        cache: Option<&WordCache>,
    ) -> usize {
        let len = w.end - w.start;
        let hashed = match cache {
            Some(cache) if len <= MAX_WORD && self.model.config.end_of_word_suffix.is_empty() => {
                let key = word::key_at(normalized.text.as_bytes(), w.start, len);
                let h = word::hash(key, len);
                cache.prefetch(h);
                Some((key, h))
            }
            _ => None,
        };
        ahead.push(Ahead { span: w, hashed });
        ahead.len()
    }

    /// Pushes the pieces of one word of `normalized`, with offsets mapped
    /// back through the source of each normalized char, as HF maps them:
    /// from the first char's start to the last char's end.
    #[inline]
    fn emit_span(
        &self,
        normalized: &Normalized,
        ahead: Ahead,
        cache: Option<&mut WordCache>,
        pieces: &mut Vec<Piece>,
        suffixed: &mut Vec<u8>,
        out: &mut Output,
    ) {
        let Ahead { span: w, hashed } = ahead;
        out.begin_word();
        let suffix = self.model.config.end_of_word_suffix.as_bytes();
        let source = &normalized.source;
        let word = &normalized.text.as_bytes()[w.start..w.end];
        let first = w.first_char as usize;
        if word.is_ascii() && suffix.is_empty() {
            // A piece's byte offsets are its char offsets.
            let offsets = |p: &Piece| match normalized.text_only {
                true => (0, 0),
                false => span(source, first + p.start as usize, first + p.end as usize - 1),
            };
            return self.emit_word(word, hashed, cache, pieces, out, offsets);
        }
        // Char index (within the word) of a piece boundary; a boundary
        // inside the end-of-word suffix falls on the word's end.
        let char_at = |byte: u32| {
            let byte = (byte as usize).min(word.len());
            first + word[..byte].iter().filter(|&&x| (x & 0xC0) != 0x80).count()
        };
        let offsets = |p: &Piece| {
            if normalized.text_only {
                return (0, 0);
            }
            let (a, b) = (char_at(p.start), char_at(p.end));
            let a = a.min(b.saturating_sub(1)).max(first);
            span(source, a, b.max(a + 1) - 1)
        };
        if suffix.is_empty() {
            self.emit_word(word, hashed, cache, pieces, out, offsets);
        } else {
            suffixed.clear();
            suffixed.extend_from_slice(word);
            suffixed.extend_from_slice(suffix);
            self.emit_word(suffixed, None, cache, pieces, out, offsets);
        }
    }

    /// Pushes the pieces of `word` (from the cache, by its key and hash when
    /// known, or matched and cached), with offsets from `offsets(piece)`.
    #[inline]
    fn emit_word(
        &self,
        word: &[u8],
        hashed: Option<(Key, u64)>,
        cache: Option<&mut WordCache>,
        pieces: &mut Vec<Piece>,
        out: &mut Output,
        offsets: impl Fn(&Piece) -> (u32, u32),
    ) {
        if let Some(cache) = &cache {
            let hit = match hashed {
                Some((key, h)) => {
                    cache.lookup_hashed(h, key, word.len(), |p| out.push(p.id, offsets(&p)))
                }
                None => cache.lookup(word, |p| out.push(p.id, offsets(&p))),
            };
            if hit {
                return;
            }
        }
        pieces.clear();
        self.model.encode_word(word, pieces);
        if let Some(cache) = cache {
            cache.insert(word, pieces);
        }
        for p in pieces.iter() {
            out.push(p.id, offsets(p));
        }
    }
}
