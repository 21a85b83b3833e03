//! What the cache tables share: where a hash lands, how far to probe, and
//! asking the CPU for a slot ahead of reading it.

/// Slots looked at before giving up.
pub const PROBES: usize = 8;

/// The slot of hash `h` in a table of `slots` (a power of two): the top bits.
#[inline]
pub fn index(h: u64, slots: usize) -> usize {
    (h >> (64 - slots.trailing_zeros())) as usize
}

/// Asks the CPU to start loading `x`'s cache line.
#[inline]
pub fn prefetch<T>(x: &T) {
    prefetch_address((x as *const T).cast());
}

/// Asks the CPU to start loading the cache line at `p` (any address: a
/// prefetch reads nothing and cannot fault).
#[inline]
pub fn prefetch_address(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and cannot fault,
    // whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
