//! No Rust panic reaches Python: a native call that panics raises
//! `InternalError` (errors.rs) with the panic's message and place, and the
//! panic is not printed (Python prints the one error).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use pyo3::prelude::*;

use crate::errors;

/// Where the last panic happened, told by the panic hook to whoever catches it
/// (the panicking thread may be a worker, not the caller).
static LAST_PANIC_PLACE: Mutex<Option<String>> = Mutex::new(None);

/// Runs `work` with the GIL released (a Python thread can watch and cancel it);
/// a panic inside becomes an `InternalError` instead of crossing the binding.
pub fn without_gil<T: Send>(py: Python<'_>, work: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| Err(internal_error(&*panic))))
}

fn internal_error(panic: &(dyn std::any::Any + Send)) -> PyErr {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    let place = LAST_PANIC_PLACE.lock().map(|mut p| p.take()).unwrap_or(None);
    let at = place.map(|p| format!(" at {p}")).unwrap_or_default();
    errors::internal(format!("internal error (a bug in brewput, please report it): {what}{at}"))
}

/// Keeps panics quiet: their message reaches Python as an `InternalError`,
/// once, instead of on stderr.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        if let (Some(place), Ok(mut last)) = (info.location(), LAST_PANIC_PLACE.lock()) {
            *last = Some(place.to_string());
        }
    }));
}
