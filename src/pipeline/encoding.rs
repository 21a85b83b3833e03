//! The encoding of one input (or pair): ids and the columns that go with
//! them, with the semantics of HF `tokenizers`' `Encoding` (word ids,
//! sequence ranges, overflowing parts, the char/word/token maps).

use std::ops::Range;

use crate::cut::{Cut, PadDirection, TruncationDirection};
use crate::encode::Output;
use crate::error::{Error, Result};

/// The result of encoding one input (or pair). Offsets are in chars of the
/// original input(s); added and padding tokens have `(0, 0)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    pub offsets: Vec<(u32, u32)>,
    pub special_tokens_mask: Vec<u8>,
    pub attention_mask: Vec<u8>,
    /// The word of each token within its sequence (None: added by post-processing or padding).
    pub word_ids: Vec<Option<u32>>,
    /// Which tokens belong to which sequence, as HF records it: empty until
    /// post-processing sets it (then every sequence's range).
    pub sequence_ranges: Vec<(usize, Range<usize>)>,
    /// The parts cut off by truncation, each an encoding of its own.
    pub overflowing: Vec<Encoding>,
    /// Tokens that show another string than their id's (an added token's
    /// match with the whitespace it stripped, or its normalized form), as
    /// `(token index, string)` in index order; almost always empty.
    pub surfaces: Vec<(usize, Box<str>)>,
}

impl Encoding {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Equal in every column, overflowing parts included, whether or not
    /// the strings tokens show are kept here (`surfaces`).
    pub fn same_values(&self, other: &Self) -> bool {
        self.ids == other.ids
            && self.type_ids == other.type_ids
            && self.offsets == other.offsets
            && self.special_tokens_mask == other.special_tokens_mask
            && self.attention_mask == other.attention_mask
            && self.word_ids == other.word_ids
            && self.sequence_ranges == other.sequence_ranges
            && self.overflowing.len() == other.overflowing.len()
            && (self.overflowing.iter())
                .zip(&other.overflowing)
                .all(|(a, b)| a.same_values(b))
    }

    /// The encoding of one sequence from the engine's output (which holds
    /// offsets and word ids).
    pub fn from_sequence(out: Output, type_id: u32) -> Self {
        let n = out.ids.len();
        Self {
            type_ids: vec![type_id; n],
            offsets: out.offsets.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
            special_tokens_mask: vec![0; n],
            attention_mask: vec![1; n],
            word_ids: out.words.iter().map(|&w| Some(w)).collect(),
            ids: out.ids,
            sequence_ranges: Vec::new(),
            overflowing: Vec::new(),
            surfaces: out.surfaces,
        }
    }

    /// Special tokens (of a post-processor): word None, offsets (0, 0).
    pub(crate) fn special(ids: &[u32], type_id: u32) -> Self {
        let n = ids.len();
        Self {
            ids: ids.to_vec(),
            type_ids: vec![type_id; n],
            offsets: vec![(0, 0); n],
            special_tokens_mask: vec![1; n],
            attention_mask: vec![1; n],
            word_ids: vec![None; n],
            sequence_ranges: Vec::new(),
            overflowing: Vec::new(),
            surfaces: Vec::new(),
        }
    }

    /// Bytes one token takes across the columns.
    pub(crate) const BYTES_PER_TOKEN: usize = 4 + 4 + 8 + 1 + 1 + 8;

    /// Tokens `range` of every column, without sequence ranges or overflowing.
    fn slice(&self, range: Range<usize>) -> Self {
        Self {
            ids: self.ids[range.clone()].to_vec(),
            type_ids: self.type_ids[range.clone()].to_vec(),
            offsets: self.offsets[range.clone()].to_vec(),
            special_tokens_mask: self.special_tokens_mask[range.clone()].to_vec(),
            attention_mask: self.attention_mask[range.clone()].to_vec(),
            word_ids: self.word_ids[range.clone()].to_vec(),
            sequence_ranges: Vec::new(),
            overflowing: Vec::new(),
            surfaces: self
                .surfaces
                .iter()
                .filter(|(i, _)| range.contains(i))
                .map(|(i, s)| (i - range.start, s.clone()))
                .collect(),
        }
    }

    /// The string token `index` shows, if it is not its id's.
    pub fn surface(&self, index: usize) -> Option<&str> {
        let k = self
            .surfaces
            .binary_search_by_key(&index, |(i, _)| *i)
            .ok()?;
        Some(&self.surfaces[k].1)
    }

    // ----- sequences -------------------------------------------------------

    pub fn n_sequences(&self) -> usize {
        self.sequence_ranges.len().max(1)
    }

    pub(crate) fn set_sequence_id(&mut self, id: usize) {
        let range = 0..self.len();
        set_range(&mut self.sequence_ranges, id, range);
    }

    fn sequence_range(&self, id: usize) -> Range<usize> {
        self.sequence_ranges
            .iter()
            .find(|(s, _)| *s == id)
            .map_or(0..self.len(), |(_, r)| r.clone())
    }

    /// The sequence of each token (None for tokens outside every range).
    pub fn sequence_ids(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.len()];
        for id in 0..self.n_sequences() {
            let range = self.sequence_range(id);
            for slot in out.get_mut(range).into_iter().flatten() {
                *slot = Some(id);
            }
        }
        out
    }

    /// HF answers `Some(0)` for `token == len` without ranges; so do we.
    pub fn token_to_sequence(&self, token: usize) -> Option<usize> {
        if token > self.len() {
            None
        } else if self.sequence_ranges.is_empty() {
            Some(0)
        } else {
            self.sequence_ranges
                .iter()
                .find(|(_, r)| r.contains(&token))
                .map(|(s, _)| *s)
        }
    }

    // ----- maps between chars, words and tokens ----------------------------

    /// Tokens `[start, end)` of word `word` of sequence `seq`; the scan stops
    /// at the first token of a later word, as HF's does.
    pub fn word_to_tokens(&self, word: u32, seq: usize) -> Option<(usize, usize)> {
        let range = self.sequence_range(seq);
        let words = self.word_ids.get(range.clone())?;
        let mut found: Option<(usize, usize)> = None;
        for (i, w) in words.iter().enumerate() {
            if *w > Some(word) {
                break;
            }
            if *w == Some(word) {
                found = Some(found.map_or((i, i + 1), |(s, _)| (s, i + 1)));
            }
        }
        found.map(|(s, e)| (range.start + s, range.start + e))
    }

    pub fn word_to_chars(&self, word: u32, seq: usize) -> Option<(u32, u32)> {
        let (start, end) = self.word_to_tokens(word, seq)?;
        (end > 0).then(|| (self.offsets[start].0, self.offsets[end - 1].1))
    }

    pub fn token_to_chars(&self, token: usize) -> Option<(usize, (u32, u32))> {
        Some((self.token_to_sequence(token)?, *self.offsets.get(token)?))
    }

    pub fn token_to_word(&self, token: usize) -> Option<(usize, u32)> {
        Some((
            self.token_to_sequence(token)?,
            (*self.word_ids.get(token)?)?,
        ))
    }

    pub fn char_to_token(&self, pos: usize, seq: usize) -> Option<usize> {
        let range = self.sequence_range(seq);
        let pos = u64::try_from(pos).ok()?;
        self.offsets
            .get(range.clone())?
            .iter()
            .position(|&(s, e)| pos >= s as u64 && pos < e as u64)
            .map(|i| range.start + i)
    }

    pub fn char_to_word(&self, pos: usize, seq: usize) -> Option<u32> {
        self.char_to_token(pos, seq)
            .and_then(|t| self.token_to_word(t))
            .map(|(_, w)| w)
    }

    // ----- truncation, merging, padding ------------------------------------

    /// Cuts to `max_len` tokens from `direction`; the rest becomes
    /// overflowing parts of `max_len` tokens that overlap by `stride`.
    /// HF panics when `stride >= max_len`; we refuse.
    pub fn truncate(
        &mut self,
        max_len: usize,
        stride: usize,
        direction: TruncationDirection,
    ) -> Result<()> {
        let len = self.len();
        if max_len >= len {
            return Ok(());
        }
        if max_len == 0 {
            let whole = std::mem::take(self);
            self.overflowing.push(whole);
            return Ok(());
        }
        let cut = Cut {
            keep: max_len,
            stride,
            side: direction,
        };
        cut.check()?;
        let parts = cut.parts(len);
        let mut first = self.slice(parts[0].clone());
        first.overflowing = parts[1..].iter().map(|r| self.slice(r.clone())).collect();
        *self = first;
        Ok(())
    }

    /// The encodings one after the other (HF `Encoding::merge`, offsets kept).
    pub fn merge(encodings: impl IntoIterator<Item = Encoding>) -> Self {
        let mut out = Encoding::default();
        for e in encodings {
            out.merge_with(e);
        }
        out
    }

    /// Appends `pair`; overflowing parts combine as HF combines them (each of
    /// ours with `pair` and with each of its parts, then us with each of its).
    pub fn merge_with(&mut self, pair: Encoding) {
        let mut overflowing = Vec::new();
        for mine in &self.overflowing {
            let mut e = mine.clone();
            e.merge_with(pair.clone());
            overflowing.push(e);
            for theirs in &pair.overflowing {
                let mut e = mine.clone();
                e.merge_with(theirs.clone());
                overflowing.push(e);
            }
        }
        for theirs in &pair.overflowing {
            let mut e = self.clone();
            e.merge_with(theirs.clone());
            overflowing.push(e);
        }
        let base = self.len();
        for (id, r) in pair.sequence_ranges {
            set_range(&mut self.sequence_ranges, id, base + r.start..base + r.end);
        }
        self.ids.extend(pair.ids);
        self.type_ids.extend(pair.type_ids);
        self.offsets.extend(pair.offsets);
        self.special_tokens_mask.extend(pair.special_tokens_mask);
        self.attention_mask.extend(pair.attention_mask);
        self.word_ids.extend(pair.word_ids);
        let shifted = pair.surfaces.into_iter().map(|(i, s)| (base + i, s));
        self.surfaces.extend(shifted);
        self.overflowing = overflowing;
    }

    /// Pads to `len` tokens (and every overflowing part too) with `pad_id` /
    /// `pad_type_id`, attention 0, on the side `direction` says.
    pub(crate) fn pad(
        &mut self,
        len: usize,
        pad_id: u32,
        pad_type_id: u32,
        direction: PadDirection,
    ) -> Result<()> {
        for part in &mut self.overflowing {
            part.pad(len, pad_id, pad_type_id, direction)?;
        }
        let Some(extra) = len.checked_sub(self.len()).filter(|&n| n > 0) else {
            return Ok(());
        };
        let oom = |_| Error::Memory(format!("cannot allocate memory to pad to {len} tokens"));
        self.ids.try_reserve_exact(extra).map_err(oom)?;
        self.type_ids.try_reserve_exact(extra).map_err(oom)?;
        self.offsets.try_reserve_exact(extra).map_err(oom)?;
        self.special_tokens_mask
            .try_reserve_exact(extra)
            .map_err(oom)?;
        self.attention_mask.try_reserve_exact(extra).map_err(oom)?;
        self.word_ids.try_reserve_exact(extra).map_err(oom)?;
        match direction {
            PadDirection::Right => {
                self.ids.resize(len, pad_id);
                self.type_ids.resize(len, pad_type_id);
                self.offsets.resize(len, (0, 0));
                self.special_tokens_mask.resize(len, 1);
                self.attention_mask.resize(len, 0);
                self.word_ids.resize(len, None);
            }
            PadDirection::Left => {
                prepend(&mut self.ids, extra, pad_id);
                prepend(&mut self.type_ids, extra, pad_type_id);
                prepend(&mut self.offsets, extra, (0, 0));
                prepend(&mut self.special_tokens_mask, extra, 1);
                prepend(&mut self.attention_mask, extra, 0);
                prepend(&mut self.word_ids, extra, None);
                for (_, r) in &mut self.sequence_ranges {
                    *r = r.start + extra..r.end + extra;
                }
                for (i, _) in &mut self.surfaces {
                    *i += extra;
                }
            }
        }
        Ok(())
    }
}

fn prepend<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    v.splice(0..0, std::iter::repeat_n(value, n));
}

/// Sets (or replaces) the range of sequence `id`, as HF's map does.
fn set_range(ranges: &mut Vec<(usize, Range<usize>)>, id: usize, range: Range<usize>) {
    match ranges.iter_mut().find(|(s, _)| *s == id) {
        Some(slot) => slot.1 = range,
        None => ranges.push((id, range)),
    }
}
