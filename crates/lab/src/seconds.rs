//! The one conversion of a float count of seconds into a `Duration`.
//! `Duration::from_secs_f64` panics on NaN, negative or huge values; every
//! time a run's settings carry goes through here instead, so a bad one is an
//! error naming its field, never a panic.

use std::time::Duration;

use crate::error::LabError;

pub fn seconds(field: &str, s: f64) -> Result<Duration, LabError> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| LabError::Input(format!("{field}: expected a time from 0 to {} s, got {s} s", Duration::MAX.as_secs())))
}
