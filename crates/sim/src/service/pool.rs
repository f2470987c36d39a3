//! A pool of identical servers, each held by one job from the start of its
//! service until it leaves the station (blocked after service included).

use super::Moved;

#[derive(Debug)]
pub struct ServerPool {
    servers: u32,
    /// The jobs holding a server, serving or blocked; a job's slot is its index.
    holders: Vec<u32>,
    /// Holders whose service ended but whose next station is full.
    blocked: u32,
}

impl ServerPool {
    pub fn new(servers: u32) -> Self {
        ServerPool { servers, holders: Vec::new(), blocked: 0 }
    }

    #[inline]
    pub fn servers(&self) -> u32 {
        self.servers
    }

    /// One comparison even for unbounded pools: `UNBOUNDED` is `u32::MAX`,
    /// more jobs than a run can hold.
    #[inline]
    pub fn has_free_server(&self) -> bool {
        (self.holders.len() as u32) < self.servers
    }

    /// Servers no job holds (`UNBOUNDED` less the holders for unbounded pools).
    #[inline]
    pub fn free_servers(&self) -> u32 {
        self.servers - self.holders.len() as u32
    }

    #[inline]
    pub fn serving(&self) -> u32 {
        self.holders.len() as u32 - self.blocked
    }

    /// A rota puts `servers` on (day.rs). Fewer than hold a job: the extra
    /// ones finish their jobs, and no job starts until fewer hold one.
    pub fn set_servers(&mut self, servers: u32) {
        self.servers = servers;
    }

    /// Whether more jobs are in service than servers are on (a rota took some off).
    pub fn over_staffed(&self) -> bool {
        self.holders.len() as u32 > self.servers
    }

    /// `job` takes a free server; returns its slot.
    #[inline]
    pub fn start(&mut self, job: u32) -> u32 {
        debug_assert!(self.has_free_server(), "a job starts only on a free server");
        self.holders.push(job);
        (self.holders.len() - 1) as u32
    }

    /// A service ends: its job keeps the server until it can leave.
    #[inline]
    pub fn end(&mut self) {
        self.blocked += 1;
    }

    /// The job in `slot`, still in service, is taken off its server
    /// (preempted); the last holder may move into the slot, as in `leave`.
    #[inline]
    pub fn evict(&mut self, slot: u32) -> Option<Moved> {
        self.holders.swap_remove(slot as usize);
        self.holders.get(slot as usize).map(|&job| Moved { job, slot })
    }

    /// The job in `slot`, its service over, frees its server. The last holder
    /// takes the freed slot (constant time); it is returned if it moved.
    #[inline]
    pub fn leave(&mut self, slot: u32) -> Option<Moved> {
        self.blocked -= 1;
        self.holders.swap_remove(slot as usize);
        self.holders.get(slot as usize).map(|&job| Moved { job, slot })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::UNBOUNDED;

    #[test]
    fn servers_are_held_until_their_jobs_leave() {
        let mut pool = ServerPool::new(2);
        assert_eq!((pool.start(7), pool.start(8)), (0, 1));
        assert!(!pool.has_free_server());
        pool.end();
        assert_eq!(pool.serving(), 1);
        assert!(!pool.has_free_server(), "a blocked job still holds its server");
        // Job 7 leaves slot 0; job 8 moves into it.
        assert_eq!(pool.leave(0), Some(Moved { job: 8, slot: 0 }));
        assert!(pool.has_free_server());
        pool.end();
        assert_eq!(pool.leave(0), None);
        assert_eq!(pool.serving(), 0);
    }

    #[test]
    fn unbounded_pools_always_have_a_free_server() {
        let mut pool = ServerPool::new(UNBOUNDED);
        for job in 0..1000 {
            pool.start(job);
        }
        assert!(pool.has_free_server());
        assert_eq!(pool.serving(), 1000);
    }
}
