//! Shared by the Rust property tests.

/// Cases per property: `n` in CI, `PROPTEST_CASES` for longer runs (`make fuzz`).
pub fn cases(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n)
}
