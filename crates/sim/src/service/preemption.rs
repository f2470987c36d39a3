//! Preemptive priority at a pool of servers: which job in service an arriving
//! job of higher priority displaces, and how much work it has left.
//!
//! Why a type of its own: the choice of the victim and of its remaining work
//! (resume: what its stint had left; restart: a new draw, which only the
//! simulation's random stream may make) is decided here and returned as a
//! [`Preempted`]; the simulation takes the job off its server, queues it again
//! and starts the one that displaced it (SimPy's `PreemptiveResource`: one
//! admission hook).
//!
//! Kept beside the pool, only at stations with `preempt`: each job in service
//! with its priority key (smaller first, as in the wait queue), when its
//! current stint will end, and the order stints started in. Invariants: a job
//! has at most one stint, from its start until its service ends or it is
//! displaced; only a strictly higher priority displaces, and among the
//! lowest the most recently started goes (it has done the least).

use crate::model::Preempt;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Stint {
    job: u32,
    key: f64,
    ends_at: f64,
    order: u64,
}

/// The work a displaced job has left to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Remaining {
    /// Preemptive-resume: what its stint had not done yet.
    Left(f64),
    /// Preemptive-restart: all of it again, a new draw from its service.
    Anew,
}

/// A job displaced from its server, its priority key and what it has left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preempted {
    pub job: u32,
    pub key: f64,
    pub work: Remaining,
}

#[derive(Debug)]
pub struct Preemption {
    how: Preempt,
    serving: Vec<Stint>,
    started: u64,
}

impl Preemption {
    /// `None` for a station that does not preempt.
    pub fn new(how: Preempt) -> Option<Self> {
        (how != Preempt::None).then_some(Preemption { how, serving: Vec::new(), started: 0 })
    }

    /// `job` of priority `key` started a stint ending at `ends_at`.
    pub fn began(&mut self, job: u32, key: f64, ends_at: f64) {
        self.started += 1;
        self.serving.push(Stint { job, key, ends_at, order: self.started });
    }

    /// `job`'s service ended.
    pub fn ended(&mut self, job: u32) {
        if let Some(i) = self.serving.iter().position(|s| s.job == job) {
            self.serving.swap_remove(i);
        }
    }

    /// The job a waiting job of priority `key` displaces at `now`: the one
    /// of lowest priority, the most recently started among equals, if its
    /// priority is strictly lower; its stint is over.
    pub fn displace(&mut self, key: f64, now: f64) -> Option<Preempted> {
        let (i, victim) = self.last_in_line()?;
        if victim.key <= key {
            return None;
        }
        Some(self.take_off(i, now))
    }

    /// A server going off shift hands back its job (rota.rs): the one of
    /// lowest priority, the most recently started among equals, as `displace`
    /// would choose; its stint is over.
    pub fn hand_back(&mut self, now: f64) -> Option<Preempted> {
        let (i, _) = self.last_in_line()?;
        Some(self.take_off(i, now))
    }

    /// The job in service of lowest priority, the most recently started among equals.
    fn last_in_line(&self) -> Option<(usize, &Stint)> {
        self.serving.iter().enumerate().max_by(|(_, a), (_, b)| a.key.total_cmp(&b.key).then(a.order.cmp(&b.order)))
    }

    fn take_off(&mut self, i: usize, now: f64) -> Preempted {
        let victim = self.serving.swap_remove(i);
        let work = match self.how {
            Preempt::Restart => Remaining::Anew,
            _ => Remaining::Left(victim.ends_at - now),
        };
        Preempted { job: victim.job, key: victim.key, work }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_priority_latest_started_job_is_displaced_by_a_higher_one_only() {
        let mut stints = Preemption::new(Preempt::Resume).expect("it preempts");
        stints.began(1, -2.0, 5.0);
        stints.began(2, 0.0, 4.0);
        stints.began(3, 0.0, 6.0);
        assert_eq!(stints.displace(0.0, 1.0), None, "equal priority does not preempt");
        let victim = stints.displace(-1.0, 1.5).expect("a lower one serves");
        assert_eq!(victim, Preempted { job: 3, key: 0.0, work: Remaining::Left(4.5) });
        stints.ended(2);
        assert_eq!(stints.displace(-5.0, 2.0).map(|s| s.job), Some(1));
        assert_eq!(stints.displace(-5.0, 2.0), None, "nobody left in service");
    }

    #[test]
    fn restart_asks_for_all_the_work_again_and_none_never_preempts() {
        let mut stints = Preemption::new(Preempt::Restart).expect("it preempts");
        stints.began(7, 0.0, 9.0);
        assert_eq!(stints.displace(-1.0, 3.0).map(|p| p.work), Some(Remaining::Anew));
        assert!(Preemption::new(Preempt::None).is_none());
    }
}
