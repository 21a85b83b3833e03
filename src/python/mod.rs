//! The PyO3 binding layer, the only place that knows about Python: thin
//! wrappers that convert arguments, release the GIL, call the core and
//! convert the result. Errors map to Python exceptions in `errors`.

mod encoding;
mod errors;
mod files;
mod text;
mod tokenizer;
mod training;

use pyo3::prelude::*;

use encoding::PyEncoding;
use errors::UnsupportedComponentError;
use files::{read_text, read_vocab_txt, write_atomic, write_set_atomic};
use tokenizer::PyTokenizer;
use training::PyWordCounter;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTokenizer>()?;
    m.add_class::<PyEncoding>()?;
    m.add_class::<PyWordCounter>()?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_vocab_txt, m)?)?;
    m.add_function(wrap_pyfunction!(write_set_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(write_atomic, m)?)?;
    m.add(
        "UnsupportedComponentError",
        m.py().get_type::<UnsupportedComponentError>(),
    )?;
    Ok(())
}
