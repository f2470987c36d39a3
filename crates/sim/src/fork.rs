//! Fork and join: a job at a fork step splits into one sub-job per branch and
//! waits; it goes on when `join` of its branches ended. Branches that end after
//! that still run to their end (their work is real) and are then dropped.
//!
//! Kept beside the jobs, a row per job slot and only in models with forks: a
//! sub-job's parent (as a timer names it, so a parent that went on, or left,
//! is recognised as stale: the parent is renewed when it goes on), and how
//! many branches of a waiting parent ended.

use crate::job::JobRef;

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

    /// `child` runs a branch of `parent`'s fork; `None`: `child` is a customer
    /// or a job that forked nothing.
    pub fn set_parent(&mut self, child: u32, parent: Option<JobRef>) {
        self.row(child);
        self.parent[child as usize] = parent;
    }

    #[inline]
    pub fn parent(&self, job: u32) -> Option<JobRef> {
        self.parent.get(job as usize).copied().flatten()
    }

    /// One more branch of `parent`'s fork ended; returns how many have.
    pub fn branch_ended(&mut self, parent: u32) -> u32 {
        self.ended[parent as usize] += 1;
        self.ended[parent as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_counts_its_ended_branches_from_each_fork() {
        let mut families = Families::default();
        families.fork(4);
        let parent = JobRef { id: 4, generation: 1 };
        families.set_parent(9, Some(parent));
        assert_eq!(families.parent(9), Some(parent));
        assert_eq!(families.parent(2), None);
        assert_eq!((families.branch_ended(4), families.branch_ended(4)), (1, 2));
        families.fork(4);
        assert_eq!(families.branch_ended(4), 1, "a new fork starts again");
    }
}
