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

/// glibc's malloc serves any allocation above this many bytes with its own
/// mapping (the ceiling of its dynamic mmap threshold on 64-bit systems), and
/// unmaps it when it is freed.
const ALWAYS_MAPPED: usize = 32 << 20;

/// Reserves room for `additional` more elements of a batch part's output and
/// advises huge pages for it. A large reservation (at least `MIN_BYTES`) is
/// made past `ALWAYS_MAPPED` bytes of address space (pages are only backed
/// once written): otherwise glibc, which raises its mmap threshold after each
/// large buffer is freed, would take the next parts from per-thread arenas,
/// which keep their pages after a free. Then the parts of a two-thread batch
/// stayed resident after the join, and into the next call (measured: peak RSS
/// of two passes over the English corpus with offsets, 1,288 MB at two
/// threads against 904 at one).
pub fn reserve_output<T>(v: &mut Vec<T>, additional: usize) {
    let size = std::mem::size_of::<T>().max(1);
    let mut n = additional;
    if cfg!(all(target_os = "linux", target_env = "gnu")) && additional * size >= MIN_BYTES {
        n = n.max((ALWAYS_MAPPED + (1 << 20)) / size);
    }
    // Address space can run out (a limit on it): then just what is needed.
    if v.try_reserve(n).is_err() {
        v.reserve(additional);
    }
    advise_huge_pages(v);
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
    fn large_outputs_reserve_past_the_always_mapped_size() {
        let mut big: Vec<u32> = Vec::new();
        reserve_output(&mut big, 3 << 20);
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            assert!(big.capacity() * 4 > ALWAYS_MAPPED);
        }
        assert!(big.capacity() >= 3 << 20);
        big.extend(0..3 << 20);
        assert!(big.iter().enumerate().all(|(i, &x)| i as u32 == x));
        // Small reservations are left as they are.
        let mut small: Vec<u32> = vec![5];
        reserve_output(&mut small, 1000);
        assert!(small.capacity() >= 1001 && small.capacity() < 1 << 20);
        assert_eq!(small, [5]);
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
