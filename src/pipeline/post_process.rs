//! Post-processing: special tokens around the sequences (HF
//! `BertProcessing` and `TemplateProcessing`), with HF's bookkeeping of
//! sequence ranges, type ids and overflowing parts.

use super::encoding::Encoding;

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
    Template(Template),
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
            PostProcessor::Template(t) => t.added(if is_pair { &t.pair } else { &t.single }),
        }
    }

    /// The ids around a single input when they are one `[CLS]`-like and one
    /// `[SEP]`-like token with type id 0, as fast batches frame rows.
    pub fn single_frame(&self) -> Option<(u32, u32)> {
        match self {
            PostProcessor::Bert { cls, sep } => Some((cls.1, sep.1)),
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
                        .map(|(i, e)| bert_frame(e, i == 1, cls.1, sep.1))
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

/// One sequence framed as `BertProcessing` frames it (the first: `[CLS] A
/// [SEP]`, the second: `B [SEP]` with type id 1), overflowing parts alike.
fn bert_frame(mut e: Encoding, second: bool, cls: u32, sep: u32) -> Encoding {
    let overflowing = std::mem::take(&mut e.overflowing);
    let frame_one = |e: Encoding| {
        let mut out = Encoding::default();
        let n = e.len();
        let type_id = second as u32;
        if !second {
            out.merge_with(Encoding::special(&[cls], 0));
        }
        let start = out.len();
        let mut body = e;
        body.sequence_ranges.clear();
        body.overflowing.clear();
        out.merge_with(body);
        out.merge_with(Encoding::special(&[sep], type_id));
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
