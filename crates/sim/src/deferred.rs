//! The work an event leaves for its end: jobs waiting for room at a station
//! (blocked senders), shared dispatch queues waiting for a station's servers,
//! and, in models with resources, the starts.
//!
//! Why a type of its own: a change during an event (a job leaving a station,
//! tokens given back) may let other jobs go on, and letting them go at once
//! would move jobs in the middle of another's move. So each event records
//! what it changed, by one method per kind of change, and [`settle`] does
//! the deferred work once the event is over; the simulation only says how a
//! job is let in ([`Settle`]).
//!
//! Invariants, once an event is settled (`is_settled`):
//! - nothing is pending: no station is listed and no start is due;
//! - `watched` counts the jobs in the lines and the stations fed by shared
//!   queues;
//! - every job in a line waits for room at that station and at no other,
//!   and each line is first come, first served: a job leaves its line only
//!   from the front, and only when that station has room for it;
//! - the front job of every line finds its station full (none waits
//!   beside room it could take), so long as every change was recorded:
//!   `left` whenever a job leaves a station, `blocked` only for a station
//!   found full, and `join_line` for a job that goes behind the others
//!   without looking whether there is room.
//!
//! While settling, letting a job in may free room where it was (so another
//! station is listed) and may make starts due; those are done in the same
//! settle, the stations last listed first, then every due start.

use std::collections::VecDeque;

/// What is left to do once an event is over (the module's docs).
#[derive(Debug, Default)]
pub struct DeferredWork {
    /// Per station: the jobs waiting for room there, and whether a shared
    /// dispatch queue waits for its servers.
    stations: Vec<StationLine>,
    /// The jobs in all lines plus the stations fed by shared queues: while
    /// none, a departure has nothing to record (most models never block),
    /// and `left` tests only this.
    watched: u32,
    /// Stations to look at once the event is over, the last listed first.
    to_admit: Vec<u32>,
    /// Set when starts wait for the event's end (in models with resources).
    starts_due: bool,
}

#[derive(Debug, Default)]
struct StationLine {
    /// Jobs that finished elsewhere (or their think time) and wait for room
    /// here, first come, first served.
    senders: VecDeque<u32>,
    /// Whether jobs of a `shared` dispatch queue wait for a server here.
    feeds_shared: bool,
}

/// How settling moves jobs: implemented by the simulation, which alone
/// moves jobs and schedules events.
pub trait Settle {
    fn deferred(&mut self) -> &mut DeferredWork;
    /// The station `sender` still finds no room at, if any (a fork's job may
    /// find room at one branch's station and not at another's).
    fn blocked_by(&self, sender: u32) -> Option<u32>;
    /// `sender` found room: it leaves where it is and goes on.
    fn let_in(&mut self, sender: u32);
    /// Jobs of the shared dispatch queues fed by `station` go while it has
    /// a server for them.
    fn admit_shared(&mut self, station: u32);
    /// Starts every job that can start now, across the stations.
    fn start_due(&mut self);
}

impl DeferredWork {
    /// For `stations` stations, those fed by shared dispatch queues as
    /// `feeds_shared` tells.
    pub fn new(stations: u32, feeds_shared: impl Fn(u32) -> bool) -> Self {
        let line = |station| StationLine { senders: VecDeque::new(), feeds_shared: feeds_shared(station) };
        let stations: Vec<_> = (0..stations).map(line).collect();
        let watched = stations.iter().filter(|s| s.feeds_shared).count() as u32;
        DeferredWork { stations, watched, ..DeferredWork::default() }
    }

    /// A job left `station` (it went on, or gave up waiting): room and maybe
    /// a server freed there, for its line and its shared queues.
    #[inline]
    pub fn left(&mut self, station: u32) {
        if self.watched > 0 {
            self.left_watched(station);
        }
    }

    #[cold]
    fn left_watched(&mut self, station: u32) {
        let s = &self.stations[station as usize];
        if !s.senders.is_empty() || s.feeds_shared {
            self.to_admit.push(station);
        }
    }

    /// `job` found no room at `station`: it waits for room there, behind the
    /// jobs already waiting (at the server it finished on, or outside).
    #[inline]
    pub fn blocked(&mut self, job: u32, station: u32) {
        self.stations[station as usize].senders.push_back(job);
        self.watched += 1;
    }

    /// The front job of `station`'s line leaves it.
    fn unblocked(&mut self, station: u32) {
        self.stations[station as usize].senders.pop_front();
        self.watched -= 1;
    }

    /// Whether jobs wait for room at `station`.
    #[inline]
    pub fn has_line(&self, station: u32) -> bool {
        !self.stations[station as usize].senders.is_empty()
    }

    /// `job` arrives where others already wait for room (`has_line`), maybe
    /// in the instant room freed: it waits behind them, and the station is
    /// looked at once the event is over, as they came first.
    pub fn join_line(&mut self, job: u32, station: u32) {
        self.to_admit.push(station);
        self.blocked(job, station);
    }

    /// Starts wait for the event's end: tokens are handed out across all
    /// stations then, in the order the jobs arrived.
    #[inline]
    pub fn defer_starts(&mut self) {
        self.starts_due = true;
    }

    /// Whether the event left nothing to do (the module's invariants hold).
    #[inline(always)]
    pub fn is_settled(&self) -> bool {
        self.to_admit.is_empty() && !self.starts_due
    }
}

/// After an event: lets the jobs waiting for room in at the stations listed
/// (and the shared queues they feed), then starts what is due.
#[inline(always)]
pub fn settle(host: &mut impl Settle) {
    // Most events leave nothing to settle.
    if !host.deferred().is_settled() {
        settle_pending(host);
    }
}

// Out of line, so that `settle`, on every event, stays a test inlined in
// the loop (cachegrind: inlined here, `settle` itself was called, +2.5 %).
#[inline(never)]
fn settle_pending(host: &mut impl Settle) {
    while let Some(station) = host.deferred().to_admit.pop() {
        if host.deferred().stations[station as usize].feeds_shared {
            host.admit_shared(station);
        }
        while let Some(&sender) = host.deferred().stations[station as usize].senders.front() {
            let still_blocked = host.blocked_by(sender);
            if still_blocked == Some(station) {
                break;
            }
            host.deferred().unblocked(station);
            match still_blocked {
                Some(other) => host.deferred().blocked(sender, other),
                None => host.let_in(sender),
            }
        }
    }
    let work = host.deferred();
    if work.starts_due {
        work.starts_due = false;
        host.start_due();
    }
}

#[cfg(test)]
mod tests;
