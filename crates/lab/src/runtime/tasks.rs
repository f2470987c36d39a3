//! The task runtime: Go's scheduler in miniature. K processors (worker
//! threads, one pinned to each of the run's CPUs) take runnable tasks from one
//! shared first-in-first-out queue; a task that is woken goes to the back of
//! it and wakes an idle processor, so a free CPU runs any runnable task at
//! once, as an idle Go P steals one.
//!
//! The queue is written here, on async-task's tasks, because the well-kept
//! executors strand runnable tasks beside idle CPUs on this workload:
//! tokio's multi-thread scheduler puts a task woken by a running task in that
//! worker's LIFO slot, which no other worker may steal (disabling the slot
//! needs tokio's unstable flags), and async-executor moves a batch of the
//! shared queue into the taking worker's local queue, where it waits while
//! that worker burns a stage unless another one happens to be searching:
//! linearpipe-10 at 2 CPUs made 380 lattes/s on it with a CPU idle 23 % of
//! the time, against 490/s on this queue (docs/lab.md). A kitchen schedules
//! a few thousand tasks a second, so one lock is no bottleneck.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};

use async_task::Runnable;

use crate::error::LabError;
use crate::os;

/// The processors and their queue; clones share them. When the last clone is
/// dropped the workers stop and are joined (tasks still queued are dropped).
#[derive(Clone)]
pub struct Processors(Arc<Workers>);

struct Workers {
    queue: Arc<Queue>,
    threads: Vec<JoinHandle<()>>,
}

/// Runnable tasks in the order they became runnable.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    /// Signalled when a task is queued for an idle processor, or at the stop.
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    runnable: VecDeque<Runnable>,
    /// Processors waiting on `ready`.
    idle: usize,
    stopping: bool,
}

impl Queue {
    fn push(&self, task: Runnable) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.stopping {
            drop(state);
            drop(task); // outside the lock: cancelling a task may wake another, which pushes
            return;
        }
        state.runnable.push_back(task);
        if state.idle > 0 {
            self.ready.notify_one();
        }
    }

    /// The next task to run, waiting for one while idle; None once stopping.
    fn next(&self) -> Option<Runnable> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if state.stopping {
                return None;
            }
            if let Some(task) = state.runnable.pop_front() {
                return Some(task);
            }
            state.idle += 1;
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
            state.idle -= 1;
        }
    }

    /// Stops the processors; the tasks still queued are cancelled, outside the
    /// lock, since cancelling one may wake another (a push).
    fn stop(&self) {
        let left = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.stopping = true;
            std::mem::take(&mut state.runnable)
        };
        self.ready.notify_all();
        drop(left);
    }
}

impl Processors {
    /// Starts a processor on each of `cpus`, pinned to it. A thread the system
    /// refuses, or a pin it refuses, is the error (the workers already started
    /// are stopped and joined when `workers` drops).
    pub fn start(cpus: &[usize]) -> Result<Processors, LabError> {
        let (ready, pinned) = std::sync::mpsc::channel::<Result<(), LabError>>();
        let mut workers = Workers { queue: Arc::new(Queue::default()), threads: Vec::with_capacity(cpus.len()) };
        for (p, &cpu) in cpus.iter().enumerate() {
            let (queue, ready) = (Arc::clone(&workers.queue), ready.clone());
            let worker = thread::Builder::new().name(format!("brewput-P{p}")).spawn(move || {
                let pin = os::pin_current_thread(&[cpu]);
                let pinned = pin.is_ok();
                let _ = ready.send(pin);
                if pinned {
                    while let Some(task) = queue.next() {
                        task.run();
                    }
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
        let queue = Arc::clone(&self.0.queue);
        let (runnable, task) = async_task::spawn(task, move |runnable| queue.push(runnable));
        runnable.schedule();
        task.detach();
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.queue.stop();
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
        // Each worker holds the queue while it runs.
        let queue = Arc::downgrade(&processors.0.queue);
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
        assert!(queue.upgrade().is_none(), "a processor's thread still runs after the drop");
    }
}
