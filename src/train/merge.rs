//! One merge applied in place: every occurrence of the pair rewritten left
//! to right without overlap, the counts of the units and pairs it touches
//! updated, and the queue entries they need renewed (see `state.rs` for why
//! exactly those).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::config::Score;
use super::gain;
use super::pairs::{NOWHERE, NO_PAIR};
use super::state::{floor_of, Node, State, CANCEL_STRIDE, DEAD, NONE, NO_FLOOR};
use crate::cache::table::prefetch;
use crate::error::Result;

/// How many occurrences ahead the merge loop starts loading nodes.
const PREFETCH_AHEAD: usize = 16;

impl State<'_> {
    /// Merges `pair` wherever it stands, left to right without overlap;
    /// returns the merged unit and the merge's likelihood gain.
    pub(super) fn merge(
        &mut self,
        pair: u32,
        cancel: &mut dyn FnMut() -> Result<()>,
    ) -> Result<(u32, f64)> {
        self.step += 1;
        let (a, b) = {
            let s = &self.pairs.states[pair as usize];
            (s.left, s.right)
        };
        let merged = self.merged_string(a, b);
        let c = self.intern(merged);
        let before = |u: u32| (u, self.count_of(u));
        let (a_before, b_before, c_before) = (before(a), before(b), before(c));
        let n_before = self.total_units;
        let mut replaced = 0u64;

        let occurrences = std::mem::take(&mut self.pairs.states[pair as usize].occurrences);
        // Left to right: an occurrence overlapping the one before it is gone by then.
        let at = self.in_node_order(occurrences.into_vec(), cancel)?;
        for (k, &node) in at.iter().enumerate() {
            if k % CANCEL_STRIDE == CANCEL_STRIDE - 1 {
                cancel()?;
            }
            // Occurrences lie far apart in the arena: the loads of the nodes
            // ahead start now, so that the misses overlap (the work between
            // two occurrences is too long for the CPU to look that far).
            if let Some(&ahead) = at.get(k + PREFETCH_AHEAD) {
                prefetch(&self.nodes[ahead as usize]);
            }
            // Halfway there, that node has arrived: the states of the pairs
            // it will remove start loading too.
            if let Some(&ahead) = at.get(k + PREFETCH_AHEAD / 2) {
                let Node { prev, pair, .. } = self.nodes[ahead as usize];
                for id in [
                    pair,
                    self.nodes.get(prev as usize).map_or(NO_PAIR, |p| p.pair),
                ] {
                    if let Some(s) = self.pairs.states.get(id as usize) {
                        prefetch(s);
                    }
                }
            }
            // Gone: merged away earlier, or taken by the overlapping
            // occurrence just before it ("aaa": (a, a) at 0 takes the one at 1).
            if !self.holds(node, a, b) {
                continue;
            }
            let i = node as usize;
            let Node {
                next: j,
                prev: p,
                count,
                ..
            } = self.nodes[i];
            let n = self.nodes[j as usize].next;
            if p != NONE {
                debug_assert!(self.holds(p, self.nodes[p as usize].unit, a));
                self.remove_occurrence(p, count);
            }
            self.remove_occurrence(node, count);
            if n != NONE {
                self.remove_occurrence(j, count);
            }
            self.nodes[j as usize].unit = DEAD;
            self.nodes[j as usize].pair = NO_PAIR;
            self.nodes[i].unit = c;
            self.nodes[i].next = n;
            self.nodes[i].pair = NO_PAIR;
            if n != NONE {
                self.nodes[n as usize].prev = node;
            }
            // In this order, so that new pairs take the same ids as ever.
            if p != NONE {
                let left = self.nodes[p as usize].unit;
                self.nodes[p as usize].pair = self.add_occurrence(left, c, true, p, count);
            }
            if n != NONE {
                let right = self.nodes[n as usize].unit;
                self.nodes[i].pair = self.add_occurrence(right, c, false, node, count);
            }
            self.freq[a as usize] -= count;
            self.freq[b as usize] -= count;
            self.freq[c as usize] += count;
            self.total_tokens -= count;
            self.total_units -= count;
            replaced += count;
        }
        let gain = gain::merge_gain(replaced, a_before, b_before, c_before, n_before);

        // First occurrences merged away: the next live one surfaces.
        // Each stale occurrence is popped once over the whole run, but one
        // merge can pop tens of millions: checked for Ctrl-C as it goes.
        let mut steps = 0usize;
        let mut tick = |n: usize| {
            steps += n;
            if steps >= CANCEL_STRIDE {
                steps = 0;
                return cancel();
            }
            Ok(())
        };
        for id in std::mem::take(&mut self.lost_first) {
            let (l, r) = {
                let s = &self.pairs.states[id as usize];
                (s.left, s.right)
            };
            let mut first = NOWHERE;
            while let Some(&Reverse(node)) = self.pairs.states[id as usize].occurrences.peek() {
                tick(1)?;
                if self.holds(node, l, r) {
                    first = node;
                    break;
                }
                self.pairs.states[id as usize].occurrences.pop();
            }
            self.pairs.states[id as usize].first = first;
        }
        // Likelihood score: the units whose count fell, and whether it fell
        // below their floor. Floors are lowered first, so that no bound is
        // computed from one above a count.
        let mut fallen: Vec<(u32, bool)> = Vec::new();
        if self.config.score == Score::Likelihood {
            for (unit, before) in [a_before, b_before] {
                let u = unit as usize;
                if self.freq[u] < before && !fallen.iter().any(|f| f.0 == unit) {
                    let below = self
                        .floor
                        .get(u)
                        .is_some_and(|&f| f != NO_FLOOR && self.freq[u] < f);
                    if below {
                        self.floor[u] = floor_of(self.freq[u]);
                    }
                    fallen.push((unit, below));
                }
            }
        }
        // Each pair changed, once.
        let touched = std::mem::take(&mut self.touched);
        for &id in &touched {
            tick(2)?;
            let s = &mut self.pairs.states[id as usize];
            if s.freq == 0 {
                s.occurrences = BinaryHeap::new();
                s.first = NOWHERE;
            }
        }
        for &id in &touched {
            tick(2)?;
            self.requeue(id);
        }
        self.touched = touched;
        self.touched.clear();
        match self.config.score {
            Score::WordPiece => {
                // f(a), f(b), f(c) changed: so did the score of every pair holding them.
                for unit in [a, b, c] {
                    for p in self.pairs.live_pairs_of(unit) {
                        tick(4)?;
                        self.requeue(p);
                    }
                }
            }
            Score::Likelihood => {
                // The gain falls as f(x) or f(y) rises and rises as f(z) does:
                // pairs of a and b (fallen), and those making c (risen), need
                // fresh bounds; pairs of c (risen) keep theirs.
                for (unit, below_floor) in fallen {
                    tick(CANCEL_STRIDE)?;
                    self.requeue_pairs_of_fallen(unit, below_floor);
                }
                tick(CANCEL_STRIDE)?;
                self.requeue_makers(c);
            }
            Score::Frequency => {}
        }
        tick(CANCEL_STRIDE)?;
        self.maybe_rebuild_heap();
        #[cfg(debug_assertions)]
        {
            self.check_gain_bounds();
            self.check_pairs_at_nodes();
        }
        Ok((c, gain))
    }
}
