//! The encoding pipeline: added tokens, normalization, pre-tokenization,
//! WordPiece, post-processing, truncation and padding.

use aho_corasick::{AhoCorasick, MatchKind};
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use crate::cache::{self, Caches, WordCache};
use crate::cancel::Cancel;
use crate::chunk_cache::{self, ChunkHit, MAX_CHUNK, MAX_LONG_CHUNK, WRITE};
use crate::decode::Decoder;
use crate::encode::{Piece, WordPiece, WordPieceConfig};
use crate::error::{Error, Result};
use crate::normalize::{Normalized, NormalizerConfig};
use crate::pretokenize::PreTokenizer;
use crate::vocab::Vocab;

/// A token matched verbatim in raw text before normalization (HF "added token").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedToken {
    pub content: String,
    pub id: u32,
    pub special: bool,
}

/// BERT post-processing: `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostProcessor {
    pub cls: (String, u32),
    pub sep: (String, u32),
}

impl PostProcessor {
    pub fn added_tokens(&self, is_pair: bool) -> usize {
        if is_pair {
            3
        } else {
            2
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncationStrategy {
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

impl TruncationStrategy {
    pub fn name(self) -> &'static str {
        match self {
            TruncationStrategy::LongestFirst => "longest_first",
            TruncationStrategy::OnlyFirst => "only_first",
            TruncationStrategy::OnlySecond => "only_second",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "longest_first" | "LongestFirst" => Some(Self::LongestFirst),
            "only_first" | "OnlyFirst" => Some(Self::OnlyFirst),
            "only_second" | "OnlySecond" => Some(Self::OnlySecond),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    pub max_length: usize,
    pub strategy: TruncationStrategy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadLength {
    /// Pad to the longest encoding of the batch.
    Longest,
    /// Pad every encoding to this length.
    Fixed(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padding {
    pub length: PadLength,
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
}

/// The result of encoding one input (or pair). Offsets are in chars of the
/// original input(s); added and padding tokens have `(0, 0)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    pub offsets: Vec<(u32, u32)>,
    pub special_tokens_mask: Vec<u8>,
    pub attention_mask: Vec<u8>,
}

impl Encoding {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    fn push(&mut self, id: u32, type_id: u32, offsets: (u32, u32), special: bool) {
        self.ids.push(id);
        self.type_ids.push(type_id);
        self.offsets.push(offsets);
        self.special_tokens_mask.push(special as u8);
        self.attention_mask.push(1);
    }

    fn truncate(&mut self, len: usize) {
        self.ids.truncate(len);
        self.type_ids.truncate(len);
        self.offsets.truncate(len);
        self.special_tokens_mask.truncate(len);
        self.attention_mask.truncate(len);
    }

    fn append(&mut self, mut other: Encoding) {
        self.ids.append(&mut other.ids);
        self.type_ids.append(&mut other.type_ids);
        self.offsets.append(&mut other.offsets);
        self.special_tokens_mask
            .append(&mut other.special_tokens_mask);
        self.attention_mask.append(&mut other.attention_mask);
    }

    /// Bytes one token takes across the columns.
    const BYTES_PER_TOKEN: usize = 4 + 4 + 8 + 1 + 1;

    fn pad_to(&mut self, len: usize, p: &Padding) -> Result<()> {
        let Some(extra) = len.checked_sub(self.ids.len()).filter(|&n| n > 0) else {
            return Ok(());
        };
        let oom = |_| Error::Memory(format!("cannot allocate memory to pad to {len} tokens"));
        self.ids.try_reserve_exact(extra).map_err(oom)?;
        self.type_ids.try_reserve_exact(extra).map_err(oom)?;
        self.offsets.try_reserve_exact(extra).map_err(oom)?;
        self.special_tokens_mask
            .try_reserve_exact(extra)
            .map_err(oom)?;
        self.attention_mask.try_reserve_exact(extra).map_err(oom)?;
        self.ids.resize(len, p.pad_id);
        self.type_ids.resize(len, p.pad_type_id);
        self.offsets.resize(len, (0, 0));
        self.special_tokens_mask.resize(len, 1);
        self.attention_mask.resize(len, 0);
        Ok(())
    }
}

/// Output buffer of one sequence: ids, and offsets when asked for, plus
/// scratch space reused across calls.
#[derive(Debug, Default)]
pub struct SeqOut {
    pub ids: Vec<u32>,
    /// Start and end of each token, flattened: `[s0, e0, s1, e1, ...]`.
    pub offsets: Vec<u32>,
    pub with_offsets: bool,
    pieces: Vec<Piece>,
    word: Vec<u8>,
    normalized: Normalized,
    batch: Vec<Span>,
    found: Vec<Span>,
    word_batch: Vec<Span>,
    /// Chunks of the next text found early, which text (address, length),
    /// and where in it finding stopped.
    ahead: Vec<Span>,
    ahead_of: Option<(usize, usize)>,
    ahead_end: usize,
}

/// Chunks, or words (with `len` 0: one punctuation byte), found ahead of
/// emitting them.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
    key: cache::Key,
    hash: u64,
}

/// Words found (and their cache slots requested) before any is emitted.
const WORD_BATCH: usize = 32;

impl SeqOut {
    pub fn new(with_offsets: bool) -> Self {
        Self {
            with_offsets,
            ..Default::default()
        }
    }

    #[inline]
    fn push(&mut self, id: u32, offsets: (u32, u32)) {
        self.ids.push(id);
        if self.with_offsets {
            self.offsets.extend_from_slice(&[offsets.0, offsets.1]);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AsciiClass {
    Word,
    Space,
    Punct,
    /// Needs the general path (dropped by cleaning).
    Other,
}

/// What normalization plus pre-tokenization does to each ASCII byte.
#[derive(Clone, Debug)]
struct AsciiTable {
    class: [AsciiClass; 256],
    lower: [u8; 256],
    /// Whether the normalizer lowercases.
    lowercase: bool,
    /// Word bytes are exactly ASCII letters and digits (then words are found
    /// eight bytes at a time).
    word_is_alnum: bool,
    /// The id of each byte as a one-character word (token or unk).
    single: [u32; 256],
}

impl AsciiTable {
    fn new(
        normalizer: Option<&NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
        model: &WordPiece,
    ) -> Self {
        let mut class = [AsciiClass::Other; 256];
        let mut lower = [0u8; 256];
        let mut single = [model.unk_id; 256];
        let mut pieces = Vec::new();
        for b in 0u8..128 {
            let c = b as char;
            // The byte after normalization; None: cleaning drops it (general path).
            let Some(n) = normalizer.map_or(Some(c), |n| n.normalize_ascii(c)) else {
                continue;
            };
            lower[b as usize] = n as u8;
            pieces.clear();
            model.encode_word(&[n as u8], &mut pieces);
            single[b as usize] = pieces[0].id;
            class[b as usize] = if n.is_whitespace() {
                AsciiClass::Space
            } else if pre_tokenizer == PreTokenizer::Bert && n.is_ascii_punctuation() {
                AsciiClass::Punct
            } else {
                AsciiClass::Word
            };
        }
        let lowercase = normalizer.is_some_and(|n| n.lowercase);
        let mut table = Self {
            class,
            lower,
            lowercase,
            word_is_alnum: false,
            single,
        };
        table.word_is_alnum = table.classes_words_as_alnum();
        table
    }

    fn classes_words_as_alnum(&self) -> bool {
        (0u8..=255)
            .all(|b| (self.class[b as usize] == AsciiClass::Word) == b.is_ascii_alphanumeric())
    }
}

/// The end of the run of ASCII letters and digits that starts at `i`.
#[inline]
fn end_of_alnum(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // High bit of each byte set when lo <= byte <= hi (bytes are ASCII).
    let in_range = |x: u64, lo: u8, hi: u8| {
        (x + ONES * (0x80 - lo as u64)) & !(x + ONES * (0x80 - hi as u64 - 1)) & HIGH
    };
    while i + 8 <= text.len() {
        let mut b = [0u8; 8];
        b.copy_from_slice(&text[i..i + 8]);
        let x = u64::from_le_bytes(b);
        let alnum = in_range(x, b'0', b'9') | in_range(x | (ONES * 0x20), b'a', b'z');
        let other = !alnum & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && text[i].is_ascii_alphanumeric() {
        i += 1;
    }
    i
}

/// Chunks found ahead of emitting them: enough to hide memory latency, few
/// enough to stay in L1.
const BATCH: usize = 32;
/// Chunks of the next text found at the end of one.
const AHEAD: usize = 16;

/// Appends the chunks of `bytes` from `*i` on to `batch` (until it holds
/// `limit` or the text ends), asking the CPU to load their cache slots.
#[inline]
fn find_chunks(bytes: &[u8], i: &mut usize, batch: &mut Vec<Span>, limit: usize, caches: &Caches) {
    let n = bytes.len();
    while batch.len() < limit {
        while *i < n && is_chunk_separator(bytes[*i]) {
            *i += 1;
        }
        if *i == n {
            return;
        }
        let start = *i;
        // Most chunks end within the eight bytes from their start: then those
        // bytes, masked, are already the first word of the key.
        let word = bytes
            .get(start..start + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        let in_word = word
            .map(|x| (x, first_separator_in_word(x)))
            .filter(|&(_, len)| len < 8 && is_chunk_separator(bytes[start + len]));
        let (len, key) = match in_word {
            Some((x, len)) => (len, [x & ((1u64 << (8 * len)) - 1), (len as u64) << 56]),
            None => {
                let len = next_chunk_separator(bytes, start) - start;
                let key = if len <= MAX_CHUNK {
                    chunk_cache::chunk_key(bytes, start, len)
                } else {
                    [0; 2]
                };
                (len, key)
            }
        };
        *i = start + len;
        let mut hash = 0;
        if len <= MAX_CHUNK {
            hash = chunk_cache::chunk_hash(key);
            caches.chunks.prefetch(hash);
        } else if len <= MAX_LONG_CHUNK {
            // The long key is rebuilt when emitting; the hash is kept.
            hash = chunk_cache::chunk_hash(chunk_cache::chunk_key::<4>(bytes, start, len));
            caches.long_chunks.prefetch(hash);
        }
        batch.push(Span {
            start: start as u32,
            len: len as u32,
            key,
            hash,
        });
    }
}

/// The ASCII whitespace bytes that split raw text into chunks.
#[inline]
fn is_chunk_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The index of the first byte below 0x21 in the eight bytes of `x` (8 if
/// none): separators are among those bytes.
#[inline]
fn first_separator_in_word(x: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // High bit set for bytes below 0x21: exact for the lowest one (borrows
    // only run upwards), which is all we look at.
    let low = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
    (low.trailing_zeros() / 8) as usize
}

/// The first chunk separator at or after `i` (or the text's end).
#[inline]
fn next_chunk_separator(text: &[u8], mut i: usize) -> usize {
    while i + 8 <= text.len() {
        let x = u64::from_le_bytes(text[i..i + 8].try_into().unwrap_or([0; 8]));
        let at = first_separator_in_word(x);
        if at == 8 {
            i += 8;
            continue;
        }
        if is_chunk_separator(text[i + at]) {
            return i + at;
        }
        i += at + 1;
    }
    while i < text.len() && !is_chunk_separator(text[i]) {
        i += 1;
    }
    i
}

/// Offsets (and chunk positions) are 32-bit: a text of 4 GiB or more is refused.
fn check_length(bytes: usize) -> Result<()> {
    if bytes > u32::MAX as usize {
        return Err(Error::Value(format!(
            "a text of {bytes} bytes is too long: texts must be under 4 GiB"
        )));
    }
    Ok(())
}

/// Chars in UTF-8 `bytes`: the bytes that are not continuation bytes.
#[inline]
fn count_utf8_chars(bytes: &[u8]) -> u32 {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32
}

#[derive(Clone, Debug)]
pub struct Tokenizer {
    pub vocab: Vocab,
    pub model: WordPiece,
    pub normalizer: Option<NormalizerConfig>,
    pub pre_tokenizer: PreTokenizer,
    pub added_tokens: Vec<AddedToken>,
    pub post_processor: Option<PostProcessor>,
    pub decoder: Decoder,
    pub truncation: Option<Truncation>,
    pub padding: Option<Padding>,
    added_matcher: Option<AhoCorasick>,
    /// First bytes of the added tokens: a text without any needs no search.
    added_first_bytes: [bool; 256],
    special_ids: FxHashSet<u32>,
    /// ASCII handling of segments between added tokens.
    ascii: AsciiTable,
    /// The same for whole texts: bytes that may start an added token stop it.
    ascii_text: AsciiTable,
    /// Identifies this model's entries in the per-thread word caches.
    model_id: u64,
    /// Whether chunks of text between ASCII whitespace bytes encode
    /// independently of each other: true when normalization keeps those bytes
    /// whitespace, the pre-tokenizer splits there, and no added token holds one.
    chunkable: bool,
    /// Each token's width in chars, without the continuing prefix (capped at
    /// 255): lets cached chunks keep ids only and rebuild offsets.
    token_widths: Vec<u8>,
}

/// BERT's special tokens, in their conventional order.
pub const BERT_SPECIAL_TOKENS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

impl Tokenizer {
    /// Assembles a tokenizer; checks that every named token exists.
    pub fn new(
        vocab: Vocab,
        model_config: WordPieceConfig,
        normalizer: Option<NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
        added_tokens: Vec<AddedToken>,
        post_processor: Option<PostProcessor>,
        decoder: Decoder,
    ) -> Result<Self> {
        let unk_id = vocab.id(&model_config.unk_token).ok_or_else(|| {
            Error::Value(format!(
                "unk token {:?} is not in the vocabulary",
                model_config.unk_token
            ))
        })?;
        for t in &added_tokens {
            match vocab.token(t.id) {
                Some(s) if s == t.content => {}
                _ => {
                    return Err(Error::Unsupported(format!(
                        "added token {:?} (id {}) is not the vocabulary's token with that id; \
                         only added tokens that are part of the vocabulary are supported",
                        t.content, t.id
                    )))
                }
            }
            if t.content.is_empty() {
                return Err(Error::Value("an added token cannot be empty".into()));
            }
        }
        if let Some(p) = &post_processor {
            for (name, id) in [&p.cls, &p.sep] {
                if vocab.id(name) != Some(*id) {
                    return Err(Error::Unsupported(format!(
                        "post-processor token {name:?} with id {id}, which is not that \
                         token's id in the vocabulary"
                    )));
                }
            }
        }
        let added_matcher = if added_tokens.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(added_tokens.iter().map(|t| t.content.as_str()))
                    .map_err(|e| Error::Value(format!("cannot index added tokens: {e}")))?,
            )
        };
        let special_ids = added_tokens
            .iter()
            .filter(|t| t.special)
            .map(|t| t.id)
            .collect();
        let mut added_first_bytes = [false; 256];
        for t in &added_tokens {
            added_first_bytes[t.content.as_bytes()[0] as usize] = true;
        }
        let model = WordPiece::new(&vocab, model_config, unk_id);
        let ascii = AsciiTable::new(normalizer.as_ref(), pre_tokenizer, &model);
        let mut ascii_text = ascii.clone();
        for (b, starts_added) in added_first_bytes.iter().enumerate() {
            if *starts_added {
                ascii_text.class[b] = AsciiClass::Other;
            }
        }
        ascii_text.word_is_alnum = ascii_text.classes_words_as_alnum();
        let chunkable = b" \t\n\r".iter().all(|&b| {
            let c = b as char;
            normalizer
                .as_ref()
                .map_or(Some(c), |n| n.normalize_ascii(c))
                .is_some_and(char::is_whitespace)
                && !added_tokens
                    .iter()
                    .any(|t| t.content.as_bytes().contains(&b))
        });
        let prefix = &model.config.continuing_subword_prefix;
        let token_widths = vocab
            .tokens()
            .iter()
            .map(|t| {
                let bare = t.strip_prefix(prefix.as_str()).unwrap_or(t);
                bare.chars().count().min(255) as u8
            })
            .collect();
        Ok(Self {
            token_widths,
            vocab,
            model,
            normalizer,
            pre_tokenizer,
            added_tokens,
            post_processor,
            decoder,
            truncation: None,
            padding: None,
            added_matcher,
            added_first_bytes,
            special_ids,
            ascii,
            ascii_text,
            model_id: cache::new_model_id(),
            chunkable,
        })
    }

    /// Like HF's `BertWordPieceTokenizer(vocab)`: the BERT special tokens found
    /// in the vocab are special added tokens; `[CLS]`/`[SEP]` frame the inputs.
    pub fn bert_like(
        vocab: Vocab,
        model_config: WordPieceConfig,
        normalizer: Option<NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
        special_tokens: &[&str],
    ) -> Result<Self> {
        let mut added = Vec::new();
        let mut names: Vec<&str> = vec![model_config.unk_token.as_str()];
        names.extend(special_tokens.iter().copied());
        for name in names {
            if let Some(id) = vocab.id(name) {
                if !added.iter().any(|a: &AddedToken| a.id == id) {
                    added.push(AddedToken {
                        content: name.to_owned(),
                        id,
                        special: true,
                    });
                }
            }
        }
        let post = match (vocab.id("[CLS]"), vocab.id("[SEP]")) {
            (Some(c), Some(s)) => Some(PostProcessor {
                cls: ("[CLS]".into(), c),
                sep: ("[SEP]".into(), s),
            }),
            _ => None,
        };
        let decoder = Decoder {
            prefix: model_config.continuing_subword_prefix.clone(),
            cleanup: true,
            suffix: model_config.end_of_word_suffix.clone(),
        };
        Self::new(
            vocab,
            model_config,
            normalizer,
            pre_tokenizer,
            added,
            post,
            decoder,
        )
    }

    pub fn is_special_id(&self, id: u32) -> bool {
        self.special_ids.contains(&id)
    }

    /// Encodes one sequence without post-processing; offsets start at 0.
    pub fn encode_sequence(&self, text: &str, type_id: u32) -> Encoding {
        let mut out = SeqOut::new(true);
        self.encode_sequence_into(text, &mut out);
        let n = out.ids.len();
        Encoding {
            ids: out.ids,
            type_ids: vec![type_id; n],
            offsets: out.offsets.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
            special_tokens_mask: vec![0; n],
            attention_mask: vec![1; n],
        }
    }

    /// Appends the ids (and, if asked, offsets) of one sequence to `out`.
    pub fn encode_sequence_into(&self, text: &str, out: &mut SeqOut) {
        self.encode_sequence_before(text, None, out);
    }

    /// [`Tokenizer::encode_sequence_into`], told which text comes next (so
    /// its first chunks can be looked for while this one is encoded).
    fn encode_sequence_before(&self, text: &str, next: Option<&str>, out: &mut SeqOut) {
        cache::with_cache(self.model_id, |caches| {
            if self.chunkable {
                self.encode_chunks(text, next, out, caches);
            } else {
                self.encode_text(text, 0, out, caches);
            }
        });
    }

    /// Splits `text` at ASCII whitespace bytes into chunks, which encode
    /// independently (see `chunkable`), and looks each chunk up in the chunk
    /// cache: in real text almost every chunk ("the", "word,", "(see") has been
    /// seen before, so its ids (and offsets) are copied without normalizing,
    /// splitting or matching anything. Chunks are found, and their cache slots
    /// requested, a batch ahead of emitting them; once a text is all found,
    /// the first chunks of the `next` one are.
    fn encode_chunks(&self, text: &str, next: Option<&str>, out: &mut SeqOut, caches: &mut Caches) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        // Char offsets equal byte offsets in ASCII text; otherwise count
        // chars: the bytes and chars before the last chunk emitted.
        let count_chars = out.with_offsets && !text.is_ascii();
        let mut count = (0usize, 0u32);
        let mut batch = std::mem::take(&mut out.batch);
        let mut found = std::mem::take(&mut out.found);
        let mut ahead = std::mem::take(&mut out.ahead);
        batch.clear();
        let mut i = 0;
        // Chunks of this very text found at the end of the previous one.
        if out.ahead_of.take() == Some((text.as_ptr() as usize, n)) {
            batch.append(&mut ahead);
            i = out.ahead_end;
        } else {
            find_chunks(bytes, &mut i, &mut batch, BATCH, caches);
        }
        let mut looked_ahead = false;
        // Double buffering: the chunks after `batch` are found (and their
        // cache slots requested) before `batch` is emitted, so every slot has
        // a whole batch's time to arrive. Once this text is all found, the
        // first chunks of the next one are (most texts are that short).
        loop {
            found.clear();
            find_chunks(bytes, &mut i, &mut found, BATCH, caches);
            if let (true, false, Some(next)) = (i == n, looked_ahead, next) {
                looked_ahead = true;
                ahead.clear();
                let mut j = 0;
                find_chunks(next.as_bytes(), &mut j, &mut ahead, AHEAD, caches);
                out.ahead_of = Some((next.as_ptr() as usize, next.len()));
                out.ahead_end = j;
            }
            self.emit_chunks(text, &batch, count_chars, &mut count, out, caches);
            if found.is_empty() {
                break;
            }
            std::mem::swap(&mut batch, &mut found);
        }
        out.batch = batch;
        out.found = found;
        out.ahead = ahead;
    }

    /// Emits found chunks in order: cached ones by copying, new ones by
    /// encoding (and caching) them. With `count_chars`, `count` holds the
    /// bytes and chars before the last chunk emitted (char offsets of
    /// non-ASCII text).
    fn emit_chunks(
        &self,
        text: &str,
        batch: &[Span],
        count_chars: bool,
        count: &mut (usize, u32),
        out: &mut SeqOut,
        caches: &mut Caches,
    ) {
        let bytes = text.as_bytes();
        // Hits write a fixed `WRITE` ids (and twice as many offsets) at `pos`
        // (`opos`) into room made ahead, then advance by their count: no
        // length-dependent copies.
        let with_offsets = out.with_offsets;
        let room = |out: &mut SeqOut, pos: usize, opos: usize, extra: usize, left: usize| {
            let need = pos + extra + WRITE * left;
            if out.ids.len() < need {
                out.ids.resize(need, 0);
            }
            if with_offsets && out.offsets.len() < 2 * need - 2 * pos + opos {
                out.offsets.resize(2 * need - 2 * pos + opos, 0);
            }
        };
        let (mut pos, mut opos) = (out.ids.len(), out.offsets.len());
        room(out, pos, opos, 0, batch.len());
        for (k, sp) in batch.iter().enumerate() {
            let (start, len) = (sp.start as usize, sp.len as usize);
            let at = if count_chars {
                count.1 += count_utf8_chars(&bytes[count.0..start]);
                count.0 = start;
                count.1
            } else {
                sp.start
            };
            let hit = if len <= MAX_CHUNK {
                caches.chunks.get(sp.hash, sp.key)
            } else if len <= MAX_LONG_CHUNK {
                let key = chunk_cache::chunk_key(bytes, start, len);
                caches.long_chunks.get(sp.hash, key)
            } else {
                None
            };
            match hit {
                Some(ChunkHit::Inline { ids, n }) => {
                    out.ids[pos..pos + WRITE].copy_from_slice(&ids);
                    pos += n;
                    if with_offsets && n > 0 {
                        let chars = match (count_chars, len <= MAX_CHUNK) {
                            (false, _) => sp.len,
                            (true, true) => chunk_cache::char_count(sp.key),
                            (true, false) => count_utf8_chars(&bytes[start..start + len]),
                        };
                        // Each token but the last is as wide as its
                        // vocab entry; the last ends with the chunk.
                        let o = &mut out.offsets[opos..opos + 2 * WRITE];
                        let mut s = at;
                        for (t, &id) in ids[..n - 1].iter().enumerate() {
                            let e = s + self.token_widths[id as usize] as u32;
                            o[2 * t] = s;
                            o[2 * t + 1] = e;
                            s = e;
                        }
                        o[2 * n - 2] = s;
                        o[2 * n - 1] = at + chars;
                        opos += 2 * n;
                    }
                }
                Some(ChunkHit::Spilled { ids, offsets }) => {
                    let left = batch.len() - k - 1;
                    room(out, pos, opos, ids.len(), left);
                    out.ids[pos..pos + ids.len()].copy_from_slice(ids);
                    pos += ids.len();
                    if with_offsets {
                        let o = &mut out.offsets[opos..opos + offsets.len()];
                        for (dst, src) in o.iter_mut().zip(offsets) {
                            *dst = src + at;
                        }
                        opos += offsets.len();
                    }
                }
                None => {
                    out.ids.truncate(pos);
                    out.offsets.truncate(opos);
                    // Separators are ASCII, so chunks are whole chars.
                    let chunk = &text[start..start + len];
                    self.encode_new_chunk(chunk, sp, at, out, caches);
                    (pos, opos) = (out.ids.len(), out.offsets.len());
                    room(out, pos, opos, 0, batch.len() - k - 1);
                }
            }
        }
        out.ids.truncate(pos);
        out.offsets.truncate(opos);
    }

    /// A chunk not in the cache: encoded from char 0 with offsets, cached if
    /// short enough, then its offsets shifted to `at` (or dropped).
    #[cold]
    fn encode_new_chunk(
        &self,
        chunk: &str,
        sp: &Span,
        at: u32,
        out: &mut SeqOut,
        caches: &mut Caches,
    ) {
        let len = chunk.len();
        if len > MAX_LONG_CHUNK {
            self.encode_text(chunk, at, out, caches);
            return;
        }
        let (n_ids, n_offsets) = (out.ids.len(), out.offsets.len());
        let with_offsets = std::mem::replace(&mut out.with_offsets, true);
        self.encode_text(chunk, 0, out, caches);
        out.with_offsets = with_offsets;
        let (ids, offsets) = (&out.ids[n_ids..], &out.offsets[n_offsets..]);
        if len <= MAX_CHUNK {
            caches
                .chunks
                .insert(sp.hash, sp.key, ids, offsets, &self.token_widths);
        } else {
            let key = chunk_cache::chunk_key(chunk.as_bytes(), 0, len);
            let hash = chunk_cache::chunk_hash(key);
            caches
                .long_chunks
                .insert(hash, key, ids, offsets, &self.token_widths);
        }
        if with_offsets {
            out.offsets[n_offsets..].iter_mut().for_each(|o| *o += at);
        } else {
            out.offsets.truncate(n_offsets);
        }
    }

    /// Encodes a text (or chunk) that starts at char `first_char` of the input.
    fn encode_text(&self, text: &str, first_char: u32, out: &mut SeqOut, caches: &mut Caches) {
        // Most texts are ASCII without added tokens: one pass does it all, and
        // gives up at the first byte that could start an added token.
        let suffixed = !self.model.config.end_of_word_suffix.is_empty();
        if text.is_ascii() && !suffixed {
            let (n_ids, n_offsets) = (out.ids.len(), out.offsets.len());
            if self.encode_ascii(text.as_bytes(), first_char, out, &self.ascii_text, caches) {
                return;
            }
            out.ids.truncate(n_ids);
            out.offsets.truncate(n_offsets);
        }
        let Some(matcher) = &self.added_matcher else {
            self.encode_plain(text, first_char, out, caches);
            return;
        };
        if !text.bytes().any(|b| self.added_first_bytes[b as usize]) {
            self.encode_plain(text, first_char, out, caches);
            return;
        }
        let mut last = 0usize;
        let mut last_char = first_char;
        for m in matcher.find_iter(text) {
            let start_char = last_char + text[last..m.start()].chars().count() as u32;
            if m.start() > last {
                self.encode_plain(&text[last..m.start()], last_char, out, caches);
            }
            let end_char = start_char + text[m.start()..m.end()].chars().count() as u32;
            let t = &self.added_tokens[m.pattern().as_usize()];
            out.push(t.id, (start_char, end_char));
            last = m.end();
            last_char = end_char;
        }
        if last < text.len() {
            self.encode_plain(&text[last..], last_char, out, caches);
        }
    }

    /// A segment without added tokens; `first_char` is its char offset in the input.
    fn encode_plain(&self, segment: &str, first_char: u32, out: &mut SeqOut, caches: &mut Caches) {
        if segment.is_ascii() && self.model.config.end_of_word_suffix.is_empty() {
            let (n_ids, n_offsets) = (out.ids.len(), out.offsets.len());
            if self.encode_ascii(segment.as_bytes(), first_char, out, &self.ascii, caches) {
                return;
            }
            out.ids.truncate(n_ids);
            out.offsets.truncate(n_offsets);
        }
        let mut normalized = std::mem::take(&mut out.normalized);
        match &self.normalizer {
            Some(n) => n.normalize_into(segment, first_char, &mut normalized),
            None => {
                normalized.text.clear();
                normalized.text.push_str(segment);
                normalized.source.clear();
                normalized
                    .source
                    .extend(first_char..first_char + segment.chars().count() as u32);
            }
        }
        self.encode_normalized(&normalized, out, &mut caches.words);
        out.normalized = normalized;
    }

    /// ASCII fast path: normalization and pre-tokenization in one pass over
    /// bytes, words looked up in the thread's word cache. Returns false
    /// (output partly written) for input it does not handle, i.e. characters
    /// that cleaning drops.
    fn encode_ascii(
        &self,
        seg: &[u8],
        first_char: u32,
        out: &mut SeqOut,
        t: &AsciiTable,
        caches: &mut Caches,
    ) -> bool {
        let mut lowered = std::mem::take(&mut out.word);
        let mut batch = std::mem::take(&mut out.word_batch);
        let cache = &mut caches.words;
        let ok = (|| {
            let n = seg.len();
            let mut i = 0;
            while i < n {
                // 1. Find the next words, start loading their cache slots.
                batch.clear();
                while i < n && batch.len() < WORD_BATCH {
                    let b = seg[i];
                    // Tested in order of frequency; a plain branch predicts
                    // better than a jump table here.
                    let class = t.class[b as usize];
                    if class == AsciiClass::Word {
                        let start = i;
                        i = if t.word_is_alnum {
                            end_of_alnum(seg, i)
                        } else {
                            let mut j = i;
                            while j < n && t.class[seg[j] as usize] == AsciiClass::Word {
                                j += 1;
                            }
                            j
                        };
                        let len = i - start;
                        let (mut key, mut hash) = ([0; 2], 0);
                        if len <= cache::MAX_WORD {
                            key = cache::key_at(seg, start, len);
                            if t.lowercase {
                                key = [cache::ascii_lower(key[0]), cache::ascii_lower(key[1])];
                            }
                            hash = cache::hash(key, len);
                            cache.prefetch(hash);
                        }
                        batch.push(Span {
                            start: start as u32,
                            len: len as u32,
                            key,
                            hash,
                        });
                        // The usual case: one space, then the next word.
                        if i + 1 < n
                            && t.class[seg[i] as usize] == AsciiClass::Space
                            && t.class[seg[i + 1] as usize] == AsciiClass::Word
                        {
                            i += 1;
                        }
                    } else if class == AsciiClass::Space {
                        i += 1;
                    } else if class == AsciiClass::Punct {
                        batch.push(Span {
                            start: i as u32,
                            len: 0,
                            key: [0; 2],
                            hash: 0,
                        });
                        i += 1;
                    } else {
                        return false;
                    }
                }
                // 2. Emit them in order.
                for sp in &batch {
                    let at = first_char + sp.start;
                    let len = sp.len as usize;
                    let offsets = |p: &Piece| (at + p.start, at + p.end);
                    if len == 0 {
                        out.push(t.single[seg[sp.start as usize] as usize], (at, at + 1));
                    } else if len <= cache::MAX_WORD {
                        if cache
                            .lookup_hashed(sp.hash, sp.key, len, |p| out.push(p.id, offsets(&p)))
                        {
                            continue;
                        }
                        let bytes = cache::key_bytes(sp.key);
                        self.emit_matched(&bytes[..len], Some((cache, sp.key)), out, offsets);
                    } else {
                        let start = sp.start as usize;
                        lowered.clear();
                        lowered
                            .extend(seg[start..start + len].iter().map(|&b| t.lower[b as usize]));
                        self.emit_matched(&lowered, None, out, offsets);
                    }
                }
            }
            true
        })();
        out.word = lowered;
        out.word_batch = batch;
        ok
    }

    /// Matches `word` in the trie, caches the pieces under `key` if given, and
    /// pushes them with offsets from `offsets(piece)`.
    #[inline]
    fn emit_matched(
        &self,
        word: &[u8],
        cache: Option<(&mut WordCache, cache::Key)>,
        out: &mut SeqOut,
        offsets: impl Fn(&Piece) -> (u32, u32),
    ) {
        let mut pieces = std::mem::take(&mut out.pieces);
        pieces.clear();
        self.model.encode_word(word, &mut pieces);
        if let Some((cache, key)) = cache {
            cache.insert_key(key, word.len(), &pieces);
        }
        for p in &pieces {
            out.push(p.id, offsets(p));
        }
        out.pieces = pieces;
    }

    /// Pushes the pieces of `word` (from the cache, or matched and cached),
    /// with offsets from `offsets(piece)`.
    #[inline]
    fn emit_word(
        &self,
        word: &[u8],
        cache: &mut WordCache,
        out: &mut SeqOut,
        mut offsets: impl FnMut(&Piece) -> (u32, u32),
    ) {
        if cache.lookup(word, |p| out.push(p.id, offsets(&p))) {
            return;
        }
        let mut pieces = std::mem::take(&mut out.pieces);
        pieces.clear();
        self.model.encode_word(word, &mut pieces);
        cache.insert(word, &pieces);
        for p in &pieces {
            out.push(p.id, offsets(p));
        }
        out.pieces = pieces;
    }

    fn encode_normalized(&self, normalized: &Normalized, out: &mut SeqOut, cache: &mut WordCache) {
        let text = normalized.text.as_str();
        let source = &normalized.source;
        let suffix = self.model.config.end_of_word_suffix.as_bytes();
        let mut suffixed = std::mem::take(&mut out.word);
        {
            self.pre_tokenizer.split(text, |w| {
                let word = &text.as_bytes()[w.start..w.end];
                let first = w.first_char as usize;
                // Char index (within the word) of a piece boundary; a boundary
                // inside the end-of-word suffix falls on the word's end.
                let char_at = |byte: u32| {
                    let byte = (byte as usize).min(word.len());
                    first + word[..byte].iter().filter(|&&x| (x & 0xC0) != 0x80).count()
                };
                let offsets = |p: &Piece| {
                    let (a, b) = (char_at(p.start), char_at(p.end));
                    let a = a.min(b.saturating_sub(1)).max(first);
                    (source[a], source[b.max(a + 1) - 1] + 1)
                };
                if !suffix.is_empty() {
                    suffixed.clear();
                    suffixed.extend_from_slice(word);
                    suffixed.extend_from_slice(suffix);
                    self.emit_word(&suffixed, cache, out, offsets);
                } else if word.is_ascii() {
                    self.emit_word(word, cache, out, |p| {
                        (
                            source[first + p.start as usize],
                            source[first + p.end as usize - 1] + 1,
                        )
                    });
                } else {
                    self.emit_word(word, cache, out, offsets);
                }
            });
        }
        out.word = suffixed;
    }

    /// Encodes `text` (and `pair`), adding special tokens and truncating as configured.
    /// Padding is not applied here (see [`Tokenizer::pad_batch`]).
    pub fn encode(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> Result<Encoding> {
        self.encode_with(text, pair, add_special_tokens, self.truncation.as_ref())
    }

    /// [`Tokenizer::encode`] with an explicit truncation setting.
    pub fn encode_with(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
    ) -> Result<Encoding> {
        check_length(text.len())?;
        check_length(pair.map_or(0, str::len))?;
        let mut a = self.encode_sequence(text, 0);
        let mut b = pair.map(|p| self.encode_sequence(p, 1));
        let post = if add_special_tokens {
            self.post_processor.as_ref()
        } else {
            None
        };
        if let Some(t) = truncation {
            let n_added = post.map_or(0, |p| p.added_tokens(b.is_some()));
            // HF wraps around here and silently skips truncation; we refuse instead.
            if t.max_length < n_added {
                return Err(Error::Value(format!(
                    "max_length {} is smaller than the {n_added} special tokens added",
                    t.max_length
                )));
            }
            truncate(&mut a, b.as_mut(), t.max_length - n_added, t.strategy)?;
        }
        Ok(match post {
            Some(p) => {
                let mut out = Encoding::default();
                out.push(p.cls.1, 0, (0, 0), true);
                out.append(a);
                out.push(p.sep.1, 0, (0, 0), true);
                if let Some(b) = b {
                    out.append(b);
                    out.push(p.sep.1, 1, (0, 0), true);
                }
                out
            }
            None => {
                if let Some(b) = b {
                    a.append(b);
                }
                a
            }
        })
    }

    /// Encodes many inputs in parallel and pads them as configured.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
    ) -> Result<Vec<Encoding>> {
        self.encode_batch_with(
            texts,
            pairs,
            add_special_tokens,
            self.truncation.as_ref(),
            self.padding.as_ref(),
            Cancel::never(),
        )
    }

    /// [`Tokenizer::encode_batch`] with explicit truncation and padding
    /// settings; stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_batch_with(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        padding: Option<&Padding>,
        cancel: &Cancel,
    ) -> Result<Vec<Encoding>> {
        if let Some(p) = pairs {
            if p.len() != texts.len() {
                return Err(Error::Value(format!(
                    "got {} texts but {} pairs",
                    texts.len(),
                    p.len()
                )));
            }
        }
        let mut out: Vec<Encoding> = texts
            .par_iter()
            .enumerate()
            .map(|(i, t)| {
                cancel.check()?;
                self.encode_with(t, pairs.map(|p| p[i]), add_special_tokens, truncation)
            })
            .collect::<Result<_>>()?;
        pad_batch(&mut out, padding)?;
        Ok(out)
    }
}

impl Tokenizer {
    /// Ids of many single texts as one flat vector plus row offsets (length
    /// n + 1): no per-token or per-text objects. Work is split into coarse
    /// chunks, one output buffer each, joined in order.
    pub fn encode_batch_ids(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
    ) -> Result<(Vec<u32>, Vec<usize>)> {
        let flat = self.encode_batch_flat(
            texts,
            add_special_tokens,
            truncation,
            false,
            Cancel::never(),
        )?;
        Ok((flat.ids, flat.rows))
    }

    /// [`Tokenizer::encode_batch_ids`], with char offsets of every token when
    /// `with_offsets` (special tokens get `(0, 0)`); stops with
    /// `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_batch_flat(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        with_offsets: bool,
        cancel: &Cancel,
    ) -> Result<FlatBatch> {
        let post = if add_special_tokens {
            self.post_processor.as_ref()
        } else {
            None
        };
        let keep = match truncation {
            Some(t) => {
                let n_added = post.map_or(0, |p| p.added_tokens(false));
                if t.max_length < n_added {
                    return Err(Error::Value(format!(
                        "max_length {} is smaller than the {n_added} special tokens added",
                        t.max_length
                    )));
                }
                t.max_length - n_added
            }
            None => usize::MAX,
        };
        texts.iter().try_for_each(|t| check_length(t.len()))?;
        let total: usize = texts.iter().map(|t| t.len()).sum();
        // One thread: one part, whose buffers become the result (no join copy).
        let chunk_bytes = match rayon::current_num_threads() {
            1 => usize::MAX,
            threads => (total / (threads * 16)).clamp(1 << 16, 8 << 20),
        };
        let mut bounds = vec![0usize];
        let mut acc = 0usize;
        for (i, t) in texts.iter().enumerate() {
            acc += t.len() + 16;
            if acc >= chunk_bytes {
                bounds.push(i + 1);
                acc = 0;
            }
        }
        if *bounds.last().unwrap_or(&0) != texts.len() {
            bounds.push(texts.len());
        }
        // Several parts are copied into one result (and freed); a single one
        // becomes it.
        let joined = bounds.len() > 2;
        let parts: Vec<(SeqOut, Vec<usize>)> = bounds
            .par_windows(2)
            .map(|b| {
                let mut out = SeqOut::new(with_offsets);
                // Room for the usual token count (about one per 3-4 bytes of
                // text) up front: growing by copying would move it all again.
                let bytes: usize = texts[b[0]..b[1]].iter().map(|t| t.len()).sum();
                let expected = bytes / 2 + 2 * (b[1] - b[0]) + 64;
                crate::memory::reserve_output(&mut out.ids, expected, joined);
                if with_offsets {
                    crate::memory::reserve_output(&mut out.offsets, 2 * expected, joined);
                }
                let mut rows = Vec::with_capacity(b[1] - b[0]);
                let part = &texts[b[0]..b[1]];
                for (k, text) in part.iter().enumerate() {
                    cancel.check()?;
                    if let Some(p) = post {
                        out.push(p.cls.1, (0, 0));
                    }
                    let start = out.ids.len();
                    self.encode_sequence_before(text, part.get(k + 1).copied(), &mut out);
                    if out.ids.len() - start > keep {
                        out.ids.truncate(start + keep);
                        if with_offsets {
                            out.offsets.truncate(2 * (start + keep));
                        }
                    }
                    if let Some(p) = post {
                        out.push(p.sep.1, (0, 0));
                    }
                    rows.push(out.ids.len());
                }
                Ok((out, rows))
            })
            .collect::<Result<_>>()?;
        if parts.len() == 1 {
            let (out, part_rows) = parts.into_iter().next().unwrap_or_default();
            let mut rows = Vec::with_capacity(texts.len() + 1);
            rows.push(0);
            rows.extend(part_rows);
            return Ok(FlatBatch {
                ids: out.ids,
                offsets: out.offsets,
                rows,
            });
        }
        // Join the parts, each copied into its own slice of the output and
        // dropped right after.
        let mut rows = Vec::with_capacity(texts.len() + 1);
        rows.push(0);
        let mut base = 0;
        let (mut id_parts, mut offset_parts) = (Vec::new(), Vec::new());
        for (out, part_rows) in parts {
            rows.extend(part_rows.iter().map(|r| r + base));
            base += out.ids.len();
            id_parts.push(out.ids);
            offset_parts.push(out.offsets);
        }
        let ids = crate::memory::concat_parts(id_parts);
        let offsets = crate::memory::concat_parts(offset_parts);
        Ok(FlatBatch { ids, offsets, rows })
    }
}

/// A batch as flat arrays: row i is `ids[rows[i]..rows[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatBatch {
    pub ids: Vec<u32>,
    /// Char offsets per token, flattened (`[s0, e0, s1, e1, ...]`); empty
    /// unless asked for.
    pub offsets: Vec<u32>,
    pub rows: Vec<usize>,
}

/// Pads encodings (to the longest, or to a fixed length). The length comes
/// from the caller, so the memory it takes is checked before any is
/// allocated: padding to 2^40 is an error, not an abort.
pub fn pad_batch(encodings: &mut [Encoding], padding: Option<&Padding>) -> Result<()> {
    let Some(p) = padding else { return Ok(()) };
    let mut target = match p.length {
        PadLength::Longest => encodings.iter().map(Encoding::len).max().unwrap_or(0),
        PadLength::Fixed(n) => n,
    };
    if let Some(m) = p.pad_to_multiple_of.filter(|&m| m > 0) {
        target = target.div_ceil(m).checked_mul(m).ok_or_else(|| {
            Error::Memory(format!(
                "padding {target} tokens to a multiple of {m} overflows"
            ))
        })?;
    }
    let added = encodings
        .iter()
        .map(|e| target.saturating_sub(e.len()))
        .fold(0usize, usize::saturating_add);
    crate::memory::check_fits(
        added.saturating_mul(Encoding::BYTES_PER_TOKEN),
        &format!("padding to {target} tokens"),
    )?;
    for e in encodings.iter_mut() {
        e.pad_to(target, p)?;
    }
    Ok(())
}

impl Tokenizer {
    /// The token string of `id`, if any.
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.vocab.token(id)
    }

    /// The id of `token`, if any.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.vocab.id(token)
    }

    /// Text of `ids`; unknown ids are skipped, as HF does.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        let tokens = ids
            .iter()
            .filter(|id| !(skip_special_tokens && self.is_special_id(**id)))
            .filter_map(|&id| self.vocab.token(id));
        self.decoder.decode(tokens)
    }
}

/// HF truncation semantics (stride 0, from the right).
fn truncate(
    a: &mut Encoding,
    b: Option<&mut Encoding>,
    max_length: usize,
    strategy: TruncationStrategy,
) -> Result<()> {
    if max_length == 0 {
        a.truncate(0);
        if let Some(b) = b {
            b.truncate(0);
        }
        return Ok(());
    }
    let total = a.len() + b.as_ref().map_or(0, |b| b.len());
    if total <= max_length {
        return Ok(());
    }
    let to_remove = total - max_length;
    match (strategy, b) {
        (TruncationStrategy::LongestFirst, Some(b)) => {
            let (mut n1, mut n2) = (a.len(), b.len());
            let swap = n1 > n2;
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            n2 = if n1 > max_length {
                n1
            } else {
                n2.min(max_length - n1).max(n1)
            };
            if n1 + n2 > max_length {
                n1 = max_length / 2;
                n2 = n1 + max_length % 2;
            }
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            a.truncate(n1);
            b.truncate(n2);
        }
        (TruncationStrategy::LongestFirst, None) => a.truncate(max_length),
        (TruncationStrategy::OnlySecond, None) => {
            return Err(Error::Value("truncation 'only_second' needs a pair".into()))
        }
        (strategy, b) => {
            let target = match (strategy, b) {
                (TruncationStrategy::OnlySecond, Some(b)) => b,
                _ => a,
            };
            if target.len() <= to_remove {
                return Err(Error::Value(
                    "the sequence to truncate is too short for max_length".into(),
                ));
            }
            let keep = target.len() - to_remove;
            target.truncate(keep);
        }
    }
    Ok(())
}

impl Tokenizer {
    /// The same vocab, added tokens and post-processing with other model,
    /// normalizer and pre-tokenizer settings (the decoder follows the prefix).
    pub fn with_settings(
        &self,
        model_config: WordPieceConfig,
        normalizer: Option<NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
    ) -> Result<Self> {
        let decoder = Decoder {
            prefix: model_config.continuing_subword_prefix.clone(),
            cleanup: self.decoder.cleanup,
            suffix: model_config.end_of_word_suffix.clone(),
        };
        let mut tok = Self::new(
            self.vocab.clone(),
            model_config,
            normalizer,
            pre_tokenizer,
            self.added_tokens.clone(),
            self.post_processor.clone(),
            decoder,
        )?;
        tok.truncation = self.truncation.clone();
        tok.padding = self.padding.clone();
        Ok(tok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_of_4_gib_or_more_are_refused() {
        assert!(check_length(u32::MAX as usize).is_ok());
        let err = check_length(u32::MAX as usize + 1).unwrap_err();
        assert!(matches!(err, Error::Value(m) if m.contains("under 4 GiB")));
    }

    #[test]
    fn separators_found_a_word_at_a_time() {
        for text in [
            "abc def",
            "abcdefgh ij",
            "a\u{1}b c",
            "é\td",
            "abcdefghijklmnop",
            "",
        ] {
            let b = text.as_bytes();
            let expected = b.iter().position(|&c| is_chunk_separator(c));
            assert_eq!(
                next_chunk_separator(b, 0),
                expected.unwrap_or(b.len()),
                "{text:?}"
            );
        }
        let x = u64::from_le_bytes(*b"ab\x01cd ef");
        assert_eq!(
            first_separator_in_word(x),
            2,
            "control bytes are flagged too"
        );
        assert_eq!(first_separator_in_word(u64::from_le_bytes(*b"abcdefgh")), 8);
    }
}
