//! Jobs: one customer's visit, kept in an arena whose slots are reused, and
//! the generation that tells a job's pending timers from a former occupant's.
//!
//! A timer (a service end, a think time, later a patience) names its job by a
//! [`JobRef`]: slot and generation. Releasing a job bumps its slot's
//! generation, so an event scheduled for the job before is recognised as stale
//! in one place ([`Jobs::is_current`]) instead of by each behaviour.

/// Where a job is when it is at no station.
pub const OUTSIDE: u32 = u32::MAX;

/// Bits of a generation in a packed event (event.rs): it only has to differ
/// from the generations of timers that can still be pending.
pub const GENERATION_BITS: u32 = 29;
pub const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub class: u32,
    pub step: u32,
    /// The step the job goes to next (`EXIT` to leave the route).
    pub next: u32,
    /// The station it is at, or `OUTSIDE`.
    pub station: u32,
    /// Its place among the servers of its station while it holds one
    /// (service/), so it can leave them in constant time.
    pub server_slot: u32,
    generation: u32,
    pub entered_system: f64,
    pub entered_station: f64,
    /// Service time of the current step, sampled on arrival at the station
    /// (sjf orders by it).
    pub work: f64,
    pub waited: f64,
    /// Order of arrival at the current station: breaks ties first come first served.
    pub seq: u64,
}

/// A job as a timer names it: stale once the job is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRef {
    pub id: u32,
    pub generation: u32,
}

#[derive(Debug, Default)]
pub struct Jobs {
    jobs: Vec<Job>,
    free: Vec<u32>,
}

impl Jobs {
    /// A new job of `class` entering the system at `now`, outside any station.
    pub fn admit(&mut self, class: u32, now: f64) -> u32 {
        let job = |generation| Job {
            class,
            step: 0,
            next: 0,
            station: OUTSIDE,
            server_slot: 0,
            generation,
            entered_system: now,
            entered_station: now,
            work: 0.0,
            waited: 0.0,
            seq: 0,
        };
        match self.free.pop() {
            Some(id) => {
                let slot = &mut self.jobs[id as usize];
                *slot = job(slot.generation);
                id
            }
            None => {
                self.jobs.push(job(0));
                (self.jobs.len() - 1) as u32
            }
        }
    }

    /// The job leaves the system; timers still naming it become stale.
    pub fn release(&mut self, id: u32) {
        let job = &mut self.jobs[id as usize];
        job.generation = (job.generation + 1) & GENERATION_MASK;
        self.free.push(id);
    }

    /// The job's pending timers become stale while it stays: its patience,
    /// once its service starts.
    #[inline]
    pub fn renew(&mut self, id: u32) {
        let job = &mut self.jobs[id as usize];
        job.generation = (job.generation + 1) & GENERATION_MASK;
    }

    /// How a timer for the job, scheduled now, names it.
    #[inline]
    pub fn timer(&self, id: u32) -> JobRef {
        JobRef { id, generation: self.jobs[id as usize].generation }
    }

    /// Whether a timer's job is still the one it was scheduled for.
    #[inline]
    pub fn is_current(&self, job: JobRef) -> bool {
        self.jobs[job.id as usize].generation == job.generation
    }

    /// Jobs in the system (the arena's slots that are not free).
    pub fn in_system(&self) -> usize {
        self.jobs.len() - self.free.len()
    }
}

impl std::ops::Index<u32> for Jobs {
    type Output = Job;

    #[inline]
    fn index(&self, id: u32) -> &Job {
        &self.jobs[id as usize]
    }
}

impl std::ops::IndexMut<u32> for Jobs {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut Job {
        &mut self.jobs[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_jobs_timers_are_stale_and_its_slot_is_reused() {
        let mut jobs = Jobs::default();
        let first = jobs.admit(0, 0.0);
        let timer = jobs.timer(first);
        assert!(jobs.is_current(timer));
        jobs.release(first);
        let second = jobs.admit(1, 2.0);
        assert_eq!(second, first, "the freed slot is reused");
        assert!(!jobs.is_current(timer), "the former occupant's timer is stale");
        assert!(jobs.is_current(jobs.timer(second)));
        assert_eq!((jobs[second].class, jobs[second].entered_system), (1, 2.0));
        assert_eq!(jobs.in_system(), 1);
    }

    #[test]
    fn generations_wrap_within_their_bits() {
        let mut jobs = Jobs::default();
        let id = jobs.admit(0, 0.0);
        jobs[id].generation = GENERATION_MASK;
        jobs.release(id);
        let id = jobs.admit(0, 0.0);
        assert_eq!(jobs.timer(id).generation, 0);
    }
}
