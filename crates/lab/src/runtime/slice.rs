//! Go's preemption, at the granularity of an order: a task that has run for a
//! whole time slice without waiting for anything yields its processor, so more
//! customers than CPUs share them even in a kitchen where nobody ever waits
//! (ideal). A task that waits gives its processor away anyway, and yielding it
//! more often than Go would reorders the run queue: a customer that yielded
//! after every latte let parsteam's steaming task jump ahead of it, which Go
//! does not (a median of 3.0 ms at 2 CPUs against Go's and the model's 4).

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::time::{Duration, Instant};

use futures_lite::future::yield_now;

/// Go's scheduler preempts a goroutine that has run this long (sysmon's forcePreemptNS).
pub const SLICE: Duration = Duration::from_millis(10);

pub struct TimeSlice {
    running_since: Instant,
}

impl Default for TimeSlice {
    fn default() -> TimeSlice {
        TimeSlice { running_since: Instant::now() }
    }
}

impl TimeSlice {
    /// Runs `step`, then yields if the task has run a whole slice without waiting.
    pub async fn run<T>(&mut self, step: impl Future<Output = T>) -> T {
        let mut step = pin!(step);
        let mut waited = false;
        let out = poll_fn(|cx| {
            let poll = step.as_mut().poll(cx);
            waited |= poll.is_pending();
            poll
        })
        .await;
        if waited {
            self.running_since = Instant::now();
        } else if self.running_since.elapsed() >= SLICE {
            yield_now().await;
            self.running_since = Instant::now();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{Runtime, RuntimeKind};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn tasks_that_never_wait_share_one_processor_a_slice_at_a_time() {
        let cpu = crate::os::allowed_cpus().unwrap()[0];
        let runtime = Runtime::start(RuntimeKind::Tasks, &[cpu]).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let steps: Vec<Arc<AtomicUsize>> = (0..3).map(|_| Arc::new(AtomicUsize::new(0))).collect();
        let tasks: Vec<_> = steps
            .iter()
            .map(|count| {
                let (count, stop) = (Arc::clone(count), Arc::clone(&stop));
                runtime
                    .spawn("busy", async move {
                        let mut slice = TimeSlice::default();
                        while !stop.load(Ordering::Relaxed) {
                            slice
                                .run(async {
                                    let t0 = Instant::now();
                                    while t0.elapsed() < Duration::from_millis(1) {}
                                })
                                .await;
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                    .unwrap()
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
        tasks.into_iter().for_each(|task| task.join().unwrap());
        // Without the slice the first task would keep the processor and the
        // others make no step: each gets a share. The share, not a count: on a
        // busy machine the processor's thread runs less than the 300 ms, and
        // whole 10 ms slices go to one task at a time.
        let counts: Vec<usize> = steps.iter().map(|count| count.load(Ordering::Relaxed)).collect();
        let total: usize = counts.iter().sum();
        assert!(total >= 30 && counts.iter().all(|&count| count * 6 >= total), "{counts:?}");
    }
}
