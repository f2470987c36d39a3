//! `brewput._native`: the Python face of the Rust engine. Conversion only: JSON
//! strings in, a JSON string out, each engine error as its own exception class
//! (guard.rs), the engine's percentile lists and Student-t quantile, and a
//! handle to watch or cancel a run. The GIL is released while the engine runs,
//! so a Python thread can show progress and turn Ctrl-C into a cancel.

use std::sync::Arc;

mod guard;
#[cfg(target_os = "linux")]
mod lab;
mod load;
mod vocabulary;

use pyo3::prelude::*;

/// Progress and cancellation of one run, shared with the thread running it.
#[pyclass(frozen)]
#[derive(Default)]
struct RunControl(Arc<brewput_sim::RunControl>);

#[pymethods]
impl RunControl {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn cancel(&self) {
        self.0.cancel();
    }

    /// Customers completed so far, warm-up included, over all replications.
    fn customers(&self) -> u64 {
        self.0.customers()
    }
}

/// Simulates a compiled model (JSON, docs/compiled-model.md) under run settings
/// (JSON) and returns the summary as JSON.
#[pyfunction]
fn simulate(py: Python<'_>, model: &str, settings: &str, control: &RunControl) -> PyResult<String> {
    let control = Arc::clone(&control.0);
    guard::without_gil(py, || brewput_sim::run_json(model, settings, &control).map_err(guard::sim_error))
}

/// The two-sided Student-t critical value for a confidence `level` (0.95) and
/// `df` degrees of freedom: the one the engine's intervals use.
#[pyfunction]
fn t_critical(py: Python<'_>, level: f64, df: f64) -> PyResult<f64> {
    guard::without_gil(py, || brewput_sim::t_critical(level, df).map_err(guard::sim_error))
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
    m.add_class::<RunControl>()?;
    guard::register(m)?;
    m.add("PERCENTILES", brewput_sim::PERCENTILES.to_vec())?;
    m.add("SPECTRUM", brewput_sim::SPECTRUM.to_vec())?;
    m.add("CONFIDENCE", brewput_sim::CONFIDENCE)?;
    m.add("LOSS_REASONS", brewput_sim::LOSS_REASONS.to_vec())?;
    m.add("RELATIVE_RESOLUTION", brewput_sim::RELATIVE_RESOLUTION)?;
    m.add_function(wrap_pyfunction!(t_critical, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    #[cfg(target_os = "linux")]
    lab::register(m)?;
    load::register(m)?;
    vocabulary::register(m)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)
}
