//! HF's `StripAccents`: drops combining marks (every `M` category), without
//! decomposing first (a chain puts `NFD` before it for that).

use unicode_normalization_alignments::char::is_combining_mark;

use super::{keep, Normalized};

pub(super) fn strip_accents(text: &str, src: &[u32], out: &mut Normalized) {
    keep(text, src, |_, c| !is_combining_mark(c), out);
}
