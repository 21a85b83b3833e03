//! Byte scanning, eight bytes at a time where it pays: the ends of words,
//! ASCII whitespace, and char counts of UTF-8.

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

/// The ASCII whitespace bytes a text is cut at when its words never reach
/// across them (`Encoder::ascii_resumes`).
#[inline]
pub(super) fn is_ascii_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
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
    fn alnum_runs_end_where_a_byte_at_a_time_scan_ends() {
        for text in [
            "abc def",
            "abcdefgh ij",
            "ABCdef09xyz!",
            "a\u{1}b",
            "abcdefghijklmnop",
            "",
        ] {
            let b = text.as_bytes();
            for start in 0..b.len() {
                let expected = b[start..]
                    .iter()
                    .position(|c| !c.is_ascii_alphanumeric())
                    .map_or(b.len(), |k| start + k);
                assert_eq!(end_of_alnum(b, start), expected, "{text:?} from {start}");
            }
        }
    }

    #[test]
    fn chars_are_the_bytes_that_do_not_continue_one() {
        assert_eq!(count_utf8_chars("aé字😀".as_bytes()), 4);
        assert_eq!(count_utf8_chars(b""), 0);
    }
}
