//! Priority-queue entries: best key first, then the earliest first occurrence.
//!
//! Why this file is long: the two queues (exact ratios in one heap, gain
//! bounds in buckets) share one order, and about half the file is the tests
//! that pop each against a plain heap.

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
/// about 26 entries a merge, so the heap's memory traffic and comparisons
/// are most of its cost: the order (bound, then earliest first occurrence,
/// then pair) is packed into two integers compared as such.
#[derive(Clone, Copy, Debug)]
pub struct GainEntry {
    /// The bound's bits, mapped so that integer order is `f64::total_cmp`'s.
    bound: u64,
    /// `!first` above `!pair`: greater is earlier.
    place: u64,
    version: u32,
}

/// `f64::total_cmp`'s order as unsigned integers' (and back).
fn ordered_bits(f: f64) -> u64 {
    let b = f.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn from_ordered_bits(o: u64) -> f64 {
    f64::from_bits(if o >> 63 == 1 { o & !(1 << 63) } else { !o })
}

impl GainEntry {
    /// Its bucket in a [`BucketQueue`].
    fn bucket(&self) -> usize {
        (self.bound >> BUCKET_SHIFT) as usize
    }

    fn of(e: Entry) -> Self {
        let Key::GainBound(bound) = e.key else {
            unreachable!("a likelihood run queues gain bounds")
        };
        Self {
            bound: ordered_bits(bound),
            place: (u64::from(!e.first) << 32) | u64::from(!e.pair),
            version: e.version,
        }
    }

    fn entry(self) -> Entry {
        Entry {
            key: Key::GainBound(from_ordered_bits(self.bound)),
            first: !((self.place >> 32) as u32),
            pair: !(self.place as u32),
            version: self.version,
        }
    }
}

impl Ord for GainEntry {
    /// As `Entry`: higher bound, then earlier first occurrence, then pair.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.bound, self.place).cmp(&(other.bound, other.place))
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

/// Gain entries in buckets by the top 16 bits of their bound (sign,
/// exponent and 4 bits of mantissa: a bucket spans about 4% of a gain).
/// Popping only ever touches the highest bucket, a small heap of bounds
/// near the best gain, while most entries (pairs far from winning, by the
/// million) sit in lower buckets in no order: a push there is an append,
/// and a bucket is made a heap only when it becomes the highest (most never
/// do). A plain heap of all of them cost a cache miss at most of its 22
/// levels per pop, and heaps in every bucket a miss per push (the new
/// entry's parent, half the bucket away). The order is exactly the heap's:
/// buckets follow the bound's order, and within one the full order holds.
#[derive(Debug)]
pub struct BucketQueue {
    buckets: Vec<Bucket>,
    /// A bit per bucket, set while it holds entries.
    filled: Vec<u64>,
    /// No word of `filled` above this one has a bit set.
    top_word: usize,
    len: usize,
}

/// One bucket's entries: in no order until it is popped from, then a heap.
#[derive(Debug)]
enum Bucket {
    Loose(Vec<GainEntry>),
    Heap(BinaryHeap<GainEntry>),
}

impl Bucket {
    fn push(&mut self, e: GainEntry) {
        match self {
            Bucket::Loose(v) => v.push(e),
            Bucket::Heap(h) => h.push(e),
        }
    }

    /// The bucket as a heap, ordered now if it was not (linear time).
    fn heap(&mut self) -> &mut BinaryHeap<GainEntry> {
        if let Bucket::Loose(v) = self {
            *self = Bucket::Heap(BinaryHeap::from(std::mem::take(v)));
        }
        match self {
            Bucket::Heap(h) => h,
            Bucket::Loose(_) => unreachable!("ordered just above"),
        }
    }

    fn entries(&self) -> &[GainEntry] {
        match self {
            Bucket::Loose(v) => v,
            Bucket::Heap(h) => h.as_slice(),
        }
    }
}

const BUCKET_SHIFT: u32 = 48;
/// An emptied bucket holding room for more entries than this frees it.
const KEEP_EMPTIED: usize = 4096;

impl Default for BucketQueue {
    fn default() -> Self {
        let buckets = 1usize << (64 - BUCKET_SHIFT);
        Self {
            buckets: (0..buckets).map(|_| Bucket::Loose(Vec::new())).collect(),
            filled: vec![0; buckets / 64],
            top_word: 0,
            len: 0,
        }
    }
}

impl BucketQueue {
    /// A queue of `entries`, each bucket sized exactly (a queue starts with
    /// millions of entries: buckets grown by doubling held a third more).
    fn of(entries: Vec<Entry>) -> Self {
        let mut queue = Self::default();
        let mut sizes = vec![0usize; queue.buckets.len()];
        for &e in &entries {
            sizes[GainEntry::of(e).bucket()] += 1;
        }
        for (bucket, &n) in queue.buckets.iter_mut().zip(&sizes) {
            *bucket = Bucket::Loose(Vec::with_capacity(n));
        }
        for e in entries {
            queue.push(GainEntry::of(e));
        }
        queue
    }

    fn push(&mut self, e: GainEntry) {
        let b = e.bucket();
        self.buckets[b].push(e);
        self.filled[b / 64] |= 1 << (b % 64);
        self.top_word = self.top_word.max(b / 64);
        self.len += 1;
    }

    /// The highest bucket holding entries.
    fn top(&mut self) -> Option<usize> {
        loop {
            let bits = self.filled[self.top_word];
            if bits != 0 {
                return Some(self.top_word * 64 + 63 - bits.leading_zeros() as usize);
            }
            if self.top_word == 0 {
                return None;
            }
            self.top_word -= 1;
        }
    }

    fn pop(&mut self) -> Option<GainEntry> {
        let b = self.top()?;
        let heap = self.buckets[b].heap();
        let e = heap.pop();
        if heap.is_empty() {
            self.filled[b / 64] &= !(1 << (b % 64));
            // The top moves down through the buckets as gains fall: each
            // large one emptied gives its memory back for the ones below
            // (small ones keep theirs: the top one empties and refills
            // at most merges). Emptied, it takes pushes in no order again.
            let kept = if heap.capacity() > KEEP_EMPTIED {
                Vec::new()
            } else {
                std::mem::take(heap).into_vec()
            };
            self.buckets[b] = Bucket::Loose(kept);
        }
        self.len -= 1;
        e
    }

    fn peek(&mut self) -> Option<GainEntry> {
        let b = self.top()?;
        self.buckets[b].heap().peek().copied()
    }

    fn iter(&self) -> impl Iterator<Item = &GainEntry> {
        self.buckets.iter().flat_map(|b| b.entries())
    }
}

/// The max-heap of a training run, stored compactly for its kind of key.
#[derive(Debug)]
pub enum Queue {
    Ratio(BinaryHeap<Entry>),
    Gain(BucketQueue),
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
            Queue::Gain(BucketQueue::of(entries))
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

    pub fn peek(&mut self) -> Option<Entry> {
        match self {
            Queue::Ratio(h) => h.peek().copied(),
            Queue::Gain(h) => h.peek().map(|g| g.entry()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Queue::Ratio(h) => h.len(),
            Queue::Gain(h) => h.len,
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
    fn packed_gain_entries_order_and_round_trip_as_entries() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.0 + f64::EPSILON,
            1e300,
            f64::INFINITY,
        ];
        for &a in &values {
            assert_eq!(from_ordered_bits(ordered_bits(a)).to_bits(), a.to_bits());
            for &b in &values {
                assert_eq!(ordered_bits(a).cmp(&ordered_bits(b)), a.total_cmp(&b));
            }
        }
        for (first, pair) in [(0, 0), (u32::MAX, 7), (3, u32::MAX), (u32::MAX, u32::MAX)] {
            let e = Entry {
                key: Key::GainBound(-2.5),
                first,
                pair,
                version: 9,
            };
            let back = GainEntry::of(e).entry();
            assert_eq!((back.first, back.pair, back.version), (first, pair, 9));
        }
    }

    #[test]
    fn bucketed_gain_queue_pops_as_one_heap_under_mixed_pushes_and_pops() {
        let mut state = 5u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        // Bounds in one bucket, in neighbouring ones, across octaves and signs.
        let bounds = [
            -3e5,
            -1.0,
            -0.0,
            0.0,
            1e-9,
            0.5,
            1.0,
            1.01,
            1.02,
            1.03,
            7.9,
            8.0,
            8.1,
            1e4,
            1e4 + 1.0,
            2.5e6,
            f64::INFINITY,
        ];
        let mut reference = BinaryHeap::new();
        let mut queue = Queue::from_entries(true, Vec::new());
        let mut version = 0;
        for step in 0..20_000 {
            // Pushes outnumber pops early, then pops catch up and empty both.
            if next() % 100 < if step < 12_000 { 60 } else { 30 } {
                version += 1;
                let e = Entry {
                    key: Key::GainBound(bounds[next() as usize % bounds.len()]),
                    first: next() as u32 % 64,
                    pair: version, // unique: equal entries pop in any order
                    version,
                };
                reference.push(e);
                queue.push(e);
            } else {
                let want = reference.pop().map(|e: Entry| (e.pair, e.first, e.version));
                assert_eq!(queue.peek().map(|e| (e.pair, e.first, e.version)), want);
                assert_eq!(queue.pop().map(|e| (e.pair, e.first, e.version)), want);
            }
            assert_eq!(queue.len(), reference.len());
        }
        while let Some(e) = reference.pop() {
            assert_eq!(queue.pop().map(|q| q.version), Some(e.version));
        }
        assert!(queue.is_empty() && queue.pop().is_none());
    }

    #[test]
    fn large_buckets_built_at_once_emptied_and_refilled_pop_as_one_heap() {
        // Thousands of entries in two buckets (past KEEP_EMPTIED, so an
        // emptied one is freed) and a few elsewhere, queued at once; then
        // each bucket drained and filled again.
        let entry = |bound: f64, version: u32| Entry {
            key: Key::GainBound(bound),
            first: version % 97,
            pair: version,
            version,
        };
        let many = 4 * KEEP_EMPTIED as u32;
        let initial: Vec<Entry> = (0..many)
            .map(|v| {
                entry(
                    if v % 3 == 0 {
                        1e6
                    } else {
                        2.0 + (v % 5) as f64 * 1e-3
                    },
                    v,
                )
            })
            .chain([entry(-1.0, many), entry(f64::INFINITY, many + 1)])
            .collect();
        let mut reference: BinaryHeap<Entry> = initial.iter().copied().collect();
        let mut queue = Queue::from_entries(true, initial);
        let mut version = many + 2;
        for round in 0..3 {
            // Drain to below the big buckets, then refill both of them.
            while reference
                .peek()
                .is_some_and(|e| matches!(e.key, Key::GainBound(b) if b > 0.0))
            {
                let want = reference.pop().map(|e| e.version);
                assert_eq!(queue.pop().map(|e| e.version), want, "round {round}");
            }
            for k in 0..2 * KEEP_EMPTIED as u32 + 10 {
                let e = entry(if k % 2 == 0 { 1e6 } else { 2.001 }, version);
                version += 1;
                reference.push(e);
                queue.push(e);
            }
            assert_eq!(queue.len(), reference.len());
        }
        while let Some(e) = reference.pop() {
            assert_eq!(queue.pop().map(|q| q.version), Some(e.version));
        }
        assert!(queue.is_empty() && queue.pop().is_none());
    }

    #[test]
    fn only_the_bucket_popped_from_is_ordered() {
        // Pushes to buckets below the top are appends; the top one becomes
        // a heap when popped, and an emptied one takes appends again.
        let entry = |bound: f64, version: u32| Entry {
            key: Key::GainBound(bound),
            first: version,
            pair: version,
            version,
        };
        // Two buckets: [1, 1.0625) and [1.0625, 1.125).
        let mut q = BucketQueue::of((0..100).map(|v| entry(1.0 + v as f64 * 1e-3, v)).collect());
        let heaps = |q: &BucketQueue| {
            q.buckets
                .iter()
                .filter(|b| matches!(b, Bucket::Heap(_)))
                .count()
        };
        assert_eq!(heaps(&q), 0);
        q.push(GainEntry::of(entry(0.5, 100)));
        assert_eq!(q.pop().map(|e| e.entry().pair), Some(99));
        assert_eq!(heaps(&q), 1);
        let top = GainEntry::of(entry(1.099, 0)).bucket();
        assert!(matches!(q.buckets[top], Bucket::Heap(_)));
        while q.peek().is_some_and(|e| e.bucket() == top) {
            q.pop();
        }
        assert!(matches!(q.buckets[top], Bucket::Loose(_)));
        assert_eq!(heaps(&q), 1, "the next bucket down, peeked");
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
