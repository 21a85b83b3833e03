//! The general layer: any text. Added tokens are found in the raw text; each
//! segment between them is normalized (every char remembering its source
//! char), pre-tokenized into words, and each word split by WordPiece (through
//! the word cache). ASCII segments first offer themselves to the ASCII layer.

use super::Encoder;
use super::{Output, WordScratch};
use crate::added_tokens::Segment;
use crate::cache::{Caches, WordCache};
use crate::model::Piece;
use crate::normalizer::Normalized;
use crate::normalizer_chain::{normalize_chain, span};
use crate::pre_tokenizer_chain::split_chain;

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
        let normalized = &mut words.normalized;
        if let Some(chain) = &self.chain {
            normalize_chain(&chain.normalizers, segment, first_char, normalized);
            split_chain(
                &chain.pre_tokenizers,
                &normalized.text,
                &mut words.chain_words,
            );
            let cache = self.paths.word_cache.then_some(&mut caches.words);
            self.encode_words(
                normalized,
                words.chain_words.iter().map(|&(start, end)| (start, end)),
                out,
                &mut words.pieces,
                cache,
            );
            return;
        }
        match &self.normalizer {
            Some(n) => n.normalize_into(segment, first_char, normalized),
            None => {
                normalized.text.clear();
                normalized.text.push_str(segment);
                normalized.source.clear();
                let chars = segment.chars().count() as u32;
                normalized.source.extend(first_char..first_char + chars);
            }
        }
        let cache = self.paths.word_cache.then_some(&mut caches.words);
        self.encode_normalized(normalized, out, &mut words.pieces, &mut words.word, cache);
    }

    /// Pre-tokenizes normalized text and emits each word's pieces, with
    /// offsets mapped back through `normalized.source`.
    fn encode_normalized(
        &self,
        normalized: &Normalized,
        out: &mut Output,
        pieces: &mut Vec<Piece>,
        suffixed: &mut Vec<u8>,
        mut cache: Option<&mut WordCache>,
    ) {
        let text = normalized.text.as_str();
        let source = &normalized.source;
        let suffix = self.model.config.end_of_word_suffix.as_bytes();
        self.pre_tokenizer.split(text, |w| {
            out.begin_word();
            let word = &text.as_bytes()[w.start..w.end];
            let first = w.first_char as usize;
            let cache = cache.as_deref_mut();
            if word.is_ascii() && suffix.is_empty() {
                // A piece's byte offsets are its char offsets.
                let offsets = |p: &Piece| {
                    (
                        source[first + p.start as usize],
                        source[first + p.end as usize - 1] + 1,
                    )
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
                (source[a], source[b.max(a + 1) - 1] + 1)
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

    /// Emits the pieces of each word (a byte range of the normalized text,
    /// in order) of a chain's pre-tokenization, with offsets as HF maps
    /// them: from the first char's source to the last char's source + 1.
    fn encode_words(
        &self,
        normalized: &Normalized,
        words: impl Iterator<Item = (usize, usize)>,
        out: &mut Output,
        pieces: &mut Vec<Piece>,
        mut cache: Option<&mut WordCache>,
    ) {
        let text = normalized.text.as_bytes();
        let source = &normalized.source;
        // Char index of each word's first byte, counted on from the last word.
        let (mut byte, mut chars) = (0usize, 0usize);
        for (start, end) in words {
            chars += text[byte..start]
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count();
            byte = start;
            let first = chars;
            let word = &text[start..end];
            out.begin_word();
            let char_at = |b: u32| {
                let b = (b as usize).min(word.len());
                first + word[..b].iter().filter(|&&x| (x & 0xC0) != 0x80).count()
            };
            let offsets = |p: &Piece| {
                let (a, b) = (char_at(p.start), char_at(p.end));
                span(source, a, b.max(a + 1) - 1)
            };
            self.emit_word(word, cache.as_deref_mut(), pieces, out, offsets);
        }
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
