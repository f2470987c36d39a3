//! What a run measured: three HdrHistograms and the counts beside them.
//!
//! - response = done − intended: what a user arriving on schedule waits,
//!   free of coordinated omission (a stall delays every request due during it);
//! - service = done − sent: what the server took once the request was on the
//!   wire (the uncorrected view most tools report);
//! - lag = sent − intended: how late the generator itself was.
//!
//! Values are recorded in nanoseconds by the measuring core
//! (brewput_measure::latency: three significant digits from 1 ns to an hour,
//! memory fixed whatever the duration) and reported in seconds.

use std::collections::BTreeMap;

use brewput_measure::asked::{Answers, Asked};
use brewput_measure::latency::{histogram, Distribution, Latency};
use serde::Serialize;

use crate::hlog::IntervalLog;
use crate::progress::Figures;
use brewput_measure::arrivals::ScheduleSpec;
use crate::slots::{Slots, SlotsSummary};
use crate::stages::Span;

/// Requests sent more than this after their intended time count as late.
pub const LATE_NS: u64 = 1_000_000;

/// How a request failed without an answer to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorKind {
    /// The connection could not be made (refused, unreachable).
    Connect,
    /// The TLS handshake failed (an untrusted certificate, not TLS).
    Tls,
    /// No complete answer within the timeout.
    Timeout,
    /// The connection broke or the answer was not HTTP.
    Http,
    /// The command could not be started.
    Spawn,
}

impl ErrorKind {
    fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Tls => "tls",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Http => "http",
            ErrorKind::Spawn => "spawn",
        }
    }
}

/// What became of one sent request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// An HTTP answer with this status.
    Status(u16),
    /// A command that exited (true: with status 0).
    Exited(bool),
    Error(ErrorKind),
}

/// An answer as counted: an HTTP status class (2 for `2xx`) or a command's exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Answer {
    Class(u16),
    Exit(bool),
}

impl Answer {
    fn name(self) -> String {
        match self {
            Answer::Class(class) => format!("{class}xx"),
            Answer::Exit(true) => "exit 0".into(),
            Answer::Exit(false) => "exit non-0".into(),
        }
    }
}

pub struct Recorder {
    response: Latency,
    service: Latency,
    lag: Latency,
    sent: u64,
    late: u64,
    dropped: u64,
    warmup: u64,
    answers: BTreeMap<Answer, u64>,
    errors: BTreeMap<&'static str, u64>,
    failed: u64,
    /// Requests sent in each second of the run, measured or not (for stage and
    /// ramp rates); at most one entry per second of the schedule.
    sent_per_second: Vec<u64>,
    last_done_ns: u64,
    first_measured_ns: Option<u64>,
    /// The schedule's measured-request cap and length, to tell where its last stage ended.
    requests: Option<u64>,
    total_seconds: Option<f64>,
    /// One per stretch of the schedule (stages.rs), in order.
    stages: Vec<StageTally>,
    /// The answers by slot of intended start, for batch-means intervals.
    slots: Slots,
    interval_log: Option<IntervalLog>,
}

/// A stage's trend is judged on this many equal batches of its intended starts.
const BATCHES: usize = 10;
/// Student's t, two-sided 99.9 %, for the slope of `BATCHES` batch means (8
/// degrees of freedom): a stage is settled unless its response time drifts
/// beyond this many standard errors of the slope.
const SETTLED_T: f64 = 5.041;

/// What one stretch of the schedule measured: the requests whose intended
/// start fell in it, wherever they were sent or answered.
///
/// No per-stage warm-up is skipped, so that the stages' counts add up to the
/// run's and a short stage keeps its samples; instead `settled` says whether
/// the stage's response times still drifted across it: the queue left by the
/// stage before draining, or one growing without bound, shows as a slope of
/// its batch means.
struct StageTally {
    span: Span,
    start_ns: u64,
    /// Where its measured requests begin: its start, or the warm-up's end.
    measured_from_ns: u64,
    /// The width of one trend batch; none for an open-ended stage.
    batch_ns: Option<f64>,
    response: Latency,
    service_sum_ns: u128,
    measured: u64,
    failed: u64,
    dropped: u64,
    last_done_ns: u64,
    /// (answers, sum of their response times in ns) per batch.
    batches: [(u64, f64); BATCHES],
}

fn ns(seconds: f64) -> u64 {
    std::time::Duration::try_from_secs_f64(seconds).map_or(u64::MAX, |d| d.as_nanos().min(u64::MAX as u128) as u64)
}

impl StageTally {
    fn new(span: Span, warmup_seconds: f64) -> StageTally {
        let measured_from = span.start_seconds.max(warmup_seconds).min(span.end_seconds);
        let width = (span.end_seconds - measured_from) * 1e9 / BATCHES as f64;
        StageTally {
            span,
            start_ns: ns(span.start_seconds),
            measured_from_ns: ns(measured_from),
            batch_ns: (width.is_finite() && width > 0.0).then_some(width),
            response: Latency::default(),
            service_sum_ns: 0,
            measured: 0,
            failed: 0,
            dropped: 0,
            last_done_ns: 0,
            batches: [(0, 0.0); BATCHES],
        }
    }

    fn answered(&mut self, intended_ns: u64, response_ns: u64, service_ns: u64) {
        self.response.record(response_ns.max(1));
        self.service_sum_ns += service_ns as u128;
        if let Some(width) = self.batch_ns {
            let batch = (intended_ns.saturating_sub(self.measured_from_ns) as f64 / width) as usize;
            let (count, sum) = &mut self.batches[batch.min(BATCHES - 1)];
            *count += 1;
            *sum += response_ns as f64;
        }
    }

    /// Whether the batch means show no slope (None: a batch without answers).
    fn settled(&self) -> Option<bool> {
        if self.batch_ns.is_none() || self.batches.iter().any(|(n, _)| *n == 0) {
            return None;
        }
        let means: Vec<f64> = self.batches.iter().map(|(n, sum)| sum / *n as f64).collect();
        let b = BATCHES as f64;
        let x_mean = (b - 1.0) / 2.0;
        let y_mean = means.iter().sum::<f64>() / b;
        let sxx: f64 = (0..BATCHES).map(|i| (i as f64 - x_mean).powi(2)).sum();
        let slope = means.iter().enumerate().map(|(i, y)| (i as f64 - x_mean) * (y - y_mean)).sum::<f64>() / sxx;
        let residual: f64 =
            means.iter().enumerate().map(|(i, y)| (y - y_mean - slope * (i as f64 - x_mean)).powi(2)).sum();
        let standard_error = (residual / (b - 2.0) / sxx).sqrt();
        Some(slope.abs() <= SETTLED_T * standard_error)
    }

    fn summary(&self, sent_per_second: &[u64], end_seconds: f64) -> StageSummary {
        // A stage the run stopped before ends where it starts.
        let (from, to) = (self.span.start_seconds, self.span.end_seconds.min(end_seconds).max(self.span.start_seconds));
        let seconds = sent_per_second.iter().enumerate();
        let sent: u64 = seconds.filter(|(s, _)| (*s as f64) >= from && (*s as f64) < to).map(|(_, n)| n).sum();
        let answered = self.response.count();
        let elapsed = self.last_done_ns.saturating_sub(self.measured_from_ns) as f64 * NS;
        StageSummary {
            start_seconds: from,
            end_seconds: to,
            target_rate: self.span.target_rate,
            steady: self.span.steady,
            sent,
            sent_rate: sent as f64 / (to - from).max(1e-9),
            measured: self.measured,
            answered,
            failed: self.failed,
            dropped: self.dropped,
            achieved_rate: if elapsed > 0.0 { answered as f64 / elapsed } else { 0.0 },
            response: Times::named(&self.response),
            service_mean: (answered > 0).then(|| self.service_sum_ns as f64 / answered as f64 * NS),
            settled: self.settled(),
        }
    }
}

/// Most seconds of per-second counts kept (a day): the tally stops growing there.
const MOST_SECONDS: usize = 86_400;

impl Recorder {
    /// A recorder of `spec`'s requests, reported by the stretches `spans` (stages.rs).
    pub fn new(spec: &ScheduleSpec, spans: Vec<Span>) -> Recorder {
        Recorder {
            response: Latency::default(),
            service: Latency::default(),
            lag: Latency::default(),
            sent: 0,
            late: 0,
            dropped: 0,
            warmup: 0,
            answers: BTreeMap::new(),
            errors: BTreeMap::new(),
            failed: 0,
            sent_per_second: Vec::new(),
            last_done_ns: 0,
            first_measured_ns: None,
            requests: spec.requests,
            total_seconds: spec.total_seconds(),
            stages: spans.into_iter().map(|span| StageTally::new(span, spec.warmup_seconds)).collect(),
            slots: Slots::default(),
            interval_log: None,
        }
    }

    /// A recorder that also writes each second's histograms to an interval log at `path`.
    pub fn with_interval_log(spec: &ScheduleSpec, spans: Vec<Span>, path: &std::path::Path) -> std::io::Result<Recorder> {
        let log = IntervalLog::create(path, &histogram(), std::time::SystemTime::now())?;
        Ok(Recorder { interval_log: Some(log), ..Recorder::new(spec, spans) })
    }

    /// The stretch a request intended at `intended_ns` belongs to.
    fn stage(&mut self, intended_ns: u64) -> Option<&mut StageTally> {
        let after = self.stages.partition_point(|s| s.start_ns <= intended_ns);
        self.stages.get_mut(after.checked_sub(1)?)
    }

    /// Closes the interval log, if any: the error that kept it from being written whole.
    pub fn finish_interval_log(&mut self) -> Option<String> {
        self.interval_log.take().and_then(|log| log.finish().err())
    }

    /// A request the in-flight window had no room for when it was due.
    pub fn dropped(&mut self, measured: bool, intended_ns: u64) {
        if measured {
            self.dropped += 1;
            if let Some(stage) = self.stage(intended_ns) {
                stage.dropped += 1;
            }
        }
    }

    /// A request that was sent; times in ns from the start of the run.
    pub fn finished(&mut self, measured: bool, intended_ns: u64, sent_ns: u64, done_ns: u64, outcome: Outcome) {
        let second = (sent_ns / 1_000_000_000) as usize;
        if second < MOST_SECONDS {
            if self.sent_per_second.len() <= second {
                self.sent_per_second.resize(second + 1, 0);
            }
            self.sent_per_second[second] += 1;
        }
        if !measured {
            self.warmup += 1;
            return;
        }
        self.first_measured_ns.get_or_insert(intended_ns);
        self.sent += 1;
        self.last_done_ns = self.last_done_ns.max(done_ns);
        let lag = sent_ns.saturating_sub(intended_ns);
        self.lag.record(lag.max(1));
        self.late += (lag > LATE_NS) as u64;
        let (answered, failed) = match outcome {
            Outcome::Status(status) => {
                *self.answers.entry(Answer::Class(status / 100)).or_default() += 1;
                (true, status >= 400)
            }
            Outcome::Exited(ok) => {
                *self.answers.entry(Answer::Exit(ok)).or_default() += 1;
                (true, !ok)
            }
            Outcome::Error(kind) => {
                *self.errors.entry(kind.name()).or_default() += 1;
                (false, true)
            }
        };
        self.failed += failed as u64;
        let (response, service) = (done_ns.saturating_sub(intended_ns), done_ns.saturating_sub(sent_ns));
        if let Some(stage) = self.stage(intended_ns) {
            stage.measured += 1;
            stage.failed += failed as u64;
            stage.last_done_ns = stage.last_done_ns.max(done_ns);
            if answered {
                stage.answered(intended_ns, response, service);
            }
        }
        if answered {
            self.slots.answered(intended_ns, response, service);
            self.response.record(response.max(1));
            self.service.record(service.max(1));
            if let Some(log) = self.interval_log.as_mut() {
                log.record(done_ns, [response, service, lag]);
            }
        }
    }

    /// The figures so far, for the live view.
    pub fn progress(&self, in_flight: u64) -> Figures {
        let seconds = |percent| self.response.at(percent).map_or(0.0, |ns| ns * NS);
        Figures {
            sent: self.sent,
            answered: self.response.count(),
            in_flight,
            response_p50: seconds(50.0),
            response_p99: seconds(99.0),
        }
    }

    /// The quantiles and shares `asked` of the run's response, service and lag times, into `summary`.
    pub fn answer(&self, asked: &Asked, summary: &mut RunSummary) {
        if !asked.is_empty() {
            summary.response.asked = asked.answers(&self.response);
            summary.service.asked = asked.answers(&self.service);
            summary.lag.asked = asked.answers(&self.lag);
        }
    }

    /// What was measured. `paced_seconds` is when the schedule ran out: the
    /// end of the last stage when it was open-ended, cut short by the request
    /// count, or `stopped`; otherwise the stages end where scheduled.
    pub fn summary(&self, target_rate: f64, paced_seconds: f64, stopped: bool) -> RunSummary {
        let capped = self.requests.is_some_and(|n| self.sent + self.dropped >= n);
        let end_seconds = match self.total_seconds {
            Some(total) if !stopped && !capped => total,
            _ => paced_seconds,
        };
        let start = self.first_measured_ns.unwrap_or(0) as f64 * 1e-9;
        let elapsed = (self.last_done_ns as f64 * 1e-9 - start).max(0.0);
        let stages = self.stages.iter().map(|s| s.summary(&self.sent_per_second, end_seconds)).collect();
        RunSummary {
            response: Times::of(&self.response),
            service: Times::of(&self.service),
            lag: Times::of(&self.lag),
            counts: Counts {
                sent: self.sent,
                answered: self.response.count(),
                failed: self.failed,
                late: self.late,
                dropped: self.dropped,
                warmup: self.warmup,
                answers: self.answers.iter().map(|(k, v)| (k.name(), *v)).collect(),
                errors: self.errors.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            },
            elapsed_seconds: elapsed,
            achieved_rate: if elapsed > 0.0 { self.response.count() as f64 / elapsed } else { 0.0 },
            target_rate,
            stages,
            slots: self.slots.summary(),
            sent_per_second: self.sent_per_second.clone(),
            late_seconds: LATE_NS as f64 * 1e-9,
            interrupted: false,
            interval_log_error: None,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Counts {
    /// Measured requests sent (answered or failed).
    pub sent: u64,
    /// Of those, answered (any HTTP status, or a command that exited).
    pub answered: u64,
    /// HTTP 4xx/5xx, non-zero exits and errors.
    pub failed: u64,
    pub late: u64,
    pub dropped: u64,
    /// Requests sent during the warm-up, not measured.
    pub warmup: u64,
    /// Answers by status class (`2xx`) or exit (`exit 0`).
    pub answers: BTreeMap<String, u64>,
    /// Failures without an answer, by kind.
    pub errors: BTreeMap<String, u64>,
}

/// One stretch of the schedule (a step's stage or a ramp's slice): the
/// measured requests whose intended start fell in it.
#[derive(Debug, Serialize)]
pub struct StageSummary {
    pub start_seconds: f64,
    pub end_seconds: f64,
    /// The mean target rate over the stretch.
    pub target_rate: f64,
    /// False for a slice of a ramp: its rate changes across it.
    pub steady: bool,
    /// Requests sent between the stage's start and end (by whole seconds of
    /// the send, warm-up ones included): the pace the generator held.
    pub sent: u64,
    pub sent_rate: f64,
    /// Measured requests intended in it and sent (answered or failed).
    pub measured: u64,
    pub answered: u64,
    pub failed: u64,
    pub dropped: u64,
    /// Answers per second, from its (measured) start to its last answer.
    pub achieved_rate: f64,
    /// Response times (from the intended start): the named percentiles, no spectrum.
    pub response: Times,
    pub service_mean: Option<f64>,
    /// Whether its response times held level across it (no slope beyond
    /// 99.9 % over ten batches); None when a tenth had no answer.
    pub settled: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct RunSummary {
    pub response: Times,
    pub service: Times,
    pub lag: Times,
    pub counts: Counts,
    /// From the first measured intended time to the last answer.
    pub elapsed_seconds: f64,
    /// Answers per second over `elapsed_seconds`.
    pub achieved_rate: f64,
    pub target_rate: f64,
    pub stages: Vec<StageSummary>,
    /// The answers by equal slots of intended start (slots.rs).
    pub slots: SlotsSummary,
    pub sent_per_second: Vec<u64>,
    pub late_seconds: f64,
    pub interrupted: bool,
    /// Why the interval log (`.hlog`) could not be written whole, if it could not.
    pub interval_log_error: Option<String>,
}

/// One histogram's figures, in seconds.
#[derive(Debug, Serialize)]
pub struct Times {
    pub count: u64,
    pub mean: Option<f64>,
    pub std_deviation: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The engine's named percentiles (`p50` ... `p999`), as (name, seconds).
    pub percentiles: Vec<(String, f64)>,
    /// `[percent, seconds]` at the engine's spectrum and the far tail, each
    /// point only when at least one sample lies above it.
    pub spectrum: Vec<(f64, f64)>,
    pub distribution: Option<Distribution>,
    /// The quantiles and shares at or below a time the run was asked for
    /// beyond the fixed list (None when nothing was asked, or nothing recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked: Option<Answers>,
}

const NS: f64 = 1e-9;

impl Times {
    /// The count, moments, extremes and named percentiles; no spectrum or distribution.
    fn named(latency: &Latency) -> Times {
        let seconds = |ns: f64| ns * NS;
        Times {
            count: latency.count(),
            mean: latency.mean_ns().map(seconds),
            std_deviation: latency.std_deviation_ns().map(seconds),
            min: latency.min_ns().map(seconds),
            max: latency.max_ns().map(seconds),
            percentiles: latency.named().into_iter().map(|(name, ns)| (name.to_string(), seconds(ns))).collect(),
            spectrum: vec![],
            distribution: None,
            asked: None,
        }
    }

    fn of(latency: &Latency) -> Times {
        Times {
            spectrum: latency.spectrum().into_iter().map(|(p, ns)| (p, ns * NS)).collect(),
            distribution: latency.distribution().map(|d| d.per(|ns| ns * NS)),
            ..Times::named(latency)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brewput_measure::arrivals::{Arrivals, Stage};

    const MS: u64 = 1_000_000;

    /// A recorder for steps of (rate, seconds), measured from `warmup` on.
    fn recorder(steps: &[(f64, f64)], warmup: f64) -> Recorder {
        let stages = steps.iter().map(|&(rate, seconds)| Stage { from: rate, to: rate, seconds: Some(seconds) });
        let spec = ScheduleSpec { arrivals: Arrivals::Constant, stages: stages.collect(), requests: None,
                                  warmup_seconds: warmup, seed: 1 };
        Recorder::new(&spec, crate::stages::spans(&spec))
    }

    #[test]
    fn the_three_histograms_split_a_late_send_correctly() {
        let mut r = recorder(&[(1.0, 1.0)], 0.0);
        // Intended at 0, sent 40 ms late, answered 10 ms later.
        r.finished(true, 0, 40 * MS, 50 * MS, Outcome::Status(200));
        let s = r.summary(1.0, 1.0, false);
        let near = |x: Option<f64>, want: f64| (x.unwrap() - want).abs() <= want * 1e-3;
        assert!(near(s.response.max, 0.050) && near(s.service.max, 0.010) && near(s.lag.max, 0.040));
        assert_eq!(s.counts.late, 1);
        assert_eq!(s.counts.answers["2xx"], 1);
    }

    #[test]
    fn failures_are_counted_by_class_and_kind_and_errors_have_no_latency() {
        let mut r = recorder(&[(1.0, 1.0)], 0.0);
        r.finished(true, 0, 0, MS, Outcome::Status(503));
        r.finished(true, 0, 0, MS, Outcome::Status(404));
        r.finished(true, 0, 0, MS, Outcome::Status(302));
        r.finished(true, 0, 0, MS, Outcome::Error(ErrorKind::Timeout));
        r.finished(true, 0, 0, MS, Outcome::Exited(false));
        r.finished(false, 0, 0, MS, Outcome::Status(200));
        r.dropped(true, 0);
        r.dropped(false, 0);
        let s = r.summary(1.0, 1.0, false);
        let c = &s.counts;
        assert_eq!((c.sent, c.answered, c.failed, c.dropped, c.warmup), (5, 4, 4, 1, 1));
        assert_eq!((c.answers["5xx"], c.answers["4xx"], c.answers["3xx"], c.answers["exit non-0"]), (1, 1, 1, 1));
        assert_eq!(c.errors["timeout"], 1);
    }

    #[test]
    fn percentiles_need_samples_beyond_them() {
        let mut r = recorder(&[(1.0, 1.0)], 0.0);
        for i in 0..1000u64 {
            r.finished(true, 0, 0, (i + 1) * MS, Outcome::Status(200));
        }
        let s = r.summary(1.0, 1.0, false);
        // 1000 samples reach 99.9 % (one above), not 99.95 %.
        assert_eq!(s.response.spectrum.last().unwrap().0, 99.9);
        let p99 = s.response.percentiles.iter().find(|(n, _)| n == "p99").unwrap().1;
        assert!((p99 - 0.990).abs() <= 0.990 * 1e-3, "{p99}");
        let d = s.response.distribution.unwrap();
        assert_eq!(d.rows.last().unwrap().2, 1000);
        assert_eq!(d.rows.last().unwrap().1, 1.0);
        assert_eq!(d.sub_buckets, 2048);
    }

    #[test]
    fn achieved_rate_and_stage_rates_come_from_what_was_sent() {
        let mut r = recorder(&[(100.0, 2.0), (300.0, 1.0)], 0.0);
        // 100/s for 2 s, then 300/s for 1 s, each answered in 1 ms.
        let sends = (0..200).map(|k| k * 10 * MS).chain((0..300).map(|k| 2_000 * MS + k * 10 * MS / 3));
        for t in sends {
            r.finished(true, t, t, t + MS, Outcome::Status(200));
        }
        let s = r.summary(500.0 / 3.0, 3.0, false);
        assert_eq!((s.stages[0].sent, s.stages[1].sent), (200, 300));
        assert!((s.stages[0].sent_rate - 100.0).abs() < 1e-9 && (s.stages[1].sent_rate - 300.0).abs() < 1e-9);
        assert!((s.achieved_rate - 500.0 / s.elapsed_seconds).abs() < 1e-9);
        assert!((s.elapsed_seconds - 3.0).abs() < 0.01, "{}", s.elapsed_seconds);
    }

    #[test]
    fn responses_land_in_the_stage_of_their_intended_start() {
        let mut r = recorder(&[(100.0, 1.0), (300.0, 1.0)], 0.0);
        // Stage 1: due every 10 ms, each sent 1.5 s late (in stage 2's time)
        // and answered (k + 1) ms after the send.
        for k in 0..100u64 {
            let (intended, sent) = (k * 10 * MS, k * 10 * MS + 1_500 * MS);
            r.finished(true, intended, sent, sent + (k + 1) * MS, Outcome::Status(200));
        }
        r.finished(true, 990 * MS, 990 * MS, 991 * MS, Outcome::Status(503));
        r.dropped(true, 995 * MS);
        // Stage 2: due every 10/3 ms from 1 s, each answered in 2 ms; one warm-up request is not measured.
        for k in 0..300u64 {
            let intended = 1_000 * MS + k * 10 * MS / 3;
            r.finished(true, intended, intended, intended + 2 * MS, Outcome::Status(200));
        }
        r.finished(false, 1_000 * MS, 1_000 * MS, 1_001 * MS, Outcome::Status(200));
        r.dropped(true, 1_500 * MS);
        r.dropped(true, 1_600 * MS);
        let s = r.summary(200.0, 2.0, false);
        let (one, two) = (&s.stages[0], &s.stages[1]);
        assert_eq!((one.measured, one.answered, one.failed, one.dropped), (101, 101, 1, 1));
        assert_eq!((two.measured, two.answered, two.failed, two.dropped), (300, 300, 0, 2));
        let sum = |f: fn(&StageSummary) -> u64| s.stages.iter().map(f).sum::<u64>();
        assert_eq!((sum(|t| t.measured), sum(|t| t.answered), sum(|t| t.failed), sum(|t| t.dropped)),
                   (s.counts.sent, s.counts.answered, s.counts.failed, s.counts.dropped));
        assert_eq!((one.target_rate, two.target_rate, one.steady), (100.0, 300.0, true));
        // Stage 1's responses are 1.5 s + 1..100 ms and one 1 ms; stage 2's all 2 ms.
        let named = |t: &Times, name: &str| t.percentiles.iter().find(|(n, _)| n == name).unwrap().1;
        let near = |x: f64, want: f64| (x - want).abs() <= want * 1e-3;
        assert!(near(one.response.min.unwrap(), 0.001) && near(one.response.max.unwrap(), 1.600));
        assert!(near(named(&one.response, "p50"), 1.550), "{}", named(&one.response, "p50"));
        let mean = (100.0 * 1.5 + 5050.0 * 1e-3 + 0.001) / 101.0;
        assert!(near(one.response.mean.unwrap(), mean));
        assert!(near(named(&two.response, "p50"), 0.002) && near(named(&two.response, "p99"), 0.002));
        assert!(near(two.service_mean.unwrap(), 0.002) && near(one.service_mean.unwrap(), (5050.0e-3 + 0.001) / 101.0));
        // Stage 2's achieved rate runs from its start to its last answer.
        let last = 1.0 + 299.0 * 0.01 / 3.0 + 0.002;
        assert!((two.achieved_rate - 300.0 / (last - 1.0)).abs() < 1e-6, "{}", two.achieved_rate);
        // Stage 1's answers came 1.5 s late: its rate counts the time they took.
        assert!((one.achieved_rate - 101.0 / 2.59).abs() < 1e-6, "{}", one.achieved_rate);
    }

    #[test]
    fn a_stage_is_settled_when_its_response_time_holds_level() {
        let mut r = recorder(&[(1000.0, 1.0), (1000.0, 1.0), (1000.0, 1.0)], 0.0);
        for k in 0..1000u64 {
            // Stage 1 level (1 to 3 ms, no trend); stage 2 growing 1 ms per 10 ms
            // of schedule (a queue beyond saturation); stage 3 only in its first half.
            let level = 1 + (k * 7919) % 3;
            r.finished(true, k * MS, k * MS, k * MS + level * MS, Outcome::Status(200));
            let growing = 1_000 * MS + k * MS;
            r.finished(true, growing, growing, growing + (1 + k / 10) * MS, Outcome::Status(200));
            if k < 500 {
                r.finished(true, 2_000 * MS + k * MS, 2_000 * MS + k * MS, 2_001 * MS + k * MS, Outcome::Status(200));
            }
        }
        let s = r.summary(1000.0, 3.0, false);
        let settled: Vec<_> = s.stages.iter().map(|t| t.settled).collect();
        assert_eq!(settled, [Some(true), Some(false), None]);
    }

    #[test]
    fn a_stage_in_the_warm_up_is_measured_from_its_end() {
        // Warm-up 1.5 s: stage 1 (0-1 s) measures nothing, stage 2 from 1.5 s.
        let mut r = recorder(&[(100.0, 1.0), (100.0, 1.0)], 1.5);
        for k in 0..200u64 {
            let t = k * 10 * MS;
            r.finished(t >= 1_500 * MS, t, t, t + MS, Outcome::Status(200));
        }
        let s = r.summary(100.0, 2.0, false);
        assert_eq!((s.stages[0].measured, s.stages[1].measured), (0, 50));
        assert_eq!((s.stages[0].achieved_rate, s.stages[0].settled), (0.0, None));
        // 50 answers from 1.5 s to the last at 1.991 s.
        assert!((s.stages[1].achieved_rate - 50.0 / 0.491).abs() < 1e-6, "{}", s.stages[1].achieved_rate);
        assert_eq!(s.stages[1].settled, Some(true));
    }

    #[test]
    fn a_stage_ends_where_scheduled_unless_the_run_stopped_or_its_count_was_reached() {
        let mut r = recorder(&[(100.0, 1.0), (100.0, 1.0)], 0.0);
        r.finished(true, 0, 0, MS, Outcome::Status(200));
        let ends = |s: RunSummary| s.stages.iter().map(|t| (t.start_seconds, t.end_seconds)).collect::<Vec<_>>();
        assert_eq!(ends(r.summary(100.0, 1.99, false)), [(0.0, 1.0), (1.0, 2.0)]);
        // Stopped at 0.5 s: the second stage was never reached.
        assert_eq!(ends(r.summary(100.0, 0.5, true)), [(0.0, 0.5), (1.0, 1.0)]);
        r.requests = Some(1);
        assert_eq!(ends(r.summary(100.0, 0.01, false)), [(0.0, 0.01), (1.0, 1.0)]);
    }
}
