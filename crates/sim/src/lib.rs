//! brewput's discrete-event simulation engine.
//!
//! Data flows one way: a [`CompiledModel`] (from the Python side, or built in
//! Rust) and [`RunSettings`] go into [`run`], which runs independent
//! replications in parallel and returns a [`Summary`] with confidence intervals.

mod asked;
mod arrivals;
mod class_at_station;
mod day;
mod deferred;
mod distribution;
mod error;
mod dispatch;
mod event;
mod fork;
mod found;
mod giving_up;
mod histogram;
mod intervals;
mod job;
mod marks;
mod measurement;
mod model;
mod plan;
mod progress;
mod resources;
mod rota;
mod run;
mod sampler;
mod service;
mod settings;
mod simulation;
mod starts;
mod station;
mod stats;
mod summary;
mod vocabulary;
mod wait_queue;

pub use brewput_measure::control::Control;
pub use progress::{Customers, CustomersShown};
pub use error::SimError;
pub use giving_up::LOSS_REASONS;
pub use model::{Assign, Class, CompiledModel, Discipline, Dist, OffShift, Preempt, Resource, Source, Station, Step, Take};
pub use distribution::PercentileDistribution;
pub use histogram::{LogHistogram, RELATIVE_RESOLUTION};
pub use run::{run, run_controlled};
pub use sampler::Sampler;
pub use asked::{Answers, Asked};
pub use settings::{RunSettings, Stop, Warmup};
pub use stats::{ReplicationStats, PERCENTILES, SPECTRUM};
pub use vocabulary::{
    default_word, name_of, tying_policies, words, Feature, Policy, Tie, NotModelled, Word, MARKED, MAX_BALK_PROBABILITIES, MAX_BRANCH_DEPTH, MAX_SEED,
    NOT_MODELLED,
};
pub use summary::{t_critical, ClassAtStationSummary, ClassSummary, Estimate, ResourceSummary, ServerTypeSummary, StationSummary, Summary, TimesEstimate, CONFIDENCE};

/// Runs a model given as JSON (docs/compiled-model.md) and returns the summary
/// as JSON: the whole interface the Python binding needs.
pub fn run_json(model: &str, settings: &str, control: &Control<Customers>) -> Result<String, SimError> {
    let model = CompiledModel::from_json(model)?;
    let settings = RunSettings::from_json(settings)?;
    let summary = run_controlled(&model, &settings, control)?;
    serde_json::to_string(&summary).map_err(|e| SimError::Input(format!("cannot encode results: {e}")))
}
