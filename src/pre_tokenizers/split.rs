//! HF's `Split`: the pattern's matches (`crate::pattern`) are the delimiter
//! runs.

use super::runs::Run;
use crate::pattern::Pattern;

/// The runs of `text`: each match a delimiter run, the text between them
/// plain runs, left to right (an empty text is one empty run).
pub(super) fn pattern_runs(text: &str, pattern: &Pattern, runs: &mut Vec<Run>) {
    runs.clear();
    if text.is_empty() {
        runs.push((0, 0, false));
        return;
    }
    let mut last = 0;
    for (start, end) in pattern.matches(text) {
        if last != start {
            runs.push((last, start, false));
        }
        runs.push((start, end, true));
        last = end;
    }
    if last != text.len() {
        runs.push((last, text.len(), false));
    }
}
