//! The PyO3 binding layer, the only place that knows about Python: thin
//! wrappers that convert arguments, release the GIL, call the core and
//! convert the result. Errors map to Python exceptions in `errors`.

mod arrow;
mod documents;
mod encoding;
mod errors;
mod files;
mod merge_rows;
mod numpy_api;
mod run;
mod specs;
mod text;
mod tokenizer;
mod training;

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::model::UnknownPolicy;
use crate::pipeline::{PadDirection, TruncationDirection, TruncationStrategy, BERT_SPECIAL_TOKENS};
use crate::pre_tokenizers::PreTokenizer;
use crate::train::Score;

use encoding::PyEncoding;
use errors::UnsupportedComponentError;
use files::{read_text, read_vocab_txt, write_atomic, write_set_atomic};
use tokenizer::PyTokenizer;
use training::PyWordCounter;

/// Checks option names where the core defines them (`ValueError` naming the
/// choices), so Python can refuse a bad name before reading any corpus.
#[pyfunction]
#[pyo3(signature = (*, unknown=None, pre_tokenizer=None, score=None, truncation_strategy=None, truncation_direction=None, padding_direction=None))]
fn check_names(
    unknown: Option<Cow<'_, str>>,
    pre_tokenizer: Option<Cow<'_, str>>,
    score: Option<Cow<'_, str>>,
    truncation_strategy: Option<Cow<'_, str>>,
    truncation_direction: Option<Cow<'_, str>>,
    padding_direction: Option<Cow<'_, str>>,
) -> PyResult<()> {
    truncation_direction
        .as_deref()
        .map(str::parse::<TruncationDirection>)
        .transpose()?;
    padding_direction
        .as_deref()
        .map(str::parse::<PadDirection>)
        .transpose()?;
    unknown
        .as_deref()
        .map(str::parse::<UnknownPolicy>)
        .transpose()?;
    pre_tokenizer
        .as_deref()
        .map(str::parse::<PreTokenizer>)
        .transpose()?;
    score.as_deref().map(str::parse::<Score>).transpose()?;
    truncation_strategy
        .as_deref()
        .map(str::parse::<TruncationStrategy>)
        .transpose()?;
    Ok(())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTokenizer>()?;
    m.add_class::<PyEncoding>()?;
    m.add_class::<PyWordCounter>()?;
    m.add_class::<merge_rows::PyMergeRows>()?;
    m.add_class::<documents::PyFileDocuments>()?;
    m.add_class::<documents::PyDocumentReader>()?;
    m.add_function(wrap_pyfunction!(documents::encode_file_part, m)?)?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_vocab_txt, m)?)?;
    m.add_function(wrap_pyfunction!(write_set_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(write_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(check_names, m)?)?;
    m.add(
        "BERT_SPECIAL_TOKENS",
        PyTuple::new(m.py(), BERT_SPECIAL_TOKENS)?,
    )?;
    m.add(
        "UnsupportedComponentError",
        m.py().get_type::<UnsupportedComponentError>(),
    )?;
    Ok(())
}
