//! Post-processing: special tokens around the sequences (HF
//! `BertProcessing`, `RobertaProcessing` and `TemplateProcessing`), with
//! HF's bookkeeping of sequence ranges, type ids and overflowing parts.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::encoding::Encoding;
use crate::added_tokens::AddedVocabulary;
use crate::model::Vocab;

/// A piece of a template: a sequence (`$A`, `$B`) or a special token, each
/// with the type id its tokens get.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Sequence 0 (`$A`) or 1 (`$B`).
    Sequence { second: bool, type_id: u32 },
    /// A key of the template's special tokens.
    Special { name: String, type_id: u32 },
}

/// A special token of a template: one name, one or more ids (and their
/// token strings, which must be the vocab's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialTokens {
    pub name: String,
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub single: Vec<Piece>,
    pub pair: Vec<Piece>,
    /// In the order the file gives them.
    pub special_tokens: Vec<SpecialTokens>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PostProcessor {
    /// `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`, B's part with type id 1.
    Bert {
        cls: (String, u32),
        sep: (String, u32),
    },
    /// `<s> A </s>` and `<s> A </s></s> B </s>`, every type id 0 (HF
    /// `RobertaProcessing`, MPNet's); with `trim_offsets`, a token's offsets
    /// leave out the spaces its string starts or ends with.
    Roberta(Roberta),
    Template(Template),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roberta {
    pub cls: (String, u32),
    pub sep: (String, u32),
    pub trim_offsets: bool,
    pub add_prefix_space: bool,
    /// The leading and trailing spaces (whitespace or byte-level `Ġ`) of the
    /// vocab's tokens that have any, by id.
    spaces: Arc<FxHashMap<u32, (u32, u32)>>,
}

/// What byte-level BPE writes for a space; HF trims it like whitespace.
const BYTE_LEVEL_SPACE: char = '\u{120}';

fn is_space(c: char) -> bool {
    c == BYTE_LEVEL_SPACE || c.is_whitespace()
}

/// The leading and trailing spaces of a token's string, if it has any.
fn spaces_of(token: &str) -> Option<(u32, u32)> {
    let leading = token.chars().take_while(|&c| is_space(c)).count() as u32;
    let trailing = token.chars().rev().take_while(|&c| is_space(c)).count() as u32;
    (leading > 0 || trailing > 0).then_some((leading, trailing))
}

impl Roberta {
    /// `cls` and `sep` take their ids in `vocab`, as named.
    pub fn new(
        cls: (String, u32),
        sep: (String, u32),
        trim_offsets: bool,
        add_prefix_space: bool,
        vocab: &Vocab,
    ) -> Self {
        let mut spaces = FxHashMap::default();
        if trim_offsets {
            for (id, token) in vocab.tokens().iter().enumerate() {
                if let Some(s) = spaces_of(token) {
                    spaces.insert(id as u32, s);
                }
            }
        }
        Self {
            cls,
            sep,
            trim_offsets,
            add_prefix_space,
            spaces: Arc::new(spaces),
        }
    }

    /// Notes the spaces of added tokens' strings past the vocab.
    pub fn note_added(&mut self, added: &AddedVocabulary, vocab: &Vocab) {
        if !self.trim_offsets {
            return;
        }
        let spaces = Arc::make_mut(&mut self.spaces);
        for (id, _) in added.iter().filter(|(id, _)| vocab.token(*id).is_none()) {
            if let Some(s) = added.get(id).and_then(|t| spaces_of(&t.content)) {
                spaces.insert(id, s);
            }
        }
    }

    /// Whether trimming can change an offset (a token with spaces exists;
    /// an added token's match may show spaces too, but it never comes in rows).
    fn trims(&self) -> bool {
        self.trim_offsets && !self.spaces.is_empty()
    }

    /// HF's `process_offsets`: each token's offsets without its leading and
    /// trailing spaces (one leading space kept on a first token when a
    /// prefix space was added), in the encoding and its overflowing parts.
    fn trim(&self, e: &mut Encoding) {
        for part in &mut e.overflowing {
            self.trim(part);
        }
        // A token showing another string (an added token's match) is
        // trimmed by that string, as HF trims by the token shown.
        let mut shown = e.surfaces.iter().peekable();
        for (i, (id, offsets)) in e.ids.iter().zip(e.offsets.iter_mut()).enumerate() {
            let spaces = match shown.next_if(|(k, _)| *k == i) {
                Some((_, s)) => spaces_of(s),
                None => self.spaces.get(id).copied(),
            };
            let Some((mut leading, trailing)) = spaces else {
                continue;
            };
            if leading > 0 {
                let first = i == 0 || offsets.0 == 0;
                if first && self.add_prefix_space && leading == 1 {
                    leading = 0;
                }
                offsets.0 = (offsets.0 + leading).min(offsets.1);
            }
            if trailing > 0 && offsets.1 >= trailing {
                offsets.1 = (offsets.1 - trailing).max(offsets.0);
            }
        }
    }
}

impl Template {
    fn special(&self, name: &str) -> Option<&SpecialTokens> {
        self.special_tokens.iter().find(|s| s.name == name)
    }

    /// Tokens a template adds (special tokens missing from the map add none, as in HF).
    fn added(&self, pieces: &[Piece]) -> usize {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Sequence { .. } => 0,
                Piece::Special { name, .. } => self.special(name).map_or(0, |s| s.ids.len()),
            })
            .sum()
    }
}

impl PostProcessor {
    /// How many tokens it adds to a single input or a pair.
    pub fn added_tokens(&self, is_pair: bool) -> usize {
        match self {
            PostProcessor::Bert { .. } => 2 + is_pair as usize,
            PostProcessor::Roberta(_) => 2 + 2 * is_pair as usize,
            PostProcessor::Template(t) => t.added(if is_pair { &t.pair } else { &t.single }),
        }
    }

    /// The ids around a single input when they are one `[CLS]`-like and one
    /// `[SEP]`-like token with type id 0, as fast batches frame rows.
    pub fn single_frame(&self) -> Option<(u32, u32)> {
        match self {
            PostProcessor::Bert { cls, sep } => Some((cls.1, sep.1)),
            PostProcessor::Roberta(r) => (!r.trims()).then_some((r.cls.1, r.sep.1)),
            PostProcessor::Template(t) => match t.single.as_slice() {
                [Piece::Special {
                    name: first,
                    type_id: 0,
                }, Piece::Sequence {
                    second: false,
                    type_id: 0,
                }, Piece::Special {
                    name: last,
                    type_id: 0,
                }] => match (
                    t.special(first)?.ids.as_slice(),
                    t.special(last)?.ids.as_slice(),
                ) {
                    ([c], [s]) => Some((*c, *s)),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    /// Whether a single input without special tokens comes out as it went
    /// in, type id 0 (the single template holds `$A` once, with type 0).
    pub fn single_is_plain(&self) -> bool {
        match self {
            PostProcessor::Bert { .. } => true,
            PostProcessor::Roberta(r) => !r.trims(),
            PostProcessor::Template(t) => {
                let mut sequences = t.single.iter().filter_map(|p| match p {
                    Piece::Sequence { second, type_id } => Some((*second, *type_id)),
                    Piece::Special { .. } => None,
                });
                sequences.next() == Some((false, 0)) && sequences.next().is_none()
            }
        }
    }

    /// Every special token id it may add, with its name.
    pub fn special_ids(&self) -> Vec<(&str, u32)> {
        match self {
            PostProcessor::Bert { cls, sep } => vec![(&cls.0, cls.1), (&sep.0, sep.1)],
            PostProcessor::Roberta(r) => vec![(&r.cls.0, r.cls.1), (&r.sep.0, r.sep.1)],
            PostProcessor::Template(t) => t
                .special_tokens
                .iter()
                .flat_map(|s| {
                    s.tokens
                        .iter()
                        .map(String::as_str)
                        .zip(s.ids.iter().copied())
                })
                .collect(),
        }
    }

    /// HF's `PostProcessor::process`: each sequence (and its overflowing
    /// parts) gets its sequence id, each sequence its type id, then the
    /// special tokens, then all is merged.
    pub fn process(&self, a: Encoding, b: Option<Encoding>, add_special_tokens: bool) -> Encoding {
        let mut seqs: Vec<Encoding> = std::iter::once(a).chain(b).collect();
        for (i, e) in seqs.iter_mut().enumerate() {
            e.set_sequence_id(i);
            for part in &mut e.overflowing {
                part.set_sequence_id(i);
            }
            e.type_ids = vec![i as u32; e.len()];
        }
        let parts = match self {
            PostProcessor::Bert { cls, sep } => {
                if !add_special_tokens {
                    seqs
                } else {
                    seqs.into_iter()
                        .enumerate()
                        .map(|(i, e)| {
                            let second = i == 1;
                            frame(e, second, (!second).then_some(cls.1), sep.1, i as u32)
                        })
                        .collect()
                }
            }
            PostProcessor::Roberta(r) => {
                for e in &mut seqs {
                    if r.trim_offsets {
                        r.trim(e);
                    }
                    // RoBERTa gives every token type id 0; HF's overflowing
                    // parts only when it adds the special tokens (it frames
                    // them anew), else they keep their sequence's.
                    e.type_ids.fill(0);
                    if add_special_tokens {
                        for part in &mut e.overflowing {
                            part.type_ids.fill(0);
                        }
                    }
                }
                if !add_special_tokens {
                    seqs
                } else {
                    seqs.into_iter()
                        .enumerate()
                        .map(|(i, e)| {
                            let first = if i == 0 { r.cls.1 } else { r.sep.1 };
                            frame(e, i == 1, Some(first), r.sep.1, 0)
                        })
                        .collect()
                }
            }
            PostProcessor::Template(t) => {
                let pieces = if seqs.len() == 2 { &t.pair } else { &t.single };
                apply_template(t, pieces, &mut seqs, add_special_tokens)
            }
        };
        Encoding::merge(parts)
    }
}

/// HF's default when there is no post-processor: a pair gets its two
/// sequence ranges and is merged; a single input is left as it is.
pub fn no_post_processor(a: Encoding, b: Option<Encoding>) -> Encoding {
    match b {
        None => a,
        Some(b) => {
            let mut out = Encoding::default();
            for (i, mut e) in [a, b].into_iter().enumerate() {
                e.set_sequence_id(i);
                out.merge_with(e);
            }
            out
        }
    }
}

/// One sequence framed as `BertProcessing` (the first: `[CLS] A [SEP]`,
/// the second: `B [SEP]`, with type id 1) or `RobertaProcessing` (the
/// second: `</s> B </s>`, type id 0) frame it, overflowing parts alike:
/// `before` and `after` with `type_id`.
fn frame(mut e: Encoding, second: bool, before: Option<u32>, after: u32, type_id: u32) -> Encoding {
    let overflowing = std::mem::take(&mut e.overflowing);
    let frame_one = |e: Encoding| {
        let mut out = Encoding::default();
        let n = e.len();
        if let Some(id) = before {
            out.merge_with(Encoding::special(&[id], type_id));
        }
        let start = out.len();
        let mut body = e;
        body.sequence_ranges.clear();
        body.overflowing.clear();
        out.merge_with(body);
        out.merge_with(Encoding::special(&[after], type_id));
        out.sequence_ranges = vec![(second as usize, start..start + n)];
        out
    };
    let mut framed = frame_one(e);
    framed.overflowing = overflowing.into_iter().map(frame_one).collect();
    framed
}

/// HF's `TemplateProcessing::apply_template`: each piece in order, a
/// sequence piece as a copy of that sequence with the piece's type id.
fn apply_template(
    t: &Template,
    pieces: &[Piece],
    seqs: &mut [Encoding],
    add_special_tokens: bool,
) -> Vec<Encoding> {
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces {
        match p {
            Piece::Sequence { second, type_id } => {
                let i = *second as usize;
                let Some(e) = seqs.get_mut(i) else { continue };
                e.type_ids = vec![*type_id; e.len()];
                e.set_sequence_id(i);
                out.push(e.clone());
            }
            Piece::Special { name, type_id } => {
                if add_special_tokens {
                    if let Some(s) = t.special(name) {
                        out.push(Encoding::special(&s.ids, *type_id));
                    }
                }
            }
        }
    }
    out
}
