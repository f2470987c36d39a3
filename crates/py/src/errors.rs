//! Each engine's errors as brewput's exception classes, in one place: every
//! way a simulation, a lab run, a load run or the demo server can fail reaches
//! Python as its own class (as polars maps each of its errors), with the
//! engine's message as it is.
//!
//! The classes are defined in Python, in python/brewput/errors.py, and looked
//! up from here by name, not created here with `create_exception!`: they are
//! brewput's public API beside its other errors, subclasses of `BrewputError`
//! (a Python class the command line prints as one line, exit 2), picklable by
//! their module path when a worker process hands one to its parent, and
//! importable without the native module. `import_exception!` looks each one up
//! the first time it is raised and keeps it; building the error needs no GIL,
//! so it is done where the engine returns, with the GIL still released.

use brewput_chain::WalkError;
use brewput_load::LoadError;
use brewput_sim::SimError;
use pyo3::import_exception;
use pyo3::PyErr;

import_exception!(brewput.errors, EngineInputError);
import_exception!(brewput.errors, DeadlockError);
import_exception!(brewput.errors, UnstableError);
import_exception!(brewput.errors, CancelledError);
import_exception!(brewput.errors, InternalError);
#[cfg(target_os = "linux")]
import_exception!(brewput.errors, LabInputError);
#[cfg(target_os = "linux")]
import_exception!(brewput.errors, LabSystemError);
import_exception!(brewput.errors, LoadInputError);
import_exception!(brewput.errors, UnreachableError);
import_exception!(brewput.errors, BindError);
import_exception!(brewput.errors, OutputError);
import_exception!(brewput.errors, LoadSystemError);
// The walk's two refusals are caught by the chain's Python code, which defines them.
import_exception!(brewput.analytic.chain.generate, TooManyStates);
import_exception!(brewput.analytic.chain.generate, NoRoom);

pub fn from_sim(e: SimError) -> PyErr {
    let message = e.to_string();
    match e {
        SimError::Input(_) => EngineInputError::new_err(message),
        SimError::Deadlock { .. } => DeadlockError::new_err(message),
        SimError::Unstable { .. } => UnstableError::new_err(message),
        SimError::Cancelled => CancelledError::new_err(message),
    }
}

#[cfg(target_os = "linux")]
pub fn from_lab(e: brewput_lab::LabError) -> PyErr {
    use brewput_lab::LabError;
    let message = e.to_string();
    match e {
        LabError::Input(_) => LabInputError::new_err(message),
        LabError::Os(_) => LabSystemError::new_err(message),
    }
}

pub fn from_load(e: LoadError) -> PyErr {
    let message = e.to_string();
    match e {
        LoadError::Input(_) => LoadInputError::new_err(message),
        LoadError::Unreachable(_) => UnreachableError::new_err(message),
        LoadError::Bind(_) => BindError::new_err(message),
        LoadError::Output(_) => OutputError::new_err(message),
        LoadError::System(_) => LoadSystemError::new_err(message),
    }
}

pub fn from_walk(e: WalkError) -> PyErr {
    match e {
        WalkError::TooManyStates(_) => TooManyStates::new_err(e.to_string()),
        WalkError::NoRoom(station) => NoRoom::new_err(station),
    }
}

/// A panic caught at the binding (guard.rs): a bug, said in one line.
pub fn internal(message: String) -> PyErr {
    InternalError::new_err(message)
}
