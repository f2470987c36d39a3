//! `brewput._native`: the Python face of the Rust engine. Conversion only: JSON
//! strings in, a JSON string out, engine errors as `ValueError`. The GIL is
//! released while the engine runs so other Python threads keep going.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Simulates a compiled model (JSON, docs/compiled-model.md) under run settings
/// (JSON) and returns the summary as JSON.
#[pyfunction]
fn simulate(py: Python<'_>, model: &str, settings: &str) -> PyResult<String> {
    py.allow_threads(|| brewput_sim::run_json(model, settings))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)
}
