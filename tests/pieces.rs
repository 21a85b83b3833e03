//! Long texts in pieces against the whole text.
//!
//! Counting and encoding cut a long text into pieces where the splitter
//! says it splits anyway (`src/splitter/pieces.rs`), so buffers stay small
//! and Ctrl-C is looked for between pieces. The claim: the pieces' words
//! (and tokens, offsets, word ids) are exactly the whole text's. These tests
//! cut random texts into pieces as small as one byte, under random
//! normalizer and pre-tokenizer sequences read from tokenizer.json, so every
//! cut the splitter allows is exercised, beside chars that compose,
//! reorder, change case or width across it.

mod common;

use common::cases;
use proptest::prelude::*;
use serde_json::{json, Value};

use wpiece::cancel::Cancel;
use wpiece::encode::FastPaths;
use wpiece::hf_json::tokenizer_from_json;
use wpiece::pipeline::Tokenizer;
use wpiece::splitter::{Cuts, SplitBuffers};

/// Chars that act across neighbours: combining marks in and out of
/// canonical order, precomposed and compatibility forms, case pairs with
/// contextual forms, CJK in and out of BERT's ranges, every kind of
/// whitespace, controls, punctuation and digits.
const ALPHABET: &[char] = &[
    'a', 'B', 'e', 'é', '\u{301}', '\u{323}', '\u{338}', 'Σ', 'ß', 'İ', 'ﬁ', '①', '½', ' ', ' ',
    '\t', '\n', '\r', '\u{3000}', '\u{a0}', '\u{2028}', '東', '京', '𠀀', 'ア', '한', ',', '!',
    '«', '#', '_', '1', '٣', '\u{7}', '\u{0}', '\u{fffd}', '\u{200d}', '\u{ad}',
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..60)
        .prop_map(|chars| chars.into_iter().collect())
}

fn bert_normalizer() -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<Option<bool>>(),
        any::<bool>(),
    )
        .prop_map(
            |(clean_text, handle_chinese_chars, strip_accents, lowercase)| {
                json!({"type": "BertNormalizer", "clean_text": clean_text,
                   "handle_chinese_chars": handle_chinese_chars,
                   "strip_accents": strip_accents, "lowercase": lowercase})
            },
        )
}

/// BERT's own splitter (its normalizer or none, its pre-tokenizer or
/// whitespace splitting), or a chain of others.
fn pipeline() -> impl Strategy<Value = (Vec<Value>, Vec<Value>)> {
    let bert = (
        prop::collection::vec(bert_normalizer(), 0..2),
        prop::sample::select(vec![
            json!({"type": "BertPreTokenizer"}),
            json!({"type": "Whitespace"}),
            json!({"type": "WhitespaceSplit"}),
        ]),
    )
        .prop_map(|(n, p)| (n, vec![p]));
    let chain = (
        prop::collection::vec(normalizer(), 1..4),
        prop::collection::vec(pre_tokenizer(), 1..3),
    );
    prop_oneof![bert, chain]
}

fn normalizer() -> impl Strategy<Value = Value> {
    prop_oneof![
        bert_normalizer(),
        Just(json!({"type": "NFC"})),
        Just(json!({"type": "NFD"})),
        Just(json!({"type": "NFKC"})),
        Just(json!({"type": "NFKD"})),
        Just(json!({"type": "Lowercase"})),
        Just(json!({"type": "StripAccents"})),
        Just(json!({"type": "Replace", "pattern": {"String": "e"}, "content": "E x"})),
        Just(json!({"type": "Replace", "pattern": {"String": " "}, "content": "_"})),
        Just(json!({"type": "Replace", "pattern": {"Regex": "\\d"}, "content": "#"})),
        Just(json!({"type": "Prepend", "prepend": "▁"})),
        Just(json!({"type": "Strip", "strip_left": true, "strip_right": true})),
    ]
}

fn pre_tokenizer() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "BertPreTokenizer"})),
        Just(json!({"type": "Whitespace"})),
        Just(json!({"type": "WhitespaceSplit"})),
        Just(json!({"type": "Digits", "individual_digits": true})),
        Just(json!({"type": "Punctuation", "behavior": "Isolated"})),
        Just(json!({"type": "Split", "pattern": {"String": ","},
                    "behavior": "MergedWithNext", "invert": false})),
        Just(json!({"type": "CharDelimiterSplit", "delimiter": "a"})),
    ]
}

/// The test vocab's tokenizer with these normalizers and pre-tokenizers.
fn tokenizer(normalizers: Vec<Value>, pre_tokenizers: Vec<Value>) -> Tokenizer {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tokenizer.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["normalizer"] = match normalizers.len() {
        0 => Value::Null,
        1 => normalizers[0].clone(),
        _ => json!({"type": "Sequence", "normalizers": normalizers}),
    };
    v["pre_tokenizer"] = match pre_tokenizers.len() {
        1 => pre_tokenizers[0].clone(),
        _ => json!({"type": "Sequence", "pretokenizers": pre_tokenizers}),
    };
    v["truncation"] = Value::Null;
    v["padding"] = Value::Null;
    tokenizer_from_json(&v.to_string()).unwrap()
}

fn words(tok: &Tokenizer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let splitter = tok.splitter();
    splitter.words_general(text, &mut SplitBuffers::default(), |w| out.push(w.into()));
    out
}

/// Ids, char offsets, word ids and shown strings of one text.
fn encode(tok: &Tokenizer, text: &str) -> impl PartialEq + std::fmt::Debug {
    let e = tok.encode_sequence(text, 0, Cancel::never()).unwrap();
    (e.ids, e.offsets, e.word_ids, e.surfaces)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(400), ..ProptestConfig::default() })]

    #[test]
    fn pieces_split_and_encode_as_the_whole_text(
        (normalizers, pre_tokenizers) in pipeline(),
        text in text(),
        piece in 1usize..9,
    ) {
        let tok = tokenizer(normalizers, pre_tokenizers);
        let cuts = tok.splitter().cuts();
        let whole = words(&tok, &text);
        let mut pieced = Vec::new();
        for (_, p) in cuts.pieces(&text, piece) {
            pieced.extend(words(&tok, p));
        }
        prop_assert_eq!(&pieced, &whole, "words, cut as {:?}", cuts);
        let mut in_pieces = tok.clone();
        in_pieces.set_fast_paths(FastPaths { pieces: piece, ..FastPaths::ALL });
        let mut whole_text = tok.clone();
        whole_text.set_fast_paths(FastPaths { pieces: usize::MAX, ..FastPaths::ALL });
        prop_assert_eq!(encode(&in_pieces, &text), encode(&whole_text, &text));
    }
}

#[test]
fn cuts_are_allowed_where_proven_and_nowhere_else() {
    let tok = |n: Vec<Value>, p: Vec<Value>| tokenizer(n, p).splitter().cuts();
    let bert = json!({"type": "BertNormalizer", "clean_text": true,
                      "handle_chinese_chars": true, "strip_accents": null, "lowercase": true});
    let both = Cuts {
        after_whitespace: true,
        before_cjk: true,
    };
    assert_eq!(
        tok(
            vec![bert.clone()],
            vec![json!({"type": "BertPreTokenizer"})]
        ),
        both
    );
    let chain = tok(
        vec![json!({"type": "NFKC"}), json!({"type": "Lowercase"})],
        vec![
            json!({"type": "WhitespaceSplit"}),
            json!({"type": "Digits", "individual_digits": true}),
        ],
    );
    assert!(chain.after_whitespace && !chain.before_cjk);
    for whole_text in [
        json!({"type": "Prepend", "prepend": "▁"}),
        json!({"type": "Strip", "strip_left": true, "strip_right": true}),
        json!({"type": "Replace", "pattern": {"Regex": "\\d"}, "content": "#"}),
        json!({"type": "Replace", "pattern": {"String": " "}, "content": "_"}),
    ] {
        let cuts = tok(
            vec![json!({"type": "NFC"}), whole_text.clone()],
            vec![json!({"type": "Whitespace"})],
        );
        assert_eq!(cuts, Cuts::NONE, "{whole_text}");
    }
    // The first pre-tokenizer must split at whitespace.
    let digits_first = tok(
        vec![json!({"type": "NFC"})],
        vec![
            json!({"type": "Digits", "individual_digits": true}),
            json!({"type": "Whitespace"}),
        ],
    );
    assert_eq!(digits_first, Cuts::NONE);
}

#[test]
fn a_long_text_encodes_in_pieces_as_a_whole() {
    // Long enough for the default piece size, with cuts of both kinds and
    // words straddling every piece boundary.
    let unit = "Ünïcödé wörds, 東京大学 and ascii text\n";
    let text: String = unit.repeat(3 * (256 << 10) / unit.len());
    let base = tokenizer(
        vec![
            json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                    "strip_accents": null, "lowercase": true}),
        ],
        vec![json!({"type": "BertPreTokenizer"})],
    );
    let mut whole = base.clone();
    whole.set_fast_paths(FastPaths {
        pieces: usize::MAX,
        ..FastPaths::ALL
    });
    assert_eq!(encode(&base, &text), encode(&whole, &text));
    let cjk = "東京大学日本語".repeat(100_000);
    assert_eq!(encode(&base, &cjk), encode(&whole, &cjk));
}

#[test]
fn added_tokens_keep_cuts_out_of_their_matches() {
    use wpiece::pipeline::AddedToken;
    let token = |content: &str, single_word: bool| AddedToken {
        content: content.into(),
        single_word,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: false,
    };
    let base = tokenizer(
        vec![
            json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                    "strip_accents": null, "lowercase": true}),
        ],
        vec![json!({"type": "BertPreTokenizer"})],
    );
    // A match holding an ideograph, a single word before one, and a match
    // stripping the whitespace a cut would follow.
    let sets = [
        vec![token("a中", false)],
        vec![token("zzq", true)],
        vec![AddedToken {
            lstrip: true,
            ..token("<m>", false)
        }],
    ];
    for tokens in sets {
        let (tok, _) = base.with_added_tokens(tokens.clone()).unwrap();
        let mut whole = tok.clone();
        whole.set_fast_paths(FastPaths {
            pieces: usize::MAX,
            ..FastPaths::ALL
        });
        for piece in [1, 2, 5] {
            let mut in_pieces = tok.clone();
            in_pieces.set_fast_paths(FastPaths {
                pieces: piece,
                ..FastPaths::ALL
            });
            for text in ["xa中 zzq中", "zzq中zzq 中", "x  <m> y <m>中"] {
                let (got, want) = (encode(&in_pieces, text), encode(&whole, text));
                assert_eq!(got, want, "{tokens:?} {text:?} pieces of {piece}");
            }
        }
    }
}
