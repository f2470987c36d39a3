//! The thread runtime: every task on an OS thread of its own, blocking (the
//! thread parks in the kernel) wherever the task awaits. Threads inherit the
//! spawning thread's CPU set and nice value, so the whole run stays confined.

use std::future::Future;
use std::thread;

use crate::error::LabError;

#[derive(Clone)]
pub struct Threads;

impl Threads {
    /// Starts `task` on a new thread named `what`; a thread the system refuses
    /// is the error. The thread is detached: its spawner joins the task's
    /// outcome, never the thread.
    pub fn spawn(&self, what: &str, task: impl Future<Output = ()> + Send + 'static) -> Result<(), LabError> {
        thread::Builder::new()
            .name(what.into())
            .spawn(move || futures_lite::future::block_on(task))
            .map(drop)
            .map_err(|e| LabError::Os(format!("cannot start {what} thread: {e}")))
    }
}
