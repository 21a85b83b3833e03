//! Counting the pairs that stand in the words: each occurrence added or
//! removed in its pair's frequency, first occurrence and occurrence list,
//! and each changed pair listed once for the merge step's requeueing.

use std::cmp::Reverse;

use super::config::Score;
use super::pairs::{NOT_YET, NO_PAIR};
use super::state::{State, BARRIER};

impl State<'_> {
    /// Counts the pair of the merged unit `c` and its neighbour `other` (on
    /// its left when `c_right`) at `node`, a word counted `count` times, and
    /// returns it (`NO_PAIR` if `other` is a barrier).
    pub(super) fn add_occurrence(
        &mut self,
        other: u32,
        c: u32,
        c_right: bool,
        node: u32,
        count: u64,
    ) -> u32 {
        if other == BARRIER {
            return NO_PAIR;
        }
        let (id, created) = self.pair_beside_merged(other, c, c_right);
        self.count_pair_id(id, created, node, count);
        let step = self.step;
        let s = &mut self.pairs.states[id as usize];
        s.replaced = None;
        s.occurrences.push(Reverse(node));
        if std::mem::replace(&mut s.touched_at, step) != step {
            self.touched.push(id);
        }
        id
    }

    /// The id of the pair `(other, c)` (`c_right`) or `(c, other)`, made if
    /// new, and whether it was made now.
    fn pair_beside_merged(&mut self, other: u32, c: u32, c_right: bool) -> (u32, bool) {
        let o = other as usize;
        if self.beside_merged.len() <= o {
            self.beside_merged.resize(o + 1, (NOT_YET, [NO_PAIR; 2]));
        }
        let slot = &mut self.beside_merged[o];
        if slot.0 != self.step {
            *slot = (self.step, [NO_PAIR; 2]);
        }
        let known = slot.1[usize::from(c_right)];
        if known != NO_PAIR {
            return (known, false);
        }
        let (left, right) = if c_right { (other, c) } else { (c, other) };
        let (id, created) = self.pairs.get_or_create(left, right);
        self.beside_merged[o].1[usize::from(c_right)] = id;
        (id, created)
    }

    /// Counts the pair `(left, right)` at `node` in its frequency and first
    /// occurrence, not in its occurrences (the first scan of the words adds
    /// them all once it knows how many each pair has); returns it (`NO_PAIR`
    /// if a unit is a barrier).
    #[inline]
    pub(super) fn count_pair(&mut self, left: u32, right: u32, node: u32, count: u64) -> u32 {
        if left == BARRIER || right == BARRIER {
            return NO_PAIR;
        }
        let (id, created) = self.pairs.get_or_create(left, right);
        self.count_pair_id(id, created, node, count);
        id
    }

    /// `count_pair` once the pair's id is known (`created`: made just now).
    #[inline]
    fn count_pair_id(&mut self, id: u32, created: bool, node: u32, count: u64) {
        if created && self.config.score == Score::Likelihood {
            self.resolve_makes(id);
        }
        let s = &mut self.pairs.states[id as usize];
        s.freq += count;
        s.first = s.first.min(node);
        self.pairs.list(id);
    }

    /// Uncounts the pair standing at `node` (`NO_PAIR`: none), about to be
    /// merged away.
    pub(super) fn remove_occurrence(&mut self, node: u32, count: u64) {
        let id = self.nodes[node as usize].pair;
        if id == NO_PAIR {
            return;
        }
        let step = self.step;
        let s = &mut self.pairs.states[id as usize];
        s.freq -= count;
        s.replaced = None;
        if s.first == node {
            self.lost_first.push(id);
        }
        if std::mem::replace(&mut s.touched_at, step) != step {
            self.touched.push(id);
        }
    }
}
