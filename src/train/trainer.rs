//! The training loop: the state built from the counted words, merges chosen
//! and applied until the vocabulary reaches its size (or no pair is left),
//! each one recorded.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::config::{Score, TrainerConfig};
use super::extend::InitialVocab;
use super::pairs::{PairTable, NO_PAIR};
use super::queue::{Entry, Queue};
use super::record::{score_value, MergeRecord, TrainOutput};
use super::state::{Node, State, BARRIER, CANCEL_STRIDE, DEAD, NONE};
use crate::error::{Error, Result};

/// Σ count × units over all words: a bound on every frequency the trainer
/// keeps, checked before training so that no sum can wrap.
fn check_totals<W: AsRef<str>>(words: &[W], counts: &[u64], suffix_chars: u64) -> Result<()> {
    let mut total: u64 = 0;
    for (w, &c) in words.iter().zip(counts) {
        let units = (w.as_ref().chars().count() as u64).saturating_add(suffix_chars);
        total = units
            .checked_mul(c)
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| {
                Error::Overflow(
                    "the corpus is too large to count exactly: the sum over words of \
                     count x characters exceeds 2^64-1"
                        .into(),
                )
            })?;
    }
    Ok(())
}

/// `ch`'s index in ASCII tables, if it is ASCII.
fn ascii_index(ch: char) -> Option<usize> {
    ch.is_ascii().then_some(ch as usize)
}

/// Trains a WordPiece vocabulary from word types in first-appearance order.
/// Words counted 0 are left out (the result is that of training without
/// them). `progress(merges_done, vocab_len)` is called after each merge and
/// now and then during long steps; an error from it (e.g. `Interrupted`) ends
/// training with that error.
pub fn train<W: AsRef<str>>(
    words: &[W],
    counts: &[u64],
    config: &TrainerConfig,
    progress: &mut dyn FnMut(usize, usize) -> Result<()>,
) -> Result<TrainOutput> {
    train_from(words, counts, config, None, progress)
}

/// Trains on from `initial` (see `extend.rs`): its tokens keep their ids,
/// the single characters it lacks (as first or continuing pieces, where
/// the words hold them) come next (by code point), then the merges, each
/// chosen as in [`train`] from the words as `initial` splits them, until
/// the vocabulary (`initial` included) reaches `config.vocab_size`.
pub fn train_extending<W: AsRef<str>>(
    words: &[W],
    counts: &[u64],
    config: &TrainerConfig,
    initial: &InitialVocab,
    progress: &mut dyn FnMut(usize, usize) -> Result<()>,
) -> Result<TrainOutput> {
    if !config.end_of_word_suffix.is_empty() {
        return Err(Error::Value(
            "a vocabulary with an end-of-word suffix cannot be extended".into(),
        ));
    }
    let tokens: FxHashSet<&str> = initial.tokens().iter().map(String::as_str).collect();
    if let Some(t) = config
        .special_tokens
        .iter()
        .find(|t| !tokens.contains(t.as_str()))
    {
        return Err(Error::Value(format!(
            "special token {t:?} is not in the vocabulary to extend; add it to that tokenizer first"
        )));
    }
    train_from(words, counts, config, Some(initial), progress)
}

fn train_from<W: AsRef<str>>(
    words: &[W],
    counts: &[u64],
    config: &TrainerConfig,
    extending: Option<&InitialVocab>,
    progress: &mut dyn FnMut(usize, usize) -> Result<()>,
) -> Result<TrainOutput> {
    if words.len() != counts.len() {
        return Err(Error::Value("words and counts differ in length".into()));
    }
    let (words, counts): (Vec<&str>, Vec<u64>) = words
        .iter()
        .zip(counts)
        .filter(|(_, &c)| c > 0)
        .map(|(w, &c)| (w.as_ref(), c))
        .unzip();
    if words.is_empty() {
        return Err(Error::Value("the corpus has no words to train on".into()));
    }
    let prefix = config.continuing_subword_prefix.as_str();
    let suffix = config.end_of_word_suffix.as_str();
    check_totals(&words, &counts, suffix.chars().count() as u64)?;
    let n_nodes: usize = words
        .iter()
        .map(|w| w.chars().count() + suffix.chars().count())
        .sum();
    if n_nodes >= DEAD as usize {
        return Err(Error::Memory(format!(
            "the distinct words hold {n_nodes} characters; at most {} can be trained on",
            DEAD - 1
        )));
    }

    // Alphabet: every character, or the most frequent ones. ASCII ones
    // are counted in an array (a hash per character took most of the time).
    let mut char_freq: FxHashMap<char, u64> = FxHashMap::default();
    let mut ascii_freq = [0u64; 128];
    for (w, &c) in words.iter().zip(&counts) {
        for ch in w.chars().chain(suffix.chars()) {
            match ascii_index(ch) {
                Some(b) => ascii_freq[b] += c,
                None => *char_freq.entry(ch).or_insert(0) += c,
            }
        }
    }
    for (b, &f) in ascii_freq.iter().enumerate() {
        if f > 0 {
            char_freq.insert(char::from(b as u8), f);
        }
    }
    let initial: FxHashSet<char> = config.initial_alphabet.iter().copied().collect();
    let kept: FxHashSet<char> = match config.limit_alphabet {
        None => char_freq
            .keys()
            .copied()
            .chain(initial.iter().copied())
            .collect(),
        Some(limit) => {
            let mut ranked: Vec<(char, u64)> = char_freq
                .iter()
                .filter(|(ch, _)| !initial.contains(ch))
                .map(|(&ch, &f)| (ch, f))
                .collect();
            ranked.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            let room = limit.saturating_sub(initial.len());
            ranked
                .into_iter()
                .take(room)
                .map(|(ch, _)| ch)
                .chain(initial.iter().copied())
                .collect()
        }
    };

    let mut state = State {
        config,
        strings: Vec::new(),
        ids: FxHashMap::default(),
        freq: Vec::new(),
        nodes: Vec::new(),
        pairs: PairTable::default(),
        heap: Queue::default(),
        beside_merged: Vec::new(),
        step: 0,
        total_tokens: 0,
        total_units: 0,
        unit_by_hash: FxHashMap::default(),
        unit_hashes: Vec::new(),
        bare_hashes: Vec::new(),
        makers: Vec::new(),
        tight_of: Vec::new(),
        floored_of: Vec::new(),
        floor: Vec::new(),
        reference_gain: f64::INFINITY,
        touched: Vec::new(),
        lost_first: Vec::new(),
    };
    state.nodes.try_reserve_exact(n_nodes).map_err(|_| {
        Error::Memory(format!(
            "the distinct words hold {n_nodes} characters, too many to train on in this memory"
        ))
    })?;
    let mut initial_tokens = 0u64;
    let mut since_check = 0usize;
    let mut units: Vec<Option<String>> = Vec::new();
    // (character, not first in its word) -> its unit, None outside the
    // alphabet; ASCII characters in arrays (index 0: first in its word).
    let mut unit_of: FxHashMap<(char, bool), Option<u32>> = FxHashMap::default();
    let mut ascii_unit_of: [[Option<Option<u32>>; 128]; 2] = [[None; 128]; 2];
    // Extending: the (character, not first) whose single unit is interned.
    let mut single_seen: FxHashSet<(char, bool)> = FxHashSet::default();
    let mut ascii_single_seen = [[false; 128]; 2];
    for (word, &count) in words.iter().zip(&counts) {
        // By characters, not words: 4096 long words took a tenth of a second.
        if since_check >= CANCEL_STRIDE {
            progress(0, 0)?;
            since_check = 0;
        }
        since_check += word.len() + 1;
        let start = state.nodes.len() as u32;
        let mut len = 0u32;
        let mut push = |state: &mut State, unit: Option<u32>| {
            let unit = match unit {
                Some(id) => {
                    state.freq[id as usize] += count;
                    state.total_units += count;
                    id
                }
                None => BARRIER,
            };
            let node = start + len;
            state.nodes.push(Node {
                unit,
                next: node + 1,
                prev: if len == 0 { NONE } else { node - 1 },
                pair: NO_PAIR,
                count,
            });
            len += 1;
        };
        match extending {
            None => {
                for (k, ch) in word.chars().chain(suffix.chars()).enumerate() {
                    // Each character's unit is interned once, not built and
                    // hashed as a string at every occurrence.
                    let new_unit = |state: &mut State| {
                        kept.contains(&ch).then(|| {
                            state.intern(match k {
                                0 => ch.to_string(),
                                _ => format!("{prefix}{ch}"),
                            })
                        })
                    };
                    let unit = match ascii_index(ch) {
                        Some(b) => *ascii_unit_of[usize::from(k > 0)][b]
                            .get_or_insert_with(|| new_unit(&mut state)),
                        None => *unit_of
                            .entry((ch, k > 0))
                            .or_insert_with(|| new_unit(&mut state)),
                    };
                    push(&mut state, unit);
                }
            }
            Some(v) => {
                v.segment(word, prefix, |ch| kept.contains(&ch), &mut units);
                for unit in units.drain(..) {
                    let unit = unit.map(|s| state.intern(s));
                    push(&mut state, unit);
                }
                // Every character alone, where it stands, joins the alphabet
                // even if the old tokens cover it: a merge can make longest
                // match stop inside an old token ("ab" before "##bc"), and
                // only a token at every position keeps the word encodable.
                for (k, ch) in word.chars().enumerate() {
                    let seen = match ascii_index(ch) {
                        Some(b) => {
                            std::mem::replace(&mut ascii_single_seen[usize::from(k > 0)][b], true)
                        }
                        None => !single_seen.insert((ch, k > 0)),
                    };
                    if !seen && kept.contains(&ch) {
                        state.intern(if k == 0 {
                            ch.to_string()
                        } else {
                            format!("{prefix}{ch}")
                        });
                    }
                }
            }
        }
        if len > 0 {
            state.nodes[(start + len - 1) as usize].next = NONE;
        }
        initial_tokens += count * len as u64;
    }
    state.total_tokens = initial_tokens;
    for &ch in &config.initial_alphabet {
        state.intern(ch.to_string());
        if !prefix.is_empty() {
            state.intern(format!("{prefix}{ch}"));
        }
    }

    let mut vocab: Vec<String> = Vec::new();
    let mut in_vocab: FxHashSet<String> = FxHashSet::default();
    // Fresh: the special tokens first. Extending: every token of the old
    // vocabulary at its id (the special ones are among them).
    let first = match extending {
        None => &config.special_tokens[..],
        Some(v) => v.tokens(),
    };
    for s in first {
        if in_vocab.insert(s.clone()) {
            vocab.push(s.clone());
        }
    }
    // The alphabet: the units' characters that are not tokens yet.
    let mut alphabet: Vec<&String> = state
        .strings
        .iter()
        .filter(|s| !in_vocab.contains(*s))
        .collect();
    alphabet.sort_unstable();
    let before = vocab.len();
    for s in alphabet {
        if in_vocab.insert(s.clone()) {
            vocab.push(s.clone());
        }
    }
    let alphabet_size = vocab.len() - before;

    // Initial pair statistics, scanning words in order, left to right: each
    // node's pair and each pair's frequency first, then every pair's
    // occurrences with room for all of them (grown by doubling, they were
    // copied about once more).
    let mut occurrences: Vec<u32> = Vec::new();
    for node in 0..state.nodes.len() as u32 {
        if node % (1 << 20) == (1 << 20) - 1 {
            progress(0, vocab.len())?;
        }
        let Node {
            unit, next, count, ..
        } = state.nodes[node as usize];
        if next != NONE {
            let right = state.nodes[next as usize].unit;
            let pair = state.count_pair(unit, right, node, count);
            state.nodes[node as usize].pair = pair;
            if pair != NO_PAIR {
                let p = pair as usize;
                if occurrences.len() <= p {
                    occurrences.resize(p + 1, 0);
                }
                occurrences[p] += 1;
            }
        }
    }
    for (s, &n) in state.pairs.states.iter_mut().zip(&occurrences) {
        s.occurrences = BinaryHeap::with_capacity(n as usize);
    }
    for node in 0..state.nodes.len() as u32 {
        if node % (1 << 20) == (1 << 20) - 1 {
            progress(0, vocab.len())?;
        }
        let pair = state.nodes[node as usize].pair;
        if pair != NO_PAIR {
            // In increasing order: each push is one comparison.
            state.pairs.states[pair as usize]
                .occurrences
                .push(Reverse(node));
        }
    }
    let entries: Vec<Entry> = (0..state.pairs.states.len() as u32)
        .filter(|&p| state.mergeable(p))
        .map(|p| state.entry(p))
        .collect();
    state.heap = Queue::from_entries(state.config.score == Score::Likelihood, entries);

    let mut merges = Vec::new();
    while vocab.len() < config.vocab_size {
        let Some((pair, chosen_gain)) = state.pop_best() else {
            break;
        };
        let s = &state.pairs.states[pair as usize];
        let (a, b, pair_frequency) = (s.left, s.right, s.freq);
        let (left_frequency, right_frequency) = (state.freq[a as usize], state.freq[b as usize]);
        let vocab_len = vocab.len();
        let (c, gain) = state.merge(pair, &mut || progress(merges.len(), vocab_len))?;
        // The gain the queue ranked by is the one the merge realised.
        debug_assert!(chosen_gain.is_none_or(|g| g.to_bits() == gain.to_bits()));
        let merged = state.strings[c as usize].clone();
        let added = in_vocab.insert(merged.clone());
        if added {
            vocab.push(merged.clone());
        }
        merges.push(MergeRecord {
            left: state.strings[a as usize].clone(),
            right: state.strings[b as usize].clone(),
            merged,
            pair_frequency,
            left_frequency,
            right_frequency,
            tokens_after: state.total_tokens,
            added,
            gain,
            score: score_value(
                config.score,
                pair_frequency,
                left_frequency,
                right_frequency,
                gain,
            ),
        });
        progress(merges.len(), vocab.len())?;
    }
    Ok(TrainOutput {
        vocab,
        merges,
        alphabet_size,
        base_vocab_size: before + alphabet_size,
        initial_tokens,
        total_words: counts.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::NormalizerConfig;
    use crate::pre_tokenizers::PreTokenizer;
    use crate::splitter::Splitter;
    use crate::train::counts;

    fn seed_corpus() -> counts::WordCounts {
        let corpus = [
            "This is the Hugging Face Course.",
            "This chapter is about tokenization.",
            "This section shows several tokenizer algorithms.",
            "Hopefully, you will be able to understand how they are trained and generate tokens.",
        ];
        let normalizer = Some(NormalizerConfig {
            lowercase: false,
            ..Default::default()
        });
        let splitter = Splitter::new(normalizer, PreTokenizer::Bert);
        splitter
            .count_docs(&corpus, crate::cancel::Cancel::never())
            .unwrap()
    }

    #[test]
    fn hugging_face_course_vocab() {
        let (words, counts) = seed_corpus().into_parts();
        let config = TrainerConfig {
            vocab_size: 70,
            ..Default::default()
        };
        let out = train(&words, &counts, &config, &mut |_, _| Ok(())).unwrap();
        let tail: Vec<&str> = out.vocab[45..].iter().map(String::as_str).collect();
        assert_eq!(
            tail,
            [
                "ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch",
                "##hm", "cha", "chap", "chapt", "##thm", "Hu", "Hug", "Hugg", "sh", "th", "is",
                "##thms", "##za", "##zat", "##ut"
            ]
        );
        assert_eq!(out.vocab.len(), 70);
        assert_eq!(out.alphabet_size, 40);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The likelihood trainer finds which unit a pair makes through
        /// string hashes: with every anagram colliding (shared hashes looked
        /// up by string, wrong candidates filtered), the vocabulary is the
        /// same. Words of prefix characters make the strings most alike.
        #[test]
        fn colliding_string_hashes_change_nothing(
            words in proptest::collection::vec(("[#ab]{1,8}|[abc]{1,10}", 1u64..60), 1..14),
            vocab_size in 10usize..90,
            prefix in proptest::sample::select(vec!["##", "#", "a", ""]),
        ) {
            let (words, counts): (Vec<String>, Vec<u64>) = words.into_iter().unzip();
            let config = TrainerConfig {
                vocab_size,
                special_tokens: vec!["[UNK]".into()],
                continuing_subword_prefix: prefix.into(),
                score: Score::Likelihood,
                ..Default::default()
            };
            let run = || train(&words, &counts, &config, &mut |_, _| Ok(())).unwrap().vocab;
            let plain = run();
            let colliding = crate::train::string_hash::with_colliding_hashes(run);
            proptest::prop_assert_eq!(plain, colliding);
        }
    }

    #[test]
    fn empty_corpus_is_an_error() {
        let err =
            train::<&str>(&[], &[], &TrainerConfig::default(), &mut |_, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("no words"));
    }
}
