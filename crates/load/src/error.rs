use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Settings that cannot be used: ones the Python side should have refused
    /// (a bug there, or a direct call), or a file they name that cannot be read.
    Input(String),
    /// The target cannot be reached before the run starts.
    Unreachable(String),
    /// The demo server cannot listen where asked.
    Bind(String),
    /// An output the run was asked to write cannot be created.
    Output(String),
    /// The machine refused something the run needs (threads, a runtime).
    System(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Input(m)
            | LoadError::Unreachable(m)
            | LoadError::Bind(m)
            | LoadError::Output(m)
            | LoadError::System(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for LoadError {}
