//! Property tests for the loaders: arbitrary bytes as `vocab.txt`, arbitrary
//! JSON and mutated `tokenizer.json` files. A loader either refuses the input
//! with an error or gives a tokenizer that encodes and decodes anything
//! without a panic, with offsets inside the text.

mod common;

use common::cases;
use proptest::prelude::*;
use serde_json::{json, Value};

use wpiece::cancel::Cancel;
use wpiece::hf_json::{tokenizer_from_json, tokenizer_to_json};
use wpiece::model::Vocab;
use wpiece::normalizers::NormalizerConfig;
use wpiece::pipeline::{
    pad_batch, PadDirection, PadLength, Padding, Tokenizer, Truncation, TruncationDirection,
    TruncationStrategy,
};
use wpiece::pre_tokenizers::PreTokenizer;

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            0u64,
            1,
            2,
            3,
            100,
            101,
            102,
            u32::MAX as u64,
            1 << 32,
            1 << 40
        ])
        .prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        prop::sample::select(vec![
            "",
            "[PAD]",
            "[UNK]",
            "[CLS]",
            "[SEP]",
            "Right",
            "Left",
            "BatchLongest",
            "LongestFirst",
            "OnlySecond",
            "WordPiece",
            "BPE",
            "BertNormalizer",
            "BertPreTokenizer",
            "WhitespaceSplit",
            "TemplateProcessing",
            "A",
            "B",
            "##",
            "a",
        ])
        .prop_map(|s| json!(s)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A small valid tokenizer.json with truncation and padding.
fn base() -> Value {
    let vocab: Vec<String> = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "##a", "##b", "ab", ".", "中",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut tok = Tokenizer::bert_like(
        Vocab::new(vocab).unwrap(),
        Default::default(),
        Some(NormalizerConfig::default()),
        PreTokenizer::Bert,
        &["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    )
    .unwrap();
    tok.truncation = Some(Truncation {
        max_length: 8,
        strategy: TruncationStrategy::LongestFirst,
        stride: 2,
        direction: TruncationDirection::Left,
    });
    tok.padding = Some(Padding {
        length: PadLength::Fixed(10),
        direction: PadDirection::Left,
        pad_to_multiple_of: Some(4),
        pad_id: 0,
        pad_type_id: 0,
        pad_token: "[PAD]".into(),
    });
    serde_json::from_str(&tokenizer_to_json(&tok).unwrap()).unwrap()
}

/// Every path (object keys and array indices) in a JSON value.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                prefix.push(json!(k));
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(json!(i));
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn replace(v: &mut Value, path: &[Value], with: Value) {
    let mut node = v;
    for key in path {
        node = match key {
            Value::String(k) => &mut node[k.as_str()],
            Value::Number(i) => &mut node[i.as_u64().unwrap() as usize],
            _ => unreachable!(),
        };
    }
    *node = with;
}

/// Uses a loaded tokenizer every way a caller can; nothing may panic.
fn exercise(tok: &Tokenizer, texts: &[String]) {
    for t in texts {
        for pair in [None, Some("a b. 中")] {
            if let Ok(mut e) =
                tok.encode_with(t, pair, true, tok.truncation.as_ref(), Cancel::never())
            {
                let n =
                    (t.chars().count() as u32).max(pair.map_or(0, |p| p.chars().count() as u32));
                assert!(e.offsets.iter().all(|&(s, end)| s <= end && end <= n));
                let _ = pad_batch(std::slice::from_mut(&mut e), tok.padding.as_ref());
                let _ = tok.decode(&e.ids, true);
                let _ = tok.decode(&e.ids, false);
            }
        }
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let _ = tok.encode_batch(&refs, None, true);
    let _ = tok_to_json_roundtrip(tok);
}

fn tok_to_json_roundtrip(tok: &Tokenizer) -> Option<()> {
    let text = tokenizer_to_json(tok).ok()?;
    let again = tokenizer_from_json(&text).expect("a saved tokenizer loads again");
    assert_eq!(again.vocab.tokens(), tok.vocab.tokens());
    Some(())
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[ab.中 \\[\\]A-Z#]{0,30}", 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn vocab_txt_from_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if let Ok(v) = Vocab::from_vocab_txt(text) {
                prop_assert!(!v.is_empty());
            }
        }
    }

    #[test]
    fn tokenizer_json_from_any_json(v in value(), texts in texts()) {
        if let Ok(tok) = tokenizer_from_json(&v.to_string()) {
            exercise(&tok, &texts);
        }
    }

    #[test]
    fn tokenizer_json_with_one_field_replaced(
        at in any::<prop::sample::Index>(),
        with in value(),
        texts in texts(),
    ) {
        let mut v = base();
        let mut all = Vec::new();
        paths(&v, &mut Vec::new(), &mut all);
        let path = at.get(&all).clone();
        replace(&mut v, &path, with);
        if let Ok(tok) = tokenizer_from_json(&v.to_string()) {
            exercise(&tok, &texts);
        }
    }

    #[test]
    fn tokenizer_json_from_any_text(text in "\\PC{0,200}") {
        let _ = tokenizer_from_json(&text);
    }
}

#[test]
fn the_base_file_loads_and_round_trips() {
    let tok = tokenizer_from_json(&base().to_string()).unwrap();
    exercise(&tok, &["ab a.中 [MASK] b".to_owned()]);
}
