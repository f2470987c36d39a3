//! When each job first reached each of its class's marks (`mark:` on a step,
//! reached when the step ends), so that measures between two marks can be
//! taken when the second is reached.
//!
//! One flat table, a row per job slot and a column per mark beyond the two
//! every class has (`arrived` is the job's entry into the system, `done` its
//! completion): no allocation per job, and nothing at all in models without
//! marks.

use crate::model::MARK_DONE;

/// Marks below this index are `arrived` and `done`, not kept in the table.
const FIRST_NAMED: u32 = MARK_DONE + 1;

#[derive(Debug, Default)]
pub struct MarkTimes {
    /// Named marks of the class with the most: the row length.
    per_job: usize,
    /// `NAN` until reached.
    times: Vec<f64>,
}

impl MarkTimes {
    /// A table for classes with at most `marks` marks, `arrived` and `done` included.
    pub fn new(marks: usize) -> Self {
        MarkTimes { per_job: marks.saturating_sub(FIRST_NAMED as usize), times: Vec::new() }
    }

    /// The job starts its route: no named mark reached yet.
    #[inline]
    pub fn clear(&mut self, job: u32) {
        if self.per_job == 0 {
            return;
        }
        let start = job as usize * self.per_job;
        if self.times.len() < start + self.per_job {
            self.times.resize(start + self.per_job, f64::NAN);
        }
        self.times[start..start + self.per_job].fill(f64::NAN);
    }

    /// The job reaches named `mark` at `now`; false if it had reached it before.
    #[inline]
    pub fn reach(&mut self, job: u32, mark: u32, now: f64) -> bool {
        let time = &mut self.times[job as usize * self.per_job + (mark - FIRST_NAMED) as usize];
        let first = time.is_nan();
        if first {
            *time = now;
        }
        first
    }

    /// When the job reached `mark`, if it did; `arrived` is when it entered the
    /// system, `done` is never reached before the end.
    #[inline]
    pub fn time(&self, job: u32, mark: u32, arrived: f64) -> Option<f64> {
        match mark {
            0 => Some(arrived),
            MARK_DONE => None,
            _ => Some(self.times[job as usize * self.per_job + (mark - FIRST_NAMED) as usize]).filter(|t| !t.is_nan()),
        }
    }

    /// Of `measures` (the `(from, to)` marks of each, in the class's order),
    /// those that end at `mark` and whose start the job reached: each index
    /// and when its start was reached.
    pub fn spans_ending<'a>(
        &'a self,
        job: u32,
        mark: u32,
        arrived: f64,
        measures: &'a [(u32, u32)],
    ) -> impl Iterator<Item = (usize, f64)> + 'a {
        let ending = measures.iter().enumerate().filter(move |(_, &(_, to))| to == mark);
        ending.filter_map(move |(i, &(from, _))| self.time(job, from, arrived).map(|start| (i, start)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_keeps_the_first_time_it_is_reached_until_the_job_starts_again() {
        let mut marks = MarkTimes::new(4);
        marks.clear(3);
        assert_eq!(marks.time(3, 2, 1.0), None);
        assert!(marks.reach(3, 2, 5.0));
        assert!(!marks.reach(3, 2, 7.0), "only the first time counts");
        assert_eq!(marks.time(3, 2, 1.0), Some(5.0));
        assert_eq!(marks.time(3, 0, 1.0), Some(1.0), "arrived is the entry");
        assert_eq!(marks.time(3, MARK_DONE, 1.0), None);
        marks.clear(3);
        assert_eq!(marks.time(3, 2, 1.0), None);
        assert!(MarkTimes::new(2).times.is_empty());
    }

    #[test]
    fn the_spans_ending_at_a_mark_are_those_whose_start_was_reached() {
        let mut marks = MarkTimes::new(5);
        marks.clear(0);
        marks.reach(0, 3, 4.0);
        // arrived -> 3, 2 -> done, 3 -> done, arrived -> done
        let measures = [(0, 3), (2, MARK_DONE), (3, MARK_DONE), (0, MARK_DONE)];
        let done: Vec<_> = marks.spans_ending(0, MARK_DONE, 1.0, &measures).collect();
        assert_eq!(done, [(2, 4.0), (3, 1.0)], "mark 2 was never reached");
        assert_eq!(marks.spans_ending(0, 3, 1.0, &measures).collect::<Vec<_>>(), [(0, 1.0)]);
    }
}
