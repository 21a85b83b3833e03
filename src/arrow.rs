//! Arrow string columns read in place: the rows of a `StringArray` (i32
//! offsets) or `LargeStringArray` (i64 offsets) as `&str`, straight from its
//! buffers, after checking everything a hostile array could get wrong
//! (offsets out of order or past the data, a short validity bitmap, bytes
//! that are not UTF-8): a bad array is an error, never a wrong read.

use crate::error::{Error, Result};

/// An Arrow offsets buffer.
#[derive(Clone, Copy, Debug)]
pub enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

impl Offsets<'_> {
    fn len(&self) -> usize {
        match self {
            Offsets::I32(o) => o.len(),
            Offsets::I64(o) => o.len(),
        }
    }

    fn get(&self, i: usize) -> i64 {
        match self {
            Offsets::I32(o) => o[i] as i64,
            Offsets::I64(o) => o[i],
        }
    }
}

/// Rows `offset..offset + length` of a string array: `None` for a null row.
pub fn string_rows<'a>(
    offsets: Offsets<'_>,
    data: &'a [u8],
    validity: Option<&[u8]>,
    offset: usize,
    length: usize,
) -> Result<Vec<Option<&'a str>>> {
    let bad = |what: String| Error::Value(format!("invalid Arrow string array: {what}"));
    let end = offset
        .checked_add(length)
        .ok_or_else(|| bad("offset + length overflows".into()))?;
    if offsets.len() <= end {
        return Err(bad(format!(
            "{} offsets for rows {offset}..{end}",
            offsets.len()
        )));
    }
    if let Some(bits) = validity {
        if bits.len() < end.div_ceil(8) {
            return Err(bad(format!(
                "a validity bitmap of {} bytes for {end} rows",
                bits.len()
            )));
        }
    }
    let mut rows = Vec::new();
    rows.try_reserve_exact(length)
        .map_err(|_| Error::Memory(format!("{length} rows do not fit in memory")))?;
    for i in offset..end {
        let valid = validity.is_none_or(|bits| bits[i / 8] >> (i % 8) & 1 == 1);
        let (start, stop) = (offsets.get(i), offsets.get(i + 1));
        if start < 0 || stop < start || stop as u64 > data.len() as u64 {
            return Err(bad(format!(
                "row {} spans bytes {start}..{stop} of {}",
                i - offset,
                data.len()
            )));
        }
        if !valid {
            rows.push(None);
            continue;
        }
        let bytes = &data[start as usize..stop as usize];
        let text = std::str::from_utf8(bytes).map_err(|e| {
            bad(format!(
                "row {} is not UTF-8 at byte {}",
                i - offset,
                e.valid_up_to()
            ))
        })?;
        rows.push(Some(text));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_slices_and_nulls() {
        let data = b"abcdefxyz";
        let offs = [0i32, 3, 3, 6, 9];
        let validity = [0b1101u8];
        let rows = string_rows(Offsets::I32(&offs), data, Some(&validity), 0, 4).unwrap();
        assert_eq!(rows, vec![Some("abc"), None, Some("def"), Some("xyz")]);
        let wide: Vec<i64> = offs.iter().map(|&o| o as i64).collect();
        let sliced = string_rows(Offsets::I64(&wide), data, None, 2, 2).unwrap();
        assert_eq!(sliced, vec![Some("def"), Some("xyz")]);
        assert!(string_rows(Offsets::I32(&offs), data, None, 4, 0)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn hostile_arrays_are_errors() {
        let data = b"ab\xffcd";
        type Case = (Vec<i32>, Option<Vec<u8>>, usize, usize);
        let cases: Vec<Case> = vec![
            (vec![0, 2], None, 0, 2),              // too few offsets
            (vec![0, 2, 1], None, 0, 2),           // out of order
            (vec![0, 2, 9], None, 0, 2),           // past the data
            (vec![-1, 2], None, 0, 1),             // negative
            (vec![0, 2, 3], None, 0, 2),           // not UTF-8
            (vec![0; 10], Some(vec![0xff]), 0, 9), // short bitmap
            (vec![0, 1], None, usize::MAX, 1),     // overflowing slice
        ];
        for (offs, bits, offset, length) in cases {
            let r = string_rows(Offsets::I32(&offs), data, bits.as_deref(), offset, length);
            assert!(
                matches!(r, Err(Error::Value(_))),
                "{offs:?} {offset} {length}: {r:?}"
            );
        }
        // The invalid byte in a null row is never read.
        let r = string_rows(Offsets::I32(&[0, 2, 3]), data, Some(&[0b01]), 0, 2).unwrap();
        assert_eq!(r, vec![Some("ab"), None]);
    }
}
