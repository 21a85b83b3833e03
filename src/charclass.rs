//! Character properties that normalization and pre-tokenization ask about,
//! precomputed for the Basic Multilingual Plane.
//!
//! The Unicode-category crate answers by binary search in long tables; asking
//! it about every character of a text costs more than the rest of encoding.
//! The answers for the first 65,536 code points are computed once per process
//! from the same functions (so results are identical) and kept in a 64 KiB
//! table; other code points ask the functions directly.

use std::sync::OnceLock;

use unicode_categories::UnicodeCategories;
use unicode_normalization::char::{canonical_combining_class, decompose_canonical};

use crate::normalize::{
    is_bert_control_slow, is_bert_punctuation_slow, is_bert_whitespace, is_chinese_char,
};

pub const CONTROL: u8 = 1;
pub const WHITESPACE: u8 = 1 << 1;
pub const PUNCT: u8 = 1 << 2;
pub const NONSPACING_MARK: u8 = 1 << 3;
pub const CHINESE: u8 = 1 << 4;
/// The canonical decomposition is the char itself and its combining class is 0.
pub const NFD_STABLE: u8 = 1 << 5;
/// Lowercasing changes the char.
pub const HAS_LOWER: u8 = 1 << 6;

fn compute(c: char) -> u8 {
    let mut f = 0;
    if is_bert_control_slow(c) {
        f |= CONTROL;
    }
    if is_bert_whitespace(c) {
        f |= WHITESPACE;
    }
    if is_bert_punctuation_slow(c) {
        f |= PUNCT;
    }
    if c.is_mark_nonspacing() {
        f |= NONSPACING_MARK;
    }
    if is_chinese_char(c) {
        f |= CHINESE;
    }
    let mut stable = canonical_combining_class(c) == 0;
    let mut n = 0;
    decompose_canonical(c, |d| {
        n += 1;
        stable &= d == c;
    });
    if stable && n == 1 {
        f |= NFD_STABLE;
    }
    if c.to_lowercase().ne(std::iter::once(c)) {
        f |= HAS_LOWER;
    }
    f
}

static BMP: OnceLock<Box<[u8]>> = OnceLock::new();

fn bmp() -> &'static [u8] {
    BMP.get_or_init(|| {
        (0u32..0x10000)
            .map(|cp| char::from_u32(cp).map_or(0, compute))
            .collect()
    })
}

/// The property bits of `c`.
#[inline]
pub fn flags(c: char) -> u8 {
    let cp = c as u32;
    if cp < 0x10000 {
        bmp()[cp as usize]
    } else {
        compute(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_agrees_with_the_functions() {
        for cp in (0u32..0x11000)
            .step_by(7)
            .chain([0x301, 0xE9, 0x130, 0x3000, 0x4E2D, 0xF900])
        {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(flags(c), compute(c), "U+{cp:04X}");
            }
        }
        assert_ne!(flags('\u{301}') & NONSPACING_MARK, 0);
        assert_eq!(flags('é') & NFD_STABLE, 0);
        assert_ne!(flags('a') & NFD_STABLE, 0);
        assert_ne!(flags('中') & CHINESE, 0);
    }
}
