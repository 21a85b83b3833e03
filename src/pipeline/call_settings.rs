//! One encode call's truncation and padding: the tokenizer's own settings,
//! changed only in what the call asks (`padding=`, `truncation=`,
//! `max_length=` of the Python batch calls, as transformers names them).

use super::{PadLength, Padding, Tokenizer, Truncation, TruncationStrategy};
use crate::cut::Side;
use crate::error::{Error, Result};

/// The padding one call asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PadRequest {
    /// The tokenizer's padding, if any.
    #[default]
    AsSet,
    /// To the longest of the batch.
    Longest,
    /// To the call's `max_length`.
    MaxLength,
}

/// What one call changes of the tokenizer's truncation and padding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallSettings {
    pub padding: PadRequest,
    /// `Some(true)`: truncate to `max_length` (or the set length);
    /// `Some(false)`: do not truncate; `None`: as set.
    pub truncation: Option<bool>,
    pub max_length: Option<usize>,
    /// Pad lengths rounded up to a multiple of this (None: as set; 0: not
    /// rounded).
    pub pad_to_multiple_of: Option<usize>,
    /// What the transformers tokenizer (or folder) this one came from
    /// applies per call.
    pub transformers: PerCall,
}

/// The settings transformers keeps beside a tokenizer.json (in its config,
/// or on its tokenizer object) and applies to every call that asks for
/// padding or truncation, whatever the tokenizer.json says: a call here
/// that asks for them applies them the same way, so a folder encodes as
/// transformers encodes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerCall {
    pub padding_side: Option<Side>,
    pub truncation_side: Option<Side>,
    /// The length `truncation=True` and `padding="max_length"` go to when
    /// the call gives none.
    pub model_max_length: Option<usize>,
    /// The id of the pad token transformers names (its config's).
    pub pad_id: Option<u32>,
}

impl Tokenizer {
    /// The truncation a call with `call` applies. Asked for, it keeps the
    /// tokenizer's stride; the length and side are the call's, else
    /// transformers' per-call ones, else the tokenizer's; the strategy is
    /// HF's default.
    pub fn call_truncation(&self, call: &CallSettings) -> Result<Option<Truncation>> {
        let set = self.truncation.as_ref();
        let per_call = &call.transformers;
        match call.truncation {
            None => Ok(set.cloned()),
            Some(false) => Ok(None),
            Some(true) => {
                let max_length = call
                    .max_length
                    .or(per_call.model_max_length)
                    .or(set.map(|t| t.max_length))
                    .ok_or_else(|| {
                        Error::Value(
                            "truncation=True needs max_length (or enable_truncation)".into(),
                        )
                    })?;
                let t = Truncation {
                    max_length,
                    strategy: TruncationStrategy::LongestFirst,
                    stride: set.map_or(0, |t| t.stride),
                    direction: per_call
                        .truncation_side
                        .or(set.map(|t| t.direction))
                        .unwrap_or(Side::Right),
                };
                // As transformers sets it on HF's tokenizer, which checks it.
                t.check_stride(self.n_added(true, false))?;
                Ok(Some(t))
            }
        }
    }

    /// The padding a call with `call` applies, one rule for every output
    /// form: the tokenizer's padding, with the length the call asks for
    /// (`padding=`) and its `pad_to_multiple_of` if it gives one; the pad
    /// token, its id and type id, the side and (unless the call gives its
    /// own) the multiple stay the tokenizer's (by default `[PAD]`, none).
    /// With `rectangular` (rows become one array) there is always padding:
    /// as set, else to the longest row, and a missing pad token pads with
    /// id 0 instead of failing. Padding the call asks for, or that the
    /// tokenizer does not set, goes on transformers' per-call side if the
    /// tokenizer came with one; with none set, the pad token is the special
    /// `[PAD]`, else the special `<pad>` (MPNet's), else `[PAD]`, as
    /// `to_transformers` names it (transformers' own pad token, if the
    /// tokenizer came with one, for padding on its side, unless it sets one).
    pub fn call_padding(&self, call: &CallSettings, rectangular: bool) -> Result<Option<Padding>> {
        let per_call = &call.transformers;
        let length = match call.padding {
            PadRequest::AsSet => match &self.padding {
                Some(p) => p.length,
                None if rectangular => PadLength::Longest,
                None if call.pad_to_multiple_of.is_some() => {
                    return Err(Error::Value(
                        "pad_to_multiple_of needs padding: pass padding=True or \
                         'max_length', or call enable_padding"
                            .into(),
                    ))
                }
                None => return Ok(None),
            },
            PadRequest::Longest => PadLength::Longest,
            // The call's length, else the one transformers would pad to: its
            // model_max_length, or the tokenizer's truncation (what
            // to_transformers names so).
            PadRequest::MaxLength => PadLength::Fixed(
                call.max_length
                    .or(per_call.model_max_length)
                    .or(self.truncation.as_ref().map(|t| t.max_length))
                    .ok_or_else(|| Error::Value("padding='max_length' needs max_length".into()))?,
            ),
        };
        let on_call_side = call.padding != PadRequest::AsSet || self.padding.is_none();
        let side = |set: Side| match per_call.padding_side {
            Some(side) if on_call_side => side,
            _ => set,
        };
        let base = match &self.padding {
            Some(p) => p.clone(),
            None => {
                // transformers' own pad token, else the one to_transformers names.
                let named = ["[PAD]", "<pad>"]
                    .into_iter()
                    .find(|t| self.encoder.added.is_special_token(t))
                    .unwrap_or("[PAD]");
                let carried = per_call
                    .pad_id
                    .and_then(|id| Some((id, self.id_to_token(id)?)));
                let (pad_id, pad_token) =
                    match carried.or_else(|| Some((self.token_to_id(named)?, named))) {
                        Some(found) => found,
                        None if rectangular => {
                            let id_0 = self.id_to_token(0).unwrap_or_default();
                            let id_0 = Padding::longest_with_id_0(id_0);
                            return Ok(Some(Padding {
                                length,
                                pad_to_multiple_of: call.pad_to_multiple_of.filter(|&m| m > 0),
                                direction: side(id_0.direction),
                                ..id_0
                            }));
                        }
                        None => return Err(missing_pad_token(named)),
                    };
                Padding {
                    length: PadLength::Longest,
                    direction: Side::Right,
                    pad_to_multiple_of: None,
                    pad_id,
                    pad_type_id: 0,
                    pad_token: pad_token.into(),
                }
            }
        };
        let pad_to_multiple_of = match call.pad_to_multiple_of {
            Some(0) => None,
            Some(m) => Some(m),
            None => base.pad_to_multiple_of,
        };
        Ok(Some(Padding {
            length,
            pad_to_multiple_of,
            direction: side(base.direction),
            ..base
        }))
    }
}

/// The error for padding with a token the vocab lacks.
pub fn missing_pad_token(pad_token: &str) -> Error {
    Error::Value(format!("pad token {pad_token:?} is not in the vocabulary"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Vocab, WordPieceConfig};
    use crate::pre_tokenizers::PreTokenizer;

    fn tokenizer(tokens: &[&str]) -> Tokenizer {
        let vocab = Vocab::new(tokens.iter().map(|t| t.to_string()).collect()).unwrap();
        Tokenizer::bert_like(
            vocab,
            WordPieceConfig::default(),
            None,
            PreTokenizer::Bert,
            &["[CLS]", "[SEP]"],
        )
        .unwrap()
    }

    #[test]
    fn a_call_changes_only_what_it_names() {
        let mut tok = tokenizer(&["[PAD]", "[UNK]", "a", "<p>"]);
        let call = CallSettings::default();
        assert_eq!(tok.call_truncation(&call).unwrap(), None);
        assert_eq!(tok.call_padding(&call, false).unwrap(), None);
        tok.truncation = Some(Truncation {
            max_length: 9,
            strategy: TruncationStrategy::OnlyFirst,
            stride: 2,
            direction: Side::Left,
        });
        tok.padding = Some(Padding {
            length: PadLength::Fixed(12),
            direction: Side::Left,
            pad_to_multiple_of: Some(4),
            pad_id: 3,
            pad_type_id: 1,
            pad_token: "<p>".into(),
        });
        assert_eq!(tok.call_truncation(&call).unwrap(), tok.truncation);
        assert_eq!(tok.call_padding(&call, false).unwrap(), tok.padding);
        let call = CallSettings {
            padding: PadRequest::MaxLength,
            truncation: Some(true),
            max_length: Some(5),
            ..Default::default()
        };
        let t = tok.call_truncation(&call).unwrap().unwrap();
        assert_eq!((t.max_length, t.stride, t.direction), (5, 2, Side::Left));
        assert_eq!(t.strategy, TruncationStrategy::LongestFirst);
        let p = tok.call_padding(&call, false).unwrap().unwrap();
        assert_eq!(
            (p.length, p.pad_to_multiple_of),
            (PadLength::Fixed(5), Some(4))
        );
        // No length given: the truncation's, as to_transformers names it.
        let no_length = CallSettings {
            max_length: None,
            ..call
        };
        let p = tok.call_padding(&no_length, false).unwrap().unwrap();
        assert_eq!(p.length, PadLength::Fixed(9));
        let own_multiple = CallSettings {
            pad_to_multiple_of: Some(0),
            ..call
        };
        let p = tok.call_padding(&own_multiple, false).unwrap().unwrap();
        assert_eq!(p.pad_to_multiple_of, None);
        assert_eq!((p.pad_id, p.pad_type_id, p.direction), (3, 1, Side::Left));
        let off = CallSettings {
            truncation: Some(false),
            ..call
        };
        assert_eq!(tok.call_truncation(&off).unwrap(), None);
    }

    #[test]
    fn transformers_per_call_settings_apply_to_what_a_call_asks() {
        let mut tok = tokenizer(&["[PAD]", "[UNK]", "a", "<p>"]);
        let transformers = PerCall {
            padding_side: Some(Side::Left),
            truncation_side: Some(Side::Left),
            model_max_length: Some(6),
            pad_id: None,
        };
        let asked = CallSettings {
            padding: PadRequest::MaxLength,
            truncation: Some(true),
            transformers,
            ..Default::default()
        };
        let t = tok.call_truncation(&asked).unwrap().unwrap();
        assert_eq!((t.max_length, t.direction), (6, Side::Left));
        let p = tok.call_padding(&asked, false).unwrap().unwrap();
        assert_eq!((p.length, p.direction), (PadLength::Fixed(6), Side::Left));
        // The call's own length comes first.
        let own = CallSettings {
            max_length: Some(3),
            ..asked
        };
        assert_eq!(tok.call_truncation(&own).unwrap().unwrap().max_length, 3);
        // Nothing asked: the tokenizer's settings, none here; an array still
        // pads, on transformers' side.
        let quiet = CallSettings {
            transformers,
            ..Default::default()
        };
        assert_eq!(tok.call_truncation(&quiet).unwrap(), None);
        assert_eq!(tok.call_padding(&quiet, false).unwrap(), None);
        let rows = tok.call_padding(&quiet, true).unwrap().unwrap();
        assert_eq!(rows.direction, Side::Left);
        // Padding the tokenizer sets keeps its side unless a call asks.
        tok.padding = Some(Padding {
            length: PadLength::Longest,
            direction: Side::Right,
            pad_to_multiple_of: None,
            pad_id: 3,
            pad_type_id: 0,
            pad_token: "<p>".into(),
        });
        let set = tok.call_padding(&quiet, false).unwrap().unwrap();
        assert_eq!(set.direction, Side::Right);
        let p = tok.call_padding(&asked, false).unwrap().unwrap();
        assert_eq!((p.direction, p.pad_id), (Side::Left, 3));
        // The tokenizer's own pad token stands over transformers'.
        let padded_with = |pad_id: u32| CallSettings {
            transformers: PerCall {
                pad_id: Some(pad_id),
                ..transformers
            },
            ..asked
        };
        let own_pad = padded_with(2);
        let p = tok.call_padding(&own_pad, false).unwrap().unwrap();
        assert_eq!((p.pad_id, p.pad_token.as_str()), (3, "<p>"));
        tok.padding = None;
        let p = tok.call_padding(&own_pad, false).unwrap().unwrap();
        assert_eq!((p.pad_id, p.pad_token.as_str()), (2, "a"));
        // With no [PAD] to fall back on, transformers' pad token pads.
        let bare = tokenizer(&["[UNK]", "a"]);
        let p = bare.call_padding(&padded_with(1), false).unwrap().unwrap();
        assert_eq!((p.pad_id, p.pad_token.as_str()), (1, "a"));
    }

    #[test]
    fn missing_lengths_and_pad_tokens_are_errors_or_id_0() {
        let tok = tokenizer(&["[UNK]", "a"]);
        let needs_length = CallSettings {
            truncation: Some(true),
            ..Default::default()
        };
        assert!(tok.call_truncation(&needs_length).is_err());
        let longest = CallSettings {
            padding: PadRequest::Longest,
            ..Default::default()
        };
        let err = tok.call_padding(&longest, false).unwrap_err();
        assert!(err.to_string().contains("\"[PAD]\""), "{err}");
        let id_0 = tok.call_padding(&longest, true).unwrap().unwrap();
        assert_eq!((id_0.pad_id, id_0.pad_token.as_str()), (0, "[UNK]"));
        let max = CallSettings {
            padding: PadRequest::MaxLength,
            ..Default::default()
        };
        assert!(tok.call_padding(&max, false).is_err());
        let multiple_alone = CallSettings {
            pad_to_multiple_of: Some(8),
            ..Default::default()
        };
        let err = tok.call_padding(&multiple_alone, false).unwrap_err();
        assert!(err.to_string().contains("needs padding"), "{err}");
        let p = tok.call_padding(&multiple_alone, true).unwrap().unwrap();
        assert_eq!(
            (p.length, p.pad_to_multiple_of),
            (PadLength::Longest, Some(8))
        );
    }
}
