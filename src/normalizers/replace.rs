//! HF's `Replace` with a string pattern: every non-overlapping occurrence,
//! left to right, becomes the content.

use super::{push_kept, Normalized};

pub(super) fn replace(pattern: &str, content: &str, text: &str, src: &[u32], out: &mut Normalized) {
    // Content is aligned to the last char it replaces.
    let mut last = 0;
    let mut char_at = 0usize;
    for (at, m) in text.match_indices(pattern) {
        let before = &text[last..at];
        push_kept(before, &src[char_at..], out);
        char_at += before.chars().count();
        let matched = m.chars().count();
        let align = src[char_at + matched - 1];
        for c in content.chars() {
            out.text.push(c);
            out.source.push(align);
        }
        char_at += matched;
        last = at + m.len();
    }
    push_kept(&text[last..], &src[char_at..], out);
}
