//! Counts files made by counting always load; forged ones that are well
//! formed (a valid gzip body, checksums right) load only if every word is one
//! counting with the file's options makes, and words counted 0 are dropped.

mod common;

use common::cases;
use proptest::prelude::*;

use wpiece::cancel::Cancel;
use wpiece::normalizers::NormalizerConfig;
use wpiece::pre_tokenizers::PreTokenizer;
use wpiece::splitter::{SplitBuffers, Splitter};
use wpiece::train::counts::WordCounts;
use wpiece::train::counts_file::{from_bytes, to_bytes};
use wpiece::train::WordSplitting;

/// Chars that normalization changes, removes, isolates or splits at.
const ALPHABET: &[char] = &[
    'a', 'B', 'é', 'É', '\u{301}', 'İ', 'ß', 'ﬁ', 'Σ', '日', '本', 'ア', ' ', '\t', '\n',
    '\u{3000}', '\u{a0}', ',', '#', '!', '«', '\u{7}', '\u{0}', '\u{fffd}', '\u{200d}', '1', '_',
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..40)
        .prop_map(|chars| chars.into_iter().collect())
}

fn splitter() -> impl Strategy<Value = Splitter> {
    (
        any::<bool>(),
        any::<[bool; 3]>(),
        any::<Option<bool>>(),
        any::<bool>(),
    )
        .prop_map(|(normalize, [clean, cjk, lower], strip, bert)| {
            let normalizer = normalize.then_some(NormalizerConfig {
                clean_text: clean,
                handle_chinese_chars: cjk,
                strip_accents: strip,
                lowercase: lower,
            });
            let pre = if bert {
                PreTokenizer::Bert
            } else {
                PreTokenizer::Whitespace
            };
            Splitter::new(normalizer, pre)
        })
}

/// Whether counting `word` with `splitter` gives `word` alone.
fn made(splitter: &Splitter, word: &str) -> bool {
    let mut words = Vec::new();
    splitter.words(word, &mut SplitBuffers::default(), |w| {
        words.push(w.to_owned())
    });
    words == [word]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn counted_files_load_and_forged_words_are_refused(
        s in splitter(),
        docs in prop::collection::vec(text(), 0..6),
        forged in text(),
        count in prop_oneof![Just(0u64), 1u64..5, Just(u64::MAX)],
    ) {
        let counts = s.count_docs(&docs, Cancel::never()).unwrap();
        let splitting = WordSplitting::Options(s.clone());
        let data = to_bytes(&counts, &splitting, Cancel::never()).unwrap();
        let (_, loaded) = from_bytes(&data, "counted", Cancel::never()).unwrap();
        prop_assert!(loaded.same_as(&counts));
        // Every counted word is a word counting makes (what loading checks).
        for (w, _) in counts.iter() {
            prop_assert!(made(&s, w), "{:?}", w);
        }
        let mut with_forged = WordCounts::default();
        with_forged.add(&forged, count);
        let data = to_bytes(&with_forged, &splitting, Cancel::never()).unwrap();
        match from_bytes(&data, "forged", Cancel::never()) {
            Ok((_, c)) if count == 0 => prop_assert_eq!(c.len(), 0),
            Ok((_, c)) => {
                prop_assert!(made(&s, &forged));
                prop_assert_eq!(c.iter().collect::<Vec<_>>(), [(forged.as_str(), count)]);
            }
            Err(e) => {
                prop_assert!(count > 0 && !made(&s, &forged));
                prop_assert!(e.to_string().contains("is not a word"), "{}", e);
            }
        }
    }
}
