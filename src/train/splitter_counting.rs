//! Counting words as the encoder finds them: through its [`Splitter`],
//! document by document, on every thread (`counting.rs`).

use super::counting::{count_docs_with, CountScratch};
use super::counts::WordCounts;
use crate::cancel::Cancel;
use crate::error::Result;
use crate::splitter::{Splitter, PIECE_BYTES};

impl Splitter {
    /// Counts the words of `doc` (an ASCII document in one pass over its
    /// bytes when the splitter's table handles all of them); a long one in
    /// pieces that split as the whole does, looking for `cancel` between them.
    pub(super) fn count_into(
        &self,
        doc: &str,
        out: &mut WordCounts,
        scratch: &mut CountScratch,
        cancel: &Cancel,
    ) -> Result<()> {
        let CountScratch { short, split } = scratch;
        if doc.len() <= PIECE_BYTES {
            self.words(doc, split, |w| short.add(w, out));
            return Ok(());
        }
        for (_, piece) in self.cuts().pieces(doc, PIECE_BYTES) {
            cancel.check()?;
            self.words(piece, split, |w| short.add(w, out));
        }
        Ok(())
    }

    /// [`Splitter::count_into`] through the splitter's general path alone.
    #[cfg(test)]
    pub(super) fn count_general(
        &self,
        doc: &str,
        out: &mut WordCounts,
        short: &mut super::short_words::ShortWords,
    ) {
        let mut split = crate::splitter::SplitBuffers::default();
        self.words_general(doc, &mut split, |w| short.add(w, out));
    }

    /// Counts the words of `docs` in parallel, in first-appearance order;
    /// stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn count_docs<S: AsRef<str> + Sync>(
        &self,
        docs: &[S],
        cancel: &Cancel,
    ) -> Result<WordCounts> {
        let mut out = WordCounts::default();
        self.count_docs_into(docs, &mut out, cancel)?;
        Ok(out)
    }

    /// [`Splitter::count_docs`], adding to `into` (whose words stay first).
    pub fn count_docs_into<S: AsRef<str> + Sync>(
        &self,
        docs: &[S],
        into: &mut WordCounts,
        cancel: &Cancel,
    ) -> Result<()> {
        count_docs_with(docs, into, cancel, |doc, out, scratch| {
            self.count_into(doc, out, scratch, cancel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::{NormalizerConfig, NormalizerStep};
    use crate::pattern::{Pattern, RegexPattern};
    use crate::pre_tokenizers::{PreTokenizer, PreTokenizerStep, SplitBehavior};
    use crate::splitter::Chain;
    use crate::train::short_words::ShortWords;

    #[test]
    fn keeps_first_appearance_order_for_any_chunking() {
        let docs: Vec<String> = (0..5000)
            .map(|i| format!("w{} common w{}", i % 97, i % 13))
            .collect();
        let splitter = Splitter::default();
        let all = splitter.count_docs(&docs, Cancel::never()).unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = one
            .install(|| splitter.count_docs(&docs, Cancel::never()))
            .unwrap();
        let mut sequential = WordCounts::default();
        for d in &docs {
            let mut short = ShortWords::default();
            splitter.count_general(d, &mut sequential, &mut short);
            short.flush_into(&mut sequential);
        }
        let expected: Vec<(&str, u64)> = sequential.iter().collect();
        assert_eq!(all.iter().collect::<Vec<_>>(), expected);
        assert_eq!(single.iter().collect::<Vec<_>>(), expected);
        assert_eq!(expected[0].0, "w0");
        assert_eq!(expected[1].0, "common");
    }

    #[test]
    fn ascii_documents_count_as_the_general_path_in_every_configuration() {
        // Every ASCII byte, control characters and runs of one class included.
        let alphabet: Vec<char> = (0u8..128).map(char::from).collect();
        let mut state = 11u64;
        let docs: Vec<String> = (0..3000)
            .map(|_| {
                let mut d = String::new();
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                let len = (state >> 58) as usize;
                for _ in 0..len {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let r = (state >> 33) as usize;
                    // Mostly letters and spaces, so that words repeat.
                    d.push(match r % 4 {
                        0 => alphabet[r / 4 % 128],
                        1 => ' ',
                        _ => ['a', 'B', 'c', '1', '.', 'E'][r / 4 % 6],
                    });
                }
                d
            })
            .collect();
        let normalizers = [
            None,
            Some(NormalizerConfig::default()),
            Some(NormalizerConfig {
                lowercase: false,
                ..Default::default()
            }),
            Some(NormalizerConfig {
                clean_text: false,
                ..Default::default()
            }),
        ];
        // Chains with the ASCII table: symbol runs, replaced and declined
        // chars, digits apart, words holding spaces.
        let chains = [
            Chain {
                normalizers: vec![NormalizerStep::Nfd, NormalizerStep::Lowercase],
                pre_tokenizers: vec![PreTokenizerStep::Whitespace],
            },
            Chain {
                normalizers: vec![
                    NormalizerStep::Replace {
                        pattern: Pattern::Literal("c".into()),
                        content: "x".into(),
                    },
                    NormalizerStep::Replace {
                        pattern: Pattern::Literal("E1".into()),
                        content: "y".into(),
                    },
                ],
                pre_tokenizers: vec![
                    PreTokenizerStep::WhitespaceSplit,
                    PreTokenizerStep::Digits { individual: false },
                ],
            },
            Chain {
                normalizers: vec![],
                pre_tokenizers: vec![PreTokenizerStep::Punctuation(SplitBehavior::Contiguous)],
            },
            Chain {
                normalizers: vec![NormalizerStep::Replace {
                    pattern: Pattern::Regex(RegexPattern::new(r"[\s.]+").unwrap()),
                    content: " ".into(),
                }],
                pre_tokenizers: vec![
                    PreTokenizerStep::Split {
                        pattern: Pattern::Regex(RegexPattern::new("[0-9]+").unwrap()),
                        behavior: SplitBehavior::Isolated,
                        invert: false,
                    },
                    PreTokenizerStep::Bert,
                ],
            },
        ];
        let bert = normalizers.into_iter().flat_map(|n| {
            [PreTokenizer::Bert, PreTokenizer::Whitespace].map(|p| Splitter::new(n.clone(), p))
        });
        let mut fast_taken = 0;
        for splitter in bert.chain(chains.map(Splitter::from_chain)) {
            let (mut fast, mut general) = (WordCounts::default(), WordCounts::default());
            let mut scratch = CountScratch::default();
            let ascii = splitter.ascii_classes().unwrap();
            let mut short = ShortWords::default();
            for d in &docs {
                fast_taken += ascii.words(d, &mut Vec::new(), |_| ()) as usize;
                splitter
                    .count_into(d, &mut fast, &mut scratch, Cancel::never())
                    .unwrap();
                splitter.count_general(d, &mut general, &mut short);
            }
            scratch.short.flush_into(&mut fast);
            short.flush_into(&mut general);
            assert_eq!(
                fast.iter().collect::<Vec<_>>(),
                general.iter().collect::<Vec<_>>(),
                "{splitter:?}"
            );
        }
        // Both paths were taken: documents with control bytes go the general way.
        assert!(fast_taken > 3000 && fast_taken < 12 * 3000, "{fast_taken}");
    }
}
