//! A state being changed by one event: the simulator's moves, by the names of
//! crates/sim/src/simulation.rs and deferred.rs, in their order (the job leaves
//! its server or blocks it until there is room, tokens go back, the lines for
//! room are settled, the stations last listed first, then, with tokens, the
//! oldest startable jobs start: starts.rs). New services and thinks draw their
//! first phase at the end (`outcomes`), so one event may lead to several states.
//! A job entering a step that balks decides on the jobs waiting in the station's
//! queue, after the room check, by its `chances` (chance.rs: the event is carried out
//! once per way they fall); a job whose patience runs out leaves the queue (`renege`).
//! Either gives up: an open customer is lost, a closed one thinks again.
//! A job reaching a dispatch step takes the branch its policy chooses (dispatch.rs)
//! or waits in its shared queue, which a departure from a branch's first station
//! lets go once the event is over, before that station's line (deferred.rs).

use crate::chance::Chances;
use crate::dispatch::{pick, Branches, Policy};
use crate::floor::Floor;
use crate::giving_up::GaveUp;
use crate::state::{Blocked, Queued, Served, State, OUTSIDE, UNDRAWN};

pub struct Work<'a> {
    floor: &'a Floor,
    pub state: State,
    to_admit: Vec<usize>,
    starts_due: bool,
    /// The classes whose customers completed, in order.
    pub completed: Vec<usize>,
    /// The classes whose customers gave up, and why, in order.
    pub gave_up: Vec<(usize, GaveUp)>,
    /// The decisions of this run of the event where it meets a chance.
    pub chances: Chances,
    new_thinkers: Vec<usize>,
    uses_tokens: bool,
    /// Per closed class, the class its next customer back from its cycle arrives as:
    /// the tagged customer of a passage (tagged.rs), for one event.
    pub arrives_as: Vec<Option<usize>>,
}

impl<'a> Work<'a> {
    pub fn new(floor: &'a Floor, state: &State, chances: Chances) -> Work<'a> {
        Work {
            floor,
            state: state.clone(),
            to_admit: Vec::new(),
            starts_due: false,
            completed: Vec::new(),
            gave_up: Vec::new(),
            chances,
            new_thinkers: Vec::new(),
            uses_tokens: floor.uses_tokens(),
            arrives_as: vec![None; floor.classes.len()],
        }
    }

    // -- what the stations hold
    fn has_free_server(&self, m: usize) -> bool {
        match self.floor.servers[m] {
            None => true,
            Some(servers) => (servers as usize) > self.state.serving[m].len() + self.state.blocked_on(m),
        }
    }

    pub fn has_room(&self, m: usize, already_here: bool) -> bool {
        self.state.has_room(self.floor, m, already_here)
    }

    /// The index in the queue of the job station m serves next.
    fn head(&self, m: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, q) in self.state.queue.iter().enumerate() {
            if q.station != m as i32 {
                continue;
            }
            if !self.floor.priority[m] {
                return Some(i);
            }
            let priority = |j: &Queued| self.floor.classes[j.class as usize].priority;
            if best.is_none_or(|b| priority(q) > priority(&self.state.queue[b])) {
                best = Some(i);
            }
        }
        best
    }

    fn tokens_free(&self, uses: &[usize]) -> bool {
        if uses.is_empty() {
            return true;
        }
        let mut held = vec![0u64; self.floor.tokens.len()];
        for s in self.state.serving.iter().flatten() {
            for &r in &self.floor.classes[s.class as usize].steps[s.step as usize].uses {
                held[r] += 1;
            }
        }
        uses.iter().all(|&r| held[r] < self.floor.tokens[r])
    }

    // -- the simulator's moves
    fn start(&mut self, i: usize) {
        let q = self.state.queue.remove(i);
        // its first phase is drawn at the end
        self.state.serving[q.station as usize].push(Served { class: q.class, step: q.step, phase: UNDRAWN });
    }

    fn dispatch(&mut self, m: usize) {
        if self.uses_tokens {
            self.starts_due = true;
            return;
        }
        while self.has_free_server(m) {
            match self.head(m) {
                Some(i) => self.start(i),
                None => return,
            }
        }
    }

    fn enter(&mut self, c: usize, step: usize) {
        if self.floor.classes[c].steps[step].dispatch.is_some() {
            return self.take_branch(c, step);
        }
        let m = self.floor.station_of(c, step);
        if let Some(balk) = &self.floor.classes[c].steps[step].balk {
            let waiting = self.state.queue.iter().filter(|q| q.station == m as i32).count();
            if self.chances.happens(balk.chance(waiting)) {
                return self.give_up(c, GaveUp::Balked);
            }
        }
        self.state.queue.push(Queued { station: m as i32, class: c as i32, step: step as i32 });
        self.dispatch(m);
    }

    /// The job reaches dispatch step `step`: it takes the branch the policy chooses, or
    /// waits in the step's shared queue (behind others waiting there, or where no
    /// branch's first station is open).
    fn take_branch(&mut self, c: usize, step: usize) {
        let dispatch = self.floor.classes[c].steps[step].dispatch.as_ref().expect("a dispatch step");
        let queued = dispatch.slot.filter(|_| matches!(dispatch.policy, Policy::Shared));
        if queued.is_some_and(|slot| self.state.dispatchers[slot] > 0) {
            self.state.dispatchers[queued.expect("a shared queue")] += 1;
            return;
        }
        match self.choose(c, step) {
            Some(branch) => self.move_from_outside(c, Some(dispatch.branches[branch])),
            None => self.state.dispatchers[queued.expect("only shared leaves a job waiting")] += 1,
        }
    }

    /// The branch class c's dispatch step `step` chooses now, by the run's chances.
    fn choose(&mut self, c: usize, step: usize) -> Option<usize> {
        let mut dispatchers = std::mem::take(&mut self.state.dispatchers);
        let branches = Branches { floor: self.floor, state: &self.state, class: c, step };
        let branch = branches.choose(&mut dispatchers, &mut self.chances);
        self.state.dispatchers = dispatchers;
        branch
    }

    /// A job at no station goes to `step`: out of the system (None), a dispatch, or
    /// a station, where it waits outside while there is no room.
    fn move_from_outside(&mut self, c: usize, step: Option<usize>) {
        match step {
            Some(s) if self.floor.classes[c].steps[s].dispatch.is_none() => {
                let m = self.floor.station_of(c, s);
                if self.has_room(m, false) {
                    self.enter(c, s);
                } else {
                    self.state.lines[m].push_back(Blocked { source: OUTSIDE, class: c as i32, step: s as i32 });
                }
            }
            _ => self.depart(OUTSIDE, c, step),
        }
    }

    /// Jobs of the shared queues fed by station m go, first come first served, each
    /// queue in turn while a branch's first station is open.
    fn admit_shared(&mut self, m: usize) {
        let floor = self.floor;
        for &(c, step) in &floor.shared_at[m] {
            let dispatch = floor.classes[c].steps[step].dispatch.as_ref().expect("a dispatch step");
            let slot = dispatch.slot.expect("a shared queue");
            while self.state.dispatchers[slot] > 0 {
                let Some(branch) = self.choose(c, step) else { break };
                self.state.dispatchers[slot] -= 1;
                self.move_from_outside(c, Some(dispatch.branches[branch]));
            }
        }
    }

    /// The job leaves station m: room there for its line and its shared queues, and a
    /// server for its queue.
    fn leave(&mut self, m: usize) {
        if !self.state.lines[m].is_empty() || self.floor.feeds_shared(m) {
            self.to_admit.push(m);
        }
        self.dispatch(m);
    }

    /// The job leaves `source` (it no longer holds anything there) and goes on.
    pub fn depart(&mut self, source: i32, c: usize, step: Option<usize>) {
        if source != OUTSIDE {
            self.leave(source as usize);
        }
        match step {
            None => self.complete(c),
            Some(step) => self.enter(c, step),
        }
    }

    pub fn complete(&mut self, c: usize) {
        self.completed.push(c);
        self.cycle_ends(c);
    }

    /// The waiting job at `i` in the queue runs out of patience: it leaves the queue,
    /// which may make room for the station's line and free a server, and gives up.
    pub fn renege(&mut self, i: usize) {
        let q = self.state.queue.remove(i);
        self.leave(q.station as usize);
        self.give_up(q.class as usize, GaveUp::Reneged);
    }

    fn give_up(&mut self, c: usize, why: GaveUp) {
        self.gave_up.push((c, why));
        self.cycle_ends(c);
    }

    /// Class c's customer is done with its visit: a closed one begins its next cycle.
    fn cycle_ends(&mut self, c: usize) {
        if Some(c) == self.floor.tagged {
            return; // the tagged customer's passage ends here: it does not come back
        }
        let job = &self.floor.classes[c];
        if !job.is_open() {
            if job.think.is_none() {
                let arriving = self.arrives_as[c].take().unwrap_or(c);
                self.closed_arrival(arriving);
            } else {
                self.new_thinkers.push(c);
            }
        }
    }

    pub fn closed_arrival(&mut self, c: usize) {
        if self.floor.classes[c].steps[0].dispatch.is_some() {
            return self.take_branch(c, 0);
        }
        let m = self.floor.station_of(c, 0);
        let outside = Blocked { source: OUTSIDE, class: c as i32, step: 0 };
        if !self.state.lines[m].is_empty() {
            self.state.lines[m].push_back(outside);
            self.to_admit.push(m);
        } else if !self.has_room(m, false) {
            self.state.lines[m].push_back(outside);
        } else {
            self.depart(OUTSIDE, c, Some(0));
        }
    }

    /// `entry`'s service at m ended and it goes to `step`: it leaves, or blocks its
    /// server until the next station has room.
    pub fn finish(&mut self, m: usize, entry: Served, step: Option<usize>) {
        let c = entry.class as usize;
        if !self.floor.classes[c].steps[entry.step as usize].uses.is_empty() {
            self.starts_due = self.uses_tokens;
        }
        let blocked = step.is_some_and(|next| {
            let there = self.floor.station_of(c, next);
            self.floor.classes[c].steps[next].dispatch.is_none() && !self.has_room(there, there == m)
        });
        let serving = &mut self.state.serving[m];
        let at = serving.iter().position(|s| *s == entry).expect("the job finishing is in service");
        serving.remove(at);
        match step {
            Some(next) if blocked => {
                let there = self.floor.station_of(c, next);
                self.state.lines[there].push_back(Blocked { source: m as i32, class: c as i32, step: next as i32 });
            }
            None if self.floor.classes[c].steps[entry.step as usize].scope.is_some() => {
                self.leave(m);
                self.end_branch(c, entry.step as usize);
            }
            _ => self.depart(m as i32, c, step),
        }
    }

    /// The job's step `step` routed to the end of its branch: it goes on by its
    /// dispatch step's route, drawn by the run's chances.
    fn end_branch(&mut self, c: usize, step: usize) {
        let (dispatch, _) = self.floor.classes[c].steps[step].scope.expect("a step inside a branch");
        let routes = &self.floor.classes[c].steps[dispatch].routes;
        let weights: Vec<f64> = routes.iter().map(|&(_, p)| p).collect();
        let next = routes[pick(&weights, &mut self.chances)].0;
        self.move_from_outside(c, next);
    }

    pub fn settle(&mut self) {
        while let Some(m) = self.to_admit.pop() {
            if self.floor.feeds_shared(m) {
                self.admit_shared(m);
            }
            while let Some(&first) = self.state.lines[m].front() {
                if !self.has_room(m, first.source == m as i32) {
                    break;
                }
                self.state.lines[m].pop_front();
                self.depart(first.source, first.class as usize, Some(first.step as usize));
            }
        }
        if self.starts_due {
            self.starts_due = false;
            self.start_due();
        }
    }

    /// The oldest job that can start anywhere starts, again while there is one.
    fn start_due(&mut self) {
        loop {
            let mut stations: Vec<usize> = self.state.queue.iter().map(|q| q.station as usize).collect();
            stations.sort_unstable();
            stations.dedup();
            let ready = stations
                .into_iter()
                .filter_map(|m| self.head(m).map(|i| (m, i)))
                .filter(|&(m, i)| {
                    let q = self.state.queue[i];
                    self.has_free_server(m)
                        && self.tokens_free(&self.floor.classes[q.class as usize].steps[q.step as usize].uses)
                })
                .map(|(_, i)| i)
                .min();
            match ready {
                Some(i) => self.start(i),
                None => return,
            }
        }
    }

    // -- the states it leads to
    /// The states after the event, each with its probability: every new service
    /// and think draws its first phase (the last drawn varying fastest).
    pub fn outcomes(&self) -> Vec<(f64, State)> {
        let floor = self.floor;
        enum Draw {
            Serve(usize, usize),
            Think(usize),
        }
        let mut choices: Vec<(Draw, Vec<(usize, f64)>)> = Vec::new();
        for (m, serving) in self.state.serving.iter().enumerate() {
            for (j, s) in serving.iter().enumerate() {
                if s.phase == UNDRAWN {
                    let starts = floor.classes[s.class as usize].steps[s.step as usize].service.starts();
                    choices.push((Draw::Serve(m, j), starts));
                }
            }
        }
        for &c in &self.new_thinkers {
            let think = floor.classes[c].think.as_ref().expect("a thinker's class has a think time");
            choices.push((Draw::Think(c), think.starts()));
        }
        // Across stations the order of arrival matters only to who takes a freed token:
        // kept among the stations whose steps hold tokens, where tokens can run short.
        let mut by_station = self.state.queue.clone();
        if !by_station.is_sorted_by_key(|q| q.station) {
            by_station.sort_by_key(|q| q.station); // stable: each station's own order kept
        }
        let queue: Vec<Queued> = if floor.tokens_bind {
            let holds = |q: &&Queued| floor.token_station[q.station as usize];
            let first = self.state.queue.iter().filter(holds);
            first.chain(by_station.iter().filter(|q| !holds(q))).copied().collect()
        } else {
            by_station
        };
        let mut picks = vec![0usize; choices.len()];
        let mut results = Vec::new();
        if choices.iter().any(|(_, options)| options.is_empty()) {
            return results;
        }
        loop {
            let mut probability = 1.0;
            let mut state = State {
                thinking: self.state.thinking.clone(),
                queue: queue.clone(),
                serving: self.state.serving.clone(),
                lines: self.state.lines.clone(),
                dispatchers: self.state.dispatchers.clone(),
            };
            for ((draw, options), &pick) in choices.iter().zip(&picks) {
                let (phase, p) = options[pick];
                probability *= p;
                match *draw {
                    Draw::Serve(m, j) => state.serving[m][j].phase = phase as i32,
                    Draw::Think(c) => state.thinking[c][phase] += 1,
                }
            }
            for serving in &mut state.serving {
                serving.sort();
            }
            results.push((probability, state));
            // the next pick, the last choice varying fastest (itertools.product)
            let mut i = choices.len();
            loop {
                if i == 0 {
                    return results;
                }
                i -= 1;
                picks[i] += 1;
                if picks[i] < choices[i].1.len() {
                    break;
                }
                picks[i] = 0;
            }
        }
    }
}
