//! The encoding of one input (or pair): ids and the columns that go with them.

use crate::encode::{FlatBatch, Output};
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
}

impl Encoding {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The encoding of one sequence from the engine's output.
    pub fn from_sequence(out: Output, type_id: u32) -> Self {
        let n = out.ids.len();
        Self {
            ids: out.ids,
            type_ids: vec![type_id; n],
            offsets: out.offsets.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
            special_tokens_mask: vec![0; n],
            attention_mask: vec![1; n],
        }
    }

    pub(crate) fn push(&mut self, id: u32, type_id: u32, offsets: (u32, u32), special: bool) {
        self.ids.push(id);
        self.type_ids.push(type_id);
        self.offsets.push(offsets);
        self.special_tokens_mask.push(special as u8);
        self.attention_mask.push(1);
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        self.ids.truncate(len);
        self.type_ids.truncate(len);
        self.offsets.truncate(len);
        self.special_tokens_mask.truncate(len);
        self.attention_mask.truncate(len);
    }

    pub(crate) fn append(&mut self, mut other: Encoding) {
        self.ids.append(&mut other.ids);
        self.type_ids.append(&mut other.type_ids);
        self.offsets.append(&mut other.offsets);
        self.special_tokens_mask
            .append(&mut other.special_tokens_mask);
        self.attention_mask.append(&mut other.attention_mask);
    }

    /// Bytes one token takes across the columns.
    pub(crate) const BYTES_PER_TOKEN: usize = 4 + 4 + 8 + 1 + 1;

    /// Pads to `len` tokens with `pad_id` / `pad_type_id` (attention 0).
    pub(crate) fn pad_to(&mut self, len: usize, pad_id: u32, pad_type_id: u32) -> Result<()> {
        let Some(extra) = len.checked_sub(self.ids.len()).filter(|&n| n > 0) else {
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
        self.ids.resize(len, pad_id);
        self.type_ids.resize(len, pad_type_id);
        self.offsets.resize(len, (0, 0));
        self.special_tokens_mask.resize(len, 1);
        self.attention_mask.resize(len, 0);
        Ok(())
    }
}

/// The encodings of many single inputs kept as one flat batch: a row's
/// columns are made when they are read, so a batch of `Encoding`s costs no
/// allocation per input. Row `i` equals what `encode_with` then padding give.
#[derive(Debug)]
pub struct EncodingRows {
    /// Framed and truncated ids and char offsets, with row bounds.
    flat: FlatBatch,
    /// Whether each row starts with `[CLS]` and ends with `[SEP]`.
    framed: bool,
    /// Rows shorter than this are padded (right) with `pad_id` / `pad_type_id`.
    padded_len: usize,
    pad_id: u32,
    pad_type_id: u32,
}

impl EncodingRows {
    /// `flat` must hold offsets (`with_offsets`); `padding` is
    /// `(length, pad_id, pad_type_id)`.
    pub fn new(flat: FlatBatch, framed: bool, padding: Option<(usize, u32, u32)>) -> Self {
        let (padded_len, pad_id, pad_type_id) = padding.unwrap_or((0, 0, 0));
        Self {
            flat,
            framed,
            padded_len,
            pad_id,
            pad_type_id,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.flat.rows.len().saturating_sub(1)
    }

    fn bounds(&self, row: usize) -> (usize, usize) {
        (self.flat.rows[row], self.flat.rows[row + 1])
    }

    /// Tokens of `row` before padding.
    fn content_len(&self, row: usize) -> usize {
        let (a, b) = self.bounds(row);
        b - a
    }

    /// Tokens of `row`, padding included.
    pub fn len(&self, row: usize) -> usize {
        self.content_len(row).max(self.padded_len)
    }

    pub fn ids(&self, row: usize) -> Vec<u32> {
        let (a, b) = self.bounds(row);
        let mut v = Vec::with_capacity(self.len(row));
        v.extend_from_slice(&self.flat.ids[a..b]);
        v.resize(self.len(row), self.pad_id);
        v
    }

    pub fn type_ids(&self, row: usize) -> Vec<u32> {
        let mut v = vec![0; self.content_len(row)];
        v.resize(self.len(row), self.pad_type_id);
        v
    }

    pub fn offsets(&self, row: usize) -> Vec<(u32, u32)> {
        let (a, b) = self.bounds(row);
        let mut v = Vec::with_capacity(self.len(row));
        v.extend(
            self.flat.offsets[2 * a..2 * b]
                .chunks_exact(2)
                .map(|p| (p[0], p[1])),
        );
        v.resize(self.len(row), (0, 0));
        v
    }

    pub fn special_tokens_mask(&self, row: usize) -> Vec<u8> {
        let n = self.content_len(row);
        let mut v = vec![0; n];
        if self.framed && n >= 2 {
            v[0] = 1;
            v[n - 1] = 1;
        }
        v.resize(self.len(row), 1);
        v
    }

    pub fn attention_mask(&self, row: usize) -> Vec<u8> {
        let mut v = vec![1; self.content_len(row)];
        v.resize(self.len(row), 0);
        v
    }

    /// Every column of `row`.
    pub fn encoding(&self, row: usize) -> Encoding {
        Encoding {
            ids: self.ids(row),
            type_ids: self.type_ids(row),
            offsets: self.offsets(row),
            special_tokens_mask: self.special_tokens_mask(row),
            attention_mask: self.attention_mask(row),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post_process::{concatenate, PostProcessor};

    #[test]
    fn rows_are_the_sequence_cut_and_framed() {
        let post = PostProcessor {
            cls: ("[CLS]".into(), 101),
            sep: ("[SEP]".into(), 102),
        };
        for n in 0..6u32 {
            let mut out = Output::new(true);
            for i in 0..n {
                out.push(7 + i, (2 * i, 2 * i + 1));
            }
            for keep in 0..=n as usize {
                let mut a = Encoding::from_sequence(
                    Output {
                        ids: out.ids.clone(),
                        offsets: out.offsets.clone(),
                        with_offsets: true,
                    },
                    0,
                );
                a.truncate(keep);
                // What the flat engine writes for the row: framing ids get (0, 0).
                let framed = FlatBatch {
                    ids: [&[101], &out.ids[..keep], &[102]].concat(),
                    offsets: [&[0, 0], &out.offsets[..2 * keep], &[0, 0]].concat(),
                    rows: vec![0, keep + 2],
                };
                let bare = FlatBatch {
                    ids: out.ids[..keep].to_vec(),
                    offsets: out.offsets[..2 * keep].to_vec(),
                    rows: vec![0, keep],
                };
                assert_eq!(
                    EncodingRows::new(framed, true, None).encoding(0),
                    post.frame(a.clone(), None)
                );
                assert_eq!(
                    EncodingRows::new(bare, false, None).encoding(0),
                    concatenate(a, None)
                );
            }
        }
    }
}
