//! A state of the chain: what the simulator would need to go on, and no more
//! (python/brewput/analytic/chain/generate.py says why each part is there), and
//! its encoding as one flat list of integers, by which states are stored and
//! told apart.

use std::collections::VecDeque;

use crate::dispatch::shared_queues;
use crate::floor::Floor;

/// Where a job waiting for room comes from when it holds no server.
pub const OUTSIDE: i32 = -1;

/// A job waiting for a server: at `station`, of `class`, at `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub station: i32,
    pub class: i32,
    pub step: i32,
}

/// A job in service, in `phase` of its service (UNDRAWN until its first phase is drawn).
/// Ordered as the state keeps a station's jobs in service: by class, step, phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Served {
    pub class: i32,
    pub step: i32,
    pub phase: i32,
}

/// A service begun whose first phase is not drawn yet (within one event only).
pub const UNDRAWN: i32 = -1;

/// A job waiting for room at a station: from the server it blocks (`source`) or
/// OUTSIDE, of `class`, going to `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub source: i32,
    pub class: i32,
    pub step: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Per class, its thinking customers per phase of the think time (none for a class without one).
    pub thinking: Vec<Vec<i64>>,
    /// The waiting jobs, in the order the state keeps (Work::outcomes).
    pub queue: Vec<Queued>,
    /// Per station, the jobs in service, sorted.
    pub serving: Vec<Vec<Served>>,
    /// Per station, its line of jobs waiting for room there, first come first served.
    pub lines: Vec<VecDeque<Blocked>>,
    /// What each remembering dispatch step remembers (dispatch.rs): none without them.
    pub dispatchers: Vec<i32>,
}

impl State {
    /// The empty floor: no customer thinking, no job anywhere.
    pub fn empty(floor: &Floor) -> State {
        State {
            thinking: floor.classes.iter().map(|c| vec![0; c.think_phases()]).collect(),
            queue: Vec::new(),
            serving: vec![Vec::new(); floor.stations()],
            lines: vec![VecDeque::new(); floor.stations()],
            dispatchers: vec![0; floor.dispatch_slots],
        }
    }

    /// The state as integers: the thinking counts, then the queue, then per station its
    /// jobs in service, then per station its line, then what the dispatch steps
    /// remember (nothing without them), each list of jobs as runs of equal
    /// jobs (a count of runs, then per run the job's three numbers and how many): a
    /// station's queue is mostly jobs alike, so a state takes a few dozen integers
    /// however many jobs it holds.
    pub fn encode(&self, out: &mut Vec<i32>) {
        out.clear();
        for phases in &self.thinking {
            out.extend(phases.iter().map(|&n| n as i32));
        }
        runs(out, self.queue.iter().map(|q| [q.station, q.class, q.step]));
        for serving in &self.serving {
            runs(out, serving.iter().map(|s| [s.class, s.step, s.phase]));
        }
        for line in &self.lines {
            runs(out, line.iter().map(|b| [b.source, b.class, b.step]));
        }
        out.extend(&self.dispatchers);
    }

    /// The state `encode` wrote, read back for `floor` (whose think phases and
    /// stations say where each part begins).
    pub fn decode(floor: &Floor, code: &[i32]) -> State {
        let mut at = 0;
        let thinking = floor
            .classes
            .iter()
            .map(|c| {
                at += c.think_phases();
                code[at - c.think_phases()..at].iter().map(|&n| n as i64).collect()
            })
            .collect();
        let queue = unruns(code, &mut at).map(|j| Queued { station: j[0], class: j[1], step: j[2] }).collect();
        let serving = (0..floor.stations())
            .map(|_| unruns(code, &mut at).map(|j| Served { class: j[0], step: j[1], phase: j[2] }).collect())
            .collect();
        let lines = (0..floor.stations())
            .map(|_| unruns(code, &mut at).map(|j| Blocked { source: j[0], class: j[1], step: j[2] }).collect())
            .collect();
        let dispatchers = code[at..at + floor.dispatch_slots].to_vec();
        State { thinking, queue, serving, lines, dispatchers }
    }

    /// The jobs blocked after service on a server of station m.
    pub fn blocked_on(&self, m: usize) -> usize {
        self.lines.iter().flatten().filter(|b| b.source == m as i32).count()
    }

    /// Whether station m has room for one more job (`already_here`: one of its own,
    /// counted among those present, moving on to it again).
    pub fn has_room(&self, floor: &Floor, m: usize, already_here: bool) -> bool {
        match floor.capacity[m] {
            None => true,
            Some(capacity) => {
                let present = self.queue.iter().filter(|q| q.station == m as i32).count()
                    + self.serving[m].len()
                    + self.blocked_on(m);
                ((present - already_here as usize) as u64) < capacity
            }
        }
    }

    /// The jobs of open classes in the system.
    pub fn open_jobs(&self, floor: &Floor) -> u64 {
        let open = |c: i32| floor.classes[c as usize].is_open() as u64;
        self.queue.iter().map(|q| open(q.class)).sum::<u64>()
            + self.serving.iter().flatten().map(|s| open(s.class)).sum::<u64>()
            + self.lines.iter().flatten().map(|b| open(b.class)).sum::<u64>()
            + self.in_shared_queues(floor, open)
    }

    /// The jobs waiting in shared dispatch queues, each weighed by `weight` of its class.
    fn in_shared_queues(&self, floor: &Floor, weight: impl Fn(i32) -> u64) -> u64 {
        if floor.dispatch_slots == 0 {
            return 0;
        }
        shared_queues(floor).map(|(c, slot)| weight(c as i32) * self.dispatchers[slot] as u64).sum()
    }
}

/// Writes `jobs` as runs of equal jobs: how many runs, then each run's job and count.
fn runs(out: &mut Vec<i32>, jobs: impl Iterator<Item = [i32; 3]>) {
    let count_at = out.len();
    out.push(0);
    let mut last: Option<[i32; 3]> = None;
    for job in jobs {
        if last == Some(job) {
            *out.last_mut().expect("a run is open") += 1;
        } else {
            out.extend(job);
            out.push(1);
            out[count_at] += 1;
            last = Some(job);
        }
    }
}

/// The jobs `runs` wrote from `at` (moved past them), one by one.
fn unruns<'a>(code: &'a [i32], at: &mut usize) -> impl Iterator<Item = [i32; 3]> + 'a {
    let n = code[*at] as usize;
    let part = &code[*at + 1..*at + 1 + 4 * n];
    *at += 1 + 4 * n;
    part.chunks(4).flat_map(|r| std::iter::repeat_n([r[0], r[1], r[2]], r[3] as usize))
}
