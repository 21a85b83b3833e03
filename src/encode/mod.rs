//! The encoding engine: one sequence of text to ids (and char offsets), fast.
//!
//! The layers, top to bottom; each calls only the one below it:
//!
//! | file         | handles                                                      |
//! |--------------|--------------------------------------------------------------|
//! | `batch.rs`   | many texts: split into parts by bytes, claimed in order by the threads, appended in order |
//! | `general.rs` | added tokens, then the splitter (normalize, pre-tokenize), and WordPiece per word (through the word cache) |
//! | `ascii.rs`   | an ASCII segment in one pass over its bytes, when it can     |
//! | `scan.rs`    | byte-scanning helpers eight bytes at a time                  |
//!
//! Why it is fast, on text it has never seen. ASCII text takes one pass
//! over its bytes with a 256-entry table (normalize and split at once); its
//! words are found a batch ahead of emitting them and their slots in the
//! word cache prefetched, so memory latency overlaps work. Each thread's
//! word cache starts as a copy of one built with the encoder: every token
//! of the vocabulary as a word, with the pieces WordPiece gives it. So a
//! word of the vocabulary (most words of real text) is one lookup whether
//! or not the process has seen it, and only words split into pieces go to
//! the trie (then are cached, until the fixed-size table is half full). No
//! cache of raw text: speed does not depend on having seen the text
//! (`benches/bench_cold.py`). Caches are per thread: no locks.
//!
//! The contract that keeps it exact: every fast path either declines before
//! its output is visible (`ascii` rolls back what it wrote and says so), or
//! writes exactly what the general path writes. [`FastPaths`] switches each
//! one off, and `tests/fast_paths.rs` checks every combination against the
//! general path on random, adversarial and real text.

mod ascii;
mod batch;
mod general;
mod scan;

pub use batch::{FlatBatch, Rows};

use std::sync::Arc;

use crate::added_tokens::{AddedVocabulary, AsciiOccurrences};
use crate::cache;
use crate::cancel::Cancel;
use crate::cut::Cut;
use crate::error::{Error, Result};
use crate::model::{Piece, UnknownPolicy, Vocab, WordPiece, MISSING_UNK};
use crate::splitter::{Cuts, SplitBuffers, Splitter, PIECE_BYTES};
use crate::unicode::{is_bert_punctuation, is_chinese_char};
use ascii::AsciiTable;

/// Which fast paths encoding may take. All on by default; switching them off
/// gives the general path, which the fast ones must match exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastPaths {
    /// ASCII segments normalized and split in one pass over bytes.
    pub ascii: bool,
    /// Normalized words cached as pieces in front of the trie.
    pub word_cache: bool,
    /// Word ids read off the ids (see [`words_from_ids`]) instead of
    /// recorded where each layer finds its words.
    pub words_from_ids: bool,
    /// Texts longer than this many bytes are encoded in pieces of about
    /// that size, cut where the pipeline splits anyway (`usize::MAX`: whole).
    pub pieces: usize,
    /// A batch shared by threads is cut into parts of at most this many
    /// bytes of text (fewer when the batch is small), appended in order
    /// (`usize::MAX`: one part). At one thread a batch is one part unless
    /// this is below the default (for tests).
    pub parts: usize,
}

impl FastPaths {
    pub const ALL: Self = Self {
        ascii: true,
        word_cache: true,
        words_from_ids: true,
        pieces: PIECE_BYTES,
        parts: batch::PART_BYTES,
    };
    pub const NONE: Self = Self {
        ascii: false,
        word_cache: false,
        words_from_ids: false,
        pieces: usize::MAX,
        parts: usize::MAX,
    };
}

impl Default for FastPaths {
    fn default() -> Self {
        Self::ALL
    }
}

/// The first stages of the pipeline (added tokens, the splitter's
/// normalization and pre-tokenization, WordPiece) and what the fast paths
/// derive from them, once.
#[derive(Clone, Debug)]
pub struct Encoder {
    pub model: WordPiece,
    /// Text to words: the general layer calls it, the fast paths ask it
    /// whether they hold.
    pub splitter: Splitter,
    pub added: AddedVocabulary,
    paths: FastPaths,
    /// ASCII handling of segments between raw-text added tokens: bytes that
    /// normalize to the start of a normalized one decline.
    ascii: AsciiTable,
    /// The same for whole texts: bytes that may start any added token decline.
    ascii_text: AsciiTable,
    /// ASCII fast path on: asked for, and no end-of-word suffix (the general
    /// path appends it to each word).
    use_ascii: bool,
    /// Set when the ASCII fast path is on and words never reach across
    /// ASCII whitespace (`scan::is_ascii_whitespace`): normalization keeps
    /// it whitespace, the pre-tokenizer splits there, no added token holds
    /// it or strips it. Then a text's stretches between ASCII whitespace
    /// encode independently, and only those holding a byte the ASCII pass
    /// declines or an added token go to the general layer.
    resume: Option<Resume>,
    /// Where a long text is cut into pieces encoded one after the other.
    cuts: Cuts,
    /// Added tokens' matches may show strings other than their content.
    shows_other_strings: bool,
    /// Each thread's word cache starts as this: the vocabulary's tokens as
    /// words. It also names this encoder's caches in each thread.
    word_seed: Arc<cache::WordCache>,
    /// Whether each token id starts a word, when that alone tells words
    /// apart (see [`words_from_ids`]); added tokens' ids included.
    word_starts: Option<Arc<[bool]>>,
}

/// How the stretches of a text between ASCII whitespace are told apart
/// (see `Encoder::resume`).
#[derive(Clone, Debug)]
struct Resume {
    /// The ASCII table of stretches without added tokens.
    table: AsciiTable,
    /// Where added tokens may occur; None: the table declines every byte
    /// one may start with instead.
    added: Option<AsciiOccurrences>,
}

/// The word of each token of one sequence, from which ids start a word.
pub fn words_of<'a>(ids: &'a [u32], starts: &'a [bool]) -> impl Iterator<Item = u32> + 'a {
    ids.iter().scan(u32::MAX, |word, &id| {
        *word = word.wrapping_add(starts[id as usize] as u32);
        Some(*word)
    })
}

/// Whether each id starts a word, when that tells words apart: no word can
/// begin with the continuing prefix (BERT's pre-tokenizer isolates the
/// prefix's first char, a punctuation char, so a word starting with it is
/// that one char, shorter than the prefix), no end-of-word suffix is
/// appended to words, and neither the unknown token nor an added token
/// starts with it. Then a token starts a word exactly when
/// its string does not start with the prefix.
fn words_from_ids(
    strings: &[&str],
    model: &WordPiece,
    splitter: &Splitter,
    added: &AddedVocabulary,
) -> Option<Vec<bool>> {
    let cfg = &model.config;
    let prefix = cfg.continuing_subword_prefix.as_str();
    let mut chars = prefix.chars();
    let isolated = chars.next().is_some_and(is_bert_punctuation) && chars.next().is_some();
    let ok = splitter.isolates_bert_punctuation()
        && isolated
        && cfg.unknown == UnknownPolicy::Word
        && cfg.end_of_word_suffix.is_empty()
        && !cfg.unk_token.starts_with(prefix)
        && added.iter().all(|(_, t)| !t.content.starts_with(prefix));
    ok.then(|| strings.iter().map(|t| !t.starts_with(prefix)).collect())
}

/// Where the splitter lets a long text be cut, less what added tokens
/// forbid: a cut inside a match, whitespace a match strips, or a word
/// `single_word` looks at on the other side of a cut before an ideograph.
pub(crate) fn piece_cuts(splitter: &Splitter, added: &AddedVocabulary) -> Cuts {
    let mut cuts = splitter.cuts();
    if added.strips() || added.patterns().any(|p| p.chars().any(char::is_whitespace)) {
        return Cuts::NONE;
    }
    if added.iter().any(|(_, t)| t.single_word)
        || added.patterns().any(|p| p.chars().any(is_chinese_char))
    {
        cuts.before_cjk = false;
    }
    cuts
}

/// Every id's string: the vocab's, then added tokens' past it.
pub(crate) fn id_strings<'a>(vocab: &'a Vocab, added: &'a AddedVocabulary) -> Vec<&'a str> {
    let mut strings: Vec<&str> = vocab.tokens().iter().map(String::as_str).collect();
    for (id, t) in added.iter() {
        let id = id as usize;
        if id >= strings.len() {
            // Ids past the vocab are dense (the vocabulary assigns them so).
            strings.resize(id + 1, "");
            strings[id] = &t.content;
        }
    }
    strings
}

impl Encoder {
    pub fn new(
        vocab: &Vocab,
        model: WordPiece,
        splitter: Splitter,
        added: AddedVocabulary,
        paths: FastPaths,
    ) -> Self {
        let plain = AsciiTable::new(&splitter, &model);
        let normalized_start = |b: u8| added.normalized_may_start_with(plain.normalized(b));
        let ascii = plain.declining(normalized_start);
        let ascii_text = plain.declining(|b| added.raw_may_start_with(b) || normalized_start(b));
        let cuts = piece_cuts(&splitter, &added);
        let use_ascii = paths.ascii
            && model.config.end_of_word_suffix.is_empty()
            && splitter.ascii_classes().is_some();
        let resumes = use_ascii
            && splitter.splits_at_ascii_whitespace()
            && !added.strips()
            && !added
                .patterns()
                .any(|p| p.bytes().any(scan::is_ascii_whitespace));
        let resume = resumes.then(|| match added.ascii_occurrences(plain.lowercase()) {
            Some(occurrences) => Resume {
                table: plain.declining(|b| occurrences.may_miss(b, plain.normalized(b))),
                added: Some(occurrences),
            },
            // The patterns cannot be indexed: decline each byte one starts with.
            None => Resume {
                table: ascii_text.clone(),
                added: None,
            },
        });
        let strings = id_strings(vocab, &added);
        let word_starts = match paths.words_from_ids {
            false => None,
            true => words_from_ids(&strings, &model, &splitter, &added).map(Arc::from),
        };
        let word_seed = Arc::new(cache::WordCache::seeded(
            vocab.tokens().iter().map(|t| t.as_bytes()),
            |w, out| model.encode_word(w, out),
        ));
        Self {
            use_ascii,
            resume,
            cuts,
            shows_other_strings: added.may_show_other_strings(),
            word_starts,
            splitter,
            model,
            added,
            paths,
            ascii,
            ascii_text,
            word_seed,
        }
    }

    pub fn fast_paths(&self) -> FastPaths {
        self.paths
    }

    /// Whether added tokens' matches may show strings other than their
    /// content (computed once, with the tables).
    pub fn shows_other_strings(&self) -> bool {
        self.shows_other_strings
    }

    /// Appends the ids (and, if asked, offsets and words) of one sequence to
    /// `out`; stops with `Error::Interrupted` soon after `cancel` is raised.
    pub fn encode_into(&self, text: &str, out: &mut Output, cancel: &Cancel) -> Result<()> {
        self.encode_reusing(text, out, &mut WordScratch::default(), cancel)
    }

    /// [`Encoder::encode_into`] with the buffers of the text before. A long
    /// text is encoded in pieces that encode as the whole does (see `Cuts`),
    /// so its buffers stay the size of a piece and `cancel` is looked at
    /// between them.
    fn encode_reusing(
        &self,
        text: &str,
        out: &mut Output,
        scratch: &mut WordScratch,
        cancel: &Cancel,
    ) -> Result<()> {
        let start = out.ids.len();
        // Words come off the ids when each word's first token says so;
        // otherwise each layer records where its words start.
        out.recording_words = out.with_words && self.word_starts.is_none();
        let piece_bytes = self.paths.pieces;
        if text.len() <= piece_bytes || !self.cuts.any() {
            self.encode_bounded(text, out, scratch);
        } else {
            let mut first_char = 0u32;
            for (_, piece) in self.cuts.pieces(text, piece_bytes) {
                cancel.check()?;
                let from = out.offsets.len();
                self.encode_bounded(piece, out, scratch);
                if out.with_offsets && first_char > 0 {
                    out.offsets[from..]
                        .iter_mut()
                        .for_each(|o| *o += first_char);
                }
                first_char += scan::count_utf8_chars(piece.as_bytes());
            }
        }
        if let Some(id) = out.unsplittable.take() {
            return Err(self.added.unsplittable(id));
        }
        if !self.model.has_unk() && out.ids[start..].contains(&MISSING_UNK) {
            return Err(Error::Value(format!(
                "the text needs the unknown token {:?}, which is not in the vocabulary",
                self.model.config.unk_token
            )));
        }
        if out.with_words {
            self.finish_words(out, start);
        }
        Ok(())
    }

    /// Encodes a short text, or one piece of a long one, from char 0.
    fn encode_bounded(&self, text: &str, out: &mut Output, scratch: &mut WordScratch) {
        cache::with_cache(&self.word_seed, |caches| {
            self.encode_text(text, 0, out, scratch, caches);
        });
    }

    /// Whether each id starts a word, when words can be read off the ids.
    pub fn word_starts(&self) -> Option<&Arc<[bool]>> {
        self.word_starts.as_ref()
    }

    /// Writes the word of each token of the sequence `ids[start..]`.
    fn finish_words(&self, out: &mut Output, start: usize) {
        let n = out.ids.len();
        out.words.reserve(n - start);
        match &self.word_starts {
            Some(starts) => out.words.extend(words_of(&out.ids[start..], starts)),
            None => {
                let mut next = out.word_starts.iter().peekable();
                let mut word = u32::MAX;
                for t in start..n {
                    while next.next_if(|&&s| s <= t).is_some() {
                        word = word.wrapping_add(1);
                    }
                    out.words.push(word);
                }
                out.word_starts.clear();
            }
        }
    }
}

/// The ids of one sequence (or of many, appended), and their char offsets
/// and word ids when asked for.
#[derive(Debug, Default)]
pub struct Output {
    pub ids: Vec<u32>,
    /// Start and end of each token, flattened: `[s0, e0, s1, e1, ...]`.
    pub offsets: Vec<u32>,
    pub with_offsets: bool,
    /// The word of each token within its sequence, when asked for.
    pub words: Vec<u32>,
    pub with_words: bool,
    /// Where each word of the sequence being encoded starts (token index),
    /// recorded by the ASCII and general layers when words cannot be read
    /// off the ids.
    word_starts: Vec<usize>,
    recording_words: bool,
    /// Tokens showing another string than their id's (added tokens' matches),
    /// by token index, when asked for (`Encoding` objects).
    pub surfaces: Vec<(usize, Box<str>)>,
    pub with_surfaces: bool,
    /// The added token whose match made the text unsplittable (see
    /// `Split::Unsplittable`): the sequence fails once encoded.
    unsplittable: Option<u32>,
}

impl Output {
    pub fn new(with_offsets: bool) -> Self {
        Self {
            with_offsets,
            ..Default::default()
        }
    }

    /// An output that also gives each token's word.
    pub fn with_words(with_offsets: bool) -> Self {
        Self {
            with_offsets,
            with_words: true,
            ..Default::default()
        }
    }

    /// The text cannot be split into added tokens as HF splits it, at a
    /// match of `token` (the first such match is the one named).
    fn unsplittable(&mut self, token: u32) {
        self.unsplittable.get_or_insert(token);
    }

    /// A word starts at the next token (recorded when asked for).
    #[inline]
    fn begin_word(&mut self) {
        if self.recording_words {
            self.word_starts.push(self.ids.len());
        }
    }

    /// Cuts the sequence `ids[start..]` to the part `cut` keeps.
    pub(crate) fn cut_sequence(&mut self, start: usize, cut: Cut) {
        let kept = cut.kept(self.ids.len() - start);
        let (end, drop) = (start + kept.end, start..start + kept.start);
        self.ids.truncate(end);
        self.ids.drain(drop.clone());
        if self.with_offsets {
            self.offsets.truncate(2 * end);
            self.offsets.drain(2 * drop.start..2 * drop.end);
        }
        if self.with_words {
            self.words.truncate(end);
            self.words.drain(drop);
        }
    }

    /// The token just pushed shows `surface` (recorded when asked for and
    /// not the id's own string).
    #[inline]
    fn show(&mut self, surface: &str, own: &str) {
        if self.with_surfaces && surface != own {
            self.surfaces.push((self.ids.len() - 1, surface.into()));
        }
    }

    /// A token outside every word (a framing special token).
    pub(crate) fn push_special(&mut self, id: u32) {
        self.push(id, (0, 0));
        if self.with_words {
            self.words.push(u32::MAX);
        }
    }

    #[inline]
    pub fn push(&mut self, id: u32, offsets: (u32, u32)) {
        self.ids.push(id);
        if self.with_offsets {
            self.offsets.extend_from_slice(&[offsets.0, offsets.1]);
        }
    }

    /// Where the output ends now, for [`Output::roll_back`].
    fn mark(&self) -> (usize, usize, usize) {
        (self.ids.len(), self.offsets.len(), self.word_starts.len())
    }

    fn roll_back(&mut self, (ids, offsets, word_starts): (usize, usize, usize)) {
        self.ids.truncate(ids);
        self.offsets.truncate(offsets);
        self.word_starts.truncate(word_starts);
    }
}

/// Buffers the ASCII and general layers reuse from one text to the next
/// (one set per thread of a batch), so encoding allocates nothing once warm.
#[derive(Debug, Default)]
struct WordScratch {
    pieces: Vec<Piece>,
    /// A lowered long word, or a word with the end-of-word suffix.
    word: Vec<u8>,
    /// The splitter's normalized text and words.
    split: SplitBuffers,
    /// Words found ahead of emitting them (ASCII layer).
    spans: Vec<Span>,
    /// Words of normalized text found ahead of emitting them (general layer).
    ahead: Vec<Ahead>,
}

/// A word of normalized text found ahead of emitting it, with its word
/// cache key and hash when it has one.
#[derive(Clone, Copy, Debug)]
struct Ahead {
    span: crate::pre_tokenizers::WordSpan,
    hashed: Option<(cache::Key, u64)>,
}

/// A word (with `len` 0: one punctuation byte) found ahead of emitting it,
/// with its cache key and hash.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
    key: cache::Key,
    hash: u64,
}

/// Offsets are 32-bit: a text of 4 GiB or more is refused.
pub fn check_length(bytes: usize) -> Result<()> {
    if bytes > u32::MAX as usize {
        return Err(Error::Value(format!(
            "a text of {bytes} bytes is too long: texts must be under 4 GiB"
        )));
    }
    Ok(())
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
}
