//! A run: the schedule paced by one thread that sleeps to each intended time,
//! the requests carried by a fixed set of workers (one connection each) on a
//! single-threaded tokio runtime.
//!
//! A request is timed from its intended start whatever happens to it: when
//! every connection is busy it waits in the in-flight window (its wait shows as
//! lag and in the response time); only when the window itself is full is it
//! dropped, and then counted as dropped. Nothing is bounded by hope: the
//! connections, the window and each request's time are all limits.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::{mpsc, watch, Mutex};

use crate::clock;
use crate::control::LoadControl;
use crate::error::LoadError;
use crate::record::{ErrorKind, Outcome, Recorder, RunSummary};
use crate::schedule::{Schedule, ScheduleSpec};
use crate::target::{connect, Link, Resolved, Target};

/// Most connections (or concurrent commands) and most requests in flight.
pub const MAX_CONNECTIONS: usize = 10_000;
pub const MAX_IN_FLIGHT: u64 = 1_000_000;

#[derive(Debug, Clone, Deserialize)]
pub struct LoadSettings {
    pub target: Target,
    pub schedule: ScheduleSpec,
    pub connections: usize,
    pub max_in_flight: u64,
    pub timeout_seconds: f64,
    /// Where to write the interval log (`.hlog`), if anywhere.
    #[serde(default)]
    pub interval_log: Option<String>,
}

impl LoadSettings {
    fn check(&self) -> Result<Duration, LoadError> {
        self.schedule.check().map_err(LoadError::Input)?;
        if !(1..=MAX_CONNECTIONS).contains(&self.connections) {
            return Err(LoadError::Input(format!("connections must be from 1 to {MAX_CONNECTIONS}")));
        }
        if !(1..=MAX_IN_FLIGHT).contains(&self.max_in_flight) {
            return Err(LoadError::Input(format!("max_in_flight must be from 1 to {MAX_IN_FLIGHT}")));
        }
        Duration::try_from_secs_f64(self.timeout_seconds)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| LoadError::Input("timeout must be a positive number of seconds".into()))
    }
}

struct Job {
    intended_ns: u64,
    measured: bool,
}

/// Runs the load and returns what was measured; `control` may stop it early
/// (the summary then says `interrupted`) and shows its progress meanwhile.
pub fn run(settings: &LoadSettings, control: &Arc<LoadControl>) -> Result<RunSummary, LoadError> {
    let timeout = settings.check()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LoadError::System(format!("cannot start the I/O runtime: {e}")))?;
    runtime.block_on(run_async(settings, timeout, Arc::clone(control)))
}

async fn run_async(settings: &LoadSettings, timeout: Duration, control: Arc<LoadControl>) -> Result<RunSummary, LoadError> {
    let target = Arc::new(resolve(&settings.target, timeout).await?);
    *control.recorder() = match &settings.interval_log {
        Some(path) => Recorder::with_interval_log(std::path::Path::new(path))
            .map_err(|e| LoadError::Output(format!("{path}: cannot write the interval log: {e}")))?,
        None => Recorder::default(),
    };
    control.in_flight.store(0, Ordering::Relaxed);
    let (jobs_in, jobs_out) = mpsc::unbounded_channel::<Job>();
    let jobs_out = Arc::new(Mutex::new(jobs_out));
    let (stop_tx, stop_rx) = watch::channel(false);
    let start = Instant::now();
    control.start(start);

    let workers: Vec<_> = (0..settings.connections)
        .map(|_| {
            let worker = Worker { target: Arc::clone(&target), control: Arc::clone(&control), start, timeout };
            tokio::spawn(worker.serve(Arc::clone(&jobs_out), stop_rx.clone()))
        })
        .collect();
    let watcher = {
        let control = Arc::clone(&control);
        tokio::spawn(async move {
            while !control.stopped() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let _ = stop_tx.send(true);
            std::future::pending::<()>().await // keeps the sender, so workers see one change
        })
    };
    let pacer = {
        let (schedule, control, window) = (settings.schedule.iter(), Arc::clone(&control), settings.max_in_flight);
        tokio::task::spawn_blocking(move || pace(schedule, start, &control, jobs_in, window))
    };
    let paced_seconds = pacer.await.map_err(|e| LoadError::System(format!("the pacing thread failed: {e}")))?;
    for worker in workers {
        let _ = worker.await;
    }
    watcher.abort();
    let spec = &settings.schedule;
    let mut recorder = control.recorder();
    let mut summary = recorder.summary(&spec.stage_bounds(), spec.target_rate(), paced_seconds);
    summary.interrupted = control.stopped();
    summary.interval_log_error = recorder.finish_interval_log();
    Ok(summary)
}

async fn resolve(target: &Target, timeout: Duration) -> Result<Resolved, LoadError> {
    match target {
        Target::Exec { command } => Ok(Resolved::Exec { command: command.clone() }),
        Target::Http { host, port, authority, path, method } => {
            let unreachable = |why: String| LoadError::Unreachable(format!("cannot connect to {authority}: {why}"));
            let addr: SocketAddr = tokio::net::lookup_host((host.as_str(), *port))
                .await
                .map_err(|e| unreachable(format!("cannot resolve {host}: {}", plain(&e))))?
                .next()
                .ok_or_else(|| unreachable(format!("{host} has no address")))?;
            let method = hyper::Method::from_bytes(method.as_bytes())
                .map_err(|_| LoadError::Input(format!("method {method:?} is not an HTTP method")))?;
            // One connection first, so that a target that is not there is one
            // clear error before the run, not a run of connect failures.
            match tokio::time::timeout(timeout.min(Duration::from_secs(5)), connect(addr)).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(unreachable(plain(&e))),
                Err(_) => return Err(unreachable("no answer to the connection attempt".into())),
            }
            Ok(Resolved::Http { addr, authority: authority.clone(), path: path.clone(), method })
        }
    }
}

/// An I/O error as words, without the OS's error number.
fn plain(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused (is the server running?)".into(),
        _ => {
            let text = e.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_lowercase()
        }
    }
}

/// Hands each request to the workers at its intended time; returns the
/// seconds the schedule ran.
fn pace(schedule: Schedule, start: Instant, control: &LoadControl, jobs: mpsc::UnboundedSender<Job>, window: u64) -> f64 {
    clock::precise_sleeps();
    for intended in schedule {
        let Ok(offset) = Duration::try_from_secs_f64(intended.seconds) else { break };
        if !clock::sleep_until(start + offset, || control.stopped()) {
            break;
        }
        if control.in_flight.load(Ordering::Relaxed) >= window {
            control.recorder().dropped(intended.measured);
            continue;
        }
        control.in_flight.fetch_add(1, Ordering::Relaxed);
        let job = Job { intended_ns: offset.as_nanos() as u64, measured: intended.measured };
        if jobs.send(job).is_err() {
            break;
        }
    }
    start.elapsed().as_secs_f64()
}

struct Worker {
    target: Arc<Resolved>,
    control: Arc<LoadControl>,
    start: Instant,
    timeout: Duration,
}

impl Worker {
    fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    async fn serve(self, jobs: Arc<Mutex<mpsc::UnboundedReceiver<Job>>>, mut stop: watch::Receiver<bool>) {
        let mut link = Link::default();
        loop {
            let job = {
                let mut jobs = jobs.lock().await;
                tokio::select! {
                    job = jobs.recv() => job,
                    _ = stop.changed() => None,
                }
            };
            let Some(job) = job else { break };
            let sent_ns = self.now_ns();
            let attempt = tokio::select! {
                attempt = tokio::time::timeout(self.timeout, self.target.attempt(&mut link)) => Some(attempt),
                _ = stop.changed() => None,
            };
            let Some(attempt) = attempt else {
                self.control.in_flight.fetch_sub(1, Ordering::Relaxed);
                break; // stopped: what is still on the wire is not measured
            };
            let outcome = attempt.unwrap_or_else(|_| {
                link.reset();
                Outcome::Error(ErrorKind::Timeout)
            });
            let done_ns = self.now_ns();
            self.control.recorder().finished(job.measured, job.intended_ns, sent_ns, done_ns, outcome);
            self.control.in_flight.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
