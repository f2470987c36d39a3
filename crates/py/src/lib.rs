//! `brewput._native`: the Python face of the Rust engine. Conversion only: JSON
//! strings in, a JSON string out, engine errors as `ValueError`, and a handle to
//! watch or cancel a run. The GIL is released while the engine runs, so a Python
//! thread can show progress and turn Ctrl-C into a cancel.

use std::sync::Arc;

mod lab;

use pyo3::exceptions::PyValueError;
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
    py.allow_threads(|| brewput_sim::run_json(model, settings, &control))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RunControl>()?;
    lab::register(m)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)
}
