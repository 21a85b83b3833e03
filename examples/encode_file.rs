//! Encodes a file (one document per line) with a vocab.txt and prints MB/s:
//! `cargo run --release --example encode_file -- VOCAB FILE [REPEATS]`
//! (`OFFSETS=1` in the environment: with char offsets).

use std::time::Instant;

use wpiece::cancel::Cancel;
use wpiece::model::Vocab;
use wpiece::model::WordPieceConfig;
use wpiece::normalizers::NormalizerConfig;
use wpiece::pipeline::{Tokenizer, BERT_SPECIAL_TOKENS};
use wpiece::pre_tokenizers::PreTokenizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let vocab = Vocab::from_vocab_txt(&std::fs::read_to_string(&args[1])?)?;
    let text = std::fs::read_to_string(&args[2])?;
    let repeats: usize = args.get(3).map_or(Ok(3), |s| s.parse())?;
    let tok = Tokenizer::bert_like(
        vocab,
        WordPieceConfig::default(),
        Some(NormalizerConfig::default()),
        PreTokenizer::Bert,
        &BERT_SPECIAL_TOKENS,
    )?;
    let lines: Vec<&str> = text.lines().collect();
    let with_offsets = std::env::var_os("OFFSETS").is_some_and(|v| v == "1");
    for _ in 0..repeats {
        let t = Instant::now();
        let ids = tok
            .encode_batch_flat(&lines, true, None, with_offsets, false, Cancel::never())?
            .ids;
        let s = t.elapsed().as_secs_f64();
        println!(
            "{:.1} MB/s, {} tokens",
            text.len() as f64 / s / 1e6,
            ids.len()
        );
    }
    Ok(())
}
