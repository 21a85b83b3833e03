//! HF's `Lowercase`: Unicode lowercase; a char that lowercases to several
//! chars gives each of them its source.

use super::Normalized;

pub(super) fn lowercase(text: &str, src: &[u32], out: &mut Normalized) {
    for (c, &s) in text.chars().zip(src) {
        for low in c.to_lowercase() {
            out.text.push(low);
            out.source.push(s);
        }
    }
}
