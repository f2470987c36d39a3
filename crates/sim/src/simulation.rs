//! One replication: the event loop and the life of a job.
//!
//! A job moves between stations by `depart`: it leaves where it is (a station,
//! or outside: arriving or thinking) for its `next` step. When a job leaves a
//! station whose buffer was full, the blocked senders waiting for room there are
//! let in by `settle` once the event is over (they may cascade upstream). When a
//! server frees or a job arrives, `dispatch` starts what can start at once; in
//! models with resources it too waits for `settle`, which hands out tokens
//! across all stations in the order the jobs arrived.

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::control::RunControl;
use crate::error::SimError;
use crate::event::{Event, EventQueue, VERSION_MASK};
use crate::model::{CompiledModel, Discipline};
use crate::plan::{plan_classes, ClassPlan, SourcePlan, EXIT};
use crate::settings::{RunSettings, Stop, Warmup};
use crate::station::StationState;
use crate::stats::{ClassStats, ReplicationStats, ResourceStats, TimeAverage, TimeRecorder};

/// Where a job is when it is at no station.
const OUTSIDE: u32 = u32::MAX;

/// Events between looks at the run's control (progress, cancellation): rare
/// enough to cost nothing, frequent enough to answer Ctrl-C at once.
const EVENTS_PER_CHECK: u64 = 1 << 16;

/// Beyond this many open-class customers in the system (besides every closed
/// customer) a model is taken to be unstable: the run stops with an error
/// instead of eating all memory (about 100 bytes a customer, in each of the
/// replications running at once).
const MAX_OPEN_JOBS: usize = 1_000_000;

#[derive(Debug, Clone, Copy)]
struct Job {
    class: u32,
    step: u32,
    /// The step the job goes to next (`EXIT` to leave the route).
    next: u32,
    /// The station it is at, or `OUTSIDE`.
    station: u32,
    entered_system: f64,
    entered_station: f64,
    /// Service time of the current step; remaining work under processor sharing.
    work: f64,
    waited: f64,
    /// Order of arrival at the current station: breaks ties first come first served.
    seq: u64,
}

struct ResourceState {
    free: u32,
    in_use: TimeAverage,
}

impl ResourceState {
    fn take(&mut self, now: f64) {
        self.free -= 1;
        self.in_use.change(1.0, now);
    }

    fn give_back(&mut self, now: f64) {
        self.free += 1;
        self.in_use.change(-1.0, now);
    }
}

struct ClassState {
    completed: u64,
    offered: u64,
    lost: u64,
    response: TimeRecorder,
    waiting: TimeRecorder,
}

pub struct Simulation {
    classes: Vec<ClassPlan>,
    stations: Vec<StationState>,
    resources: Vec<ResourceState>,
    tokens: Vec<u32>,
    class_stats: Vec<ClassState>,
    jobs: Vec<Job>,
    free_jobs: Vec<u32>,
    events: EventQueue,
    rng: Xoshiro256PlusPlus,
    now: f64,
    arrivals_seq: u64,
    stop: Stop,
    warmup: Warmup,
    /// Hand the response-time histograms back with the figures.
    keep_distribution: bool,
    measuring: bool,
    measure_start: f64,
    /// Customers completed during warm-up, then after it.
    completed: u64,
    /// Customers completed in all, warm-up included, and how many of them the
    /// run's control has been told about.
    completed_in_all: u64,
    reported: u64,
    done: bool,
    events_handled: u64,
    uses_resources: bool,
    /// Customers of the closed classes, and the most jobs the run may hold.
    closed_jobs: usize,
    max_jobs: usize,
    to_admit: Vec<u32>,
    /// Set when jobs arrived or tokens were freed in a model with resources:
    /// `settle` then hands tokens out across all stations.
    dispatch_pending: bool,
}

impl Simulation {
    /// A replication drawing from its own random stream `rng`.
    pub fn new(model: &CompiledModel, settings: &RunSettings, rng: Xoshiro256PlusPlus) -> Result<Self, SimError> {
        let classes = plan_classes(model)?;
        let uses_resources = classes.iter().flat_map(|c| &c.steps).any(|s| !s.uses.is_empty());
        let closed_jobs = classes
            .iter()
            .map(|c| match c.source {
                SourcePlan::Closed { population, .. } => population as usize,
                SourcePlan::Open { .. } => 0,
            })
            .sum::<usize>();
        Ok(Simulation {
            classes,
            stations: model.stations.iter().map(StationState::new).collect(),
            resources: model.resources.iter().map(|r| ResourceState { free: r.tokens, in_use: TimeAverage::default() }).collect(),
            tokens: model.resources.iter().map(|r| r.tokens).collect(),
            class_stats: model.classes.iter().map(|_| ClassState {
                completed: 0,
                offered: 0,
                lost: 0,
                response: TimeRecorder::default(),
                waiting: TimeRecorder::default(),
            }).collect(),
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            events: EventQueue::default(),
            rng,
            now: 0.0,
            arrivals_seq: 0,
            stop: settings.stop,
            warmup: settings.warmup,
            keep_distribution: settings.distribution,
            measuring: false,
            measure_start: 0.0,
            completed: 0,
            completed_in_all: 0,
            reported: 0,
            done: false,
            events_handled: 0,
            uses_resources,
            closed_jobs,
            max_jobs: closed_jobs + MAX_OPEN_JOBS,
            to_admit: Vec::new(),
            dispatch_pending: false,
        })
    }

    pub fn run(mut self, control: &RunControl) -> Result<ReplicationStats, SimError> {
        self.start();
        while !self.done {
            if self.events_handled % EVENTS_PER_CHECK == 0 {
                self.report(control)?;
            }
            let Some((time, event)) = self.events.pop() else {
                return Err(SimError::Deadlock { time: self.now });
            };
            if matches!(event, Event::WarmupEnd | Event::HorizonEnd) && self.events.is_empty() {
                // Only the clock is left: every customer is stuck (a closed
                // customer always has a next event, and so has an open source).
                return Err(SimError::Deadlock { time: self.now });
            }
            self.now = time;
            self.events_handled += 1;
            self.handle(event);
            self.settle();
            if self.jobs.len() - self.free_jobs.len() > self.max_jobs {
                return Err(SimError::Unstable { time: self.now, jobs: self.max_jobs - self.closed_jobs });
            }
        }
        self.report(control)?;
        Ok(self.finish())
    }

    fn report(&mut self, control: &RunControl) -> Result<(), SimError> {
        control.add_customers(self.completed_in_all - self.reported);
        self.reported = self.completed_in_all;
        if control.is_cancelled() {
            return Err(SimError::Cancelled);
        }
        Ok(())
    }

    fn start(&mut self) {
        match self.warmup {
            Warmup::Customers { count: 0 } => self.start_measuring(),
            Warmup::Time { time } if time <= 0.0 => self.start_measuring(),
            Warmup::Time { time } => self.events.schedule(time, Event::WarmupEnd),
            Warmup::Customers { .. } => {}
        }
        for class in 0..self.classes.len() as u32 {
            match &self.classes[class as usize].source {
                SourcePlan::Open { interarrival } => {
                    let first = interarrival.sample(&mut self.rng);
                    self.events.schedule(first, Event::Arrival { class });
                }
                SourcePlan::Closed { population, .. } => {
                    for _ in 0..*population {
                        let job = self.new_job(class);
                        self.begin_cycle(job);
                    }
                }
            }
        }
        self.settle();
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival { class } => self.open_arrival(class),
            Event::ServiceEnd { job } => self.service_end(job),
            Event::ThinkEnd { job } => self.closed_arrival(job),
            Event::SharingEnd { station, version } => {
                if self.stations[station as usize].version == version {
                    self.sharing_end(station);
                }
            }
            Event::WarmupEnd => self.start_measuring(),
            Event::HorizonEnd => self.done = true,
        }
    }

    fn start_measuring(&mut self) {
        self.measuring = true;
        self.measure_start = self.now;
        self.completed = 0;
        let now = self.now;
        self.stations.iter_mut().for_each(|s| s.restart_stats(now));
        for (resource, tokens) in self.resources.iter_mut().zip(&self.tokens) {
            resource.in_use.restart((tokens - resource.free) as f64, now);
        }
        for c in &mut self.class_stats {
            c.completed = 0;
            c.offered = 0;
            c.lost = 0;
            c.response.restart();
            c.waiting.restart();
        }
        if let Stop::Horizon { time } = self.stop {
            self.events.schedule(now + time, Event::HorizonEnd);
        }
    }

    fn new_job(&mut self, class: u32) -> u32 {
        let job = Job {
            class,
            step: 0,
            next: 0,
            station: OUTSIDE,
            entered_system: self.now,
            entered_station: self.now,
            work: 0.0,
            waited: 0.0,
            seq: 0,
        };
        match self.free_jobs.pop() {
            Some(id) => {
                self.jobs[id as usize] = job;
                id
            }
            None => {
                self.jobs.push(job);
                (self.jobs.len() - 1) as u32
            }
        }
    }

    fn first_station(&self, job: u32) -> u32 {
        self.classes[self.jobs[job as usize].class as usize].steps[0].station
    }

    fn open_arrival(&mut self, class: u32) {
        if let SourcePlan::Open { interarrival } = &self.classes[class as usize].source {
            let gap = interarrival.sample(&mut self.rng);
            self.events.schedule(self.now + gap, Event::Arrival { class });
        }
        let job = self.new_job(class);
        let admitted = self.stations[self.first_station(job) as usize].has_room(false);
        if self.measuring {
            let stats = &mut self.class_stats[class as usize];
            stats.offered += 1;
            stats.lost += u64::from(!admitted);
        }
        if admitted {
            self.depart(job);
        } else {
            self.free_jobs.push(job);
        }
    }

    /// A closed customer starts a cycle: thinks, then arrives.
    fn begin_cycle(&mut self, job: u32) {
        let SourcePlan::Closed { think, .. } = &self.classes[self.jobs[job as usize].class as usize].source else {
            unreachable!("only closed classes cycle");
        };
        let think = think.sample(&mut self.rng);
        if think > 0.0 {
            self.events.schedule(self.now + think, Event::ThinkEnd { job });
        } else {
            self.closed_arrival(job);
        }
    }

    fn closed_arrival(&mut self, job: u32) {
        let j = &mut self.jobs[job as usize];
        j.entered_system = self.now;
        j.waited = 0.0;
        j.next = 0;
        j.station = OUTSIDE;
        let first = self.first_station(job);
        if self.stations[first as usize].has_room(false) {
            self.depart(job);
        } else {
            self.stations[first as usize].senders.push_back(job);
        }
    }

    /// Moves a job from where it is to its `next` step (or out of the system).
    fn depart(&mut self, job: u32) {
        let j = self.jobs[job as usize];
        if j.station != OUTSIDE {
            let station = &mut self.stations[j.station as usize];
            station.leave(self.now - j.entered_station, self.now, self.measuring);
            if !station.senders.is_empty() {
                self.to_admit.push(j.station);
            }
            self.dispatch(j.station);
        }
        if j.next == EXIT {
            self.complete_customer(job);
        } else {
            self.enter(job, j.next);
        }
    }

    fn enter(&mut self, job: u32, step: u32) {
        let class = &self.classes[self.jobs[job as usize].class as usize];
        let plan = &class.steps[step as usize];
        let work = plan.service.sample(&mut self.rng);
        self.arrivals_seq += 1;
        let seq = self.arrivals_seq;
        let j = &mut self.jobs[job as usize];
        j.step = step;
        j.station = plan.station;
        j.entered_station = self.now;
        j.work = work;
        j.seq = seq;
        let station = &mut self.stations[plan.station as usize];
        let key = match station.discipline {
            Discipline::Priority => class.priority_key,
            Discipline::Sjf => work,
            _ => 0.0,
        };
        station.arrive(job, key, seq, self.now);
        self.dispatch(plan.station);
    }

    fn complete_customer(&mut self, job: u32) {
        let j = self.jobs[job as usize];
        if self.measuring {
            let stats = &mut self.class_stats[j.class as usize];
            stats.completed += 1;
            stats.response.record(self.now - j.entered_system);
            stats.waiting.record(j.waited);
        }
        self.completed += 1;
        self.completed_in_all += 1;
        match (self.measuring, self.warmup, self.stop) {
            (false, Warmup::Customers { count }, _) if self.completed >= count => self.start_measuring(),
            (true, _, Stop::Customers { count }) if self.completed >= count => self.done = true,
            _ => {}
        }
        match self.classes[j.class as usize].source {
            SourcePlan::Closed { .. } => self.begin_cycle(job),
            SourcePlan::Open { .. } => self.free_jobs.push(job),
        }
    }

    fn service_end(&mut self, job: u32) {
        let station = self.jobs[job as usize].station as usize;
        self.stations[station].end_service(self.now);
        self.finish_step(job);
    }

    fn sharing_end(&mut self, station: u32) {
        let now = self.now;
        self.advance_sharing(station);
        let s = &mut self.stations[station as usize];
        let jobs = &self.jobs;
        let (index, &job) = s
            .sharing
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| jobs[**a as usize].work.total_cmp(&jobs[**b as usize].work))
            .expect("a sharing departure is scheduled only while jobs share");
        s.sharing.swap_remove(index);
        s.end_service(now);
        self.reschedule_sharing(station);
        self.finish_step(job);
    }

    /// Service is over: release the step's tokens, choose the next step, and
    /// leave now or stay blocked on the server until the next station has room.
    fn finish_step(&mut self, job: u32) {
        let j = self.jobs[job as usize];
        let plan = &self.classes[j.class as usize].steps[j.step as usize];
        for &r in &plan.uses {
            self.resources[r as usize].give_back(self.now);
        }
        let next = plan.route.choose(&mut self.rng);
        self.jobs[job as usize].next = next;
        if !plan.uses.is_empty() {
            self.dispatch_pending = true;
        }
        if next == EXIT {
            return self.depart(job);
        }
        let target = self.classes[j.class as usize].steps[next as usize].station;
        if self.stations[target as usize].has_room(target == j.station) {
            self.depart(job);
        } else {
            self.stations[target as usize].senders.push_back(job);
        }
    }

    /// Starts what can start at `station` now. With resources, tokens are
    /// shared across stations, so `settle` hands them out once the event is
    /// over, in arrival order whichever station the waiting job is at.
    fn dispatch(&mut self, station: u32) {
        if self.uses_resources {
            self.dispatch_pending = true;
            return;
        }
        while self.can_start(station) {
            self.start_service(station);
        }
    }

    /// After an event: lets blocked senders into stations that have room
    /// again, then hands out freed resource tokens.
    fn settle(&mut self) {
        while let Some(station) = self.to_admit.pop() {
            while let Some(&sender) = self.stations[station as usize].senders.front() {
                let already_here = self.jobs[sender as usize].station == station;
                if !self.stations[station as usize].has_room(already_here) {
                    break;
                }
                self.stations[station as usize].senders.pop_front();
                self.depart(sender);
            }
        }
        if self.dispatch_pending {
            self.dispatch_pending = false;
            while let Some(station) = self.oldest_startable() {
                self.start_service(station);
            }
        }
    }

    fn can_start(&self, station: u32) -> bool {
        let s = &self.stations[station as usize];
        let Some(job) = s.head() else { return false };
        if !s.has_free_server() {
            return false;
        }
        if !self.uses_resources {
            return true;
        }
        let j = &self.jobs[job as usize];
        let uses = &self.classes[j.class as usize].steps[j.step as usize].uses;
        uses.iter().all(|&r| self.resources[r as usize].free > 0)
    }

    fn oldest_startable(&self) -> Option<u32> {
        (0..self.stations.len() as u32)
            .filter(|&s| self.can_start(s))
            .min_by_key(|&s| {
                let head = self.stations[s as usize].head().expect("startable means a head");
                self.jobs[head as usize].seq
            })
    }

    fn start_service(&mut self, station: u32) {
        let now = self.now;
        let sharing = self.stations[station as usize].is_sharing();
        if sharing {
            self.advance_sharing(station);
        }
        let job = self.stations[station as usize].start_head(now);
        let j = &mut self.jobs[job as usize];
        j.waited += now - j.entered_station;
        let (class, step, work) = (j.class, j.step, j.work);
        for &r in &self.classes[class as usize].steps[step as usize].uses {
            self.resources[r as usize].take(now);
        }
        if sharing {
            self.stations[station as usize].sharing.push(job);
            self.reschedule_sharing(station);
        } else {
            self.events.schedule(now + work, Event::ServiceEnd { job });
        }
    }

    /// Charges the sharing jobs for the service they received since the last change.
    fn advance_sharing(&mut self, station: u32) {
        let s = &mut self.stations[station as usize];
        let rate = s.sharing_rate(s.sharing.len());
        let served = rate * (self.now - s.sharing_since);
        for &job in &s.sharing {
            self.jobs[job as usize].work -= served;
        }
        s.sharing_since = self.now;
    }

    fn reschedule_sharing(&mut self, station: u32) {
        let s = &mut self.stations[station as usize];
        s.version = (s.version + 1) & VERSION_MASK;
        let Some(least) = s.sharing.iter().map(|&j| self.jobs[j as usize].work).min_by(f64::total_cmp) else {
            return;
        };
        let rate = s.sharing_rate(s.sharing.len());
        let at = self.now + least.max(0.0) / rate;
        self.events.schedule(at, Event::SharingEnd { station, version: s.version });
    }

    fn finish(self) -> ReplicationStats {
        let now = self.now;
        ReplicationStats {
            duration: now - self.measure_start,
            events: self.events_handled,
            classes: self.class_stats.iter().map(|c| ClassStats {
                completed: c.completed,
                offered: c.offered,
                lost: c.lost,
                response: c.response.summary(),
                waiting: c.waiting.summary(),
                response_histogram: self.keep_distribution.then(|| c.response.histogram().clone()),
            }).collect(),
            stations: self.stations.iter().map(|s| s.stats(now)).collect(),
            resources: self.resources.iter().zip(&self.tokens).map(|(r, tokens)| ResourceStats {
                in_use_area: r.in_use.area((tokens - r.free) as f64, now),
            }).collect(),
        }
    }
}

