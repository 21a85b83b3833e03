//! The training state and the proof that its choice of merge is exact.
//!
//! State: the units of every word type in one linked arena (word types in
//! first-appearance order), unit frequencies f(s), pair frequencies p(x, y)
//! with the positions of each pair's occurrences, and a max-heap of versioned
//! entries, ties going to the pair met first scanning words in order, left to
//! right. Three scores rank the pairs:
//! - `WordPiece`: the exact ratio p / (f(x) f(y)), in integers;
//! - `Frequency`: p alone, as BPE;
//! - `Likelihood`: the gain in log-likelihood ΔL (see `gain.rs`), in f64.
//!
//! A merge of (A, B) into C visits only the occurrences of (A, B), however
//! long the words holding them. Every pair containing A, B or C gets a fresh
//! entry, because f(A) and f(B) fell and f(C) rose; older entries are
//! recognised as stale by their version when popped.
//!
//! The likelihood gain also depends on N, the total count of units, which
//! falls with every merge and so changes every pair's ΔL at every step.
//! Rescoring all pairs per merge would cost O(pairs) a step; instead the
//! queue is lazy, like CELF's (Leskovec et al. 2007), and stays exact.
//!
//! Invariant: every mergeable pair has one current entry, whose key is an
//! upper bound on the pair's f64 ΔL now. It holds because each key is one of
//! three bounds (`pairs::Tier`), each renewed when it could break:
//! - `Cap`: `gain::cap(p, N)`, a bound over all unit counts. Breaks only if p
//!   changes (the pair is then requeued) or N rises (never).
//! - `Floor`: ΔL with f(x), f(y) lowered to their units' floors (3/4 of a
//!   count, kept per unit). ΔL falls as f(x) or f(y) rises
//!   (∂ΔL/∂f(x) = ln(1 − k/f(x)) < 0), so it holds until a count falls below
//!   its floor; then the floor is lowered and the unit's Floor pairs requeued.
//! - `Tight`: ΔL at the counts now; requeued whenever f(x) or f(y) falls.
//!
//! All three: ΔL rises with N (∂ΔL/∂N = ln(N / (N − k)) > 0) and N only
//! falls, and `gain::slack(k)`, twice the f64 rounding error, covers the
//! difference between f64 values at different N. f(z) rising (pairs making
//! C) raises ΔL: those pairs are requeued (`requeue_makers`); every other
//! count change lowers ΔL (f(c) for pairs of C, f(z) for pairs making A or
//! B), so their keys hold.
//!
//! Selection (`pop_best_gain`): pop entries while their key is at least the
//! best exact ΔL computed in this step, computing each popped pair's exact
//! ΔL now; push back all but the winner. Every pair left in the heap has a
//! key, hence a ΔL, below the winner's, and every pair whose ΔL could equal
//! it was popped and compared by first occurrence: the winner is the exact
//! argmax of the f64 formula, with the same tie-break as the other scores.
//! Which bound a pair gets only decides how soon it is popped, never the
//! result: the loosest one below the last winner's ΔL (it will not be popped
//! soon), else Tight (`classify`). So the many pairs of frequent units carry
//! caps or floors and are left alone when those units merge.
//!
//! A unit paired with itself (x = y) replaces fewer occurrences than it has
//! when runs overlap ("a a a" merges once). Its exact k takes a scan of its
//! occurrences, so it is counted only when the pair is popped; until then its
//! bound uses k ∈ [⌈p/2⌉, min(p, f(x)/2)], where ΔL is convex in k (second
//! derivative 4/(f(x)−2k) + 1/(f(z)+k) − 1/(N−k) > 0), so the larger of its
//! values at the two ends bounds it.
//!
//! Debug builds check the invariant for every pair after every merge of
//! small runs (`check_gain_bounds`), which the property tests exercise.
//!
//! A merge itself is in `merge.rs`, the counting of the pairs it adds and
//! removes in `occurrences.rs`; the loop that builds the state and
//! merges until the vocab is full in `trainer.rs`.
//!
//! Why this file is long: `State` is one data structure whose invariants
//! (the arena, the occurrence heaps, the versioned queue and the bound
//! tiers) every method keeps together, and the argument above refers to
//! all of them.

use std::cmp::Reverse;

use rustc_hash::FxHashMap;

use super::config::{Score, TrainerConfig};
use super::gain;
use super::pairs::{PairTable, Tier, NO_UNIT};
use super::queue::{Entry, Key, Queue};
use super::string_hash::StrHash;
use crate::error::Result;

/// Where a node's unit stands: no unit (merged into its left neighbour).
pub(super) const DEAD: u32 = u32::MAX - 1;
/// No neighbour.
pub(super) const NONE: u32 = u32::MAX;
/// A character outside the alphabet: it forms no pairs and has no frequency.
pub(super) const BARRIER: u32 = u32::MAX;

/// Every word type's units in one arena, words in first-appearance order and
/// each left to right, linked to their neighbours within the word. A merge
/// rewrites two nodes in place, so its cost follows the occurrences it
/// touches, not the length of the words holding them. A node keeps all a
/// merge reads of it (its neighbours, the pair starting at it, its word's
/// count) side by side, 24 bytes: one cache line (two, for 2 nodes in 8)
/// where separate arrays took five. It costs 8 bytes a node more than
/// those arrays did.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub(super) unit: u32,
    pub(super) next: u32,
    pub(super) prev: u32,
    /// The pair (this unit, the next one) standing here, `NO_PAIR` when
    /// there is none (last unit, a barrier, merged away): a merge removes
    /// the pairs around each occurrence without looking them up.
    pub(super) pair: u32,
    /// The count of the word holding the node.
    pub(super) count: u64,
}

pub(super) struct State<'a> {
    pub(super) config: &'a TrainerConfig,
    pub(super) strings: Vec<String>,
    pub(super) ids: FxHashMap<String, u32>,
    /// f(unit).
    pub(super) freq: Vec<u64>,
    pub(super) nodes: Vec<Node>,
    pub(super) pairs: PairTable,
    pub(super) heap: Queue,
    /// By unit x: the pairs (c, x) and (x, c) of the merge step in hand's
    /// unit c, once looked up (`(step, [(c, x), (x, c)])`, `NO_PAIR` for not
    /// yet). A merge meets the same few neighbours of c again and again,
    /// and this small table stays in cache where the pair table does not.
    pub(super) beside_merged: Vec<(u32, [u32; 2])>,
    pub(super) step: u32,
    pub(super) total_tokens: u64,
    /// N: Σ f(unit) (characters outside the alphabet are no units).
    pub(super) total_units: u64,
    /// Likelihood score only: each unit by the hash of its string
    /// (`AMBIGUOUS` when units share one), and each unit's hash, whole and
    /// without the prefix (`makers.rs`).
    pub(super) unit_by_hash: FxHashMap<u64, u32>,
    pub(super) unit_hashes: Vec<StrHash>,
    pub(super) bare_hashes: Vec<StrHash>,
    /// Likelihood score only: for each unit, the pairs whose merge makes it.
    pub(super) makers: Vec<Vec<u32>>,
    /// Likelihood score only: for each unit, its pairs of tier Tight, and of
    /// tier Floor (lists may also hold pairs that left the tier since, dropped
    /// when met).
    pub(super) tight_of: Vec<Vec<u32>>,
    pub(super) floored_of: Vec<Vec<u32>>,
    /// Likelihood score only: each unit's floor, a count it has not fallen
    /// below since Floor bounds were computed from it (`NO_FLOOR`: none yet).
    pub(super) floor: Vec<u64>,
    /// Likelihood score only: the gain of the last merge; pairs whose looser
    /// bound falls below it get that bound, as they are unlikely to win soon.
    pub(super) reference_gain: f64,
    /// Pairs whose frequency or first occurrence changed in this merge, each
    /// once.
    pub(super) touched: Vec<u32>,
    /// Pairs whose first occurrence was merged away in this merge.
    pub(super) lost_first: Vec<u32>,
}

impl State<'_> {
    pub(super) fn intern(&mut self, s: String) -> u32 {
        if let Some(&id) = self.ids.get(&s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.ids.insert(s.clone(), id);
        self.strings.push(s);
        self.freq.push(0);
        if self.config.score == Score::Likelihood {
            self.unit_made(id);
        }
        id
    }

    /// The two parts of the string a merge of `(left, right)` makes: the
    /// left unit, and the right one without its prefix.
    pub(super) fn merged_parts(&self, left: u32, right: u32) -> (&str, &str) {
        let prefix = self.config.continuing_subword_prefix.as_str();
        let right = self.strings[right as usize].as_str();
        (
            self.strings[left as usize].as_str(),
            right.strip_prefix(prefix).unwrap_or(right),
        )
    }

    /// The string a merge of `(left, right)` makes.
    pub(super) fn merged_string(&self, left: u32, right: u32) -> String {
        let (l, r) = self.merged_parts(left, right);
        format!("{l}{r}")
    }

    /// f(unit), 0 for `NO_UNIT`.
    pub(super) fn count_of(&self, unit: u32) -> u64 {
        if unit == NO_UNIT {
            0
        } else {
            self.freq[unit as usize]
        }
    }

    /// The likelihood gain of merging `pair` if it replaced `k` occurrences.
    pub(super) fn gain_if(&self, pair: u32, k: u64) -> f64 {
        let s = &self.pairs.states[pair as usize];
        let unit = |u: u32| (u, self.count_of(u));
        gain::merge_gain(
            k,
            unit(s.left),
            unit(s.right),
            unit(s.makes),
            self.total_units,
        )
    }

    /// How many occurrences merging `pair` replaces now: its frequency, but
    /// for a unit paired with itself, left to right without overlap (counted
    /// by a scan of its occurrences, then kept until they change).
    pub(super) fn replaced(&mut self, pair: u32) -> u64 {
        let s = &self.pairs.states[pair as usize];
        if s.left != s.right {
            return s.freq;
        }
        if let Some(k) = s.replaced {
            return k;
        }
        let unit = s.left;
        let mut live: Vec<u32> = std::mem::take(&mut self.pairs.states[pair as usize].occurrences)
            .into_iter()
            .map(|Reverse(node)| node)
            .filter(|&node| self.holds(node, unit, unit))
            .collect();
        live.sort_unstable();
        let (mut k, mut taken) = (0u64, NONE);
        for &node in &live {
            if taken != NONE && self.nodes[taken as usize].next == node {
                continue; // its left unit went into the occurrence before it
            }
            k += self.nodes[node as usize].count;
            taken = node;
        }
        let s = &mut self.pairs.states[pair as usize];
        s.occurrences = live.into_iter().map(Reverse).collect();
        s.replaced = Some(k);
        k
    }

    pub(super) fn entry(&self, pair: u32) -> Entry {
        let s = &self.pairs.states[pair as usize];
        let ratio = |denom| Key::Ratio { num: s.freq, denom };
        let key = match self.config.score {
            Score::WordPiece => {
                ratio(self.freq[s.left as usize] as u128 * self.freq[s.right as usize] as u128)
            }
            Score::Frequency => ratio(1),
            // Fresh queues (at the start, after a rebuild) hold caps only;
            // pairs earn tighter bounds as they are popped.
            Score::Likelihood => Key::GainBound(gain::cap(s.freq, self.total_units)),
        };
        Entry {
            key,
            first: s.first,
            pair,
            version: s.version,
        }
    }

    /// An upper bound on the pair's f64 likelihood gain, now and at every
    /// later step while its counts stay as they are (see the module comment).
    pub(super) fn gain_bound(&self, pair: u32) -> f64 {
        let s = &self.pairs.states[pair as usize];
        if s.left != s.right {
            return self.gain_if(pair, s.freq) + gain::slack(s.freq);
        }
        if let Some(k) = s.replaced {
            return self.gain_if(pair, k) + gain::slack(k);
        }
        let lo = s.freq.div_ceil(2);
        let hi = s.freq.min(self.freq[s.left as usize] / 2).max(lo);
        self.gain_if(pair, lo).max(self.gain_if(pair, hi)) + gain::slack(hi)
    }

    pub(super) fn mergeable(&self, pair: u32) -> bool {
        let f = self.pairs.states[pair as usize].freq;
        f > 0 && f >= self.config.min_frequency
    }

    /// Whether the pair `(left, right)` stands at `node` now.
    pub(super) fn holds(&self, node: u32, left: u32, right: u32) -> bool {
        let n = &self.nodes[node as usize];
        n.unit == left && n.next != NONE && self.nodes[n.next as usize].unit == right
    }

    /// Gives `pair` a new version and, if it can still be merged, a fresh entry.
    pub(super) fn requeue(&mut self, pair: u32) {
        let p = pair as usize;
        let step = self.step;
        let s = &mut self.pairs.states[p];
        if std::mem::replace(&mut s.queued_at, step) == step {
            return;
        }
        s.version = s.version.wrapping_add(1);
        if self.mergeable(pair) {
            let e = if self.config.score == Score::Likelihood {
                let s = &self.pairs.states[p];
                let key = match (s.tier, s.left == s.right && s.replaced.is_none()) {
                    (Tier::Cap, _) => gain::cap(s.freq, self.total_units),
                    // A self pair's exact k waits for its pop: until then,
                    // the convexity bound at the counts now.
                    (_, true) => {
                        self.set_tier(pair, Tier::Tight);
                        self.gain_bound(pair)
                    }
                    _ => {
                        let k = self.replaced(pair);
                        self.classify(pair, k, None)
                    }
                };
                Entry {
                    key: Key::GainBound(key),
                    first: self.pairs.states[p].first,
                    pair,
                    version: self.pairs.states[p].version,
                }
            } else {
                self.entry(pair)
            };
            self.heap.push(e);
        }
    }

    /// Likelihood score: the bound for a pair replacing `k` (of exact gain
    /// `g`, computed here if not given and only if needed: most pairs get a
    /// looser bound) to hold in the queue, the loosest of the three kinds
    /// that still lies below the last merge's gain (so the pair is unlikely
    /// to be popped soon) and otherwise the tight one; the pair is listed for
    /// the count changes its kind must hear of.
    pub(super) fn classify(&mut self, pair: u32, k: u64, g: Option<f64>) -> f64 {
        let cap = gain::cap(self.pairs.states[pair as usize].freq, self.total_units);
        let (tier, key) = if cap < self.reference_gain {
            (Tier::Cap, cap)
        } else {
            let s = &self.pairs.states[pair as usize];
            for u in [s.left, s.right] {
                self.set_floor_if_none(u);
            }
            let floor = self.floor_bound(pair, k);
            if floor < self.reference_gain {
                (Tier::Floor, floor)
            } else {
                let g = g.unwrap_or_else(|| self.gain_if(pair, k));
                (Tier::Tight, g + gain::slack(k))
            }
        };
        self.set_tier(pair, tier);
        key
    }

    /// Gives the pair its tier, listing it under its units when it enters
    /// Floor or Tight.
    pub(super) fn set_tier(&mut self, pair: u32, tier: Tier) {
        let s = &mut self.pairs.states[pair as usize];
        if std::mem::replace(&mut s.tier, tier) != tier && tier != Tier::Cap {
            let (l, r) = (s.left, s.right);
            let lists = self.listed_by_unit(tier);
            let need = l.max(r) as usize + 1;
            if lists.len() < need {
                lists.resize(need, Vec::new());
            }
            lists[l as usize].push(pair);
            if r != l {
                lists[r as usize].push(pair);
            }
        }
    }

    /// For each unit, its pairs of `tier` (Floor or Tight).
    pub(super) fn listed_by_unit(&mut self, tier: Tier) -> &mut Vec<Vec<u32>> {
        match tier {
            Tier::Tight => &mut self.tight_of,
            Tier::Floor => &mut self.floored_of,
            Tier::Cap => unreachable!("pairs with caps are not listed"),
        }
    }

    pub(super) fn set_floor_if_none(&mut self, unit: u32) {
        let u = unit as usize;
        if self.floor.len() <= u {
            self.floor.resize(u + 1, NO_FLOOR);
        }
        if self.floor[u] == NO_FLOOR {
            self.floor[u] = floor_of(self.freq[u]);
        }
    }

    /// The gain with the units' counts at their floors (set for both units):
    /// a bound until one falls below, as the gain grows when they fall.
    pub(super) fn floor_bound(&self, pair: u32, k: u64) -> f64 {
        let s = &self.pairs.states[pair as usize];
        let least = if s.left == s.right { 2 * k } else { k };
        let unit = |u: u32| {
            let at = self.floor[u as usize].min(self.freq[u as usize]);
            (u, at.max(least))
        };
        let z = (s.makes, self.count_of(s.makes));
        gain::merge_gain(k, unit(s.left), unit(s.right), z, self.total_units) + gain::slack(k)
    }

    pub(super) fn is_current(&self, e: &Entry) -> bool {
        self.pairs.states[e.pair as usize].version == e.version && self.mergeable(e.pair)
    }

    /// The pair to merge next and, for the likelihood score, its exact gain.
    pub(super) fn pop_best(&mut self) -> Option<(u32, Option<f64>)> {
        if self.config.score == Score::Likelihood {
            return self.pop_best_gain();
        }
        while let Some(e) = self.heap.pop() {
            if self.is_current(&e) {
                return Some((e.pair, None));
            }
        }
        None
    }

    /// The exact argmax of the likelihood gain now, ties to the first met:
    /// entries hold upper bounds, so popping stops at the first bound below
    /// the best exact gain found (the argument is in the module comment).
    pub(super) fn pop_best_gain(&mut self) -> Option<(u32, Option<f64>)> {
        // The best so far, and the others popped: (exact gain, k, entry).
        let mut best: Option<(f64, u64, Entry)> = None;
        let mut beaten: Vec<(f64, u64, Entry)> = Vec::new();
        while let Some(top) = self.heap.peek() {
            let Key::GainBound(bound) = top.key else {
                unreachable!("a likelihood run queues gain bounds")
            };
            if best.is_some_and(|(g, _, _)| bound < g) {
                break;
            }
            let e = self.heap.pop().expect("peeked");
            if !self.is_current(&e) {
                continue;
            }
            let k = self.replaced(e.pair);
            let g = self.gain_if(e.pair, k);
            debug_assert!(g <= bound, "a bound below the gain: {g} > {bound}");
            let fresh = Entry {
                first: self.pairs.states[e.pair as usize].first,
                ..e
            };
            match best {
                Some((bg, _, b)) if g < bg || (g == bg && fresh.first > b.first) => {
                    beaten.push((g, k, fresh))
                }
                _ => {
                    if let Some(b) = best.replace((g, k, fresh)) {
                        beaten.push(b);
                    }
                }
            }
        }
        let (g, _, winner) = best?;
        self.reference_gain = g;
        for (g, k, e) in beaten {
            let key = self.classify(e.pair, k, Some(g));
            self.heap.push(Entry {
                key: Key::GainBound(key),
                ..e
            });
        }
        Some((winner.pair, Some(g)))
    }

    /// Debug builds, small runs: every live pair's queued bound is at least its
    /// gain now, the invariant `pop_best_gain`'s exactness rests on.
    #[cfg(debug_assertions)]
    pub(super) fn check_gain_bounds(&mut self) {
        if self.config.score != Score::Likelihood || self.heap.len() > 4096 {
            return;
        }
        let mut bound: FxHashMap<u32, f64> = FxHashMap::default();
        for e in self.heap.entries().iter().filter(|e| self.is_current(e)) {
            if let Key::GainBound(b) = e.key {
                bound.insert(e.pair, b);
            }
        }
        for pair in 0..self.pairs.states.len() as u32 {
            if self.mergeable(pair) {
                let k = self.replaced(pair);
                let g = self.gain_if(pair, k);
                let b = bound.get(&pair).copied().unwrap_or(f64::NEG_INFINITY);
                let tier = self.pairs.states[pair as usize].tier;
                assert!(
                    g <= b,
                    "pair {pair} ({tier:?}): gain {g} above its bound {b}"
                );
            }
        }
    }

    /// Debug builds, small runs: every node names the pair standing at it
    /// (the merge loop removes pairs by that name, without a lookup).
    #[cfg(debug_assertions)]
    pub(super) fn check_pairs_at_nodes(&self) {
        if self.nodes.len() > 4096 {
            return;
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let standing = match n.unit {
                DEAD => None,
                unit if n.next == NONE => Some((unit, BARRIER)),
                unit => Some((unit, self.nodes[n.next as usize].unit)),
            };
            let expected = match standing {
                Some((l, r)) if l != BARRIER && r != BARRIER => self
                    .pairs
                    .id(l, r)
                    .expect("a pair standing in a word is known"),
                _ => super::pairs::NO_PAIR,
            };
            assert_eq!(n.pair, expected, "node {i} names the wrong pair");
        }
    }

    /// Likelihood score: `unit`'s count fell, so the gain of each of its pairs
    /// rose. Tight ones get fresh bounds; Floor ones too if it fell below its
    /// floor (then lowered); Cap ones hold. Pairs no longer of the list's
    /// tier leave it (dead ones become Cap, to be listed again if they come
    /// back).
    pub(super) fn requeue_pairs_of_fallen(&mut self, unit: u32, below_floor: bool) {
        let u = unit as usize;
        for tier in [Tier::Tight, Tier::Floor] {
            if tier == Tier::Floor && !below_floor {
                continue;
            }
            let Some(list) = self.listed_by_unit(tier).get_mut(u) else {
                continue;
            };
            let mut list = std::mem::take(list);
            list.retain(|&p| {
                let s = &mut self.pairs.states[p as usize];
                if s.freq == 0 {
                    s.tier = Tier::Cap;
                }
                s.tier == tier
            });
            for &p in &list {
                self.requeue(p);
            }
            // Requeueing may have moved pairs to other tiers (and lists).
            list.retain(|&p| self.pairs.states[p as usize].tier == tier);
            let slot = &mut self.listed_by_unit(tier)[u];
            list.append(slot);
            *slot = list;
        }
    }

    /// Likelihood score: f(c) rose, so the gain of every pair whose merge
    /// makes c rose too; they get fresh bounds.
    pub(super) fn requeue_makers(&mut self, c: u32) {
        let Some(list) = self.makers.get(c as usize) else {
            return;
        };
        for p in list.clone() {
            let s = &self.pairs.states[p as usize];
            if s.freq > 0 && s.tier != Tier::Cap {
                self.requeue(p);
            }
        }
    }

    /// Drops stale entries once they dominate the heap.
    pub(super) fn maybe_rebuild_heap(&mut self) {
        if self.heap.len() < (1 << 16) + 2 * self.pairs.states.len() {
            return;
        }
        for s in &mut self.pairs.states {
            s.tier = Tier::Cap;
        }
        let live: Vec<Entry> = (0..self.pairs.states.len() as u32)
            .filter(|&p| self.mergeable(p))
            .map(|p| self.entry(p))
            .collect();
        self.heap = Queue::from_entries(self.config.score == Score::Likelihood, live);
    }

    /// The nodes in increasing order, without repeats: sorted when few,
    /// through a bitmap of all nodes when they are many (linear, where a sort
    /// of the first merges' tens of millions took a second without a check
    /// for Ctrl-C).
    pub(super) fn in_node_order(
        &self,
        nodes: Vec<Reverse<u32>>,
        cancel: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Vec<u32>> {
        let mut at: Vec<u32> = nodes.into_iter().map(|Reverse(node)| node).collect();
        let all = self.nodes.len();
        if at.len() < all / 64 {
            at.sort_unstable();
            at.dedup();
            return Ok(at);
        }
        let mut bits = vec![0u64; all.div_ceil(64)];
        for (k, &node) in at.iter().enumerate() {
            if k % CANCEL_STRIDE == CANCEL_STRIDE - 1 {
                cancel()?;
            }
            bits[node as usize / 64] |= 1 << (node % 64);
        }
        at.clear();
        for (w, &word) in bits.iter().enumerate() {
            if w % CANCEL_STRIDE == CANCEL_STRIDE - 1 {
                cancel()?;
            }
            let mut rest = word;
            while rest != 0 {
                at.push((w * 64) as u32 + rest.trailing_zeros());
                rest &= rest - 1;
            }
        }
        Ok(at)
    }
}

/// Long loops call their `cancel` check once per this many steps (well
/// under a millisecond of work).
pub(super) const CANCEL_STRIDE: usize = 1 << 16;

/// `unit_by_hash` for a hash several units share.
pub(super) const AMBIGUOUS: u32 = u32::MAX;

/// `Floor` bounds of a unit's pairs are computed at this count, 3/4 of its
/// count now: they hold until it falls by a quarter. (7/8 requeued the
/// Floor pairs of frequent units twice as often: vocab 30k on 10 MB of
/// English trained in 0.46 s against 0.54, alternating fresh runs; the
/// same on 103 MB and at 8k.)
pub(super) const NO_FLOOR: u64 = u64::MAX;

pub(super) fn floor_of(count: u64) -> u64 {
    count - count / 4
}

/// Training states over this many nodes are freed on another thread.
pub(super) const FREE_ELSEWHERE_NODES: usize = 1 << 20;

impl Drop for State<'_> {
    /// A large state is millions of small allocations whose freeing takes a
    /// good part of a second: the caller, with its result or its Ctrl-C,
    /// does not wait for it.
    fn drop(&mut self) {
        if self.nodes.len() < FREE_ELSEWHERE_NODES {
            return;
        }
        let garbage = (
            (
                std::mem::take(&mut self.strings),
                std::mem::take(&mut self.ids),
                std::mem::take(&mut self.nodes),
            ),
            (
                std::mem::take(&mut self.pairs),
                std::mem::take(&mut self.heap),
                std::mem::take(&mut self.makers),
            ),
            (
                std::mem::take(&mut self.tight_of),
                std::mem::take(&mut self.floored_of),
            ),
            std::mem::take(&mut self.unit_by_hash),
        );
        // If no thread can be started, the garbage is freed here instead.
        let _ = std::thread::Builder::new()
            .name("wpiece-free".into())
            .spawn(move || drop(garbage));
    }
}
