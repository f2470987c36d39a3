//! The compiled model made ready to run: samplers built, routes turned into
//! cumulative tables, exit encoded as `EXIT`.
//!
//! A step is an enum of kinds so that steps other than "be served at a
//! station" (a fork into parallel branches, the join that waits for them) are
//! each a new arm, and every place that must handle them is found by the
//! compiler.

use rand::Rng;

use crate::arrivals::VaryingArrivals;
use crate::error::SimError;
use crate::model::{Balk, Class, CompiledModel, Dist, Source, StepKind as Kind};
use crate::sampler::Sampler;

/// A step index meaning "leave the route" (a null target at the route's level).
pub const EXIT: u32 = u32::MAX;

/// A step index meaning "end the branch" (a null target inside a fork's or
/// dispatch's branch). Told apart from `EXIT` here, once, so the hot path of
/// a customer leaving looks up no scope.
pub const END_BRANCH: u32 = u32::MAX - 1;

/// Whether a route's target is a step (not `EXIT` nor `END_BRANCH`).
#[inline]
pub fn is_step(target: u32) -> bool {
    target < END_BRANCH
}

/// What a route or a dispatch policy may read about the stations when it
/// chooses: they see the state through this one accessor, never the stations
/// themselves.
pub trait Occupancy {
    /// Jobs at `station`: waiting, in service and blocked after service.
    fn present(&self, station: u32) -> u32;
    /// Jobs waiting in `station`'s queue.
    #[allow(dead_code)] // as `present`
    fn waiting(&self, station: u32) -> u32;
    /// The fraction of `station`'s servers serving now.
    fn busy_fraction(&self, station: u32) -> f64;
    /// Whether a job may arrive at `station`; `already_here` when it moves
    /// within the station.
    fn has_room(&self, station: u32, already_here: bool) -> bool;
}

#[derive(Debug, Clone)]
#[repr(u8)]
pub enum Route {
    Fixed(u32),
    Random { cumulative: Vec<f64>, targets: Vec<u32> },
}

impl Route {
    /// The next step. Fixed and random routes do not look at `_stations`;
    /// dispatch policies that balance load will.
    #[inline]
    pub fn choose<R: Rng>(&self, rng: &mut R, _stations: &(impl Occupancy + ?Sized)) -> u32 {
        match self {
            Route::Fixed(target) => *target,
            Route::Random { cumulative, targets } => {
                let u: f64 = rng.gen();
                let i = cumulative.iter().position(|&c| u < c).unwrap_or(targets.len() - 1);
                targets[i]
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct StepPlan {
    pub kind: StepKind,
    pub route: Route,
    /// The class's mark reached when the step ends.
    pub mark: Option<u32>,
    /// The fork or dispatch step whose branch holds this step, and which of
    /// its branches; `None` at the route's own level.
    pub scope: Option<(u32, u32)>,
}

impl StepPlan {
    /// The serving step this is, for a job at a station.
    #[inline]
    pub fn serve(&self) -> &ServeStep {
        match &self.kind {
            StepKind::Serve(serve) => serve,
            _ => unreachable!("a job at a station is at a station step"),
        }
    }
}

/// Split into one sub-job per branch; go on when `join` of them ended.
#[derive(Debug, Clone)]
pub struct ForkStep {
    pub branches: Vec<u32>,
    pub join: u32,
}

/// Take one branch, chosen by the step's policy (its state during a run
/// is the dispatcher's, dispatch.rs).
#[derive(Debug, Clone)]
pub struct DispatchStep {
    /// The first step of each branch.
    pub branches: Vec<u32>,
    /// Its place among the model's dispatch steps (the simulation's state for it).
    pub id: u32,
    /// The station of each branch's first step (policies reading stations
    /// need one; `NO_STATION` otherwise).
    pub first_stations: Vec<u32>,
}

/// A branch whose first step is not at a station.
pub const NO_STATION: u32 = u32::MAX;

#[derive(Debug, Clone)]
#[repr(u8)]
pub enum StepKind {
    /// Wait at `station`, then be served for a time drawn from `service`,
    /// holding a token of each resource in `uses` while served.
    Serve(ServeStep),
    Fork(ForkStep),
    Dispatch(DispatchStep),
}

#[derive(Debug, Clone)]
pub struct ServeStep {
    pub station: u32,
    /// `None` when each server type in `served_by` has its own.
    pub service: Option<Sampler>,
    pub uses: Vec<u32>,
    /// At typed servers, the types that may serve the step; empty: every type.
    pub served_by: Vec<ServedBy>,
    pub balk: Option<Balk>,
    /// How long the job waits for its service to start before it leaves.
    pub patience: Option<Sampler>,
    /// No balking, no patience, served by any server: what the hot paths
    /// check first.
    pub plain: bool,
}

#[derive(Debug, Clone)]
pub struct ServedBy {
    pub server_type: u32,
    /// Its own service time on this type; `None`: the step's.
    pub service: Option<Sampler>,
}

impl ServeStep {
    /// The served-by entry for servers of type `t`, if they may serve the step.
    #[inline]
    pub fn on_type(&self, t: u32) -> Option<&ServedBy> {
        self.served_by.iter().find(|s| s.server_type == t)
    }

    /// A service time for the step; 0 when each server type that may serve
    /// it has its own (drawn when the job starts on one).
    // Always inlined: drawn on every arrival at a station (out of line,
    // +1.5 % instructions, cachegrind).
    #[inline(always)]
    pub fn draw_service<R: Rng>(&self, rng: &mut R) -> f64 {
        match &self.service {
            Some(service) => service.sample(rng),
            None => 0.0,
        }
    }

    #[inline]
    pub fn can_be_served_by(&self, t: u32) -> bool {
        self.served_by.is_empty() || self.on_type(t).is_some()
    }
}

#[derive(Debug, Clone)]
pub enum SourcePlan {
    Open { interarrival: Sampler },
    Closed { population: u32, think: Sampler },
    /// An open class in a day: its arrivals stop when the day ends.
    Day(DaySource),
}

#[derive(Debug, Clone)]
pub enum DaySource {
    /// Renewal arrivals (`arrivals:` or a constant `rate:`) until the day ends (day.rs).
    Renewal { interarrival: Sampler },
    /// A non-stationary Poisson process (arrivals.rs).
    Poisson(VaryingArrivals),
}

#[derive(Debug, Clone)]
pub struct ClassPlan {
    /// Sort key under the `priority` discipline: smaller is served first, so the
    /// negated priority (higher priority first).
    pub priority_key: f64,
    pub source: SourcePlan,
    pub steps: Vec<StepPlan>,
    /// Whether its customers may balk or renege somewhere on the route (a
    /// closed class then counts its arrivals as offered, to give a loss
    /// probability).
    pub gives_up: bool,
    /// `(from, to)` marks of each measure, in the class's order.
    pub measures: Vec<(u32, u32)>,
}

impl ClassPlan {
    /// A station that has no room for a job coming from elsewhere than `here`
    /// to take `step`: the step's own, or at a fork the first full one that a
    /// branch starts at (a fork enters all its branches at once, so it waits,
    /// blocking its server like any job whose next station is full, until
    /// every branch has room).
    #[inline(always)]
    pub fn full_station(&self, step: u32, here: u32, stations: &(impl Occupancy + ?Sized)) -> Option<u32> {
        let StepKind::Serve(serve) = &self.steps[step as usize].kind else {
            return self.full_branch_start(step, here, stations);
        };
        let station = serve.station;
        (!stations.has_room(station, station == here)).then_some(station)
    }

    /// `full_station` for a fork or dispatch step: out of line, so that the
    /// common station step stays a few inlined instructions.
    #[cold]
    #[inline(never)]
    fn full_branch_start(&self, step: u32, here: u32, stations: &(impl Occupancy + ?Sized)) -> Option<u32> {
        match &self.steps[step as usize].kind {
            StepKind::Fork(fork) => fork.branches.iter().find_map(|&first| self.full_station(first, here, stations)),
            _ => None, // a dispatch chooses its branch once it is entered
        }
    }

    #[inline]
    pub fn is_closed(&self) -> bool {
        matches!(self.source, SourcePlan::Closed { .. })
    }

    /// Customers of the class that never leave (its population if closed).
    pub fn closed_population(&self) -> usize {
        match self.source {
            SourcePlan::Closed { population, .. } => population as usize,
            SourcePlan::Open { .. } | SourcePlan::Day(_) => 0,
        }
    }

    /// Whether some step of the class holds resource tokens.
    pub fn uses_resources(&self) -> bool {
        self.steps.iter().any(|s| matches!(&s.kind, StepKind::Serve(serve) if !serve.uses.is_empty()))
    }
}

pub fn plan_classes(model: &CompiledModel) -> Result<Vec<ClassPlan>, SimError> {
    let mut dispatches = 0;
    model.classes.iter().map(|class| {
        let in_class = |e: SimError| SimError::Input(format!("class {}: {e}", class.name));
        let source = match (&class.source, &model.day) {
            (Source::Open { interarrival }, None) => {
                SourcePlan::Open { interarrival: Sampler::new(interarrival).map_err(in_class)? }
            }
            (Source::Open { interarrival }, Some(_)) => SourcePlan::Day(DaySource::Renewal {
                interarrival: Sampler::new(interarrival).map_err(in_class)?,
            }),
            (Source::Varying { steps, linear, curve, bounds }, Some(day)) => SourcePlan::Day(DaySource::Poisson(
                VaryingArrivals::new(steps, linear, curve, bounds, day.length).map_err(in_class)?,
            )),
            (Source::Varying { .. }, None) => return Err(in_class(SimError::Input("a varying rate needs a day".into()))),
            (Source::Closed { population, think }, _) => {
                SourcePlan::Closed { population: *population, think: Sampler::new(think).map_err(in_class)? }
            }
        };
        let steps = class.steps.iter().enumerate().map(|(index, step)| {
            let end = if step.scope.is_some() { END_BRANCH } else { EXIT };
            let target = |t: Option<u32>| t.unwrap_or(end);
            let route = match step.next.as_slice() {
                [(t, _)] => Route::Fixed(target(*t)),
                pairs => Route::Random {
                    cumulative: pairs.iter().scan(0.0, |acc, (_, p)| { *acc += p; Some(*acc) }).collect(),
                    targets: pairs.iter().map(|(t, _)| target(*t)).collect(),
                },
            };
            let mark = step.mark;
            let scope = step.scope.map(|s| (s, branch_of(class, s, index)));
            let branches = step.branches.clone();
            match step.kind {
                Kind::Fork => {
                    let join = step.join.unwrap_or(branches.len() as u32);
                    return Ok(StepPlan { kind: StepKind::Fork(ForkStep { branches, join }), route, mark, scope });
                }
                Kind::Dispatch => {
                    let first_stations: Vec<u32> =
                        branches.iter().map(|&b| class.steps[b as usize].station.unwrap_or(NO_STATION)).collect();
                    if step.policy.reads_first_stations() && first_stations.contains(&NO_STATION) {
                        return Err(SimError::Input(format!(
                            "class {}: dispatch policy {:?}: a branch that starts with a fork or dispatch: not simulated yet",
                            class.name, step.policy
                        )));
                    }
                    let id = dispatches;
                    dispatches += 1;
                    let dispatch = DispatchStep { branches, id, first_stations };
                    return Ok(StepPlan { kind: StepKind::Dispatch(dispatch), route, mark, scope });
                }
                Kind::Station => {}
            }
            let Some(station) = step.station else {
                return Err(SimError::Input(format!("class {}: a step without station", class.name)));
            };
            let sampler = |dist: &Option<Dist>| dist.as_ref().map(Sampler::new).transpose().map_err(in_class);
            let served_by = step
                .served_by
                .iter()
                .map(|(server_type, service)| Ok(ServedBy { server_type: *server_type, service: sampler(service)? }))
                .collect::<Result<_, SimError>>()?;
            let serve = ServeStep {
                station,
                service: sampler(&step.service)?,
                uses: step.uses.clone(),
                served_by,
                balk: step.balk.clone(),
                patience: step.patience.as_ref().map(Sampler::new).transpose().map_err(in_class)?,
                plain: step.balk.is_none() && step.patience.is_none() && step.served_by.is_empty(),
            };
            Ok(StepPlan { kind: StepKind::Serve(serve), route, mark, scope })
        }).collect::<Result<_, SimError>>()?;
        let gives_up = class.steps.iter().any(|s| s.balk.is_some() || s.patience.is_some());
        let measures = class.measures.iter().map(|m| (m.from, m.to)).collect();
        Ok(ClassPlan { priority_key: -(class.priority as f64), source, steps, gives_up, measures })
    }).collect()
}

/// Which branch of fork or dispatch step `scope` holds `step`: the branch
/// whose first step is the latest at or before it (each branch's steps are
/// contiguous, in branch order: docs/compiled-model.md).
fn branch_of(class: &Class, scope: u32, index: usize) -> u32 {
    let firsts = &class.steps[scope as usize].branches;
    firsts.iter().rposition(|&first| first as usize <= index).unwrap_or(0) as u32
}
