//! Property tests: the encoder's fast paths (ASCII table, seeded word
//! cache, trie) against a plain longest-match-first reference, on hostile
//! vocabularies and texts; no panics, offsets in bounds.

mod common;

use common::cases;
use proptest::prelude::*;
use unicode_categories::UnicodeCategories;

use wpiece::cancel::Cancel;
use wpiece::model::Vocab;
use wpiece::model::{UnknownPolicy, WordPieceConfig};
use wpiece::pipeline::Tokenizer;
use wpiece::pre_tokenizers::PreTokenizer;

const UNK: &str = "[UNK]";

fn is_punct(c: char) -> bool {
    matches!(c as u32, 33..=47 | 58..=64 | 91..=96 | 123..=126) || c.is_punctuation()
}

/// Words as (chars, first char index), split like HF's pre-tokenizers.
fn words(text: &str, bert: bool) -> Vec<(Vec<char>, usize)> {
    let mut out = Vec::new();
    let mut cur: Vec<char> = Vec::new();
    let mut start = 0;
    for (i, c) in text.chars().enumerate() {
        if c.is_whitespace() || (bert && is_punct(c)) {
            if !cur.is_empty() {
                out.push((std::mem::take(&mut cur), start));
            }
            if !c.is_whitespace() {
                out.push((vec![c], i));
            }
        } else {
            if cur.is_empty() {
                start = i;
            }
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push((cur, start));
    }
    out
}

/// Plain WordPiece: the longest vocab prefix, then the longest `prefix`
/// continuation, and so on; a word with an unmatched position (or too long)
/// is one unknown token.
fn reference(
    vocab: &[String],
    text: &str,
    bert: bool,
    prefix: &str,
    max_chars: usize,
) -> (Vec<u32>, Vec<(u32, u32)>) {
    let id = |s: &str| vocab.iter().position(|t| t == s).map(|i| i as u32);
    let unk = id(UNK).unwrap();
    let (mut ids, mut offsets) = (Vec::new(), Vec::new());
    for (w, start) in words(text, bert) {
        let end = (start + w.len()) as u32;
        if w.len() > max_chars {
            ids.push(unk);
            offsets.push((start as u32, end));
            continue;
        }
        let mut pieces = Vec::new();
        let mut i = 0;
        let mut ok = true;
        while i < w.len() {
            let mut found = None;
            for j in (i + 1..=w.len()).rev() {
                let s: String = w[i..j].iter().collect();
                let s = if i == 0 { s } else { format!("{prefix}{s}") };
                if let Some(t) = id(&s) {
                    found = Some((t, j));
                    break;
                }
            }
            match found {
                Some((t, j)) => {
                    pieces.push((t, (start + i) as u32, (start + j) as u32));
                    i = j;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            for (t, s, e) in pieces {
                ids.push(t);
                offsets.push((s, e));
            }
        } else {
            ids.push(unk);
            offsets.push((start as u32, end));
        }
    }
    (ids, offsets)
}

/// Characters that stress every path: ASCII letters and punctuation, the
/// prefix characters, whitespace of several kinds, multi-byte letters, CJK,
/// a combining mark and punctuation outside ASCII.
fn alphabet() -> Vec<char> {
    vec![
        'a', 'b', 'c', 'A', '#', '#', '@', '.', ',', '!', ' ', ' ', ' ', '\t', '\n', '\r',
        '\u{a0}', '\u{2028}', '\u{3000}', 'é', 'ß', '中', '\u{301}', '¿', '—', '0',
    ]
}

fn token() -> impl Strategy<Value = String> {
    let chars = alphabet()
        .into_iter()
        .filter(|c| !c.is_whitespace())
        .collect::<Vec<_>>();
    (
        prop::bool::ANY,
        prop::collection::vec(prop::sample::select(chars), 1..5),
    )
        .prop_map(|(cont, cs)| {
            let s: String = cs.into_iter().collect();
            if cont {
                format!("##{s}")
            } else {
                s
            }
        })
}

fn vocab() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(token(), 0..60).prop_map(|ts| {
        let mut v = vec![UNK.to_owned()];
        for t in ts {
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    })
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(alphabet()), 0..80)
        .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(400), ..ProptestConfig::default() })]

    #[test]
    fn encoder_equals_the_plain_reference(
        vocab in vocab(),
        texts in prop::collection::vec(text(), 1..6),
        bert in prop::bool::ANY,
        max_chars in prop::sample::select(vec![1usize, 3, 100]),
    ) {
        let config = WordPieceConfig {
            max_input_chars_per_word: max_chars,
            unknown: UnknownPolicy::Word,
            ..WordPieceConfig::default()
        };
        let pre = if bert { PreTokenizer::Bert } else { PreTokenizer::Whitespace };
        let tok = Tokenizer::bert_like(Vocab::new(vocab.clone()).unwrap(), config, None, pre, &[])
            .unwrap();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let flat = tok.encode_batch_flat(&refs, false, None, true, true, Cancel::never()).unwrap();
        for (k, t) in texts.iter().enumerate() {
            let (ids, offsets) = reference(&vocab, t, bert, "##", max_chars);
            let one = tok.encode_with(t, None, false, None, Cancel::never()).unwrap();
            prop_assert_eq!(&one.ids, &ids, "text {:?}", t);
            prop_assert_eq!(&one.offsets, &offsets, "text {:?}", t);
            let row = &flat.ids[flat.rows[k]..flat.rows[k + 1]];
            prop_assert_eq!(row, &ids[..], "flat, text {:?}", t);
            let words: Vec<Option<u32>> = flat.words[flat.rows[k]..flat.rows[k + 1]]
                .iter()
                .map(|&w| Some(w))
                .collect();
            prop_assert_eq!(&words, &one.word_ids, "flat word ids, text {:?}", t);
            let flat_offsets: Vec<(u32, u32)> = flat.offsets[2 * flat.rows[k]..2 * flat.rows[k + 1]]
                .chunks(2)
                .map(|p| (p[0], p[1]))
                .collect();
            prop_assert_eq!(&flat_offsets, &offsets, "flat offsets, text {:?}", t);
            let n_chars = t.chars().count() as u32;
            prop_assert!(offsets.iter().all(|&(s, e)| s <= e && e <= n_chars));
        }
    }

    #[test]
    fn decode_never_panics(vocab in vocab(), ids in prop::collection::vec(any::<u32>(), 0..40)) {
        let tok = Tokenizer::bert_like(
            Vocab::new(vocab).unwrap(),
            WordPieceConfig::default(),
            None,
            PreTokenizer::Bert,
            &[],
        )
        .unwrap();
        let _ = tok.decode(&ids, true);
        let _ = tok.decode(&ids, false);
    }
}
