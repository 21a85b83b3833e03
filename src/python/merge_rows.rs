//! A training run's merges, kept in Rust until Python reads them: made into
//! 30,000 dicts (and then `Merge` objects) as training returned, they took
//! about 85 ms, a twelfth of training 103 MB of English, for a record most
//! callers never look at.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::train::MergeRecord;

/// The merges, in order; `dicts()` gives each as a dict of exactly the
/// fields of Python's `Merge`, which takes the dict as its own
/// (`training_record.MergeList`; tests/test_train.py checks the keys).
#[pyclass(frozen, module = "wpiece._core", name = "MergeRows")]
pub(crate) struct PyMergeRows {
    rows: Vec<MergeRecord>,
}

impl PyMergeRows {
    pub(crate) fn new(rows: Vec<MergeRecord>) -> Self {
        Self { rows }
    }
}

#[pymethods]
impl PyMergeRows {
    fn __len__(&self) -> usize {
        self.rows.len()
    }

    /// The merges `start..stop` (all by default; clamped to the merges) as
    /// dicts, keys shared by all of them.
    #[pyo3(signature = (start=0, stop=None))]
    fn dicts<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        stop: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let stop = stop.unwrap_or(usize::MAX).min(self.rows.len());
        let list = PyList::empty(py);
        for m in self.rows.get(start..stop).unwrap_or_default() {
            let d = PyDict::new(py);
            d.set_item(pyo3::intern!(py, "left"), &m.left)?;
            d.set_item(pyo3::intern!(py, "right"), &m.right)?;
            d.set_item(pyo3::intern!(py, "merged"), &m.merged)?;
            d.set_item(pyo3::intern!(py, "pair_frequency"), m.pair_frequency)?;
            d.set_item(pyo3::intern!(py, "left_frequency"), m.left_frequency)?;
            d.set_item(pyo3::intern!(py, "right_frequency"), m.right_frequency)?;
            d.set_item(pyo3::intern!(py, "tokens_after"), m.tokens_after)?;
            d.set_item(pyo3::intern!(py, "added"), m.added)?;
            d.set_item(pyo3::intern!(py, "score"), m.score)?;
            d.set_item(pyo3::intern!(py, "gain"), m.gain)?;
            list.append(d)?;
        }
        Ok(list)
    }
}
