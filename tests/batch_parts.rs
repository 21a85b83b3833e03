//! Flat batches cut into parts that threads claim in order and append in
//! order (`src/encode/batch.rs`): whatever the part size and thread count,
//! and whichever part finishes first, the result is the one-part result.

mod common;

use wpiece::cancel::Cancel;
use wpiece::encode::{FastPaths, FlatBatch};
use wpiece::error::Error;
use wpiece::pipeline::truncation::{Truncation, TruncationStrategy};
use wpiece::pipeline::{Tokenizer, TruncationDirection};

/// The test tokenizer, cutting batches into parts of at most `parts` bytes.
fn in_parts(parts: usize) -> Tokenizer {
    let mut tok = common::bert_uncased();
    tok.set_fast_paths(FastPaths {
        parts,
        ..FastPaths::ALL
    });
    tok
}

/// Real lines, with empty texts, a long one and non-ASCII ones among them,
/// so that parts differ widely in cost and finish out of order.
fn texts() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/en_fixture.txt"
    ))
    .unwrap();
    let mut out: Vec<String> = text.lines().take(1500).map(str::to_string).collect();
    for k in (0..out.len()).step_by(97) {
        out[k] = String::new();
    }
    out.insert(700, text.chars().take(200_000).collect());
    out.insert(20, "Größe naïve 東京 déjà vu — «quotes» ".repeat(500));
    out
}

fn in_pool(threads: usize, work: impl FnOnce() -> FlatBatch + Send) -> FlatBatch {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(work)
}

#[test]
fn every_part_size_and_thread_count_gives_the_one_part_result() {
    let owned = texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let cut = Truncation {
        max_length: 24,
        strategy: TruncationStrategy::LongestFirst,
        stride: 0,
        direction: TruncationDirection::Right,
    };
    for truncation in [None, Some(&cut)] {
        for (specials, offsets, words) in [(true, true, true), (false, false, false)] {
            let encode = |tok: &Tokenizer| {
                tok.encode_batch_flat(
                    &texts,
                    specials,
                    truncation,
                    offsets,
                    words,
                    Cancel::never(),
                )
                .unwrap()
            };
            let whole = in_parts(usize::MAX);
            let expected = in_pool(1, || encode(&whole));
            assert_eq!(expected.rows.len(), texts.len() + 1);
            for parts in [1, 50, 4096, 1 << 20] {
                let tok = in_parts(parts);
                for threads in [1, 2, 4] {
                    let got = in_pool(threads, || encode(&tok));
                    assert!(
                        got == expected,
                        "parts of {parts} bytes at {threads} threads differ \
                         (truncation {truncation:?}, offsets {offsets})"
                    );
                }
                // Inline, as a small Python call runs: every part on this
                // thread, on no pool, even inside one.
                let inline = in_pool(4, || wpiece::parallel::inline(|| encode(&tok)));
                assert!(
                    inline == expected,
                    "parts of {parts} bytes inline differ (truncation {truncation:?})"
                );
            }
        }
    }
}

#[test]
fn a_cancelled_batch_in_parts_stops_with_interrupted() {
    let owned = texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let tok = in_parts(64);
    let cancel = Cancel::default();
    cancel.cancel();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let err = pool
        .install(|| tok.encode_batch_flat(&texts, true, None, true, false, &cancel))
        .unwrap_err();
    assert!(matches!(err, Error::Interrupted), "{err:?}");
}

#[test]
fn a_batch_cancelled_while_parts_are_appended_is_interrupted_or_whole() {
    // Cancelled from another thread after a varying delay: the call either
    // stops with `Interrupted` or gives the whole batch, never a part of it,
    // and the pool encodes the next batch in full.
    let owned = texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let tok = in_parts(2048);
    let expected = in_pool(1, || {
        tok.encode_batch_flat(&texts, true, None, true, true, Cancel::never())
            .unwrap()
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let mut outcomes = [0usize; 2];
    for delay_us in (0..40).map(|k| k * 150) {
        let cancel = Cancel::default();
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_micros(delay_us));
                cancel.cancel();
            });
            pool.install(|| tok.encode_batch_flat(&texts, true, None, true, true, &cancel))
        });
        match result {
            Ok(flat) => {
                assert!(
                    flat == expected,
                    "a batch cancelled after {delay_us} us differs"
                );
                outcomes[0] += 1;
            }
            Err(Error::Interrupted) => outcomes[1] += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    // The early cancels stop it (the batch takes far longer than 0 us).
    assert!(outcomes[1] > 0, "{outcomes:?}");
    let again = pool.install(|| {
        tok.encode_batch_flat(&texts, true, None, true, true, Cancel::never())
            .unwrap()
    });
    assert!(again == expected);
}
