//! HF's `Split` with a string pattern: the pattern's occurrences are the
//! delimiter runs.

use super::runs::Run;

/// Non-overlapping occurrences of `pattern`, left to right.
pub(super) fn literal_runs(text: &str, pattern: &str, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (at, m) in text.match_indices(pattern) {
        if last != at {
            runs.push((last, at, false));
        }
        runs.push((at, at + m.len(), true));
        last = at + m.len();
    }
    if last != text.len() {
        runs.push((last, text.len(), false));
    }
}
