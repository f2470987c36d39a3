//! Processor sharing: the jobs in service share the servers' capacity, each
//! served at rate min(1, servers / jobs). Remaining work is charged lazily,
//! whenever the number of sharers changes; only the next departure (least
//! remaining work) is on the event list, tagged with a version so that an
//! older departure, moved since by an arrival or another departure, is
//! recognised as stale.

use super::{Departure, UNBOUNDED};
use crate::event::VERSION_MASK;

#[derive(Debug, Clone, Copy)]
struct Sharer {
    job: u32,
    remaining: f64,
}

#[derive(Debug)]
pub struct ProcessorSharing {
    servers: u32,
    sharers: Vec<Sharer>,
    /// When the sharers' remaining work was last brought up to date.
    since: f64,
    version: u32,
    /// Jobs whose service ended but whose next station is full. They no
    /// longer share the servers and hold none.
    blocked: u32,
}

impl ProcessorSharing {
    pub fn new(servers: u32) -> Self {
        ProcessorSharing { servers, sharers: Vec::new(), since: 0.0, version: 0, blocked: 0 }
    }

    #[inline]
    pub fn servers(&self) -> u32 {
        self.servers
    }

    #[inline]
    pub fn serving(&self) -> u32 {
        self.sharers.len() as u32
    }

    /// Whether a departure scheduled with `version` is still the next one.
    #[inline]
    pub fn is_current(&self, version: u32) -> bool {
        self.version == version
    }

    /// `job` joins the sharers with `work` to do; returns the new next departure.
    pub fn start(&mut self, job: u32, work: f64, now: f64) -> Departure {
        self.advance(now);
        self.sharers.push(Sharer { job, remaining: work });
        self.reschedule(now).expect("a sharer was just added")
    }

    /// The departure due now: the job with the least remaining work ends its
    /// service (first among equals). Returns it and the next departure, if
    /// any job still shares.
    pub fn finish_next(&mut self, now: f64) -> (u32, Option<Departure>) {
        self.advance(now);
        let (index, least) = self
            .sharers
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.remaining.total_cmp(&b.remaining))
            .expect("a sharing departure is scheduled only while jobs share");
        let job = least.job;
        self.sharers.swap_remove(index);
        self.blocked += 1;
        (job, self.reschedule(now))
    }

    /// A job whose service ended leaves.
    #[inline]
    pub fn leave(&mut self) {
        self.blocked -= 1;
    }

    /// Each sharer's service rate when `n` share the servers.
    #[inline]
    fn rate(&self, n: usize) -> f64 {
        if self.servers == UNBOUNDED { 1.0 } else { (self.servers as f64 / n as f64).min(1.0) }
    }

    /// Charges the sharers for the service they received since the last change.
    fn advance(&mut self, now: f64) {
        let served = self.rate(self.sharers.len()) * (now - self.since);
        for sharer in &mut self.sharers {
            sharer.remaining -= served;
        }
        self.since = now;
    }

    /// A new version for the next departure, which every change moves.
    fn reschedule(&mut self, now: f64) -> Option<Departure> {
        self.version = (self.version + 1) & VERSION_MASK;
        let least = self.sharers.iter().map(|s| s.remaining).min_by(f64::total_cmp)?;
        let at = now + least.max(0.0) / self.rate(self.sharers.len());
        Some(Departure { at, version: self.version })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_jobs_on_one_server_share_it_equally() {
        let mut ps = ProcessorSharing::new(1);
        // Job 1 (work 3) alone for 1 unit: 2 left. Job 2 (work 1) joins at t=1;
        // at half speed each, job 2 leaves at t=3 with job 1 at 1 left, which
        // it then does alone: out at t=4.
        let first = ps.start(1, 3.0, 0.0);
        assert_eq!(first.at, 3.0);
        let second = ps.start(2, 1.0, 1.0);
        assert_eq!(second.at, 3.0);
        assert!(!ps.is_current(first.version), "the first departure was moved");
        assert!(ps.is_current(second.version));
        let (job, next) = ps.finish_next(3.0);
        assert_eq!(job, 2);
        assert_eq!(next.map(|d| d.at), Some(4.0));
        let (job, next) = ps.finish_next(4.0);
        assert_eq!((job, next), (1, None));
        assert_eq!(ps.serving(), 0);
    }

    #[test]
    fn more_servers_than_sharers_serve_each_at_full_speed() {
        let mut ps = ProcessorSharing::new(4);
        ps.start(1, 2.0, 0.0);
        let next = ps.start(2, 5.0, 0.0);
        assert_eq!(next.at, 2.0);
        let mut unbounded = ProcessorSharing::new(UNBOUNDED);
        for job in 0..10 {
            unbounded.start(job, 1.0 + job as f64, 0.0);
        }
        assert_eq!(unbounded.finish_next(1.0), (0, Some(Departure { at: 2.0, version: 11 })));
    }
}
