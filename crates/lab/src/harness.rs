//! The benchmark harness of the talk: customers order lattes from a kitchen
//! while the run is confined to K CPUs, and the latencies, throughput and CPU
//! time of a measured window (after a discarded warm-up) are recorded, over
//! several repetitions, each on a freshly opened kitchen.
//!
//! Customers, like the kitchens' baristas, are tasks on the run's runtime
//! (crate::runtime: Go-like tasks on K processors, or a thread each).
//!
//! Load is either closed (`par` customers, each ordering again as soon as its
//! latte is ready) or open (orders arrive at a target rate, Poisson or evenly
//! spaced, into a bounded request queue served by `par` customers; an order
//! that finds the queue full is dropped and counted). Open-loop latency runs
//! from each order's intended arrival time, never from when the generator got
//! round to it, so a stall cannot hide itself (no coordinated omission).

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use brewput_measure::control::Control;
use flume::{bounded, TrySendError};
use brewput_measure::arrivals::{Arrivals, ScheduleSpec};
use serde::{Deserialize, Serialize};

use crate::burn::Burner;
use crate::error::{joined, LabError};
use crate::kitchen::{Design, Kitchen, Work};
use crate::os;
use crate::recipe::RecipeSettings;
use crate::runtime::{Joined, Runtime, RuntimeKind, TimeSlice};
use crate::seconds::seconds;
use crate::stats::{Latencies, Times};

/// How often a waiting harness looks at the cancel flag.
const CHECK_EVERY: Duration = Duration::from_millis(10);

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoffeeRun {
    pub kitchen: String,
    /// What a customer's or a barista's task is: Go-like tasks or threads
    /// (no default here: python/brewput/lab/options.py RUNTIMES holds it).
    pub runtime: RuntimeKind,
    pub cpus: usize,
    pub par: usize,
    pub recipe: RecipeSettings,
    pub duration_ms: f64,
    pub warmup_ms: f64,
    pub repetitions: usize,
    #[serde(default)]
    pub load: Load,
    pub percentiles: Vec<f64>,
    /// Also report the response times' percentile distribution (.hgrm rows).
    #[serde(default)]
    pub distribution: bool,
    /// The nice value to run at (None: as the caller); see [`os::set_nice`].
    #[serde(default)]
    pub nice: Option<i32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Load {
    #[default]
    Closed,
    Open { rate_per_s: f64, arrivals: Arrivals, queue: usize, seed: u64 },
}

#[derive(Debug, Clone, Serialize)]
pub struct CoffeeReport {
    /// The CPUs the run was confined to (fewer than asked when the machine has fewer).
    pub cpus: usize,
    pub cpu_ids: Vec<usize>,
    pub warnings: Vec<String>,
    pub burn_iterations_per_us: f64,
    /// Ctrl-C stopped the run: the repetitions finished so far are kept.
    pub cancelled: bool,
    pub repetitions: Vec<Repetition>,
    pub response: Times,
    pub service: Times,
    pub waiting: Times,
}

#[derive(Debug, Clone, Serialize)]
pub struct Repetition {
    pub window_s: f64,
    /// Open loop: orders whose intended arrival fell in the window (closed: null).
    pub offered: Option<u64>,
    pub dropped: u64,
    pub completed: u64,
    pub throughput_per_s: f64,
    pub cpu_s: f64,
    /// CPU time used over CPU time available in the window (all threads of the process).
    pub utilization: f64,
    /// CPU time other processes used on the run's CPUs in the window (None
    /// where /proc/stat cannot be read): what a busy machine took away.
    pub others_cpu_s: Option<f64>,
    /// This repetition's own response and service times (the run's `percentiles`,
    /// no distribution): repetitions are independent, so their spread gives the
    /// figures' confidence intervals.
    pub response: Times,
    pub service: Times,
}

/// Runs `f` on a new thread confined to the first `cpus` CPUs this process may
/// use, at `nice` if given; every thread `f` starts inherits both, the
/// caller's thread neither.
pub fn on_cpus<T: Send>(
    cpus: usize,
    nice: Option<i32>,
    f: impl FnOnce() -> Result<T, LabError> + Send,
) -> Result<(T, Vec<usize>, Option<String>), LabError> {
    let (ids, warning) = os::choose_cpus(cpus)?;
    let out = thread::scope(|s| {
        thread::Builder::new()
            .name("brewput-lab".into())
            .spawn_scoped(s, || {
                os::pin_current_thread(&ids)?;
                if let Some(nice) = nice {
                    os::set_nice(nice)?;
                }
                f()
            })
            .map_err(|e| LabError::Os(format!("cannot start the lab thread: {e}")))?
            .join()
            .map_err(LabError::from_panic)?
    })?;
    Ok((out, ids, warning))
}

/// Runs the coffee shop `run` describes, all repetitions. The settings'
/// bounds are checked on the Python side (python/brewput/lab/options.py,
/// where the option a person typed is known); here every time is converted
/// with a checked form, so a value out of range is an error, never a panic.
pub fn run_coffee(run: &CoffeeRun, control: &Control) -> Result<CoffeeReport, LabError> {
    let recipe = run.recipe.recipe()?;
    let span = Span {
        warmup: seconds("warmup_ms", run.warmup_ms * 1e-3)?,
        duration: seconds("duration_ms", run.duration_ms * 1e-3)?,
    };
    let load = match run.load {
        Load::Closed => None,
        Load::Open { rate_per_s, arrivals, queue, seed } => Some((Orders::new(rate_per_s, arrivals, seed)?, queue)),
    };
    let design = Design::parse(&run.kitchen)?; // a bad name fails before any CPU is pinned
    let burner = Burner::shared();
    let work = Work { recipe, burner };
    let ((repetitions, latencies), ids, warning) = on_cpus(run.cpus, run.nice, || {
        let runtime = Runtime::start(run.runtime, &os::allowed_cpus()?)?;
        let mut repetitions = Vec::new();
        let mut all = Latencies::default();
        for _ in 0..run.repetitions {
            if control.is_cancelled() {
                break;
            }
            let kitchen = Arc::new(design.open(work, &runtime)?);
            let measured = repeat(&runtime, &kitchen, run.par, &span, load, &run.percentiles, control);
            drop(kitchen); // pipelines stop their baristas here, outside the window
            let (repetition, latencies) = measured?;
            if control.is_cancelled() {
                break;
            }
            repetitions.push(repetition);
            all.merge(&latencies);
        }
        Ok((repetitions, all))
    })?;
    Ok(CoffeeReport {
        cpus: ids.len(),
        cpu_ids: ids,
        warnings: warning.into_iter().collect(),
        burn_iterations_per_us: burner.iterations_per_us(),
        cancelled: control.is_cancelled(),
        repetitions,
        response: Times::of(&latencies.response, &run.percentiles, run.distribution),
        service: Times::of(&latencies.service, &run.percentiles, false),
        waiting: Times::of(&latencies.waiting, &run.percentiles, false),
    })
}

/// A repetition's warm-up and measured window.
struct Span {
    warmup: Duration,
    duration: Duration,
}

/// The measured window of one repetition: what ends in it counts.
#[derive(Clone, Copy)]
struct Window {
    from: Instant,
    until: Instant,
}

impl Window {
    fn holds(&self, t: Instant) -> bool {
        self.from <= t && t < self.until
    }

    /// Sleeps through the window (checking for a cancel), samples CPU time at
    /// its ends, then raises `stop`.
    fn watch(&self, stop: &AtomicBool, control: &Control) -> Watched {
        let cpus = os::allowed_cpus().unwrap_or_default();
        sleep_until(self.from, control);
        let (cpu0, busy0, t0) = (os::process_cpu_time(), os::busy_time_on(&cpus), Instant::now());
        sleep_until(self.until, control);
        let (cpu1, busy1, t1) = (os::process_cpu_time(), os::busy_time_on(&cpus), Instant::now());
        stop.store(true, Ordering::Relaxed);
        let cpu = cpu1.saturating_sub(cpu0);
        let others = busy0.zip(busy1).map(|(b0, b1)| b1.saturating_sub(b0).saturating_sub(cpu));
        Watched { cpu, others, span: t1 - t0, cpus: cpus.len().max(1) }
    }
}

/// What the watcher saw of one window.
struct Watched {
    /// CPU time of this process.
    cpu: Duration,
    /// CPU time of every other process on the run's CPUs.
    others: Option<Duration>,
    /// Wall time between the samples.
    span: Duration,
    cpus: usize,
}

fn sleep_until(t: Instant, control: &Control) {
    loop {
        let now = Instant::now();
        if now >= t || control.is_cancelled() {
            return;
        }
        thread::sleep((t - now).min(CHECK_EVERY));
    }
}

/// One repetition on an open kitchen.
fn repeat(
    runtime: &Runtime,
    kitchen: &Arc<Kitchen>,
    par: usize,
    span: &Span,
    load: Option<(Orders, usize)>,
    percentiles: &[f64],
    control: &Control,
) -> Result<(Repetition, Latencies), LabError> {
    let start = Instant::now();
    let beyond_the_clock = || LabError::Input("warmup_ms + duration_ms: beyond what the clock can time".into());
    let from = start.checked_add(span.warmup).ok_or_else(beyond_the_clock)?;
    let window = Window { from, until: from.checked_add(span.duration).ok_or_else(beyond_the_clock)? };
    let stop = Arc::new(AtomicBool::new(false));
    let (latencies, offered, dropped, watched) = match load {
        None => {
            let (latencies, watched) = closed(runtime, kitchen, par, window, &stop, control)?;
            (latencies, None, 0, watched)
        }
        Some((orders, queue)) => open(runtime, kitchen, par, queue, &orders, window, &stop, control)?,
    };
    let completed = latencies.response.count();
    let window_s = span.duration.as_secs_f64();
    let repetition = Repetition {
        window_s,
        offered,
        dropped,
        completed,
        throughput_per_s: completed as f64 / window_s,
        cpu_s: watched.cpu.as_secs_f64(),
        utilization: watched.cpu.as_secs_f64() / (watched.span.as_secs_f64() * watched.cpus as f64),
        others_cpu_s: watched.others.map(|d| d.as_secs_f64()),
        response: Times::of(&latencies.response, percentiles, false),
        service: Times::of(&latencies.service, percentiles, false),
    };
    Ok((repetition, latencies))
}

/// Starts `n` customers, each the task `customer` makes. A task the runtime
/// refuses raises `stop`, and those already started are waited for (whatever
/// became of them) before the refusal is returned as the error.
fn start_customers<F: Future<Output = Result<Latencies, LabError>> + Send + 'static>(
    runtime: &Runtime,
    n: usize,
    stop: &AtomicBool,
    customer: impl Fn() -> F,
) -> Result<Vec<Joined<Result<Latencies, LabError>>>, LabError> {
    let mut started = Vec::with_capacity(n);
    for _ in 0..n {
        match runtime.spawn("a customer", customer()) {
            Ok(joined) => started.push(joined),
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                for joined in started {
                    let _ = joined.join(); // one that failed too is part of the same refusal
                }
                return Err(e);
            }
        }
    }
    Ok(started)
}

/// Every customer's latencies, merged; the first customer's error if any.
fn merged(customers: Vec<Joined<Result<Latencies, LabError>>>) -> Result<Latencies, LabError> {
    let mut all = Latencies::default();
    let mut failed = None;
    for customer in customers {
        match customer.join().and_then(|latencies| latencies) {
            Ok(latencies) => all.merge(&latencies),
            Err(e) => failed = failed.or(Some(e)),
        }
    }
    failed.map_or(Ok(all), Err)
}

/// `par` customers ordering back to back; each order's intended start is when
/// its customer placed it. A customer keeps its processor between orders, as
/// a goroutine does, unless it has run a whole time slice without waiting
/// (crate::runtime::TimeSlice, Go's preemption).
fn closed(
    runtime: &Runtime,
    kitchen: &Arc<Kitchen>,
    par: usize,
    window: Window,
    stop: &Arc<AtomicBool>,
    control: &Control,
) -> Result<(Latencies, Watched), LabError> {
    let orders = Arc::new(AtomicU64::new(0));
    let customers = start_customers(runtime, par, stop, || {
        let (kitchen, orders, stop) = (Arc::clone(kitchen), Arc::clone(&orders), Arc::clone(stop));
        async move {
            let (mut latencies, mut slice) = (Latencies::default(), TimeSlice::default());
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                slice.run(kitchen.brew(orders.fetch_add(1, Ordering::Relaxed))).await?;
                let ended = Instant::now();
                if window.holds(ended) {
                    latencies.record(started, started, ended);
                }
            }
            Ok(latencies)
        }
    })?;
    let watched = window.watch(stop, control);
    Ok((merged(customers)?, watched))
}

/// How open-loop orders arrive: at a steady rate, evenly spaced or Poisson,
/// drawn from the seed (the load generator's schedule, brewput_measure::arrivals).
#[derive(Clone, Copy)]
struct Orders {
    arrivals: Arrivals,
    rate_per_s: f64,
    seed: u64,
}

impl Orders {
    fn new(rate_per_s: f64, arrivals: Arrivals, seed: u64) -> Result<Orders, LabError> {
        // A rate whose gap is not a time (0, negative, NaN, too slow for a Duration) is refused by name.
        seconds("rate_per_s", 1.0 / rate_per_s).map_err(|e| {
            LabError::Input(format!("rate_per_s: expected a positive rate, got {rate_per_s} ({e})"))
        })?;
        Ok(Orders { arrivals, rate_per_s, seed })
    }

    /// Each order's intended time from `start`, up to (not including) `until`:
    /// the same times in every repetition.
    fn intended(&self, start: Instant, until: Instant) -> impl Iterator<Item = Instant> {
        let seconds = until.saturating_duration_since(start).as_secs_f64();
        ScheduleSpec::steady(self.arrivals, self.rate_per_s, seconds, self.seed)
            .iter()
            // An arrival beyond the clock's range is beyond the window too.
            .map_while(move |i| start.checked_add(Duration::try_from_secs_f64(i.seconds).ok()?))
            .take_while(move |t| *t < until)
    }
}

/// A generator placing orders at their intended times into a bounded queue,
/// and `par` customers serving it (sharing processors as in `closed`). A late generator catches up at once: the
/// intended times, not its own pace, set the load. The generator is a thread
/// of its own in either runtime: it sleeps between arrivals.
#[allow(clippy::too_many_arguments)]
fn open(
    runtime: &Runtime,
    kitchen: &Arc<Kitchen>,
    par: usize,
    queue: usize,
    orders: &Orders,
    window: Window,
    stop: &Arc<AtomicBool>,
    control: &Control,
) -> Result<(Latencies, Option<u64>, u64, Watched), LabError> {
    let (requests, inbox) = bounded::<(u64, Instant)>(queue);
    let customers = start_customers(runtime, par, stop, || {
        let (kitchen, inbox, stop) = (Arc::clone(kitchen), inbox.clone(), Arc::clone(stop));
        async move {
            let (mut latencies, mut slice) = (Latencies::default(), TimeSlice::default());
            while let Ok((order, intended)) = slice.run(inbox.recv_async()).await {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let started = Instant::now();
                slice.run(kitchen.brew(order)).await?;
                let ended = Instant::now();
                if window.holds(ended) {
                    latencies.record(intended, started, ended);
                }
            }
            Ok(latencies)
        }
    })?;
    drop(inbox);
    thread::scope(|s| {
        let generator = thread::Builder::new().spawn_scoped(s, move || {
            let (mut offered, mut dropped) = (0u64, 0u64);
            for (order, intended) in (0..).zip(orders.intended(Instant::now(), window.until)) {
                sleep_until(intended, control);
                if stop.load(Ordering::Relaxed) || control.is_cancelled() {
                    break;
                }
                let counted = window.holds(intended);
                offered += counted as u64;
                if let Err(TrySendError::Full(_)) = requests.try_send((order, intended)) {
                    dropped += counted as u64;
                }
            }
            (offered, dropped) // dropping `requests` lets idle customers finish
        });
        let generator = match generator {
            Ok(generator) => generator,
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                // `requests` went with the refused closure, so the customers finish.
                let _ = merged(customers);
                return Err(LabError::Os(format!("cannot start the order generator thread: {e}")));
            }
        };
        let watched = window.watch(stop, control);
        let (offered, dropped) = joined(generator);
        Ok((merged(customers)?, Some(offered), dropped, watched))
    })
}
