//! Long texts in bounded pieces: a document of hundreds of megabytes is
//! counted or encoded a piece at a time, so the work's buffers stay the size
//! of a piece (not several times the document) and Ctrl-C is looked for
//! between pieces. A piece ends only where the pipeline splits anyway, so the
//! pieces give exactly the words (and tokens) of the whole.

use crate::unicode::is_chinese_char;

/// Pieces are about this long: a few milliseconds of work on any path, so a
/// call stops well within 50 ms of being told.
pub const PIECE_BYTES: usize = 256 << 10;

/// Where a text may be cut so that its pieces split into the words of the
/// whole (each flag is proven by the splitter that gives it; added tokens may
/// take some away).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cuts {
    /// Right after an ASCII whitespace byte: normalization keeps it
    /// whitespace, nothing composes or reorders across it, and
    /// pre-tokenization splits there.
    pub after_whitespace: bool,
    /// Right before a CJK ideograph that BERT's normalizer isolates: it is a
    /// word of its own, and a starter (nothing before it reorders past it).
    pub before_cjk: bool,
}

impl Cuts {
    pub const NONE: Cuts = Cuts {
        after_whitespace: false,
        before_cjk: false,
    };

    pub fn any(&self) -> bool {
        self.after_whitespace || self.before_cjk
    }

    /// `text` in pieces of about `max` bytes (each `(byte start, piece)`), in
    /// order; one piece when it is no longer than `max` or cannot be cut.
    pub fn pieces(self, text: &str, max: usize) -> Pieces<'_> {
        Pieces {
            text,
            at: 0,
            cuts: self,
            max: max.max(1),
        }
    }

    /// Whether the text may be cut at byte `i` (a char boundary, `0 < i <
    /// len`).
    fn allows(&self, text: &str, i: usize) -> bool {
        let bytes = text.as_bytes();
        (self.after_whitespace && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r'))
            || (self.before_cjk && text[i..].chars().next().is_some_and(is_chinese_char))
    }

    /// The end of the piece that starts at byte `start`: the last allowed cut
    /// at most `max` bytes on, else the first one after (a window with no
    /// cut, such as one long word), else the text's end.
    fn piece_end(&self, text: &str, start: usize, max: usize) -> usize {
        let limit = start.saturating_add(max);
        if limit >= text.len() || !self.any() {
            return text.len();
        }
        let boundary = |i: usize| text.is_char_boundary(i);
        let back = (start + 1..=limit).rev().filter(|&i| boundary(i));
        if let Some(i) = back.into_iter().find(|&i| self.allows(text, i)) {
            return i;
        }
        (limit + 1..text.len())
            .filter(|&i| boundary(i))
            .find(|&i| self.allows(text, i))
            .unwrap_or(text.len())
    }
}

/// See [`Cuts::pieces`].
pub struct Pieces<'t> {
    text: &'t str,
    at: usize,
    cuts: Cuts,
    max: usize,
}

impl<'t> Iterator for Pieces<'t> {
    type Item = (usize, &'t str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() {
            // An empty text is one empty piece.
            return (self.at == 0 && self.text.is_empty()).then(|| {
                self.at = 1;
                (0, self.text)
            });
        }
        let start = self.at;
        let end = self.cuts.piece_end(self.text, start, self.max);
        self.at = end;
        Some((start, &self.text[start..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(cuts: Cuts, text: &str, max: usize) -> Vec<&str> {
        let pieces: Vec<(usize, &str)> = cuts.pieces(text, max).collect();
        let mut at = 0;
        for &(start, piece) in &pieces {
            assert_eq!(start, at);
            at += piece.len();
        }
        assert_eq!(at, text.len());
        pieces.into_iter().map(|(_, p)| p).collect()
    }

    const BOTH: Cuts = Cuts {
        after_whitespace: true,
        before_cjk: true,
    };

    #[test]
    fn cuts_after_whitespace_before_cjk_and_nowhere_else() {
        assert_eq!(cut(BOTH, "ab cd ef", 4), ["ab ", "cd ", "ef"]);
        assert_eq!(cut(BOTH, "ab\ncd\tef", 3), ["ab\n", "cd\t", "ef"]);
        assert_eq!(cut(BOTH, "東京大学", 4), ["東", "京", "大", "学"]);
        assert_eq!(cut(BOTH, "東京大学", 7), ["東京", "大学"]);
        assert_eq!(cut(Cuts::NONE, "ab cd ef", 2), ["ab cd ef"]);
        let spaces_only = Cuts {
            after_whitespace: true,
            before_cjk: false,
        };
        assert_eq!(cut(spaces_only, "東京 大学", 3), ["東京 ", "大学"]);
        // A window without a cut runs on to the next one.
        assert_eq!(cut(BOTH, "abcdefg hi", 3), ["abcdefg ", "hi"]);
        assert_eq!(cut(BOTH, "éééé", 2), ["éééé"]);
        assert_eq!(cut(BOTH, "", 2), [""]);
        assert_eq!(cut(BOTH, "ab", 2), ["ab"]);
    }
}
