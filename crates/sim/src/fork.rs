//! Fork and join: a job at a fork step splits into one sub-job per branch and
//! waits; it goes on when `join` of its branches ended. Branches that end after
//! that still run to their end (their work is real) and are then dropped.
//!
//! Why a type of its own: the join's bookkeeping (whose branch a sub-job runs,
//! how many ended, whether the parent still waits) is decided here, in one
//! place, and returned as a [`JoinOutcome`]; the simulation only moves jobs.
//!
//! Kept beside the jobs, a row per job slot and only in models with forks: a
//! sub-job's parent (as a timer names it, so a parent that went on, or left,
//! is recognised as stale: the parent is renewed when it goes on), and how
//! many branches of a waiting parent ended. Invariants: a parent's count is
//! below its join while it waits (the branch that reaches the join is told
//! `Joined` once, and the parent is renewed then, so later branches are
//! `Late`); a sub-job has no parent once its branch ended.

use crate::job::{JobRef, Jobs};

/// What the end of a fork's branch means for the job that forked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinOutcome {
    /// The parent still waits for other branches.
    Waiting,
    /// The join is complete: the parent goes on (renew it first, so that the
    /// branches still running are `Late`).
    Joined { parent: u32 },
    /// The parent went on (or left) before: the branch is dropped.
    Late,
}

#[derive(Debug, Default)]
pub struct Families {
    parent: Vec<Option<JobRef>>,
    ended: Vec<u32>,
}

impl Families {
    fn row(&mut self, job: u32) {
        if self.parent.len() <= job as usize {
            self.parent.resize(job as usize + 1, None);
            self.ended.resize(job as usize + 1, 0);
        }
    }

    /// `parent` waits at a fork: none of its branches ended yet.
    pub fn fork(&mut self, parent: u32) {
        self.row(parent);
        self.ended[parent as usize] = 0;
    }

    /// `child` runs a branch of `parent`'s fork.
    pub fn adopt(&mut self, child: u32, parent: JobRef) {
        self.row(child);
        self.parent[child as usize] = Some(parent);
    }

    #[inline]
    fn parent(&self, job: u32) -> Option<JobRef> {
        self.parent.get(job as usize).copied().flatten()
    }

    /// `child` ended its branch of a fork that goes on once `join` branches
    /// ended; it is nobody's child any more (the simulation releases it).
    pub fn branch_ended(&mut self, child: u32, join: u32, jobs: &Jobs) -> JoinOutcome {
        let parent = self.parent(child).filter(|&p| jobs.is_current(p));
        self.parent[child as usize] = None;
        let Some(parent) = parent else { return JoinOutcome::Late };
        self.ended[parent.id as usize] += 1;
        if self.ended[parent.id as usize] == join {
            JoinOutcome::Joined { parent: parent.id }
        } else {
            JoinOutcome::Waiting
        }
    }

    /// The customer a job works for: itself, or the customer whose fork it
    /// runs a branch of; `None` for a branch that ended after its join (the
    /// customer has gone on without it).
    pub fn customer_of(&self, mut job: u32, jobs: &Jobs) -> Option<u32> {
        while let Some(parent) = self.parent(job) {
            if !jobs.is_current(parent) {
                return None;
            }
            job = parent.id;
        }
        Some(job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parent with `children` sub-jobs of its fork.
    fn family(children: u32) -> (Families, Jobs, u32, Vec<u32>) {
        let (mut families, mut jobs) = (Families::default(), Jobs::default());
        let parent = jobs.admit(0, 0.0);
        families.fork(parent);
        let kids = (0..children).map(|_| jobs.admit(0, 0.0)).collect::<Vec<_>>();
        kids.iter().for_each(|&kid| families.adopt(kid, jobs.timer(parent)));
        (families, jobs, parent, kids)
    }

    #[test]
    fn two_of_three_joins_at_the_second_and_drops_the_third() {
        let (mut families, mut jobs, parent, kids) = family(3);
        assert_eq!(families.customer_of(kids[2], &jobs), Some(parent));
        assert_eq!(families.branch_ended(kids[1], 2, &jobs), JoinOutcome::Waiting);
        assert_eq!(families.branch_ended(kids[0], 2, &jobs), JoinOutcome::Joined { parent });
        jobs.renew(parent);
        assert_eq!(families.customer_of(kids[2], &jobs), None, "a late branch is not the customer's");
        assert_eq!(families.branch_ended(kids[2], 2, &jobs), JoinOutcome::Late);
        assert_eq!(families.customer_of(kids[2], &jobs), Some(kids[2]), "no longer anyone's child");
    }

    #[test]
    fn a_new_fork_counts_again_and_a_customer_is_its_own() {
        let (mut families, jobs, parent, kids) = family(2);
        assert_eq!(families.customer_of(parent, &jobs), Some(parent));
        assert_eq!(families.branch_ended(kids[0], 2, &jobs), JoinOutcome::Waiting);
        families.fork(parent);
        families.adopt(kids[0], jobs.timer(parent));
        assert_eq!(families.branch_ended(kids[1], 2, &jobs), JoinOutcome::Waiting, "the count started again");
        assert_eq!(families.branch_ended(kids[0], 2, &jobs), JoinOutcome::Joined { parent });
    }

    #[test]
    fn a_branch_of_a_branch_works_for_the_customer() {
        let (mut families, mut jobs, parent, kids) = family(1);
        families.fork(kids[0]);
        let grandchild = jobs.admit(0, 0.0);
        families.adopt(grandchild, jobs.timer(kids[0]));
        assert_eq!(families.customer_of(grandchild, &jobs), Some(parent));
    }
}
