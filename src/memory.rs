//! Large buffers: refused before allocating when they cannot fit, parts
//! of a batch that the allocator returns to the kernel once freed, output
//! faulted in a window ahead of its writer, and tables read at random on
//! huge pages.
//!
//! Output buffers get no `MADV_HUGEPAGE` advice: each 2 MiB page is zeroed
//! whole at its first write, past the caches, and the encoder's writes then
//! fetch it back; 4 KiB pages are zeroed just before they are written and
//! stay in cache. Measured on en 103 MB, one fresh process per run, 5
//! alternating runs: ids 74 MB/s with the advice against 91 without, with
//! offsets 50 against 78 (two threads: 118 against 136, and 85 against 106).

use crate::error::{Error, Result};

/// Refuses, before anything is allocated, a buffer sized by the input that
/// could not fit in this machine's memory: the allocator would abort the
/// process (or the kernel kill it) instead of raising an error.
pub fn check_fits(bytes: usize, what: &str) -> Result<()> {
    match physical_memory() {
        Some(total) if bytes as u128 > total as u128 => {
            return Err(Error::Memory(format!(
                "{what} needs {bytes} bytes, more than this machine's {total} bytes of memory"
            )))
        }
        _ => {}
    }
    match address_space_left() {
        Some(left) if bytes as u128 > left as u128 => Err(Error::Memory(format!(
            "{what} needs {bytes} bytes, more than the {left} bytes this process's address \
             space limit (RLIMIT_AS) leaves"
        ))),
        _ => Ok(()),
    }
}

/// What a limit on this process's address space (`ulimit -v`) leaves, if
/// one is set: past it every allocation fails, and an infallible one aborts.
fn address_space_left() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getrlimit only writes into the struct it is given.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return None;
        }
        // The first field of statm is the process's virtual size in pages.
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
        return Some((limit.rlim_cur as u64).saturating_sub(pages.saturating_mul(page)));
    }
    #[allow(unreachable_code)]
    None
}

/// Installed memory in bytes, where the platform says.
fn physical_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysinfo only writes into the struct it is given.
        let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
        if unsafe { libc::sysinfo(&mut info) } == 0 {
            return Some((info.totalram as u64).saturating_mul(info.mem_unit as u64));
        }
    }
    None
}

/// Reservations smaller than this stay in the arenas (see `reserve_output`).
const MIN_BYTES: usize = 4 << 20;

/// glibc's dynamic mmap threshold never rises past this (on 64-bit), so a
/// larger request is normally served by a mapping of its own and unmapped
/// when freed.
const MMAP_CEILING: usize = 32 << 20;

/// Reserves room for `additional` more elements of a batch part's output.
/// A part that is `joined` (copied out and freed within the call) and large
/// is reserved past `MMAP_CEILING` (address space only): glibc raises its
/// mmap threshold after each large free, and parts below it would come from
/// per-thread arenas, which keep their pages once freed, so they stayed
/// resident after the join.
pub fn reserve_output<T>(v: &mut Vec<T>, additional: usize, joined: bool) {
    let size = std::mem::size_of::<T>().max(1);
    let mut n = additional;
    let glibc64 = cfg!(all(
        target_os = "linux",
        target_env = "gnu",
        target_pointer_width = "64"
    ));
    if glibc64 && joined && additional.saturating_mul(size) >= MIN_BYTES {
        // A margin above the ceiling, for malloc's own rounding.
        let past_ceiling = (MMAP_CEILING + (1 << 20)) / size;
        n = n.max(past_ceiling.saturating_sub(v.len()));
    }
    // Address space can run out (a limit on it): then just what is needed.
    if v.try_reserve(n).is_err() {
        v.reserve(additional);
    }
}

/// Faults in the pages of a large output buffer a window ahead of where it
/// is written, one `MADV_POPULATE_WRITE` call per half window (Linux 5.14+;
/// elsewhere nothing): the kernel zeroes the window's pages in one go
/// instead of trapping on each 4 KiB page. Measured on en 103 MB, one
/// thread, 5 alternating fresh runs: ids 103 MB/s against 94, with offsets
/// 85 against 81.
#[derive(Debug, Default)]
pub struct Prefault {
    /// Bytes from the buffer's start faulted in so far.
    done: usize,
}

/// Small enough that the zeroed pages are still in cache when written.
const PREFAULT_WINDOW: usize = 256 << 10;

impl Prefault {
    /// Call before each write of a few KiB at most (each document): faults
    /// in the next window once less than half of it is left.
    pub fn ahead<T>(&mut self, v: &mut Vec<T>) {
        let size = std::mem::size_of::<T>();
        let used = v.len() * size;
        if used + PREFAULT_WINDOW / 2 < self.done || v.capacity() * size < MIN_BYTES {
            return;
        }
        let spare = v.spare_capacity_mut();
        let base = spare.as_ptr() as usize - used;
        let skip = self
            .done
            .saturating_sub(used)
            .div_ceil(size)
            .min(spare.len());
        let end = (PREFAULT_WINDOW / size).min(spare.len());
        if skip < end {
            let reached = populate(&mut spare[skip..end]);
            self.done = self.done.max(reached - base);
        }
    }
}

/// Faults in the whole pages of `memory` at once, writable (Linux 5.14+;
/// elsewhere, or on an older kernel, nothing); returns the address where
/// those pages end (the next window starts there, so that no page is
/// skipped between two windows).
fn populate<T>(memory: &mut [std::mem::MaybeUninit<T>]) -> usize {
    let page = page_size();
    let start = memory.as_mut_ptr() as usize;
    let (from, to) = (
        start.div_ceil(page) * page,
        (start + std::mem::size_of_val(memory)) / page * page,
    );
    if to <= from {
        return start;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: [from, to) lies inside `memory`, rounded inwards to whole
    // pages of this system's size, and the caller may write `memory`;
    // populating only faults pages in, never changing contents, and a
    // failure is harmless.
    unsafe {
        libc::madvise(
            from as *mut libc::c_void,
            to - from,
            libc::MADV_POPULATE_WRITE,
        );
    }
    to
}

/// This system's page size (4 KiB on x86-64; 16 or 64 KiB on some arm64
/// kernels).
fn page_size() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        #[cfg(not(target_os = "linux"))]
        let page = 4096;
        usize::try_from(page)
            .ok()
            .filter(|&p| p.is_power_of_two())
            .unwrap_or(4096)
    })
}

/// Appends `src` to `dst`, faulting in `dst`'s pages a window ahead of the
/// copy (see [`Prefault`]); a `MemoryError` if `dst` cannot grow.
pub fn append_prefaulted<T: Copy>(dst: &mut Vec<T>, src: &[T], ahead: &mut Prefault) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    dst.try_reserve(src.len()).map_err(|_| {
        Error::Memory(format!(
            "no memory for {} more elements of output after {}",
            src.len(),
            dst.len()
        ))
    })?;
    let window = (PREFAULT_WINDOW / 2 / std::mem::size_of::<T>().max(1)).max(1);
    for chunk in src.chunks(window) {
        ahead.ahead(dst);
        dst.extend_from_slice(chunk);
    }
    Ok(())
}

/// Transparent huge pages' size on x86-64 and most arm64 kernels.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// A fixed array of `T`, all zero, in memory fresh from the kernel, for a
/// table read and written at random: on Linux a mapping of its own, aligned
/// to 2 MiB with huge pages asked for (`MADV_HUGEPAGE`), so that a 4 MiB
/// table takes two page faults instead of 1024 (measured here: 0.2-0.5 ms
/// against 2.1 ms to fault in 4 MiB of 4 KiB pages, a word cache's whole
/// cost on a thread's first call) and its lookups fewer TLB misses. Where
/// huge pages are off, the kernel gives 4 KiB pages, faulted in as touched.
/// Elsewhere, or when the mapping fails, an ordinary zeroed allocation.
pub struct ZeroedPages<T: Copy> {
    items: std::ptr::NonNull<T>,
    len: usize,
    /// The mapping (start, bytes) to unmap; None: allocated with `layout`.
    mapping: Option<(usize, usize)>,
}

// SAFETY: the array is owned as a `Box<[T]>` would be.
unsafe impl<T: Copy + Send> Send for ZeroedPages<T> {}
// SAFETY: shared access only reads, as through `&[T]`.
unsafe impl<T: Copy + Sync> Sync for ZeroedPages<T> {}

impl<T: Copy> ZeroedPages<T> {
    /// `len` zeroed items.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub unsafe fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::array::<T>(len).expect("a table of fixed size");
        assert!(layout.size() > 0 && layout.align() <= page_size());
        #[cfg(target_os = "linux")]
        {
            // Room to align the start to a huge page within the mapping.
            let bytes = layout.size() + HUGE_PAGE;
            // SAFETY: a fresh private anonymous mapping, no address asked.
            let at = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if at != libc::MAP_FAILED {
                // The start, derived from the mapping's pointer.
                let skip = (at as usize).next_multiple_of(HUGE_PAGE) - at as usize;
                let start = at.cast::<u8>().wrapping_add(skip);
                // SAFETY: [start, start + size) lies inside the mapping
                // (HUGE_PAGE of room); advice changes no contents, and its
                // failure (huge pages unsupported) is harmless.
                unsafe {
                    libc::madvise(start.cast(), layout.size(), libc::MADV_HUGEPAGE);
                }
                return Self {
                    items: std::ptr::NonNull::new(start.cast::<T>()).expect("mapped, not null"),
                    len,
                    mapping: Some((at as usize, bytes)),
                };
            }
        }
        // SAFETY: the layout is not zero-sized (asserted above).
        let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
        let Some(items) = std::ptr::NonNull::new(p) else {
            std::alloc::handle_alloc_error(layout)
        };
        Self {
            items,
            len,
            mapping: None,
        }
    }
}

impl<T: Copy> std::ops::Deref for ZeroedPages<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` zeroed (hence valid, by `new`'s contract) items,
        // owned by `self`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr(), self.len) }
    }
}

impl<T: Copy> std::ops::DerefMut for ZeroedPages<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed uniquely through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for ZeroedPages<T> {
    fn drop(&mut self) {
        match self.mapping {
            #[cfg(target_os = "linux")]
            // SAFETY: the mapping `new` made, unmapped once.
            Some((at, bytes)) => unsafe {
                libc::munmap(at as *mut libc::c_void, bytes);
            },
            #[cfg(not(target_os = "linux"))]
            Some(_) => unreachable!("mappings are made on Linux only"),
            None => {
                let layout = std::alloc::Layout::array::<T>(self.len).expect("made with it");
                // SAFETY: allocated in `new` with this layout.
                unsafe { std::alloc::dealloc(self.items.as_ptr().cast(), layout) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appending_keeps_order_and_contents() {
        // Parts of every size around the window (64 Ki u32s), onto a
        // buffer past the prefault minimum and one below it.
        let mut sizes: Vec<usize> = vec![0, 1, 4095, 4096, 65_535, 65_536, 65_537, 3 << 20];
        sizes.extend((0..40).map(|k| (k * 7919) % 200_000));
        let (mut out, mut ahead, mut expected) = (Vec::new(), Prefault::default(), Vec::new());
        for (k, &n) in sizes.iter().enumerate() {
            let part: Vec<u32> = (0..n as u32).map(|i| (k as u32) << 24 | i).collect();
            append_prefaulted(&mut out, &part, &mut ahead).unwrap();
            expected.extend_from_slice(&part);
            assert_eq!(out.len(), expected.len());
        }
        assert!(out == expected);
        assert!(ahead.done > 0 && ahead.done <= out.capacity() * 4);
        let mut small: Vec<u8> = vec![1, 2];
        append_prefaulted(&mut small, &[3], &mut Prefault::default()).unwrap();
        assert_eq!(small, [1, 2, 3]);
    }

    /// Whether glibc served `p` with a mapping of its own: the size word of
    /// its chunk header, right before `p`, has the IS_MMAPPED bit (2).
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    fn has_own_mapping(p: *const u32) -> bool {
        // SAFETY: `p` was returned by glibc's malloc, whose chunk header (in
        // the same mapping) holds the size word just before it.
        let size_word = unsafe { std::ptr::read((p as *const usize).sub(1)) };
        size_word & 2 != 0
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    fn joined_parts_get_mappings_of_their_own() {
        // Freeing a large mapped buffer raises glibc's mmap threshold to its
        // size (or it is higher already): a plain 12 MiB buffer then comes
        // from an arena.
        drop(std::hint::black_box(vec![1u8; 28 << 20]));
        let mut plain: Vec<u32> = Vec::new();
        reserve_output(&mut plain, 3 << 20, false);
        let mut part: Vec<u32> = Vec::new();
        reserve_output(&mut part, 3 << 20, true);
        assert!(plain.capacity() >= 3 << 20 && plain.capacity() < 4 << 20);
        assert!(part.capacity() * 4 >= MMAP_CEILING + (1 << 20));
        assert!(has_own_mapping(part.as_ptr()));
        assert!(!has_own_mapping(plain.as_ptr()));
        part.extend(0..3 << 20);
        assert!(part.iter().enumerate().all(|(i, &x)| i as u32 == x));
        // Small reservations are left as they are.
        let mut small: Vec<u32> = Vec::new();
        reserve_output(&mut small, 1000, true);
        assert!(small.capacity() >= 1000 && small.capacity() < 1 << 20);
    }

    #[test]
    fn prefaulting_keeps_what_is_written() {
        // A buffer past the minimum, written element by element with the
        // window faulted ahead; and one below it, left alone.
        for cap in [3 << 20, 100] {
            let mut v: Vec<u32> = Vec::with_capacity(cap);
            let mut ahead = Prefault::default();
            for i in 0..cap as u32 {
                if i % 1000 == 0 {
                    ahead.ahead(&mut v);
                }
                v.push(i);
            }
            assert!(v.iter().enumerate().all(|(i, &x)| i as u32 == x));
            assert!(ahead.done <= cap * 4);
            assert_eq!(ahead.done > 0, cap * 4 >= MIN_BYTES);
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn windows_fault_in_every_page_ahead_of_the_writer() {
        // Whether each page of [from, to) is resident (mincore), before anything is written there.
        fn resident(from: usize, to: usize) -> Vec<bool> {
            let page = page_size();
            let start = from / page * page;
            let mut flags = vec![0u8; (to - start).div_ceil(page)];
            // SAFETY: mincore only writes one byte per page of the range into `flags`.
            let rc = unsafe {
                libc::mincore(start as *mut libc::c_void, to - start, flags.as_mut_ptr())
            };
            assert_eq!(rc, 0);
            flags.iter().map(|f| f & 1 == 1).collect()
        }
        let mut v: Vec<u32> = Vec::with_capacity(16 << 20);
        let base = v.as_ptr() as usize;
        let mut ahead = Prefault::default();
        let mut last = 0;
        for step in 0..6 {
            ahead.ahead(&mut v);
            assert!(ahead.done > last, "step {step}: no progress");
            // Every page between where the writer is and where the window
            // ends is in, the one straddling two windows included.
            let from = (base + v.len() * 4).div_ceil(page_size()) * page_size();
            assert!(
                resident(from, base + ahead.done).iter().all(|&r| r),
                "step {step}"
            );
            last = ahead.done;
            // Write up to just past the window's half.
            let target = (ahead.done - PREFAULT_WINDOW / 2) / 4 + 1;
            v.extend((v.len() as u32..).take(target - v.len()));
        }
    }

    #[test]
    fn zeroed_pages_are_zero_writable_and_aligned() {
        for len in [1usize, 1000, (4 << 20) / 8] {
            // SAFETY: all-zero bytes are a valid u64.
            let mut t = unsafe { ZeroedPages::<u64>::new(len) };
            assert_eq!(t.len(), len);
            assert!(t.iter().all(|&x| x == 0));
            for (i, x) in t.iter_mut().enumerate() {
                *x = i as u64 * 3;
            }
            assert!(t.iter().enumerate().all(|(i, &x)| x == i as u64 * 3));
            #[cfg(target_os = "linux")]
            assert_eq!(t.as_ptr() as usize % HUGE_PAGE, 0);
        }
    }
}
