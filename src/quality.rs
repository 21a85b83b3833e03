//! How a vocabulary encodes text: tokens per word, characters per token,
//! words kept whole and unknown words, measured by encoding each distinct
//! word once (weighted by its count) with the real longest-match encoder.

use crate::error::{Error, Result};
use crate::model::Vocab;
use crate::model::{Piece, WordPiece, WordPieceConfig};
use crate::train::counts::WordCounts;

/// Counts over the words of a text (each word as often as it occurs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextStats {
    pub words: u64,
    pub tokens: u64,
    /// Characters of the words (after normalization; no suffix).
    pub chars: u64,
    /// Words encoded as one token that is not the unknown token.
    pub whole_words: u64,
    /// Words with an unknown token among their pieces.
    pub unknown_words: u64,
}

/// Encodes every word of `counts` with `model`.
pub fn measure(model: &WordPiece, counts: &WordCounts) -> TextStats {
    let suffix = model.config.end_of_word_suffix.as_str();
    let mut stats = TextStats::default();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut word = String::new();
    for (w, c) in counts.iter() {
        pieces.clear();
        word.clear();
        word.push_str(w);
        word.push_str(suffix);
        model.encode_word(word.as_bytes(), &mut pieces);
        let n = pieces.len() as u64;
        let unknown = pieces.iter().any(|p| p.id == model.unk_id);
        stats.words += c;
        stats.tokens += c * n;
        stats.chars += c * w.chars().count() as u64;
        stats.whole_words += if n == 1 && !unknown { c } else { 0 };
        stats.unknown_words += if unknown { c } else { 0 };
    }
    stats
}

/// `measure` with the vocabulary cut to each of `sizes` (its first n
/// tokens, the vocabulary training had reached at size n).
pub fn curve(
    tokens: &[String],
    sizes: &[usize],
    config: &WordPieceConfig,
    counts: &WordCounts,
) -> Result<Vec<TextStats>> {
    sizes
        .iter()
        .map(|&n| {
            let vocab = Vocab::new(tokens[..n.min(tokens.len())].to_vec())?;
            let unk = vocab.id(&config.unk_token).ok_or_else(|| {
                Error::Value(format!(
                    "the unknown token {:?} is not among the first {n} tokens",
                    config.unk_token
                ))
            })?;
            Ok(measure(
                &WordPiece::new(&vocab, config.clone(), unk)?,
                counts,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_tokens_whole_and_unknown_words() {
        let tokens: Vec<String> = ["[UNK]", "a", "b", "##b", "ab"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut counts = WordCounts::default();
        counts.add("ab", 3); // whole
        counts.add("abb", 2); // ab ##b
        counts.add("ax", 1); // unknown
        let config = WordPieceConfig::default();
        let s = curve(&tokens, &[5, 4], &config, &counts).unwrap();
        assert_eq!(
            s[0],
            TextStats {
                words: 6,
                tokens: 3 + 4 + 1,
                chars: 6 + 6 + 2,
                whole_words: 3,
                unknown_words: 1
            }
        );
        // Without "ab": a ##b everywhere.
        assert_eq!(s[1].tokens, 6 + 6 + 1);
        assert_eq!(s[1].whole_words, 0);
        assert!(curve(&tokens, &[0], &config, &counts).is_err());
    }
}
