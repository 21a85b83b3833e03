//! HF's `Replace`: every non-overlapping match of a string or a regex
//! (`crate::pattern`), left to right, becomes the content.

use super::{push_kept, Normalized, NO_SOURCE};
use crate::pattern::Pattern;

pub(super) fn replace(
    pattern: &Pattern,
    content: &str,
    text: &str,
    src: &[u32],
    out: &mut Normalized,
) {
    // As HF aligns inserted chars: content takes the alignment of the char
    // before its place once the match is removed, i.e. the last char it
    // replaces; for an empty match, the char before it (none at the start).
    let mut last = 0;
    let mut char_at = 0usize;
    for (start, end) in pattern.matches(text) {
        let before = &text[last..start];
        push_kept(before, &src[char_at..], out);
        char_at += before.chars().count();
        let matched = text[start..end].chars().count();
        let align = match (char_at + matched).checked_sub(1) {
            Some(i) => src[i],
            None => NO_SOURCE,
        };
        for c in content.chars() {
            out.text.push(c);
            out.source.push(align);
        }
        char_at += matched;
        last = end;
    }
    push_kept(&text[last..], &src[char_at..], out);
}
