//! Priority-queue entries: best key first, then the earliest first occurrence.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// `a * b` as a 192-bit number `(high 64 bits, low 128 bits)`.
fn mul_u64_u128(a: u64, b: u128) -> (u64, u128) {
    let a = a as u128;
    let lo = a * (b as u64 as u128);
    let hi = a * (b >> 64);
    let (low, carry) = lo.overflowing_add(hi << 64);
    ((hi >> 64) as u64 + carry as u64, low)
}

/// Compares `p1 / d1` with `p2 / d2` exactly (`d` > 0).
pub fn cmp_ratio(p1: u64, d1: u128, p2: u64, d2: u128) -> Ordering {
    mul_u64_u128(p1, d2).cmp(&mul_u64_u128(p2, d1))
}

/// What a queue entry is ranked by. One training run uses one kind.
#[derive(Clone, Copy, Debug)]
pub enum Key {
    /// The exact score `num / denom`: `p / (f(x) f(y))` for WordPiece, `p / 1`
    /// for frequency.
    Ratio { num: u64, denom: u128 },
    /// An upper bound on the pair's likelihood gain from the time it was
    /// pushed on (see `Trainer::pop_best_gain`).
    GainBound(f64),
}

impl Key {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Ratio { num: p1, denom: d1 }, Key::Ratio { num: p2, denom: d2 }) => {
                cmp_ratio(*p1, *d1, *p2, *d2)
            }
            (Key::GainBound(a), Key::GainBound(b)) => a.total_cmp(b),
            _ => unreachable!("one training run ranks by one kind of key"),
        }
    }
}

/// A scored pair as pushed into the heap; stale when `version` no longer
/// matches the pair's current version.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: Key,
    /// First occurrence: its node, numbered in first-appearance order of the
    /// words, left to right.
    pub first: u32,
    pub pair: u32,
    pub version: u32,
}

impl Ord for Entry {
    /// Greater = better: higher score, then earlier first occurrence.
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| other.first.cmp(&self.first))
            .then_with(|| other.pair.cmp(&self.pair))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A likelihood run's entry: its bound alone as key, 24 bytes where an
/// [`Entry`] takes 64 (the exact ratio needs 192 bits). The merge loop pops
/// about 26 entries a merge, so the heap's memory traffic is most of its cost.
#[derive(Clone, Copy, Debug)]
pub struct GainEntry {
    bound: f64,
    first: u32,
    pair: u32,
    version: u32,
}

impl GainEntry {
    fn of(e: Entry) -> Self {
        let Key::GainBound(bound) = e.key else {
            unreachable!("a likelihood run queues gain bounds")
        };
        Self {
            bound,
            first: e.first,
            pair: e.pair,
            version: e.version,
        }
    }

    fn entry(self) -> Entry {
        Entry {
            key: Key::GainBound(self.bound),
            first: self.first,
            pair: self.pair,
            version: self.version,
        }
    }
}

impl Ord for GainEntry {
    /// As `Entry`: higher bound, then earlier first occurrence, then pair.
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then_with(|| other.first.cmp(&self.first))
            .then_with(|| other.pair.cmp(&self.pair))
    }
}

impl PartialEq for GainEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for GainEntry {}

impl PartialOrd for GainEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The max-heap of a training run, stored compactly for its kind of key.
#[derive(Debug)]
pub enum Queue {
    Ratio(BinaryHeap<Entry>),
    Gain(BinaryHeap<GainEntry>),
}

impl Default for Queue {
    fn default() -> Self {
        Queue::Ratio(BinaryHeap::new())
    }
}

impl Queue {
    /// A heap of `entries` (all of one kind: gain bounds when `gain`).
    pub fn from_entries(gain: bool, entries: Vec<Entry>) -> Self {
        if gain {
            Queue::Gain(entries.into_iter().map(GainEntry::of).collect())
        } else {
            Queue::Ratio(BinaryHeap::from(entries))
        }
    }

    pub fn push(&mut self, e: Entry) {
        match self {
            Queue::Ratio(h) => h.push(e),
            Queue::Gain(h) => h.push(GainEntry::of(e)),
        }
    }

    pub fn pop(&mut self) -> Option<Entry> {
        match self {
            Queue::Ratio(h) => h.pop(),
            Queue::Gain(h) => h.pop().map(GainEntry::entry),
        }
    }

    pub fn peek(&self) -> Option<Entry> {
        match self {
            Queue::Ratio(h) => h.peek().copied(),
            Queue::Gain(h) => h.peek().map(|g| g.entry()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Queue::Ratio(h) => h.len(),
            Queue::Gain(h) => h.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry, in no order.
    pub fn entries(&self) -> Vec<Entry> {
        match self {
            Queue::Ratio(h) => h.iter().copied().collect(),
            Queue::Gain(h) => h.iter().map(|g| g.entry()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_ratio_comparison_even_past_128_bits() {
        assert_eq!(cmp_ratio(1, 3, 2, 6), Ordering::Equal);
        assert_eq!(cmp_ratio(2, 5, 1, 3), Ordering::Greater);
        let big = u128::MAX / 3;
        assert_eq!(
            cmp_ratio(u64::MAX, big, u64::MAX - 1, big),
            Ordering::Greater
        );
        assert_eq!(cmp_ratio(u64::MAX, big + 1, u64::MAX, big), Ordering::Less);
        // Floats would call these equal.
        assert_eq!(
            cmp_ratio(1 << 60, (1u128 << 120) + 1, 1 << 60, 1u128 << 120),
            Ordering::Less
        );
    }

    #[test]
    fn both_queues_pop_in_the_order_of_entries() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let entries: Vec<Entry> = (0..500)
            .map(|i| Entry {
                key: Key::GainBound((next() % 20) as f64 * 0.5),
                first: next() % 50,
                pair: i,
                version: next(),
            })
            .collect();
        let mut sorted = entries.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        let mut q = Queue::from_entries(true, entries[..250].to_vec());
        for &e in &entries[250..] {
            q.push(e);
        }
        assert_eq!(q.len(), 500);
        let popped: Vec<(u32, u32)> = std::iter::from_fn(|| q.pop())
            .map(|e| (e.pair, e.version))
            .collect();
        let expected: Vec<(u32, u32)> = sorted.iter().map(|e| (e.pair, e.version)).collect();
        assert_eq!(popped, expected);
        assert!(q.is_empty() && q.peek().is_none());
    }

    #[test]
    fn ties_go_to_the_earlier_first_occurrence() {
        let a = Entry {
            key: Key::Ratio { num: 2, denom: 4 },
            first: 3,
            pair: 7,
            version: 0,
        };
        let b = Entry {
            key: Key::Ratio { num: 1, denom: 2 },
            first: 10,
            pair: 1,
            version: 0,
        };
        assert!(a > b);
        let c = Entry {
            key: Key::Ratio { num: 1, denom: 2 },
            first: 1,
            pair: 9,
            version: 0,
        };
        assert!(c > a);
    }
}
