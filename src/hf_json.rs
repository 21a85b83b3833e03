//! HF `tokenizer.json`: reading the components wpiece reproduces exactly
//! (refusing others by name, never approximating), and writing one that
//! `tokenizers` loads.
//!
//! The format's types are serde-derived structs below. A component is read
//! in two steps: its `type` first (an unknown one is refused by name, before
//! its fields are looked at), then its fields as that type's struct. Vocab ids
//! are checked by hand, so an error names the token.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::decoder::Decoder;
use crate::error::{Error, Result};
use crate::model::{UnknownPolicy, Vocab, WordPieceConfig};
use crate::normalizer::NormalizerConfig;
use crate::pipeline::{
    AddedToken, PadLength, Padding, PostProcessor, Tokenizer, Truncation, TruncationStrategy,
};
use crate::pre_tokenizer::PreTokenizer;

// ----- the format ----------------------------------------------------------

/// The top level. Every part stays raw until read on its own, so an error
/// names the part (and a component's `type` is known before its fields).
#[derive(Deserialize)]
struct FileIn {
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
    normalizer: Option<NormalizerJson>,
    pre_tokenizer: PreTokenizerJson,
    post_processor: Option<PostProcessorJson>,
    decoder: DecoderJson,
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
    vocab: Option<Map<String, Value>>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    max_input_chars_per_word: Option<u64>,
}

/// HF writes every flag; a missing or null one takes BERT's default.
#[derive(Serialize, Deserialize)]
struct BertNormalizerJson {
    clean_text: Option<bool>,
    handle_chinese_chars: Option<bool>,
    strip_accents: Option<bool>,
    lowercase: Option<bool>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum NormalizerJson {
    BertNormalizer(BertNormalizerJson),
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum PreTokenizerJson {
    BertPreTokenizer,
    WhitespaceSplit,
}

/// `BertProcessing`: `[token, id]` of each.
#[derive(Serialize, Deserialize)]
struct BertProcessingJson {
    sep: (String, u32),
    cls: (String, u32),
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum PostProcessorJson {
    BertProcessing(BertProcessingJson),
}

/// `TemplateProcessing`, read only when it has BERT's shape.
#[derive(Deserialize)]
struct TemplateJson {
    single: Vec<TemplatePiece>,
    pair: Vec<TemplatePiece>,
    special_tokens: Map<String, Value>,
}

#[derive(Deserialize, PartialEq, Eq)]
enum TemplatePiece {
    SpecialToken { id: String, type_id: u32 },
    Sequence { id: String, type_id: u32 },
}

#[derive(Deserialize)]
struct TemplateSpecialJson {
    ids: Vec<u32>,
    tokens: Option<Vec<String>>,
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

#[derive(Serialize, Deserialize)]
struct AddedTokenJson {
    id: u32,
    content: String,
    #[serde(default)]
    single_word: Option<bool>,
    #[serde(default)]
    lstrip: Option<bool>,
    #[serde(default)]
    rstrip: Option<bool>,
    #[serde(default)]
    normalized: Option<bool>,
    #[serde(default)]
    special: Option<bool>,
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

fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported(what.into())
}

fn bad(what: impl Into<String>) -> Error {
    Error::Value(format!("invalid tokenizer.json: {}", what.into()))
}

/// A component's `type` and its object, or None when absent or null.
fn component(v: Option<Value>, key: &str) -> Result<Option<(String, Value)>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => match o.get("type") {
            Some(Value::String(t)) => Ok(Some((t.clone(), Value::Object(o)))),
            _ => Err(bad(format!("{key} has no type"))),
        },
        Some(v) => Err(bad(format!("{key} should be an object, got {v}"))),
    }
}

/// The fields of a part, as its type's struct.
fn fields<T: DeserializeOwned>(v: Value, key: &str) -> Result<T> {
    serde_json::from_value(v).map_err(|e| bad(format!("{key}: {e}")))
}

/// An optional part (absent or null: None).
fn part<T: DeserializeOwned>(v: Option<Value>, key: &str) -> Result<Option<T>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => fields(v, key).map(Some),
    }
}

fn read_model(v: Option<Value>) -> Result<(Vocab, WordPieceConfig)> {
    let model = match component(v, "model")? {
        None => return Err(bad("no model")),
        Some((kind, _)) if kind != "WordPiece" => {
            return Err(unsupported(format!("model type {kind} (only WordPiece)")))
        }
        Some((_, o)) => fields::<WordPieceIn>(o, "model")?,
    };
    let vocab_map = model.vocab.ok_or_else(|| bad("model has no vocab"))?;
    let mut pairs = Vec::with_capacity(vocab_map.len());
    for (token, id) in vocab_map {
        let id = id
            .as_u64()
            .ok_or_else(|| bad(format!("id of {token:?} should be a non-negative integer")))?;
        pairs.push((token, id));
    }
    let config = WordPieceConfig {
        unk_token: model.unk_token.unwrap_or_else(|| "[UNK]".into()),
        continuing_subword_prefix: model
            .continuing_subword_prefix
            .unwrap_or_else(|| "##".into()),
        max_input_chars_per_word: model.max_input_chars_per_word.unwrap_or(100) as usize,
        unknown: UnknownPolicy::Word,
        end_of_word_suffix: String::new(),
    };
    Ok((Vocab::from_pairs(pairs)?, config))
}

fn read_normalizer(v: Option<Value>) -> Result<Option<NormalizerConfig>> {
    match component(v, "normalizer")? {
        None => Ok(None),
        Some((kind, o)) if kind == "BertNormalizer" => {
            let n: BertNormalizerJson = fields(o, "normalizer")?;
            Ok(Some(NormalizerConfig {
                clean_text: n.clean_text.unwrap_or(true),
                handle_chinese_chars: n.handle_chinese_chars.unwrap_or(true),
                strip_accents: n.strip_accents,
                lowercase: n.lowercase.unwrap_or(true),
            }))
        }
        Some((kind, _)) => Err(unsupported(format!(
            "normalizer {kind} (only BertNormalizer)"
        ))),
    }
}

fn read_pre_tokenizer(v: Option<Value>) -> Result<PreTokenizer> {
    match component(v, "pre_tokenizer")? {
        Some((kind, _)) if kind == "BertPreTokenizer" => Ok(PreTokenizer::Bert),
        Some((kind, _)) if kind == "WhitespaceSplit" => Ok(PreTokenizer::Whitespace),
        Some((kind, _)) => Err(unsupported(format!(
            "pre-tokenizer {kind} (only BertPreTokenizer and WhitespaceSplit)"
        ))),
        None => Err(unsupported("a tokenizer without pre-tokenizer")),
    }
}

fn read_post_processor(v: Option<Value>) -> Result<Option<PostProcessor>> {
    match component(v, "post_processor")? {
        None => Ok(None),
        Some((kind, o)) if kind == "BertProcessing" => {
            let p: BertProcessingJson = fields(o, "post_processor")?;
            Ok(Some(PostProcessor {
                cls: p.cls,
                sep: p.sep,
            }))
        }
        Some((kind, o)) if kind == "TemplateProcessing" => {
            template_post_processor(fields(o, "post_processor")?).map(Some)
        }
        Some((kind, _)) => Err(unsupported(format!(
            "post-processor {kind} (only BertProcessing and BERT-shaped TemplateProcessing)"
        ))),
    }
}

/// Reads the BERT shape out of a `TemplateProcessing`; anything else is unsupported.
fn template_post_processor(t: TemplateJson) -> Result<PostProcessor> {
    let not_bert = || {
        unsupported(
            "TemplateProcessing other than `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1`",
        )
    };
    let special = |id: &str, type_id| TemplatePiece::SpecialToken {
        id: id.into(),
        type_id,
    };
    let sequence = |id: &str, type_id| TemplatePiece::Sequence {
        id: id.into(),
        type_id,
    };
    let (cls, sep) = match t.single.as_slice() {
        [TemplatePiece::SpecialToken { id: cls, .. }, _, TemplatePiece::SpecialToken { id: sep, .. }] => {
            (cls.clone(), sep.clone())
        }
        _ => return Err(not_bert()),
    };
    let single = [special(&cls, 0), sequence("A", 0), special(&sep, 0)];
    let pair = [
        special(&cls, 0),
        sequence("A", 0),
        special(&sep, 0),
        sequence("B", 1),
        special(&sep, 1),
    ];
    if t.single != single || t.pair != pair {
        return Err(not_bert());
    }
    let id_of = |name: &str| -> Result<u32> {
        let entry = t
            .special_tokens
            .get(name)
            .ok_or_else(|| bad(format!("special token {name} is not defined")))?;
        let s: TemplateSpecialJson = serde_json::from_value(entry.clone())
            .map_err(|e| bad(format!("special token {name}: {e}")))?;
        // HF emits `tokens` as the strings of the ids: honoured only when it is the name.
        if s.tokens.is_some_and(|t| t != [name]) {
            return Err(unsupported(format!(
                "special token {name} whose tokens are not [{name:?}]"
            )));
        }
        match s.ids.as_slice() {
            [id] => Ok(*id),
            _ => Err(unsupported(format!(
                "special token {name} with several ids"
            ))),
        }
    };
    Ok(PostProcessor {
        cls: (cls.clone(), id_of(&cls)?),
        sep: (sep.clone(), id_of(&sep)?),
    })
}

fn read_decoder(v: Option<Value>) -> Result<Decoder> {
    match component(v, "decoder")? {
        Some((kind, o)) if kind == "WordPiece" => {
            let d: WordPieceDecoderJson = fields(o, "decoder")?;
            Ok(Decoder {
                prefix: d.prefix.unwrap_or_else(|| "##".into()),
                cleanup: d.cleanup.unwrap_or(true),
                suffix: String::new(),
            })
        }
        Some((kind, _)) => Err(unsupported(format!("decoder {kind} (only WordPiece)"))),
        None => Err(unsupported("a tokenizer without decoder")),
    }
}

fn read_added_token(t: AddedTokenJson) -> Result<AddedToken> {
    let flags = [
        ("lstrip", t.lstrip),
        ("rstrip", t.rstrip),
        ("single_word", t.single_word),
        ("normalized", t.normalized),
    ];
    if let Some((flag, _)) = flags.iter().find(|(_, on)| *on == Some(true)) {
        return Err(unsupported(format!(
            "added token {:?} with {flag}=true",
            t.content
        )));
    }
    Ok(AddedToken {
        content: t.content,
        id: t.id,
        special: t.special.unwrap_or(false),
    })
}

fn read_truncation(t: TruncationJson) -> Result<Truncation> {
    if t.stride.unwrap_or(0) != 0 {
        return Err(unsupported("truncation with stride"));
    }
    if t.direction.as_deref().unwrap_or("Right") != "Right" {
        return Err(unsupported("truncation from the left"));
    }
    let strategy = t.strategy.as_deref().unwrap_or("LongestFirst");
    Ok(Truncation {
        max_length: t
            .max_length
            .ok_or_else(|| bad("truncation without max_length"))? as usize,
        strategy: strategy
            .parse()
            .map_err(|_| bad(format!("truncation strategy {strategy}")))?,
    })
}

fn read_padding(p: PaddingJson) -> Result<Padding> {
    if p.direction.as_deref().unwrap_or("Right") != "Right" {
        return Err(unsupported("padding on the left"));
    }
    Ok(Padding {
        length: match p.strategy {
            PadStrategyJson::BatchLongest => PadLength::Longest,
            PadStrategyJson::Fixed(n) => PadLength::Fixed(n as usize),
        },
        pad_to_multiple_of: p.pad_to_multiple_of.map(|n| n as usize),
        pad_id: p.pad_id.unwrap_or(0),
        pad_type_id: p.pad_type_id.unwrap_or(0),
        pad_token: p.pad_token.unwrap_or_else(|| "[PAD]".into()),
    })
}

/// Parses an HF `tokenizer.json`. Components we cannot reproduce exactly are
/// rejected with `Error::Unsupported`, never approximated.
pub fn tokenizer_from_json(text: &str) -> Result<Tokenizer> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if !root.is_object() {
        return Err(bad("top level should be an object"));
    }
    let file: FileIn = serde_json::from_value(root).map_err(|e| bad(e.to_string()))?;
    let (vocab, model_config) = read_model(file.model)?;
    let normalizer = read_normalizer(file.normalizer)?;
    let pre_tokenizer = read_pre_tokenizer(file.pre_tokenizer)?;
    let post_processor = read_post_processor(file.post_processor)?;
    let decoder = read_decoder(file.decoder)?;
    let added = part::<Vec<AddedTokenJson>>(file.added_tokens, "added_tokens")?
        .unwrap_or_default()
        .into_iter()
        .map(read_added_token)
        .collect::<Result<_>>()?;
    let mut tok = Tokenizer::new(
        vocab,
        model_config,
        normalizer,
        pre_tokenizer,
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

// ----- writing -------------------------------------------------------------

/// Serializes to HF's `tokenizer.json` format (loadable by `tokenizers`).
pub fn tokenizer_to_json(tok: &Tokenizer) -> Result<String> {
    let cfg = &tok.model().config;
    if cfg.unknown != UnknownPolicy::Word {
        return Err(unsupported(
            "tokenizer.json cannot express per-character unknowns; save as vocab.txt instead",
        ));
    }
    if !cfg.end_of_word_suffix.is_empty() {
        return Err(unsupported(
            "tokenizer.json cannot express an end-of-word suffix; save as vocab.txt instead",
        ));
    }
    let off = Some(false);
    let file = FileOut {
        version: "1.0",
        truncation: tok.truncation.as_ref().map(|t| TruncationJson {
            direction: Some("Right".into()),
            max_length: Some(t.max_length as u64),
            strategy: Some(
                match t.strategy {
                    TruncationStrategy::LongestFirst => "LongestFirst",
                    TruncationStrategy::OnlyFirst => "OnlyFirst",
                    TruncationStrategy::OnlySecond => "OnlySecond",
                }
                .into(),
            ),
            stride: Some(0),
        }),
        padding: tok.padding.as_ref().map(|p| PaddingJson {
            strategy: match p.length {
                PadLength::Longest => PadStrategyJson::BatchLongest,
                PadLength::Fixed(n) => PadStrategyJson::Fixed(n as u64),
            },
            direction: Some("Right".into()),
            pad_to_multiple_of: p.pad_to_multiple_of.map(|n| n as u64),
            pad_id: Some(p.pad_id),
            pad_type_id: Some(p.pad_type_id),
            pad_token: Some(p.pad_token.clone()),
        }),
        added_tokens: tok
            .added_tokens()
            .iter()
            .map(|t| AddedTokenJson {
                id: t.id,
                content: t.content.clone(),
                single_word: off,
                lstrip: off,
                rstrip: off,
                normalized: off,
                special: Some(t.special),
            })
            .collect(),
        normalizer: tok.normalizer().map(|n| {
            NormalizerJson::BertNormalizer(BertNormalizerJson {
                clean_text: Some(n.clean_text),
                handle_chinese_chars: Some(n.handle_chinese_chars),
                strip_accents: n.strip_accents,
                lowercase: Some(n.lowercase),
            })
        }),
        pre_tokenizer: match tok.pre_tokenizer() {
            PreTokenizer::Bert => PreTokenizerJson::BertPreTokenizer,
            PreTokenizer::Whitespace => PreTokenizerJson::WhitespaceSplit,
        },
        post_processor: tok.post_processor.as_ref().map(|p| {
            PostProcessorJson::BertProcessing(BertProcessingJson {
                sep: p.sep.clone(),
                cls: p.cls.clone(),
            })
        }),
        decoder: DecoderJson::WordPiece(WordPieceDecoderJson {
            prefix: Some(tok.decoder.prefix.clone()),
            cleanup: Some(tok.decoder.cleanup),
        }),
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
