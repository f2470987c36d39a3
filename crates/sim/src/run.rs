//! Replications in parallel, folded into one summary.

use rayon::prelude::*;

use crate::control::RunControl;
use crate::error::SimError;
use crate::model::CompiledModel;
use crate::settings::RunSettings;
use crate::simulation::Simulation;
use crate::stats::ReplicationStats;
use crate::summary::Summary;

/// Runs every replication and summarises them. Replication `r` always draws from
/// random stream `r` and results are gathered in replication order, so the
/// summary is the same bit for bit whatever the number of threads.
pub fn run(model: &CompiledModel, settings: &RunSettings) -> Result<Summary, SimError> {
    run_controlled(model, settings, &RunControl::default())
}

/// `run`, watched and stoppable through `control` from another thread.
pub fn run_controlled(model: &CompiledModel, settings: &RunSettings, control: &RunControl) -> Result<Summary, SimError> {
    let replications = run_replications(model, settings, control)?;
    Ok(Summary::from_replications(model, &replications))
}

pub fn run_replications(
    model: &CompiledModel,
    settings: &RunSettings,
    control: &RunControl,
) -> Result<Vec<ReplicationStats>, SimError> {
    model.validate()?;
    settings.validate()?;
    let all = || {
        (0..settings.replications)
            .into_par_iter()
            .map(|r| Simulation::new(model, settings, r)?.run(control))
            .collect::<Result<Vec<_>, _>>()
    };
    match settings.threads {
        None => all(),
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| SimError::Input(format!("cannot start {threads} worker threads: {e}")))?
            .install(all),
    }
}
