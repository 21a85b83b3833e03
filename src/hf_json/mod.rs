//! HF `tokenizer.json`: reading the components wpiece reproduces exactly
//! (refusing others by name, never approximating), and writing one that
//! `tokenizers` loads.
//!
//! The normalizers, pre-tokenizers and post-processors are `components.rs`;
//! the format's other types are serde-derived structs below. A component is read
//! in two steps: its `type` first (an unknown one is refused by name, before
//! its fields are looked at), then its fields as that type's struct. Vocab ids
//! are checked by hand, so an error names the token.

mod components;
mod fields;
mod parse;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::decoder::{Decoder, DecoderKind};
use crate::error::{Error, Result};
use crate::model::{UnknownPolicy, Vocab, WordPieceConfig};
use crate::pipeline::{
    AddedToken, PadDirection, PadLength, Padding, Tokenizer, Truncation, TruncationDirection,
    TruncationStrategy,
};
use components::{
    normalizer_json, post_processor_json, pre_tokenizer_json, read_pipeline, read_post_processor,
};
use fields::{bad, component, fields, part, required, unsupported};

// ----- the format ----------------------------------------------------------

/// The top level. Every part stays raw until read on its own, so an error
/// names the part (and a component's `type` is known before its fields).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn {
    /// Only "1.0" (HF refuses any other).
    version: Option<Value>,
    model: Option<Value>,
    normalizer: Option<Value>,
    pre_tokenizer: Option<Value>,
    post_processor: Option<Value>,
    decoder: Option<Value>,
    added_tokens: Option<Value>,
    truncation: Option<Value>,
    padding: Option<Value>,
}

#[derive(Serialize)]
struct FileOut<'a> {
    version: &'static str,
    truncation: Option<TruncationJson>,
    padding: Option<PaddingJson>,
    added_tokens: Vec<AddedTokenJson>,
    normalizer: Option<Value>,
    pre_tokenizer: Value,
    post_processor: Option<Value>,
    decoder: Option<DecoderJson>,
    model: ModelJson<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum ModelJson<'a> {
    WordPiece {
        unk_token: &'a str,
        continuing_subword_prefix: &'a str,
        max_input_chars_per_word: usize,
        vocab: Map<String, Value>,
    },
}

/// The WordPiece model's fields as read (the vocab is checked by hand).
#[derive(Deserialize)]
struct WordPieceIn {
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    max_input_chars_per_word: Option<u64>,
}

#[derive(Serialize, Deserialize)]
struct WordPieceDecoderJson {
    prefix: Option<String>,
    cleanup: Option<bool>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum DecoderJson {
    WordPiece(WordPieceDecoderJson),
}

/// An added token; HF requires every field. Its id is not trusted: HF adds
/// the tokens again in file order, each taking the vocab's id or the next.
#[derive(Serialize, Deserialize)]
struct AddedTokenJson {
    id: u32,
    content: String,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
    normalized: bool,
    special: bool,
}

#[derive(Serialize, Deserialize)]
struct TruncationJson {
    direction: Option<String>,
    max_length: Option<u64>,
    strategy: Option<String>,
    stride: Option<u64>,
}

#[derive(Serialize, Deserialize)]
struct PaddingJson {
    strategy: PadStrategyJson,
    direction: Option<String>,
    pad_to_multiple_of: Option<u64>,
    pad_id: Option<u32>,
    pad_type_id: Option<u32>,
    pad_token: Option<String>,
}

#[derive(Serialize, Deserialize)]
enum PadStrategyJson {
    BatchLongest,
    Fixed(u64),
}

// ----- reading -------------------------------------------------------------

/// What HF reads a model object without `type` as (files of its versions
/// before the tag), the first whose fields it holds with their types: BPE
/// (merges; refused here whether HF takes them or not), WordPiece (all its
/// settings), WordLevel (an unknown token); None if none (HF refuses it too).
fn untyped_model_kind(model: &Map<String, Value>) -> Option<&'static str> {
    let text = |k: &str| model.get(k).is_some_and(Value::is_string);
    let count = |k: &str| model.get(k).is_some_and(Value::is_u64);
    if model.get("merges").is_some_and(Value::is_array) {
        Some("BPE")
    } else if text("unk_token")
        && text("continuing_subword_prefix")
        && count("max_input_chars_per_word")
    {
        Some("WordPiece")
    } else {
        text("unk_token").then_some("WordLevel")
    }
}

fn read_model(mut v: Option<Value>) -> Result<(Vocab, WordPieceConfig)> {
    if let Some(Value::Object(o)) = &mut v {
        if !o.contains_key("type") {
            let kind = untyped_model_kind(o)
                .ok_or_else(|| bad("model has no type, and not the fields of any model"))?;
            o.insert("type".into(), Value::String(kind.into()));
        }
    }
    let model = match component(v, "model")? {
        None => return Err(bad("no model")),
        Some((kind, _)) if kind != "WordPiece" => {
            return Err(unsupported(format!("model type {kind} (only WordPiece)")))
        }
        Some((_, mut o)) => {
            // Taken out, not copied through serde: it may hold millions of
            // tokens, read below looking for Ctrl-C.
            let vocab = o.as_object_mut().and_then(|m| m.remove("vocab"));
            (fields::<WordPieceIn>(o, "model")?, vocab)
        }
    };
    let (model, vocab_map) = match model {
        (_, None | Some(Value::Null)) => return Err(bad("model has no vocab")),
        (m, Some(Value::Object(vocab))) => (m, vocab),
        (_, Some(_)) => return Err(bad("model: vocab should be an object of token: id")),
    };
    let mut pairs = Vec::with_capacity(vocab_map.len());
    for (k, (token, id)) in vocab_map.into_iter().enumerate() {
        if k % CHECKPOINT_STEPS == 0 {
            cancel::checkpoint()?;
        }
        let id = id
            .as_u64()
            .ok_or_else(|| bad(format!("id of {token:?} should be a non-negative integer")))?;
        pairs.push((token, id));
    }
    let config = WordPieceConfig {
        unk_token: required(model.unk_token, "model", "unk_token")?,
        continuing_subword_prefix: required(
            model.continuing_subword_prefix,
            "model",
            "continuing_subword_prefix",
        )?,
        max_input_chars_per_word: required(
            model.max_input_chars_per_word,
            "model",
            "max_input_chars_per_word",
        )? as usize,
        unknown: UnknownPolicy::Word,
        end_of_word_suffix: String::new(),
    };
    Ok((Vocab::from_pairs(pairs)?, config))
}

fn read_decoder(v: Option<Value>) -> Result<Decoder> {
    match component(v, "decoder")? {
        Some((kind, o)) if kind == "WordPiece" => {
            let d: WordPieceDecoderJson = fields(o, "decoder")?;
            Ok(Decoder {
                prefix: required(d.prefix, "decoder", "prefix")?,
                cleanup: required(d.cleanup, "decoder", "cleanup")?,
                ..Decoder::default()
            })
        }
        Some((kind, _)) => Err(unsupported(format!("decoder {kind} (only WordPiece)"))),
        // HF decodes without a decoder by joining the tokens with spaces.
        None => Ok(Decoder {
            kind: DecoderKind::Join,
            ..Decoder::default()
        }),
    }
}

fn read_added_token(t: AddedTokenJson) -> AddedToken {
    AddedToken {
        content: t.content,
        single_word: t.single_word,
        lstrip: t.lstrip,
        rstrip: t.rstrip,
        normalized: t.normalized,
        special: t.special,
    }
}

fn read_truncation(t: TruncationJson) -> Result<Truncation> {
    // HF defaults the direction (files older than it lack it), not the rest.
    let direction = t.direction.as_deref().unwrap_or("Right");
    let strategy = required(t.strategy.as_deref(), "truncation", "strategy")?;
    Ok(Truncation {
        max_length: t
            .max_length
            .ok_or_else(|| bad("truncation without max_length"))? as usize,
        strategy: strategy
            .parse()
            .map_err(|_| bad(format!("truncation strategy {strategy}")))?,
        stride: required(t.stride, "truncation", "stride")? as usize,
        direction: direction
            .parse()
            .map_err(|_| bad(format!("truncation direction {direction}")))?,
    })
}

fn read_padding(p: PaddingJson) -> Result<Padding> {
    let direction = required(p.direction.as_deref(), "padding", "direction")?;
    Ok(Padding {
        direction: direction
            .parse()
            .map_err(|_| bad(format!("padding direction {direction}")))?,
        length: match p.strategy {
            PadStrategyJson::BatchLongest => PadLength::Longest,
            PadStrategyJson::Fixed(n) => PadLength::Fixed(n as usize),
        },
        pad_to_multiple_of: p.pad_to_multiple_of.map(|n| n as usize),
        pad_id: required(p.pad_id, "padding", "pad_id")?,
        pad_type_id: required(p.pad_type_id, "padding", "pad_type_id")?,
        pad_token: required(p.pad_token, "padding", "pad_token")?,
    })
}

/// Parses an HF `tokenizer.json`. Components we cannot reproduce exactly are
/// rejected with `Error::Unsupported`, never approximated.
pub fn tokenizer_from_json(text: &str) -> Result<Tokenizer> {
    let root = parse::parse(text)?;
    if !root.is_object() {
        return Err(bad("top level should be an object"));
    }
    let file: FileIn = serde_json::from_value(root).map_err(|e| bad(e.to_string()))?;
    match &file.version {
        None => {}
        Some(Value::String(v)) if v == "1.0" => {}
        Some(v) => {
            return Err(bad(format!(
                "unknown tokenizer.json version {v} (only \"1.0\")"
            )))
        }
    }
    let (vocab, model_config) = read_model(file.model)?;
    let splitter = read_pipeline(file.normalizer, file.pre_tokenizer)?;
    let post_processor = read_post_processor(file.post_processor, &vocab)?;
    let decoder = read_decoder(file.decoder)?;
    let added = part::<Vec<AddedTokenJson>>(file.added_tokens, "added_tokens")?
        .unwrap_or_default()
        .into_iter()
        .map(read_added_token)
        .collect();
    let mut tok = Tokenizer::with_splitter(
        vocab,
        model_config,
        splitter,
        added,
        post_processor,
        decoder,
    )?;
    tok.truncation = part(file.truncation, "truncation")?
        .map(read_truncation)
        .transpose()?;
    tok.padding = part(file.padding, "padding")?
        .map(read_padding)
        .transpose()?;
    Ok(tok)
}

// ----- the word-making part alone ------------------------------------------------

/// The parts of a tokenizer that decide its words (normalizer, pre-tokenizer
/// and added tokens, without ids), as tokenizer.json writes them: what a
/// counts file records of a pipeline, and what two pipelines are compared by.
pub fn pipeline_to_json(tok: &Tokenizer) -> Value {
    let added: Vec<Value> = tok
        .added_tokens()
        .iter()
        .map(|(_, t)| {
            serde_json::json!({
                "content": t.content,
                "single_word": t.single_word,
                "lstrip": t.lstrip,
                "rstrip": t.rstrip,
                "normalized": t.normalized,
                "special": t.special,
            })
        })
        .collect();
    let mut json = serde_json::json!({
        "normalizer": normalizer_json(tok),
        "pre_tokenizer": pre_tokenizer_json(tok),
        "added_tokens": added,
    });
    // Only when on: it keeps special tokens typed in a text as words (and
    // counts files written before it was recorded still match).
    if tok.added_tokens().encode_special() {
        json["encode_special_tokens"] = Value::Bool(true);
    }
    json
}

/// A tokenizer with the pipeline `pipeline_to_json` wrote, over a vocab of
/// one unknown token: it splits text into the same words as the original.
pub fn pipeline_from_json(value: &Value) -> Result<Tokenizer> {
    let Value::Object(map) = value else {
        return Err(bad("a pipeline should be an object"));
    };
    let splitter = read_pipeline(
        map.get("normalizer").cloned(),
        map.get("pre_tokenizer").cloned(),
    )?;
    let mut added = Vec::new();
    for (k, t) in map
        .get("added_tokens")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut t = t.clone();
        if let Value::Object(fields) = &mut t {
            fields.insert("id".into(), Value::from(k));
        }
        let t: AddedTokenJson = serde_json::from_value(t)
            .map_err(|e| bad(format!("added token {k} of a pipeline: {e}")))?;
        added.push(read_added_token(t));
    }
    let encode_special = match map.get("encode_special_tokens") {
        None => false,
        Some(Value::Bool(on)) => *on,
        Some(_) => {
            return Err(bad(
                "a pipeline's encode_special_tokens should be true or false",
            ))
        }
    };
    let config = WordPieceConfig::default();
    let vocab = Vocab::new(vec![config.unk_token.clone()])?;
    let mut tok =
        Tokenizer::with_splitter(vocab, config, splitter, added, None, Decoder::default())?;
    tok.set_encode_special_tokens(encode_special);
    Ok(tok)
}

// ----- writing -------------------------------------------------------------

/// Serializes to HF's `tokenizer.json` format (loadable by `tokenizers`).
pub fn tokenizer_to_json(tok: &Tokenizer) -> Result<String> {
    let cfg = &tok.model().config;
    if cfg.unknown != UnknownPolicy::Word {
        return Err(unsupported(
            "tokenizer.json cannot express per-character unknowns; save into a folder \
             (wpiece_tokenizer.json holds them)",
        ));
    }
    if !cfg.end_of_word_suffix.is_empty() {
        return Err(unsupported(
            "tokenizer.json cannot express an end-of-word suffix; save into a folder \
             (wpiece_tokenizer.json holds it)",
        ));
    }
    let file = FileOut {
        version: "1.0",
        truncation: tok.truncation.as_ref().map(|t| TruncationJson {
            direction: Some(
                match t.direction {
                    TruncationDirection::Right => "Right",
                    TruncationDirection::Left => "Left",
                }
                .into(),
            ),
            max_length: Some(t.max_length as u64),
            strategy: Some(
                match t.strategy {
                    TruncationStrategy::LongestFirst => "LongestFirst",
                    TruncationStrategy::OnlyFirst => "OnlyFirst",
                    TruncationStrategy::OnlySecond => "OnlySecond",
                }
                .into(),
            ),
            stride: Some(t.stride as u64),
        }),
        padding: tok.padding.as_ref().map(|p| PaddingJson {
            strategy: match p.length {
                PadLength::Longest => PadStrategyJson::BatchLongest,
                PadLength::Fixed(n) => PadStrategyJson::Fixed(n as u64),
            },
            direction: Some(
                match p.direction {
                    PadDirection::Right => "Right",
                    PadDirection::Left => "Left",
                }
                .into(),
            ),
            pad_to_multiple_of: p.pad_to_multiple_of.map(|n| n as u64),
            pad_id: Some(p.pad_id),
            pad_type_id: Some(p.pad_type_id),
            pad_token: Some(p.pad_token.clone()),
        }),
        added_tokens: tok
            .added_tokens()
            .iter()
            .map(|(id, t)| AddedTokenJson {
                id,
                content: t.content.clone(),
                single_word: t.single_word,
                lstrip: t.lstrip,
                rstrip: t.rstrip,
                normalized: t.normalized,
                special: t.special,
            })
            .collect(),
        normalizer: normalizer_json(tok),
        pre_tokenizer: pre_tokenizer_json(tok),
        post_processor: tok.post_processor.as_ref().map(post_processor_json),
        decoder: match tok.decoder.kind {
            DecoderKind::Join => None,
            DecoderKind::WordPiece => Some(DecoderJson::WordPiece(WordPieceDecoderJson {
                prefix: Some(tok.decoder.prefix.clone()),
                cleanup: Some(tok.decoder.cleanup),
            })),
        },
        model: ModelJson::WordPiece {
            unk_token: &cfg.unk_token,
            continuing_subword_prefix: &cfg.continuing_subword_prefix,
            max_input_chars_per_word: cfg.max_input_chars_per_word,
            vocab: tok
                .vocab
                .tokens()
                .iter()
                .enumerate()
                .map(|(i, t)| (t.clone(), Value::from(i)))
                .collect(),
        },
    };
    serde_json::to_string_pretty(&file).map_err(|e| Error::Value(e.to_string()))
}
