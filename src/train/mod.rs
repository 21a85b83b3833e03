//! Exact WordPiece training with incremental updates.
//!
//! State: the units of every word type in one linked arena (word types in
//! first-appearance order), unit frequencies f(s), pair frequencies p(x, y)
//! with the positions of each pair's occurrences, and a max-heap of versioned
//! entries ordered by the exact score p / (f(x) f(y)) (or p alone for
//! `Score::Frequency`), ties going to the pair met first scanning words in
//! order, left to right.
//!
//! A merge of (A, B) into C visits only the occurrences of (A, B), however
//! long the words holding them. Every pair containing A, B or C gets a fresh
//! entry, because f(A) and f(B) fell (so their scores rose) and f(C) changed;
//! older entries are recognised as stale by their version when popped.

pub mod counts;
pub mod pairs;
pub mod queue;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{Error, Result};
use pairs::{PairTable, NOWHERE};
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

/// Where a node's unit stands: no unit (merged into its left neighbour).
const DEAD: u32 = u32::MAX - 1;
/// No neighbour.
const NONE: u32 = u32::MAX;
/// A character outside the alphabet: it forms no pairs and has no frequency.
const BARRIER: u32 = u32::MAX;

/// Every word type's units in one arena, words in first-appearance order and
/// each left to right, linked to their neighbours within the word. A merge
/// rewrites two nodes in place, so its cost follows the occurrences it
/// touches, not the length of the words holding them.
#[derive(Default)]
struct Nodes {
    unit: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    word: Vec<u32>,
}

struct State<'a> {
    config: &'a TrainerConfig,
    strings: Vec<String>,
    ids: FxHashMap<String, u32>,
    /// f(unit).
    freq: Vec<u64>,
    nodes: Nodes,
    /// Count of each word (indexed like `Nodes::word`).
    counts: Vec<u64>,
    pairs: PairTable,
    heap: BinaryHeap<Entry>,
    /// Per pair: the merge step that last queued it (dedups pushes).
    queued_at: Vec<u32>,
    step: u32,
    total_tokens: u64,
    /// Pairs whose frequency or first occurrence changed in this merge.
    touched: Vec<u32>,
    /// Pairs whose first occurrence was merged away in this merge.
    lost_first: Vec<u32>,
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

    /// Whether the pair `(left, right)` stands at `node` now.
    fn holds(&self, node: u32, left: u32, right: u32) -> bool {
        let n = &self.nodes;
        let next = n.next[node as usize];
        n.unit[node as usize] == left && next != NONE && n.unit[next as usize] == right
    }

    /// Counts the pair `(left, right)` at `node` (a word counted `count` times).
    fn add_occurrence(&mut self, left: u32, right: u32, node: u32, count: u64) {
        if left == BARRIER || right == BARRIER {
            return;
        }
        let id = self.pairs.get_or_create(left, right);
        let s = &mut self.pairs.states[id as usize];
        s.freq += count;
        s.occurrences.push(Reverse(node));
        s.first = s.first.min(node);
        self.pairs.list(id);
        self.touched.push(id);
    }

    /// Uncounts the pair `(left, right)` at `node`, about to be merged away.
    fn remove_occurrence(&mut self, left: u32, right: u32, node: u32, count: u64) {
        if left == BARRIER || right == BARRIER {
            return;
        }
        let Some(id) = self.pairs.id(left, right) else {
            return;
        };
        let s = &mut self.pairs.states[id as usize];
        s.freq -= count;
        if s.first == node {
            self.lost_first.push(id);
        }
        self.touched.push(id);
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

    /// Merges `pair` wherever it stands, left to right without overlap;
    /// returns the merged unit.
    fn merge(&mut self, pair: u32, cancel: &mut dyn FnMut() -> Result<()>) -> Result<u32> {
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

        let mut at: Vec<u32> = std::mem::take(&mut self.pairs.states[pair as usize].occurrences)
            .into_iter()
            .map(|Reverse(node)| node)
            .collect();
        // Left to right: an occurrence overlapping the one before it is gone by then.
        at.sort_unstable();
        for (k, node) in at.into_iter().enumerate() {
            if k % 65_536 == 65_535 {
                cancel()?;
            }
            // Gone: merged away earlier, or taken by the overlapping
            // occurrence just before it ("aaa": (a, a) at 0 takes the one at 1).
            if !self.holds(node, a, b) {
                continue;
            }
            let i = node as usize;
            let j = self.nodes.next[i];
            let (p, n) = (self.nodes.prev[i], self.nodes.next[j as usize]);
            let count = self.counts[self.nodes.word[i] as usize];
            if p != NONE {
                self.remove_occurrence(self.nodes.unit[p as usize], a, p, count);
            }
            self.remove_occurrence(a, b, node, count);
            if n != NONE {
                self.remove_occurrence(b, self.nodes.unit[n as usize], j, count);
            }
            self.nodes.unit[i] = c;
            self.nodes.unit[j as usize] = DEAD;
            self.nodes.next[i] = n;
            if n != NONE {
                self.nodes.prev[n as usize] = node;
            }
            if p != NONE {
                self.add_occurrence(self.nodes.unit[p as usize], c, p, count);
            }
            if n != NONE {
                self.add_occurrence(c, self.nodes.unit[n as usize], node, count);
            }
            self.freq[a as usize] -= count;
            self.freq[b as usize] -= count;
            self.freq[c as usize] += count;
            self.total_tokens -= count;
        }

        // First occurrences merged away: the next live one surfaces.
        for id in std::mem::take(&mut self.lost_first) {
            let (l, r) = {
                let s = &self.pairs.states[id as usize];
                (s.left, s.right)
            };
            let mut first = NOWHERE;
            while let Some(&Reverse(node)) = self.pairs.states[id as usize].occurrences.peek() {
                if self.holds(node, l, r) {
                    first = node;
                    break;
                }
                self.pairs.states[id as usize].occurrences.pop();
            }
            self.pairs.states[id as usize].first = first;
        }
        let touched = std::mem::take(&mut self.touched);
        for &id in &touched {
            let s = &mut self.pairs.states[id as usize];
            if s.freq == 0 {
                s.occurrences = BinaryHeap::new();
                s.first = NOWHERE;
            }
        }
        for &id in &touched {
            self.requeue(id);
        }
        self.touched = touched;
        self.touched.clear();
        if self.config.score == Score::WordPiece {
            // f(a), f(b), f(c) changed: so did the score of every pair holding them.
            for unit in [a, b, c] {
                for p in self.pairs.live_pairs_of(unit) {
                    self.requeue(p);
                }
            }
        }
        self.maybe_rebuild_heap();
        Ok(c)
    }
}

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

    // Alphabet: every character, or the most frequent ones.
    let mut char_freq: FxHashMap<char, u64> = FxHashMap::default();
    for (w, &c) in words.iter().zip(&counts) {
        for ch in w.chars().chain(suffix.chars()) {
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
        nodes: Nodes::default(),
        counts: counts.clone(),
        pairs: PairTable::default(),
        heap: BinaryHeap::new(),
        queued_at: Vec::new(),
        step: 0,
        total_tokens: 0,
        touched: Vec::new(),
        lost_first: Vec::new(),
    };
    let nodes = &mut state.nodes;
    nodes.unit.reserve_exact(n_nodes);
    nodes.next.reserve_exact(n_nodes);
    nodes.prev.reserve_exact(n_nodes);
    nodes.word.reserve_exact(n_nodes);
    let mut initial_tokens = 0u64;
    for (w, (word, &count)) in words.iter().zip(&counts).enumerate() {
        if w % 4096 == 4095 {
            progress(0, 0)?;
        }
        let start = state.nodes.unit.len() as u32;
        let mut len = 0u32;
        for (k, ch) in word.chars().chain(suffix.chars()).enumerate() {
            let unit = if kept.contains(&ch) {
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
            let node = start + len;
            let nodes = &mut state.nodes;
            nodes.unit.push(unit);
            nodes.prev.push(if k == 0 { NONE } else { node - 1 });
            nodes.next.push(node + 1);
            nodes.word.push(w as u32);
            len += 1;
        }
        if len > 0 {
            state.nodes.next[(start + len - 1) as usize] = NONE;
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
    for node in 0..state.nodes.unit.len() as u32 {
        if node % (1 << 20) == (1 << 20) - 1 {
            progress(0, vocab.len())?;
        }
        let next = state.nodes.next[node as usize];
        if next != NONE {
            let (l, r) = (
                state.nodes.unit[node as usize],
                state.nodes.unit[next as usize],
            );
            let count = state.counts[state.nodes.word[node as usize] as usize];
            state.add_occurrence(l, r, node, count);
        }
    }
    state.touched.clear();
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
        let vocab_len = vocab.len();
        let c = state.merge(pair, &mut || progress(merges.len(), vocab_len))?;
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
        progress(merges.len(), vocab.len())?;
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

    #[test]
    fn empty_corpus_is_an_error() {
        let err =
            train::<&str>(&[], &[], &TrainerConfig::default(), &mut |_, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("no words"));
    }
}
