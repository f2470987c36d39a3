//! Replications in parallel, folded into one summary.

use std::sync::Mutex;

use brewput_measure::control::Control;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::distribution::PercentileDistribution;
use crate::error::SimError;
use crate::histogram::LogHistogram;
use crate::model::CompiledModel;
use crate::progress::Customers;
use crate::settings::RunSettings;
use crate::simulation::Simulation;
use crate::stats::{ClassAtStationStats, ClassStats, ReplicationStats, ResourceStats, StationStats};
use crate::summary::Summary;

const THREAD_STACK_BYTES: usize = 1 << 20;

/// The most memory the replications' figures may take until they are summarised.
const MAX_KEPT_BYTES: usize = 1 << 30;

/// Runs every replication and summarises them. Replication `r` always draws from
/// random stream `r` and results are gathered in replication order, so the
/// summary is the same bit for bit whatever the number of threads.
pub fn run(model: &CompiledModel, settings: &RunSettings) -> Result<Summary, SimError> {
    run_controlled(model, settings, &Control::default())
}

/// `run`, watched and stoppable through `control` from another thread.
pub fn run_controlled(model: &CompiledModel, settings: &RunSettings, control: &Control<Customers>) -> Result<Summary, SimError> {
    model.validate()?;
    settings.validate()?;
    check_kept_bytes(model, settings)?;
    // Each replication's response times, added up as replications finish:
    // counts add exactly, so the order does not matter.
    let merged = Mutex::new(vec![LogHistogram::default(); model.classes.len()]);
    let all = || {
        streams(settings.seed, settings.replications)
            .into_par_iter()
            .map(|rng| {
                let mut stats = Simulation::new(model, settings, rng)?.run(control)?;
                if settings.distribution {
                    let mut merged = merged.lock().expect("merging never panics");
                    for (all, class) in merged.iter_mut().zip(&mut stats.classes) {
                        all.merge(&class.response_histogram.take().expect("kept when asked"));
                    }
                }
                Ok(stats)
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let replications = match settings.threads {
        None => all(),
        // More threads than replications would only idle; a replication needs
        // little stack (its state is on the heap).
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads.clamp(1, settings.replications as usize))
            .stack_size(THREAD_STACK_BYTES)
            .build()
            .map_err(|e| SimError::Input(format!("threads: cannot start {threads} worker threads: {e}")))?
            .install(all),
    }?;
    let mut summary = Summary::from_replications(model, &replications);
    if settings.distribution {
        let merged = merged.into_inner().expect("merging never panics");
        for (class, histogram) in summary.classes.iter_mut().zip(&merged) {
            class.response_time.distribution = Some(PercentileDistribution::of(histogram));
        }
    }
    Ok(summary)
}

/// The random streams of `replications` replications: stream `r` is the seed's
/// Xoshiro256++ generator jumped `r` times, 2^128 draws from its neighbours, so
/// streams never overlap. Each is one jump from the one before it: linear in
/// the number of replications, and the same whatever the threads.
fn streams(seed: u64, replications: u32) -> Vec<Xoshiro256PlusPlus> {
    let mut next = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..replications)
        .map(|_| {
            let stream = next.clone();
            next.jump();
            stream
        })
        .collect()
}

/// Every replication's figures are kept for the summary's intervals: refuses a
/// run whose figures would not fit in `MAX_KEPT_BYTES`, before it starts.
fn check_kept_bytes(model: &CompiledModel, settings: &RunSettings) -> Result<(), SimError> {
    use std::mem::size_of;
    let per_replication = size_of::<ReplicationStats>()
        + model.classes.len() * size_of::<ClassStats>()
        + model.stations.len() * (size_of::<StationStats>() + model.classes.len() * size_of::<ClassAtStationStats>())
        + model.resources.len() * size_of::<ResourceStats>();
    let most = (MAX_KEPT_BYTES / per_replication).max(1);
    if settings.replications as usize > most {
        return Err(SimError::Input(format!(
            "replications: at most {most} for this model (each replication keeps {per_replication} \
             bytes of figures until the summary, for its {} classes), got {}",
            model.classes.len(),
            settings.replications
        )));
    }
    Ok(())
}
