use std::any::Any;
use std::fmt;
use std::panic::resume_unwind;
use std::thread::ScopedJoinHandle;

/// Everything that can stop a lab run. Never a panic: the binding turns these
/// into Python exceptions with the message as it is.
#[derive(Debug, Clone, PartialEq)]
pub enum LabError {
    /// The run's settings are malformed (the Python side checks them first).
    Input(String),
    /// The operating system refused something (CPU affinity, a thread).
    Os(String),
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::Input(what) | LabError::Os(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for LabError {}

impl LabError {
    /// What a panicked thread or task of a run said, as an error: a bug
    /// should still end in one line.
    pub fn from_panic(payload: Box<dyn Any + Send>) -> LabError {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a thread of the run panicked".into());
        LabError::Os(what)
    }
}

/// The value of a scoped thread, or its panic carried on to the joining
/// thread with its own message (up to `on_cpus`, which makes it an error).
pub fn joined<T>(handle: ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|payload| resume_unwind(payload))
}
