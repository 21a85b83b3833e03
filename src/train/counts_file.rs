//! Word counts on disk: a compact, versioned format, checked on load.
//!
//! Layout: the magic `b"wpcounts"`, a little-endian u32 version, then one
//! gzip member holding the counting options as JSON (so counts made with
//! other options are never mixed or trained as if they matched), the number
//! of words, and per word its UTF-8 length, bytes and count, all lengths and
//! counts as LEB128 varints. gzip's CRC-32 and length trailer catch a
//! corrupted or cut file; anything after the member is refused.
//!
//! Why this file is long: a hostile file must end in a clear error, never in
//! memory exhaustion, so the reader checks as it streams; its tests (every
//! cut and flipped byte, forged words, numbers past 2^64-1) sit beside it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use super::counting_options::CountingOptions;
use super::counts::WordCounts;
use super::word_splitting::WordSplitting;
use crate::cancel::Cancel;
use crate::error::{Error, Result};
use crate::memory::check_fits;
use crate::splitter::{SplitBuffers, Splitter};

pub const MAGIC: &[u8; 8] = b"wpcounts";
pub const VERSION: u32 = 1;
/// Words written or read between two checks for Ctrl-C.
const CANCEL_STRIDE: usize = 1 << 14;

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The file's bytes for `counts`, counted as `splitting` says.
pub fn to_bytes(
    counts: &WordCounts,
    splitting: &WordSplitting,
    cancel: &Cancel,
) -> Result<Vec<u8>> {
    // Level 1: counts of a big corpus are hundreds of MB; the fastest level
    // already takes most of what gzip can.
    to_bytes_compressed(counts, splitting, Compression::fast(), cancel)
}

/// [`to_bytes`] with gzip's stored blocks: the same format (the same reader,
/// CRC and all), about 1.6x the size, for counts that only cross a
/// cluster's network within a job, where compressing them at each level of
/// the merge tree cost more than sending them.
pub fn to_bytes_uncompressed(
    counts: &WordCounts,
    splitting: &WordSplitting,
    cancel: &Cancel,
) -> Result<Vec<u8>> {
    to_bytes_compressed(counts, splitting, Compression::none(), cancel)
}

fn to_bytes_compressed(
    counts: &WordCounts,
    splitting: &WordSplitting,
    level: Compression,
    cancel: &Cancel,
) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::Io(format!("writing word counts: {e}"));
    let options = serde_json::to_vec(&CountingOptions::from(splitting))
        .map_err(|e| Error::Value(e.to_string()))?;
    // The body is built whole, then compressed in large writes (a write per
    // word made gzip three times slower).
    let mut body = Vec::new();
    write_varint(&mut body, options.len() as u64);
    body.extend_from_slice(&options);
    write_varint(&mut body, counts.len() as u64);
    for (i, (word, count)) in counts.iter().enumerate() {
        if i.is_multiple_of(CANCEL_STRIDE) {
            cancel.check()?;
        }
        write_varint(&mut body, word.len() as u64);
        body.extend_from_slice(word.as_bytes());
        write_varint(&mut body, count);
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut gz = GzEncoder::new(out, level);
    for piece in body.chunks(1 << 20) {
        cancel.check()?;
        gz.write_all(piece).map_err(io)?;
    }
    gz.finish().map_err(io)
}

/// Byte `k` (from 0) of a LEB128 number into `v`: whether the number ends
/// there, or None past 2^64-1 (the tenth byte may hold only its top bit).
fn varint_step(v: &mut u64, k: usize, b: u8) -> Option<bool> {
    let low = u64::from(b & 0x7f);
    if k == 9 && low > 1 {
        return None;
    }
    *v |= low << (7 * k);
    Some(b & 0x80 == 0)
}

/// The decompressed body, read as it streams: what is held (words read,
/// and the map holding them) is checked against memory as it grows, and
/// allocations are fallible, so a small file that claims or inflates to
/// anything ends in an error, not in memory exhaustion.
struct Body<'a, R: BufRead> {
    reader: R,
    name: &'a str,
    /// Bytes held so far, and the next total at which memory is checked.
    held: u64,
    next_check: u64,
    /// The word being read.
    word: Vec<u8>,
}

impl<R: BufRead> Body<'_, R> {
    fn bad(&self, what: &str) -> Error {
        Error::Value(format!(
            "{}: not a valid word counts file ({what})",
            self.name
        ))
    }

    fn corrupt(&self, e: std::io::Error) -> Error {
        self.bad(&format!("corrupted or cut: {e}"))
    }

    fn hold(&mut self, bytes: u64) -> Result<()> {
        self.held = self.held.saturating_add(bytes);
        if self.held >= self.next_check {
            self.next_check = self.held.saturating_add(CHECK_EVERY);
            let need = usize::try_from(self.held.saturating_mul(2)).unwrap_or(usize::MAX);
            check_fits(need, "loading word counts")?;
        }
        Ok(())
    }

    fn byte(&mut self) -> Result<u8> {
        let buf = match self.reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) => return Err(self.corrupt(e)),
        };
        let Some(&b) = buf.first() else {
            return Err(self.bad("cut short"));
        };
        self.reader.consume(1);
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64> {
        // Most numbers lie whole in the buffer: read there, not byte by byte
        // through the reader (that took a fifth of loading).
        let buf = match self.reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) => return Err(self.corrupt(e)),
        };
        let mut v: u64 = 0;
        if buf.len() >= 10 {
            for (k, &b) in buf[..10].iter().enumerate() {
                match varint_step(&mut v, k, b) {
                    Some(true) => {
                        self.reader.consume(k + 1);
                        return Ok(v);
                    }
                    Some(false) => {}
                    None => break,
                }
            }
            return Err(self.bad("a number past 2^64-1"));
        }
        for k in 0..10 {
            match varint_step(&mut v, k, self.byte()?) {
                Some(true) => return Ok(v),
                Some(false) => {}
                None => break,
            }
        }
        Err(self.bad("a number past 2^64-1"))
    }

    /// The next `len` bytes as a word: UTF-8, or an error.
    fn word(&mut self, len: u64) -> Result<String> {
        let buf = match self.reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) => return Err(self.corrupt(e)),
        };
        // Whole in the buffer (most words): copied once, from there.
        let word = if len <= buf.len() as u64 {
            let n = len as usize;
            let word = std::str::from_utf8(&buf[..n]).map(str::to_owned);
            self.reader.consume(n);
            self.hold(len)?;
            word
        } else {
            std::str::from_utf8(self.take(len)?).map(str::to_owned)
        };
        word.map_err(|_| self.bad("a word that is not UTF-8"))
    }

    /// The next `len` bytes (only as many as the stream really holds are
    /// ever allocated).
    fn take(&mut self, len: u64) -> Result<&[u8]> {
        self.word.clear();
        while (self.word.len() as u64) < len {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => return Err(self.corrupt(e)),
            };
            if buf.is_empty() {
                return Err(self.bad("cut short"));
            }
            let n = buf.len().min((len - self.word.len() as u64) as usize);
            self.word
                .try_reserve(n)
                .map_err(|_| Error::Memory("loading word counts: out of memory".into()))?;
            self.word.extend_from_slice(&buf[..n]);
            self.reader.consume(n);
            self.hold(n as u64)?;
        }
        Ok(&self.word)
    }
}

/// Writes the counts file of `counts` to `path` (atomically).
pub fn save(
    path: &Path,
    counts: &WordCounts,
    splitting: &WordSplitting,
    cancel: &Cancel,
) -> Result<()> {
    stage(path, counts, splitting, cancel)?.commit()
}

/// [`save`] up to the rename, which the caller makes (or not: dropped, the
/// file goes) once it has looked for Ctrl-C a last time.
pub fn stage(
    path: &Path,
    counts: &WordCounts,
    splitting: &WordSplitting,
    cancel: &Cancel,
) -> Result<crate::io::Staged> {
    let data = to_bytes(counts, splitting, cancel)?;
    crate::io::Staged::write(path, &data, &mut || cancel.check())
}

/// Reads the counts file at `path` (a regular file that fits in memory).
pub fn load(path: &Path, cancel: &Cancel) -> Result<(WordSplitting, WordCounts)> {
    let (mut file, meta) = crate::io::open_regular(path)?;
    let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    crate::memory::check_fits(size, "loading word counts")?;
    let mut data = Vec::with_capacity(size);
    std::io::Read::read_to_end(&mut file, &mut data).map_err(|e| Error::io(path, e))?;
    from_bytes(&data, &path.display().to_string(), cancel)
}

/// Reads what [`to_bytes`] wrote; any other input is a `Error::Value`
/// saying what is wrong, `name` naming the source.
pub fn from_bytes(data: &[u8], name: &str, cancel: &Cancel) -> Result<(WordSplitting, WordCounts)> {
    read(data, name, true, cancel)
}

/// [`from_bytes`] for bytes one of our own workers just made with
/// [`to_bytes`] (the parts of a counting job on a cluster): each word is not
/// split again to check it is a word of the options (most of the time a
/// load takes). Every other check stays: a bad file is still an error.
pub fn from_worker_bytes(
    data: &[u8],
    name: &str,
    cancel: &Cancel,
) -> Result<(WordSplitting, WordCounts)> {
    read(data, name, false, cancel)
}

fn read(
    data: &[u8],
    name: &str,
    resplit_words: bool,
    cancel: &Cancel,
) -> Result<(WordSplitting, WordCounts)> {
    let bad = |what: &str| Error::Value(format!("{name}: not a valid word counts file ({what})"));
    if data.len() < 12 || &data[..8] != MAGIC {
        return Err(bad("no wpcounts header"));
    }
    let version = u32::from_le_bytes([data[8], data[9], data[10], data[11]]);
    if version != VERSION {
        return Err(Error::Value(format!(
            "{name}: word counts format version {version}, this wpiece reads version {VERSION}"
        )));
    }
    let mut body = Body {
        reader: BufReader::with_capacity(1 << 16, GzDecoder::new(&data[12..])),
        name,
        held: 0,
        next_check: 0,
        word: Vec::new(),
    };
    let options_len = body.varint()?;
    // A pipeline's added tokens may be many: room for some thousands.
    if options_len > 1 << 24 {
        return Err(bad("options too long"));
    }
    let options: CountingOptions = serde_json::from_slice(body.take(options_len)?)
        .map_err(|e| bad(&format!("options: {e}")))?;
    let splitting = WordSplitting::try_from(&options)?;
    // A chain's normalizers need not leave their own output as it is (a
    // prefix is prepended again): its words are not checked by re-splitting.
    let checked = resplit_words && splitting.splitter().chain().is_none();
    let splitter = splitting.splitter();
    let words = body.varint()?;
    let mut counts = WordCounts::default();
    // A worker's own counts (trusted to say how many words they hold): room
    // for them up front, as growing rehashed the map a tenth of the time.
    // Bounded all the same (half the bytes, at most 2^20 words, only if
    // memory allows), so that bytes from anywhere else reserve nothing that
    // the checks as words come would not have allowed.
    if !resplit_words {
        let room = words.min(data.len() as u64 / 2).min(1 << 20);
        let room_bytes = usize::try_from(room.saturating_mul(ENTRY_BYTES)).unwrap_or(usize::MAX);
        if check_fits(room_bytes.saturating_mul(2), "loading word counts").is_ok() {
            let _ = counts.try_reserve(room as usize);
        }
    }
    let mut split = SplitBuffers::default();
    for i in 0..words {
        if i.is_multiple_of(CANCEL_STRIDE as u64) {
            cancel.check()?;
        }
        let len = body.varint()?;
        let word = body.word(len)?;
        let count = body.varint()?;
        // Words counted 0 are dropped (as counting never makes them).
        if count == 0 {
            continue;
        }
        if checked && !makes_word(splitter, &word, &mut split) {
            return Err(Error::Value(format!(
                "{name}: word {i} ({word:?}) is not a word that counting with the \
                 file's options ({}) makes: the file was changed or made otherwise",
                options.describe()
            )));
        }
        // A map entry besides the word's bytes.
        body.hold(ENTRY_BYTES)?;
        counts.try_reserve(1)?;
        if !counts.insert_new(word, count) {
            return Err(bad("a word listed twice"));
        }
    }
    // Reading to the end checks gzip's CRC and length; nothing may follow.
    match body.reader.fill_buf() {
        Ok([]) => {}
        Ok(_) => return Err(bad("more words than it says")),
        Err(e) => return Err(body.corrupt(e)),
    }
    if !body.reader.into_inner().into_inner().is_empty() {
        return Err(bad("data after the end"));
    }
    Ok((splitting, counts))
}

/// Whether splitting `word` gives `word` alone: every word counting makes
/// does (normalization and pre-tokenization leave their own output as it
/// is; `tests/test_counts.py` checks it), so any other word was forged.
fn makes_word(splitter: &Splitter, word: &str, split: &mut SplitBuffers) -> bool {
    let (mut n, mut same) = (0usize, false);
    splitter.words(word, split, |w| {
        n += 1;
        same = w == word;
    });
    n == 1 && same
}

/// Bytes held between two memory checks.
const CHECK_EVERY: u64 = 16 << 20;
/// What a word's map entry costs besides its bytes (about).
const ENTRY_BYTES: u64 = 48;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::NormalizerConfig;
    use crate::pre_tokenizers::PreTokenizer;

    fn sample() -> (WordSplitting, WordCounts) {
        let mut c = WordCounts::default();
        for (w, n) in [
            ("the", 5u64),
            ("##", 1),
            ("日", u64::MAX),
            ("Ab", 1),
            ("x", 127),
        ] {
            c.add(w, n);
        }
        let normalizer = Some(NormalizerConfig {
            lowercase: false,
            strip_accents: Some(true),
            ..Default::default()
        });
        let s = Splitter::new(normalizer, PreTokenizer::Whitespace);
        (WordSplitting::Options(s), c)
    }

    #[test]
    fn round_trips_words_counts_order_and_options() {
        let (s, c) = sample();
        let data = to_bytes(&c, &s, Cancel::never()).unwrap();
        let (s2, c2) = from_bytes(&data, "x", Cancel::never()).unwrap();
        assert!(c2.same_as(&c));
        assert_eq!(CountingOptions::from(&s2), CountingOptions::from(&s));
    }

    #[test]
    fn words_and_numbers_across_the_read_buffer_round_trip_either_way() {
        // Words of every length up to past the 64 KiB read buffer and counts
        // of every varint length: some words lie across a buffer's end (read
        // through `take`), the rest inside one (read in place).
        let (s, _) = sample();
        let mut c = WordCounts::default();
        let mut k = 0u64;
        for len in (1..300).chain([65_535, 65_536, 65_537, 70_000]) {
            for shift in [0, 7, 14, 35, 56, 63] {
                k += 1;
                let word = format!("{k}{}", "é".repeat(len / 2));
                c.add(&word, (1u64 << shift) | (k & 0x7f));
            }
        }
        c.add("max", u64::MAX);
        for data in [
            to_bytes(&c, &s, Cancel::never()).unwrap(),
            to_bytes_uncompressed(&c, &s, Cancel::never()).unwrap(),
        ] {
            let (_, read) = from_worker_bytes(&data, "x", Cancel::never()).unwrap();
            assert!(read.same_as(&c));
        }
    }

    #[test]
    fn a_number_past_u64_is_refused_inside_a_buffer_too() {
        // Ten bytes whose last holds more than 2^64-1's top bit, then padding
        // so that the whole number lies in the read buffer.
        let (s, _) = sample();
        let options = serde_json::to_vec(&CountingOptions::from(&s)).unwrap();
        for last in [0x02u8, 0x81] {
            let mut body = Vec::new();
            write_varint(&mut body, options.len() as u64);
            body.extend_from_slice(&options);
            body.extend_from_slice(&[0xff; 9]);
            body.push(last);
            body.extend_from_slice(&[0; 32]);
            let mut gz = GzEncoder::new(MAGIC.to_vec(), Compression::none());
            gz.get_mut().extend_from_slice(&VERSION.to_le_bytes());
            gz.write_all(&body).unwrap();
            let data = gz.finish().unwrap();
            let err = from_bytes(&data, "f", Cancel::never()).unwrap_err();
            assert!(err.to_string().contains("past 2^64-1"), "{err}");
        }
    }

    fn body_over<R: BufRead>(reader: R) -> Body<'static, R> {
        Body {
            reader,
            name: "x",
            held: 0,
            next_check: 0,
            word: Vec::new(),
        }
    }

    #[test]
    fn numbers_and_words_read_alike_through_a_buffer_of_any_size() {
        // Buffers of 1 to 12 bytes: each number and word lies across a
        // buffer's end at every offset, so the byte-by-byte path and `take`
        // read what the in-place paths read from a large buffer.
        let numbers = [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            1 << 35,
            1 << 56,
            1 << 63,
            u64::MAX,
        ];
        let words = ["", "a", "é", "日本語", "abcdefghijklmnopqrstuvwxyz"];
        let mut stream = Vec::new();
        for (k, &n) in numbers.iter().enumerate() {
            write_varint(&mut stream, n);
            let word = words[k % words.len()];
            write_varint(&mut stream, word.len() as u64);
            stream.extend_from_slice(word.as_bytes());
        }
        let overlong = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        for capacity in (1..=12).chain([1 << 16]) {
            let mut body = body_over(BufReader::with_capacity(capacity, &stream[..]));
            for (k, &n) in numbers.iter().enumerate() {
                assert_eq!(body.varint().unwrap(), n, "capacity {capacity}");
                let len = body.varint().unwrap();
                assert_eq!(body.word(len).unwrap(), words[k % words.len()]);
            }
            assert!(body.varint().unwrap_err().to_string().contains("cut short"));
            let mut body = body_over(BufReader::with_capacity(capacity, &overlong[..]));
            let err = body.varint().unwrap_err().to_string();
            assert!(err.contains("past 2^64-1"), "capacity {capacity}: {err}");
        }
    }

    /// The file of `sample()` with `words` in place of its words.
    fn forged(words: &[(&str, u64)]) -> Vec<u8> {
        let (s, _) = sample();
        let mut c = WordCounts::default();
        for &(w, n) in words {
            c.add(w, n);
        }
        to_bytes(&c, &s, Cancel::never()).unwrap()
    }

    #[test]
    fn words_the_options_cannot_make_are_refused_and_zero_counts_dropped() {
        // Cased, accents stripped, whitespace words, CJK isolated.
        for word in ["", "a b", "日本", "é", "a\u{7}", "\u{301}", " x", "a\tb"] {
            let data = forged(&[("the", 1), (word, 2)]);
            let err = from_bytes(&data, "f", Cancel::never())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("word 1 ({word:?})")) && err.contains("lowercase=False"),
                "{word:?}: {err}"
            );
        }
        let data = forged(&[("the", 0), ("Ab", 3), ("a b", 0)]);
        let (_, c) = from_bytes(&data, "f", Cancel::never()).unwrap();
        assert_eq!(c.iter().collect::<Vec<_>>(), [("Ab", 3)]);
    }

    #[test]
    fn every_damaged_file_is_a_value_error() {
        let (s, c) = sample();
        let data = to_bytes(&c, &s, Cancel::never()).unwrap();
        // Every cut and every flipped byte (header, gzip, body, trailer).
        for cut in 0..data.len() {
            let r = from_bytes(&data[..cut], "x", Cancel::never());
            assert!(matches!(r, Err(Error::Value(_))), "cut at {cut}");
        }
        for at in 0..data.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = data.clone();
                bad[at] ^= flip;
                // gzip's header has fields it does not check (mtime, OS):
                // a flip there still reads the same counts, anything else fails.
                match from_bytes(&bad, "x", Cancel::never()) {
                    Ok((_, c2)) => assert!(c2.same_as(&c), "flip {flip:#x} at {at}"),
                    Err(Error::Value(_)) => {}
                    Err(e) => panic!("flip at {at}: {e:?}"),
                }
            }
        }
        let mut longer = data.clone();
        longer.push(0);
        assert!(from_bytes(&longer, "x", Cancel::never()).is_err());
    }

    #[test]
    fn hostile_bodies_are_refused_before_allocating() {
        let body = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut raw = Vec::new();
            f(&mut raw);
            let mut out = MAGIC.to_vec();
            out.extend_from_slice(&VERSION.to_le_bytes());
            let mut gz = GzEncoder::new(out, Compression::fast());
            gz.write_all(&raw).unwrap();
            gz.finish().unwrap()
        };
        let options = serde_json::to_vec(&CountingOptions::from(&Splitter::default())).unwrap();
        let head = |raw: &mut Vec<u8>, words: u64| {
            write_varint(raw, options.len() as u64);
            raw.extend_from_slice(&options);
            write_varint(raw, words);
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            // A word of 2^62 bytes, with none of them there.
            (
                "huge word",
                body(&|r| {
                    head(r, 1);
                    write_varint(r, 1 << 62);
                }),
            ),
            // 2^60 words claimed, one given.
            (
                "huge count of words",
                body(&|r| {
                    head(r, 1 << 60);
                    write_varint(r, 1);
                    r.push(b'a');
                    write_varint(r, 1);
                }),
            ),
            (
                "duplicate",
                body(&|r| {
                    head(r, 2);
                    for _ in 0..2 {
                        write_varint(r, 1);
                        r.push(b'a');
                        write_varint(r, 1);
                    }
                }),
            ),
            (
                "not UTF-8",
                body(&|r| {
                    head(r, 1);
                    write_varint(r, 1);
                    r.push(0xff);
                    write_varint(r, 1);
                }),
            ),
            (
                "count past 2^64",
                body(&|r| {
                    head(r, 1);
                    write_varint(r, 1);
                    r.push(b'a');
                    r.extend_from_slice(&[0xff; 9]);
                    r.push(0x02);
                }),
            ),
            (
                "unknown option",
                body(&|r| {
                    let o = br#"{"normalize":true,"speed":1}"#;
                    write_varint(r, o.len() as u64);
                    r.extend_from_slice(o);
                    write_varint(r, 0);
                }),
            ),
            (
                "bad pre-tokenizer",
                body(&|r| {
                    let o = br#"{"normalize":true,"lowercase":true,"strip_accents":null,"clean_text":true,"handle_chinese_chars":true,"pre_tokenizer":"regex"}"#;
                    write_varint(r, o.len() as u64);
                    r.extend_from_slice(o);
                    write_varint(r, 0);
                }),
            ),
        ];
        for (what, data) in cases {
            let r = from_bytes(&data, "x", Cancel::never());
            assert!(matches!(r, Err(Error::Value(_))), "{what}: {r:?}");
        }
        let mut future = to_bytes(
            &WordCounts::default(),
            &WordSplitting::Options(Splitter::default()),
            Cancel::never(),
        )
        .unwrap();
        future[8] = 2;
        let r = from_bytes(&future, "x", Cancel::never());
        assert!(
            matches!(&r, Err(Error::Value(m)) if m.contains("version 2")),
            "{r:?}"
        );
    }
}
