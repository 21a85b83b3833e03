//! The batch layer: many single texts to one flat array of ids (and
//! offsets) plus row bounds. The texts are cut into parts of similar byte
//! size, one per task; each part writes one `Output`, and parts are joined
//! in order.

use rayon::prelude::*;

use super::{check_length, Encoder, Output, WordScratch};
use crate::cancel::Cancel;
use crate::cut::Cut;
use crate::error::Result;
use crate::memory;

/// A batch as flat arrays: row i is `ids[rows[i]..rows[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatBatch {
    pub ids: Vec<u32>,
    /// Char offsets per token, flattened (`[s0, e0, s1, e1, ...]`); empty
    /// unless asked for.
    pub offsets: Vec<u32>,
    /// The word of each token within its row (`u32::MAX`: none); empty
    /// unless asked for.
    pub words: Vec<u32>,
    pub rows: Vec<usize>,
}

/// How each row of a flat batch is cut and framed.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    /// Where each row's text is cut (truncation; `Cut::NONE` keeps all).
    pub cut: Cut,
    /// Ids put before and after each row (post-processing), if any.
    pub frame: Option<(u32, u32)>,
    /// Whether char offsets are written too (framing ids get `(0, 0)`).
    pub with_offsets: bool,
    /// Whether word ids are written too.
    pub with_words: bool,
}

impl Encoder {
    /// Ids of many single texts as one flat vector plus row bounds (length
    /// n + 1): no per-token or per-text objects. Stops with
    /// `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_flat(&self, texts: &[&str], rows_as: Rows, cancel: &Cancel) -> Result<FlatBatch> {
        let Rows {
            cut,
            frame,
            with_offsets,
            with_words,
        } = rows_as;
        texts.iter().try_for_each(|t| check_length(t.len()))?;
        let total: usize = texts.iter().map(|t| t.len()).sum();
        // One thread: one part, whose buffers become the result (no join copy).
        let chunk_bytes = match rayon::current_num_threads() {
            1 => usize::MAX,
            threads => (total / (threads * 16)).clamp(1 << 16, 8 << 20),
        };
        let mut bounds = vec![0usize];
        let mut acc = 0usize;
        for (i, t) in texts.iter().enumerate() {
            acc += t.len() + 16;
            if acc >= chunk_bytes {
                bounds.push(i + 1);
                acc = 0;
            }
        }
        if *bounds.last().unwrap_or(&0) != texts.len() {
            bounds.push(texts.len());
        }
        // Several parts are copied into one result (and freed); a single one
        // becomes it.
        let joined = bounds.len() > 2;
        let parts: Vec<(Output, Vec<usize>)> = bounds
            .par_windows(2)
            .map(|b| {
                let mut out = if with_words {
                    Output::with_words(with_offsets)
                } else {
                    Output::new(with_offsets)
                };
                let mut scratch = WordScratch::default();
                // Room for the usual token count (about one per 3-4 bytes of
                // text) up front: growing by copying would move it all again.
                let bytes: usize = texts[b[0]..b[1]].iter().map(|t| t.len()).sum();
                let expected = bytes / 2 + 2 * (b[1] - b[0]) + 64;
                memory::reserve_output(&mut out.ids, expected, joined);
                if with_offsets {
                    memory::reserve_output(&mut out.offsets, 2 * expected, joined);
                }
                let mut rows = Vec::with_capacity(b[1] - b[0]);
                let part = &texts[b[0]..b[1]];
                let (mut ids_ahead, mut offsets_ahead) =
                    <(memory::Prefault, memory::Prefault)>::default();
                for text in part {
                    cancel.check()?;
                    ids_ahead.ahead(&mut out.ids);
                    if with_offsets {
                        offsets_ahead.ahead(&mut out.offsets);
                    }
                    if let Some((cls, _)) = frame {
                        out.push_special(cls);
                    }
                    let start = out.ids.len();
                    self.encode_reusing(text, &mut out, &mut scratch, cancel)?;
                    out.cut_sequence(start, cut);
                    if let Some((_, sep)) = frame {
                        out.push_special(sep);
                    }
                    rows.push(out.ids.len());
                }
                Ok((out, rows))
            })
            .collect::<Result<_>>()?;
        if parts.len() == 1 {
            let (out, part_rows) = parts.into_iter().next().unwrap_or_default();
            let mut rows = Vec::with_capacity(texts.len() + 1);
            rows.push(0);
            rows.extend(part_rows);
            return Ok(FlatBatch {
                ids: out.ids,
                offsets: out.offsets,
                words: out.words,
                rows,
            });
        }
        // Join the parts, each copied into its own slice of the output and
        // dropped right after.
        let mut rows = Vec::with_capacity(texts.len() + 1);
        rows.push(0);
        let mut base = 0;
        let (mut id_parts, mut offset_parts, mut word_parts) = (Vec::new(), Vec::new(), Vec::new());
        for (out, part_rows) in parts {
            rows.extend(part_rows.iter().map(|r| r + base));
            base += out.ids.len();
            id_parts.push(out.ids);
            offset_parts.push(out.offsets);
            word_parts.push(out.words);
        }
        let ids = memory::concat_parts(id_parts);
        let offsets = memory::concat_parts(offset_parts);
        let words = memory::concat_parts(word_parts);
        Ok(FlatBatch {
            ids,
            offsets,
            words,
            rows,
        })
    }
}
