//! Running core work for a Python call: with the GIL released, on the
//! call's thread pool, stopping on Ctrl-C and reporting progress. Every
//! binding method that does real work goes through [`run`].

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::errors::guard;
use std::sync::Arc;

use crate::cancel::{self, Cancel};
use crate::error::Error;
use crate::parallel;

/// Inputs smaller than this finish in milliseconds: they run inline, without
/// a watcher for Ctrl-C (which costs a thread start).
const WATCHED_BYTES: usize = 256 << 10;

/// Encoding at most `INLINE_ITEMS` inputs of less than `INLINE_BYTES` in
/// all runs on the calling thread, on no pool: handing it to a pool worker
/// and waiting for it cost 15-90 us a call, five times the encoding of a
/// short text, and such a batch is about one part (`encode::batch`) or a
/// few inputs, which the threads would not share much of.
const INLINE_BYTES: usize = 64 << 10;
const INLINE_ITEMS: usize = 64;

/// How often a long call looks for Ctrl-C and reports progress.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How a call's work runs.
#[derive(Clone, Copy, Default)]
pub(crate) struct Run<'a> {
    /// The size of its input, in bytes (`usize::MAX` when unknown, as for
    /// files): small work is not watched.
    pub bytes: usize,
    /// Whether it runs on a thread pool (parallel work) or on one thread.
    pub parallel: bool,
    /// Worker threads of its pool (None: `RAYON_NUM_THREADS`, else one per
    /// core).
    pub threads: Option<usize>,
    /// Called as `progress(done, total)` with what the work reports.
    pub progress: Option<&'a PyObject>,
    /// Whether this is small work that runs on the calling thread
    /// (`parallel::inline`).
    pub inline: bool,
}

impl Run<'_> {
    /// Parallel work on `bytes` of input, on a pool of `threads`.
    pub fn parallel(bytes: usize, threads: Option<usize>) -> Self {
        Self {
            bytes,
            parallel: true,
            threads,
            progress: None,
            inline: false,
        }
    }

    /// Encoding `items` inputs of `bytes` in all: on a pool of `threads`,
    /// or, when small, on the calling thread.
    pub fn encoding(bytes: usize, items: usize, threads: Option<usize>) -> Self {
        Self {
            inline: bytes < INLINE_BYTES && items <= INLINE_ITEMS,
            ..Self::parallel(bytes, threads)
        }
    }

    /// Work on `bytes` of input on one thread.
    pub fn serial(bytes: usize) -> Self {
        Self {
            bytes,
            ..Self::default()
        }
    }
}

/// Runs `work` with the GIL released, on the pool `how` names. Watched work
/// runs on a scoped thread while this one, every 50 ms, checks for signals
/// and calls `progress` with what the work reported: on Ctrl-C (or an
/// exception from `progress`) the work is told to stop (it polls its
/// `Cancel`), and once it has, that exception is raised.
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    how: Run<'_>,
    work: impl FnOnce(&Cancel) -> Result<T, Error> + Send,
) -> PyResult<T> {
    match watch(py, how, work) {
        (_, Some(raised)) => Err(raised),
        (result, None) => result,
    }
}

/// [`run`] for work that changes `state` in place. Ctrl-C can be seen after
/// the work last looked at its flag, and the work then finishes: its change
/// is taken back (`undo` with what the work returned) before the exception
/// is raised, so that an interrupted call changes nothing.
pub(crate) fn run_in_place<S: Send, T: Send>(
    py: Python<'_>,
    how: Run<'_>,
    state: &mut S,
    work: impl FnOnce(&mut S, &Cancel) -> Result<T, Error> + Send,
    undo: impl FnOnce(&mut S, T),
) -> PyResult<()> {
    let changing = &mut *state;
    match watch(py, how, move |cancel| work(changing, cancel)) {
        (Ok(done), Some(raised)) => {
            undo(state, done);
            Err(raised)
        }
        (_, Some(raised)) => Err(raised),
        (result, None) => result.map(drop),
    }
}

/// Runs `work` as [`run`] says; returns its result and, apart, the exception
/// raised while it ran (Ctrl-C, or from `progress`), if any.
fn watch<T: Send>(
    py: Python<'_>,
    how: Run<'_>,
    work: impl FnOnce(&Cancel) -> Result<T, Error> + Send,
) -> (PyResult<T>, Option<PyErr>) {
    let (parallel, threads) = (how.parallel, how.threads);
    // Loops deep in the work's own thread (loading, normalizing one huge
    // word) see the flag too: it is that thread's ambient flag.
    let on_pool = |cancel: &Cancel, ambient: Option<&Arc<Cancel>>| {
        let work = || match ambient {
            Some(a) => cancel::with_ambient(a, || work(cancel)),
            None => work(cancel),
        };
        match (parallel, how.inline) {
            (true, false) => parallel::install(threads, work)?,
            (true, true) => {
                parallel::check_threads(threads)?;
                parallel::inline(work)
            }
            (false, _) => work(),
        }
    };
    // Inline work is smaller still (`Run::encoding`).
    if how.bytes < WATCHED_BYTES && how.progress.is_none() {
        return (
            py.allow_threads(|| guard(|| on_pool(Cancel::never(), None))),
            None,
        );
    }
    let cancel = Arc::new(Cancel::new());
    let mut raised: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        // `done` is set before the waiter is woken: a thread that has woken
        // it may not count as finished yet, and waiting on that would cost
        // every call a whole poll (50 ms).
        let done = std::sync::atomic::AtomicBool::new(false);
        let finished = || done.load(std::sync::atomic::Ordering::Acquire);
        std::thread::scope(|scope| {
            let (waiter, cancel, done) = (std::thread::current(), &cancel, &done);
            let worker = scope.spawn(move || {
                let r = guard(|| on_pool(cancel, Some(cancel)));
                done.store(true, std::sync::atomic::Ordering::Release);
                waiter.unpark();
                r
            });
            let mut reported = (0, 0);
            while !finished() {
                std::thread::park_timeout(POLL);
                if raised.is_some() || finished() {
                    continue;
                }
                let now = cancel.progress();
                let report = how.progress.filter(|_| now.0 > 0 && now != reported);
                let outcome = Python::with_gil(|py| {
                    py.check_signals()?;
                    match report {
                        Some(cb) => cb.call1(py, now).map(drop),
                        None => Ok(()),
                    }
                });
                reported = now;
                if let Err(e) = outcome {
                    raised = Some(e);
                    cancel.cancel();
                }
            }
            worker
                .join()
                .unwrap_or_else(|_| Err(PyRuntimeError::new_err("wpiece internal error")))
        })
    });
    (result, raised)
}

/// A Python list of `items`, looking for Ctrl-C every `SIGNAL_ITEMS` items:
/// making Python objects needs the GIL, so this cannot run apart, and
/// millions of items take seconds.
pub(crate) fn watched_list<'py, T: IntoPyObject<'py>>(
    py: Python<'py>,
    items: impl IntoIterator<Item = T>,
) -> PyResult<Bound<'py, PyList>> {
    const SIGNAL_ITEMS: usize = 1 << 15;
    let list = PyList::empty(py);
    for (k, item) in items.into_iter().enumerate() {
        if k % SIGNAL_ITEMS == SIGNAL_ITEMS - 1 {
            py.check_signals()?;
        }
        list.append(item)?;
    }
    Ok(list)
}

/// Runs `step(0)`, `step(1)`, ... `step(n - 1)` with the GIL held, looking
/// for Ctrl-C between two steps: for work that needs the GIL throughout
/// (reading one huge Python object) cut into steps of a few milliseconds.
pub(crate) fn watched_steps(
    py: Python<'_>,
    n: usize,
    mut step: impl FnMut(usize) -> PyResult<()>,
) -> PyResult<()> {
    for k in 0..n {
        if k > 0 {
            py.check_signals()?;
        }
        step(k)?;
    }
    Ok(())
}

/// [`watched_strings`] of each item of a sequence (words given apart, per
/// input), looking for Ctrl-C between items too.
pub(crate) fn watched_string_lists(
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<Vec<Vec<String>>> {
    const SIGNAL_ITEMS: usize = 1 << 12;
    let mut out = Vec::new();
    for (k, item) in obj.try_iter()?.enumerate() {
        if k % SIGNAL_ITEMS == SIGNAL_ITEMS - 1 {
            obj.py().check_signals()?;
        }
        out.push(watched_strings(&item?, &format!("item {k} of {what}"))?);
    }
    Ok(out)
}

/// The strs of a list (or any sequence) as owned strings, looking for
/// Ctrl-C as [`watched_list`] does; `what` names the argument in errors.
pub(crate) fn watched_strings(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    const SIGNAL_ITEMS: usize = 1 << 15;
    let not_strs = || {
        let kind = obj
            .get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string());
        PyTypeError::new_err(format!("{what} must be a list of str, not {kind}"))
    };
    let n = obj.len().map_err(|_| not_strs())?;
    let mut out = Vec::with_capacity(n.min(1 << 24));
    for (k, item) in obj.try_iter().map_err(|_| not_strs())?.enumerate() {
        if k % SIGNAL_ITEMS == SIGNAL_ITEMS - 1 {
            obj.py().check_signals()?;
        }
        let item = item?;
        let s = item.downcast::<PyString>().map_err(|_| {
            let kind = item
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string());
            PyTypeError::new_err(format!("item {k} of {what} is {kind}, not str"))
        })?;
        out.push(s.to_cow()?.into_owned());
    }
    Ok(out)
}

/// Renames the file a call's work staged (`io::Staged`, written on a
/// worker by [`run`]) after a last look for Ctrl-C here: one that came as
/// the work finished, before the watcher's next look, leaves the old file
/// (the staged one goes) and is raised.
pub(crate) fn commit_staged(py: Python<'_>, staged: crate::io::Staged) -> PyResult<()> {
    py.check_signals()?;
    guard(|| staged.commit())
}

/// Runs a write on this thread with the GIL held (its data is Python's),
/// giving it a `keep_going` that runs Python's signal handlers: the error
/// they raise (KeyboardInterrupt) stops the write and is raised.
pub(crate) fn watching_signals(
    py: Python<'_>,
    write: impl FnOnce(crate::io::KeepGoing<'_>) -> Result<(), Error>,
) -> PyResult<()> {
    let mut raised: Option<PyErr> = None;
    let mut keep_going = || {
        py.check_signals().map_err(|e| {
            raised = Some(e);
            Error::Interrupted
        })
    };
    let result = guard(|| write(&mut keep_going));
    match raised {
        Some(e) => Err(e),
        None => result,
    }
}
