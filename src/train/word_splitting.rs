//! How counting turns text into words: BERT's options alone (a
//! [`Splitter`]), or a tokenizer's whole pipeline, its normalizers and
//! pre-tokenizers with its added tokens cut out first (encoding cuts them
//! out, so they are never words to train on). Counts remember which, so
//! counts split otherwise are never mixed or trained as if they matched.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::counting::{count_docs_with, CountScratch, ParallelCounting};
use super::counting_options::CountingOptions;
use super::counts::WordCounts;
use crate::added_tokens::Split;
use crate::cancel::Cancel;
use crate::encode::piece_cuts;
use crate::error::{Error, Result};
use crate::hf_json;
use crate::io::{read_file_blocks, ByteRange, DocBlock, DocSource, LinePieces, Plan};
use crate::pipeline::Tokenizer;
use crate::splitter::{SplitBuffers, Splitter, PIECE_BYTES};

#[derive(Clone, Debug)]
pub enum WordSplitting {
    /// BERT's normalizer options and pre-tokenizer, no added tokens.
    Options(Splitter),
    /// A tokenizer's pipeline (its vocab plays no part), with the JSON of
    /// what makes its words (see `hf_json::pipeline_to_json`).
    Pipeline(Arc<Tokenizer>, Arc<Value>),
}

impl WordSplitting {
    /// The words `tok` splits text into: its options if that is all it has,
    /// its pipeline otherwise.
    pub fn of(tok: &Tokenizer) -> Self {
        if tok.added_tokens().is_empty() && tok.splitter().chain().is_none() {
            return Self::Options(tok.splitter().clone());
        }
        let json = hf_json::pipeline_to_json(tok);
        Self::Pipeline(Arc::new(tok.clone()), Arc::new(json))
    }

    /// The pipeline a counts file recorded.
    pub fn from_pipeline_json(json: Value) -> Result<Self> {
        let tok = hf_json::pipeline_from_json(&json)?;
        Ok(Self::Pipeline(Arc::new(tok), Arc::new(json)))
    }

    pub fn splitter(&self) -> &Splitter {
        match self {
            Self::Options(s) => s,
            Self::Pipeline(t, _) => t.splitter(),
        }
    }

    /// The pipeline's JSON, if counting goes through one.
    pub fn pipeline_json(&self) -> Option<&Value> {
        match self {
            Self::Options(_) => None,
            Self::Pipeline(_, json) => Some(json),
        }
    }

    /// Whether `other` makes the same words of every text.
    pub fn splits_as(&self, other: &WordSplitting) -> bool {
        self.difference(other, "", "").is_none()
    }

    /// What differs between the two ways of splitting, said for a user
    /// (`this` and `that` name the two sides, as "the tokenizer's"); None
    /// if they split alike.
    pub fn difference(&self, other: &WordSplitting, this: &str, that: &str) -> Option<String> {
        match (self, other) {
            (Self::Options(a), Self::Options(b)) => (!a.splits_as(b)).then(|| {
                let (a, b) = (CountingOptions::from(a), CountingOptions::from(b));
                let differ: Vec<String> = a
                    .named()
                    .iter()
                    .zip(b.named())
                    .filter(|(x, y)| *x != y)
                    .map(|(x, y)| format!("{this} {x}, {that} {y}"))
                    .collect();
                format!("their options differ: {}", differ.join("; "))
            }),
            (Self::Pipeline(_, a), Self::Pipeline(_, b)) => {
                let parts = [
                    "normalizer",
                    "pre_tokenizer",
                    "added_tokens",
                    "encode_special_tokens",
                ];
                let differ: Vec<String> = parts
                    .iter()
                    .filter(|p| a.get(**p) != b.get(**p))
                    .map(|p| {
                        let (a, b) = (shown(a.get(*p)), shown(b.get(*p)));
                        format!("{p}: {this} {a}, {that} {b}")
                    })
                    .collect();
                (!differ.is_empty()).then(|| differ.join("; "))
            }
            (Self::Options(_), Self::Pipeline(..)) | (Self::Pipeline(..), Self::Options(_)) => {
                Some(
                    "one was split with BERT's options, the other through a tokenizer's \
                     pipeline (its normalizers, pre-tokenizers and added tokens)"
                        .into(),
                )
            }
        }
    }

    /// Counts the words of `docs` into `into` (whose words stay first), in
    /// parallel, in first-appearance order.
    pub fn count_docs_into<S: AsRef<str> + Sync>(
        &self,
        docs: &[S],
        into: &mut WordCounts,
        cancel: &Cancel,
    ) -> Result<()> {
        count_docs_with(docs, into, cancel, |doc, out, scratch| {
            self.count_doc(doc, out, scratch, cancel)
        })
    }

    /// Counts the words of a text file (plain or `.gz`), or of the lines of a
    /// byte `range` of a plain file, its documents as `source` says, read in
    /// blocks so memory stays bounded: a large file of lines in pieces
    /// that each thread reads on its own, any other block by block.
    pub fn count_file(
        &self,
        path: &Path,
        source: &DocSource,
        range: Option<ByteRange>,
        into: &mut WordCounts,
        cancel: &Cancel,
    ) -> Result<()> {
        const BLOCK: usize = 16 << 20;
        let mut counting = ParallelCounting::new(into);
        let count_doc = |doc: &str, out: &mut WordCounts, scratch: &mut CountScratch| {
            self.count_doc(doc, out, scratch, cancel)
        };
        let mut range = range;
        if counting.is_parallel() {
            let threads = rayon::current_num_threads();
            match LinePieces::plan(path, source, range, threads, cancel)? {
                Plan::Pieces(pieces) => {
                    counting.add_pieces(&pieces, cancel, &count_doc)?;
                    return counting.finish(cancel);
                }
                Plan::InTurn(in_turn) => range = in_turn,
            }
        }
        read_file_blocks(
            path,
            source,
            range,
            BLOCK,
            cancel,
            &mut |block| match block {
                DocBlock::Lines(text) => counting.add_lines(text, cancel, &count_doc),
                DocBlock::Docs(docs) => counting.add(docs, cancel, &count_doc),
            },
        )?;
        counting.finish(cancel)
    }

    fn count_doc(
        &self,
        doc: &str,
        out: &mut WordCounts,
        scratch: &mut CountScratch,
        cancel: &Cancel,
    ) -> Result<()> {
        match self {
            Self::Options(s) => s.count_into(doc, out, scratch, cancel),
            Self::Pipeline(tok, _) => count_through(tok, doc, out, scratch, cancel),
        }
    }
}

/// A JSON part, short enough for a message.
fn shown(part: Option<&Value>) -> String {
    let text = part.map_or_else(|| "none".into(), Value::to_string);
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// Counts the words of one document as `tok` encodes it: added tokens cut
/// out of the raw text, then each piece between them normalized, normalized
/// added tokens cut out of that, and the rest pre-tokenized. A document
/// with no byte an added token may start with takes the splitter's own way.
fn count_through(
    tok: &Tokenizer,
    doc: &str,
    out: &mut WordCounts,
    scratch: &mut CountScratch,
    cancel: &Cancel,
) -> Result<()> {
    let added = tok.added_tokens();
    let splitter = tok.splitter();
    if !added.has_normalized() && !doc.bytes().any(|b| added.raw_may_start_with(b)) {
        return splitter.count_into(doc, out, scratch, cancel);
    }
    let cuts = piece_cuts(splitter, added);
    if doc.len() <= PIECE_BYTES || !cuts.any() {
        return count_piece(tok, doc, out, scratch);
    }
    for (_, piece) in cuts.pieces(doc, PIECE_BYTES) {
        cancel.check()?;
        count_piece(tok, piece, out, scratch)?;
    }
    Ok(())
}

/// Counts one piece of a document (see [`count_through`]); an error for a
/// text HF cannot split into added tokens either.
fn count_piece(
    tok: &Tokenizer,
    text: &str,
    out: &mut WordCounts,
    scratch: &mut CountScratch,
) -> Result<()> {
    let (added, splitter) = (tok.added_tokens(), tok.splitter());
    let CountScratch { short, split } = scratch;
    let SplitBuffers {
        normalized, words, ..
    } = split;
    let mut unsplittable = None;
    added.split_raw(text, |split| {
        let r = match split {
            Split::Text(r) => r,
            Split::Token(..) => return,
            Split::Unsplittable(id) => {
                unsplittable = Some(id);
                return;
            }
        };
        splitter.normalize(&text[r], 0, normalized);
        let normalized = &*normalized;
        let mut each = |n: &crate::normalizers::Normalized, w: crate::pre_tokenizers::WordSpan| {
            short.add(&n.text[w.start..w.end], out);
        };
        if !added.has_normalized() {
            let all = 0..normalized.text.len();
            splitter.pre_tokenize(normalized, all, 0, words, &mut each);
            return;
        }
        added.split_normalized(&normalized.text, |split| match split {
            Split::Text(r) => splitter.pre_tokenize(normalized, r, 0, words, &mut each),
            Split::Token(..) => {}
            Split::Unsplittable(id) => unsplittable = Some(id),
        });
    });
    match unsplittable {
        Some(id) => Err(added.unsplittable(id)),
        None => Ok(()),
    }
}

impl From<&WordSplitting> for CountingOptions {
    fn from(w: &WordSplitting) -> Self {
        Self {
            pipeline: w.pipeline_json().cloned(),
            ..Self::from(w.splitter())
        }
    }
}

impl TryFrom<&CountingOptions> for WordSplitting {
    type Error = Error;

    fn try_from(o: &CountingOptions) -> Result<Self> {
        match &o.pipeline {
            Some(json) => WordSplitting::from_pipeline_json(json.clone()),
            None => Ok(WordSplitting::Options(Splitter::try_from(o)?)),
        }
    }
}
