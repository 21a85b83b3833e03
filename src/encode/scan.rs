//! Byte scanning, eight bytes at a time where it pays: the ends of words and
//! chunks, and char counts of UTF-8.

/// The end of the run of ASCII letters and digits that starts at `i`.
#[inline]
pub(super) fn end_of_alnum(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // High bit of each byte set when lo <= byte <= hi (bytes are ASCII).
    let in_range = |x: u64, lo: u8, hi: u8| {
        (x + ONES * (0x80 - lo as u64)) & !(x + ONES * (0x80 - hi as u64 - 1)) & HIGH
    };
    while i + 8 <= text.len() {
        let mut b = [0u8; 8];
        b.copy_from_slice(&text[i..i + 8]);
        let x = u64::from_le_bytes(b);
        let alnum = in_range(x, b'0', b'9') | in_range(x | (ONES * 0x20), b'a', b'z');
        let other = !alnum & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && text[i].is_ascii_alphanumeric() {
        i += 1;
    }
    i
}

/// The ASCII whitespace bytes that split raw text into chunks.
#[inline]
pub(super) fn is_chunk_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The index of the first byte below 0x21 in the eight bytes of `x` (8 if
/// none): separators are among those bytes.
#[inline]
pub(super) fn first_separator_in_word(x: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // High bit set for bytes below 0x21: exact for the lowest one (borrows
    // only run upwards), which is all we look at.
    let low = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
    (low.trailing_zeros() / 8) as usize
}

/// The first chunk separator at or after `i` (or the text's end).
#[inline]
pub(super) fn next_chunk_separator(text: &[u8], mut i: usize) -> usize {
    while i + 8 <= text.len() {
        let x = u64::from_le_bytes(text[i..i + 8].try_into().unwrap_or([0; 8]));
        let at = first_separator_in_word(x);
        if at == 8 {
            i += 8;
            continue;
        }
        if is_chunk_separator(text[i + at]) {
            return i + at;
        }
        i += at + 1;
    }
    while i < text.len() && !is_chunk_separator(text[i]) {
        i += 1;
    }
    i
}

/// Chars in UTF-8 `bytes`: the bytes that are not continuation bytes.
#[inline]
pub(super) fn count_utf8_chars(bytes: &[u8]) -> u32 {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_found_a_word_at_a_time() {
        for text in [
            "abc def",
            "abcdefgh ij",
            "a\u{1}b c",
            "é\td",
            "abcdefghijklmnop",
            "",
        ] {
            let b = text.as_bytes();
            let expected = b.iter().position(|&c| is_chunk_separator(c));
            assert_eq!(
                next_chunk_separator(b, 0),
                expected.unwrap_or(b.len()),
                "{text:?}"
            );
        }
        let x = u64::from_le_bytes(*b"ab\x01cd ef");
        assert_eq!(
            first_separator_in_word(x),
            2,
            "control bytes are flagged too"
        );
        assert_eq!(first_separator_in_word(u64::from_le_bytes(*b"abcdefgh")), 8);
    }
}
