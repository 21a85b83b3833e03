//! BERT text normalization with HF `BertNormalizer` semantics.
//!
//! Every output character remembers the index of the original character it
//! came from, so token offsets can point back into the caller's string.

use unicode_categories::UnicodeCategories;

// HF's decomposition tables (see `unicode.rs`).
use unicode_normalization_alignments::char::{canonical_combining_class, decompose_canonical};

use super::unicode_forms::{self, Form};
use super::{keep, Normalized};
use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::unicode::{self, is_bert_control, is_bert_whitespace, is_chinese_char};

/// Options of the BERT normalizer; `strip_accents: None` follows `lowercase`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalizerConfig {
    pub clean_text: bool,
    pub handle_chinese_chars: bool,
    pub strip_accents: Option<bool>,
    pub lowercase: bool,
}

impl Default for NormalizerConfig {
    fn default() -> Self {
        Self {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: None,
            lowercase: true,
        }
    }
}

impl NormalizerConfig {
    pub fn strips_accents(&self) -> bool {
        self.strip_accents.unwrap_or(self.lowercase)
    }
}

impl NormalizerConfig {
    /// What this normalizer makes of an ASCII char: dropped (None), or one char
    /// (ASCII needs no accent stripping and is never CJK).
    #[inline]
    pub fn normalize_ascii(&self, c: char) -> Option<char> {
        if self.clean_text {
            if c == '\0' || is_bert_control(c) {
                return None;
            }
            if is_bert_whitespace(c) {
                return Some(' ');
            }
        }
        Some(if self.lowercase {
            c.to_ascii_lowercase()
        } else {
            c
        })
    }

    /// Normalizes `input` into `out` (cleared first); source indices start at
    /// `first_char_index`. One pass handles every char whose decomposition
    /// needs no reordering; other inputs take the staged path.
    pub fn normalize_into(&self, input: &str, first_char_index: u32, out: &mut Normalized) {
        out.text.clear();
        out.source.clear();
        if !self.normalize_fused(input, first_char_index, out) {
            *out = self.normalize(input, first_char_index);
        }
    }

    fn normalize_fused(&self, input: &str, first: u32, out: &mut Normalized) -> bool {
        use unicode::*;
        let strip = self.strips_accents();
        for (i, c) in input.chars().enumerate() {
            // One word may be hundreds of MB: end early once told to stop.
            if i % CHECKPOINT_STEPS == CHECKPOINT_STEPS - 1 && cancel::stopping() {
                return true;
            }
            let src = first + i as u32;
            if c.is_ascii() {
                if let Some(c) = self.normalize_ascii(c) {
                    out.push(c, src);
                }
                continue;
            }
            let f = flags(c);
            if self.clean_text {
                if c == '\u{fffd}' || f & CONTROL != 0 {
                    continue;
                }
                if f & WHITESPACE != 0 {
                    out.push(' ', src);
                    continue;
                }
            }
            if self.handle_chinese_chars && f & CHINESE != 0 {
                if strip && f & NFD_STABLE == 0 {
                    return false;
                }
                out.push(' ', src);
                out.push(c, src);
                out.push(' ', src);
                continue;
            }
            if strip {
                if f & NONSPACING_MARK != 0 {
                    continue;
                }
                if f & NFD_STABLE == 0 {
                    // Keep the decomposition's non-marks; a kept combining
                    // char would need canonical reordering: staged path.
                    let mut ok = true;
                    decompose_canonical(c, |d| {
                        if !ok || d.is_mark_nonspacing() {
                            return;
                        }
                        if canonical_combining_class(d) != 0 {
                            ok = false;
                            return;
                        }
                        self.push_lowered(d, src, out);
                    });
                    if !ok {
                        return false;
                    }
                    continue;
                }
            }
            self.push_lowered(c, src, out);
        }
        true
    }

    #[inline]
    fn push_lowered(&self, c: char, src: u32, out: &mut Normalized) {
        if self.lowercase
            && (c.is_ascii_uppercase()
                || (!c.is_ascii() && unicode::flags(c) & unicode::HAS_LOWER != 0))
        {
            for l in c.to_lowercase() {
                out.push(l, src);
            }
        } else {
            out.push(c, src);
        }
    }

    /// Normalizes `input`; source indices start at `first_char_index`.
    pub fn normalize(&self, input: &str, first_char_index: u32) -> Normalized {
        let mut stage = Normalized {
            text: String::with_capacity(input.len()),
            source: Vec::with_capacity(input.len()),
            text_only: false,
        };
        for (i, c) in input.chars().enumerate() {
            let src = first_char_index + i as u32;
            let mut c = c;
            if self.clean_text {
                if c == '\0' || c == '\u{fffd}' || is_bert_control(c) {
                    continue;
                }
                if is_bert_whitespace(c) {
                    c = ' ';
                }
            }
            if self.handle_chinese_chars && is_chinese_char(c) {
                stage.push(' ', src);
                stage.push(c, src);
                stage.push(' ', src);
            } else {
                stage.push(c, src);
            }
        }
        if self.strips_accents() {
            stage = strip_accents(&stage);
        }
        if self.lowercase {
            stage = lowercase(&stage);
        }
        stage
    }
}

impl NormalizerConfig {
    /// Normalized text only, without source indices (for counting words).
    pub fn normalize_text(&self, input: &str) -> String {
        if input.is_ascii() {
            return input
                .chars()
                .filter_map(|c| self.normalize_ascii(c))
                .collect();
        }
        // Sized as the input (most text normalizes to about its size): a
        // huge document's text is not grown by doubling.
        let mut out = Normalized::text_only(input.len());
        if !self.normalize_fused(input, 0, &mut out) {
            out = self.normalize(input, 0);
        }
        out.text
    }
}

/// NFD, then drop nonspacing marks (category Mn), each char aligned as HF
/// aligns them: NFD by the `(char, change)` pairs of HF's own normalization
/// crate, which align by position, so that marks canonical ordering moves
/// take the sources of the places they move to (aligning each mark to its
/// own source gave offsets HF does not, such as `(1, 1)`, for "\u{1DFB}\u{1BAA}").
fn strip_accents(input: &Normalized) -> Normalized {
    if input.text.is_ascii() {
        return input.clone();
    }
    let mut nfd = Normalized::default();
    unicode_forms::normalize(Form::Nfd, &input.text, &input.source, &mut nfd);
    let mut out = Normalized::default();
    keep(
        &nfd.text,
        &nfd.source,
        |_, c| !c.is_mark_nonspacing(),
        &mut out,
    );
    out
}

/// Unicode lowercase; a char that lowercases to several chars keeps its source.
fn lowercase(input: &Normalized) -> Normalized {
    let mut out = Normalized {
        text: String::with_capacity(input.text.len()),
        source: Vec::with_capacity(input.source.len()),
        text_only: false,
    };
    for (c, &src) in input.text.chars().zip(&input.source) {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase(), src);
        } else {
            for l in c.to_lowercase() {
                out.push(l, src);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        NormalizerConfig::default().normalize(s, 0).text
    }

    #[test]
    fn lowercases_and_strips_accents() {
        assert_eq!(norm("Héllo WÖRLD"), "hello world");
    }

    #[test]
    fn cleans_controls_and_whitespace() {
        assert_eq!(norm("a\u{0}b\u{200b}c\u{3000}d\te"), "abc d e");
    }

    #[test]
    fn pads_chinese_chars_and_keeps_sources() {
        let n = NormalizerConfig::default().normalize("a中b", 0);
        assert_eq!(n.text, "a 中 b");
        assert_eq!(n.source, vec![0, 1, 1, 1, 2]);
    }

    #[test]
    fn fused_path_agrees_with_staged() {
        let samples = [
            "Héllo WÖRLD",
            "İstanbul ǅ ß",
            "a\u{301}\u{316}b",
            "中文 ﬁ \u{F900}",
            "e\u{0F71}\u{0F72}x",
            "Ǆemal\u{2000}x\u{200b}",
            "\u{1D15E}\u{1D165}",
            "ΣΊΣΥΦΟΣ",
            "\u{fffd}\u{0}",
        ];
        for s in samples {
            for (lowercase, strip) in [
                (true, None),
                (false, None),
                (false, Some(true)),
                (true, Some(false)),
            ] {
                let cfg = NormalizerConfig {
                    lowercase,
                    strip_accents: strip,
                    ..Default::default()
                };
                let mut fused = Normalized::default();
                cfg.normalize_into(s, 3, &mut fused);
                assert_eq!(fused, cfg.normalize(s, 3), "{s:?} {lowercase} {strip:?}");
            }
        }
    }

    #[test]
    fn text_only_path_agrees() {
        for s in ["Hello\tWORLD\x07!", "Ça va? 中文", "İ", "\x00a\x1fb"] {
            for lowercase in [true, false] {
                let cfg = NormalizerConfig {
                    lowercase,
                    ..Default::default()
                };
                assert_eq!(cfg.normalize_text(s), cfg.normalize(s, 0).text, "{s:?}");
            }
        }
    }

    #[test]
    fn multi_char_lowercase_keeps_source() {
        let cfg = NormalizerConfig {
            strip_accents: Some(false),
            ..Default::default()
        };
        let n = cfg.normalize("İx", 0);
        assert_eq!(n.text, "i\u{307}x");
        assert_eq!(n.source, vec![0, 0, 1]);
    }
}
