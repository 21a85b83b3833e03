//! HF `tokenizer.json`: reading the components wpiece reproduces exactly
//! (refusing others by name), and writing one `tokenizers` loads.

use serde_json::{json, Map, Value};

use crate::decoder::Decoder;
use crate::error::{Error, Result};
use crate::model::{UnknownPolicy, Vocab, WordPieceConfig};
use crate::normalizer::NormalizerConfig;
use crate::pipeline::{
    AddedToken, PadLength, Padding, PostProcessor, Tokenizer, Truncation, TruncationStrategy,
};
use crate::pre_tokenizer::PreTokenizer;

fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported(what.into())
}

fn bad(what: impl Into<String>) -> Error {
    Error::Value(format!("invalid tokenizer.json: {}", what.into()))
}

fn get_bool(obj: &Map<String, Value>, key: &str, default: bool) -> Result<bool> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(bad(format!("{key} should be a boolean, got {v}"))),
    }
}

fn get_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(bad(format!("{key} should be a string, got {v}"))),
    }
}

fn get_u64(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} should be a non-negative integer, got {v}"))),
    }
}

/// An id or type id: HF keeps these as u32, so a larger value is an error, not wrapped.
fn as_u32(v: &Value, what: &str) -> Result<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            bad(format!(
                "{what} should be an integer from 0 to 2^32-1, got {v}"
            ))
        })
}

fn get_u32(obj: &Map<String, Value>, key: &str) -> Result<Option<u32>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => as_u32(v, key).map(Some),
    }
}

/// `truncation` / `padding`: null (off) or an object.
fn settings_object<'a>(
    root: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>> {
    match root.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(v) => Err(bad(format!("{key} should be an object or null, got {v}"))),
    }
}

fn component<'a>(
    root: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<(&'a str, &'a Map<String, Value>)>> {
    match root.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => {
            let ty = get_str(o, "type")?.ok_or_else(|| bad(format!("{key} has no type")))?;
            Ok(Some((ty, o)))
        }
        Some(v) => Err(bad(format!("{key} should be an object, got {v}"))),
    }
}

fn special_pair(v: Option<&Value>, what: &str) -> Result<(String, u32)> {
    match v {
        Some(Value::Array(a)) if a.len() == 2 => {
            let name = a[0]
                .as_str()
                .ok_or_else(|| bad(format!("{what} token name")))?;
            Ok((name.to_owned(), as_u32(&a[1], &format!("{what} token id"))?))
        }
        _ => Err(bad(format!("{what} should be [token, id]"))),
    }
}

/// Reads the BERT shape out of a `TemplateProcessing`; anything else is unsupported.
fn template_post_processor(o: &Map<String, Value>) -> Result<PostProcessor> {
    let not_bert = || {
        unsupported(
            "TemplateProcessing other than `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1`",
        )
    };
    let piece = |v: &Value| -> Option<(bool, String, u64)> {
        if let Some(s) = v.get("SpecialToken") {
            return Some((
                true,
                s.get("id")?.as_str()?.to_owned(),
                s.get("type_id")?.as_u64()?,
            ));
        }
        let s = v.get("Sequence")?;
        Some((
            false,
            s.get("id")?.as_str()?.to_owned(),
            s.get("type_id")?.as_u64()?,
        ))
    };
    let seq = |key: &str| -> Option<Vec<(bool, String, u64)>> {
        o.get(key)?.as_array()?.iter().map(piece).collect()
    };
    let single = seq("single").ok_or_else(not_bert)?;
    let pair = seq("pair").ok_or_else(not_bert)?;
    if single.len() != 3 || pair.len() != 5 {
        return Err(not_bert());
    }
    let (cls, sep) = (&single[0].1, &single[2].1);
    let expect_single = [
        (true, cls.clone(), 0),
        (false, "A".into(), 0),
        (true, sep.clone(), 0),
    ];
    let expect_pair = [
        (true, cls.clone(), 0),
        (false, "A".into(), 0),
        (true, sep.clone(), 0),
        (false, "B".into(), 1),
        (true, sep.clone(), 1),
    ];
    if single != expect_single || pair != expect_pair {
        return Err(not_bert());
    }
    let specials = o
        .get("special_tokens")
        .and_then(Value::as_object)
        .ok_or_else(not_bert)?;
    let id_of = |name: &str| -> Result<u32> {
        let special = specials
            .get(name)
            .and_then(Value::as_object)
            .ok_or_else(|| bad(format!("special token {name} is not defined")))?;
        let ids = special
            .get("ids")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(format!("special token {name} has no ids")))?;
        // HF emits `tokens` as the strings of the ids: honoured only when it is the name.
        let tokens = special.get("tokens").and_then(Value::as_array);
        if tokens.is_some_and(|t| t.len() != 1 || t[0].as_str() != Some(name)) {
            return Err(unsupported(format!(
                "special token {name} whose tokens are not [{name:?}]"
            )));
        }
        match ids.as_slice() {
            [id] => as_u32(id, &format!("id of special token {name}")),
            _ => Err(unsupported(format!(
                "special token {name} with several ids"
            ))),
        }
    };
    Ok(PostProcessor {
        cls: (cls.clone(), id_of(cls)?),
        sep: (sep.clone(), id_of(sep)?),
    })
}

/// Parses an HF `tokenizer.json`. Components we cannot reproduce exactly are
/// rejected with `Error::Unsupported`, never approximated.
pub fn tokenizer_from_json(text: &str) -> Result<Tokenizer> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let root = root
        .as_object()
        .ok_or_else(|| bad("top level should be an object"))?;

    let model = root
        .get("model")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no model"))?;
    match get_str(model, "type")? {
        Some("WordPiece") => {}
        Some(other) => return Err(unsupported(format!("model type {other} (only WordPiece)"))),
        None => return Err(bad("model has no type")),
    }
    let vocab_map = model
        .get("vocab")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("model has no vocab"))?;
    let mut pairs = Vec::with_capacity(vocab_map.len());
    for (token, id) in vocab_map {
        let id = id
            .as_u64()
            .ok_or_else(|| bad(format!("id of {token:?} should be a non-negative integer")))?;
        pairs.push((token.clone(), id));
    }
    let vocab = Vocab::from_pairs(pairs)?;
    let model_config = WordPieceConfig {
        unk_token: get_str(model, "unk_token")?.unwrap_or("[UNK]").to_owned(),
        continuing_subword_prefix: get_str(model, "continuing_subword_prefix")?
            .unwrap_or("##")
            .to_owned(),
        max_input_chars_per_word: get_u64(model, "max_input_chars_per_word")?.unwrap_or(100)
            as usize,
        unknown: UnknownPolicy::Word,
        end_of_word_suffix: String::new(),
    };

    let normalizer = match component(root, "normalizer")? {
        None => None,
        Some(("BertNormalizer", o)) => Some(NormalizerConfig {
            clean_text: get_bool(o, "clean_text", true)?,
            handle_chinese_chars: get_bool(o, "handle_chinese_chars", true)?,
            strip_accents: match o.get("strip_accents") {
                None | Some(Value::Null) => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(v) => {
                    return Err(bad(format!(
                        "strip_accents should be a boolean or null, got {v}"
                    )))
                }
            },
            lowercase: get_bool(o, "lowercase", true)?,
        }),
        Some((other, _)) => {
            return Err(unsupported(format!(
                "normalizer {other} (only BertNormalizer)"
            )))
        }
    };

    let pre_tokenizer = match component(root, "pre_tokenizer")? {
        Some(("BertPreTokenizer", _)) => PreTokenizer::Bert,
        Some(("WhitespaceSplit", _)) => PreTokenizer::Whitespace,
        Some((other, _)) => {
            return Err(unsupported(format!(
                "pre-tokenizer {other} (only BertPreTokenizer and WhitespaceSplit)"
            )))
        }
        None => return Err(unsupported("a tokenizer without pre-tokenizer")),
    };

    let post_processor = match component(root, "post_processor")? {
        None => None,
        Some(("BertProcessing", o)) => Some(PostProcessor {
            sep: special_pair(o.get("sep"), "sep")?,
            cls: special_pair(o.get("cls"), "cls")?,
        }),
        Some(("TemplateProcessing", o)) => Some(template_post_processor(o)?),
        Some((other, _)) => {
            return Err(unsupported(format!(
                "post-processor {other} (only BertProcessing and BERT-shaped TemplateProcessing)"
            )))
        }
    };

    let decoder = match component(root, "decoder")? {
        Some(("WordPiece", o)) => Decoder {
            prefix: get_str(o, "prefix")?.unwrap_or("##").to_owned(),
            cleanup: get_bool(o, "cleanup", true)?,
            suffix: String::new(),
        },
        Some((other, _)) => return Err(unsupported(format!("decoder {other} (only WordPiece)"))),
        None => return Err(unsupported("a tokenizer without decoder")),
    };

    let mut added = Vec::new();
    if let Some(list) = root.get("added_tokens") {
        let list = list
            .as_array()
            .ok_or_else(|| bad("added_tokens should be a list"))?;
        for t in list {
            let o = t
                .as_object()
                .ok_or_else(|| bad("added token should be an object"))?;
            let content =
                get_str(o, "content")?.ok_or_else(|| bad("added token without content"))?;
            let id = get_u32(o, "id")?.ok_or_else(|| bad("added token without id"))?;
            for flag in ["lstrip", "rstrip", "single_word", "normalized"] {
                if get_bool(o, flag, false)? {
                    return Err(unsupported(format!(
                        "added token {content:?} with {flag}=true"
                    )));
                }
            }
            added.push(AddedToken {
                content: content.to_owned(),
                id,
                special: get_bool(o, "special", false)?,
            });
        }
    }

    let mut tok = Tokenizer::new(
        vocab,
        model_config,
        normalizer,
        pre_tokenizer,
        added,
        post_processor,
        decoder,
    )?;

    if let Some(o) = settings_object(root, "truncation")? {
        if get_u64(o, "stride")?.unwrap_or(0) != 0 {
            return Err(unsupported("truncation with stride"));
        }
        if get_str(o, "direction")?.unwrap_or("Right") != "Right" {
            return Err(unsupported("truncation from the left"));
        }
        let strategy = get_str(o, "strategy")?.unwrap_or("LongestFirst");
        tok.truncation = Some(Truncation {
            max_length: get_u64(o, "max_length")?
                .ok_or_else(|| bad("truncation without max_length"))?
                as usize,
            strategy: strategy
                .parse::<TruncationStrategy>()
                .map_err(|_| bad(format!("truncation strategy {strategy}")))?,
        });
    }
    if let Some(o) = settings_object(root, "padding")? {
        if get_str(o, "direction")?.unwrap_or("Right") != "Right" {
            return Err(unsupported("padding on the left"));
        }
        let length = match o.get("strategy") {
            Some(Value::String(s)) if s == "BatchLongest" => PadLength::Longest,
            Some(Value::Object(f)) if f.contains_key("Fixed") => PadLength::Fixed(
                f["Fixed"]
                    .as_u64()
                    .ok_or_else(|| bad("padding Fixed length"))? as usize,
            ),
            other => return Err(bad(format!("padding strategy {other:?}"))),
        };
        tok.padding = Some(Padding {
            length,
            pad_to_multiple_of: get_u64(o, "pad_to_multiple_of")?.map(|n| n as usize),
            pad_id: get_u32(o, "pad_id")?.unwrap_or(0),
            pad_type_id: get_u32(o, "pad_type_id")?.unwrap_or(0),
            pad_token: get_str(o, "pad_token")?.unwrap_or("[PAD]").to_owned(),
        });
    }
    Ok(tok)
}

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
    let vocab: Map<String, Value> = tok
        .vocab
        .tokens()
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let added: Vec<Value> = tok
        .added_tokens()
        .iter()
        .map(|t| {
            json!({"id": t.id, "content": t.content, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": t.special})
        })
        .collect();
    let normalizer = tok.normalizer().map(|n| {
        json!({"type": "BertNormalizer", "clean_text": n.clean_text,
               "handle_chinese_chars": n.handle_chinese_chars,
               "strip_accents": n.strip_accents, "lowercase": n.lowercase})
    });
    let pre_tokenizer = match tok.pre_tokenizer() {
        PreTokenizer::Bert => json!({"type": "BertPreTokenizer"}),
        PreTokenizer::Whitespace => json!({"type": "WhitespaceSplit"}),
    };
    let post = tok.post_processor.as_ref().map(
        |p| json!({"type": "BertProcessing", "sep": [p.sep.0, p.sep.1], "cls": [p.cls.0, p.cls.1]}),
    );
    let truncation = tok.truncation.as_ref().map(|t| {
        let strategy = match t.strategy {
            TruncationStrategy::LongestFirst => "LongestFirst",
            TruncationStrategy::OnlyFirst => "OnlyFirst",
            TruncationStrategy::OnlySecond => "OnlySecond",
        };
        json!({"direction": "Right", "max_length": t.max_length, "strategy": strategy, "stride": 0})
    });
    let padding = tok.padding.as_ref().map(|p| {
        let strategy = match p.length {
            PadLength::Longest => json!("BatchLongest"),
            PadLength::Fixed(n) => json!({"Fixed": n}),
        };
        json!({"strategy": strategy, "direction": "Right", "pad_to_multiple_of": p.pad_to_multiple_of,
               "pad_id": p.pad_id, "pad_type_id": p.pad_type_id, "pad_token": p.pad_token})
    });
    let root = json!({
        "version": "1.0",
        "truncation": truncation,
        "padding": padding,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post,
        "decoder": {"type": "WordPiece", "prefix": tok.decoder.prefix, "cleanup": tok.decoder.cleanup},
        "model": {"type": "WordPiece", "unk_token": cfg.unk_token,
                  "continuing_subword_prefix": cfg.continuing_subword_prefix,
                  "max_input_chars_per_word": cfg.max_input_chars_per_word, "vocab": vocab},
    });
    serde_json::to_string_pretty(&root).map_err(|e| Error::Value(e.to_string()))
}
