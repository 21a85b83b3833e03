//! The normalizers, pre-tokenizers and post-processors of a tokenizer.json:
//! read into wpiece's components (BERT's own taking the fast paths) and
//! written back as HF writes them.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::fields::{bad, component, fields, flag, required, text_field, unsupported};
use crate::error::Result;
use crate::model::Vocab;
use crate::normalizers::{NormalizerConfig, NormalizerStep};
use crate::pattern::{Pattern, RegexPattern};
use crate::pipeline::{Piece, PostProcessor, Roberta, SpecialTokens, Template, Tokenizer};
use crate::pre_tokenizers::{PreTokenizer, PreTokenizerStep, SplitBehavior};
use crate::splitter::{Chain, Splitter};

/// HF writes every flag; a missing or null one takes BERT's default.
#[derive(Serialize, Deserialize)]
struct BertNormalizerJson {
    clean_text: Option<bool>,
    handle_chinese_chars: Option<bool>,
    strip_accents: Option<bool>,
    lowercase: Option<bool>,
}

/// `BertProcessing`: `[token, id]` of each.
#[derive(Serialize, Deserialize)]
struct BertProcessingJson {
    sep: (String, u32),
    cls: (String, u32),
}

/// `RobertaProcessing` as HF writes it.
#[derive(Deserialize)]
struct RobertaProcessingJson {
    sep: (String, u32),
    cls: (String, u32),
    trim_offsets: Option<bool>,
    add_prefix_space: Option<bool>,
}

/// `TemplateProcessing` as HF writes it.
#[derive(Deserialize)]
struct TemplateJson {
    single: Vec<TemplatePiece>,
    pair: Vec<TemplatePiece>,
    special_tokens: Map<String, Value>,
}

#[derive(Deserialize)]
enum TemplatePiece {
    SpecialToken { id: String, type_id: u32 },
    Sequence { id: String, type_id: u32 },
}

#[derive(Deserialize)]
struct TemplateSpecialJson {
    ids: Vec<u32>,
    tokens: Vec<String>,
}

/// A `String` or `Regex` pattern (only the first is honoured).
#[derive(Deserialize)]
enum PatternJson {
    String(String),
    Regex(String),
}

const NORMALIZERS: &str = "Sequence, BertNormalizer, NFD, NFC, NFKD, NFKC, Lowercase, \
                           StripAccents, Strip, Prepend, and Replace with a string or a Regex \
                           that cannot match an empty string";
const PRE_TOKENIZERS: &str = "Sequence, BertPreTokenizer, Whitespace, WhitespaceSplit, \
                              Punctuation, Digits, Split, CharDelimiterSplit";

fn bert_normalizer(o: Value, key: &str) -> Result<NormalizerConfig> {
    let n: BertNormalizerJson = fields(o, key)?;
    Ok(NormalizerConfig {
        clean_text: required(n.clean_text, key, "clean_text")?,
        handle_chinese_chars: required(n.handle_chinese_chars, key, "handle_chinese_chars")?,
        strip_accents: n.strip_accents,
        lowercase: required(n.lowercase, key, "lowercase")?,
    })
}

/// A `Split` or `Replace` pattern: a non-empty string, or a regex
/// Oniguruma compiles.
fn pattern(o: &Value, component: &str, key: &str) -> Result<Pattern> {
    let p: PatternJson = fields(o.get("pattern").cloned().unwrap_or(Value::Null), key)?;
    match p {
        PatternJson::String(s) if !s.is_empty() => Ok(Pattern::Literal(s)),
        PatternJson::String(_) => Err(unsupported(format!("{component} with an empty pattern"))),
        PatternJson::Regex(r) => Ok(Pattern::Regex(RegexPattern::new(&r)?)),
    }
}

fn pattern_json(p: &Pattern) -> Value {
    match p {
        Pattern::Literal(s) => json!({"String": s}),
        Pattern::Regex(r) => json!({"Regex": r.source()}),
    }
}

/// The components (type and object) a `Sequence` lists under `list`.
fn sequence_items(o: &Value, list: &str, key: &str, what: &str) -> Result<Vec<(String, Value)>> {
    let Some(Value::Array(items)) = o.get(list) else {
        return Err(bad(format!("Sequence {what} needs a list of {list}")));
    };
    items
        .iter()
        .map(|item| component(Some(item.clone()), key)?.ok_or_else(|| bad(format!("null {what}"))))
        .collect()
}

/// The steps of a normalizer (a `Sequence` flattened), appended to `steps`.
fn normalizer_steps(kind: &str, o: Value, steps: &mut Vec<NormalizerStep>) -> Result<()> {
    let key = "normalizer";
    let step = match kind {
        "Sequence" => {
            for (kind, o) in sequence_items(&o, "normalizers", key, "normalizer")? {
                normalizer_steps(&kind, o, steps)?;
            }
            return Ok(());
        }
        "BertNormalizer" => NormalizerStep::Bert(bert_normalizer(o, key)?),
        "NFD" => NormalizerStep::Nfd,
        "NFC" => NormalizerStep::Nfc,
        "NFKD" => NormalizerStep::Nfkd,
        "NFKC" => NormalizerStep::Nfkc,
        "Lowercase" => NormalizerStep::Lowercase,
        "StripAccents" => NormalizerStep::StripAccents,
        "Strip" => NormalizerStep::Strip {
            left: flag(&o, "strip_left", true)?,
            right: flag(&o, "strip_right", true)?,
        },
        "Replace" => NormalizerStep::Replace {
            pattern: match pattern(&o, "normalizer Replace", key)? {
                // HF panics, in some pipelines, on the text an empty match
                // inserts (`a*` on "ba" before BertPreTokenizer): a regex
                // that may match empty is refused, any other is exact.
                Pattern::Regex(r) if r.may_match_empty() => {
                    return Err(unsupported(format!(
                        "normalizer Replace with a Regex pattern that may match an empty \
                         string ({:?}): HF panics on what its empty matches insert",
                        r.source()
                    )))
                }
                p => p,
            },
            content: text_field(&o, "content", "Replace")?,
        },
        "Prepend" => NormalizerStep::Prepend(text_field(&o, "prepend", "Prepend")?),
        other => {
            return Err(unsupported(format!(
                "normalizer {other} (supported: {NORMALIZERS})"
            )))
        }
    };
    steps.push(step);
    Ok(())
}

/// A split's behavior; `default` is what HF takes when the field is absent.
fn behavior(o: &Value, component: &str, default: Option<SplitBehavior>) -> Result<SplitBehavior> {
    match (o.get("behavior"), default) {
        (Some(Value::String(b)), _) => {
            SplitBehavior::from_name(b).ok_or_else(|| bad(format!("{component} behavior {b:?}")))
        }
        (None, Some(d)) => Ok(d),
        _ => Err(bad(format!("{component} needs a behavior"))),
    }
}

/// The steps of a pre-tokenizer (a `Sequence` flattened), appended to `steps`.
fn pre_tokenizer_steps(kind: &str, o: Value, steps: &mut Vec<PreTokenizerStep>) -> Result<()> {
    let key = "pre_tokenizer";
    let step = match kind {
        "Sequence" => {
            for (kind, o) in sequence_items(&o, "pretokenizers", key, "pre-tokenizer")? {
                pre_tokenizer_steps(&kind, o, steps)?;
            }
            return Ok(());
        }
        "BertPreTokenizer" => PreTokenizerStep::Bert,
        "Whitespace" => PreTokenizerStep::Whitespace,
        "WhitespaceSplit" => PreTokenizerStep::WhitespaceSplit,
        "Punctuation" => PreTokenizerStep::Punctuation(behavior(
            &o,
            "Punctuation",
            Some(SplitBehavior::Isolated),
        )?),
        "Digits" => PreTokenizerStep::Digits {
            individual: flag(&o, "individual_digits", false)?,
        },
        "Split" => PreTokenizerStep::Split {
            pattern: pattern(&o, "pre-tokenizer Split", key)?,
            behavior: behavior(&o, "Split", None)?,
            invert: flag(&o, "invert", false)?,
        },
        "CharDelimiterSplit" => {
            let d = text_field(&o, "delimiter", "CharDelimiterSplit")?;
            let mut chars = d.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => PreTokenizerStep::CharDelimiterSplit(c),
                _ => return Err(bad("CharDelimiterSplit delimiter should be one char")),
            }
        }
        other => {
            return Err(unsupported(format!(
                "pre-tokenizer {other} (supported: {PRE_TOKENIZERS})"
            )))
        }
    };
    steps.push(step);
    Ok(())
}

/// The BERT normalizer alone takes the fast paths; any other is a chain.
enum NormalizerRead {
    Bert(Option<NormalizerConfig>),
    Chain(Vec<NormalizerStep>),
}

fn read_normalizer(v: Option<Value>) -> Result<NormalizerRead> {
    match component(v, "normalizer")? {
        None => Ok(NormalizerRead::Bert(None)),
        Some((kind, o)) if kind == "BertNormalizer" => Ok(NormalizerRead::Bert(Some(
            bert_normalizer(o, "normalizer")?,
        ))),
        Some((kind, o)) => {
            let mut steps = Vec::new();
            normalizer_steps(&kind, o, &mut steps)?;
            Ok(NormalizerRead::Chain(steps))
        }
    }
}

/// BERT's and the whitespace pre-tokenizer take the fast paths; any other is a chain.
fn read_pre_tokenizer(
    v: Option<Value>,
) -> Result<std::result::Result<PreTokenizer, Vec<PreTokenizerStep>>> {
    match component(v, "pre_tokenizer")? {
        Some((kind, _)) if kind == "BertPreTokenizer" => Ok(Ok(PreTokenizer::Bert)),
        Some((kind, _)) if kind == "WhitespaceSplit" => Ok(Ok(PreTokenizer::Whitespace)),
        Some((kind, o)) => {
            let mut steps = Vec::new();
            pre_tokenizer_steps(&kind, o, &mut steps)?;
            Ok(Err(steps))
        }
        // No pre-tokenizer: the whole normalized text is one word, as in HF.
        None => Ok(Err(Vec::new())),
    }
}

/// The splitter of the normalizer and pre-tokenizer: BERT's (or none, or
/// whitespace splitting) for the fast paths, otherwise a chain.
pub(super) fn read_pipeline(
    normalizer: Option<Value>,
    pre_tokenizer: Option<Value>,
) -> Result<Splitter> {
    let (normalizer, pre_tokenizer) = (
        read_normalizer(normalizer)?,
        read_pre_tokenizer(pre_tokenizer)?,
    );
    Ok(match (normalizer, pre_tokenizer) {
        (NormalizerRead::Bert(n), Ok(p)) => Splitter::new(n, p),
        (n, p) => {
            let normalizers = match n {
                NormalizerRead::Bert(n) => n.into_iter().map(NormalizerStep::Bert).collect(),
                NormalizerRead::Chain(steps) => steps,
            };
            let pre_tokenizers = match p {
                Ok(PreTokenizer::Bert) => vec![PreTokenizerStep::Bert],
                Ok(PreTokenizer::Whitespace) => vec![PreTokenizerStep::WhitespaceSplit],
                Err(steps) => steps,
            };
            let chain = Chain {
                normalizers,
                pre_tokenizers,
            };
            Splitter::from_chain(chain)
        }
    })
}

pub(super) fn read_post_processor(
    v: Option<Value>,
    vocab: &Vocab,
) -> Result<Option<PostProcessor>> {
    match component(v, "post_processor")? {
        None => Ok(None),
        // What recent versions of `tokenizers` may write around one processor.
        // Several in a row add special tokens twice (HF panics then).
        Some((kind, o)) if kind == "Sequence" => {
            let mut steps = sequence_items(&o, "processors", "post_processor", "post-processor")?;
            match steps.len() {
                1 => {
                    let (_, only) = steps.remove(0);
                    read_post_processor(Some(only), vocab)
                }
                // An empty one frames overflowing parts apart from no
                // post-processor in HF (their sequence ids): not modelled.
                n => Err(unsupported(format!(
                    "post-processor Sequence of {n} processors (only of one)"
                ))),
            }
        }
        Some((kind, o)) if kind == "BertProcessing" => {
            let p: BertProcessingJson = fields(o, "post_processor")?;
            Ok(Some(PostProcessor::Bert {
                cls: p.cls,
                sep: p.sep,
            }))
        }
        Some((kind, o)) if kind == "RobertaProcessing" => {
            let p: RobertaProcessingJson = fields(o, "post_processor")?;
            Ok(Some(PostProcessor::Roberta(Roberta::new(
                p.cls,
                p.sep,
                p.trim_offsets.unwrap_or(true),
                p.add_prefix_space.unwrap_or(true),
                vocab,
            ))))
        }
        Some((kind, o)) if kind == "TemplateProcessing" => {
            template(fields(o, "post_processor")?).map(|t| Some(PostProcessor::Template(t)))
        }
        Some((kind, _)) => Err(unsupported(format!(
            "post-processor {kind} (only BertProcessing, RobertaProcessing and \
             TemplateProcessing, alone or as a Sequence's one processor)"
        ))),
    }
}

/// A `TemplateProcessing`: its templates and special tokens, checked so
/// that encoding can never meet a name it does not know.
fn template(t: TemplateJson) -> Result<Template> {
    let mut special_tokens = Vec::with_capacity(t.special_tokens.len());
    for (name, entry) in t.special_tokens {
        let s: TemplateSpecialJson =
            serde_json::from_value(entry).map_err(|e| bad(format!("special token {name}: {e}")))?;
        if s.ids.len() != s.tokens.len() {
            return Err(bad(format!(
                "special token {name} has {} ids but {} tokens",
                s.ids.len(),
                s.tokens.len()
            )));
        }
        special_tokens.push(SpecialTokens {
            name,
            ids: s.ids,
            tokens: s.tokens,
        });
    }
    let pieces = |list: Vec<TemplatePiece>, single: bool| -> Result<Vec<Piece>> {
        list.into_iter()
            .map(|p| match p {
                TemplatePiece::Sequence { id, type_id } => {
                    let second = match id.as_str() {
                        "A" => false,
                        "B" if !single => true,
                        _ => return Err(bad(format!("template sequence {id:?}"))),
                    };
                    Ok(Piece::Sequence { second, type_id })
                }
                TemplatePiece::SpecialToken { id, type_id } => {
                    if !special_tokens.iter().any(|s| s.name == id) {
                        return Err(bad(format!("template special token {id} is not defined")));
                    }
                    Ok(Piece::Special { name: id, type_id })
                }
            })
            .collect()
    };
    let single = pieces(t.single, true)?;
    let pair = pieces(t.pair, false)?;
    Ok(Template {
        single,
        pair,
        special_tokens,
    })
}

pub(super) fn normalizer_json(tok: &Tokenizer) -> Option<Value> {
    match tok.splitter().chain() {
        Some(chain) => normalizers_json(&chain.normalizers),
        None => tok.normalizer().map(bert_normalizer_json),
    }
}

pub(super) fn pre_tokenizer_json(tok: &Tokenizer) -> Value {
    match tok.splitter().chain() {
        Some(chain) => pre_tokenizers_json(&chain.pre_tokenizers),
        None => match tok.pre_tokenizer() {
            PreTokenizer::Bert => json!({"type": "BertPreTokenizer"}),
            PreTokenizer::Whitespace => json!({"type": "WhitespaceSplit"}),
        },
    }
}

fn bert_normalizer_json(n: &NormalizerConfig) -> Value {
    json!({
        "type": "BertNormalizer",
        "clean_text": n.clean_text,
        "handle_chinese_chars": n.handle_chinese_chars,
        "strip_accents": n.strip_accents,
        "lowercase": n.lowercase,
    })
}

fn normalizers_json(steps: &[NormalizerStep]) -> Option<Value> {
    let one = |s: &NormalizerStep| match s {
        NormalizerStep::Bert(n) => bert_normalizer_json(n),
        NormalizerStep::Nfd => json!({"type": "NFD"}),
        NormalizerStep::Nfc => json!({"type": "NFC"}),
        NormalizerStep::Nfkd => json!({"type": "NFKD"}),
        NormalizerStep::Nfkc => json!({"type": "NFKC"}),
        NormalizerStep::Lowercase => json!({"type": "Lowercase"}),
        NormalizerStep::StripAccents => json!({"type": "StripAccents"}),
        NormalizerStep::Strip { left, right } => {
            json!({"type": "Strip", "strip_left": left, "strip_right": right})
        }
        NormalizerStep::Replace { pattern, content } => {
            json!({"type": "Replace", "pattern": pattern_json(pattern), "content": content})
        }
        NormalizerStep::Prepend(p) => json!({"type": "Prepend", "prepend": p}),
    };
    match steps {
        [] => None,
        [s] => Some(one(s)),
        _ => Some(
            json!({"type": "Sequence", "normalizers": steps.iter().map(one).collect::<Vec<_>>()}),
        ),
    }
}

fn pre_tokenizers_json(steps: &[PreTokenizerStep]) -> Value {
    if steps.is_empty() {
        return Value::Null;
    }
    let one = |s: &PreTokenizerStep| match s {
        PreTokenizerStep::Bert => json!({"type": "BertPreTokenizer"}),
        PreTokenizerStep::Whitespace => json!({"type": "Whitespace"}),
        PreTokenizerStep::WhitespaceSplit => json!({"type": "WhitespaceSplit"}),
        PreTokenizerStep::Punctuation(b) => json!({"type": "Punctuation", "behavior": b.name()}),
        PreTokenizerStep::Digits { individual } => {
            json!({"type": "Digits", "individual_digits": individual})
        }
        PreTokenizerStep::Split {
            pattern,
            behavior,
            invert,
        } => json!({
            "type": "Split",
            "pattern": pattern_json(pattern),
            "behavior": behavior.name(),
            "invert": invert,
        }),
        PreTokenizerStep::CharDelimiterSplit(c) => {
            json!({"type": "CharDelimiterSplit", "delimiter": c.to_string()})
        }
    };
    match steps {
        [s] => one(s),
        _ => {
            json!({"type": "Sequence", "pretokenizers": steps.iter().map(one).collect::<Vec<_>>()})
        }
    }
}

pub(super) fn post_processor_json(p: &PostProcessor) -> Value {
    match p {
        PostProcessor::Bert { cls, sep } => {
            json!({"type": "BertProcessing", "sep": sep, "cls": cls})
        }
        PostProcessor::Roberta(r) => json!({
            "type": "RobertaProcessing",
            "sep": r.sep,
            "cls": r.cls,
            "trim_offsets": r.trim_offsets,
            "add_prefix_space": r.add_prefix_space,
        }),
        PostProcessor::Template(t) => {
            let pieces = |list: &[Piece]| -> Vec<Value> {
                list.iter()
                    .map(|p| match p {
                        Piece::Sequence { second, type_id } => json!({"Sequence": {
                            "id": if *second { "B" } else { "A" },
                            "type_id": type_id,
                        }}),
                        Piece::Special { name, type_id } => {
                            json!({"SpecialToken": {"id": name, "type_id": type_id}})
                        }
                    })
                    .collect()
            };
            let special: Map<String, Value> = t
                .special_tokens
                .iter()
                .map(|s| {
                    let v = json!({"id": s.name, "ids": s.ids, "tokens": s.tokens});
                    (s.name.clone(), v)
                })
                .collect();
            json!({
                "type": "TemplateProcessing",
                "single": pieces(&t.single),
                "pair": pieces(&t.pair),
                "special_tokens": special,
            })
        }
    }
}
