//! A tokenizer's batch forms: many inputs in parallel, as `Encoding`s, as
//! rows of one flat batch, or as flat ids.

use rayon::prelude::*;

use super::{
    encoding, pad_batch, pad_target, Encoding, EncodingRows, Padding, RowLayout, Tokenizer,
    Truncation, TruncationDirection, TruncationStrategy,
};
use crate::cancel::Cancel;
use crate::encode::{FlatBatch, Rows};
use crate::error::{Error, Result};

impl Tokenizer {
    /// Whether single inputs of a batch can be kept as flat rows.
    pub fn rows_fit(&self, add_special_tokens: bool) -> bool {
        self.row_layout(add_special_tokens).is_some()
    }

    /// The ids framing each row when single inputs of a batch can be kept as
    /// flat rows (the post-processor, if it runs, adds one token before and
    /// one after, type 0, or nothing); None when they cannot.
    fn row_layout(&self, add_special_tokens: bool) -> Option<Option<(u32, u32)>> {
        match (&self.post_processor, add_special_tokens) {
            (None, _) => Some(None),
            (Some(p), true) => p.single_frame().map(Some),
            (Some(p), false) => p.single_is_plain().then_some(None),
        }
    }

    /// Each input through `encode_with`, in parallel.
    fn by_input(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        cancel: &Cancel,
    ) -> Result<Vec<Encoding>> {
        texts
            .par_iter()
            .enumerate()
            .map(|(i, t)| {
                cancel.check()?;
                let pair = pairs.map(|p| p[i]);
                self.encode_with(t, pair, add_special_tokens, truncation)
            })
            .collect()
    }

    /// Encodes many inputs in parallel and pads them as configured.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
    ) -> Result<Vec<Encoding>> {
        self.encode_batch_with(
            texts,
            pairs,
            add_special_tokens,
            self.truncation.as_ref(),
            self.padding.as_ref(),
            Cancel::never(),
        )
    }

    /// [`Tokenizer::encode_batch`] with explicit truncation and padding
    /// settings; stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_batch_with(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        cancel: &Cancel,
    ) -> Result<Vec<Encoding>> {
        if let Some(p) = pairs {
            if p.len() != texts.len() {
                return Err(Error::Value(format!(
                    "got {} texts but {} pairs",
                    texts.len(),
                    p.len()
                )));
            }
        }
        let mut out = if pairs.is_none() && self.rows_fit(add_special_tokens) {
            let rows =
                self.encode_batch_rows(texts, add_special_tokens, truncation, None, cancel)?;
            (0..rows.rows()).map(|r| rows.encoding(r)).collect()
        } else {
            self.by_input(texts, pairs, add_special_tokens, truncation, cancel)?
        };
        pad_batch(&mut out, padding)?;
        Ok(out)
    }

    /// Ids of many single texts as one flat vector plus row bounds (length
    /// n + 1), post-processed and truncated: no per-token or per-text
    /// objects. With `with_offsets`, char offsets of every token (special
    /// tokens get `(0, 0)`); with `with_words`, word ids (`u32::MAX` for
    /// none). Stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_batch_flat(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        with_offsets: bool,
        with_words: bool,
        cancel: &Cancel,
    ) -> Result<FlatBatch> {
        let Some(frame) = self.row_layout(add_special_tokens) else {
            return self.flat_by_input(texts, add_special_tokens, truncation, with_words, cancel);
        };
        let n_added = self.n_added(add_special_tokens, false);
        if let Some(t) = truncation {
            t.check_stride(self.n_added(true, false))?;
        }
        let budget = truncation.map(|t| t.content_budget(n_added)).transpose()?;
        let rows = Rows {
            keep: budget.unwrap_or(usize::MAX),
            from_left: truncation.is_some_and(|t| t.direction == TruncationDirection::Left),
            frame,
            with_offsets,
            with_words,
        };
        match (truncation, budget) {
            // HF refuses 'only_second' without a pair, but only once a text
            // needs cutting (and not for a budget of zero, which empties every
            // sequence): encode whole, then look.
            (Some(t), Some(budget))
                if t.strategy == TruncationStrategy::OnlySecond && budget > 0 =>
            {
                let flat = self.encoder.encode_flat(
                    texts,
                    Rows {
                        keep: usize::MAX,
                        ..rows
                    },
                    cancel,
                )?;
                for r in flat.rows.windows(2) {
                    t.single_len((r[1] - r[0]).saturating_sub(n_added), n_added)?;
                }
                Ok(flat)
            }
            _ => self.encoder.encode_flat(texts, rows, cancel),
        }
    }

    /// [`Tokenizer::encode_batch_flat`] one input at a time, for
    /// post-processors whose output is not one token around each row.
    fn flat_by_input(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        with_words: bool,
        cancel: &Cancel,
    ) -> Result<FlatBatch> {
        let encodings = self.by_input(texts, None, add_special_tokens, truncation, cancel)?;
        let mut flat = FlatBatch {
            rows: vec![0],
            ..Default::default()
        };
        for e in encodings {
            flat.ids.extend_from_slice(&e.ids);
            flat.offsets
                .extend(e.offsets.iter().flat_map(|&(s, e)| [s, e]));
            if with_words {
                flat.words
                    .extend(e.word_ids.iter().map(|w| w.unwrap_or(u32::MAX)));
            }
            flat.rows.push(flat.ids.len());
        }
        Ok(flat)
    }

    /// [`Tokenizer::encode_batch_with`] for single inputs, kept as one flat
    /// batch whose rows are made when read (the same columns, row by row).
    /// Needs [`Tokenizer::row_layout`]; otherwise an error.
    pub fn encode_batch_rows(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        cancel: &Cancel,
    ) -> Result<EncodingRows> {
        let frame = self.row_layout(add_special_tokens).ok_or_else(|| {
            Error::Value("this post-processor's rows are made one input at a time".into())
        })?;
        let n_added = self.n_added(add_special_tokens, false);
        let mut keep = (usize::MAX, 0, TruncationDirection::Right);
        if let Some(t) = truncation {
            t.check_stride(self.n_added(true, false))?;
            keep = (t.content_budget(n_added)?, t.stride, t.direction);
        }
        // Words read off the ids cost nothing until asked for.
        let word_starts = self.encoder.word_starts().cloned();
        let rows = Rows {
            keep: usize::MAX,
            from_left: false,
            frame: None,
            with_offsets: true,
            with_words: word_starts.is_none(),
        };
        let flat = self.encoder.encode_flat(texts, rows, cancel)?;
        let lengths = flat.rows.windows(2).map(|r| r[1] - r[0]);
        if let Some(t) = truncation {
            for n in lengths.clone() {
                t.single_len(n, n_added)?;
                if n > keep.0 {
                    encoding::check_cut(keep.0, t.stride)?;
                }
            }
        }
        let framed_len = |n: usize| n.min(keep.0) + if frame.is_some() { 2 } else { 0 };
        let padding = match padding {
            Some(p) => {
                let target = pad_target(lengths.map(framed_len), p)?;
                Some((target, p.pad_id, p.pad_type_id, p.direction))
            }
            None => None,
        };
        let layout = RowLayout {
            word_starts,
            frame,
            post_processor: self.post_processor.clone(),
            add_special_tokens,
            truncation: keep,
            padding,
        };
        Ok(EncodingRows::new(flat, layout))
    }
}
