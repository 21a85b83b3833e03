//! The per-thread word caches across models: a thread keeps the caches of
//! the last few models it used, each giving only its own model's pieces,
//! and lets go of a dropped model's.

use wpiece::cache::{models_cached_here, MODELS_PER_THREAD};
use wpiece::cancel::Cancel;
use wpiece::encode::FastPaths;
use wpiece::model::{Vocab, WordPieceConfig};
use wpiece::normalizers::NormalizerConfig;
use wpiece::pipeline::Tokenizer;
use wpiece::pre_tokenizers::PreTokenizer;

/// A tokenizer whose vocabulary is `tokens`, lowercasing.
fn tokenizer(tokens: &[&str]) -> Tokenizer {
    let tokens = tokens.iter().map(|t| t.to_string()).collect();
    Tokenizer::bert_like(
        Vocab::new(tokens).unwrap(),
        WordPieceConfig::default(),
        Some(NormalizerConfig::default()),
        PreTokenizer::Bert,
        &[],
    )
    .unwrap()
}

fn ids(tok: &Tokenizer, text: &str) -> Vec<u32> {
    tok.encode_sequence(text, 0, Cancel::never()).unwrap().ids
}

/// The same words split differently by each model: a cache shared by
/// mistake shows at once.
const TEXT: &str = "unhappy unhappily happy unhappy happiness un";

fn models() -> Vec<Tokenizer> {
    let base = ["[UNK]", "u", "n", "h", "a", "p", "y", "i", "l", "e", "s"];
    let extra: [&[&str]; 5] = [
        &["un", "##happy", "happy"],
        &["unhappy", "##h", "##a", "##p", "##y"],
        &["unh", "##appy", "##a", "##p", "##y", "##i", "##l"],
        &[
            "##n", "##h", "##a", "##p", "##y", "##i", "##l", "##e", "##s",
        ],
        &["un", "##happ", "##ily", "##y", "happ", "##iness"],
    ];
    extra
        .iter()
        .map(|e| tokenizer(&[&base[..], e].concat()))
        .collect()
}

#[test]
fn models_used_in_turn_keep_their_own_caches() {
    // A thread of its own: the caches are per thread.
    std::thread::spawn(|| {
        let toks = models();
        let expected: Vec<Vec<u32>> = toks.iter().map(|t| uncached_of(t, TEXT)).collect();
        assert!(
            expected.windows(2).all(|w| w[0] != w[1]),
            "the models must split the text differently"
        );
        // Two models in turn: both kept (the plain runs' models, dropped,
        // went when the first of them came).
        for _ in 0..3 {
            for k in 0..2 {
                assert_eq!(ids(&toks[k], TEXT), expected[k]);
            }
        }
        assert_eq!(models_cached_here(), 2);
        // Five models in turn: at most the limit, and every model still
        // gives its own ids (an evicted cache starts again from its seed).
        for _ in 0..3 {
            for (tok, want) in toks.iter().zip(&expected) {
                assert_eq!(&ids(tok, TEXT), want);
            }
        }
        assert_eq!(models_cached_here(), MODELS_PER_THREAD);
        // Dropped models' caches go when the thread meets a new model.
        let fresh = tokenizer(&["[UNK]", "u", "n", "##n"]);
        let want = uncached_of(&fresh, "un");
        drop(toks);
        assert_eq!(ids(&fresh, "un"), want);
        assert_eq!(models_cached_here(), 1);
    })
    .join()
    .unwrap();
}

/// A model's ids without any cache (the plain path), to compare with.
fn uncached_of(tok: &Tokenizer, text: &str) -> Vec<u32> {
    let mut plain = tok.clone();
    plain.set_fast_paths(FastPaths::NONE);
    ids(&plain, text)
}
