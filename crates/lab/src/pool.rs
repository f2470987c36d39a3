//! Thread-pool sizing (seed 003): `tasks` CPU-bound tasks of `work_us` each,
//! all submitted at once, run on a fixed pool of `threads` threads or on a
//! thread per task, confined to `cpus` CPUs. Measures the makespan (the last
//! task's completion), each task's latency from submission, and CPU time.
//! The model: a station of `cpus` processor-sharing servers (the OS shares
//! CPUs between runnable threads) entered only with one of `threads` tokens.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use brewput_measure::control::Control;
use brewput_measure::latency::Latency;
use serde::{Deserialize, Serialize};

use crate::burn::Burner;
use crate::error::{joined, LabError};
use crate::harness::on_cpus;
use crate::os;
use crate::seconds::seconds;
use crate::stats::Times;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolRun {
    pub tasks: usize,
    pub work_us: f64,
    /// Threads in the pool; `None` is a thread per task.
    pub threads: Option<usize>,
    pub cpus: usize,
    pub repetitions: usize,
    pub percentiles: Vec<f64>,
    /// Also report the latencies' percentile distribution (.hgrm rows).
    #[serde(default)]
    pub distribution: bool,
    /// The nice value to run at (None: as the caller).
    #[serde(default)]
    pub nice: Option<i32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PoolReport {
    pub cpus: usize,
    pub warnings: Vec<String>,
    pub cancelled: bool,
    pub repetitions: Vec<PoolRepetition>,
    pub latency: Times,
}

#[derive(Debug, Clone, Serialize)]
pub struct PoolRepetition {
    pub makespan_s: f64,
    pub throughput_per_s: f64,
    pub cpu_s: f64,
    pub utilization: f64,
    /// CPU time other processes used on the run's CPUs meanwhile (None where
    /// /proc/stat cannot be read).
    pub others_cpu_s: Option<f64>,
    /// This repetition's own task latencies (the run's `percentiles`, no
    /// distribution), whose spread across repetitions gives the intervals.
    pub latency: Times,
}

/// Runs the pool `run` describes, all repetitions. As for the coffee shop,
/// the bounds are checked on the Python side and times converted checked here.
pub fn run_pool(run: &PoolRun, control: &Control) -> Result<PoolReport, LabError> {
    let work = seconds("work_us", run.work_us * 1e-6)?;
    let burner = Burner::shared();
    let ((repetitions, latency), ids, warning) = on_cpus(run.cpus, run.nice, || {
        let mut repetitions = Vec::new();
        let mut latency = Latency::default();
        for _ in 0..run.repetitions {
            if control.is_cancelled() {
                break;
            }
            let cpus = os::allowed_cpus()?;
            let (cpu0, busy0) = (os::process_cpu_time(), os::busy_time_on(&cpus));
            let start = Instant::now();
            let task = || burn_unless_cancelled(&burner, work, control);
            let done = match run.threads {
                Some(k) => pool(k, run.tasks, task, start)?,
                None => thread_per_task(run.tasks, task, start)?,
            };
            if control.is_cancelled() {
                break; // a repetition cut short measured less than its tasks: not kept
            }
            let makespan = done.iter().max().copied().unwrap_or_default();
            let cpu = os::process_cpu_time().saturating_sub(cpu0);
            let others = busy0.zip(os::busy_time_on(&cpus)).map(|(b0, b1)| b1.saturating_sub(b0).saturating_sub(cpu));
            let mut own = Latency::default();
            for d in &done {
                own.record_duration(*d);
            }
            latency.merge(&own);
            repetitions.push(PoolRepetition {
                makespan_s: makespan.as_secs_f64(),
                throughput_per_s: run.tasks as f64 / makespan.as_secs_f64(),
                cpu_s: cpu.as_secs_f64(),
                utilization: cpu.as_secs_f64() / (makespan.as_secs_f64() * cpus.len() as f64),
                others_cpu_s: others.map(|d| d.as_secs_f64()),
                latency: Times::of(&own, &run.percentiles, false),
            });
        }
        Ok((repetitions, latency))
    })?;
    Ok(PoolReport {
        cpus: ids.len(),
        warnings: warning.into_iter().collect(),
        cancelled: control.is_cancelled(),
        repetitions,
        latency: Times::of(&latency, &run.percentiles, run.distribution),
    })
}

/// The most CPU a task burns between looks at the cancel flag, so that Ctrl-C
/// ends a repetition promptly whatever `--work` is; each look costs one clock read.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// One task's work; after a cancel the rest of it, and every task not yet
/// started, is skipped.
fn burn_unless_cancelled(burner: &Burner, work: Duration, control: &Control) {
    let mut left = work;
    while !left.is_zero() && !control.is_cancelled() {
        let slice = left.min(LOOK_EVERY);
        burner.burn(slice);
        left -= slice;
    }
}

/// `threads` workers take the tasks in turn; returns each task's completion time.
fn pool(threads: usize, tasks: usize, task: impl Fn() + Sync, start: Instant) -> Result<Vec<Duration>, LabError> {
    let next = AtomicUsize::new(0);
    thread::scope(|s| {
        let mut workers = Vec::with_capacity(threads);
        for _ in 0..threads {
            let worker = thread::Builder::new().spawn_scoped(s, || {
                let mut done = Vec::new();
                while next.fetch_add(1, Ordering::Relaxed) < tasks {
                    task();
                    done.push(start.elapsed());
                }
                done
            });
            // The workers already running take every task: a refusal loses none.
            workers.push(worker.map_err(|e| LabError::Os(format!("cannot start a pool thread: {e}")))?);
        }
        Ok(workers.into_iter().flat_map(|w| joined(w)).collect())
    })
}

/// A thread started for every task, all at once, then joined (the seed's
/// runEachTaskInNewThread).
fn thread_per_task(tasks: usize, task: impl Fn() + Sync, start: Instant) -> Result<Vec<Duration>, LabError> {
    thread::scope(|s| {
        let mut threads = Vec::with_capacity(tasks);
        for _ in 0..tasks {
            let spawned = thread::Builder::new().stack_size(64 * 1024).spawn_scoped(s, || {
                task();
                start.elapsed()
            });
            threads.push(spawned.map_err(|e| LabError::Os(format!("cannot start task thread: {e}")))?);
        }
        Ok(threads.into_iter().map(|t| joined(t)).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(threads: Option<usize>, cpus: usize) -> PoolReport {
        let run = PoolRun { tasks: 12, work_us: 2000.0, threads, cpus, repetitions: 1, percentiles: vec![50.0], distribution: false, nice: None };
        run_pool(&run, &Control::default()).unwrap()
    }

    #[test]
    fn a_cancel_ends_a_repetition_within_a_task_slice_and_keeps_no_partial_one() {
        // 1,000 tasks of 20 ms on one thread would take 20 s; a cancel after 100 ms
        // ends it at once, in either shape, and the cut repetition is not reported
        for threads in [Some(1), None] {
            let run = PoolRun { tasks: 1000, work_us: 20_000.0, threads, cpus: 1, repetitions: 3,
                                percentiles: vec![50.0], distribution: false, nice: None };
            let control = std::sync::Arc::new(Control::default());
            let canceller = std::sync::Arc::clone(&control);
            let started = Instant::now();
            let cancel = thread::spawn(move || {
                thread::sleep(Duration::from_millis(100));
                canceller.cancel();
            });
            let report = run_pool(&run, &control).unwrap();
            cancel.join().unwrap();
            assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
            assert!(report.cancelled);
            assert!(report.repetitions.is_empty());
        }
    }

    #[test]
    fn every_task_runs_once_in_either_shape() {
        for threads in [Some(1), Some(3), None] {
            let report = run(threads, 1);
            assert_eq!(report.latency.count, 12);
            assert_eq!(report.repetitions.len(), 1);
        }
    }
}
