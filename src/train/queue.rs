//! Priority-queue entries ordered by exact score, then by first occurrence.

use std::cmp::Ordering;

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

/// A scored pair as pushed into the heap; stale when `version` no longer
/// matches the pair's current version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Pair frequency (score numerator).
    pub freq: u64,
    /// Score denominator: `f(x) * f(y)` for WordPiece, 1 for frequency.
    pub denom: u128,
    /// First occurrence: its node, numbered in first-appearance order of the
    /// words, left to right.
    pub first: u32,
    pub pair: u32,
    pub version: u32,
}

impl Ord for Entry {
    /// Greater = better: higher score, then earlier first occurrence.
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_ratio(self.freq, self.denom, other.freq, other.denom)
            .then_with(|| other.first.cmp(&self.first))
            .then_with(|| other.pair.cmp(&self.pair))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
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
    fn ties_go_to_the_earlier_first_occurrence() {
        let a = Entry {
            freq: 2,
            denom: 4,
            first: 3,
            pair: 7,
            version: 0,
        };
        let b = Entry {
            freq: 1,
            denom: 2,
            first: 10,
            pair: 1,
            version: 0,
        };
        assert!(a > b);
        let c = Entry {
            freq: 1,
            denom: 2,
            first: 1,
            pair: 9,
            version: 0,
        };
        assert!(c > a);
    }
}
