//! Asking the kernel for huge pages for large, freshly allocated buffers.
//!
//! Output buffers of a big batch (hundreds of MB) and the chunk cache (up to
//! 64 MiB) would otherwise be faulted in 4 KiB at a time, and random lookups
//! in the cache would miss the TLB. Linux backs `MADV_HUGEPAGE` ranges with
//! 2 MiB pages when transparent huge pages are enabled (the default setting
//! "madvise" needs exactly this call).

/// Buffers smaller than this are left alone.
const MIN_BYTES: usize = 4 << 20;

/// Advises huge pages for the spare capacity of `v` (call it right after
/// reserving, before writing). A hint only: it never changes contents, and
/// does nothing where unsupported.
pub fn advise_huge_pages<T>(v: &mut Vec<T>) {
    let bytes = v.spare_capacity_mut().len() * std::mem::size_of::<T>();
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.spare_capacity_mut().as_mut_ptr() as usize;
        let end = start + bytes;
        let first_page = start.div_ceil(PAGE) * PAGE;
        // SAFETY: the range lies inside the allocation `v` owns (its spare
        // capacity, rounded inwards to whole pages); MADV_HUGEPAGE changes
        // only how the kernel backs those pages, never their contents, and a
        // failure (no THP support) is harmless.
        unsafe {
            libc::madvise(
                first_page as *mut libc::c_void,
                end - first_page,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

/// `n` copies of `value` in a buffer that asked for huge pages first (so its
/// pages are faulted in huge).
pub fn huge_filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise_huge_pages(&mut v);
    v.resize(n, value);
    v
}

/// The parts, concatenated in parallel into one buffer that asked for huge
/// pages. Each part is dropped as soon as it is copied, so memory peaks at
/// the result plus the parts in flight, not at twice the result; and the
/// result is never zero-filled first.
pub fn concat_parts<T: Copy + Send + Sync>(parts: Vec<Vec<T>>) -> Vec<T> {
    use rayon::prelude::*;
    use std::mem::MaybeUninit;
    let n: usize = parts.iter().map(Vec::len).sum();
    let mut out: Vec<T> = Vec::with_capacity(n);
    advise_huge_pages(&mut out);
    let mut rest: &mut [MaybeUninit<T>] = &mut out.spare_capacity_mut()[..n];
    let mut jobs = Vec::with_capacity(parts.len());
    for part in parts {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(part.len());
        jobs.push((part, head));
        rest = tail;
    }
    jobs.into_par_iter().for_each(|(part, dst)| {
        for (d, &s) in dst.iter_mut().zip(&part) {
            d.write(s);
        }
        drop(part);
    });
    // SAFETY: the slices handed to the jobs partition the first `n` elements
    // of the spare capacity, each job wrote every element of its slice (the
    // slice is exactly as long as its part), and all jobs have finished.
    unsafe { out.set_len(n) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_concatenate_in_order() {
        let parts: Vec<Vec<u32>> = (0..40u32)
            .map(|k| (0..(k * 997) % 5000).map(|i| k * 10_000 + i).collect())
            .collect();
        let expected: Vec<u32> = parts.concat();
        assert_eq!(concat_parts(parts), expected);
        assert_eq!(concat_parts(vec![Vec::<u32>::new(); 3]), Vec::<u32>::new());
        let big = vec![vec![7u32; 3 << 20], vec![8u32; 1 << 20]];
        let joined = concat_parts(big);
        assert_eq!(joined.len(), 4 << 20);
        assert!(
            joined[..3 << 20].iter().all(|&x| x == 7) && joined[3 << 20..].iter().all(|&x| x == 8)
        );
    }

    #[test]
    fn advice_keeps_contents() {
        let mut v: Vec<u32> = (0..10).collect();
        v.reserve(8 << 20);
        advise_huge_pages(&mut v);
        v.extend(10..(4 << 20));
        assert!(v.iter().enumerate().all(|(i, &x)| i as u32 == x));
    }
}
