//! Padding a batch to its longest encoding or to a fixed length.

use super::encoding::Encoding;
use crate::cut::PadDirection;
use crate::encode::FlatBatch;
use crate::error::{Error, Result};
use crate::memory;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadLength {
    /// Pad to the longest encoding of the batch.
    Longest,
    /// Pad every encoding to this length.
    Fixed(usize),
}

/// Padding of a batch; `pad_id`/`pad_token` fill, with attention mask 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padding {
    pub length: PadLength,
    pub direction: PadDirection,
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
}

impl Padding {
    /// To the longest of the batch with id 0 (named by its token): what makes
    /// rows rectangular when no padding is set.
    pub fn longest_with_id_0(pad_token: &str) -> Self {
        Self {
            length: PadLength::Longest,
            direction: PadDirection::Right,
            pad_to_multiple_of: None,
            pad_id: 0,
            pad_type_id: 0,
            pad_token: pad_token.to_owned(),
        }
    }
}

/// Padded encodings as row-major columns of `rows × width`:
/// `[ids, attention_mask, type_ids, special_tokens_mask]`, then word ids
/// (-1 for none) when asked for.
pub struct Columns {
    pub rows: usize,
    pub width: usize,
    pub columns: Vec<Vec<i64>>,
}

/// The columns of encodings that all have the same length.
pub fn columns(encodings: &[Encoding], with_words: bool) -> Result<Columns> {
    let (rows, width) = (encodings.len(), encodings.first().map_or(0, Encoding::len));
    let n_cols = 4 + with_words as usize;
    let mut cols: Vec<Vec<i64>> = (0..n_cols)
        .map(|_| Vec::with_capacity(rows * width))
        .collect();
    for e in encodings {
        if e.len() != width {
            return Err(Error::Value(format!(
                "rows have different lengths ({} and {width}) after padding; \
                 enable truncation to the padding length",
                e.len()
            )));
        }
        cols[0].extend(e.ids.iter().map(|&x| x as i64));
        cols[1].extend(e.attention_mask.iter().map(|&x| x as i64));
        cols[2].extend(e.type_ids.iter().map(|&x| x as i64));
        cols[3].extend(e.special_tokens_mask.iter().map(|&x| x as i64));
        if with_words {
            cols[4].extend(e.word_ids.iter().map(|w| w.map_or(-1, i64::from)));
        }
    }
    Ok(Columns {
        rows,
        width,
        columns: cols,
    })
}

/// Pads encodings (to the longest, or to a fixed length). The length comes
/// from the caller, so the memory it takes is checked before any is
/// allocated: padding to 2^40 is an error, not an abort.
pub fn pad_batch(encodings: &mut [Encoding], padding: Option<&Padding>) -> Result<()> {
    let Some(p) = padding else { return Ok(()) };
    let target = pad_target(encodings.iter().map(Encoding::len), p)?;
    for e in encodings.iter_mut() {
        e.pad(target, p.pad_id, p.pad_type_id, p.direction)?;
    }
    Ok(())
}

/// Pads the rows of a flat batch as [`pad_batch`] pads encodings: pad ids
/// on `p`'s side, offsets `(0, 0)` and no word (when the batch has them:
/// said by the caller, as a batch of no tokens has none either way).
pub fn pad_flat(
    flat: &mut FlatBatch,
    padding: Option<&Padding>,
    with_offsets: bool,
    with_words: bool,
) -> Result<()> {
    let Some(p) = padding else { return Ok(()) };
    let lengths = flat.rows.windows(2).map(|r| r[1] - r[0]);
    let target = pad_target(lengths.clone(), p)?;
    if lengths.clone().all(|n| n >= target) {
        return Ok(());
    }
    let total = lengths.map(|n| n.max(target)).sum::<usize>();
    let mut out = FlatBatch {
        ids: Vec::with_capacity(total),
        offsets: Vec::with_capacity(if with_offsets { 2 * total } else { 0 }),
        words: Vec::with_capacity(if with_words { total } else { 0 }),
        rows: Vec::with_capacity(flat.rows.len()),
    };
    out.rows.push(0);
    for r in flat.rows.windows(2) {
        let pads = target.saturating_sub(r[1] - r[0]);
        let pad = |out: &mut FlatBatch| {
            out.ids.extend(std::iter::repeat_n(p.pad_id, pads));
            if with_offsets {
                out.offsets.extend(std::iter::repeat_n(0, 2 * pads));
            }
            if with_words {
                out.words.extend(std::iter::repeat_n(u32::MAX, pads));
            }
        };
        if p.direction == PadDirection::Left {
            pad(&mut out);
        }
        out.ids.extend_from_slice(&flat.ids[r[0]..r[1]]);
        if with_offsets {
            out.offsets
                .extend_from_slice(&flat.offsets[2 * r[0]..2 * r[1]]);
        }
        if with_words {
            out.words.extend_from_slice(&flat.words[r[0]..r[1]]);
        }
        if p.direction == PadDirection::Right {
            pad(&mut out);
        }
        out.rows.push(out.ids.len());
    }
    *flat = out;
    Ok(())
}

/// The length `p` pads rows of these lengths to, once the memory the padding
/// would take is known to fit.
pub fn pad_target(lengths: impl Iterator<Item = usize> + Clone, p: &Padding) -> Result<usize> {
    let mut target = match p.length {
        PadLength::Longest => lengths.clone().max().unwrap_or(0),
        PadLength::Fixed(n) => n,
    };
    if let Some(m) = p.pad_to_multiple_of.filter(|&m| m > 0) {
        target = target.div_ceil(m).checked_mul(m).ok_or_else(|| {
            Error::Memory(format!(
                "padding {target} tokens to a multiple of {m} overflows"
            ))
        })?;
    }
    let added = lengths
        .map(|n| target.saturating_sub(n))
        .fold(0usize, usize::saturating_add);
    // Room for the padded columns and for reading one of them out (a copy
    // and a Python list of it).
    memory::check_fits(
        added.saturating_mul(Encoding::BYTES_PER_TOKEN + 16),
        &format!("padding to {target} tokens"),
    )?;
    Ok(target)
}
