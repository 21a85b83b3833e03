//! Python strings in, `&str` out: lists of texts taken with the GIL held,
//! read after it is released.

use std::borrow::Cow;

use pyo3::exceptions::{PyMemoryError, PyTypeError, PyUnicodeEncodeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::run::watched_steps;
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
    /// The UTF-8 of each huge non-ASCII item, by index, in index order:
    /// copied slice by slice (see [`text_of`]).
    copies: Vec<(usize, String)>,
    /// What the texts are ("texts", "pairs"), for errors.
    what: &'static str,
}

/// How many items ahead the passes over a `TextList` prefetch.
const TEXTS_AHEAD: usize = 16;

impl<'py> TextList<'py> {
    /// The texts of `obj` (a list, or any sequence of str); `what` names
    /// them in errors ("texts", "pairs"), with the index of a bad item.
    pub(crate) fn extract(obj: &Bound<'py, PyAny>, what: &'static str) -> PyResult<Self> {
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
            return Self::with_copies(items, what);
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
        Self::with_copies(items, what)
    }

    /// `items`, with copies made of the huge ones CPython would convert in
    /// one uninterruptible call.
    fn with_copies(items: Vec<Bound<'py, PyString>>, what: &'static str) -> PyResult<Self> {
        let mut copies = Vec::new();
        for (k, s) in items.iter().enumerate() {
            // Only a huge str is read here; `strs` reads the others once.
            if is_huge(s)? {
                let copy = copied_in_slices(s).map_err(|e| at_item(s.py(), e, what, k))?;
                copies.push((k, copy));
            }
        }
        Ok(Self {
            items,
            copies,
            what,
        })
    }

    pub(crate) fn strs(&self) -> PyResult<Vec<&str>> {
        let items = &self.items;
        let mut out = Vec::with_capacity(items.len());
        let mut copies = self.copies.iter().peekable();
        for (k, s) in items.iter().enumerate() {
            if let Some(ahead) = items.get(k + TEXTS_AHEAD) {
                cache::prefetch_address(ahead.as_ptr() as *const u8);
            }
            match copies.next_if(|(i, _)| *i == k) {
                Some((_, copy)) => out.push(copy.as_str()),
                None => out.push(utf8(s).map_err(|e| at_item(s.py(), e, self.what, k))?),
            }
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

/// `err`, raised reading item `k` of `what`, naming the item: a str with a
/// lone surrogate has no UTF-8, and CPython's error says where in the str,
/// not which str of the batch.
fn at_item(py: Python<'_>, err: PyErr, what: &str, k: usize) -> PyErr {
    if !err.is_instance_of::<PyUnicodeEncodeError>(py) {
        return err;
    }
    let e = err.value(py);
    let field = |name: &str| e.getattr(name);
    let rebuilt = (|| -> PyResult<PyErr> {
        let reason = format!("{} (item {k} of {what})", field("reason")?);
        let args = (
            field("encoding")?,
            field("object")?,
            field("start")?,
            field("end")?,
            reason,
        );
        Ok(PyUnicodeEncodeError::new_err(
            args.into_pyobject(py)?.unbind(),
        ))
    })();
    rebuilt.unwrap_or(err)
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

/// Strings of more chars than this, unless ASCII, are converted to UTF-8 in
/// slices: CPython converts a whole str in one call with the GIL held, at
/// about 1 GB/s here but several times slower on a loaded machine, so
/// hundreds of MB would not see Ctrl-C for seconds.
const HUGE_CHARS: usize = 16 << 20;

/// Chars per slice of a huge str: a few milliseconds of conversion.
const SLICE_CHARS: usize = 4 << 20;

/// The UTF-8 text of one str: borrowed from the object (CPython caches it
/// there, and an ASCII str is its own UTF-8), but for a huge non-ASCII str
/// a copy made slice by slice, looking for Ctrl-C between slices. The copy
/// is dropped with the call, where CPython's cache would live as long as
/// the str.
pub(crate) fn text_of<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    if is_huge(s)? {
        return copied_in_slices(s).map(Cow::Owned);
    }
    utf8(s).map(Cow::Borrowed)
}

/// Whether `s` is a str whose UTF-8 CPython would make in one long call:
/// past `HUGE_CHARS` and not ASCII (an ASCII str is its own UTF-8).
fn is_huge(s: &Bound<'_, PyString>) -> PyResult<bool> {
    Ok(s.len()? > HUGE_CHARS && !s.call_method0("isascii")?.is_truthy()?)
}

/// The UTF-8 of `s`, made slice by slice with a look for Ctrl-C between.
fn copied_in_slices(s: &Bound<'_, PyString>) -> PyResult<String> {
    let chars = s.len()?;
    let mut out = String::new();
    out.try_reserve_exact(chars)
        .map_err(|_| PyMemoryError::new_err(format!("no memory for a text of {chars} chars")))?;
    let slices = chars.div_ceil(SLICE_CHARS);
    watched_steps(s.py(), slices, |k| {
        let (start, end) = (k * SLICE_CHARS, ((k + 1) * SLICE_CHARS).min(chars));
        // SAFETY: `s` is a str and the GIL is held; the new reference is owned.
        let slice = unsafe {
            let ptr = pyo3::ffi::PyUnicode_Substring(s.as_ptr(), start as _, end as _);
            Bound::from_owned_ptr_or_err(s.py(), ptr)?.downcast_into_unchecked::<PyString>()
        };
        // A lone surrogate: the error of the whole str, which gives its
        // position in the str, not in the slice.
        let text = utf8(&slice).or_else(|_| utf8(s))?;
        out.try_reserve(text.len())
            .map_err(|_| PyMemoryError::new_err("no memory for the UTF-8 of a huge text"))?;
        out.push_str(text);
        Ok(())
    })?;
    Ok(out)
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

/// The strs of each list.
pub(crate) fn as_strs(lists: &[Vec<String>]) -> Vec<Vec<&str>> {
    (lists.iter())
        .map(|l| l.iter().map(String::as_str).collect())
        .collect()
}
