//! HF's `Whitespace` pre-tokenizer: runs of word chars and runs of other
//! non-space chars, word and space as HF's Oniguruma regex has them
//! (`word_chars.rs`, generated from `tokenizers`).

use super::runs::Run;
use super::word_chars::{class, CharClass};

/// Matches of `\w+|[^\w\s]+` (flagged true) and the gaps between them.
pub(super) fn whitespace_runs(text: &str, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut current: Option<(usize, CharClass)> = None;
    for (b, c) in text.char_indices() {
        let k = class(c);
        match current {
            Some((_, prev)) if prev == k => {}
            Some((start, prev)) => {
                runs.push((start, b, prev != CharClass::Space));
                current = Some((b, k));
            }
            None => current = Some((b, k)),
        }
    }
    if let Some((start, prev)) = current {
        runs.push((start, text.len(), prev != CharClass::Space));
    }
}
