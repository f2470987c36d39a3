//! A state of the chain: what the simulator would need to go on, and no more
//! (python/brewput/analytic/chain/generate.py says why each part is there), and
//! its encoding as one flat list of integers, by which states are stored and
//! told apart.

use std::collections::VecDeque;

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
}

impl State {
    /// The empty floor: no customer thinking, no job anywhere.
    pub fn empty(floor: &Floor) -> State {
        State {
            thinking: floor.classes.iter().map(|c| vec![0; c.think_phases()]).collect(),
            queue: Vec::new(),
            serving: vec![Vec::new(); floor.stations()],
            lines: vec![VecDeque::new(); floor.stations()],
        }
    }

    /// The state as integers: the thinking counts, then the queue's length and its
    /// jobs, then per station its jobs in service and its line (each a length, then
    /// three numbers a job).
    pub fn encode(&self, out: &mut Vec<i32>) {
        out.clear();
        for phases in &self.thinking {
            out.extend(phases.iter().map(|&n| n as i32));
        }
        out.push(self.queue.len() as i32);
        out.extend(self.queue.iter().flat_map(|q| [q.station, q.class, q.step]));
        for serving in &self.serving {
            out.push(serving.len() as i32);
            out.extend(serving.iter().flat_map(|s| [s.class, s.step, s.phase]));
        }
        for line in &self.lines {
            out.push(line.len() as i32);
            out.extend(line.iter().flat_map(|b| [b.source, b.class, b.step]));
        }
    }

    /// The state `encode` wrote, read back for `floor` (whose think phases and
    /// stations say where each part begins).
    pub fn decode(floor: &Floor, code: &[i32]) -> State {
        let mut at = 0;
        let mut take = |n: usize| {
            let part = &code[at..at + n];
            at += n;
            part
        };
        let thinking =
            floor.classes.iter().map(|c| take(c.think_phases()).iter().map(|&n| n as i64).collect()).collect();
        let n = take(1)[0] as usize;
        let queue = take(3 * n).chunks(3).map(|j| Queued { station: j[0], class: j[1], step: j[2] }).collect();
        let serving = (0..floor.stations())
            .map(|_| {
                let n = take(1)[0] as usize;
                take(3 * n).chunks(3).map(|j| Served { class: j[0], step: j[1], phase: j[2] }).collect()
            })
            .collect();
        let lines = (0..floor.stations())
            .map(|_| {
                let n = take(1)[0] as usize;
                take(3 * n).chunks(3).map(|j| Blocked { source: j[0], class: j[1], step: j[2] }).collect()
            })
            .collect();
        State { thinking, queue, serving, lines }
    }

    /// The jobs of open classes in the system.
    pub fn open_jobs(&self, floor: &Floor) -> u64 {
        let open = |c: i32| floor.classes[c as usize].is_open() as u64;
        self.queue.iter().map(|q| open(q.class)).sum::<u64>()
            + self.serving.iter().flatten().map(|s| open(s.class)).sum::<u64>()
            + self.lines.iter().flatten().map(|b| open(b.class)).sum::<u64>()
    }
}
