//! `brewput._native`: the Python face of the Rust engine and the chain's walk. Conversion only: JSON
//! strings in, a JSON string out, each engine error as its own exception class
//! of brewput.errors (errors.rs), the engine's percentile lists and Student-t
//! quantile, and one handle to watch or cancel a run of any engine
//! (control.rs). The GIL is released while an engine runs, so a Python thread
//! can show progress and turn Ctrl-C into a cancel.

mod chain;
mod control;
mod errors;
mod guard;
#[cfg(target_os = "linux")]
mod lab;
mod load;
mod vocabulary;

use pyo3::prelude::*;

use crate::control::Control;

/// Simulates a compiled model (JSON, docs/compiled-model.md) under run settings
/// (JSON) and returns the summary as JSON.
#[pyfunction]
fn simulate(py: Python<'_>, model: &str, settings: &str, control: &Control) -> PyResult<String> {
    let control = control.simulation()?;
    guard::without_gil(py, || brewput_sim::run_json(model, settings, &control).map_err(errors::from_sim))
}

/// The two-sided Student-t critical value for a confidence `level` (0.95) and
/// `df` degrees of freedom: the one the engine's intervals use.
#[pyfunction]
fn t_critical(py: Python<'_>, level: f64, df: f64) -> PyResult<f64> {
    guard::without_gil(py, || brewput_sim::t_critical(level, df).map_err(errors::from_sim))
}

/// The mean of per-repetition `values` (at least one) and its `CONFIDENCE`
/// Student-t interval (None with one value): the engine's own estimate, which
/// the lab uses for its repetitions.
#[pyfunction]
fn estimate(py: Python<'_>, values: Vec<f64>) -> PyResult<(f64, Option<[f64; 2]>)> {
    guard::without_gil(py, || {
        let e = brewput_sim::Estimate::from_samples(&values);
        Ok((e.mean, e.ci))
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Control>()?;
    guard::quiet_panics();
    m.add("PERCENTILES", brewput_sim::PERCENTILES.to_vec())?;
    m.add("SPECTRUM", brewput_sim::SPECTRUM.to_vec())?;
    m.add("CONFIDENCE", brewput_sim::CONFIDENCE)?;
    m.add("LOSS_REASONS", brewput_sim::LOSS_REASONS.to_vec())?;
    m.add("RELATIVE_RESOLUTION", brewput_sim::RELATIVE_RESOLUTION)?;
    m.add_function(wrap_pyfunction!(t_critical, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    #[cfg(target_os = "linux")]
    lab::register(m)?;
    chain::register(m)?;
    load::register(m)?;
    vocabulary::register(m)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)
}
