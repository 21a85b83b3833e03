//! HF's `Strip`: whitespace removed from the left end, the right end, or both.

use super::{keep, Normalized};

pub(super) fn strip(left: bool, right: bool, text: &str, src: &[u32], out: &mut Normalized) {
    let n = src.len();
    let lead = if left {
        text.chars().take_while(|c| c.is_whitespace()).count()
    } else {
        0
    };
    let trail = if right {
        text.chars().rev().take_while(|c| c.is_whitespace()).count()
    } else {
        0
    };
    keep(text, src, |i, _| i >= lead && i + trail < n, out);
}
