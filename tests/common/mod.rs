//! Shared by the Rust integration tests (each file uses some of it).

use wpiece::hf_json::tokenizer_from_json;
use wpiece::pipeline::Tokenizer;

/// Cases per property: `n` in CI, `PROPTEST_CASES` for longer runs (`make fuzz`).
#[allow(dead_code)]
pub fn cases(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n)
}

/// The test vocabulary's BERT tokenizer (`tests/data/tokenizer.json`), with
/// its truncation and padding off.
#[allow(dead_code)]
pub fn bert_uncased() -> Tokenizer {
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tokenizer.json"
    ))
    .unwrap();
    let mut tok = tokenizer_from_json(&json).unwrap();
    tok.truncation = None;
    tok.padding = None;
    tok
}
