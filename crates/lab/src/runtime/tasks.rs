//! The task runtime: Go's scheduler in miniature. K processors (worker
//! threads, one pinned to each of the run's CPUs) share one executor
//! (async-executor's work-stealing one): a woken task is pushed on the shared
//! queue and an idle processor is woken to take it, so a free CPU runs any
//! runnable task, as a Go P does. tokio's multi-thread scheduler is not used
//! because a task woken by a running task goes to that worker's LIFO slot,
//! which no other worker may steal: a barista handing an order on while it
//! burns its next stage would leave the next barista waiting a whole stage
//! beside an idle CPU (disabling the slot needs tokio's unstable flags).

use std::future::Future;
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use async_executor::Executor;

use crate::error::LabError;
use crate::os;

/// The processors and their executor; clones share them. When the last clone
/// is dropped the workers stop and are joined.
#[derive(Clone)]
pub struct Processors(Arc<Workers>);

struct Workers {
    executor: Arc<Executor<'static>>,
    /// Dropped to stop the workers: each runs the executor until it closes.
    stop: Option<flume::Sender<()>>,
    threads: Vec<JoinHandle<()>>,
}

impl Processors {
    /// Starts a processor on each of `cpus`, pinned to it. A thread the system
    /// refuses, or a pin it refuses, is the error (the workers already started
    /// are stopped and joined when `workers` drops).
    pub fn start(cpus: &[usize]) -> Result<Processors, LabError> {
        let executor = Arc::new(Executor::new());
        let (stop, stopped) = flume::bounded::<()>(0);
        let (ready, pinned) = flume::bounded::<Result<(), LabError>>(cpus.len());
        let mut workers = Workers { executor, stop: Some(stop), threads: Vec::with_capacity(cpus.len()) };
        for (p, &cpu) in cpus.iter().enumerate() {
            let (executor, stopped, ready) = (Arc::clone(&workers.executor), stopped.clone(), ready.clone());
            let worker = thread::Builder::new().name(format!("brewput-P{p}")).spawn(move || {
                let pin = os::pin_current_thread(&[cpu]);
                let pinned = pin.is_ok();
                let _ = ready.send(pin);
                if pinned {
                    // Nothing is ever sent: the workers stop when the sender closes.
                    let _ = futures_lite::future::block_on(executor.run(stopped.recv_async()));
                }
            });
            workers.threads.push(worker.map_err(|e| LabError::Os(format!("cannot start a processor thread: {e}")))?);
        }
        for _ in cpus {
            pinned.recv().map_err(|_| LabError::Os("a processor thread ended before it was pinned".into()))??;
        }
        Ok(Processors(Arc::new(workers)))
    }

    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.0.executor.spawn(task).detach();
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        drop(self.stop.take());
        for worker in self.threads.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;

    #[test]
    fn each_processor_runs_pinned_to_its_own_cpu_and_stops_when_dropped() {
        let cpus = os::allowed_cpus().unwrap();
        let cpus = &cpus[..cpus.len().min(2)];
        let processors = Processors::start(cpus).unwrap();
        // Each worker holds the executor while it runs.
        let executor = Arc::downgrade(&processors.0.executor);
        let runtime = Runtime::Tasks(processors);
        // Tasks that burn long enough to occupy every processor at once report
        // where they ran: each on one CPU of the run's, all of them used.
        let seen: Vec<_> = (0..4 * cpus.len())
            .map(|_| {
                runtime
                    .spawn("where", async {
                        let t0 = std::time::Instant::now();
                        while t0.elapsed() < std::time::Duration::from_millis(20) {}
                        os::allowed_cpus().unwrap()
                    })
                    .unwrap()
            })
            .collect();
        let mut used: Vec<usize> = seen
            .into_iter()
            .map(|j| j.join().unwrap())
            .map(|set| {
                assert_eq!(set.len(), 1, "a processor may run on one CPU only: {set:?}");
                set[0]
            })
            .collect();
        used.sort();
        used.dedup();
        assert_eq!(used, cpus);
        drop(runtime);
        assert!(executor.upgrade().is_none(), "a processor's thread still runs after the drop");
    }
}
