//! Every fast path of the encoder against the general path.
//!
//! The contract (`src/encode/mod.rs`): a fast path either declines with
//! nothing written, or writes exactly what the general path writes. Each
//! test encodes the same texts with every combination of `FastPaths` and
//! compares ids and offsets with `FastPaths::NONE` (added tokens, normalize,
//! pre-tokenize, trie; no cache, no ASCII pass, texts whole), twice over so the second
//! pass runs on warm caches, one text at a time and as flat batches.

mod common;

use common::{bert_uncased, cases};
use proptest::prelude::*;

use wpiece::cancel::Cancel;
use wpiece::decoder::Decoder;
use wpiece::encode::FastPaths;
use wpiece::hf_json::tokenizer_from_json;
use wpiece::model::{UnknownPolicy, Vocab, WordPieceConfig};
use wpiece::normalizers::{NormalizerConfig, NormalizerStep};
use wpiece::pattern::{Pattern, RegexPattern};
use wpiece::pipeline::{AddedToken, Tokenizer};
use wpiece::pre_tokenizers::{PreTokenizer, PreTokenizerStep, SplitBehavior};
use wpiece::splitter::{Chain, Splitter};

fn every_path_set() -> Vec<FastPaths> {
    (0..8)
        .map(|bits| FastPaths {
            ascii: bits & 1 != 0,
            word_cache: bits & 2 != 0,
            words_from_ids: bits & 4 != 0,
            // Texts in pieces, batches in parts: every size with each path set.
            pieces: [usize::MAX, 1, 7][bits % 3],
            parts: [usize::MAX, 1, 300][(bits / 2) % 3],
        })
        .collect()
}

/// The ids, char offsets, word ids and shown strings of one text.
type Sequence = (
    Vec<u32>,
    Vec<(u32, u32)>,
    Vec<Option<u32>>,
    Vec<(usize, Box<str>)>,
);

/// Each text's output, one at a time and as flat batches, twice over.
#[derive(Debug, PartialEq)]
struct Run {
    one_at_a_time: Vec<Sequence>,
    flat_ids: Vec<u32>,
    flat_offsets: Vec<u32>,
    flat_rows: Vec<usize>,
    flat_words: Vec<u32>,
    flat_ids_only: Vec<u32>,
}

fn run(tok: &Tokenizer, texts: &[&str]) -> Run {
    let mut one_at_a_time = Vec::new();
    for _ in 0..2 {
        for t in texts {
            let e = tok.encode_sequence(t, 0, Cancel::never()).unwrap();
            one_at_a_time.push((e.ids, e.offsets, e.word_ids, e.surfaces));
        }
    }
    let mut flat_ids = Vec::new();
    let mut flat_offsets = Vec::new();
    let mut flat_rows = Vec::new();
    let mut flat_ids_only = Vec::new();
    let mut flat_words = Vec::new();
    for _ in 0..2 {
        let f = tok
            .encode_batch_flat(texts, true, None, true, true, Cancel::never())
            .unwrap();
        flat_ids.extend(f.ids);
        flat_offsets.extend(f.offsets);
        flat_rows.extend(f.rows);
        flat_words.extend(f.words);
        let f = tok
            .encode_batch_flat(texts, false, None, false, false, Cancel::never())
            .unwrap();
        flat_ids_only.extend(f.ids);
    }
    Run {
        one_at_a_time,
        flat_ids,
        flat_offsets,
        flat_rows,
        flat_words,
        flat_ids_only,
    }
}

/// Asserts that every combination of fast paths gives the general path's
/// output; returns a description of the first difference otherwise.
fn check_all_paths(tok: &Tokenizer, texts: &[&str]) -> Result<(), String> {
    let mut general = tok.clone();
    general.set_fast_paths(FastPaths::NONE);
    let expected = run(&general, texts);
    // Without offsets the general path keeps no sources: the same ids.
    let plain = general.encode_batch_flat(texts, true, None, false, false, Cancel::never());
    if plain.unwrap().ids.repeat(2) != expected.flat_ids {
        return Err("the general path's ids differ without offsets".into());
    }
    for paths in every_path_set() {
        let mut fast = tok.clone();
        fast.set_fast_paths(paths);
        let got = run(&fast, texts);
        if got != expected {
            let n = texts.len();
            let diff = (0..2 * n)
                .find(|&k| got.one_at_a_time[k] != expected.one_at_a_time[k])
                .map(|k| {
                    format!(
                        "text {:?}: {:?} vs general {:?}",
                        texts[k % n],
                        got.one_at_a_time[k],
                        expected.one_at_a_time[k]
                    )
                })
                .unwrap_or_else(|| "flat batches differ".into());
            return Err(format!("{paths:?}: {diff}"));
        }
    }
    Ok(())
}

/// The uncased tokenizer.json with another normalizer and pre-tokenizer
/// (JSON as HF saves them).
fn with_pipeline(normalizer: serde_json::Value, pre_tokenizer: serde_json::Value) -> Tokenizer {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tokenizer.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["normalizer"] = normalizer;
    json["pre_tokenizer"] = pre_tokenizer;
    let mut tok = tokenizer_from_json(&json.to_string()).unwrap();
    tok.truncation = None;
    tok.padding = None;
    tok
}

/// Chains of HF's other normalizers and pre-tokenizers: each has the ASCII
/// fast path when every step acts on chars alone (a table of word bytes,
/// dropped bytes, isolated bytes and runs of symbols), and none otherwise.
fn chain_variants() -> Vec<(&'static str, Tokenizer, bool)> {
    use serde_json::json;
    let seq_n = |steps: serde_json::Value| json!({"type": "Sequence", "normalizers": steps});
    let seq_p = |steps: serde_json::Value| json!({"type": "Sequence", "pretokenizers": steps});
    let bert_normalizer = json!({"type": "BertNormalizer", "clean_text": true,
        "handle_chinese_chars": true, "strip_accents": null, "lowercase": true});
    let replace = |from: &str, to: &str| json!({"type": "Replace", "pattern": {"String": from}, "content": to});
    vec![
        (
            "BERT's in sequences",
            with_pipeline(
                seq_n(json!([bert_normalizer])),
                seq_p(json!([{"type": "BertPreTokenizer"}])),
            ),
            true,
        ),
        (
            "NFD, Lowercase, StripAccents; Whitespace",
            with_pipeline(
                seq_n(json!([{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}])),
                json!({"type": "Whitespace"}),
            ),
            true,
        ),
        (
            "NFKC; contiguous punctuation, single digits",
            with_pipeline(
                seq_n(json!([{"type": "NFKC"}])),
                seq_p(json!([{"type": "WhitespaceSplit"},
                    {"type": "Punctuation", "behavior": "Contiguous"},
                    {"type": "Digits", "individual_digits": true}])),
            ),
            true,
        ),
        (
            "replaced chars, three kinds of runs",
            with_pipeline(
                seq_n(
                    json!([replace("x", "y"), replace("qu", "kw"), replace("#", "é"),
                    {"type": "Lowercase"}]),
                ),
                seq_p(json!([{"type": "Whitespace"},
                    {"type": "Digits", "individual_digits": false}])),
            ),
            true,
        ),
        (
            // The added token holds what a punctuation char is rewritten to.
            "a rewritten apostrophe and an added token",
            with_pipeline(
                seq_n(json!([bert_normalizer, replace("`", "'")])),
                json!({"type": "BertPreTokenizer"}),
            )
            .with_added_tokens(vec![AddedToken::new("'s", false)])
            .unwrap()
            .0,
            true,
        ),
        (
            // Stretches between spaces do not normalize on their own.
            "a pair across a space replaced",
            with_pipeline(
                seq_n(json!([replace("e t", "E_T")])),
                json!({"type": "WhitespaceSplit"}),
            ),
            true,
        ),
        (
            "no normalizer; a delimiter, punctuation removed",
            with_pipeline(
                serde_json::Value::Null,
                seq_p(json!([{"type": "CharDelimiterSplit", "delimiter": "-"},
                    {"type": "Punctuation", "behavior": "Removed"}])),
            ),
            true,
        ),
        (
            "words holding spaces",
            with_pipeline(
                seq_n(json!([{"type": "Lowercase"}])),
                json!({"type": "Punctuation", "behavior": "Isolated"}),
            ),
            true,
        ),
        (
            "regex Replace of whitespace runs, regex Split of digit runs",
            with_pipeline(
                seq_n(
                    json!([{"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
                    {"type": "Lowercase"}]),
                ),
                seq_p(json!([{"type": "Split", "pattern": {"Regex": "[0-9]+"},
                    "behavior": "Isolated", "invert": false}, {"type": "BertPreTokenizer"}])),
            ),
            true,
        ),
        (
            // Runs of letters or punctuation become one char: not per
            // char, so declined.
            "regex Replace of letter and punctuation runs",
            with_pipeline(
                seq_n(
                    json!([{"type": "Replace", "pattern": {"Regex": "o+"}, "content": "0"},
                    {"type": "Replace", "pattern": {"Regex": "[!?]+"}, "content": "?"}]),
                ),
                json!({"type": "BertPreTokenizer"}),
            ),
            true,
        ),
        (
            "Strip and a regex Split: no table",
            with_pipeline(
                seq_n(
                    json!([{"type": "Strip", "strip_left": true, "strip_right": true},
                    {"type": "Lowercase"}]),
                ),
                seq_p(json!([{"type": "Split", "pattern": {"Regex": "[0-9]+"},
                    "behavior": "Isolated", "invert": false}, {"type": "WhitespaceSplit"}])),
            ),
            false,
        ),
    ]
}

#[test]
fn chains_have_the_ascii_table_when_each_step_acts_on_chars_alone() {
    for (name, tok, has_table) in chain_variants() {
        let splitter = tok.splitter();
        assert!(splitter.chain().is_some(), "{name}");
        assert_eq!(splitter.ascii_classes().is_some(), has_table, "{name}");
    }
}

/// The same vocabulary under other settings: cased, no normalizer,
/// whitespace words, an end-of-word suffix, unknown chars, and chains.
fn variants() -> Vec<(&'static str, Tokenizer)> {
    let base = bert_uncased();
    let model = base.model().config.clone();
    let cased = NormalizerConfig {
        lowercase: false,
        strip_accents: Some(false),
        ..NormalizerConfig::default()
    };
    let no_cjk = NormalizerConfig {
        handle_chinese_chars: false,
        clean_text: false,
        ..NormalizerConfig::default()
    };
    let suffixed = WordPieceConfig {
        end_of_word_suffix: "</w>".into(),
        ..model.clone()
    };
    let unknown_char = WordPieceConfig {
        unknown: UnknownPolicy::Char,
        max_input_chars_per_word: 12,
        ..model.clone()
    };
    let n = base.normalizer().cloned();
    let with = |m: &WordPieceConfig, n: Option<NormalizerConfig>, p| {
        base.with_settings(m.clone(), n, p).unwrap()
    };
    vec![
        ("bert-base-uncased", base.clone()),
        ("cased", with(&model, Some(cased), PreTokenizer::Bert)),
        (
            "no cleaning, no CJK",
            with(&model, Some(no_cjk), PreTokenizer::Bert),
        ),
        ("no normalizer", with(&model, None, PreTokenizer::Bert)),
        (
            "whitespace words",
            with(&model, n.clone(), PreTokenizer::Whitespace),
        ),
        (
            "end-of-word suffix",
            with(&suffixed, n.clone(), PreTokenizer::Bert),
        ),
        ("unknown chars", with(&unknown_char, n, PreTokenizer::Bert)),
    ]
    .into_iter()
    .chain(
        chain_variants()
            .into_iter()
            .map(|(name, tok, _)| (name, tok)),
    )
    .chain([("added tokens", with_added_tokens(&base))])
    .collect()
}

/// BERT with tokens a user adds (`add_tokens`: normalized, so matched
/// whatever their case) and raw ones, one matched only as a whole word.
fn with_added_tokens(base: &Tokenizer) -> Tokenizer {
    let mut raw = AddedToken::new("<URL>", false);
    raw.normalized = false;
    let mut single = AddedToken::new("e-mail", false);
    single.single_word = true;
    let tokens = vec![
        AddedToken::new("covid", false),
        raw,
        single,
        AddedToken::new("Hello", true),
    ];
    base.with_added_tokens(tokens).unwrap().0
}

/// Texts that sit on every edge the fast paths have: word lengths around
/// the cache key size (15/16 bytes, and the 31/32 of an old chunk cache),
/// many pieces per word, words over 100 chars, controls that cleaning drops,
/// added tokens glued to words, non-ASCII whitespace and punctuation,
/// combining marks, CJK, lone prefixes, empty texts, and a byte the ASCII
/// pass declines after many words.
fn adversarial_texts() -> Vec<String> {
    let mut t: Vec<String> = [
        "",
        " ",
        "\t\n\r ",
        "hello world",
        "Hello, World! (see: \"quoted\") [CLS] x[SEP]y [MASK]",
        "[CLS][CLS]  [UNK]unknown [PAD]",
        "a\u{0}b c\u{1}d \u{7f}e \u{fffd}f \u{200b}g",
        "tab\there new\nline cr\rlf\r\n",
        "caf\u{e9} cafe\u{301} na\u{ef}ve \u{c5}ngstr\u{f6}m \u{df}",
        "\u{4e2d}\u{6587}\u{5b57} mixed\u{4e2d}text \u{3000}ideographic\u{3000}space",
        "nbsp\u{a0}sep line\u{2028}sep para\u{2029}sep",
        "\u{bf}Qu\u{e9}? \u{2014}dash\u{2014} \u{201c}quotes\u{201d}",
        "## ##a a## #a# @@ @@b",
        "emoji \u{1f600}\u{1f600} flag \u{1f1eb}\u{1f1f7} zwj \u{1f469}\u{200d}\u{1f4bb}",
        "UPPER lower MiXeD 123 4.56 7,890",
        "fifteen-bytes!! sixteen-bytes!!! thirty-one-bytes-long-chunk-here thirty-two-bytes-long-chunk-here!",
        "abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq",
        "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
        "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p",
        "x.y.z.w.v.u.t.s.r.q.p.o.n.m.l.k.j.i",
        "COVID covid discovid CoViD-19 <URL> <url> e-mail e-mails hello HELLO",
        "it`s it's its `s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    t.push("a".repeat(100));
    t.push("a".repeat(101));
    t.push(format!("{} {}", "ab".repeat(60), "é".repeat(101)));
    t.push("word ".repeat(200));
    t.push("\u{e9}".repeat(40));
    // ASCII declines after a whole batch of words has been written.
    t.push(format!("{}\u{1}tail", "some words ".repeat(40)));
    t.push(format!("{}[CLS] tail", "more, words ".repeat(40)));
    t
}

fn real_texts() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/en_fixture.txt"
    ))
    .unwrap();
    // Lines, and a few paragraphs joined, so texts are short and long.
    let lines: Vec<&str> = text.lines().take(400).collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.extend(lines.chunks(50).map(|c| c.join("\n")));
    out
}

#[test]
fn every_fast_path_equals_the_general_path_on_real_text() {
    let texts = real_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for (name, tok) in variants() {
        check_all_paths(&tok, &refs).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn every_fast_path_equals_the_general_path_on_adversarial_text() {
    let texts = adversarial_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for (name, tok) in variants() {
        check_all_paths(&tok, &refs).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn ids_past_2_pow_17_and_long_pieces_spill_the_same() {
    // Real tokens past 2^17 in a vocab far larger than the word cache's
    // seed can hold (it stops half full): the seeded tokens and the ones
    // matched by the trie must give the same ids.
    let mut tokens: Vec<String> = (0..140_000).map(|i| format!("filler{i}")).collect();
    for t in ["[UNK]", "a", "b", "##a", "##b", "ab", "##ab", ",", "."] {
        tokens.push(t.to_string());
    }
    let tok = Tokenizer::bert_like(
        Vocab::new(tokens).unwrap(),
        WordPieceConfig::default(),
        Some(NormalizerConfig::default()),
        PreTokenizer::Bert,
        &[],
    )
    .unwrap();
    let texts = [
        "ab ba abab, a.b",
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbb c",
        "filler7 Ab",
    ];
    check_all_paths(&tok, &texts).unwrap();
}

#[test]
fn added_tokens_holding_whitespace_stay_exact() {
    let tokens: Vec<String> = ["[UNK]", "[CLS]", "a b", "x\ty", "a", "b", "x", "y", "##b"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let added = |content: &str| AddedToken::new(content, true);
    let tok = Tokenizer::new(
        Vocab::new(tokens).unwrap(),
        WordPieceConfig::default(),
        Some(NormalizerConfig::default()),
        PreTokenizer::Bert,
        vec![added("[CLS]"), added("a b"), added("x\ty")],
        None,
        Decoder::default(),
    )
    .unwrap();
    let texts = ["a b a  b ab", "x\ty x y xy", "[CLS]a b[CLS]", "A B"];
    check_all_paths(&tok, &texts).unwrap();
}

/// Characters for random texts: the fast paths' class boundaries.
fn alphabet() -> Vec<char> {
    vec![
        'a',
        'b',
        'c',
        'A',
        'Z',
        '0',
        '#',
        '#',
        '@',
        '.',
        ',',
        '!',
        '[',
        ']',
        ' ',
        ' ',
        ' ',
        '\t',
        '\n',
        '\r',
        '\u{0}',
        '\u{7}',
        '\u{7f}',
        '\u{a0}',
        '\u{2028}',
        '\u{3000}',
        'é',
        'É',
        'ß',
        '中',
        '\u{301}',
        '¿',
        '—',
        '\u{fffd}',
        '\u{1f600}',
    ]
}

fn token() -> impl Strategy<Value = String> {
    let chars: Vec<char> = alphabet()
        .into_iter()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect();
    (
        prop::bool::ANY,
        prop::collection::vec(prop::sample::select(chars), 1..5),
    )
        .prop_map(|(cont, cs)| {
            let s: String = cs.into_iter().collect();
            if cont {
                format!("##{s}")
            } else {
                s
            }
        })
}

fn vocab() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(token(), 0..80).prop_map(|ts| {
        let mut v = vec!["[UNK]".to_owned(), "[CLS]".to_owned(), "[SEP]".to_owned()];
        for t in ts {
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    })
}

fn text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        4 => prop::sample::select(alphabet()).prop_map(String::from),
        1 => prop::sample::select(vec!["[CLS]", "[SEP]", "##", "hello", "abcdefghijklmnop"])
            .prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..60).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(150), ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_equal_the_general_path_on_random_settings_and_text(
        vocab in vocab(),
        texts in prop::collection::vec(text(), 1..8),
        normalize in prop::bool::ANY,
        lowercase in prop::bool::ANY,
        bert in prop::bool::ANY,
        suffix in prop::bool::ANY,
        unknown_char in prop::bool::ANY,
        max_chars in prop::sample::select(vec![1usize, 4, 100]),
    ) {
        let config = WordPieceConfig {
            max_input_chars_per_word: max_chars,
            unknown: if unknown_char { UnknownPolicy::Char } else { UnknownPolicy::Word },
            end_of_word_suffix: if suffix { "##".into() } else { String::new() },
            ..WordPieceConfig::default()
        };
        let normalizer = normalize.then_some(NormalizerConfig {
            lowercase,
            ..NormalizerConfig::default()
        });
        let pre = if bert { PreTokenizer::Bert } else { PreTokenizer::Whitespace };
        let tok = Tokenizer::bert_like(
            Vocab::new(vocab).unwrap(),
            config,
            normalizer,
            pre,
            &["[CLS]", "[SEP]"],
        )
        .unwrap();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        if let Err(e) = check_all_paths(&tok, &refs) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// Added tokens for random sets: inside and outside the vocab, with and
/// without whitespace, changed by lowercasing or not.
fn added_token() -> impl Strategy<Value = AddedToken> {
    let contents = vec![
        "<m>", "Ab", "ab", "qq", "a b", "[CLS]", "é", "É!", "##x", ".", " x", "中", "<m>a", "a中",
    ];
    // Stripping is rarer, so that sets without it (whose texts the ASCII
    // pass takes stretch by stretch) come often.
    let strip = || prop::bool::weighted(0.15);
    (
        prop::sample::select(contents),
        prop::collection::vec(prop::bool::ANY, 3),
        (strip(), strip()),
    )
        .prop_map(|(content, f, (lstrip, rstrip))| AddedToken {
            content: content.to_owned(),
            single_word: f[0],
            lstrip,
            rstrip,
            normalized: f[1],
            special: f[2],
        })
}

fn text_with_added() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        3 => prop::sample::select(alphabet()).prop_map(String::from),
        2 => prop::sample::select(vec!["<m>", "AB", "ab", "qq", "a b", "[CLS]", "É!", "  ", "##x", "ab中", "xa中"])
            .prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..40).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(150), ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_equal_the_general_path_with_added_tokens_of_every_flag(
        vocab in vocab(),
        added in prop::collection::vec(added_token(), 0..6),
        texts in prop::collection::vec(text_with_added(), 1..6),
        normalize in prop::bool::ANY,
        lowercase in prop::bool::ANY,
        bert in prop::bool::ANY,
    ) {
        let normalizer = normalize.then_some(NormalizerConfig {
            lowercase,
            ..NormalizerConfig::default()
        });
        let pre = if bert { PreTokenizer::Bert } else { PreTokenizer::Whitespace };
        let tok = Tokenizer::bert_like(
            Vocab::new(vocab).unwrap(),
            WordPieceConfig::default(),
            normalizer,
            pre,
            &["[CLS]", "[SEP]"],
        )
        .unwrap();
        let (tok, _) = tok.with_added_tokens(added).unwrap();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        if let Err(e) = check_all_paths(&tok, &refs) {
            prop_assert!(false, "{}", e);
        }
    }
}

fn regex_replace(pattern: &str, content: &str) -> NormalizerStep {
    NormalizerStep::Replace {
        pattern: Pattern::Regex(RegexPattern::new(pattern).unwrap()),
        content: content.into(),
    }
}

fn regex_split(pattern: &str, behavior: SplitBehavior, invert: bool) -> PreTokenizerStep {
    PreTokenizerStep::Split {
        pattern: Pattern::Regex(RegexPattern::new(pattern).unwrap()),
        behavior,
        invert,
    }
}

/// Normalizers for random chains: each kind, and `Replace`s that map one
/// char to one, drop one, rewrite a pair, bring in non-ASCII or whitespace.
fn normalizer_step() -> impl Strategy<Value = NormalizerStep> {
    let replace = |from: &str, to: &str| NormalizerStep::Replace {
        pattern: Pattern::Literal(from.into()),
        content: to.into(),
    };
    prop::sample::select(vec![
        NormalizerStep::Nfd,
        NormalizerStep::Nfkc,
        NormalizerStep::Lowercase,
        NormalizerStep::StripAccents,
        NormalizerStep::Bert(NormalizerConfig::default()),
        NormalizerStep::Bert(NormalizerConfig {
            lowercase: false,
            clean_text: false,
            ..NormalizerConfig::default()
        }),
        replace("a", "b"),
        replace("A", "z"),
        replace("b", ""),
        replace("ab", "X"),
        replace("!", "."),
        replace("!", "<"),
        replace("A", "a"),
        replace("a b", "c"),
        replace(",", "\u{e9}"),
        replace("#", " "),
        replace(" ", "_"),
        replace(".", "!!"),
        NormalizerStep::Replace {
            pattern: Pattern::Regex(RegexPattern::new("[0-9]").unwrap()),
            content: "#".into(),
        },
        regex_replace(r"\s+", " "),
        regex_replace(r"[,.]+", " "),
        regex_replace(r"[a#]+", "b"),
        regex_replace(r"\s+", ""),
        regex_replace(r"ab+", "X"),
        NormalizerStep::Strip {
            left: true,
            right: false,
        },
        NormalizerStep::Prepend("_".into()),
    ])
}

/// Pre-tokenizers for random chains: every kind and behaviour.
fn pre_tokenizer_step() -> impl Strategy<Value = PreTokenizerStep> {
    let punctuation = [
        SplitBehavior::Removed,
        SplitBehavior::Isolated,
        SplitBehavior::Contiguous,
        SplitBehavior::MergedWithPrevious,
        SplitBehavior::MergedWithNext,
    ]
    .map(PreTokenizerStep::Punctuation);
    let mut steps = vec![
        PreTokenizerStep::Bert,
        PreTokenizerStep::Whitespace,
        PreTokenizerStep::Whitespace,
        PreTokenizerStep::WhitespaceSplit,
        PreTokenizerStep::WhitespaceSplit,
        PreTokenizerStep::Bert,
        PreTokenizerStep::Digits { individual: true },
        PreTokenizerStep::Digits { individual: false },
        PreTokenizerStep::CharDelimiterSplit('#'),
        PreTokenizerStep::CharDelimiterSplit('a'),
        PreTokenizerStep::Split {
            pattern: Pattern::Literal(",".into()),
            behavior: SplitBehavior::Isolated,
            invert: false,
        },
    ];
    steps.extend(punctuation);
    steps.extend([
        regex_split("[0-9]+", SplitBehavior::Isolated, false),
        regex_split("[0-9]+", SplitBehavior::Removed, false),
        regex_split("[0-9]", SplitBehavior::Contiguous, false),
        regex_split("[0-9]+", SplitBehavior::MergedWithNext, false),
        regex_split(r"\s", SplitBehavior::Removed, false),
        regex_split("[,.!]", SplitBehavior::Isolated, true),
    ]);
    prop::sample::select(steps)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(150), ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_equal_the_general_path_on_random_chains(
        vocab in vocab(),
        normalizers in prop::collection::vec(normalizer_step(), 0..4),
        pre_tokenizers in prop::collection::vec(pre_tokenizer_step(), 0..4),
        added in prop::collection::vec(added_token(), 0..3),
        texts in prop::collection::vec(text_with_added(), 1..6),
    ) {
        let splitter = Splitter::from_chain(Chain { normalizers, pre_tokenizers });
        let added_names = [AddedToken::new("[UNK]", true), AddedToken::new("[CLS]", true)];
        let tok = Tokenizer::with_splitter(
            Vocab::new(vocab).unwrap(),
            WordPieceConfig::default(),
            splitter,
            added_names.into_iter().chain(added).collect(),
            None,
            Decoder::default(),
        );
        // Some added tokens are refused under some normalizers (as HF's).
        let Ok(tok) = tok else { return Ok(()) };
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        if let Err(e) = check_all_paths(&tok, &refs) {
            prop_assert!(false, "{}", e);
        }
    }
}
