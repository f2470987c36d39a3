//! Errors across the binding. Each way an engine run can fail has its own
//! Python class, and no Rust panic reaches Python: a native call that panics
//! raises `InternalError` with the panic's message and place, and the panic is
//! not printed (Python prints the one error).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use brewput_sim::SimError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(_native, EngineError, PyException, "A simulation could not run to its end.");
create_exception!(_native, InputError, EngineError, "The compiled model or run settings are malformed.");
create_exception!(_native, DeadlockError, EngineError, "Every customer is blocked and nothing is scheduled.");
create_exception!(_native, UnstableError, EngineError, "An open model's queues grew without bound.");
create_exception!(_native, CancelledError, EngineError, "The run was cancelled through its control.");
create_exception!(_native, InternalError, PyException, "Native code panicked: a bug in brewput.");

/// Where the last panic happened, told by the panic hook to whoever catches it
/// (the panicking thread may be a worker, not the caller).
static LAST_PANIC_PLACE: Mutex<Option<String>> = Mutex::new(None);

pub fn sim_error(e: SimError) -> PyErr {
    let message = e.to_string();
    match e {
        SimError::Input(_) => InputError::new_err(message),
        SimError::Deadlock { .. } => DeadlockError::new_err(message),
        SimError::Unstable { .. } => UnstableError::new_err(message),
        SimError::Cancelled => CancelledError::new_err(message),
    }
}

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
    InternalError::new_err(format!("internal error (a bug in brewput, please report it): {what}{at}"))
}

/// Registers the exception classes and keeps panics quiet: their message
/// reaches Python as an `InternalError`, once, instead of on stderr.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("EngineError", py.get_type::<EngineError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("DeadlockError", py.get_type::<DeadlockError>())?;
    m.add("UnstableError", py.get_type::<UnstableError>())?;
    m.add("CancelledError", py.get_type::<CancelledError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    std::panic::set_hook(Box::new(|info| {
        if let (Some(place), Ok(mut last)) = (info.location(), LAST_PANIC_PLACE.lock()) {
            *last = Some(place.to_string());
        }
    }));
    Ok(())
}
