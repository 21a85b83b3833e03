//! The tokenizer: the stages of encoding put together.
//!
//! text → added tokens → normalize → pre-tokenize → model (WordPiece) →
//! post-process → truncate → pad. Each stage is a module here or at the crate
//! root; how one sequence goes through the first four fast is `crate::encode`.

mod batch;
pub mod call_settings;
pub mod encoding;
pub mod padding;
pub mod post_process;
pub mod rows;
pub mod settings;
pub mod truncation;

pub use crate::added_tokens::{AddedToken, AddedVocabulary, BERT_SPECIAL_TOKENS};
pub use crate::cut::{Cut, PadDirection, Side, TruncationDirection};
pub use batch::{BatchEncodings, BatchPlan};
pub use call_settings::{CallSettings, PadRequest, PerCall};
pub use encoding::Encoding;
pub use padding::{columns, pad_batch, pad_flat, pad_target, Columns, PadLength, Padding};
pub use post_process::{Piece, PostProcessor, Roberta, SpecialTokens, Template};
pub use rows::{EncodingRows, RowLayout};
pub use settings::SettingsUpdate;
pub use truncation::{Truncation, TruncationStrategy};

use crate::cancel::Cancel;
use crate::decoder::Decoder;
use crate::encode::{check_length, Encoder, FastPaths, Output};
use crate::error::{Error, Result};
use crate::memory;
use crate::model::{Vocab, WordPiece, WordPieceConfig, MISSING_UNK};
use crate::normalizers::NormalizerConfig;
use crate::pre_tokenizers::PreTokenizer;
use crate::splitter::Splitter;

#[derive(Clone, Debug)]
pub struct Tokenizer {
    pub vocab: Vocab,
    /// Added tokens, splitter (normalizer, pre-tokenizer) and model: one
    /// sequence to ids.
    pub encoder: Encoder,
    pub post_processor: Option<PostProcessor>,
    pub decoder: Decoder,
    pub truncation: Option<Truncation>,
    pub padding: Option<Padding>,
}

/// One input sequence: a text, or a text already split into words (HF's
/// `is_pretokenized`), each word then normalized, pre-tokenized and
/// encoded on its own.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    Text(&'a str),
    Words(&'a [&'a str]),
}

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
        Self::with_splitter(
            vocab,
            model_config,
            Splitter::new(normalizer, pre_tokenizer),
            added_tokens,
            post_processor,
            decoder,
        )
    }

    /// [`Tokenizer::new`] with any splitter (a chain of normalizers and
    /// pre-tokenizers other than BERT's, from a tokenizer.json, included).
    /// Added tokens are added in order, taking their ids as HF gives them.
    pub fn with_splitter(
        vocab: Vocab,
        model_config: WordPieceConfig,
        splitter: Splitter,
        added_tokens: Vec<AddedToken>,
        post_processor: Option<PostProcessor>,
        decoder: Decoder,
    ) -> Result<Self> {
        // A vocabulary without its unknown token loads (as in HF); a text
        // that needs the token fails then (see `MISSING_UNK`).
        let unk_id = vocab.id(&model_config.unk_token).unwrap_or(MISSING_UNK);
        let mut added = AddedVocabulary::default();
        added.add(added_tokens, &vocab, |t| splitter.normalize_str(t))?;
        if let Some(p) = &post_processor {
            // A template may name a token otherwise than the vocab does (HF
            // shows the template's string there); one id, one name.
            let specials = p.special_ids();
            for &(name, id) in &specials {
                if vocab.token(id).is_none() && added.get(id).is_none() {
                    return Err(Error::Unsupported(format!(
                        "post-processor token {name:?} with id {id}, past the vocabulary \
                         and the added tokens"
                    )));
                }
                if let Some((other, _)) = specials.iter().find(|(n, i)| *i == id && *n != name) {
                    return Err(Error::Unsupported(format!(
                        "post-processor tokens {name:?} and {other:?} with the same id {id}"
                    )));
                }
            }
        }
        let mut post_processor = post_processor;
        if let Some(PostProcessor::Roberta(r)) = &mut post_processor {
            r.note_added(&added, &vocab);
        }
        let model = WordPiece::new(&vocab, model_config, unk_id)?;
        let encoder = Encoder::new(&vocab, model, splitter, added, FastPaths::ALL);
        Ok(Self {
            vocab,
            encoder,
            post_processor,
            decoder,
            truncation: None,
            padding: None,
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
        let mut names: Vec<&str> = vec![model_config.unk_token.as_str()];
        names.extend(special_tokens.iter().copied());
        let added = names
            .into_iter()
            .filter(|name| vocab.id(name).is_some())
            .map(|name| AddedToken::new(name, true))
            .collect();
        let post = match (vocab.id("[CLS]"), vocab.id("[SEP]")) {
            (Some(c), Some(s)) => Some(PostProcessor::Bert {
                cls: ("[CLS]".into(), c),
                sep: ("[SEP]".into(), s),
            }),
            _ => None,
        };
        let decoder = Decoder {
            prefix: model_config.continuing_subword_prefix.clone(),
            cleanup: true,
            suffix: model_config.end_of_word_suffix.clone(),
            ..Decoder::default()
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

    /// The same vocab, added tokens and post-processing with other model,
    /// normalizer and pre-tokenizer settings (the decoder follows the prefix;
    /// a chain of other normalizers and pre-tokenizers stays as it is).
    pub fn with_settings(
        &self,
        model_config: WordPieceConfig,
        normalizer: Option<NormalizerConfig>,
        pre_tokenizer: PreTokenizer,
    ) -> Result<Self> {
        let decoder = Decoder {
            prefix: model_config.continuing_subword_prefix.clone(),
            suffix: model_config.end_of_word_suffix.clone(),
            ..self.decoder.clone()
        };
        let mut tok = Self::with_splitter(
            self.vocab.clone(),
            model_config,
            self.splitter().with_settings(normalizer, pre_tokenizer),
            self.added_token_list(),
            self.post_processor.clone(),
            decoder,
        )?;
        tok.truncation = self.truncation.clone();
        tok.padding = self.padding.clone();
        tok.set_fast_paths(self.fast_paths());
        tok.set_encode_special_tokens(self.added_tokens().encode_special());
        Ok(tok)
    }

    /// The same pipeline (normalizers, pre-tokenizers, added tokens,
    /// post-processor, decoder, truncation, padding) over another vocab: what
    /// training through this tokenizer's pipeline gives. Added and special
    /// tokens keep their strings and take their ids in `vocab`; special ones
    /// must be there, others missing from it take ids after it.
    pub fn with_vocab(&self, vocab: Vocab) -> Result<Self> {
        let added = self.added_token_list();
        // Special tokens are the trainer's to place; other added tokens
        // missing from `vocab` take ids after it.
        if let Some(t) = added
            .iter()
            .find(|t| t.special && vocab.id(&t.content).is_none())
        {
            let name = &t.content;
            return Err(Error::Value(format!(
                "token {name:?} is not in the new vocabulary"
            )));
        }
        let mut new_added = AddedVocabulary::default();
        new_added.add(added.clone(), &vocab, |t| self.splitter().normalize_str(t))?;
        let id_of = |name: &str| {
            new_added
                .token_to_id(name)
                .or_else(|| vocab.id(name))
                .ok_or_else(|| Error::Value(format!("token {name:?} is not in the new vocabulary")))
        };
        let post_processor = match &self.post_processor {
            None => None,
            Some(PostProcessor::Bert { cls, sep }) => Some(PostProcessor::Bert {
                cls: (cls.0.clone(), id_of(&cls.0)?),
                sep: (sep.0.clone(), id_of(&sep.0)?),
            }),
            Some(PostProcessor::Roberta(r)) => Some(PostProcessor::Roberta(Roberta::new(
                (r.cls.0.clone(), id_of(&r.cls.0)?),
                (r.sep.0.clone(), id_of(&r.sep.0)?),
                r.trim_offsets,
                r.add_prefix_space,
                &vocab,
            ))),
            Some(PostProcessor::Template(t)) => {
                let mut t = t.clone();
                for s in &mut t.special_tokens {
                    s.ids = s.tokens.iter().map(|n| id_of(n)).collect::<Result<_>>()?;
                }
                Some(PostProcessor::Template(t))
            }
        };
        let pad_id = match &self.padding {
            Some(p) => Some(id_of(&p.pad_token)?),
            None => None,
        };
        let mut tok = Self::with_splitter(
            vocab,
            self.model().config.clone(),
            self.splitter().clone(),
            added,
            post_processor,
            self.decoder.clone(),
        )?;
        tok.truncation = self.truncation.clone();
        tok.padding = self.padding.clone().map(|mut p| {
            p.pad_id = pad_id.unwrap_or(p.pad_id);
            p
        });
        tok.set_encode_special_tokens(self.added_tokens().encode_special());
        Ok(tok)
    }

    /// Chooses the fast paths encoding may take (all by default); the output
    /// is the same whichever are on.
    pub fn set_fast_paths(&mut self, paths: FastPaths) {
        if paths != self.fast_paths() {
            let e = &self.encoder;
            self.encoder = Encoder::new(
                &self.vocab,
                e.model.clone(),
                e.splitter.clone(),
                e.added.clone(),
                paths,
            );
        }
    }

    pub fn fast_paths(&self) -> FastPaths {
        self.encoder.fast_paths()
    }

    pub fn model(&self) -> &WordPiece {
        &self.encoder.model
    }

    /// How text becomes words (normalization, pre-tokenization).
    pub fn splitter(&self) -> &Splitter {
        &self.encoder.splitter
    }

    /// BERT's normalizer, if the splitter normalizes with it alone.
    pub fn normalizer(&self) -> Option<&NormalizerConfig> {
        self.splitter().normalizer()
    }

    pub fn pre_tokenizer(&self) -> PreTokenizer {
        self.splitter().pre_tokenizer()
    }

    /// The added tokens with their ids, HF's added vocabulary.
    pub fn added_tokens(&self) -> &AddedVocabulary {
        &self.encoder.added
    }

    /// The added tokens in id order, as they are added again to rebuild.
    fn added_token_list(&self) -> Vec<AddedToken> {
        self.added_tokens().iter().map(|(_, t)| t.clone()).collect()
    }

    /// This tokenizer with `tokens` added (HF's `add_tokens`), and how many
    /// were added (not ignored as empty or already there with the same flags).
    pub fn with_added_tokens(&self, tokens: Vec<AddedToken>) -> Result<(Self, usize)> {
        let mut added = self.encoder.added.clone();
        let n = added.add(tokens, &self.vocab, |t| self.splitter().normalize_str(t))?;
        let mut post_processor = self.post_processor.clone();
        if let Some(PostProcessor::Roberta(r)) = &mut post_processor {
            r.note_added(&added, &self.vocab);
        }
        let e = &self.encoder;
        let (model, splitter) = (e.model.clone(), e.splitter.clone());
        let encoder = Encoder::new(&self.vocab, model, splitter, added, e.fast_paths());
        let tok = Self {
            encoder,
            post_processor,
            ..self.clone()
        };
        Ok((tok, n))
    }

    /// Encodes special tokens typed in a text as text (`on`) or matches
    /// them (HF's `encode_special_tokens`). Only the matches kept change:
    /// the encoder's tables, built from every added token, stay.
    pub fn set_encode_special_tokens(&mut self, on: bool) {
        self.encoder.added.set_encode_special(on);
    }

    /// Number of ids: the vocab's, and with `with_added` the added tokens
    /// outside it (HF's `get_vocab_size`).
    pub fn vocab_size(&self, with_added: bool) -> usize {
        let outside = self
            .added_tokens()
            .iter()
            .filter(|(_, t)| self.vocab.id(&t.content).is_none())
            .count();
        self.vocab.len() + if with_added { outside } else { 0 }
    }

    pub fn is_special_id(&self, id: u32) -> bool {
        self.encoder.added.is_special_id(id)
    }

    /// The post-processor, if special tokens are to be added.
    pub(crate) fn post_processor_if(&self, add_special_tokens: bool) -> Option<&PostProcessor> {
        self.post_processor.as_ref().filter(|_| add_special_tokens)
    }

    /// Encodes one sequence without post-processing; offsets start at 0
    /// (for words given apart, at 0 in each word, as HF gives them).
    pub fn encode_sequence(&self, text: &str, type_id: u32, cancel: &Cancel) -> Result<Encoding> {
        self.encode_input(Input::Text(text), type_id, cancel)
    }

    /// [`Tokenizer::encode_sequence`] for either kind of input.
    pub fn encode_input(
        &self,
        input: Input<'_>,
        type_id: u32,
        cancel: &Cancel,
    ) -> Result<Encoding> {
        let mut out = Output::with_words(true);
        out.with_surfaces = true;
        match input {
            Input::Text(text) => self.encode_sequence_text(text, &mut out, cancel)?,
            Input::Words(words) => {
                // Each word encoded on its own, all its tokens that word.
                for (i, word) in words.iter().enumerate() {
                    if i % 1024 == 0 {
                        cancel.check()?;
                    }
                    let from = out.ids.len();
                    self.encode_sequence_text(word, &mut out, cancel)?;
                    let i = u32::try_from(i)
                        .map_err(|_| Error::Value("more than 2^32 words in one input".into()))?;
                    out.words[from..].fill(i);
                }
            }
        }
        Ok(Encoding::from_sequence(out, type_id))
    }

    fn encode_sequence_text(&self, text: &str, out: &mut Output, cancel: &Cancel) -> Result<()> {
        check_length(text.len())?;
        self.encoder.encode_into(text, out, cancel)
    }

    /// Encodes `text` (and `pair`), adding special tokens and truncating as configured.
    /// Padding is not applied here (see [`pad_batch`]).
    pub fn encode(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> Result<Encoding> {
        let truncation = self.truncation.as_ref();
        self.encode_with(text, pair, add_special_tokens, truncation, Cancel::never())
    }

    /// [`Tokenizer::encode`] with an explicit truncation setting.
    pub fn encode_with(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        cancel: &Cancel,
    ) -> Result<Encoding> {
        let pair = pair.map(Input::Text);
        self.encode_inputs(
            Input::Text(text),
            pair,
            add_special_tokens,
            truncation,
            cancel,
        )
    }

    /// [`Tokenizer::encode_with`] for either kind of input (HF's
    /// `is_pretokenized`: words given apart).
    pub fn encode_inputs(
        &self,
        input: Input<'_>,
        pair: Option<Input<'_>>,
        add_special_tokens: bool,
        truncation: Option<&Truncation>,
        cancel: &Cancel,
    ) -> Result<Encoding> {
        let mut a = self.encode_input(input, 0, cancel)?;
        let mut b = match pair {
            Some(p) => Some(self.encode_input(p, 1, cancel)?),
            None => None,
        };
        if let Some(t) = truncation {
            let n_added = self.n_added(add_special_tokens, b.is_some());
            t.apply(&mut a, b.as_mut(), n_added)?;
            self.check_combined_parts(&a, b.as_ref(), n_added)?;
        }
        Ok(match &self.post_processor {
            Some(p) => p.process(a, b, add_special_tokens),
            None => post_process::no_post_processor(a, b),
        })
    }

    /// Refuses, before they are built, combinations of overflowing parts that
    /// memory cannot hold: merging a pair (or a template naming a sequence
    /// more than once) combines every part of one with every part of the
    /// other, as HF does, so the count grows as their product.
    fn check_combined_parts(
        &self,
        a: &Encoding,
        b: Option<&Encoding>,
        n_added: usize,
    ) -> Result<()> {
        let parts = |e: &Encoding| e.overflowing.len() as u128 + 1;
        let pieces: Vec<bool> = match &self.post_processor {
            Some(PostProcessor::Template(t)) => {
                let list = if b.is_some() { &t.pair } else { &t.single };
                list.iter()
                    .filter_map(|p| match p {
                        Piece::Sequence { second, .. } => Some(*second),
                        Piece::Special { .. } => None,
                    })
                    .collect()
            }
            _ => std::iter::once(false).chain(b.map(|_| true)).collect(),
        };
        if pieces.len() < 2 {
            return Ok(());
        }
        let (mut count, mut tokens) = (1u128, n_added as u128);
        for second in pieces {
            let e = if second { b.unwrap_or(a) } else { a };
            // Nested parts (HF keeps the pair's own parts inside each
            // combination) at most double the count.
            count = count.saturating_mul(parts(e)).saturating_mul(2);
            tokens += e.len() as u128;
        }
        // Each combination: its columns, the struct and its six allocations,
        // twice over (merging copies the parts it combines).
        let each = tokens.saturating_mul(Encoding::BYTES_PER_TOKEN as u128) + 512;
        let bytes = count.saturating_mul(each).saturating_mul(2);
        memory::check_fits(
            usize::try_from(bytes).unwrap_or(usize::MAX),
            &format!("{count} combinations of overflowing parts"),
        )
    }

    /// Special tokens post-processing adds (none unless asked for).
    pub(crate) fn n_added(&self, add_special_tokens: bool, is_pair: bool) -> usize {
        self.post_processor_if(add_special_tokens)
            .map_or(0, |p| p.added_tokens(is_pair))
    }

    /// The token string of `id`, if any: an added token's (its normalized
    /// form, if it has one), else the vocab's, as HF looks it up.
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.added_tokens()
            .id_to_token(id)
            .or_else(|| self.vocab.token(id))
    }

    /// The string a token shows where post-processing put it (`special`):
    /// the post-processor's name for its id, which may differ from the
    /// vocab's (HF shows the template's string there); else the vocab's.
    pub fn special_token_string(&self, id: u32, special: bool) -> Option<&str> {
        let named = self
            .post_processor
            .as_ref()
            .filter(|_| special)
            .and_then(|p| p.special_ids().into_iter().find(|&(_, i)| i == id));
        match named {
            Some((name, _)) => Some(name),
            None => self.token_string(id),
        }
    }

    /// The string an encoding shows for `id` where the model or an added
    /// token's plain match put it: the vocab's, else the added token's
    /// content (a match showing more records it, see `Encoding::surfaces`).
    pub fn token_string(&self, id: u32) -> Option<&str> {
        let added = || self.added_tokens().get(id).map(|t| t.content.as_str());
        self.vocab.token(id).or_else(added)
    }

    /// The id of `token`, if any: an added token's, else the vocab's.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.added_tokens()
            .token_to_id(token)
            .or_else(|| self.vocab.id(token))
    }

    /// Text of `ids`; unknown ids are skipped, as HF does. HF skips a
    /// special token by the string an id decodes as.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        let added = self.added_tokens();
        let tokens = ids
            .iter()
            .filter_map(|&id| self.id_to_token(id))
            .filter(|t| !(skip_special_tokens && added.is_special_token(t)));
        self.decoder.decode(tokens)
    }
}
