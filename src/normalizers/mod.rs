//! Normalization: text rewritten before it is split into words, every
//! output char remembering the original char it came from.
//!
//! One file per component, as HF `tokenizers` has them: `bert.rs`
//! (`BertNormalizer`, the one with fast paths), `unicode_forms.rs` (NFD,
//! NFKD, NFC, NFKC), `lowercase.rs`, `strip_accents.rs`, `strip.rs`,
//! `replace.rs`, `prepend.rs`; `chain.rs` chains them as HF's `Sequence`.
//!
//! Alignment: HF maps every normalized char to one original char. A step
//! that rewrites text yields `(char, change)` pairs: `change <= 0` means the
//! char takes the place of the next input char (and drops `-change` more);
//! `change > 0` means it is inserted and aligned to the input char before
//! it. [`Normalized::source`] carries that map through the chain.

pub mod bert;
pub mod chain;
mod lowercase;
mod prepend;
mod replace;
mod strip;
mod strip_accents;
mod unicode_forms;

pub use bert::NormalizerConfig;
pub use chain::{normalize_chain, AsciiChar, NormalizerStep};

/// Normalized text: `text` plus, for every char of it, the index of the source
/// char in the original input (`source[k]` belongs to the k-th char of `text`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    pub text: String,
    pub source: Vec<u32>,
    /// Text alone, no sources (counting words needs no offsets: a huge
    /// document's sources would take four bytes a char).
    pub text_only: bool,
}

impl Normalized {
    /// Normalized text without sources, with room for `bytes` of it.
    pub fn text_only(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            text_only: true,
            ..Self::default()
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, c: char, src: u32) {
        self.text.push(c);
        if !self.text_only {
            self.source.push(src);
        }
    }
}

/// The source of a char HF aligns to no original char: one inserted before
/// the first (its span is `(0, 0)`).
pub const NO_SOURCE: u32 = u32::MAX;

/// The char span `(start, end)` of normalized chars `first..=last`, as HF
/// spans them: from the first one's start to the last one's end.
#[inline]
pub fn span(source: &[u32], first: usize, last: usize) -> (u32, u32) {
    let start = match source[first] {
        NO_SOURCE => 0,
        s => s,
    };
    let end = match source[last] {
        NO_SOURCE => 0,
        s => s + 1,
    };
    (start, end)
}

/// Appends `text` with the sources of its chars (the first of `src`).
fn push_kept(text: &str, src: &[u32], out: &mut Normalized) {
    out.text.push_str(text);
    out.source.extend_from_slice(&src[..text.chars().count()]);
}

/// The chars of `text` for which `keep(index, char)` holds, with their sources.
fn keep(text: &str, src: &[u32], keep: impl Fn(usize, char) -> bool, out: &mut Normalized) {
    for (i, (c, &s)) in text.chars().zip(src).enumerate() {
        if keep(i, c) {
            out.text.push(c);
            out.source.push(s);
        }
    }
}
