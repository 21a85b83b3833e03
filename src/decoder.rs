//! Decoding tokens back to text, as HF's WordPiece decoder does (or, for a
//! tokenizer.json without decoder, as HF decodes without one).

/// How tokens become text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecoderKind {
    /// HF's `WordPiece` decoder.
    #[default]
    WordPiece,
    /// No decoder: the tokens joined by spaces, as HF decodes without one.
    Join,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoder {
    pub kind: DecoderKind,
    pub prefix: String,
    /// Undo BERT's spacing around punctuation and contractions.
    pub cleanup: bool,
    /// End-of-word suffix: when set, tokens are joined and each suffix
    /// becomes a space (the D2L style).
    pub suffix: String,
}

impl Default for Decoder {
    fn default() -> Self {
        Self {
            kind: DecoderKind::WordPiece,
            prefix: "##".into(),
            cleanup: true,
            suffix: String::new(),
        }
    }
}

/// The spacing fixes of HF's `cleanup`, applied in this order to each token.
const CLEANUPS: [(&str, &str); 11] = [
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
];

impl Decoder {
    /// Joins tokens: a continuation loses its prefix, any other token after the
    /// first gets a space before it. With an empty prefix every token is a
    /// continuation, so tokens are joined without spaces (as HF does).
    pub fn decode<'a>(&self, tokens: impl IntoIterator<Item = &'a str>) -> String {
        if self.kind == DecoderKind::Join {
            return tokens.into_iter().collect::<Vec<_>>().join(" ");
        }
        if !self.suffix.is_empty() {
            let joined: String = tokens
                .into_iter()
                .map(|t| t.strip_prefix(self.prefix.as_str()).unwrap_or(t))
                .collect();
            return joined
                .replace(self.suffix.as_str(), " ")
                .trim_end()
                .to_owned();
        }
        let mut out = String::new();
        for (i, token) in tokens.into_iter().enumerate() {
            let mut piece = if i == 0 {
                token.to_owned()
            } else if token.starts_with(self.prefix.as_str()) {
                token.replacen(self.prefix.as_str(), "", 1)
            } else {
                format!(" {token}")
            };
            if self.cleanup {
                for (from, to) in CLEANUPS {
                    if piece.contains(from) {
                        piece = piece.replace(from, to);
                    }
                }
            }
            out.push_str(&piece);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_marks_word_ends() {
        let d = Decoder {
            prefix: String::new(),
            suffix: "_".into(),
            ..Decoder::default()
        };
        assert_eq!(d.decode(["s", "low", "est_", "new_"]), "slowest new");
    }

    #[test]
    fn without_decoder_tokens_are_joined_by_spaces() {
        let d = Decoder {
            kind: DecoderKind::Join,
            ..Decoder::default()
        };
        assert_eq!(
            d.decode(["hello", "##s", ",", "world"]),
            "hello ##s , world"
        );
    }

    #[test]
    fn joins_pieces_and_cleans_up() {
        let d = Decoder::default();
        assert_eq!(
            d.decode(["hello", "##s", "world", "!", "don", "'", "t"]),
            "hellos world! don ' t"
        );
    }
}
