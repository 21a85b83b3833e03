//! The likelihood gain of a merge: how much merging `x y` into `z` raises the
//! log-likelihood of the training words under a unigram model of the current
//! units (Schuster & Nakajima 2012, the criterion WordPiece was built on).
//!
//! With unit counts c(u), N = Σ c(u) and h(t) = t·ln t, the log-likelihood is
//! L = Σ h(c(u)) − h(N). A merge replacing k occurrences moves k from x and
//! from y to z and N to N − k, so
//!
//!   ΔL = Σ_{u ∈ {x, y, z}} [h(c_u + δ_u) − h(c_u)] − [h(N − k) − h(N)]
//!
//! with δ_x = δ_y = −k and δ_z = +k, added up when units coincide (x = y
//! gives δ = −2k; z = y, possible when x is the prefix string itself, gives
//! δ = 0). Each difference is computed in a cancellation-free form (`dh`):
//! every term is at most ~45·k in size, so the f64 result is within
//! `k · 2^-40` of the real ΔL (checked against 60-digit arithmetic in
//! tests/test_likelihood.py). Callers sum the terms in the order x, y, z, N,
//! so that one set of counts always gives one bit pattern.

/// h(c + δ) − h(c) for a count `c` and a change `delta` (c + δ ≥ 0), where
/// h(t) = t·ln t and h(0) = 0. Written without the cancellation of the direct
/// difference: for δ = −m, −m·ln c + (c − m)·ln(1 − m/c); for δ = +m,
/// m·ln(c + m) + c·ln(1 + m/c).
pub fn dh(c: u64, delta: i128) -> f64 {
    if delta == 0 {
        return 0.0;
    }
    let m = delta.unsigned_abs() as u64;
    let (mf, cf) = (m as f64, c as f64);
    if delta < 0 {
        let t = c - m;
        let ln_c = cf.ln();
        if t == 0 {
            return -mf * ln_c;
        }
        // ln(t / c): through ln_1p while m/c is small, through a difference
        // of logs when t is (there ln_1p's argument would round towards −1).
        let ln_ratio = if m <= c / 2 {
            (-mf / cf).ln_1p()
        } else {
            (t as f64).ln() - ln_c
        };
        -mf * ln_c + (t as f64) * ln_ratio
    } else if c == 0 {
        mf * mf.ln()
    } else {
        mf * ((c + m) as f64).ln() + cf * (mf / cf).ln_1p()
    }
}

/// ΔL of replacing `k` occurrences of `(x, y)` by `z`, given each unit's id
/// and count now (`z_count` is 0 when z is not a unit yet) and the total
/// count `n`. Ids tell coinciding units apart.
pub fn merge_gain(k: u64, x: (u32, u64), y: (u32, u64), z: (u32, u64), n: u64) -> f64 {
    let k = k as i128;
    // Changes per distinct unit, in the order x, y, z.
    let mut units: [(u32, u64, i128); 3] = [(x.0, x.1, -k), (0, 0, 0), (0, 0, 0)];
    let mut len = 1;
    for (id, count, delta) in [(y.0, y.1, -k), (z.0, z.1, k)] {
        match units[..len].iter_mut().find(|u| u.0 == id) {
            Some(u) => u.2 += delta,
            None => {
                units[len] = (id, count, delta);
                len += 1;
            }
        }
    }
    let mut sum = 0.0;
    for &(_, count, delta) in &units[..len] {
        sum += dh(count, delta);
    }
    sum - dh(n, -k)
}

/// A margin covering twice the rounding error of `merge_gain` for a merge of
/// `k` occurrences (the error is at most ~k·2^-43; see the module comment).
pub fn slack(k: u64) -> f64 {
    k as f64 * (1.0 / (1u64 << 36) as f64)
}

/// An upper bound on the f64 gain of any merge replacing at most `k`
/// occurrences while the total is at most `n`, whatever the unit counts:
/// 2k·(ln(n/k) + 1). Each of x and y adds at most −k·ln k (at f = k), z at most
/// h(n−k) − h(n−2k), and h(n) − h(n−2k) ≤ 2k·(ln n + 1); coinciding units only
/// lower it. It grows with k and n.
pub fn cap(k: u64, n: u64) -> f64 {
    let kf = k as f64;
    let bound = 2.0 * kf * ((n as f64 / kf).ln() + 1.0);
    bound * (1.0 + 1.0 / (1u64 << 40) as f64) + slack(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(t: f64) -> f64 {
        if t == 0.0 {
            0.0
        } else {
            t * t.ln()
        }
    }

    #[test]
    fn matches_the_direct_formula_on_small_counts() {
        // x=1 (c 10), y=2 (c 6), z new, k 4, N 50.
        let direct = h(4.0) + h(6.0) + h(2.0) - h(10.0) - h(6.0) + h(50.0) - h(46.0);
        let g = merge_gain(4, (1, 10), (2, 6), (3, 0), 50);
        assert!((g - direct).abs() < 1e-12, "{g} vs {direct}");
    }

    #[test]
    fn a_unit_paired_with_itself_loses_twice() {
        let direct = h(2.0) - h(10.0) + h(4.0) + h(30.0) - h(26.0);
        let g = merge_gain(4, (1, 10), (1, 10), (3, 0), 30);
        assert!((g - direct).abs() < 1e-12, "{g} vs {direct}");
    }

    #[test]
    fn z_equal_to_y_leaves_y_unchanged() {
        let direct = h(5.0) - h(8.0) + h(40.0) - h(37.0);
        let g = merge_gain(3, (1, 8), (2, 9), (2, 9), 40);
        assert!((g - direct).abs() < 1e-12, "{g} vs {direct}");
    }

    #[test]
    fn the_cap_bounds_every_gain() {
        for &(k, n) in &[
            (1u64, 10u64),
            (3, 10),
            (5, 10),
            (7, 1000),
            (1 << 30, 1 << 40),
        ] {
            let c = cap(k, n);
            for cx in [k, k + 1, 2 * k, n / 2, n - k] {
                for cy in [k, k + 3, n / 3] {
                    for cz in [0, 1, k, n / 4] {
                        if cx + cy + cz > n || cx < k || cy < k {
                            continue;
                        }
                        let g = merge_gain(k, (1, cx), (2, cy), (3, cz), n);
                        assert!(g <= c, "k {k} n {n} cx {cx} cy {cy} cz {cz}: {g} > {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_cancellation_at_huge_totals() {
        // N ln N − (N−1) ln(N−1) ≈ ln N + 1: lost entirely by the direct formula.
        let n = 1u64 << 62;
        let g = -dh(n, -1);
        let expected = (n as f64).ln() + 1.0;
        assert!((g - expected).abs() < 1e-9, "{g} vs {expected}");
        // All of a count but one moved away: ln_1p's argument would round to −1.
        let c = u64::MAX;
        assert!(dh(c, -((c - 1) as i128)).is_finite());
    }
}
