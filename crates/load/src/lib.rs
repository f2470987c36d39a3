//! brewput's load generator and demo server (`brewput load`, `brewput serve`).
//!
//! Data flows one way: [`LoadSettings`] (a [`ScheduleSpec`] and a [`Target`])
//! go into [`run`], which paces the schedule, carries the requests and returns
//! a [`RunSummary`] of three HdrHistograms (response, service, lag) and counts.
//! [`Server`] is the M/G/c queue behind HTTP that tests and demos measure.

mod clock;
mod error;
mod files;
mod generator;
mod hlog;
mod http1;
mod progress;
mod record;
mod serve;
mod slots;
mod stages;
mod target;
mod tls;

pub use brewput_measure::control::Control;
pub use error::LoadError;
pub use progress::{LiveFigures, LiveView};
pub use generator::{run, LoadSettings, DEFAULT_TICK_SECONDS, MAX_CONNECTIONS, MAX_IN_FLIGHT, MAX_TICK_SECONDS};
pub use brewput_measure::percentiles::FAR_TAIL;
pub use record::{RunSummary, LATE_NS};
pub use brewput_measure::arrivals::{Arrivals, Intended, ScheduleSpec, Stage};
pub use stages::MAX_STAGES;
pub use serve::{Rota, ServeSettings, ServeSummary, Server, MAX_QUEUE, MAX_ROTA, MAX_WORKERS};
pub use target::{HttpTarget, Target, MAX_BODY_BYTES};
pub use tls::{TlsSettings, MAX_CACERT_BYTES};

/// Runs the load a JSON [`LoadSettings`] describes; the summary as JSON.
pub fn run_json(settings: &str, control: &std::sync::Arc<Control<LiveFigures>>) -> Result<String, LoadError> {
    let settings: LoadSettings =
        serde_json::from_str(settings).map_err(|e| LoadError::Input(format!("load settings: {e}")))?;
    let summary = run(&settings, control)?;
    serde_json::to_string(&summary).map_err(|e| LoadError::System(format!("cannot encode the summary: {e}")))
}

/// The intended start times (seconds) of a JSON [`ScheduleSpec`]: the
/// schedule a run would pace, for checking it without sending anything.
pub fn schedule_json(spec: &str, most: usize) -> Result<Vec<f64>, LoadError> {
    let spec: ScheduleSpec = serde_json::from_str(spec).map_err(|e| LoadError::Input(format!("schedule: {e}")))?;
    spec.check().map_err(LoadError::Input)?;
    Ok(spec.iter().take(most).map(|i| i.seconds).collect())
}
