//! One replication: the event loop and the life of a job.
//!
//! A job moves between stations by `depart`: it leaves where it is (a station,
//! or outside: arriving or thinking) for its `next` step. When a server frees
//! or a job arrives, `dispatch` starts what can start at once. What an event
//! lets go on only once it is over (jobs waiting for room where a job left,
//! shared dispatch queues, and in models with resources the starts, which
//! hand out tokens across all stations in the order the jobs arrived) is
//! recorded in the deferred work and done by `settle` (deferred.rs).
//!
//! The collaborators (stations and their servers, resources, measurement,
//! routes, the deferred work, and the service floor's: `fork`, `dispatch`,
//! `giving_up`, `service::preemption`, `service::typed`, `starts`) change
//! their own state and return what happened; only this file schedules events,
//! moves jobs and decides what follows.

use brewput_measure::control::Control;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::day::{DayPlan, Tick};
use crate::deferred::{settle, DeferredWork, Settle};
use crate::error::SimError;
use crate::dispatch::Dispatchers;
use crate::event::{Event, EventQueue};
use crate::fork::{Families, JoinOutcome};
use crate::giving_up::{admission, patience_ends, Admission, LossReason};
use crate::intervals::{IntervalRecorder, Totals};
use crate::job::{Jobs, OUTSIDE};
use crate::marks::MarkTimes;
use crate::measurement::{Measurement, Milestone, WarmupPlan};
use crate::model::{CompiledModel, MARK_DONE};
use crate::plan::{is_step, plan_classes, ClassPlan, DaySource, Occupancy, SourcePlan, StepKind, END_BRANCH, EXIT};
use crate::progress::Customers;
use crate::resources::Resources;
use crate::service::{Preempted, Remaining, Start, Started};
use crate::settings::{RunSettings, Warmup};
use crate::starts::{self, Floor};
use crate::station::StationState;
use crate::stats::ReplicationStats;

/// Beyond this many open-class jobs in the system (customers and their forks'
/// branches, besides every closed customer's) a model is taken to be unstable:
/// the run stops with an error instead of eating all memory (about 100 bytes a
/// job, in each of the replications running at once).
const MAX_OPEN_JOBS: usize = 1_000_000;

pub struct Simulation {
    classes: Vec<ClassPlan>,
    stations: Vec<StationState>,
    resources: Resources,
    uses_resources: bool,
    jobs: Jobs,
    events: EventQueue,
    rng: Xoshiro256PlusPlus,
    now: f64,
    measurement: Measurement,
    marks: MarkTimes,
    /// Sub-jobs of forks and their parents (empty without forks).
    families: Families,
    /// The dispatch steps' state (a departure from a station that feeds a
    /// shared queue is recorded in `deferred`, and `settle` admits from it).
    dispatchers: Dispatchers,
    done: bool,
    /// Order of arrivals at stations, over all stations: first come, first
    /// served within a station, and the order tokens are handed out across them.
    arrivals_seq: u64,
    /// Customers of the closed classes, and the most jobs the run may hold.
    closed_jobs: usize,
    max_jobs: usize,
    /// Jobs waiting for room, and what the event leaves for its end (`settle`).
    deferred: DeferredWork,
    /// In a model with a day: its clock and its figures per interval.
    day: Option<Box<DayRun>>,
    /// What stopped the run from within an event (a varying rate above its bound).
    fault: Option<SimError>,
}

/// A day under way (day.rs, intervals.rs).
struct DayRun {
    plan: DayPlan,
    intervals: IntervalRecorder,
    /// Jobs present at the start: `(class, step, jobs)`.
    at_start: Vec<(u32, u32, u32)>,
}

impl Simulation {
    /// A replication drawing from its own random stream `rng`.
    pub fn new(model: &CompiledModel, settings: &RunSettings, rng: Xoshiro256PlusPlus) -> Result<Self, SimError> {
        let classes = plan_classes(model)?;
        let uses_resources = classes.iter().any(ClassPlan::uses_resources);
        let dispatchers = Dispatchers::new(model, &classes);
        let deferred = DeferredWork::new(model.stations.len() as u32, |station| dispatchers.feeds_shared(station));
        let closed_jobs = classes.iter().map(ClassPlan::closed_population).sum();
        let day = match &model.day {
            Some(day) => {
                let has_rota = model.stations.iter().any(|s| s.rota.is_some() || s.server_types.iter().any(|t| t.rota.is_some()));
                let width = settings.bins.unwrap_or(day.length / day.intervals as f64);
                let plan = DayPlan::new(day, has_rota, width, warmup_days(day, settings)?);
                let (origin, classes, stations) = (plan.origin, model.classes.len(), model.stations.len());
                Some(Box::new(DayRun {
                    plan,
                    intervals: IntervalRecorder::new(origin, day.length, width, classes, stations, settings.asked.clone(), settings.found),
                    at_start: day.at_start.iter().map(|a| (a.class, a.step, a.jobs)).collect(),
                }))
            }
            None => None,
        };
        Ok(Simulation {
            classes,
            stations: model.stations.iter().map(|s| StationState::new(s, model.classes.len())).collect(),
            resources: Resources::new(&model.resources),
            uses_resources,
            jobs: Jobs::default(),
            events: EventQueue::default(),
            rng,
            now: 0.0,
            measurement: Measurement::new(settings, model.classes.iter().map(|c| c.measures.len())),
            marks: MarkTimes::new(model.classes.iter().map(|c| c.marks.len()).max().unwrap_or(0)),
            families: Families::default(),
            dispatchers,
            done: false,
            arrivals_seq: 0,
            closed_jobs,
            max_jobs: closed_jobs + MAX_OPEN_JOBS,
            deferred,
            day,
            fault: None,
        })
    }

    pub fn run(mut self, control: &Control<Customers>) -> Result<ReplicationStats, SimError> {
        self.start();
        self.measurement.report(control)?;
        while !self.done {
            let Some((time, event)) = self.events.pop() else {
                return Err(SimError::Deadlock { time: self.now });
            };
            if matches!(event, Event::WarmupEnd | Event::HorizonEnd) && self.events.is_empty() {
                // Only the clock is left: every customer is stuck (a closed
                // customer always has a next event, and so has an open source).
                return Err(SimError::Deadlock { time: self.now });
            }
            self.now = time;
            self.handle(event);
            settle(&mut self);
            if self.jobs.in_system() > self.max_jobs {
                return Err(SimError::Unstable { time: self.now, jobs: self.max_jobs - self.closed_jobs });
            }
            self.measurement.event(control)?;
        }
        self.measurement.report(control)?;
        if let Some(fault) = self.fault.take() {
            return Err(fault);
        }
        Ok(self.finish())
    }

    fn start(&mut self) {
        match self.measurement.warmup_plan() {
            WarmupPlan::None => self.start_measuring(),
            WarmupPlan::Until(time) => self.events.schedule(time, Event::WarmupEnd),
            WarmupPlan::Customers => {}
        }
        for class in 0..self.classes.len() as u32 {
            match &self.classes[class as usize].source {
                SourcePlan::Open { interarrival } => {
                    let first = interarrival.sample(&mut self.rng);
                    self.events.schedule(first, Event::Arrival { class });
                }
                SourcePlan::Closed { population, .. } => {
                    for _ in 0..*population {
                        let job = self.jobs.admit(class, self.now);
                        self.begin_cycle(job);
                    }
                }
                SourcePlan::Day(_) => self.next_day_arrival(class),
            }
        }
        if self.day.is_some() {
            self.start_day();
        }
        settle(self);
    }

    /// The day's jobs present at the start enter their steps, and its clock starts.
    #[cold]
    fn start_day(&mut self) {
        let day = self.day.as_ref().expect("a day");
        if !self.measurement.stops_by_time() {
            // Run by its customers, a day still ends once it is over and they have left.
            self.events.schedule(day.plan.length, Event::HorizonEnd);
        }
        for (class, step, jobs) in day.at_start.clone() {
            for _ in 0..jobs {
                let job = self.jobs.admit(class, self.now);
                self.marks.clear(job);
                self.jobs[job].next = step;
                self.move_from_outside(job);
            }
        }
        self.schedule_tick();
    }

    fn schedule_tick(&mut self) {
        if let Some(at) = self.day.as_ref().and_then(|d| d.plan.next_time()) {
            self.events.schedule(at, Event::Tick);
        }
    }

    /// The next arrival of an open class in a day, if one comes before the day ends.
    #[cold]
    #[inline(never)]
    fn next_day_arrival(&mut self, class: u32) {
        let SourcePlan::Day(source) = &self.classes[class as usize].source else {
            unreachable!("only a day's open classes arrive by the day");
        };
        let plan = &self.day.as_ref().expect("a day's class arrives in a day").plan;
        let next = match source {
            DaySource::Renewal { interarrival } => {
                Some(self.now + interarrival.sample(&mut self.rng)).filter(|&t| t < plan.arrivals_end())
            }
            DaySource::Poisson(arrivals) => match arrivals.next_after_in_days(self.now, plan.days, &mut self.rng) {
                Ok(next) => next,
                Err(fault) => {
                    self.fault = Some(fault);
                    self.done = true;
                    None
                }
            },
        };
        if let Some(at) = next {
            self.events.schedule(at, Event::Arrival { class });
        }
    }

    /// A tick of the day: a reporting interval ends, or the rotas change.
    #[cold]
    #[inline(never)]
    fn tick(&mut self) {
        let now = self.now;
        let day = self.day.as_mut().expect("ticks come only in a day");
        if !day.plan.next_time().is_some_and(|t| t <= now) {
            return; // taken already, when the horizon came at the same time (`horizon_end`)
        }
        match day.plan.take() {
            Tick::Report(_) => {
                let totals = Totals {
                    classes: (0..self.classes.len()).map(|c| self.measurement.running_counts(c)).collect(),
                    stations: self.stations.iter().map(|s| s.running_totals(now)).collect(),
                };
                day.intervals.close(totals);
            }
            Tick::Rota(i) => {
                for station in 0..self.stations.len() as u32 {
                    self.stations[station as usize].shift(i, now);
                    self.hand_back(station);
                    self.dispatch(station);
                }
            }
        }
        self.schedule_tick();
    }

    /// Servers going off shift hand their jobs back to the queue (off_shift:
    /// resume or restart), as preemption does (`preempt`).
    fn hand_back(&mut self, station: u32) {
        let now = self.now;
        loop {
            let jobs = &self.jobs;
            let Some((victim, moved)) = self.stations[station as usize].hand_back(|job| jobs[job].server_slot, |job| jobs[job].class, now) else {
                return;
            };
            if let Some(moved) = moved {
                self.jobs[moved.job].server_slot = moved.slot;
            }
            let Preempted { job, work, .. } = victim;
            self.jobs.renew(job);
            let j = &mut self.jobs[job];
            j.waited -= now - j.entered_station;
            j.work = match work {
                Remaining::Left(left) => left,
                Remaining::Anew => self.classes[j.class as usize].steps[j.step as usize].serve().draw_service(&mut self.rng),
            };
            let (class, key, work, seq) = (j.class, self.classes[j.class as usize].priority_key, j.work, j.seq);
            self.stations[station as usize].requeue_in_line(job, class, key, work, seq, now);
            // It waits again, and may run out of patience again (a new draw).
            let serve = self.classes[self.jobs[job].class as usize].steps[self.jobs[job].step as usize].serve();
            if let Some(at) = patience_ends(serve, now, &mut self.rng) {
                self.events.schedule(at, Event::Patience { job: self.jobs.timer(job) });
            }
        }
    }

    /// The horizon is reached: the run ends, but a day's ends once its open
    /// customers have left (the last intervals' figures are taken first).
    #[cold]
    fn horizon_end(&mut self) {
        let Some(day) = &mut self.day else {
            self.done = true;
            return;
        };
        day.plan.draining = true;
        while self.day.as_ref().and_then(|d| d.plan.next_time()).is_some_and(|t| t <= self.now) {
            self.tick();
        }
        self.end_day_if_empty();
    }

    /// A customer completes in a day: its wait is recorded under the interval
    /// it arrived in, and if it is the day's last open customer to leave
    /// after the day, the run ends with this event. Whether it is one of the
    /// measured day's customers (on a repeating day, those of the days before
    /// are not). Out of line: the one test a model without a day pays is
    /// whether it has one.
    #[cold]
    #[inline(never)]
    fn completed_in_a_day(&mut self, job: u32, closed: bool) -> bool {
        let j = &self.jobs[job];
        let day = self.day.as_mut().expect("called in a day");
        day.intervals.completed(j.class, j.entered_system, j.waited);
        // It leaves when this event ends (`end_visit`): then none is left.
        if day.plan.draining && !closed && self.jobs.in_system() <= self.closed_jobs + 1 {
            self.done = true;
        }
        day.intervals.is_measured(j.entered_system)
    }

    /// A day's run ends when the day is over and no open customer is left.
    #[cold]
    #[inline(never)]
    fn end_day_if_empty(&mut self) {
        if self.day.as_ref().is_some_and(|d| d.plan.draining) && self.jobs.in_system() <= self.closed_jobs {
            self.done = true;
        }
    }

    /// Whether an event was overtaken: its job left, or a sharing departure
    /// was moved by a later change. The one place stale events are recognised.
    #[inline]
    fn is_stale(&self, event: Event) -> bool {
        match event {
            Event::ServiceEnd { job } | Event::ThinkEnd { job } | Event::Patience { job } => {
                !self.jobs.is_current(job)
            }
            Event::SharingEnd { station, version } => !self.stations[station as usize].departure_is_current(version),
            Event::Arrival { .. } | Event::WarmupEnd | Event::HorizonEnd | Event::Tick => false,
        }
    }

    fn handle(&mut self, event: Event) {
        if self.is_stale(event) {
            return;
        }
        match event {
            Event::Arrival { class } => self.open_arrival(class),
            Event::ServiceEnd { job } => self.service_end(job.id),
            Event::ThinkEnd { job } => self.closed_arrival(job.id),
            Event::SharingEnd { station, .. } => self.sharing_end(station),
            Event::WarmupEnd => self.start_measuring(),
            Event::HorizonEnd => self.horizon_end(),
            Event::Patience { job } => self.renege(job.id),
            Event::Tick => self.tick(),
        }
    }

    fn start_measuring(&mut self) {
        let now = self.now;
        let end = self.measurement.begin(now);
        self.stations.iter_mut().for_each(|s| s.restart_stats(now));
        self.resources.restart_stats(now);
        if let Some(end) = end {
            self.events.schedule(end, Event::HorizonEnd);
        }
    }

    /// The station with no room for `job` coming from `here` to take `step`
    /// (`ClassPlan::full_station`): the job waits to get in there.
    // Always inlined: on every step's end, and as a call it cost 2 % of the
    // engine's instructions (cachegrind on bench/engine-speed).
    #[inline(always)]
    fn full_station(&self, job: u32, step: u32, here: u32) -> Option<u32> {
        self.classes[self.jobs[job].class as usize].full_station(step, here, self.stations.as_slice())
    }

    /// A job that is at no station moves to its `next` step, or waits for
    /// room there.
    fn move_from_outside(&mut self, job: u32) {
        let next = self.jobs[job].next;
        match is_step(next).then(|| self.full_station(job, next, OUTSIDE)).flatten() {
            Some(full) => self.wait_outside(job, full),
            None => self.depart(job),
        }
    }

    /// The station of station step `step` if jobs wait for room there.
    fn line_for_room(&self, job: u32, step: u32) -> Option<u32> {
        let StepKind::Serve(serve) = &self.classes[self.jobs[job].class as usize].steps[step as usize].kind else {
            return None;
        };
        self.deferred.has_line(serve.station).then_some(serve.station)
    }

    /// The job, at no station, waits for room at `station`: a wait before its
    /// service, counted in its waiting time when it gets in (`let_in`).
    fn wait_outside(&mut self, job: u32, station: u32) {
        self.jobs[job].entered_station = self.now;
        self.deferred.blocked(job, station);
    }

    fn open_arrival(&mut self, class: u32) {
        match &self.classes[class as usize].source {
            SourcePlan::Open { interarrival } => {
                let gap = interarrival.sample(&mut self.rng);
                self.events.schedule(self.now + gap, Event::Arrival { class });
            }
            SourcePlan::Day(_) => self.next_day_arrival(class),
            SourcePlan::Closed { .. } => {}
        }
        let job = self.jobs.admit(class, self.now);
        self.marks.clear(job);
        let admitted = self.full_station(job, 0, OUTSIDE).is_none();
        self.measurement.offered(class, admitted);
        if admitted {
            self.depart(job);
        } else {
            self.jobs.release(job);
            if let Some(day) = &mut self.day {
                day.intervals.lost(class, self.now);
                self.end_day_if_empty();
            }
        }
    }

    /// A closed customer starts a cycle: thinks, then arrives.
    fn begin_cycle(&mut self, job: u32) {
        let SourcePlan::Closed { think, .. } = &self.classes[self.jobs[job].class as usize].source else {
            unreachable!("only closed classes cycle");
        };
        let think = think.sample(&mut self.rng);
        if think > 0.0 {
            self.events.schedule(self.now + think, Event::ThinkEnd { job: self.jobs.timer(job) });
        } else {
            self.closed_arrival(job);
        }
    }

    fn closed_arrival(&mut self, job: u32) {
        let j = &mut self.jobs[job];
        j.entered_system = self.now;
        j.waited = 0.0;
        j.next = 0;
        j.station = OUTSIDE;
        let class = j.class;
        self.marks.clear(job);
        if self.classes[class as usize].gives_up {
            self.measurement.offered(class, true);
        }
        // Back in the instant it left (no think), it may find the room it freed
        // with others waiting outside for it: they came first, and `settle`
        // lets them in first.
        if let Some(line) = self.line_for_room(job, 0) {
            self.jobs[job].entered_station = self.now;
            return self.deferred.join_line(job, line);
        }
        self.move_from_outside(job);
    }

    /// Moves a job from where it is to its `next` step (or out of the system).
    fn depart(&mut self, job: u32) {
        let j = &self.jobs[job];
        let (station, next, sojourn, slot, class) = (j.station, j.next, self.now - j.entered_station, j.server_slot, j.class);
        if station != OUTSIDE {
            let s = &mut self.stations[station as usize];
            if let Some(moved) = s.leave(slot, class, sojourn, self.now, self.measurement.measuring()) {
                self.jobs[moved.job].server_slot = moved.slot;
            }
            self.deferred.left(station);
            self.dispatch(station);
        }
        if next == EXIT {
            self.complete_customer(job);
        } else if next == END_BRANCH {
            self.end_branch(job);
        } else {
            self.enter(job, next);
        }
    }

    /// The job's step routed to the end of its branch: a dispatch's job goes
    /// on, a fork's sub-job is done (and its parent goes on at the join).
    #[cold]
    #[inline(never)]
    fn end_branch(&mut self, job: u32) {
        let j = &self.jobs[job];
        let steps = &self.classes[j.class as usize].steps;
        let (scope, branch) = steps[j.step as usize].scope.expect("END_BRANCH only inside a branch");
        match &steps[scope as usize].kind {
            StepKind::Dispatch(d) => {
                self.dispatchers.left(d, branch);
                self.go_on(job, scope);
            }
            StepKind::Fork(fork) => {
                let outcome = self.families.branch_ended(job, fork.join, &self.jobs);
                self.jobs.release(job);
                if let JoinOutcome::Joined { parent } = outcome {
                    // Branches ending later find their parent gone on (stale).
                    self.jobs.renew(parent);
                    self.go_on(parent, scope);
                }
            }
            StepKind::Serve(_) => unreachable!("scopes are fork and dispatch steps"),
        }
    }

    /// The job is done with fork or dispatch step `step` (joined, or its
    /// branch ended): its mark, then the step's route.
    #[cold]
    #[inline(never)]
    fn go_on(&mut self, job: u32, step: u32) {
        let j = &mut self.jobs[job];
        j.step = step;
        j.station = OUTSIDE;
        let plan = &self.classes[j.class as usize].steps[step as usize];
        if let Some(mark) = plan.mark {
            self.reach_mark(job, mark);
        }
        let plan = &self.classes[self.jobs[job].class as usize].steps[step as usize];
        self.jobs[job].next = plan.route.choose(&mut self.rng, self.stations.as_slice());
        self.move_from_outside(job);
    }

    /// The job splits into one sub-job per branch and waits for the join.
    #[cold]
    #[inline(never)]
    fn fork(&mut self, job: u32, step: u32) {
        let j = &mut self.jobs[job];
        j.step = step;
        j.station = OUTSIDE;
        let class = j.class;
        self.families.fork(job);
        let parent = self.jobs.timer(job);
        let StepKind::Fork(fork) = &self.classes[class as usize].steps[step as usize].kind else {
            unreachable!("fork is called at fork steps");
        };
        for first in fork.branches.clone() {
            let child = self.jobs.admit(class, self.now);
            self.families.adopt(child, parent);
            self.jobs[child].next = first;
            self.move_from_outside(child);
        }
    }

    /// The job takes one branch of dispatch step `step`, or waits in its
    /// shared queue.
    #[cold]
    #[inline(never)]
    fn take_branch(&mut self, job: u32, step: u32) {
        let j = &mut self.jobs[job];
        j.step = step;
        j.station = OUTSIDE;
        j.entered_station = self.now;
        let StepKind::Dispatch(d) = &self.classes[j.class as usize].steps[step as usize].kind else {
            unreachable!("take_branch is called at dispatch steps");
        };
        let (stations, classes, jobs) = (self.stations.as_slice(), self.classes.as_slice(), &self.jobs);
        let open = |station| starts::has_unclaimed_server(stations, classes, jobs, station);
        if let Some(first) = self.dispatchers.enter(d, job, &mut self.rng, stations, open) {
            self.jobs[job].next = first;
            self.move_from_outside(job);
        }
    }

    /// The job reached `mark`: recorded on its customer the first time (not
    /// by a branch running on after its join).
    #[cold]
    #[inline(never)]
    fn reach_mark(&mut self, job: u32, mark: u32) {
        let Some(customer) = self.families.customer_of(job, &self.jobs) else { return };
        if self.marks.reach(customer, mark, self.now) {
            self.measure_until(customer, mark);
        }
    }

    /// The job takes step `step`: a station's, or a fork or dispatch.
    fn enter(&mut self, job: u32, step: u32) {
        let class = &self.classes[self.jobs[job].class as usize];
        let serve = match &class.steps[step as usize].kind {
            StepKind::Serve(serve) => serve,
            StepKind::Fork(_) => return self.fork(job, step),
            StepKind::Dispatch(_) => return self.take_branch(job, step),
        };
        if let Some(day) = &mut self.day {
            found_on_arrival(day, &self.stations, serve.station, self.now);
        }
        if !serve.plain {
            let station = &self.stations[serve.station as usize];
            if admission(serve, || station.waiting(), &mut self.rng) == Admission::Balk {
                self.jobs[job].step = step;
                return self.give_up(job, LossReason::Balked);
            }
        }
        // Sampled on arrival (sjf orders by it); a type with its own service
        // draws again when the job starts on it.
        let work = serve.draw_service(&mut self.rng);
        self.arrivals_seq += 1;
        let seq = self.arrivals_seq;
        let j = &mut self.jobs[job];
        j.step = step;
        j.station = serve.station;
        j.entered_station = self.now;
        j.work = work;
        j.seq = seq;
        let class_index = j.class;
        let station = &mut self.stations[serve.station as usize];
        let plain = station.plain;
        station.arrive(job, class_index, class.priority_key, work, seq, self.now);
        // Before the job can start: starting renews the job, which makes this
        // timer stale.
        if let Some(at) = (!serve.plain).then(|| patience_ends(serve, self.now, &mut self.rng)).flatten() {
            self.events.schedule(at, Event::Patience { job: self.jobs.timer(job) });
        }
        let station = serve.station;
        self.dispatch(station);
        if !plain && self.stations[station as usize].preempts() {
            // Only an arrival can outrank a job in service with no server free.
            self.preempt(station);
        }
    }

    /// A waiting job's patience ran out: it leaves the queue and the system.
    #[cold]
    #[inline(never)]
    fn renege(&mut self, job: u32) {
        let j = &self.jobs[job];
        let class = &self.classes[j.class as usize];
        let station = j.station;
        let s = &mut self.stations[station as usize];
        let withdrawn = s.withdraw(j.class, class.priority_key, j.work, j.seq, self.now);
        debug_assert!(withdrawn, "a current patience timer names a waiting job");
        // With resources a job may wait beside a free server: leaving, it frees it for a shared queue.
        self.deferred.left(station);
        self.dispatch(station);
        self.give_up(job, LossReason::Reneged);
    }

    /// The customer leaves without completing: an open one is lost, a closed
    /// one ends its cycle and thinks again.
    #[cold]
    #[inline(never)]
    fn give_up(&mut self, job: u32, reason: LossReason) {
        let (class, step, arrived) = (self.jobs[job].class, self.jobs[job].step, self.jobs[job].entered_system);
        // On a repeating day, one who arrived before the measured day is none of its customers.
        if self.day.as_ref().is_none_or(|day| day.intervals.is_measured(arrived)) {
            self.measurement.gave_up(class, reason);
        }
        if let Some(day) = &mut self.day {
            day.intervals.lost(class, arrived);
        }
        // Balking and patience are not simulated inside fork branches.
        self.dispatchers.left_all(&self.classes[class as usize].steps, step);
        self.jobs[job].station = OUTSIDE;
        self.end_visit(job, self.classes[class as usize].is_closed());
        if self.day.is_some() {
            self.end_day_if_empty();
        }
    }

    /// The customer's visit is over (completed or given up): a closed one
    /// starts its next cycle, an open one leaves the system.
    #[inline]
    fn end_visit(&mut self, job: u32, closed: bool) {
        if closed {
            self.begin_cycle(job);
        } else {
            self.jobs.release(job);
        }
    }

    fn complete_customer(&mut self, job: u32) {
        let class = self.jobs[job].class;
        let plan = &self.classes[class as usize];
        // Asked before measuring, while the plan is at hand.
        let (closed, measures) = (plan.is_closed(), !plan.measures.is_empty());
        if self.day.is_some() && !self.completed_in_a_day(job, closed) {
            // On a repeating day, one of the days before the measured one.
            self.end_visit(job, closed);
            return;
        }
        if measures {
            self.measure_until(job, MARK_DONE);
        }
        let j = &self.jobs[job];
        match self.measurement.completed(class, self.now - j.entered_system, j.waited) {
            Milestone::WarmupOver => self.start_measuring(),
            Milestone::Done => self.done = true,
            Milestone::Nothing => {}
        }
        self.end_visit(job, closed);
    }

    /// The job reached `mark` now: the measures that end there and whose
    /// start it reached before are taken.
    fn measure_until(&mut self, job: u32, mark: u32) {
        let j = &self.jobs[job];
        let (class, arrived) = (j.class, j.entered_system);
        for (i, start) in self.marks.spans_ending(job, mark, arrived, &self.classes[class as usize].measures) {
            self.measurement.measured(class, i, self.now - start);
        }
    }

    fn service_end(&mut self, job: u32) {
        let station = self.jobs[job].station;
        let (slot, class) = (self.jobs[job].server_slot, self.jobs[job].class);
        self.stations[station as usize].service_end(job, slot, class, self.now, self.measurement.measuring());
        self.finish_step(job);
    }

    fn sharing_end(&mut self, station: u32) {
        let jobs = &self.jobs;
        let (job, next) = self.stations[station as usize].sharing_end(|job| jobs[job].class, self.now);
        if let Some(next) = next {
            self.events.schedule(next.at, Event::SharingEnd { station, version: next.version });
        }
        self.finish_step(job);
    }

    /// Service is over: release the step's tokens, choose the next step, and
    /// leave now or stay blocked on the server until the next station has room.
    fn finish_step(&mut self, job: u32) {
        let j = &self.jobs[job];
        let (class, here) = (j.class, j.station);
        let steps = &self.classes[class as usize].steps;
        let plan = &steps[j.step as usize];
        let uses = &plan.serve().uses;
        self.resources.give_back(uses, self.now);
        if !uses.is_empty() {
            self.deferred.defer_starts();
        }
        let mark = plan.mark;
        let next = plan.route.choose(&mut self.rng, self.stations.as_slice());
        self.jobs[job].next = next;
        if let Some(mark) = mark {
            self.reach_mark(job, mark);
        }
        match is_step(next).then(|| self.full_station(job, next, here)).flatten() {
            Some(full) => self.deferred.blocked(job, full),
            None => self.depart(job),
        }
    }

    /// Starts what can start at `station` now. With resources, tokens are
    /// shared across stations, so `settle` hands them out once the event is
    /// over, in arrival order whichever station the waiting job is at.
    #[inline]
    fn dispatch(&mut self, station: u32) {
        if self.uses_resources {
            self.deferred.defer_starts();
            return;
        }
        while let Some(start) = starts::at(self, station) {
            self.start_service(station, start);
        }
        debug_assert!(starts::first_fit_holds(self, station), "first fit left a job waiting beside an idle server that can serve it");
    }

    /// While the head of the queue outranks a job in service, that job leaves
    /// its server for the queue (with its remaining work, or a new sample) and
    /// the head starts.
    #[cold]
    fn preempt(&mut self, station: u32) {
        let now = self.now;
        loop {
            let s = &self.stations[station as usize];
            let Some(head) = s.head() else { return };
            let key = self.classes[self.jobs[head].class as usize].priority_key;
            let jobs = &self.jobs;
            let Some((victim, moved)) = self.stations[station as usize].displace(key, |job| jobs[job].server_slot, |job| jobs[job].class, now) else {
                return;
            };
            if let Some(moved) = moved {
                self.jobs[moved.job].server_slot = moved.slot;
            }
            // Its service end is stale. Its wait resumes: the next start adds
            // the time since it arrived here, so the time until now comes off.
            self.jobs.renew(victim.job);
            let j = &mut self.jobs[victim.job];
            j.waited -= now - j.entered_station;
            j.work = match victim.work {
                Remaining::Left(work) => work,
                Remaining::Anew => self.classes[j.class as usize].steps[j.step as usize].serve().draw_service(&mut self.rng),
            };
            let (class, seq) = (j.class, j.seq);
            self.stations[station as usize].requeue(victim.job, class, victim.key, seq, now);
            while let Some(start) = starts::at(self, station) {
                self.start_service(station, start);
            }
        }
    }

    /// `start_service` at a typed or preempting station: the job leaves the
    /// queue from where it waits (first fit need not take the head), draws
    /// its service again if its server's type has its own, and its stint is
    /// recorded for preemption.
    #[cold]
    #[inline(never)]
    fn take_on_the_floor(&mut self, station: u32, start: Start) {
        let (now, job) = (self.now, start.job);
        let j = &self.jobs[job];
        let class = &self.classes[j.class as usize];
        self.stations[station as usize].take(class.priority_key, j.work, j.seq, now);
        let serve = class.steps[j.step as usize].serve();
        if let Some(own) = serve.on_type(start.server_type).and_then(|on| on.service.as_ref()) {
            self.jobs[job].work = own.sample(&mut self.rng);
        }
        let key = class.priority_key;
        self.stations[station as usize].began(job, key, now + self.jobs[job].work);
    }

    fn start_service(&mut self, station: u32, start: Start) {
        let now = self.now;
        let job = start.job;
        let s = &mut self.stations[station as usize];
        if s.plain {
            s.take_head(now);
        } else {
            self.take_on_the_floor(station, start);
        }
        let j = &mut self.jobs[job];
        j.waited += now - j.entered_station;
        let (class, step, work) = (j.class, j.step, j.work);
        let serve = self.classes[class as usize].steps[step as usize].serve();
        if serve.patience.is_some() {
            self.jobs.renew(job);
        }
        self.resources.take(&serve.uses, now);
        match self.stations[station as usize].serve(job, class, start.server_type, work, now) {
            Started::OnServer { slot } => {
                self.jobs[job].server_slot = slot;
                self.events.schedule(now + work, Event::ServiceEnd { job: self.jobs.timer(job) });
            }
            Started::Shared(next) => self.events.schedule(next.at, Event::SharingEnd { station, version: next.version }),
        }
    }

    fn finish(self) -> ReplicationStats {
        let now = self.now;
        ReplicationStats {
            duration: self.measurement.duration(now),
            events: self.measurement.events(),
            classes: self.measurement.class_stats(),
            stations: self.stations.iter().map(|s| s.stats(now)).collect(),
            resources: self.resources.stats(now),
            intervals: self.day.as_ref().map(|d| d.intervals.stats()).unwrap_or_default(),
        }
    }
}

/// The whole days a repeating day runs before the one measured: its warm-up
/// time (Python sends a whole number of days); none unless the day repeats.
/// In a day: what an arrival at `station` finds there at `now` (intervals.rs
/// keeps it where the run asked). Out of line: a model without a day pays one test.
#[cold]
#[inline(never)]
fn found_on_arrival(day: &mut DayRun, stations: &[StationState], station: u32, now: f64) {
    day.intervals.found(station, stations.present(station), now);
}

fn warmup_days(day: &crate::model::Day, settings: &RunSettings) -> Result<u32, SimError> {
    if !day.repeat {
        return Ok(0);
    }
    match settings.warmup {
        Warmup::Time { time } if time / day.length == (time / day.length).round() && time / day.length < 1e6 => {
            Ok((time / day.length) as u32)
        }
        warmup => Err(SimError::Input(format!("a repeating day's warm-up is a whole number of days, got {warmup:?}"))),
    }
}

/// What choosing the next start reads (starts.rs).
impl Floor for Simulation {
    #[inline(always)]
    fn classes(&self) -> &[ClassPlan] {
        &self.classes
    }

    #[inline(always)]
    fn stations(&self) -> &[StationState] {
        &self.stations
    }

    #[inline(always)]
    fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    #[inline(always)]
    fn resources(&self) -> Option<&Resources> {
        self.uses_resources.then_some(&self.resources)
    }
}

/// How the deferred work moves jobs once an event is over (deferred.rs).
impl Settle for Simulation {
    #[inline(always)]
    fn deferred(&mut self) -> &mut DeferredWork {
        &mut self.deferred
    }

    fn blocked_by(&self, sender: u32) -> Option<u32> {
        let j = &self.jobs[sender];
        self.full_station(sender, j.next, j.station)
    }

    fn let_in(&mut self, sender: u32) {
        if self.jobs[sender].station == OUTSIDE {
            // Not blocked on a server: it waited for room (wait_outside).
            let j = &mut self.jobs[sender];
            j.waited += self.now - j.entered_station;
        }
        self.depart(sender);
    }

    /// Jobs waiting in the shared queues of dispatch steps whose branches
    /// start at `station` go, first come first served, while a branch's
    /// first station is open (dispatch.rs).
    #[cold]
    #[inline(never)]
    fn admit_shared(&mut self, station: u32) {
        let mut from = 0;
        loop {
            let (stations, classes, jobs) = (self.stations.as_slice(), self.classes.as_slice(), &self.jobs);
            let open = |station| starts::has_unclaimed_server(stations, classes, jobs, station);
            let admitted = self.dispatchers.admit_shared(station, &mut from, classes, &mut self.rng, stations, open);
            let Some((job, first)) = admitted else { break };
            let j = &mut self.jobs[job];
            j.waited += self.now - j.entered_station;
            j.next = first;
            self.move_from_outside(job);
        }
    }

    fn start_due(&mut self) {
        while let Some((station, start)) = starts::oldest(self) {
            self.start_service(station, start);
        }
    }
}
