//! Exact WordPiece training with incremental updates.
//!
//! State: word types (first-appearance order) with counts and current symbol
//! sequences, unit frequencies f(s), pair frequencies p(x, y), the words that
//! hold each pair, and a max-heap of versioned entries ordered by the exact
//! score p / (f(x) f(y)) (or p alone for `Score::Frequency`), ties going to the
//! pair met first scanning words in order, left to right.
//!
//! A merge of (A, B) into C touches only the words holding (A, B). Every pair
//! containing A, B or C gets a fresh entry, because f(A) and f(B) fell (so
//! their scores rose) and f(C) changed; older entries are recognised as stale
//! by their version when popped.

pub mod counts;
pub mod pairs;
pub mod queue;

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{Error, Result};
use pairs::{first_position, PairTable, BARRIER, NOWHERE};
use queue::Entry;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Score {
    /// p(x, y) / (f(x) f(y)): the WordPiece score.
    #[default]
    WordPiece,
    /// p(x, y): the most frequent pair, as BPE does.
    Frequency,
}

#[derive(Clone, Debug)]
pub struct TrainerConfig {
    pub vocab_size: usize,
    /// Pairs rarer than this are never merged.
    pub min_frequency: u64,
    pub special_tokens: Vec<String>,
    /// Keep at most this many distinct characters (the most frequent ones;
    /// `initial_alphabet` is always kept). Other characters form no pairs.
    pub limit_alphabet: Option<usize>,
    /// Characters always in the alphabet, in both word-start and continuation form.
    pub initial_alphabet: Vec<char>,
    pub continuing_subword_prefix: String,
    /// Appended to every word before training (e.g. `_`, the D2L style).
    pub end_of_word_suffix: String,
    pub score: Score,
}

impl Default for TrainerConfig {
    fn default() -> Self {
        Self {
            vocab_size: 30_000,
            min_frequency: 0,
            special_tokens: crate::tokenizer::BERT_SPECIAL_TOKENS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            limit_alphabet: None,
            initial_alphabet: Vec::new(),
            continuing_subword_prefix: "##".into(),
            end_of_word_suffix: String::new(),
            score: Score::WordPiece,
        }
    }
}

/// One merge of the training run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeRecord {
    pub left: String,
    pub right: String,
    pub merged: String,
    pub pair_frequency: u64,
    pub left_frequency: u64,
    pub right_frequency: u64,
    /// Σ count × symbols over all words after this merge.
    pub tokens_after: u64,
    /// False when the merged string was already in the vocabulary.
    pub added: bool,
}

#[derive(Clone, Debug, Default)]
pub struct TrainOutput {
    pub vocab: Vec<String>,
    pub merges: Vec<MergeRecord>,
    /// Number of alphabet entries in `vocab` (after the special tokens).
    pub alphabet_size: usize,
    /// Σ count × characters before any merge.
    pub initial_tokens: u64,
    /// Σ count: the number of words in the corpus.
    pub total_words: u64,
}

struct Word {
    syms: Vec<u32>,
    /// Char position of each symbol in the word; fixed for the word's lifetime.
    starts: Vec<u32>,
}

struct State<'a> {
    config: &'a TrainerConfig,
    strings: Vec<String>,
    ids: FxHashMap<String, u32>,
    freq: Vec<u64>,
    words: Vec<Word>,
    counts: &'a [u64],
    pairs: PairTable,
    heap: BinaryHeap<Entry>,
    /// Per pair: the merge step that last queued it (dedups pushes).
    queued_at: Vec<u32>,
    step: u32,
    total_tokens: u64,
}

impl State<'_> {
    fn intern(&mut self, s: String) -> u32 {
        if let Some(&id) = self.ids.get(&s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.ids.insert(s.clone(), id);
        self.strings.push(s);
        self.freq.push(0);
        id
    }

    fn entry(&self, pair: u32) -> Entry {
        let s = &self.pairs.states[pair as usize];
        let denom = match self.config.score {
            Score::WordPiece => {
                self.freq[s.left as usize] as u128 * self.freq[s.right as usize] as u128
            }
            Score::Frequency => 1,
        };
        Entry {
            freq: s.freq,
            denom,
            first: s.first,
            pair,
            version: s.version,
        }
    }

    fn mergeable(&self, pair: u32) -> bool {
        let f = self.pairs.states[pair as usize].freq;
        f > 0 && f >= self.config.min_frequency
    }

    /// Gives `pair` a new version and, if it can still be merged, a fresh entry.
    fn requeue(&mut self, pair: u32) {
        let p = pair as usize;
        if self.queued_at.len() <= p {
            self.queued_at.resize(p + 1, u32::MAX);
        }
        if self.queued_at[p] == self.step {
            return;
        }
        self.queued_at[p] = self.step;
        self.pairs.states[p].version = self.pairs.states[p].version.wrapping_add(1);
        if self.mergeable(pair) {
            let e = self.entry(pair);
            self.heap.push(e);
        }
    }

    fn pop_best(&mut self) -> Option<u32> {
        while let Some(e) = self.heap.pop() {
            let s = &self.pairs.states[e.pair as usize];
            if s.version == e.version && self.mergeable(e.pair) {
                return Some(e.pair);
            }
        }
        None
    }

    /// Drops stale entries once they dominate the heap.
    fn maybe_rebuild_heap(&mut self) {
        if self.heap.len() < (1 << 16) + 2 * self.pairs.states.len() {
            return;
        }
        let live: Vec<Entry> = (0..self.pairs.states.len() as u32)
            .filter(|&p| self.mergeable(p))
            .map(|p| self.entry(p))
            .collect();
        self.heap = BinaryHeap::from(live);
    }

    /// Merges `pair` in every word that holds it; returns the merged symbol.
    fn merge(&mut self, pair: u32) -> u32 {
        self.step += 1;
        let (a, b) = {
            let s = &self.pairs.states[pair as usize];
            (s.left, s.right)
        };
        let prefix = self.config.continuing_subword_prefix.as_str();
        let right = &self.strings[b as usize];
        let merged = format!(
            "{}{}",
            self.strings[a as usize],
            right.strip_prefix(prefix).unwrap_or(right)
        );
        let c = self.intern(merged);

        let holders: Vec<u32> = self.pairs.sorted_words(pair).to_vec();
        self.pairs.states[pair as usize].words = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut lost_first: Vec<(u32, u32)> = Vec::new();
        // (left, right, delta, first new position) per pair of one word.
        let mut changes: Vec<(u32, u32, i64, u32)> = Vec::new();

        for w in holders {
            let word = &self.words[w as usize];
            if first_position(&word.syms, &word.starts, a, b).is_none() {
                continue;
            }
            let mut syms = Vec::with_capacity(word.syms.len());
            let mut starts = Vec::with_capacity(word.syms.len());
            let mut n = 0u64;
            let mut i = 0;
            while i < word.syms.len() {
                if i + 1 < word.syms.len() && word.syms[i] == a && word.syms[i + 1] == b {
                    syms.push(c);
                    starts.push(word.starts[i]);
                    n += 1;
                    i += 2;
                } else {
                    syms.push(word.syms[i]);
                    starts.push(word.starts[i]);
                    i += 1;
                }
            }
            let count = self.counts[w as usize];
            self.freq[a as usize] -= n * count;
            self.freq[b as usize] -= n * count;
            self.freq[c as usize] += n * count;
            self.total_tokens -= n * count;

            changes.clear();
            for (k, win) in word.syms.windows(2).enumerate() {
                if win[0] != BARRIER && win[1] != BARRIER {
                    changes.push((win[0], win[1], -1, word.starts[k]));
                }
            }
            for (k, win) in syms.windows(2).enumerate() {
                if win[0] != BARRIER && win[1] != BARRIER {
                    changes.push((win[0], win[1], 1, starts[k]));
                }
            }
            // Group by pair; within a pair the new occurrences (delta +1) carry positions.
            changes.sort_unstable();
            let mut k = 0;
            while k < changes.len() {
                let (l, r) = (changes[k].0, changes[k].1);
                let mut delta = 0i64;
                let mut new_first = u32::MAX;
                while k < changes.len() && changes[k].0 == l && changes[k].1 == r {
                    delta += changes[k].2;
                    if changes[k].2 > 0 {
                        new_first = new_first.min(changes[k].3);
                    }
                    k += 1;
                }
                let id = self.pairs.get_or_create(l, r);
                if new_first != u32::MAX {
                    self.pairs.add_word(id, w);
                }
                let st = &mut self.pairs.states[id as usize];
                let before = (st.freq, st.first);
                st.freq = (st.freq as i128 + delta as i128 * count as i128) as u64;
                if st.first.0 == w {
                    if new_first != u32::MAX {
                        st.first = (w, new_first);
                    } else {
                        lost_first.push((id, w));
                    }
                } else if new_first != u32::MAX && (w, new_first) < st.first {
                    st.first = (w, new_first);
                }
                if (st.freq, st.first) != before {
                    touched.push(id);
                }
            }
            self.words[w as usize] = Word { syms, starts };
        }

        // Pairs whose first occurrence was merged away: find the next word holding them.
        for (id, w) in lost_first {
            if self.pairs.states[id as usize].freq == 0 {
                self.pairs.states[id as usize].first = NOWHERE;
                continue;
            }
            let (l, r) = (
                self.pairs.states[id as usize].left,
                self.pairs.states[id as usize].right,
            );
            let list = self.pairs.sorted_words(id);
            let from = list.partition_point(|&x| x <= w);
            let mut found = NOWHERE;
            for &x in &list[from..] {
                let word = &self.words[x as usize];
                if let Some(p) = first_position(&word.syms, &word.starts, l, r) {
                    found = (x, p);
                    break;
                }
            }
            self.pairs.states[id as usize].first = found;
        }

        for id in touched {
            self.requeue(id);
        }
        if self.config.score == Score::WordPiece {
            // f(A), f(B), f(C) changed: so did the score of every pair holding them.
            for unit in [a, b, c] {
                if unit as usize >= self.pairs.by_unit.len() {
                    continue;
                }
                // Dead pairs are dropped from the list on the way.
                let mut list = std::mem::take(&mut self.pairs.by_unit[unit as usize]);
                list.retain(|&p| self.pairs.states[p as usize].freq > 0);
                for &p in &list {
                    self.requeue(p);
                }
                self.pairs.by_unit[unit as usize] = list;
            }
        }
        self.maybe_rebuild_heap();
        c
    }
}

/// Trains a WordPiece vocabulary from word types in first-appearance order.
/// `progress(merges_done, vocab_len)` is called after each merge.
pub fn train<W: AsRef<str>>(
    words: &[W],
    counts: &[u64],
    config: &TrainerConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TrainOutput> {
    if words.len() != counts.len() {
        return Err(Error::Value("words and counts differ in length".into()));
    }
    if words.is_empty() || counts.iter().all(|&c| c == 0) {
        return Err(Error::Value("the corpus has no words to train on".into()));
    }
    let prefix = config.continuing_subword_prefix.as_str();

    // Alphabet: every character, or the most frequent ones.
    let suffix = config.end_of_word_suffix.as_str();
    let mut char_freq: FxHashMap<char, u64> = FxHashMap::default();
    for (w, &c) in words.iter().zip(counts) {
        for ch in w.as_ref().chars().chain(suffix.chars()) {
            *char_freq.entry(ch).or_insert(0) += c;
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
        words: Vec::with_capacity(words.len()),
        counts,
        pairs: PairTable::default(),
        heap: BinaryHeap::new(),
        queued_at: Vec::new(),
        step: 0,
        total_tokens: 0,
    };
    let mut initial_tokens = 0u64;
    for (w, &count) in words.iter().zip(counts) {
        let w = w.as_ref();
        let mut syms = Vec::with_capacity(w.len() + suffix.len());
        let mut starts = Vec::with_capacity(w.len() + suffix.len());
        for (k, ch) in w.chars().chain(suffix.chars()).enumerate() {
            let id = if kept.contains(&ch) {
                let s = if k == 0 {
                    ch.to_string()
                } else {
                    format!("{prefix}{ch}")
                };
                let id = state.intern(s);
                state.freq[id as usize] += count;
                id
            } else {
                BARRIER
            };
            syms.push(id);
            starts.push(k as u32);
        }
        initial_tokens += count * syms.len() as u64;
        state.words.push(Word { syms, starts });
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
    for s in &config.special_tokens {
        if in_vocab.insert(s.clone()) {
            vocab.push(s.clone());
        }
    }
    let mut alphabet: Vec<&String> = state.strings.iter().collect();
    alphabet.sort_unstable();
    let before = vocab.len();
    for s in alphabet {
        if in_vocab.insert(s.clone()) {
            vocab.push(s.clone());
        }
    }
    let alphabet_size = vocab.len() - before;

    // Initial pair statistics, scanning words in order, left to right.
    for (w, word) in state.words.iter().enumerate() {
        for (k, win) in word.syms.windows(2).enumerate() {
            if win[0] == BARRIER || win[1] == BARRIER {
                continue;
            }
            let id = state.pairs.get_or_create(win[0], win[1]);
            state.pairs.add_word(id, w as u32);
            let s = &mut state.pairs.states[id as usize];
            s.freq += counts[w];
            if s.first == NOWHERE {
                s.first = (w as u32, word.starts[k]);
            }
        }
    }
    let entries: Vec<Entry> = (0..state.pairs.states.len() as u32)
        .filter(|&p| state.mergeable(p))
        .map(|p| state.entry(p))
        .collect();
    state.heap = BinaryHeap::from(entries);

    let mut merges = Vec::new();
    while vocab.len() < config.vocab_size {
        let Some(pair) = state.pop_best() else { break };
        let s = &state.pairs.states[pair as usize];
        let (a, b, pair_frequency) = (s.left, s.right, s.freq);
        let (left_frequency, right_frequency) = (state.freq[a as usize], state.freq[b as usize]);
        let c = state.merge(pair);
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
        });
        progress(merges.len(), vocab.len());
    }
    Ok(TrainOutput {
        vocab,
        merges,
        alphabet_size,
        initial_tokens,
        total_words: counts.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::NormalizerConfig;
    use crate::pretokenize::PreTokenizer;
    use counts::WordSplitter;

    fn seed_corpus() -> counts::WordCounts {
        let corpus = [
            "This is the Hugging Face Course.",
            "This chapter is about tokenization.",
            "This section shows several tokenizer algorithms.",
            "Hopefully, you will be able to understand how they are trained and generate tokens.",
        ];
        let splitter = WordSplitter {
            normalizer: Some(NormalizerConfig {
                lowercase: false,
                ..Default::default()
            }),
            pre_tokenizer: PreTokenizer::Bert,
        };
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
        let out = train(&words, &counts, &config, &mut |_, _| {}).unwrap();
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

    #[test]
    fn empty_corpus_is_an_error() {
        let err = train::<&str>(&[], &[], &TrainerConfig::default(), &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("no words"));
    }
}
