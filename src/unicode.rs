//! Character classes as BERT sees them (whitespace, control, punctuation,
//! CJK), asked by both the normalizer and the pre-tokenizer, and the property
//! table that answers them fast for the Basic Multilingual Plane.
//!
//! The Unicode-category crate answers by binary search in long tables; asking
//! it about every character of a text costs more than the rest of encoding.
//! The answers for the first 65,536 code points are computed once per process
//! from the same functions (so results are identical), a block of 256 at a
//! time as text meets them, and kept in a 64 KiB table; other code points ask
//! the functions directly.

use std::sync::OnceLock;

use unicode_categories::UnicodeCategories;
// HF's tables (Unicode 9), as its NFD: unicode-normalization's newer ones
// decompose characters HF leaves whole.
use unicode_normalization_alignments::char::{canonical_combining_class, decompose_canonical};

/// Whitespace as BERT sees it: Unicode White_Space plus tab, newline, return.
#[inline]
pub fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Control as BERT sees it: categories Cc, Cf, Co except tab, newline, return.
#[inline]
pub fn is_bert_control(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    flags(c) & CONTROL != 0
}

/// [`is_bert_control`] from the category tables (fills the fast table).
pub fn is_bert_control_slow(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// CJK ideographs that BERT isolates as single-character words.
pub fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Punctuation as BERT sees it: ASCII punctuation (which includes symbols
/// such as `$` and `^`) or a Unicode P* category.
#[inline]
pub fn is_bert_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    flags(c) & PUNCT != 0
}

/// [`is_bert_punctuation`] from the category tables (fills the fast table).
pub fn is_bert_punctuation_slow(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

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

/// The BMP's property bits in blocks of 256 code points, each computed the
/// first time one of its characters is asked about: a text meets a few
/// blocks, and computing all 65,536 entries at once took a few milliseconds
/// of a process's first call.
const BLOCK_BITS: u32 = 8;
static BMP_BLOCKS: [OnceLock<[u8; 1 << BLOCK_BITS]>; 0x10000 >> BLOCK_BITS] =
    [const { OnceLock::new() }; 0x10000 >> BLOCK_BITS];

fn bmp_block(block: u32) -> &'static [u8; 1 << BLOCK_BITS] {
    BMP_BLOCKS[block as usize].get_or_init(|| {
        let first = block << BLOCK_BITS;
        std::array::from_fn(|k| char::from_u32(first + k as u32).map_or(0, compute))
    })
}

/// The property bits of `c`.
#[inline]
pub fn flags(c: char) -> u8 {
    let cp = c as u32;
    if cp < 0x10000 {
        bmp_block(cp >> BLOCK_BITS)[(cp & ((1 << BLOCK_BITS) - 1)) as usize]
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
