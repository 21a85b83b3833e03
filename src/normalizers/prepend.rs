//! HF's `Prepend`: a prefix before a non-empty text.

use super::{Normalized, NO_SOURCE};

pub(super) fn prepend(prefix: &str, text: &str, src: &[u32], out: &mut Normalized) {
    out.text.push_str(prefix);
    out.text.push_str(text);
    if let Some(&first) = src.first() {
        // HF re-inserts the first char after the prefix: with an
        // empty prefix nothing precedes it, and it aligns to nothing.
        let first = if prefix.is_empty() { NO_SOURCE } else { first };
        out.source
            .extend(std::iter::repeat_n(first, prefix.chars().count() + 1));
        out.source.extend_from_slice(&src[1..]);
    } else {
        out.text.clear();
    }
}
