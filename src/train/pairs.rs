//! Pair statistics: frequency, the occurrences of each pair and the first of
//! them, and the pairs each unit takes part in.
//!
//! An occurrence is named by the node (see `symbols.rs`) of its left unit.
//! Nodes are numbered in first-appearance order of the words, left to right
//! within a word, so the smallest live occurrence is the one met first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

/// No occurrence (a pair that is not in the corpus now).
pub const NOWHERE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct PairState {
    pub left: u32,
    pub right: u32,
    /// Σ count over the live occurrences.
    pub freq: u64,
    /// The first live occurrence, or `NOWHERE`.
    pub first: u32,
    /// Bumped whenever the pair's queue entry is renewed (older ones are stale).
    pub version: u32,
    /// Every occurrence ever made, smallest first; those merged away since
    /// stay until they surface and are checked. A node never holds the same
    /// pair twice (units only grow), so none comes back to life.
    pub occurrences: BinaryHeap<Reverse<u32>>,
    /// Whether the pair is in its left and its right unit's `by_unit` list
    /// (a pair of one unit twice is only in the first).
    pub listed: [bool; 2],
    /// The unit whose string the merge would make, if it is a unit already
    /// (`NO_UNIT` otherwise). Kept for the likelihood score only.
    pub makes: u32,
    /// For a unit paired with itself: how many occurrences a merge would
    /// replace (left to right, without overlap), once counted; `None` after
    /// any occurrence changes. Kept for the likelihood score only.
    pub replaced: Option<u64>,
    /// Likelihood score: what kind of bound the pair's queue entry holds.
    pub tier: Tier,
    /// The merge step that last listed the pair as touched, and the one that
    /// last queued it: each happens once a step. Kept here, beside the
    /// counts the same moments update, rather than in arrays of their own
    /// (a cache miss each, a few million times a run).
    pub touched_at: u32,
    pub queued_at: u32,
}

/// `PairState::touched_at` and `queued_at` before any merge step did so.
pub const NOT_YET: u32 = u32::MAX;

/// No pair.
pub const NO_PAIR: u32 = u32::MAX;

/// Likelihood score: the kinds of upper bound a queue entry can hold, from
/// the loosest and cheapest to keep to the tightest (see `train/mod.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// `gain::cap`: holds whatever the unit counts do.
    Cap,
    /// The gain at the units' floors: holds until a count falls below its floor.
    Floor,
    /// The gain at the units' counts now: renewed whenever one falls.
    Tight,
}

/// `PairState::makes` when the merged string is no unit yet.
pub const NO_UNIT: u32 = u32::MAX;

#[derive(Debug, Default)]
pub struct PairTable {
    ids: FxHashMap<u64, u32>,
    pub states: Vec<PairState>,
    /// For each unit, the pairs it takes part in (dead ones are dropped when
    /// met, and listed again if they come back).
    pub by_unit: Vec<Vec<u32>>,
}

fn key(left: u32, right: u32) -> u64 {
    ((left as u64) << 32) | right as u64
}

impl PairTable {
    pub fn id(&self, left: u32, right: u32) -> Option<u32> {
        self.ids.get(&key(left, right)).copied()
    }

    /// The pair's id, and whether it was created now.
    pub fn get_or_create(&mut self, left: u32, right: u32) -> (u32, bool) {
        if let Some(id) = self.id(left, right) {
            return (id, false);
        }
        let id = self.states.len() as u32;
        self.ids.insert(key(left, right), id);
        self.states.push(PairState {
            left,
            right,
            freq: 0,
            first: NOWHERE,
            version: 0,
            occurrences: BinaryHeap::new(),
            listed: [false; 2],
            makes: NO_UNIT,
            replaced: None,
            tier: Tier::Cap,
            touched_at: NOT_YET,
            queued_at: NOT_YET,
        });
        (id, true)
    }

    /// Puts pair `id` in its units' lists, where it is not already.
    pub fn list(&mut self, id: u32) {
        let s = &self.states[id as usize];
        let units = [s.left, s.right];
        let sides = if s.left == s.right { 1 } else { 2 };
        for (side, &unit) in units.iter().enumerate().take(sides) {
            if std::mem::replace(&mut self.states[id as usize].listed[side], true) {
                continue;
            }
            let u = unit as usize;
            if self.by_unit.len() <= u {
                self.by_unit.resize(u + 1, Vec::new());
            }
            self.by_unit[u].push(id);
        }
    }

    /// The live pairs of `unit`; dead ones leave the list (and `list` puts
    /// them back when they come back).
    pub fn live_pairs_of(&mut self, unit: u32) -> Vec<u32> {
        let Some(list) = self.by_unit.get_mut(unit as usize) else {
            return Vec::new();
        };
        let mut list = std::mem::take(list);
        list.retain(|&p| {
            let s = &mut self.states[p as usize];
            let live = s.freq > 0;
            if !live {
                s.listed[usize::from(s.left != unit)] = false;
            }
            live
        });
        self.by_unit[unit as usize].clone_from(&list);
        list
    }
}
