//! The encodings of a batch of single inputs as one flat batch, each row's
//! columns made when read.

use std::ops::Range;

use super::encoding::Encoding;
use super::post_process::{no_post_processor, PostProcessor};
use crate::cut::{Cut, PadDirection};
use std::sync::Arc;

use crate::encode::{words_of, FlatBatch};

/// The encodings of many single inputs kept as one flat batch of their
/// sequences (not truncated, not framed): a row's columns are made when they
/// are read, so a batch of `Encoding`s costs no allocation per input. Row
/// `i` equals what `encode_with` then padding give (tested below and in
/// the parity suite).
#[derive(Debug)]
pub struct EncodingRows {
    /// Every sequence's ids, char offsets and word ids (or, with
    /// `word_starts`, none: they are read off the ids), with row bounds.
    flat: FlatBatch,
    word_starts: Option<Arc<[bool]>>,
    /// `[CLS]` / `[SEP]` ids around each row (the tokenizer frames singles
    /// this way and special tokens are asked for).
    frame: Option<(u32, u32)>,
    /// The tokenizer's post-processor and whether special tokens are asked
    /// for: what `encoding` runs each row through.
    post_processor: Option<PostProcessor>,
    add_special_tokens: bool,
    /// Where each sequence is cut (its overflowing parts too).
    cut: Cut,
    /// Rows shorter than this are padded with `pad_id` / `pad_type_id`.
    padded_len: usize,
    pad_id: u32,
    pad_type_id: u32,
    pad_direction: PadDirection,
}

/// How the rows of a flat batch become encodings.
#[derive(Clone, Debug)]
pub struct RowLayout {
    /// Whether each id starts a word, when `flat` holds no word ids.
    pub word_starts: Option<Arc<[bool]>>,
    pub frame: Option<(u32, u32)>,
    pub post_processor: Option<PostProcessor>,
    pub add_special_tokens: bool,
    /// Where each sequence is cut; `Cut::NONE` without truncation.
    pub cut: Cut,
    /// `(length, pad_id, pad_type_id, direction)`, if padding.
    pub padding: Option<(usize, u32, u32, PadDirection)>,
}

impl EncodingRows {
    /// `flat` must hold offsets and word ids.
    pub fn new(flat: FlatBatch, layout: RowLayout) -> Self {
        let (padded_len, pad_id, pad_type_id, pad_direction) =
            layout.padding.unwrap_or((0, 0, 0, PadDirection::Right));
        Self {
            flat,
            word_starts: layout.word_starts,
            frame: layout.frame,
            post_processor: layout.post_processor,
            add_special_tokens: layout.add_special_tokens,
            cut: layout.cut,
            padded_len,
            pad_id,
            pad_type_id,
            pad_direction,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.flat.rows.len().saturating_sub(1)
    }

    /// The tokens of the row's sequence that its encoding keeps.
    fn kept(&self, row: usize) -> Range<usize> {
        let (a, b) = (self.flat.rows[row], self.flat.rows[row + 1]);
        let kept = self.cut.kept(b - a);
        a + kept.start..a + kept.end
    }

    fn framed(&self) -> usize {
        if self.frame.is_some() {
            2
        } else {
            0
        }
    }

    /// Tokens of `row` before padding.
    fn content_len(&self, row: usize) -> usize {
        self.kept(row).len() + self.framed()
    }

    /// Padding tokens of `row`.
    fn pad_len(&self, row: usize) -> usize {
        self.padded_len.saturating_sub(self.content_len(row))
    }

    /// Tokens of `row`, padding included.
    pub fn len(&self, row: usize) -> usize {
        self.content_len(row) + self.pad_len(row)
    }

    /// A column of `row`: padding, frame and content in their places.
    fn column<T: Clone>(
        &self,
        row: usize,
        pad: T,
        frame: Option<(T, T)>,
        content: impl Iterator<Item = T>,
    ) -> Vec<T> {
        let n_pad = self.pad_len(row);
        let mut v = Vec::with_capacity(self.len(row));
        if self.pad_direction == PadDirection::Left {
            v.extend(std::iter::repeat_n(pad.clone(), n_pad));
        }
        if let Some((first, _)) = &frame {
            v.push(first.clone());
        }
        v.extend(content);
        if let Some((_, last)) = frame {
            v.push(last);
        }
        if self.pad_direction == PadDirection::Right {
            v.extend(std::iter::repeat_n(pad, n_pad));
        }
        v
    }

    pub fn ids(&self, row: usize) -> Vec<u32> {
        let kept = self.kept(row);
        let frame = self.frame;
        self.column(row, self.pad_id, frame, self.flat.ids[kept].iter().copied())
    }

    pub fn type_ids(&self, row: usize) -> Vec<u32> {
        let frame = self.frame.map(|_| (0, 0));
        let n = self.kept(row).len();
        self.column(row, self.pad_type_id, frame, std::iter::repeat_n(0, n))
    }

    pub fn offsets(&self, row: usize) -> Vec<(u32, u32)> {
        let kept = self.kept(row);
        let frame = self.frame.map(|_| ((0, 0), (0, 0)));
        let o = &self.flat.offsets[2 * kept.start..2 * kept.end];
        self.column(row, (0, 0), frame, o.chunks_exact(2).map(|p| (p[0], p[1])))
    }

    pub fn special_tokens_mask(&self, row: usize) -> Vec<u8> {
        let frame = self.frame.map(|_| (1, 1));
        let n = self.kept(row).len();
        self.column(row, 1, frame, std::iter::repeat_n(0, n))
    }

    pub fn attention_mask(&self, row: usize) -> Vec<u8> {
        let frame = self.frame.map(|_| (1, 1));
        let n = self.kept(row).len();
        self.column(row, 0, frame, std::iter::repeat_n(1, n))
    }

    /// The word of each token of `row`'s whole sequence.
    fn sequence_words(&self, row: usize) -> Vec<u32> {
        let (a, b) = (self.flat.rows[row], self.flat.rows[row + 1]);
        match &self.word_starts {
            Some(starts) => words_of(&self.flat.ids[a..b], starts).collect(),
            None => self.flat.words[a..b].to_vec(),
        }
    }

    pub fn word_ids(&self, row: usize) -> Vec<Option<u32>> {
        let (kept, a) = (self.kept(row), self.flat.rows[row]);
        let words = self.sequence_words(row);
        let frame = self.frame.map(|_| (None, None));
        let w = words[kept.start - a..kept.end - a].iter().map(|&w| Some(w));
        self.column(row, None, frame, w)
    }

    /// Every column of `row`, overflowing parts included: the row's sequence
    /// through the same truncation, post-processing and padding as
    /// `Tokenizer::encode_with`.
    pub fn encoding(&self, row: usize) -> Encoding {
        let (a, b) = (self.flat.rows[row], self.flat.rows[row + 1]);
        let mut e = Encoding {
            ids: self.flat.ids[a..b].to_vec(),
            type_ids: vec![0; b - a],
            offsets: self.flat.offsets[2 * a..2 * b]
                .chunks_exact(2)
                .map(|p| (p[0], p[1]))
                .collect(),
            special_tokens_mask: vec![0; b - a],
            attention_mask: vec![1; b - a],
            word_ids: self.sequence_words(row).into_iter().map(Some).collect(),
            sequence_ranges: Vec::new(),
            overflowing: Vec::new(),
            // Tokenizers whose added tokens may show other strings encode
            // by input (`batch_plan`), never in rows.
            surfaces: Vec::new(),
        };
        // The cut was checked when the rows were made.
        let _ = e.truncate(self.cut.keep, self.cut.stride, self.cut.side);
        let mut e = match &self.post_processor {
            Some(p) => p.process(e, None, self.add_special_tokens),
            None => no_post_processor(e, None),
        };
        if self.padded_len > 0 {
            let _ = e.pad(
                self.padded_len,
                self.pad_id,
                self.pad_type_id,
                self.pad_direction,
            );
        }
        e
    }
}
