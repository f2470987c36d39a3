use std::fmt;

/// Everything that can stop a lab run. Never a panic: the binding turns these
/// into Python exceptions with the message as it is.
#[derive(Debug, Clone, PartialEq)]
pub enum LabError {
    /// The run's settings are malformed (the Python side checks them first).
    Input(String),
    /// The operating system refused something (CPU affinity, a thread).
    Os(String),
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::Input(what) | LabError::Os(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for LabError {}
