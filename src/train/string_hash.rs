//! Hashes of unit strings that compose: a concatenation's hash from its
//! parts' hashes, and the hashes of every head and every rest of a string
//! in one pass each. A polynomial hash modulo 2^64 (each byte plus one, so
//! that NUL bytes count); a collision only costs a lookup by string.

/// An odd multiplier (FNV's 64-bit prime).
const BASE: u64 = 0x0000_0100_0000_01b3;

#[cfg(test)]
thread_local! {
    static COLLIDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The multiplier; in tests, 1 inside `with_colliding_hashes`.
fn base() -> u64 {
    #[cfg(test)]
    if COLLIDING.with(std::cell::Cell::get) {
        return 1;
    }
    BASE
}

/// Runs `f` with a multiplier of 1, so that a string's hash is the sum of
/// its bytes and anagrams collide: the paths for shared and misleading
/// hashes then run all the time, and must change nothing.
#[cfg(test)]
pub(crate) fn with_colliding_hashes<T>(f: impl FnOnce() -> T) -> T {
    COLLIDING.with(|c| c.set(true));
    let out = f();
    COLLIDING.with(|c| c.set(false));
    out
}

/// A string's hash and `BASE` to the power of its length in bytes (what a
/// hash before it is multiplied by when the two are joined).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrHash {
    pub hash: u64,
    scale: u64,
}

impl StrHash {
    pub const EMPTY: Self = Self { hash: 0, scale: 1 };

    pub fn of(bytes: &[u8]) -> Self {
        bytes.iter().fold(Self::EMPTY, |h, &b| h.push(b))
    }

    /// The hash of this string followed by `byte`.
    pub fn push(self, byte: u8) -> Self {
        Self {
            hash: self
                .hash
                .wrapping_mul(base())
                .wrapping_add(u64::from(byte) + 1),
            scale: self.scale.wrapping_mul(base()),
        }
    }

    /// The hash of `byte` followed by this string.
    pub fn prepend(self, byte: u8) -> Self {
        Self {
            hash: (u64::from(byte) + 1)
                .wrapping_mul(self.scale)
                .wrapping_add(self.hash),
            scale: self.scale.wrapping_mul(base()),
        }
    }

    /// The hash of this string followed by `rest`.
    pub fn then(self, rest: Self) -> Self {
        Self {
            hash: self.hash.wrapping_mul(rest.scale).wrapping_add(rest.hash),
            scale: self.scale.wrapping_mul(rest.scale),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Joined, pushed and prepended hashes are the hash of the string
        /// they stand for.
        #[test]
        fn composed_hashes_are_the_hash_of_the_whole(a in ".{0,12}", b in ".{0,12}") {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let whole = StrHash::of(&[a, b].concat());
            prop_assert_eq!(StrHash::of(a).then(StrHash::of(b)), whole);
            let pushed = b.iter().fold(StrHash::of(a), |h, &x| h.push(x));
            prop_assert_eq!(pushed, whole);
            let prepended = a.iter().rev().fold(StrHash::of(b), |h, &x| h.prepend(x));
            prop_assert_eq!(prepended, whole);
        }
    }

    #[test]
    fn nul_bytes_and_order_count() {
        assert_ne!(StrHash::of(b""), StrHash::of(b"\0"));
        assert_ne!(StrHash::of(b"\0"), StrHash::of(b"\0\0"));
        assert_ne!(StrHash::of(b"ab"), StrHash::of(b"ba"));
    }
}
