//! Python strings in, `&str` out: lists of texts taken with the GIL held,
//! read after it is released.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::cache;

/// Bytes of text in a batch (decides whether a call watches for Ctrl-C).
pub(crate) fn text_bytes(texts: &[&str]) -> usize {
    texts.iter().map(|t| t.len()).sum()
}

/// The strs of a big batch, each held by a reference (they must outlive the
/// GIL's release). Python strings lie anywhere in memory, so every pass over
/// them (taking references, reading their text, dropping them) asks for the
/// object a few items ahead: otherwise each of a million documents costs a
/// cache miss in a row, all while the GIL is held.
pub(crate) struct TextList<'py> {
    items: Vec<Bound<'py, PyString>>,
}

/// How many items ahead the passes over a `TextList` prefetch.
const TEXTS_AHEAD: usize = 16;

impl<'py> TextList<'py> {
    pub(crate) fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let Ok(list) = obj.downcast::<PyList>() else {
            return Ok(Self {
                items: obj.extract()?,
            });
        };
        let n = list.len();
        let mut items = Vec::with_capacity(n);
        for k in 0..n {
            if k + TEXTS_AHEAD < n {
                // SAFETY: the index is in bounds and the GIL is held (nothing
                // can shrink the list meanwhile); the borrowed pointer is only
                // used as a prefetch address.
                let ahead =
                    unsafe { pyo3::ffi::PyList_GET_ITEM(list.as_ptr(), (k + TEXTS_AHEAD) as _) };
                cache::prefetch_address(ahead as *const u8);
            }
            items.push(list.get_item(k)?.downcast_into::<PyString>()?);
        }
        Ok(Self { items })
    }

    pub(crate) fn strs(&self) -> PyResult<Vec<&str>> {
        let items = &self.items;
        let mut out = Vec::with_capacity(items.len());
        for (k, s) in items.iter().enumerate() {
            if let Some(ahead) = items.get(k + TEXTS_AHEAD) {
                cache::prefetch_address(ahead.as_ptr() as *const u8);
            }
            out.push(s.to_str()?);
        }
        Ok(out)
    }
}

impl Drop for TextList<'_> {
    fn drop(&mut self) {
        let addresses: Vec<*const u8> =
            self.items.iter().map(|s| s.as_ptr() as *const u8).collect();
        for (k, item) in self.items.drain(..).enumerate() {
            if let Some(&ahead) = addresses.get(k + TEXTS_AHEAD) {
                cache::prefetch_address(ahead);
            }
            drop(item);
        }
    }
}
