//! Property tests: the trainer against a plain trainer that recomputes every
//! statistic at every step, on hostile words (made of prefix characters),
//! prefixes, suffixes and counts from 0 to 2^64-1.

use std::collections::HashMap;

mod common;

use common::cases;
use proptest::prelude::*;

use wpiece::train::{gain, train, Score, TrainerConfig};
use wpiece::Error;

/// WordPiece training by the book (words counted 0 left out).
fn reference(words: &[(String, u64)], config: &TrainerConfig) -> Vec<String> {
    let prefix = config.continuing_subword_prefix.as_str();
    let words: Vec<(String, u64)> = words
        .iter()
        .filter(|(_, c)| *c > 0)
        .map(|(w, c)| (format!("{w}{}", config.end_of_word_suffix), *c))
        .collect();
    let mut splits: Vec<Vec<String>> = words
        .iter()
        .map(|(w, _)| {
            w.chars()
                .enumerate()
                .map(|(k, ch)| {
                    if k == 0 {
                        ch.to_string()
                    } else {
                        format!("{prefix}{ch}")
                    }
                })
                .collect()
        })
        .collect();
    let mut vocab: Vec<String> = Vec::new();
    let mut alphabet: Vec<String> = splits.iter().flatten().cloned().collect();
    alphabet.sort();
    for t in config.special_tokens.iter().chain(&alphabet) {
        if !vocab.contains(t) {
            vocab.push(t.clone());
        }
    }
    while vocab.len() < config.vocab_size {
        let mut unit: HashMap<&str, u128> = HashMap::new();
        let mut pairs: Vec<((&str, &str), u128)> = Vec::new();
        for ((_, c), split) in words.iter().zip(&splits) {
            for s in split {
                *unit.entry(s).or_insert(0) += *c as u128;
            }
            for w in split.windows(2) {
                let key = (w[0].as_str(), w[1].as_str());
                match pairs.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, p)) => *p += *c as u128,
                    None => pairs.push((key, *c as u128)),
                }
            }
        }
        if config.score == Score::Likelihood {
            let Some((a, b)) = best_gain(&words, &splits, &unit, &pairs, config) else {
                break;
            };
            let (a, b) = (a.to_owned(), b.to_owned());
            let merged = merge_everywhere(&mut splits, &a, &b, prefix);
            if !vocab.contains(&merged) {
                vocab.push(merged);
            }
            continue;
        }
        // Best score, ties to the pair met first (pairs are in that order).
        let mut best: Option<((&str, &str), u128, u128)> = None;
        for &((a, b), p) in &pairs {
            if p < config.min_frequency as u128 {
                continue;
            }
            let d = match config.score {
                Score::WordPiece => unit[a] * unit[b],
                Score::Frequency | Score::Likelihood => 1,
            };
            // p / d > bp / bd, exactly (all below 2^64 * 2^128).
            let better = best.is_none_or(|(_, bp, bd)| {
                let (l, r) = (wide_mul(p, bd), wide_mul(bp, d));
                l > r
            });
            if better {
                best = Some(((a, b), p, d));
            }
        }
        let Some(((a, b), _, _)) = best else { break };
        let (a, b) = (a.to_owned(), b.to_owned());
        let merged = merge_everywhere(&mut splits, &a, &b, prefix);
        if !vocab.contains(&merged) {
            vocab.push(merged);
        }
    }
    vocab
}

/// Replaces `(a, b)` left to right without overlap in every split.
fn merge_everywhere(splits: &mut [Vec<String>], a: &str, b: &str, prefix: &str) -> String {
    let merged = format!("{a}{}", b.strip_prefix(prefix).unwrap_or(b));
    for split in splits {
        let mut i = 0;
        while i + 1 < split.len() {
            if split[i] == a && split[i + 1] == b {
                split[i] = merged.clone();
                split.remove(i + 1);
            }
            i += 1;
        }
    }
    merged
}

/// The pair with the largest likelihood gain, every gain recomputed from
/// scratch (k counted by a left-to-right scan); ties to the pair met first.
fn best_gain<'a>(
    words: &[(String, u64)],
    splits: &'a [Vec<String>],
    unit: &HashMap<&str, u128>,
    pairs: &[((&'a str, &'a str), u128)],
    config: &TrainerConfig,
) -> Option<(&'a str, &'a str)> {
    let prefix = config.continuing_subword_prefix.as_str();
    let n: u128 = unit.values().sum();
    // Units are told apart by their strings; the ids only need to agree.
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut id = |s: &str| {
        let next = ids.len() as u32;
        *ids.entry(s.to_owned()).or_insert(next)
    };
    let mut best: Option<((&str, &str), f64)> = None;
    for &((a, b), p) in pairs {
        if p == 0 || p < config.min_frequency as u128 {
            continue;
        }
        let mut k = 0u128;
        for ((_, c), split) in words.iter().zip(splits) {
            let mut i = 0;
            while i + 1 < split.len() {
                if split[i] == a && split[i + 1] == b {
                    k += *c as u128;
                    i += 2;
                } else {
                    i += 1;
                }
            }
        }
        let z = format!("{a}{}", b.strip_prefix(prefix).unwrap_or(b));
        let count = |s: &str| unit.get(s).copied().unwrap_or(0) as u64;
        let g = gain::merge_gain(
            k as u64,
            (id(a), count(a)),
            (id(b), count(b)),
            (id(&z), count(&z)),
            n as u64,
        );
        if best.is_none_or(|(_, bg)| g > bg) {
            best = Some(((a, b), g));
        }
    }
    best.map(|(pair, _)| pair)
}

/// `x * y` as (high, low) 128-bit halves, for exact comparison.
fn wide_mul(x: u128, y: u128) -> (u128, u128) {
    let (xh, xl) = (x >> 64, x & u64::MAX as u128);
    let (yh, yl) = (y >> 64, y & u64::MAX as u128);
    let ll = xl * yl;
    let mid = xh * yl + xl * yh; // no overflow: one factor is below 2^64 here
    let (low, carry) = ll.overflowing_add(mid << 64);
    (xh * yh + (mid >> 64) + carry as u128, low)
}

fn words() -> impl Strategy<Value = Vec<(String, u64)>> {
    let count = prop_oneof![
        0u64..4,
        Just(0u64),
        Just(1u64 << 40),
        Just(u64::MAX / 64),
        Just(u64::MAX),
    ];
    // Two letters make the same string by different merges often ("a"+"##bb"
    // and "ab"+"##b"); prefix characters make words that look like units.
    let word = prop_oneof!["[#@ab]{1,7}", "[ab]{1,9}", "[abc]{1,8}"];
    prop::collection::vec((word, count), 1..12).prop_map(|ws| {
        let mut seen = std::collections::HashSet::new();
        ws.into_iter()
            .filter(|(w, _)| seen.insert(w.clone()))
            .collect()
    })
}

/// Corpora (found by a search) where a pair met before the unit its merge
/// makes is still there, counted, when another merge makes that unit first:
/// it must learn the unit then (its gain depends on the unit's count).
#[test]
fn pairs_met_before_their_unit_learn_it() {
    let corpora: [&[(&str, u64)]; 5] = [
        &[("aa#a", 5), ("#a", 3), ("######", 1), ("aay", 50)],
        &[
            ("##yxy", 5),
            ("###y", 5),
            ("yb#xba", 1),
            ("ax#", 1),
            ("a##", 50),
            ("###yb", 5),
            ("b#yybb", 2),
            ("#y##yy", 50),
        ],
        &[
            ("xb#bx", 50),
            ("bxya#", 50),
            ("#aa", 2),
            ("baa", 3),
            ("######", 3),
        ],
        &[
            ("ya##a", 5),
            ("bbb###", 1),
            ("bxx#a", 2),
            ("x#x", 5),
            ("#", 50),
            ("yx##", 1),
            ("#####", 10),
        ],
        &[("#ybyab", 50), ("x##", 10), ("b#", 10), ("######", 2)],
    ];
    for words in corpora {
        let words: Vec<(String, u64)> = words.iter().map(|&(w, c)| (w.into(), c)).collect();
        let (ws, cs): (Vec<&str>, Vec<u64>) = words.iter().map(|(w, c)| (w.as_str(), *c)).unzip();
        for vocab_size in [20, 30, 45, 60] {
            let config = TrainerConfig {
                vocab_size,
                special_tokens: vec!["[UNK]".into()],
                score: Score::Likelihood,
                ..TrainerConfig::default()
            };
            let out = train(&ws, &cs, &config, &mut |_, _| Ok(())).unwrap();
            assert_eq!(
                out.vocab,
                reference(&words, &config),
                "{words:?} at {vocab_size}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn trainer_equals_the_plain_reference(
        words in words(),
        vocab_size in 1usize..80,
        prefix in prop::sample::select(vec!["##", "#", "@@", "a", ""]),
        suffix in prop::sample::select(vec!["", "", "#"]),
        score in prop::sample::select(vec![Score::WordPiece, Score::Frequency, Score::Likelihood]),
        min_frequency in prop::sample::select(vec![0u64, 0, 2]),
    ) {
        let config = TrainerConfig {
            vocab_size,
            min_frequency,
            special_tokens: vec!["[UNK]".into()],
            continuing_subword_prefix: prefix.into(),
            end_of_word_suffix: suffix.into(),
            score,
            ..TrainerConfig::default()
        };
        let (ws, cs): (Vec<&str>, Vec<u64>) = words.iter().map(|(w, c)| (w.as_str(), *c)).unzip();
        let total: u128 = words
            .iter()
            .map(|(w, c)| *c as u128 * (w.chars().count() + suffix.chars().count()) as u128)
            .sum();
        match train(&ws, &cs, &config, &mut |_, _| Ok(())) {
            Ok(out) => {
                prop_assert!(total <= u64::MAX as u128);
                prop_assert_eq!(out.vocab, reference(&words, &config));
            }
            Err(Error::Overflow(_)) => prop_assert!(total > u64::MAX as u128),
            Err(Error::Value(m)) => prop_assert!(cs.iter().all(|&c| c == 0), "{}", m),
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }
}
