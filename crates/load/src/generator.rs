//! A run: one thread, one event loop. The loop sends each request when its
//! intended time comes (waking for it on a timer to the microsecond, at most
//! once a tick: 50 µs unless the settings say otherwise), polls every request
//! in flight, records what each one measured, and gives its connection to the
//! next request waiting. No channel or lock of ours per request and no second
//! thread to wake: a request costs its exchange (http1.rs, and the system
//! calls) and little more.
//!
//! A request is timed from its intended start whatever happens to it: when
//! every connection is busy it waits in the in-flight window (its wait shows as
//! lag and in the response time); only when the window itself is full is it
//! dropped, and then counted as dropped. Nothing is bounded by hope: the
//! connections, the window and each request's time are all limits.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use brewput_measure::asked::Asked;
use brewput_measure::control::Control;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde::Deserialize;

use crate::clock::Alarm;
use crate::error::LoadError;
use crate::progress::LiveFigures;
use crate::record::{ErrorKind, Outcome, Recorder, RunSummary};
use crate::stages::{reported, Span};
use brewput_measure::arrivals::{Schedule, ScheduleSpec};
use crate::target::{Link, Resolved, Target};

/// Most connections (or concurrent commands) and most requests in flight.
pub const MAX_CONNECTIONS: usize = 10_000;
pub const MAX_IN_FLIGHT: u64 = 1_000_000;

/// The schedule wakes the loop at most once a tick: a request due in between
/// goes out at the next wake (the tick's, or an answer's), at most a tick late
/// (its lateness counted as lag and in its response time, as any). Waking
/// costs a context switch, for the generator and for a server it wakes: per
/// request at high rates that is most of a request's CPU (bench/RESULTS.md).
/// wrk2 and oha tick every millisecond; 0 wakes for every request.
pub const DEFAULT_TICK_SECONDS: f64 = 50e-6;
/// A longer tick would bunch a schedule's requests beyond recognition.
pub const MAX_TICK_SECONDS: f64 = 0.1;

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
    /// See [`DEFAULT_TICK_SECONDS`].
    #[serde(default = "default_tick")]
    pub tick_seconds: f64,
    /// Quantiles and shares at or below a time beyond the fixed list (thresholds ask for them).
    #[serde(default)]
    pub asked: Asked,
    /// The stretches to report, when not the schedule's own stages (a day's intervals: stages.rs).
    #[serde(default)]
    pub intervals: Option<Vec<Span>>,
}

fn default_tick() -> f64 {
    DEFAULT_TICK_SECONDS
}

impl LoadSettings {
    /// The request timeout and the tick.
    fn check(&self) -> Result<(Duration, Duration), LoadError> {
        self.schedule.check().map_err(LoadError::Input)?;
        if let Some(problem) = self.asked.problem() {
            return Err(LoadError::Input(problem));
        }
        crate::stages::check(&self.schedule, self.intervals.as_deref()).map_err(LoadError::Input)?;
        if !(1..=MAX_CONNECTIONS).contains(&self.connections) {
            return Err(LoadError::Input(format!("connections must be from 1 to {MAX_CONNECTIONS}")));
        }
        if !(1..=MAX_IN_FLIGHT).contains(&self.max_in_flight) {
            return Err(LoadError::Input(format!("max_in_flight must be from 1 to {MAX_IN_FLIGHT}")));
        }
        let timeout = Duration::try_from_secs_f64(self.timeout_seconds)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| LoadError::Input("timeout must be a positive number of seconds".into()))?;
        let tick = Duration::try_from_secs_f64(self.tick_seconds)
            .ok()
            .filter(|t| t.as_secs_f64() <= MAX_TICK_SECONDS)
            .ok_or_else(|| LoadError::Input(format!("tick must be from 0 to {MAX_TICK_SECONDS} seconds")))?;
        Ok((timeout, tick))
    }
}

#[derive(Clone, Copy)]
struct Job {
    intended_ns: u64,
    measured: bool,
}

/// How often, at least, the loop looks at the stop flag and posts its figures.
/// A tokio timer: with it always due this soon, a request's own timeout
/// (seconds away) never has to wake the runtime when it is set.
const LOOK: Duration = Duration::from_millis(50);
/// The most requests due that one turn of the loop sends or drops before it looks
/// for a cancel again (at 50 µs a tick, 80 million a second: above any rate allowed).
const CATCH_UP: u32 = 4096;

/// Runs the load and returns what was measured; `control` may stop it early
/// (the summary then says `interrupted`) and shows its progress meanwhile.
pub fn run(settings: &LoadSettings, control: &Arc<Control<LiveFigures>>) -> Result<RunSummary, LoadError> {
    let (timeout, tick) = settings.check()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LoadError::System(format!("cannot start the I/O runtime: {e}")))?;
    // The loop runs as a task, not as block_on's own future: the runtime wakes
    // a task of its own without the system call that wakes block_on.
    let run = runtime.spawn(run_async(settings.clone(), timeout, tick, Arc::clone(control)));
    runtime
        .block_on(run)
        .unwrap_or_else(|e| Err(LoadError::System(format!("the generator failed: {e}"))))
}

async fn run_async(settings: LoadSettings, timeout: Duration, tick: Duration, control: Arc<Control<LiveFigures>>)
    -> Result<RunSummary, LoadError> {
    let target = Resolved::resolve(&settings.target, timeout).await?;
    let spans = reported(&settings.schedule, settings.intervals.as_deref());
    let mut recorder = match &settings.interval_log {
        Some(path) => Recorder::with_interval_log(&settings.schedule, spans, std::path::Path::new(path))
            .map_err(|e| LoadError::Output(format!("{path}: cannot write the interval log: {e}")))?,
        None => Recorder::new(&settings.schedule, spans),
    };
    let system = |e: std::io::Error| LoadError::System(format!("cannot keep time: {e}"));
    let mut alarm = Alarm::new().map_err(system)?;
    let mut schedule = settings.schedule.iter();
    let mut next = following(&mut schedule);
    let mut idle: Vec<Link> = (0..settings.connections).map(|_| Link::default()).collect();
    let mut waiting: VecDeque<Job> = VecDeque::new();
    let mut flying = FuturesUnordered::new();
    let mut paced_ns = None;
    let mut look = tokio::time::interval(LOOK);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut quiet_until_ns = 0;
    let start = Instant::now();
    control.progress().start(start);
    loop {
        let now_ns = start.elapsed().as_nanos() as u64;
        if control.is_cancelled() {
            break;
        }
        // At most CATCH_UP requests at a time, so that a schedule far ahead of the
        // sender (at millions a second, every one dropped) still sees a cancel.
        let mut caught_up = 0;
        while let Some(job) = next.filter(|job| job.intended_ns <= now_ns && caught_up < CATCH_UP) {
            caught_up += 1;
            if (waiting.len() + flying.len()) as u64 >= settings.max_in_flight {
                recorder.dropped(job.measured, job.intended_ns);
            } else if let Some(link) = idle.pop() {
                flying.push(carry(&target, link, job, start, timeout));
            } else {
                waiting.push_back(job);
            }
            next = following(&mut schedule);
        }
        if next.is_none() {
            paced_ns.get_or_insert(now_ns);
            if flying.is_empty() {
                break;
            }
        }
        tokio::select! {
            biased;
            _ = look.tick() => control.progress().post(recorder.progress((waiting.len() + flying.len()) as u64)),
            Some(carried) = flying.next(), if !flying.is_empty() => {
                let Carried { link, job, sent_ns, done_ns, outcome } = carried;
                recorder.finished(job.measured, job.intended_ns, sent_ns, done_ns, outcome);
                match waiting.pop_front() {
                    Some(job) => flying.push(carry(&target, link, job, start, timeout)),
                    None => idle.push(link),
                }
            }
            woke = alarm.until(start + Duration::from_nanos(next.map_or(0, |job| job.intended_ns.max(quiet_until_ns)))),
                if next.is_some() => {
                woke.map_err(system)?;
                quiet_until_ns = (start.elapsed() + tick).as_nanos() as u64;
            }
        }
    }
    // Stopped: what is still on the wire is not measured.
    drop(flying);
    let paced_seconds = paced_ns.unwrap_or_else(|| start.elapsed().as_nanos() as u64) as f64 * 1e-9;
    let spec = &settings.schedule;
    let mut summary = recorder.summary(spec.target_rate(), paced_seconds, control.is_cancelled());
    recorder.answer(&settings.asked, &mut summary);
    summary.interrupted = control.is_cancelled();
    summary.interval_log_error = recorder.finish_interval_log();
    Ok(summary)
}

/// The schedule's next request, or none when it ends (or runs beyond time).
fn following(schedule: &mut Schedule) -> Option<Job> {
    let intended = schedule.next()?;
    let offset = Duration::try_from_secs_f64(intended.seconds).ok()?;
    Some(Job { intended_ns: offset.as_nanos() as u64, measured: intended.measured })
}

/// What became of one request, and its connection for the next.
struct Carried {
    link: Link,
    job: Job,
    sent_ns: u64,
    done_ns: u64,
    outcome: Outcome,
}

/// One request on `link`, timed from its first poll (the send) to its end.
async fn carry(target: &Resolved, mut link: Link, job: Job, start: Instant, timeout: Duration) -> Carried {
    let sent_ns = start.elapsed().as_nanos() as u64;
    let outcome = match tokio::time::timeout(timeout, target.attempt(&mut link)).await {
        Ok(outcome) => outcome,
        Err(_) => {
            link.reset();
            Outcome::Error(ErrorKind::Timeout)
        }
    };
    Carried { link, job, sent_ns, done_ns: start.elapsed().as_nanos() as u64, outcome }
}
