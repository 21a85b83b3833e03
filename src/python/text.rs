//! Python strings in, `&str` out: lists of texts taken with the GIL held,
//! read after it is released.

use pyo3::exceptions::PyTypeError;
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
    /// The texts of `obj` (a list, or any sequence of str); `what` names
    /// them in errors ("texts", "pairs"), with the index of a bad item.
    pub(crate) fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        let Ok(list) = obj.downcast::<PyList>() else {
            let items: Vec<Bound<'py, PyAny>> = obj.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what} must be a list of str, not {}",
                    type_name(obj)
                ))
            })?;
            let items = items
                .into_iter()
                .enumerate()
                .map(|(k, item)| as_str(item, what, k))
                .collect::<PyResult<_>>()?;
            return Ok(Self { items });
        };
        let n = list.len();
        let mut items = Vec::with_capacity(n);
        for k in 0..n {
            if k + TEXTS_AHEAD < n {
                // SAFETY: the index is in bounds and the GIL is held (nothing
                // can shrink the list meanwhile); the borrowed pointer is only
                // used as a prefetch address.
                let ahead = unsafe { list_item(list, k + TEXTS_AHEAD) };
                cache::prefetch_address(ahead as *const u8);
            }
            items.push(as_str(list.get_item(k)?, what, k)?);
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
            out.push(utf8(s)?);
        }
        Ok(out)
    }
}

/// Item `k` of `what` as a str, or a `TypeError` naming it.
fn as_str<'py>(item: Bound<'py, PyAny>, what: &str, k: usize) -> PyResult<Bound<'py, PyString>> {
    item.downcast_into::<PyString>().map_err(|e| {
        let name = type_name(e.into_inner().as_any());
        PyTypeError::new_err(format!("item {k} of {what} is {name}, not str"))
    })
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".into(), |n| n.to_string())
}

/// A borrowed pointer to item `k` of `list` (in bounds, GIL held).
///
/// # Safety
/// `k < list.len()`, and the pointer must not outlive the list's item.
#[inline]
unsafe fn list_item(list: &Bound<'_, PyList>, k: usize) -> *mut pyo3::ffi::PyObject {
    // The stable ABI has no macro access to the items; its call is as cheap.
    #[cfg(feature = "abi3")]
    return pyo3::ffi::PyList_GetItem(list.as_ptr(), k as _);
    #[cfg(not(feature = "abi3"))]
    return pyo3::ffi::PyList_GET_ITEM(list.as_ptr(), k as _);
}

/// The UTF-8 text of `s`, borrowed from the string object (CPython caches it
/// there), with no copy.
#[cfg(not(feature = "abi3"))]
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    s.to_str()
}

/// The UTF-8 text of `s`, borrowed: PyO3's stable-ABI build for 3.9 copies
/// every string (`PyUnicode_AsUTF8AndSize` joined the stable ABI in 3.10),
/// but CPython has exported that function since 3.3, so the abi3 wheel calls
/// it directly.
#[cfg(feature = "abi3")]
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    extern "C" {
        fn PyUnicode_AsUTF8AndSize(
            unicode: *mut pyo3::ffi::PyObject,
            size: *mut pyo3::ffi::Py_ssize_t,
        ) -> *const std::os::raw::c_char;
    }
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a str object and the GIL is held; the returned buffer
    // lives as long as the string object, which `s` borrows.
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    // SAFETY: CPython returns `size` bytes of valid UTF-8 (the call fails,
    // handled above, for strings with lone surrogates).
    Ok(unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast(), size as usize))
    })
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
