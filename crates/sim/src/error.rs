use std::fmt;

/// Everything that can stop a simulation. Never a panic: the binding turns these
/// into Python exceptions with the message as it is.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// The compiled model or run settings are malformed.
    Input(String),
    /// Every customer is blocked and nothing is scheduled: the run cannot go on.
    Deadlock { time: f64 },
    /// An open class's customers piled up past any sensible number (`jobs`).
    Unstable { time: f64, jobs: usize },
    /// The run's control asked it to stop.
    Cancelled,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Input(what) => write!(f, "{what}"),
            SimError::Deadlock { time } => write!(
                f,
                "the model deadlocked at time {time}: every customer is blocked \
                 (finite buffers in a cycle?) and nothing else can happen"
            ),
            SimError::Cancelled => write!(f, "the run was cancelled"),
            SimError::Unstable { time, jobs } => write!(
                f,
                "more than {jobs} open-class jobs (customers and their forks' branches) in \
                 the system at time {time}, the most the engine holds: the model is unstable \
                 (customers arrive faster than they can be served), or its forks hold that \
                 many branches at once"
            ),
        }
    }
}

impl std::error::Error for SimError {}
