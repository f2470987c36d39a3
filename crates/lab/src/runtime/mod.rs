//! How the coffee shop's tasks (customers, baristas, a second pair of hands)
//! run on the CPUs. The kitchens are written once, as async code that awaits
//! channels and machines and burns its stages without yielding; a runtime
//! decides what a task is:
//!
//! - [`Processors`] (`tasks`, the default): Go's model, the one the talk
//!   measured. K worker threads, one pinned to each of the run's K CPUs (Go's
//!   GOMAXPROCS processors), run every task; a task that waits on a channel or
//!   a machine parks, and its processor runs the next runnable task at once.
//! - [`Threads`] (`threads`): one OS thread per task, so every hand-off is a
//!   kernel wake-up and the OS scheduler decides where the woken thread runs:
//!   seed 003's costly way to express concurrency, kept because the difference
//!   between the two is itself a lesson (docs/lab.md).

mod slice;
mod tasks;
mod threads;

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_lite::FutureExt;
use serde::{Deserialize, Serialize};

use crate::error::LabError;
pub use slice::TimeSlice;
pub use tasks::Processors;
pub use threads::Threads;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    Tasks,
    Threads,
}

/// A started runtime; cloning shares it. Dropping the last clone of a
/// [`Processors`] stops its workers, so every task must have been joined.
#[derive(Clone)]
pub enum Runtime {
    Tasks(Processors),
    Threads(Threads),
}

impl Runtime {
    /// Starts the runtime `kind` on `cpus` (the run's CPUs, already confining
    /// the calling thread).
    pub fn start(kind: RuntimeKind, cpus: &[usize]) -> Result<Runtime, LabError> {
        Ok(match kind {
            RuntimeKind::Tasks => Runtime::Tasks(Processors::start(cpus)?),
            RuntimeKind::Threads => Runtime::Threads(Threads),
        })
    }

    /// Starts `task`; `what` names it in errors (and names its thread). A panic
    /// in the task becomes its [`Joined`] error, with the panic's message.
    pub fn spawn<T: Send + 'static>(
        &self,
        what: &str,
        task: impl Future<Output = T> + Send + 'static,
    ) -> Result<Joined<T>, LabError> {
        let (done, joined) = flume::bounded(1);
        let task = async move {
            let outcome = AssertUnwindSafe(task).catch_unwind().await.map_err(LabError::from_panic);
            let _ = done.send(outcome); // a spawner that stopped waiting wants nothing
        };
        match self {
            Runtime::Tasks(processors) => processors.spawn(task),
            Runtime::Threads(threads) => threads.spawn(what, task)?,
        }
        Ok(Joined(joined))
    }
}

/// The outcome of a spawned task, to wait for from outside the runtime
/// ([`Joined::join`]) or from inside another task ([`Joined::finished`]).
pub struct Joined<T>(flume::Receiver<Result<T, LabError>>);

impl<T> Joined<T> {
    pub fn join(self) -> Result<T, LabError> {
        self.0.recv().unwrap_or_else(|_| Err(vanished()))
    }

    pub async fn finished(self) -> Result<T, LabError> {
        self.0.recv_async().await.unwrap_or_else(|_| Err(vanished()))
    }
}

/// A task dropped before it ended: its runtime stopped under it.
fn vanished() -> LabError {
    LabError::Os("a task of the run was stopped before it finished".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn both() -> [Runtime; 2] {
        let cpus = crate::os::allowed_cpus().unwrap();
        let cpus = &cpus[..cpus.len().min(2)];
        [Runtime::start(RuntimeKind::Tasks, cpus).unwrap(), Runtime::start(RuntimeKind::Threads, cpus).unwrap()]
    }

    #[test]
    fn every_task_runs_once_and_its_outcome_is_joined() {
        for runtime in both() {
            let runs = Arc::new(AtomicUsize::new(0));
            let joined: Vec<_> = (0..100)
                .map(|i| {
                    let runs = Arc::clone(&runs);
                    runtime
                        .spawn("counting", async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            i
                        })
                        .unwrap()
                })
                .collect();
            let outcomes: Vec<usize> = joined.into_iter().map(|j| j.join().unwrap()).collect();
            assert_eq!(outcomes, (0..100).collect::<Vec<_>>());
            assert_eq!(runs.load(Ordering::SeqCst), 100);
        }
    }

    #[test]
    fn a_panic_in_a_task_is_its_error_with_the_message() {
        for runtime in both() {
            let joined = runtime.spawn("panicking", async { panic!("no milk") }).unwrap();
            assert_eq!(joined.join(), Err(LabError::Os("no milk".into())));
        }
    }

    #[test]
    fn a_task_waits_for_another_without_holding_its_processor() {
        // One processor: the waiting task must park for the other to run at all.
        let cpu = crate::os::allowed_cpus().unwrap()[0];
        let runtime = Runtime::start(RuntimeKind::Tasks, &[cpu]).unwrap();
        let (tx, rx) = flume::bounded::<u32>(0);
        let waiter = runtime.spawn("waiter", async move { rx.recv_async().await.unwrap() }).unwrap();
        let t0 = Instant::now();
        let sender = runtime.spawn("sender", async move { tx.send_async(7).await.unwrap() }).unwrap();
        sender.join().unwrap();
        assert_eq!(waiter.join().unwrap(), 7);
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
