//! A station's servers and the jobs that hold them: a pool of servers, each
//! held by one job at a time, or processor sharing, where the jobs present
//! share the servers' capacity. A new way to serve (typed servers, preemption)
//! is a type in its own file and an arm here.
//!
//! Both return what happened (a slot taken, the next sharing departure); the
//! simulation alone schedules the events that follow.

mod pool;
mod preemption;
mod sharing;
mod typed;

pub use pool::ServerPool;
pub use preemption::{Preempted, Preemption, Remaining};
pub use sharing::ProcessorSharing;
pub use typed::TypedServers;


use crate::model::{Discipline, Station};

/// Stands for "infinitely many" in server and capacity counts.
pub const UNBOUNDED: u32 = u32::MAX;

/// An explicit tag: telling the arms apart is then one byte compare on the
/// engine's hottest path, not a decoding of a niche in one arm's fields.
#[derive(Debug)]
#[repr(u8)]
pub enum Service {
    Pool(ServerPool),
    Sharing(ProcessorSharing),
    Typed(TypedServers),
}

/// A waiting job that can start now and, at typed servers, the type of the
/// idle server it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    pub job: u32,
    pub server_type: u32,
}

/// What starting a job's service means for the event list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Started {
    /// The job holds server `slot` (at typed servers: the server's type)
    /// until its own service end, its sampled work from now.
    OnServer { slot: u32 },
    /// The job shares the servers; the station's next departure moved.
    Shared(Departure),
}

/// The next departure from a processor-sharing station, and the version that
/// recognises it as stale once a later change moves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    pub at: f64,
    pub version: u32,
}

/// A job that moved to another server slot when one was freed, so the
/// simulation can update where that job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    pub job: u32,
    pub slot: u32,
}

impl Service {
    pub fn new(station: &Station, classes: usize) -> Self {
        let servers = station.servers.unwrap_or(UNBOUNDED);
        match station.discipline {
            _ if !station.server_types.is_empty() => {
                Service::Typed(TypedServers::new(&station.server_types, station.take, station.assign, classes))
            }
            Discipline::Ps => Service::Sharing(ProcessorSharing::new(servers)),
            _ => Service::Pool(ServerPool::new(servers)),
        }
    }

    #[inline]
    pub fn servers(&self) -> u32 {
        match self {
            Service::Pool(pool) => pool.servers(),
            Service::Sharing(sharing) => sharing.servers(),
            Service::Typed(typed) => typed.servers(),
        }
    }

    /// Sharing always admits one more; a pool needs a server neither serving
    /// nor held by a job blocked after service (at typed servers: one of any
    /// type; whether it suits the job is `TypedServers::pick`'s question).
    #[inline]
    pub fn has_free_server(&self) -> bool {
        match self {
            Service::Pool(pool) => pool.has_free_server(),
            Service::Sharing(_) => true,
            Service::Typed(typed) => typed.has_free_server(),
        }
    }

    /// Jobs in service (not counting those blocked after it).
    #[inline]
    pub fn serving(&self) -> u32 {
        match self {
            Service::Pool(pool) => pool.serving(),
            Service::Sharing(sharing) => sharing.serving(),
            Service::Typed(typed) => typed.serving(),
        }
    }

    /// `job` starts a service of `work` at `now`, at typed servers on an
    /// idle server of `server_type`.
    #[inline]
    pub fn start(&mut self, job: u32, server_type: u32, work: f64, now: f64) -> Started {
        match self {
            Service::Pool(pool) => Started::OnServer { slot: pool.start(job) },
            Service::Sharing(sharing) => Started::Shared(sharing.start(job, work, now)),
            Service::Typed(typed) => {
                typed.start(server_type, now);
                Started::OnServer { slot: server_type }
            }
        }
    }

    /// A job whose service ended leaves its server (`slot` in a pool).
    #[inline]
    pub fn leave(&mut self, slot: u32, now: f64) -> Option<Moved> {
        match self {
            Service::Pool(pool) => pool.leave(slot),
            Service::Sharing(sharing) => {
                sharing.leave();
                None
            }
            Service::Typed(typed) => {
                typed.leave(slot, now);
                None
            }
        }
    }
}
