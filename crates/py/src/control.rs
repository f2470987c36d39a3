//! The one handle Python holds to watch and stop a native run, whichever engine
//! runs it (`brewput_measure::control`). What progress means is the engine's
//! own, so Python makes the handle for the engine it will call
//! (`Control("load")`), and that engine's function takes its run's control out
//! of it, refusing one made for another engine.

use std::sync::Arc;

use brewput_load::LiveFigures;
use brewput_measure::control::{self, Progress};
use brewput_sim::Customers;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The engines a control can be made for, as Python names them.
const ENGINES: [&str; 4] = ["simulate", "lab", "load", "serve"];

/// Progress and cancellation of one run, shared with the thread running it.
#[pyclass(frozen)]
pub struct Control(Watched);

enum Watched {
    /// A simulation: the customers completed so far.
    Simulation(Arc<control::Control<Customers>>),
    /// A load run: the live view's figures.
    Load(Arc<control::Control<LiveFigures>>),
    /// A run that only stops: the lab, the demo server.
    Quiet(Arc<control::Control>),
}

/// What the handle does with any engine's control.
trait Watch {
    fn cancel(&self);
    /// The progress so far as JSON (`null` for a run that reports none).
    fn progress_json(&self) -> String;
}

impl<P: Progress> Watch for control::Control<P> {
    fn cancel(&self) {
        control::Control::cancel(self);
    }

    fn progress_json(&self) -> String {
        serde_json::to_string(&self.shown()).unwrap_or_default()
    }
}

#[pymethods]
impl Control {
    #[new]
    fn new(engine: &str) -> PyResult<Self> {
        Ok(Control(match engine {
            "simulate" => Watched::Simulation(Arc::default()),
            "load" => Watched::Load(Arc::default()),
            "lab" | "serve" => Watched::Quiet(Arc::default()),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "Control: expected one of {}, got {engine:?}",
                    ENGINES.join(", ")
                )))
            }
        }))
    }

    /// Asks the run to stop at its next check.
    fn cancel(&self) {
        self.watched().cancel();
    }

    /// The run's progress so far, as JSON: `{"customers": ...}` for a
    /// simulation (warm-up included, over all replications), the live view's
    /// figures for a load run, `null` for the lab and the demo server.
    fn progress(&self) -> String {
        self.watched().progress_json()
    }
}

impl Control {
    fn watched(&self) -> &dyn Watch {
        match &self.0 {
            Watched::Simulation(c) => &**c,
            Watched::Load(c) => &**c,
            Watched::Quiet(c) => &**c,
        }
    }

    pub fn simulation(&self) -> PyResult<Arc<control::Control<Customers>>> {
        match &self.0 {
            Watched::Simulation(c) => Ok(Arc::clone(c)),
            _ => Err(made_for_another("simulate")),
        }
    }

    pub fn load(&self) -> PyResult<Arc<control::Control<LiveFigures>>> {
        match &self.0 {
            Watched::Load(c) => Ok(Arc::clone(c)),
            _ => Err(made_for_another("load")),
        }
    }

    /// The control of a run that only stops (`engine`: "lab" or "serve").
    pub fn quiet(&self, engine: &str) -> PyResult<Arc<control::Control>> {
        match &self.0 {
            Watched::Quiet(c) => Ok(Arc::clone(c)),
            _ => Err(made_for_another(engine)),
        }
    }
}

fn made_for_another(engine: &str) -> PyErr {
    PyTypeError::new_err(format!("this control was made for another engine: make it with Control({engine:?})"))
}
