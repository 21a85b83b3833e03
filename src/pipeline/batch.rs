//! A tokenizer's batch forms: many inputs in parallel, as `Encoding`s, as
//! padded columns, or as flat ids. How a batch is encoded (rows of one flat
//! batch, or input by input) is chosen once, by [`Tokenizer::batch_plan`].

use rayon::prelude::*;

use super::{
    columns, pad_batch, pad_target, Columns, Cut, Encoding, EncodingRows, Input, Padding,
    RowLayout, Tokenizer, Truncation, TruncationStrategy,
};
use crate::cancel::Cancel;
use crate::encode::{FlatBatch, Rows};
use crate::error::{Error, Result};
use crate::io;

/// How a batch is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchPlan {
    /// Each single input a row of one flat batch, framed by these ids (the
    /// post-processor adds one token before and one after, type 0) or by
    /// nothing: no object per input until one is read.
    Rows(Option<(u32, u32)>),
    /// Input by input (pairs, and post-processors whose output is not one
    /// token around each row).
    ByInput,
}

/// The encodings of a batch: rows made when read, or built one by one.
#[derive(Debug)]
pub enum BatchEncodings {
    Rows(Box<EncodingRows>),
    Each(Vec<Encoding>),
}

impl BatchEncodings {
    pub fn len(&self) -> usize {
        match self {
            BatchEncodings::Rows(rows) => rows.rows(),
            BatchEncodings::Each(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every encoding, built.
    pub fn into_vec(self) -> Vec<Encoding> {
        match self {
            BatchEncodings::Rows(rows) => (0..rows.rows()).map(|r| rows.encoding(r)).collect(),
            BatchEncodings::Each(v) => v,
        }
    }
}

impl Tokenizer {
    /// The one choice of how a batch is encoded.
    pub fn batch_plan(&self, has_pairs: bool, add_special_tokens: bool) -> BatchPlan {
        let frame = match (&self.post_processor, add_special_tokens) {
            _ if has_pairs => None,
            // Rows keep no token strings; these matches may show their own.
            _ if self.encoder.shows_other_strings() => None,
            (None, _) => Some(None),
            (Some(p), true) => p.single_frame().map(Some),
            (Some(p), false) => p.single_is_plain().then_some(None),
        };
        frame.map_or(BatchPlan::ByInput, BatchPlan::Rows)
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
        let inputs: Vec<Input> = texts.iter().map(|t| Input::Text(t)).collect();
        let pairs: Option<Vec<Input>> = pairs.map(|p| p.iter().map(|t| Input::Text(t)).collect());
        self.each_input(
            &inputs,
            pairs.as_deref(),
            add_special_tokens,
            truncation,
            cancel,
        )
    }

    /// Inputs of either kind through `encode_inputs`, in parallel.
    fn each_input(
        &self,
        inputs: &[Input],
        pairs: Option<&[Input]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        cancel: &Cancel,
    ) -> Result<Vec<Encoding>> {
        check_pairs(inputs.len(), pairs.map(<[Input]>::len))?;
        let each = |(i, &input): (usize, &Input)| {
            cancel.check()?;
            let pair = pairs.map(|p| p[i]);
            self.encode_inputs(input, pair, add_special_tokens, truncation, cancel)
        };
        // Small work runs inline, on no pool (see `parallel::inline`).
        match crate::parallel::serial_here() {
            true => inputs.iter().enumerate().map(each).collect(),
            false => inputs.par_iter().enumerate().map(each).collect(),
        }
    }

    /// Words given apart (HF's `is_pretokenized`), each input and pair a
    /// list of words: encoded in parallel, truncated and padded as given.
    pub fn encode_batch_words(
        &self,
        inputs: &[Vec<&str>],
        pairs: Option<&[Vec<&str>]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        cancel: &Cancel,
    ) -> Result<Vec<Encoding>> {
        let pairs = pairs.map(words_of);
        let mut out = self.each_input(
            &words_of(inputs),
            pairs.as_deref(),
            add_special_tokens,
            truncation,
            cancel,
        )?;
        pad_batch(&mut out, padding)?;
        Ok(out)
    }

    /// Encodes many inputs in parallel, truncates and pads them as
    /// configured.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
    ) -> Result<Vec<Encoding>> {
        let batch = self.encode_batch_with(
            texts,
            pairs,
            add_special_tokens,
            self.truncation.as_ref(),
            self.padding.as_ref(),
            Cancel::never(),
        )?;
        Ok(batch.into_vec())
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
    ) -> Result<BatchEncodings> {
        check_pairs(texts.len(), pairs.map(<[&str]>::len))?;
        match self.batch_plan(pairs.is_some(), add_special_tokens) {
            BatchPlan::Rows(frame) => {
                let rows = self.rows(
                    texts,
                    frame,
                    add_special_tokens,
                    truncation,
                    padding,
                    cancel,
                )?;
                Ok(BatchEncodings::Rows(Box::new(rows)))
            }
            BatchPlan::ByInput => {
                let mut out =
                    self.by_input(texts, pairs, add_special_tokens, truncation, cancel)?;
                pad_batch(&mut out, padding)?;
                Ok(BatchEncodings::Each(out))
            }
        }
    }

    /// [`Tokenizer::encode_batch_with`] as padded columns
    /// ([`columns`]): without padding, rows are padded to the longest with
    /// id 0, so that they are rectangular.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_batch_columns(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        with_words: bool,
        cancel: &Cancel,
    ) -> Result<Columns> {
        let rectangular;
        let padding = match padding {
            Some(p) => p,
            None => {
                rectangular = Padding::longest_with_id_0(self.id_to_token(0).unwrap_or_default());
                &rectangular
            }
        };
        let batch = self.encode_batch_with(
            texts,
            pairs,
            add_special_tokens,
            truncation,
            Some(padding),
            cancel,
        )?;
        columns(&batch.into_vec(), with_words)
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
        let BatchPlan::Rows(frame) = self.batch_plan(false, add_special_tokens) else {
            return self.flat_by_input(texts, add_special_tokens, truncation, with_words, cancel);
        };
        let n_added = self.n_added(add_special_tokens, false);
        let cut = self.single_cut(truncation, n_added)?;
        let budget = truncation.map(|_| cut.keep);
        let rows = Rows {
            cut,
            frame,
            with_offsets,
            with_words,
        };
        // HF fails on some settings only once a text needs cutting: a stride
        // the cut cannot honour, and 'only_second' without a pair (not for a
        // budget of zero, which empties every sequence). Then each text is
        // encoded whole and looked at.
        let stride_fails = truncation.is_some() && cut.check().is_err();
        let only_second =
            truncation.filter(|t| t.strategy == TruncationStrategy::OnlySecond && budget > Some(0));
        if !stride_fails && only_second.is_none() {
            return self.encoder.encode_flat(texts, rows, cancel);
        }
        let whole = Rows {
            cut: Cut::NONE,
            ..rows
        };
        let flat = self.encoder.encode_flat(texts, whole, cancel)?;
        for r in flat.rows.windows(2) {
            let content = (r[1] - r[0]).saturating_sub(n_added);
            if stride_fails && content > cut.keep {
                cut.check()?;
            }
            if let Some(t) = only_second {
                t.single_len(content, n_added)?;
            }
        }
        Ok(flat)
    }

    /// [`Tokenizer::encode_batch_flat`] over the documents of files (plain
    /// files memory-mapped if `mmap`, `.gz` decompressed), truncated as set.
    pub fn encode_files(
        &self,
        paths: &[std::path::PathBuf],
        source: &io::DocSource,
        mmap: bool,
        add_special_tokens: bool,
        cancel: &Cancel,
    ) -> Result<FlatBatch> {
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            cancel.check()?;
            files.push(io::read_documents(p, source, mmap, None, cancel)?);
        }
        let mut docs: Vec<&str> = Vec::new();
        for f in &files {
            docs.extend(f.as_strs()?);
        }
        let truncation = self.truncation.as_ref();
        self.encode_batch_flat(&docs, add_special_tokens, truncation, false, false, cancel)
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

    /// Where each single input of a batch is cut, once `n_added` special
    /// tokens are counted; `Cut::NONE` without truncation.
    fn single_cut(&self, truncation: Option<&Truncation>, n_added: usize) -> Result<Cut> {
        let Some(t) = truncation else {
            return Ok(Cut::NONE);
        };
        Ok(Cut {
            keep: t.content_budget(n_added)?,
            stride: t.stride,
            side: t.direction,
        })
    }

    /// Single inputs kept as one flat batch whose rows are made when read
    /// (the same columns as input by input, row by row).
    fn rows(
        &self,
        texts: &[&str],
        frame: Option<(u32, u32)>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        cancel: &Cancel,
    ) -> Result<EncodingRows> {
        let n_added = self.n_added(add_special_tokens, false);
        let cut = self.single_cut(truncation, n_added)?;
        // Words read off the ids cost nothing until asked for.
        let word_starts = self.encoder.word_starts().cloned();
        let rows = Rows {
            cut: Cut::NONE,
            frame: None,
            with_offsets: true,
            with_words: word_starts.is_none(),
        };
        let flat = self.encoder.encode_flat(texts, rows, cancel)?;
        let lengths = flat.rows.windows(2).map(|r| r[1] - r[0]);
        if let Some(t) = truncation {
            for n in lengths.clone() {
                t.single_len(n, n_added)?;
                if n > cut.keep {
                    cut.check()?;
                }
            }
        }
        let framed_len = |n: usize| cut.kept(n).len() + if frame.is_some() { 2 } else { 0 };
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
            cut,
            padding,
        };
        Ok(EncodingRows::new(flat, layout))
    }
}

fn words_of<'a>(inputs: &'a [Vec<&'a str>]) -> Vec<Input<'a>> {
    inputs.iter().map(|w| Input::Words(w)).collect()
}

/// A batch's pairs, if any, one per input.
fn check_pairs(inputs: usize, pairs: Option<usize>) -> Result<()> {
    match pairs {
        Some(p) if p != inputs => Err(Error::Value(format!("got {inputs} texts but {p} pairs"))),
        _ => Ok(()),
    }
}
