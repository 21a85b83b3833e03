//! BERT text normalization with HF `BertNormalizer` semantics.
//!
//! Every output character remembers the index of the original character it
//! came from, so token offsets can point back into the caller's string.

use unicode_categories::UnicodeCategories;
use unicode_normalization::char::{canonical_combining_class, decompose_canonical};

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

/// Whitespace as BERT sees it: Unicode White_Space plus tab, newline, return.
pub fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Control as BERT sees it: categories Cc, Cf, Co except tab, newline, return.
pub fn is_bert_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// CJK ideographs that BERT isolates as single-character words.
pub fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Punctuation as BERT sees it: ASCII punctuation (which includes symbols
/// such as `$` and `^`) or a Unicode P* category.
pub fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// Normalized text: `text` plus, for every char of it, the index of the source
/// char in the original input (`source[k]` belongs to the k-th char of `text`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    pub text: String,
    pub source: Vec<u32>,
}

impl Normalized {
    fn push(&mut self, c: char, src: u32) {
        self.text.push(c);
        self.source.push(src);
    }
}

impl NormalizerConfig {
    /// Normalizes `input`; source indices start at `first_char_index`.
    pub fn normalize(&self, input: &str, first_char_index: u32) -> Normalized {
        let mut stage = Normalized {
            text: String::with_capacity(input.len()),
            source: Vec::with_capacity(input.len()),
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
            // ASCII: no accents, no CJK, lowercase is byte-wise.
            let mut out = String::with_capacity(input.len());
            for b in input.bytes() {
                let c = b as char;
                if self.clean_text {
                    if b == 0 || (is_bert_control(c)) {
                        continue;
                    }
                    if is_bert_whitespace(c) {
                        out.push(' ');
                        continue;
                    }
                }
                out.push(if self.lowercase {
                    c.to_ascii_lowercase()
                } else {
                    c
                });
            }
            return out;
        }
        self.normalize(input, 0).text
    }
}

/// NFD, then drop nonspacing marks (category Mn).
fn strip_accents(input: &Normalized) -> Normalized {
    if input.text.is_ascii() {
        return input.clone();
    }
    // Decompose char by char (each piece keeps its source), then apply the
    // canonical ordering of combining marks, then filter.
    let mut decomposed: Vec<(char, u32)> = Vec::with_capacity(input.source.len() + 8);
    for (c, &src) in input.text.chars().zip(&input.source) {
        decompose_canonical(c, |d| decomposed.push((d, src)));
    }
    let mut start = 0;
    while start < decomposed.len() {
        if canonical_combining_class(decomposed[start].0) == 0 {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < decomposed.len() && canonical_combining_class(decomposed[end].0) != 0 {
            end += 1;
        }
        decomposed[start..end].sort_by_key(|&(c, _)| canonical_combining_class(c));
        start = end;
    }
    let mut out = Normalized::default();
    for (c, src) in decomposed {
        if !c.is_mark_nonspacing() {
            out.push(c, src);
        }
    }
    out
}

/// Unicode lowercase; a char that lowercases to several chars keeps its source.
fn lowercase(input: &Normalized) -> Normalized {
    let mut out = Normalized {
        text: String::with_capacity(input.text.len()),
        source: Vec::with_capacity(input.source.len()),
    };
    for (c, &src) in input.text.chars().zip(&input.source) {
        for l in c.to_lowercase() {
            out.push(l, src);
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
