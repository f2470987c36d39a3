//! The deferred work alone: unit tests of each rule, then random sequences
//! of a toy floor's changes replayed against a reference that keeps the
//! lines itself and settles by sweeping every station until nothing moves.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;

/// A host that records what settling asked of it.
#[derive(Default)]
struct Recorder {
    work: DeferredWork,
    /// Per job: the station it still finds full, if any.
    blocking: Vec<Option<u32>>,
    calls: Vec<String>,
}

impl Recorder {
    fn new(stations: u32, shared: &[u32], jobs: usize) -> Self {
        Recorder {
            work: DeferredWork::new(stations, |s| shared.contains(&s)),
            blocking: vec![None; jobs],
            calls: Vec::new(),
        }
    }
}

impl Settle for Recorder {
    fn deferred(&mut self) -> &mut DeferredWork {
        &mut self.work
    }
    fn blocked_by(&self, sender: u32) -> Option<u32> {
        self.blocking[sender as usize]
    }
    fn let_in(&mut self, sender: u32) {
        self.calls.push(format!("let in {sender}"));
    }
    fn admit_shared(&mut self, station: u32) {
        self.calls.push(format!("shared {station}"));
    }
    fn start_due(&mut self) {
        self.calls.push("starts".into());
    }
}

fn lines(work: &DeferredWork) -> Vec<Vec<u32>> {
    work.stations.iter().map(|s| s.senders.iter().copied().collect()).collect()
}

#[test]
fn a_departure_from_a_station_nobody_waits_for_leaves_nothing_to_do() {
    let mut host = Recorder::new(2, &[], 0);
    host.work.left(0);
    assert!(host.work.is_settled());
    settle(&mut host);
    assert!(host.calls.is_empty());
}

#[test]
fn the_jobs_waiting_for_room_get_in_first_come_first_served_while_there_is_room() {
    let mut host = Recorder::new(2, &[], 3);
    for job in 0..3 {
        host.blocking[job as usize] = Some(1);
        host.work.blocked(job, 1);
    }
    assert!(host.work.is_settled(), "waiting for room is not work until room frees");
    host.work.left(1);
    host.blocking[0] = None;
    host.blocking[1] = None;
    settle(&mut host);
    assert_eq!(host.calls, ["let in 0", "let in 1"], "job 2 still finds the station full");
    assert_eq!(lines(&host.work), [vec![], vec![2]]);
    assert!(host.work.is_settled());
}

#[test]
fn a_job_with_room_behind_one_without_waits() {
    let mut host = Recorder::new(1, &[], 2);
    host.work.blocked(0, 0);
    host.work.blocked(1, 0);
    (host.blocking[0], host.blocking[1]) = (Some(0), None);
    host.work.left(0);
    settle(&mut host);
    assert!(host.calls.is_empty());
    assert_eq!(lines(&host.work), [vec![0, 1]]);
}

#[test]
fn a_job_with_room_here_but_none_at_another_station_waits_there() {
    // A fork's job whose branches start at stations 0 and 1.
    let mut host = Recorder::new(2, &[], 2);
    host.work.blocked(0, 0);
    host.work.blocked(1, 1);
    host.blocking[0] = Some(1);
    host.blocking[1] = Some(1);
    host.work.left(0);
    settle(&mut host);
    assert!(host.calls.is_empty());
    assert_eq!(lines(&host.work), [vec![], vec![1, 0]], "behind the jobs already waiting there");
}

#[test]
fn a_job_joining_a_line_has_the_station_looked_at() {
    let mut host = Recorder::new(1, &[], 2);
    host.work.blocked(0, 0);
    assert!(host.work.has_line(0));
    host.work.join_line(1, 0);
    assert!(!host.work.is_settled());
    settle(&mut host);
    assert_eq!(host.calls, ["let in 0", "let in 1"]);
}

#[test]
fn a_station_feeding_a_shared_queue_admits_from_it_before_its_line() {
    let mut host = Recorder::new(2, &[1], 1);
    host.work.left(0);
    host.work.left(1);
    host.work.blocked(0, 1);
    settle(&mut host);
    assert_eq!(host.calls, ["shared 1", "let in 0"]);
}

#[test]
fn due_starts_come_once_after_every_admission() {
    let mut host = Recorder::new(2, &[], 1);
    host.work.defer_starts();
    host.work.defer_starts();
    host.work.blocked(0, 0);
    host.work.left(0);
    settle(&mut host);
    assert_eq!(host.calls, ["let in 0", "starts"]);
    assert!(host.work.is_settled());
}

#[test]
fn the_stations_last_listed_are_looked_at_first() {
    let mut host = Recorder::new(3, &[0, 1, 2], 0);
    for station in 0..3 {
        host.work.left(station);
    }
    settle(&mut host);
    assert_eq!(host.calls, ["shared 2", "shared 1", "shared 0"]);
}

// The toy floor: stations with a capacity (buffer and servers as one); the
// first, SHARED, has no limit on room but SHARED_SERVERS servers, which a
// shared queue in front of it waits for (with a choice of several such
// stations, which a job takes would depend on when each opened, and the
// reference could not tell). A job is at a station (served, or blocked there
// after its service) or outside (waiting in a line or the shared queue, or
// not in the system).

const STATIONS: u32 = 5;
const SHARED: u32 = 0;
const SHARED_SERVERS: u32 = 2;
const JOBS: u32 = 12;
const OUT: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
struct Floor {
    capacity: Vec<u32>,
    present: Vec<u32>,
    /// Per job: its station, or OUT.
    at: Vec<u32>,
    /// Per job: where it goes next (while it waits in a line: the station
    /// of that line).
    next: Vec<u32>,
    /// The jobs waiting for a shared station's server.
    shared: VecDeque<u32>,
    /// How many times the due starts ran.
    starts: u32,
}

impl Floor {
    fn new(rng: &mut Xoshiro256PlusPlus) -> Self {
        let capacity = (0..STATIONS).map(|s| if s == SHARED { u32::MAX } else { rng.gen_range(1..=3) }).collect();
        Floor {
            capacity,
            present: vec![0; STATIONS as usize],
            at: vec![OUT; JOBS as usize],
            next: vec![OUT; JOBS as usize],
            shared: VecDeque::new(),
            starts: 0,
        }
    }

    fn has_room(&self, station: u32, here: u32) -> bool {
        let s = station as usize;
        self.capacity[s] == u32::MAX || self.present[s] - u32::from(station == here) < self.capacity[s]
    }

    /// The shared station, if a server of it is free.
    fn open_shared(&self) -> Option<u32> {
        (self.present[SHARED as usize] < SHARED_SERVERS).then_some(SHARED)
    }

    fn blocking(&self, job: u32) -> Option<u32> {
        let (next, here) = (self.next[job as usize], self.at[job as usize]);
        (!self.has_room(next, here)).then_some(next)
    }
}

/// The toy floor's changes, each as the simulation makes it; `Lines` is how
/// jobs waiting for room are kept and let in: by the deferred work, or by
/// the reference.
trait Lines: Sized {
    fn floor(&mut self) -> &mut Floor;
    fn left(&mut self, station: u32);
    fn blocked(&mut self, job: u32, station: u32);
    fn has_line(&self, station: u32) -> bool;
    fn join_line(&mut self, job: u32, station: u32);
    fn settle(&mut self);
    fn lines(&self) -> Vec<Vec<u32>>;

    /// A job from outside arrives at `station` (a closed customer's arrival).
    fn arrive(&mut self, job: u32, station: u32) {
        self.floor().next[job as usize] = station;
        if self.has_line(station) {
            return self.join_line(job, station);
        }
        match self.floor().blocking(job) {
            Some(full) => self.blocked(job, full),
            None => self.enter(job, station),
        }
    }

    /// A job from outside arrives at the shared dispatch.
    fn dispatch(&mut self, job: u32) {
        let floor = self.floor();
        match floor.open_shared().filter(|_| floor.shared.is_empty()) {
            Some(station) => self.enter(job, station),
            None => floor.shared.push_back(job),
        }
    }

    /// A job at a station ends its service there, for `next` (OUT: it
    /// leaves the system), or stays blocked until `next` has room.
    fn finish(&mut self, job: u32, next: u32) {
        self.floor().next[job as usize] = next;
        match (next != OUT).then(|| self.floor().blocking(job)).flatten() {
            Some(full) => self.blocked(job, full),
            None => self.go_on(job),
        }
    }

    /// The job leaves where it is for its `next` (a job let in).
    fn go_on(&mut self, job: u32) {
        let here = self.floor().at[job as usize];
        if here != OUT {
            self.floor().present[here as usize] -= 1;
            self.floor().at[job as usize] = OUT;
            self.left(here);
        }
        let next = self.floor().next[job as usize];
        if next != OUT {
            self.enter(job, next);
        }
    }

    fn enter(&mut self, job: u32, station: u32) {
        let floor = self.floor();
        floor.present[station as usize] += 1;
        floor.at[job as usize] = station;
        floor.next[job as usize] = OUT;
        // As at a station of a model with resources: starting waits.
        self.defer_starts();
    }

    fn defer_starts(&mut self);

    /// The shared queue's jobs go while a shared station's server is free.
    fn admit_shared(&mut self) {
        loop {
            let floor = self.floor();
            let Some(station) = floor.open_shared() else { break };
            let Some(job) = floor.shared.pop_front() else { break };
            self.enter(job, station);
        }
    }
}

/// The toy floor's lines kept by the deferred work.
struct Deferred {
    floor: Floor,
    work: DeferredWork,
}

impl Settle for Deferred {
    fn deferred(&mut self) -> &mut DeferredWork {
        &mut self.work
    }
    fn blocked_by(&self, sender: u32) -> Option<u32> {
        self.floor.blocking(sender)
    }
    fn let_in(&mut self, sender: u32) {
        self.go_on(sender);
    }
    fn admit_shared(&mut self, _: u32) {
        Lines::admit_shared(self);
    }
    fn start_due(&mut self) {
        self.floor.starts += 1;
    }
}

impl Lines for Deferred {
    fn floor(&mut self) -> &mut Floor {
        &mut self.floor
    }
    fn left(&mut self, station: u32) {
        self.work.left(station);
    }
    fn blocked(&mut self, job: u32, station: u32) {
        self.work.blocked(job, station);
    }
    fn has_line(&self, station: u32) -> bool {
        self.work.has_line(station)
    }
    fn join_line(&mut self, job: u32, station: u32) {
        self.work.join_line(job, station);
    }
    fn defer_starts(&mut self) {
        self.work.defer_starts();
    }
    fn settle(&mut self) {
        settle(self);
    }
    fn lines(&self) -> Vec<Vec<u32>> {
        lines(&self.work)
    }
}

/// The reference: a line per station, and settling that sweeps every
/// station (and the shared queue) until nothing moves.
struct Reference {
    floor: Floor,
    lines: Vec<VecDeque<u32>>,
    starts_due: bool,
}

impl Lines for Reference {
    fn floor(&mut self) -> &mut Floor {
        &mut self.floor
    }
    fn left(&mut self, _: u32) {}
    fn blocked(&mut self, job: u32, station: u32) {
        self.lines[station as usize].push_back(job);
    }
    fn has_line(&self, station: u32) -> bool {
        !self.lines[station as usize].is_empty()
    }
    fn join_line(&mut self, job: u32, station: u32) {
        self.blocked(job, station);
    }
    fn defer_starts(&mut self) {
        self.starts_due = true;
    }
    fn settle(&mut self) {
        loop {
            let mut moved = false;
            for station in 0..STATIONS {
                while let Some(&job) = self.lines[station as usize].front() {
                    if self.floor.blocking(job).is_some() {
                        break;
                    }
                    self.lines[station as usize].pop_front();
                    self.go_on(job);
                    moved = true;
                }
            }
            let shared = self.floor.shared.len();
            self.admit_shared();
            if !moved && self.floor.shared.len() == shared {
                break;
            }
        }
        if std::mem::take(&mut self.starts_due) {
            self.floor.starts += 1;
        }
    }
    fn lines(&self) -> Vec<Vec<u32>> {
        self.lines.iter().map(|l| l.iter().copied().collect()).collect()
    }
}

/// A random change to the floor, chosen from the reference's state, made on both.
fn change(rng: &mut Xoshiro256PlusPlus, deferred: &mut Deferred, reference: &mut Reference) {
    let job = rng.gen_range(0..JOBS);
    let waiting = reference.lines.iter().any(|l| l.contains(&job)) || reference.floor.shared.contains(&job);
    if waiting {
        return;
    }
    if reference.floor.at[job as usize] == OUT {
        if rng.gen_bool(0.3) {
            deferred.dispatch(job);
            reference.dispatch(job);
        } else {
            let station = rng.gen_range(0..STATIONS);
            deferred.arrive(job, station);
            reference.arrive(job, station);
        }
    } else {
        let next = if rng.gen_bool(0.2) { OUT } else { rng.gen_range(0..STATIONS) };
        deferred.finish(job, next);
        reference.finish(job, next);
    }
}

#[test]
fn random_changes_settle_as_the_reference_does() {
    for seed in 0..300 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let floor = Floor::new(&mut rng);
        let mut deferred = Deferred { floor: floor.clone(), work: DeferredWork::new(STATIONS, |s| s == SHARED) };
        let mut reference = Reference { floor, lines: vec![VecDeque::new(); STATIONS as usize], starts_due: false };
        for event in 0..400 {
            // An event makes one change or a few before it is settled.
            for _ in 0..rng.gen_range(1..=3) {
                change(&mut rng, &mut deferred, &mut reference);
            }
            deferred.settle();
            reference.settle();
            let at = format!("seed {seed}, event {event}");
            assert_eq!(deferred.floor, reference.floor, "{at}");
            assert_eq!(deferred.lines(), reference.lines(), "{at}");
            assert!(deferred.work.is_settled(), "{at}");
            let waiting: usize = deferred.lines().iter().map(Vec::len).sum();
            assert_eq!(deferred.work.watched as usize, waiting + 1, "{at}: the jobs in lines and the shared station");
            for (station, line) in deferred.lines().iter().enumerate() {
                if let Some(&front) = line.first() {
                    assert_eq!(deferred.floor.blocking(front), Some(station as u32), "{at}: the front waits beside room");
                }
            }
        }
    }
}
