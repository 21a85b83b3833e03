//! `WordCounter`: word counts of a corpus, how a tokenizer encodes them, and
//! training a vocabulary from them.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use super::arrow::ArrowChunk;
use super::errors::guard;
use super::merge_rows::PyMergeRows;
use super::run::{commit_staged, run, run_in_place, watched_list, Run};
use super::specs::BertOptions;
use super::text::{text_bytes, TextList};
use super::tokenizer::PyTokenizer;
use crate::cancel::Cancel;
use crate::encode::id_strings;
use crate::error::Error;
use crate::io;
use crate::model::Vocab;
use crate::normalizers::NormalizerConfig;
use crate::parallel;
use crate::pipeline::Tokenizer;
use crate::quality;
use crate::splitter::Splitter;
use crate::train::counting_options::CountingOptions;
use crate::train::counts::WordCounts;
use crate::train::counts_file;
use crate::train::{self, fit, InitialVocab, TrainerConfig, WordSplitting};

/// Counts words of a corpus with the encoder's normalizer and pre-tokenizer.
#[pyclass(module = "wpiece._core", name = "WordCounter")]
pub struct PyWordCounter {
    splitting: WordSplitting,
    counts: WordCounts,
    num_threads: Option<usize>,
}

/// `quality::TextStats` as a dict of these keys.
#[derive(IntoPyObject)]
struct StatsRow {
    #[pyo3(item)]
    words: u64,
    #[pyo3(item)]
    tokens: u64,
    #[pyo3(item)]
    chars: u64,
    #[pyo3(item)]
    whole_words: u64,
    #[pyo3(item)]
    unknown_words: u64,
}

/// A training run's result as a dict of these keys (`train::TrainOutput`).
#[derive(IntoPyObject)]
struct TrainRow {
    #[pyo3(item)]
    merges: PyMergeRows,
    #[pyo3(item)]
    base_vocab_size: usize,
    #[pyo3(item)]
    initial_tokens: u64,
    #[pyo3(item)]
    total_words: u64,
    /// Tokens fitting removed, each with its cost then (empty unless fit).
    #[pyo3(item)]
    removed: Vec<(String, i64)>,
    /// The training words' tokens, encoded by longest match with the fitted
    /// vocabulary (0 unless fit).
    #[pyo3(item)]
    fitted_tokens: u64,
}

impl PyWordCounter {
    /// Counts split otherwise cannot be merged.
    fn check_splits_as(&self, other: &PyWordCounter) -> PyResult<()> {
        let why = self
            .splitting
            .difference(&other.splitting, "these", "the other's");
        if let Some(why) = why {
            let message = format!("cannot merge word counts split otherwise: {why}");
            return Err(Error::Value(message).into());
        }
        Ok(())
    }

    /// Counts the words of `texts` (the GIL released, Ctrl-C watched) and
    /// adds them; on an error nothing is added.
    fn count(&mut self, py: Python<'_>, texts: &[&str]) -> PyResult<()> {
        let (splitting, threads) = (&self.splitting, self.num_threads);
        let how = Run::parallel(text_bytes(texts), threads);
        let part = run(py, how, |cancel| {
            let mut part = WordCounts::default();
            splitting.count_docs_into(texts, &mut part, cancel)?;
            Ok(part)
        })?;
        guard(|| self.counts.add_counted(part))
    }
}

#[pymethods]
impl PyWordCounter {
    #[new]
    #[pyo3(signature = (*, normalize=true, lowercase=true, strip_accents=None, clean_text=true,
        handle_chinese_chars=true, pre_tokenizer=Cow::Borrowed("bert"), num_threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        normalize: bool,
        lowercase: bool,
        strip_accents: Option<bool>,
        clean_text: bool,
        handle_chinese_chars: bool,
        pre_tokenizer: Cow<'_, str>,
        num_threads: Option<usize>,
    ) -> PyResult<Self> {
        parallel::check_threads(num_threads)?;
        Ok(Self {
            splitting: WordSplitting::Options(Splitter::new(
                normalize.then_some(NormalizerConfig {
                    clean_text,
                    handle_chinese_chars,
                    strip_accents,
                    lowercase,
                }),
                pre_tokenizer.parse()?,
            )),
            counts: WordCounts::default(),
            num_threads,
        })
    }

    /// An empty counter that splits words as `tokenizer` encodes them: its
    /// normalizers and pre-tokenizers, its added tokens cut out.
    #[staticmethod]
    #[pyo3(signature = (tokenizer, num_threads=None))]
    fn like(tokenizer: &PyTokenizer, num_threads: Option<usize>) -> PyResult<Self> {
        parallel::check_threads(num_threads)?;
        Ok(Self {
            splitting: WordSplitting::of(&tokenizer.tokenizer()),
            counts: WordCounts::default(),
            num_threads,
        })
    }

    /// How `tokenizer`'s model encodes the counted words (`StatsRow`), once with the whole vocabulary or,
    /// with `sizes`, once per size with the vocabulary cut to its first n tokens.
    #[pyo3(signature = (tokenizer, sizes=None))]
    fn measure(
        &self,
        py: Python<'_>,
        tokenizer: &PyTokenizer,
        sizes: Option<Vec<usize>>,
    ) -> PyResult<Vec<StatsRow>> {
        let t = tokenizer.tokenizer();
        let how = Run::parallel(self.counts.len().saturating_mul(16), self.num_threads);
        let stats = run(py, how, |_| match &sizes {
            None => Ok(vec![quality::measure(t.model(), &self.counts)]),
            Some(sizes) => quality::curve(t.vocab.tokens(), sizes, &t.model().config, &self.counts),
        })?;
        Ok(stats
            .into_iter()
            .map(|s| StatsRow {
                words: s.words,
                tokens: s.tokens,
                chars: s.chars,
                whole_words: s.whole_words,
                unknown_words: s.unknown_words,
            })
            .collect())
    }

    /// Counts the words of documents (the GIL is released while counting).
    fn add_texts(&mut self, py: Python<'_>, texts: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = TextList::extract(texts, "texts")?;
        let texts = items.strs()?;
        self.count(py, &texts)
    }

    /// Counts the rows of an Arrow string array chunk (see `arrow.rs`); null
    /// rows count nothing.
    #[pyo3(signature = (offsets, data, validity, offset, length))]
    fn add_arrow<'py>(
        &mut self,
        py: Python<'py>,
        offsets: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        validity: Option<&Bound<'py, PyAny>>,
        offset: usize,
        length: usize,
    ) -> PyResult<()> {
        let chunk = ArrowChunk::extract(offsets, data, validity, offset, length)?;
        let rows = chunk.rows()?;
        let texts: Vec<&str> = rows.into_iter().flatten().collect();
        self.count(py, &texts)
    }

    /// Whether `word` was counted.
    fn contains(&self, word: Cow<'_, str>) -> bool {
        self.counts.contains(&word)
    }

    /// Counts a text file, plain or `.gz`, one document per line (or, with
    /// `jsonl_field`, that field of each JSON line); with `byte_range`
    /// `(start, end)`, only the lines of a plain file that start in it. On
    /// an error or Ctrl-C none of the file is counted.
    #[pyo3(signature = (path, jsonl_field=None, byte_range=None))]
    fn add_file(
        &mut self,
        py: Python<'_>,
        path: std::path::PathBuf,
        jsonl_field: Option<String>,
        byte_range: Option<(u64, u64)>,
    ) -> PyResult<()> {
        let (splitting, threads) = (&self.splitting, self.num_threads);
        let source = io::DocSource::of(jsonl_field);
        let range = byte_range
            .map(|(start, end)| io::ByteRange::new(start, end))
            .transpose()?;
        let part = run(py, Run::parallel(usize::MAX, threads), |cancel| {
            let mut part = WordCounts::default();
            splitting.count_file(&path, &source, range, &mut part, cancel)?;
            Ok(part)
        })?;
        guard(|| self.counts.add_counted(part))
    }

    /// Adds ready `(word, count)` pairs, taken as words as they are.
    fn add_counts(&mut self, items: Vec<(String, u64)>) -> PyResult<()> {
        for (w, c) in items {
            self.counts.try_add(&w, c)?;
        }
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.counts.len()
    }

    /// The options words were split with, as a dict.
    fn options(&self, py: Python<'_>) -> PyResult<PyObject> {
        let json = serde_json::to_string(&CountingOptions::from(&self.splitting))
            .map_err(|e| Error::Value(e.to_string()))?;
        Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
    }

    /// Whether `other` splits text into the same words.
    fn splits_as(&self, other: &PyWordCounter) -> bool {
        self.splitting.splits_as(&other.splitting)
    }

    /// What differs between how these counts and `other` split text, or
    /// None; `this` and `that` name the two sides in the message.
    fn difference(&self, other: &PyWordCounter, this: &str, that: &str) -> Option<String> {
        self.splitting.difference(&other.splitting, this, that)
    }

    /// The tokenizer whose pipeline these counts were split through (over a
    /// vocab of its unknown token alone), or None if BERT's options split them.
    fn pipeline(&self) -> Option<PyTokenizer> {
        match &self.splitting {
            WordSplitting::Options(_) => None,
            WordSplitting::Pipeline(tok, _) => Some(PyTokenizer::of(Tokenizer::clone(tok))),
        }
    }

    /// Adds `other`'s counts (its new words after these); a ValueError if it
    /// split words otherwise, an OverflowError (and no change) if a count
    /// would pass 2^64-1.
    fn update(&mut self, py: Python<'_>, other: &PyWordCounter) -> PyResult<()> {
        self.check_splits_as(other)?;
        let theirs = &other.counts;
        let how = Run::serial(theirs.len().saturating_mul(16));
        let merge = |counts: &mut WordCounts, _: &Cancel| counts.try_merge(theirs);
        let take_back = |counts: &mut WordCounts, mark| counts.take_back(theirs, mark);
        run_in_place(py, how, &mut self.counts, merge, take_back)
    }

    /// Moves `part`'s counts (just counted by a counter from `fresh`) into
    /// these, leaving `part` empty: `update` without copying the words.
    fn absorb(&mut self, py: Python<'_>, part: &mut PyWordCounter) -> PyResult<()> {
        self.check_splits_as(part)?;
        let (counts, part) = (&mut self.counts, std::mem::take(&mut part.counts));
        run(py, Run::serial(0), |_| counts.add_counted(part))
    }

    /// An empty counter that splits words as this one does.
    fn fresh(&self) -> Self {
        Self {
            splitting: self.splitting.clone(),
            counts: WordCounts::default(),
            num_threads: self.num_threads,
        }
    }

    /// A copy with its own counts.
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        let how = Run::serial(self.counts.len().saturating_mul(16));
        let counts = run(py, how, |_| self.counts.try_copy())?;
        Ok(Self {
            splitting: self.splitting.clone(),
            counts,
            num_threads: self.num_threads,
        })
    }

    /// The count of `word` (0 if never counted).
    fn get(&self, word: Cow<'_, str>) -> u64 {
        self.counts.get(&word)
    }

    /// The sum of all counts.
    fn total(&self) -> u128 {
        self.counts.total()
    }

    /// Drops words counted fewer than `min_count` times.
    fn prune(&mut self, min_count: u64) {
        self.counts.prune(min_count);
    }

    /// The `n` most frequent words (all if None), ties in first-appearance order.
    #[pyo3(signature = (n=None))]
    fn most_common<'py>(&self, py: Python<'py>, n: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        let counts = &self.counts;
        let how = Run::serial(counts.len().saturating_mul(16));
        let order = run(py, how, |_| Ok(counts.most_common(n)))?;
        watched_list(py, order)
    }

    /// Same options, words, counts and order.
    fn same_as(&self, other: &PyWordCounter) -> bool {
        CountingOptions::from(&self.splitting) == CountingOptions::from(&other.splitting)
            && self.counts.same_as(&other.counts)
    }

    /// The counts in the file format of `train::counts_file`; `compress`
    /// false: gzip's stored blocks (for a worker's counts within a job).
    #[pyo3(signature = (compress=true))]
    fn to_bytes<'py>(&self, py: Python<'py>, compress: bool) -> PyResult<Bound<'py, PyBytes>> {
        let (counts, splitting) = (&self.counts, &self.splitting);
        let how = Run::serial(counts.len().saturating_mul(16));
        let data = run(py, how, |cancel| match compress {
            true => counts_file::to_bytes(counts, splitting, cancel),
            false => counts_file::to_bytes_uncompressed(counts, splitting, cancel),
        })?;
        Ok(PyBytes::new(py, &data))
    }

    /// Counts from the bytes of `to_bytes`; `name` names the source in errors.
    /// `from_worker`: bytes a worker of this job just made (words are not
    /// split again to check them; see `counts_file::from_worker_bytes`).
    #[staticmethod]
    #[pyo3(signature = (data, name=Cow::Borrowed("data"), num_threads=None, from_worker=false))]
    fn from_bytes(
        py: Python<'_>,
        data: &[u8],
        name: Cow<'_, str>,
        num_threads: Option<usize>,
        from_worker: bool,
    ) -> PyResult<Self> {
        parallel::check_threads(num_threads)?;
        let how = Run::serial(data.len().saturating_mul(4));
        let (splitting, counts) = run(py, how, |cancel| match from_worker {
            true => counts_file::from_worker_bytes(data, &name, cancel),
            false => counts_file::from_bytes(data, &name, cancel),
        })?;
        Ok(Self {
            splitting,
            counts,
            num_threads,
        })
    }

    /// Writes the counts to `path` atomically (temp file + rename, the
    /// rename after a last look for Ctrl-C: see `commit_staged`).
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let (counts, splitting) = (&self.counts, &self.splitting);
        let staged = run(py, Run::serial(counts.len().saturating_mul(16)), |cancel| {
            counts_file::stage(&path, counts, splitting, cancel)
        })?;
        commit_staged(py, staged)
    }

    /// Reads counts that `save` wrote.
    #[staticmethod]
    #[pyo3(signature = (path, num_threads=None))]
    fn load(
        py: Python<'_>,
        path: std::path::PathBuf,
        num_threads: Option<usize>,
    ) -> PyResult<Self> {
        parallel::check_threads(num_threads)?;
        let how = Run::serial(usize::MAX);
        let (splitting, counts) = run(py, how, |cancel| counts_file::load(&path, cancel))?;
        Ok(Self {
            splitting,
            counts,
            num_threads,
        })
    }

    /// `(word, count)` pairs in first-appearance order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        watched_list(py, self.counts.iter())
    }

    /// Trains a vocabulary on the counted words; returns the tokenizer over
    /// it, a BERT-like one with the `tokenizer` settings or the pipeline of
    /// `through`, and the run as a dict (`TrainRow`, merges as `MergeRows`).
    /// `progress(merges_done, vocab_len)` is called every 50 ms or so.
    #[pyo3(signature = (*, vocab_size, min_frequency=0, special_tokens, limit_alphabet=None,
        initial_alphabet=Vec::new(), continuing_subword_prefix=Cow::Borrowed("##"), end_of_word_suffix=Cow::Borrowed(""),
        score=Cow::Borrowed("likelihood"), progress=None, tokenizer=None, through=None, extend=false, fit=false))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        &self,
        py: Python<'_>,
        vocab_size: usize,
        min_frequency: u64,
        special_tokens: Vec<String>,
        limit_alphabet: Option<usize>,
        initial_alphabet: Vec<char>,
        continuing_subword_prefix: Cow<'_, str>,
        end_of_word_suffix: Cow<'_, str>,
        score: Cow<'_, str>,
        progress: Option<PyObject>,
        tokenizer: Option<BertOptions>,
        through: Option<PyRef<'_, PyTokenizer>>,
        extend: bool,
        fit: bool,
    ) -> PyResult<(PyTokenizer, TrainRow)> {
        let mut config = TrainerConfig {
            vocab_size,
            min_frequency,
            special_tokens,
            limit_alphabet,
            initial_alphabet,
            continuing_subword_prefix: continuing_subword_prefix.into_owned(),
            end_of_word_suffix: end_of_word_suffix.into_owned(),
            score: score.parse()?,
        };
        let pipeline = through.map(|t| t.tokenizer());
        if pipeline.is_some() == tokenizer.is_some() {
            return Err(Error::Value("train needs one of tokenizer and through".into()).into());
        }
        // On the counter's pool: the fit's pruning costs tokens on every
        // thread (merging itself runs on one).
        let how = Run {
            bytes: usize::MAX,
            progress: progress.as_ref(),
            ..Run::parallel(usize::MAX, self.num_threads)
        };
        let initial = match (&pipeline, extend) {
            (Some(p), true) => {
                // Every id's string: the vocab's, then the added tokens' past it.
                let tokens = id_strings(&p.vocab, p.added_tokens());
                let tokens = tokens.into_iter().map(str::to_owned).collect();
                Some(InitialVocab::new(
                    tokens,
                    &config.continuing_subword_prefix,
                )?)
            }
            (None, true) => return Err(Error::Value("extend needs through".into()).into()),
            (_, false) => None,
        };
        let max_chars = match (&pipeline, &tokenizer) {
            (Some(p), _) => p.model().config.max_input_chars_per_word,
            (None, Some(o)) => o.max_input_chars_per_word,
            (None, None) => unreachable!("checked above"),
        };
        // Fitting trains as far past the size as the size is past the
        // tokens it starts from, then removes the surplus.
        let start = initial.as_ref().map_or(0, |v| v.tokens().len());
        if fit {
            config.vocab_size = vocab_size.saturating_mul(2).saturating_sub(start);
        }
        let (out, removed, fitted_tokens) = run(py, how, |cancel| {
            let (words, counts): (Vec<&str>, Vec<u64>) = self.counts.iter().unzip();
            let mut progress = |done, len| cancel.report(done, len);
            let mut out = match &initial {
                None => train::train(&words, &counts, &config, &mut progress)?,
                Some(v) => train::train_extending(&words, &counts, &config, v, &mut progress)?,
            };
            if !fit {
                return Ok((out, Vec::new(), 0));
            }
            let suffixed: Vec<String>;
            let words = if config.end_of_word_suffix.is_empty() {
                words
            } else {
                let suffix = &config.end_of_word_suffix;
                suffixed = words.iter().map(|w| format!("{w}{suffix}")).collect();
                suffixed.iter().map(String::as_str).collect()
            };
            let fit_words = fit::FitWords {
                words: &words,
                counts: &counts,
                max_chars,
            };
            let tokens = std::mem::take(&mut out.vocab);
            let (keep, prefix) = (out.base_vocab_size, &config.continuing_subword_prefix);
            let fitted =
                fit::fit_to_longest_match(&fit_words, tokens, keep, vocab_size, prefix, cancel)?;
            out.vocab = fitted.vocab;
            Ok((out, fitted.removed, fitted.tokens))
        })?;
        let tok = match (pipeline, tokenizer) {
            (Some(p), _) => p.with_vocab(Vocab::new(out.vocab)?)?,
            (None, Some(options)) => options.build(out.vocab)?,
            (None, None) => unreachable!("checked above"),
        };
        let merges = PyMergeRows::new(out.merges);
        let row = TrainRow {
            merges,
            base_vocab_size: out.base_vocab_size,
            initial_tokens: out.initial_tokens,
            total_words: out.total_words,
            removed,
            fitted_tokens,
        };
        Ok((PyTokenizer::of(tok), row))
    }
}
