//! HF's `NFD`, `NFKD`, `NFC` and `NFKC`: the Unicode normalization forms,
//! each char aligned as HF aligns them (see the alignment note in `mod.rs`).

use unicode_normalization_alignments::UnicodeNormalization;

use super::{Normalized, NO_SOURCE};

/// The Unicode normalization forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    Nfd,
    Nfkd,
    Nfc,
    Nfkc,
}

/// `text` (whose chars come from `src`) in normal form `form`, into `out`.
pub(super) fn normalize(form: Form, text: &str, src: &[u32], out: &mut Normalized) {
    match form {
        Form::Nfd => transform(src, text.nfd(), out),
        Form::Nfkd => transform(src, text.nfkd(), out),
        Form::Nfc => transform(src, text.nfc(), out),
        Form::Nfkc => transform(src, text.nfkc(), out),
    }
}

/// Applies `(char, change)` pairs to `text` (see the module comment of `mod.rs`).
fn transform(src: &[u32], pairs: impl Iterator<Item = (char, isize)>, out: &mut Normalized) {
    let mut at = 0usize; // index of the next input char
    for (c, change) in pairs {
        let align = if change > 0 {
            match at {
                0 => NO_SOURCE,
                _ => src[(at - 1).min(src.len() - 1)],
            }
        } else {
            let s = src[at.min(src.len() - 1)];
            at += 1 + change.unsigned_abs();
            s
        };
        out.text.push(c);
        out.source.push(align);
    }
}
