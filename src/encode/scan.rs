//! Byte scanning, eight bytes at a time where it pays: the ends of words,
//! ASCII whitespace, and char counts of UTF-8.

/// The end of the run of ASCII letters and digits (and `_` with
/// `UNDERSCORE`, the word chars of HF's `Whitespace`) that starts at `i`;
/// the bytes of `text` are ASCII.
#[inline]
pub(super) fn end_of_word<const UNDERSCORE: bool>(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    const LOW: u64 = ONES * 0x7F;
    // High bit of each byte set when lo <= byte <= hi (bytes are ASCII).
    let in_range = |x: u64, lo: u8, hi: u8| {
        (x + ONES * (0x80 - lo as u64)) & !(x + ONES * (0x80 - hi as u64 - 1)) & HIGH
    };
    // High bit of each byte set when it is `b`, exactly (no borrow between bytes).
    let equal = |x: u64, b: u8| {
        let v = x ^ (ONES * b as u64);
        !(((v & LOW) + LOW) | v) & HIGH
    };
    let is_word = |b: u8| b.is_ascii_alphanumeric() || (UNDERSCORE && b == b'_');
    while i + 8 <= text.len() {
        let mut b = [0u8; 8];
        b.copy_from_slice(&text[i..i + 8]);
        let x = u64::from_le_bytes(b);
        let mut word = in_range(x, b'0', b'9') | in_range(x | (ONES * 0x20), b'a', b'z');
        if UNDERSCORE {
            word |= equal(x, b'_');
        }
        let other = !word & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && is_word(text[i]) {
        i += 1;
    }
    i
}

/// The first byte of `text[i..to]` that is not printable ASCII (below 0x20,
/// 0x7F, or past ASCII), or `to`.
#[inline]
pub(super) fn first_unprintable(text: &[u8], mut i: usize, to: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    const LOW: u64 = ONES * 0x7F;
    let printable = |b: u8| (0x20..0x7F).contains(&b);
    while i + 8 <= to {
        let mut b = [0u8; 8];
        b.copy_from_slice(&text[i..i + 8]);
        let x = u64::from_le_bytes(b);
        // High bit set in a byte past ASCII, below 0x20 (a borrow may flag
        // later bytes too, never an earlier one), or equal to 0x7F.
        let below = x.wrapping_sub(ONES * 0x20) & !x;
        let v = x ^ LOW;
        let del = !(((v & LOW) + LOW) | v);
        let flagged = (x | below | del) & HIGH;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < to && printable(text[i]) {
        i += 1;
    }
    i
}

/// The ASCII whitespace bytes a text is cut at when its words never reach
/// across them (`Encoder::resume`).
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

    /// The end of the word from `start`, a byte at a time.
    fn plain_end(b: &[u8], start: usize, underscore: bool) -> usize {
        b[start..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || (underscore && c == b'_')))
            .map_or(b.len(), |k| start + k)
    }

    #[test]
    fn word_runs_end_where_a_byte_at_a_time_scan_ends() {
        for text in [
            "abc def",
            "abcdefgh ij",
            "ABCdef09xyz!",
            "a\u{1}b",
            "abcdefghijklmnop",
            "snake_case_word_",
            "",
        ] {
            let b = text.as_bytes();
            for start in 0..b.len() {
                assert_eq!(end_of_word::<false>(b, start), plain_end(b, start, false));
                assert_eq!(end_of_word::<true>(b, start), plain_end(b, start, true));
            }
        }
        // Every pair of ASCII bytes at every place of an eight-byte block,
        // after word bytes: a borrow from one byte must not flag the next
        // (`_` then `^` is the case a plain zero-byte test gets wrong).
        for fill in [b'a', b'_'] {
            for x in 0u8..128 {
                for y in 0u8..128 {
                    for at in 0..8 {
                        let mut b = [fill; 17];
                        (b[at], b[at + 1]) = (x, y);
                        for underscore in [false, true] {
                            let got = match underscore {
                                false => end_of_word::<false>(&b, 0),
                                true => end_of_word::<true>(&b, 0),
                            };
                            assert_eq!(got, plain_end(&b, 0, underscore), "{b:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn unprintable_bytes_are_found_where_a_byte_at_a_time_scan_finds_them() {
        let plain = |b: &[u8], from: usize, to: usize| {
            (from..to)
                .find(|&i| !(0x20..0x7F).contains(&b[i]))
                .unwrap_or(to)
        };
        // Every pair of bytes at every place of an eight-byte block, after
        // printable ones: a borrow from one byte must not hide an earlier
        // one; cut at every end, from every start.
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                for at in 0..8 {
                    let mut b = [b'a'; 17];
                    (b[at], b[at + 1]) = (x, y);
                    assert_eq!(first_unprintable(&b, 0, 17), plain(&b, 0, 17), "{b:?}");
                    if x == 0 && y == 0 {
                        for (from, to) in (0..17).flat_map(|f| (f..=17).map(move |t| (f, t))) {
                            assert_eq!(first_unprintable(&b, from, to), plain(&b, from, to));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn chars_are_the_bytes_that_do_not_continue_one() {
        assert_eq!(count_utf8_chars("aé字😀".as_bytes()), 4);
        assert_eq!(count_utf8_chars(b""), 0);
    }
}
