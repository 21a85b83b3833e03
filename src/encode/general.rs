//! The general layer: any text. Added tokens are found in the raw text; the
//! splitter normalizes each segment between them (every char remembering its
//! source char) and pre-tokenizes it into words, and WordPiece splits each
//! word (through the word cache). ASCII segments first offer themselves to
//! the ASCII layer.

use super::Encoder;
use super::{Output, WordScratch};
use crate::added_tokens::Segment;
use crate::cache::{Caches, WordCache};
use crate::model::Piece;
use crate::normalizers::span;

impl Encoder {
    /// Encodes a text (or chunk) that starts at char `first_char` of the input.
    pub(super) fn encode_text(
        &self,
        text: &str,
        first_char: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        // Most texts are ASCII without added tokens: one pass does it all.
        if self.try_ascii(text, first_char, true, out, words, caches) {
            return;
        }
        self.added.split(text, first_char, |segment| match segment {
            Segment::Token(t, start, end) => {
                out.begin_word();
                out.push(t.id, (start, end))
            }
            Segment::Text(s, at) => self.encode_segment(s, at, out, words, caches),
        });
    }

    /// A segment without added tokens; `first_char` is its char offset in the input.
    fn encode_segment(
        &self,
        segment: &str,
        first_char: u32,
        out: &mut Output,
        words: &mut WordScratch,
        caches: &mut Caches,
    ) {
        if self.try_ascii(segment, first_char, false, out, words, caches) {
            return;
        }
        let mut cache = self.paths.word_cache.then_some(&mut caches.words);
        let WordScratch {
            pieces,
            word: suffixed,
            split,
            ..
        } = words;
        let suffix = self.model.config.end_of_word_suffix.as_bytes();
        // Each word's pieces, with offsets mapped back through the source of
        // each normalized char, as HF maps them: from the first char's start
        // to the last char's end.
        self.splitter
            .split(segment, first_char, split, |normalized, w| {
                out.begin_word();
                let source = &normalized.source;
                let word = &normalized.text.as_bytes()[w.start..w.end];
                let first = w.first_char as usize;
                let cache = cache.as_deref_mut();
                if word.is_ascii() && suffix.is_empty() {
                    // A piece's byte offsets are its char offsets.
                    let offsets = |p: &Piece| {
                        span(source, first + p.start as usize, first + p.end as usize - 1)
                    };
                    return self.emit_word(word, cache, pieces, out, offsets);
                }
                // Char index (within the word) of a piece boundary; a boundary
                // inside the end-of-word suffix falls on the word's end.
                let char_at = |byte: u32| {
                    let byte = (byte as usize).min(word.len());
                    first + word[..byte].iter().filter(|&&x| (x & 0xC0) != 0x80).count()
                };
                let offsets = |p: &Piece| {
                    let (a, b) = (char_at(p.start), char_at(p.end));
                    let a = a.min(b.saturating_sub(1)).max(first);
                    span(source, a, b.max(a + 1) - 1)
                };
                if suffix.is_empty() {
                    self.emit_word(word, cache, pieces, out, offsets);
                } else {
                    suffixed.clear();
                    suffixed.extend_from_slice(word);
                    suffixed.extend_from_slice(suffix);
                    self.emit_word(suffixed, cache, pieces, out, offsets);
                }
            });
    }

    /// Pushes the pieces of `word` (from the cache, or matched and cached),
    /// with offsets from `offsets(piece)`.
    #[inline]
    fn emit_word(
        &self,
        word: &[u8],
        cache: Option<&mut WordCache>,
        pieces: &mut Vec<Piece>,
        out: &mut Output,
        offsets: impl Fn(&Piece) -> (u32, u32),
    ) {
        if let Some(cache) = &cache {
            if cache.lookup(word, |p| out.push(p.id, offsets(&p))) {
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
