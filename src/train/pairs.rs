//! Pair statistics: frequency, first occurrence and the words holding each pair.

use rustc_hash::FxHashMap;

/// Symbol id that stands for a character outside the alphabet: it forms no
/// pairs and has no frequency.
pub const BARRIER: u32 = u32::MAX;

/// Not yet seen in any word.
pub const NOWHERE: (u32, u32) = (u32::MAX, u32::MAX);

#[derive(Clone, Debug)]
pub struct PairState {
    pub left: u32,
    pub right: u32,
    pub freq: u64,
    /// (word, char position) of the first occurrence in first-appearance order.
    pub first: (u32, u32),
    pub version: u32,
    /// Words that hold (or held) the pair; may contain stale entries.
    pub words: Vec<u32>,
    pub words_sorted: bool,
}

#[derive(Debug, Default)]
pub struct PairTable {
    ids: FxHashMap<u64, u32>,
    pub states: Vec<PairState>,
    /// For each symbol, the pairs it takes part in (may contain dead pairs).
    pub by_unit: Vec<Vec<u32>>,
}

fn key(left: u32, right: u32) -> u64 {
    ((left as u64) << 32) | right as u64
}

impl PairTable {
    pub fn id(&self, left: u32, right: u32) -> Option<u32> {
        self.ids.get(&key(left, right)).copied()
    }

    pub fn get_or_create(&mut self, left: u32, right: u32) -> u32 {
        if let Some(id) = self.id(left, right) {
            return id;
        }
        let id = self.states.len() as u32;
        self.ids.insert(key(left, right), id);
        self.states.push(PairState {
            left,
            right,
            freq: 0,
            first: NOWHERE,
            version: 0,
            words: Vec::new(),
            words_sorted: true,
        });
        for unit in [left, right] {
            let u = unit as usize;
            if self.by_unit.len() <= u {
                self.by_unit.resize(u + 1, Vec::new());
            }
            self.by_unit[u].push(id);
        }
        if left == right {
            self.by_unit[left as usize].pop();
        }
        id
    }

    /// Records that `word` holds pair `id` (words are usually added in order).
    pub fn add_word(&mut self, id: u32, word: u32) {
        let s = &mut self.states[id as usize];
        match s.words.last() {
            Some(&last) if last == word => {}
            Some(&last) => {
                if last > word {
                    s.words_sorted = false;
                }
                s.words.push(word);
            }
            None => s.words.push(word),
        }
    }

    /// The sorted, deduplicated words of pair `id`.
    pub fn sorted_words(&mut self, id: u32) -> &[u32] {
        let s = &mut self.states[id as usize];
        if !s.words_sorted {
            s.words.sort_unstable();
            s.words.dedup();
            s.words_sorted = true;
        }
        &s.words
    }
}

/// First char position of the pair `(left, right)` in a word, if any.
pub fn first_position(syms: &[u32], starts: &[u32], left: u32, right: u32) -> Option<u32> {
    syms.windows(2)
        .position(|w| w[0] == left && w[1] == right)
        .map(|i| starts[i])
}
