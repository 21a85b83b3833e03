//! Text checked as UTF-8 and cut into lines on every thread: a block of a
//! file is megabytes, and doing either on one thread held the others up
//! (each piece's result is exactly the whole's).

use rayon::prelude::*;

/// Below this many bytes, checking or splitting text on one thread is quicker.
const ONE_THREAD_BYTES: usize = 1 << 20;

/// `bytes` as text, checked on every thread (a block of a file is megabytes;
/// checking it on one thread held the others up), or the offset of the first
/// invalid byte. The bytes are cut where a char begins, so each piece's
/// check sees what the whole check would: a piece is valid alone exactly
/// when it is valid within the whole, and its first error is the whole's.
pub(super) fn utf8_on_every_thread(bytes: &[u8]) -> std::result::Result<&str, usize> {
    if bytes.len() < ONE_THREAD_BYTES {
        return std::str::from_utf8(bytes).map_err(|e| e.valid_up_to());
    }
    let is_continuation = |b: u8| b & 0xC0 == 0x80;
    let mut mid = bytes.len() / 2;
    while mid < bytes.len() && is_continuation(bytes[mid]) {
        mid += 1;
    }
    let (left, right) = bytes.split_at(mid);
    let (l, r) = rayon::join(
        || utf8_on_every_thread(left),
        || utf8_on_every_thread(right),
    );
    match (l, r) {
        (Err(at), _) => Err(at),
        (Ok(_), Err(at)) => Err(mid + at),
        // SAFETY: two valid UTF-8 strings make a valid one.
        (Ok(_), Ok(_)) => Ok(unsafe { std::str::from_utf8_unchecked(bytes) }),
    }
}

/// `text.lines()`, split on every thread (each piece ends after a newline,
/// so the pieces' lines are the whole's).
pub(super) fn lines_on_every_thread(text: &str) -> Vec<&str> {
    let pieces = rayon::current_num_threads() * 4;
    if text.len() < ONE_THREAD_BYTES || pieces <= 4 {
        return text.lines().collect();
    }
    let bytes = text.as_bytes();
    let mut cuts = vec![0];
    for k in 1..pieces {
        let from = (k * bytes.len() / pieces).max(*cuts.last().unwrap_or(&0));
        match memchr::memchr(b'\n', &bytes[from..]) {
            Some(at) => cuts.push(from + at + 1),
            None => break,
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    let parts: Vec<Vec<&str>> = cuts
        .par_windows(2)
        .map(|w| text[w[0]..w[1]].lines().collect())
        .collect();
    parts.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_checked_and_split_on_every_thread_as_on_one() {
        // Past the one-thread size, multi-byte chars everywhere, so cuts
        // land next to (and are moved past) continuation bytes.
        let unit = "ab\u{e9}\u{4e2d}\r\n\u{1f600}x\n\ny ";
        let text: String = unit.repeat((3 << 20) / unit.len());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| {
            assert_eq!(utf8_on_every_thread(text.as_bytes()), Ok(text.as_str()));
            assert_eq!(
                lines_on_every_thread(&text),
                text.lines().collect::<Vec<_>>()
            );
            let ends_open = &text[..text.len() - 3];
            assert_eq!(
                lines_on_every_thread(ends_open),
                ends_open.lines().collect::<Vec<_>>()
            );
            // Errors at and around every place a cut may fall: a stray
            // byte, a lead byte without its continuation, a lone continuation.
            let n = text.len();
            let mut places: Vec<usize> = vec![0, 1, n - 1, n - 2];
            for k in 1..16 {
                places.extend((k * n / 16).saturating_sub(5)..(k * n / 16 + 5).min(n));
            }
            for at in places {
                for bad in [0xFF, 0xC3, 0x80, b'a'] {
                    let mut bytes = text.clone().into_bytes();
                    bytes[at] = bad;
                    let want = std::str::from_utf8(&bytes).map_err(|e| e.valid_up_to());
                    let got = utf8_on_every_thread(&bytes);
                    assert_eq!(got.map(str::len), want.map(str::len), "{at} {bad:#x}");
                }
            }
        });
    }
}
