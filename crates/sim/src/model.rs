//! The compiled model: flat, numeric, indexed. Built by the Python side from a
//! validated model file (see docs/compiled-model.md); the engine trusts its shape
//! but re-checks the invariants it relies on in `validate`.
//!
//! Every field of the service floor (typed servers, giving up, marks, fork,
//! dispatch, preemption) has a serde default that is the behaviour without
//! it, so a model that does not use them reads as it always did.

use serde::Deserialize;

use crate::error::SimError;
use crate::vocabulary::{
    name_of, tying_policies, Policy, Tie, NotModelled, GIVING_UP_IN_A_FORK, MARKED, MAX_BALK_PROBABILITIES, MAX_BRANCH_DEPTH,
    PREEMPT_AT_TYPED_SERVERS, PREEMPT_WITH_RESOURCES,
};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompiledModel {
    pub stations: Vec<Station>,
    #[serde(default)]
    pub resources: Vec<Resource>,
    pub classes: Vec<Class>,
    /// A day (day.rs): arrivals in `[0, length)`, rotas and figures per interval;
    /// `None`: a model in steady state.
    #[serde(default)]
    pub day: Option<Day>,
}

/// The horizon of a time-varying model, cut into equal intervals.
#[derive(Debug, Clone, Deserialize)]
pub struct Day {
    pub length: f64,
    pub intervals: u32,
    #[serde(default)]
    pub repeat: bool,
    /// Jobs present at `t = 0`.
    #[serde(default)]
    pub at_start: Vec<AtStart>,
}

/// `jobs` jobs of `class` at step `step` of its route when the day starts.
#[derive(Debug, Clone, Deserialize)]
pub struct AtStart {
    pub class: u32,
    pub step: u32,
    pub jobs: u32,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Station {
    pub name: String,
    /// `None` is infinitely many servers (a pure delay). With typed servers,
    /// the sum of the types' counts.
    pub servers: Option<u32>,
    /// Most jobs present (waiting + in service + blocked there); `None` is unbounded.
    pub capacity: Option<u32>,
    pub discipline: Discipline,
    /// Typed groups of servers, in file order (a type's index is its place);
    /// empty: the servers are all alike.
    #[serde(default)]
    pub server_types: Vec<ServerType>,
    #[serde(default)]
    pub take: Take,
    #[serde(default)]
    pub assign: Assign,
    #[serde(default)]
    pub preempt: Preempt,
    /// Servers on per interval of the day (`servers` is the most); absent: always `servers`.
    #[serde(default)]
    pub rota: Option<Vec<u32>>,
    #[serde(default)]
    pub off_shift: OffShift,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discipline {
    #[default]
    Fifo,
    Lifo,
    Priority,
    Sjf,
    Ps,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerType {
    pub name: String,
    pub count: u32,
    /// This type's servers on per interval of the day (`count` is the most).
    #[serde(default)]
    pub rota: Option<Vec<u32>>,
}

/// Which waiting job a freed server takes at a typed station.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Take {
    /// Only the head of the queue may start: strict order, head-of-line blocking.
    #[default]
    Head,
    /// The first job in queue order that some free server can serve.
    FirstFit,
}

/// Which idle server an arriving job takes when several could serve it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assign {
    #[default]
    LongestIdle,
    InOrder,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preempt {
    #[default]
    None,
    Resume,
    Restart,
}

/// What a server going off shift (its rota's count falls) does with the job in hand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OffShift {
    /// The server finishes the job in hand, then goes.
    #[default]
    Finish,
    /// The job goes back to the head of the queue with its remaining work.
    Resume,
    /// The job goes back to the head of the queue and starts anew.
    Restart,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Resource {
    pub name: String,
    pub tokens: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Class {
    pub name: String,
    #[serde(default)]
    pub priority: i64,
    pub source: Source,
    pub steps: Vec<Step>,
    /// `["arrived", "done", ...]` (`MARKED` first): the class's marks; absent: just those two.
    #[serde(default)]
    pub marks: Vec<String>,
    #[serde(default)]
    pub measures: Vec<Measure>,
}

/// The index of `done`, the second of the marks every class has (`MARKED`).
pub const MARK_DONE: u32 = 1;

#[derive(Debug, Clone, Deserialize)]
pub struct Measure {
    pub name: String,
    pub from: u32,
    pub to: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    Open { interarrival: Dist },
    Closed { population: u32, think: Dist },
    /// A non-stationary Poisson process through the day (arrivals/): its rate in
    /// one of three forms, and a bound of it on each interval to thin against.
    Varying {
        #[serde(default)]
        steps: Option<Vec<f64>>,
        #[serde(default)]
        linear: Option<LinearRate>,
        #[serde(default)]
        curve: Option<Vec<CurveToken>>,
        bounds: Vec<f64>,
    },
}

/// A rate piecewise linear through `(times[i], rates[i])`, held beyond the ends.
#[derive(Debug, Clone, Deserialize)]
pub struct LinearRate {
    pub times: Vec<f64>,
    pub rates: Vec<f64>,
}

/// One token of a curve in postfix: a number, or `t`, an operator or a function.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum CurveToken {
    Number(f64),
    Word(String),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// Be served at a station.
    #[default]
    Station,
    /// Split into one sub-job per branch; go on when `join` of them ended.
    Fork,
    /// Take one branch, chosen by `policy`.
    Dispatch,
}

/// One flat record for every kind of step (the JSON is flat); `validate`
/// checks that each kind has the fields it needs.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Step {
    #[serde(default)]
    pub kind: StepKind,
    #[serde(default)]
    pub station: Option<u32>,
    /// `None` when every `served_by` entry has its own service.
    #[serde(default)]
    pub service: Option<Dist>,
    #[serde(default)]
    pub uses: Vec<u32>,
    /// `(target step, probability)`; `None` ends the innermost scope (exit at
    /// the route's level, the end of the branch inside a fork or dispatch).
    pub next: Vec<(Option<u32>, f64)>,
    /// The fork or dispatch step whose branch holds this step; `None`: the route.
    #[serde(default)]
    pub scope: Option<u32>,
    /// The class's mark reached when this step ends.
    #[serde(default)]
    pub mark: Option<u32>,
    /// `(server type, its own service or None for the step's)`; empty: every type.
    #[serde(default)]
    pub served_by: Vec<(u32, Option<Dist>)>,
    #[serde(default)]
    pub balk: Option<Balk>,
    #[serde(default)]
    pub patience: Option<Dist>,
    /// Fork and dispatch: the first step of each branch.
    #[serde(default)]
    pub branches: Vec<u32>,
    /// Fork: how many branches must end before the job goes on.
    #[serde(default)]
    pub join: Option<u32>,
    #[serde(default)]
    pub policy: Policy,
    /// Dispatch `random`: one probability per branch.
    #[serde(default)]
    pub weights: Vec<f64>,
    /// Dispatch `power_of_d`: branches drawn.
    #[serde(default)]
    pub d: Option<u32>,
    /// Dispatch: how a policy that can tie chooses among equal branches.
    #[serde(default)]
    pub tie: Tie,
}

/// When an arriving customer gives up at once, by the jobs it sees waiting.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Balk {
    /// Always when at least this many wait.
    Threshold(u32),
    /// With probability `p[n]` when `n` wait; the last holds beyond the list.
    Probabilities(Vec<f64>),
}

/// A distribution by its sampling parameters (the model language's mean-based
/// forms are converted on the Python side).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Dist {
    Const { value: f64 },
    Exp { mean: f64 },
    Erlang { k: u32, mean: f64 },
    Gamma { shape: f64, scale: f64 },
    Lognormal { mu: f64, sigma: f64 },
    Uniform { low: f64, high: f64 },
    Normal { mean: f64, sd: f64 },
    Hyperexp { p: f64, mean1: f64, mean2: f64 },
    Empirical { values: Vec<f64> },
}

impl Dist {
    /// Whether every sample is 0.
    pub fn always_zero(&self) -> bool {
        match self {
            Dist::Const { value } => *value == 0.0,
            Dist::Empirical { values } => values.iter().all(|v| *v == 0.0),
            Dist::Uniform { high, .. } => *high == 0.0,
            _ => false,
        }
    }
}

impl CompiledModel {
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        let model: Self =
            serde_json::from_str(text).map_err(|e| SimError::Input(format!("compiled model: {e}")))?;
        model.validate()?;
        Ok(model)
    }

    /// The checks whose failure would make the engine index out of bounds or
    /// loop for ever; the Python side reports user errors before this.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.classes.is_empty() {
            return Err(SimError::Input("the model has no classes".into()));
        }
        self.stations.iter().try_for_each(validate_station)?;
        for class in &self.classes {
            self.validate_class(class)?;
        }
        crate::day::validate(self)?;
        not_modelled(self)
    }

    fn validate_class(&self, class: &Class) -> Result<(), SimError> {
        let bad = |what: String| Err(SimError::Input(format!("class {}: {what}", class.name)));
        if class.steps.is_empty() {
            return bad("empty route".into());
        }
        let marks = class.marks.len().max(2) as u32;
        if !class.marks.is_empty() && (class.marks[0] != MARKED[0] || class.marks[1] != MARKED[1]) {
            return bad(format!("marks must start with {}", MARKED.join(", ")));
        }
        for measure in &class.measures {
            if measure.from >= marks || measure.to >= marks {
                return bad(format!("measure {}: no such mark", measure.name));
            }
        }
        let gives_up = class.steps.iter().any(|s| s.balk.is_some() || s.patience.is_some());
        if let Source::Closed { think, .. } = &class.source {
            if gives_up && think.always_zero() {
                // Who gives up would be back at once, and give up again, at the same instant for ever.
                return bad("a closed class whose customers may balk or renege needs a think time that is not always 0".into());
            }
        }
        let steps = class.steps.len() as u32;
        for (i, step) in class.steps.iter().enumerate() {
            let bad = |what: &str| bad(format!("step {i}: {what}"));
            if let Some(mark) = step.mark {
                if mark <= MARK_DONE || mark >= marks {
                    return bad("mark out of range");
                }
            }
            if step.next.is_empty() {
                return bad("no routing");
            }
            let total: f64 = step.next.iter().map(|(_, p)| p).sum();
            if (total - 1.0).abs() > 1e-6 || step.next.iter().any(|(_, p)| !(*p >= 0.0)) {
                return bad("routing probabilities must sum to 1");
            }
            for &(target, _) in &step.next {
                match target {
                    Some(t) if t >= steps => return bad("routes to a step that does not exist"),
                    Some(t) if class.steps[t as usize].scope != step.scope => {
                        return bad("routes to a step in another branch")
                    }
                    _ => {}
                }
            }
            if let Some(scope) = step.scope {
                if scope >= steps || class.steps[scope as usize].kind == StepKind::Station {
                    return bad("its scope is not a fork or dispatch step");
                }
                // Scopes deeper than the language allows are refused rather than walked.
                if scope_depth(class, i) > MAX_BRANCH_DEPTH {
                    return bad("branches nested too deep (or in a cycle)");
                }
            }
            match step.kind {
                StepKind::Station => self.validate_station_step(step).or_else(|e| bad(&e))?,
                StepKind::Fork | StepKind::Dispatch => validate_branching(class, i, step).or_else(|e| bad(&e))?,
            }
        }
        Ok(())
    }

    fn validate_station_step(&self, step: &Step) -> Result<(), String> {
        let Some(index) = step.station.filter(|&s| (s as usize) < self.stations.len()) else {
            return Err(format!("no station {:?}", step.station));
        };
        let station = &self.stations[index as usize];
        if step.uses.iter().any(|&r| r as usize >= self.resources.len()) {
            return Err("unknown resource".into());
        }
        if !step.branches.is_empty() || step.join.is_some() || !step.weights.is_empty() || step.d.is_some() {
            return Err("branches, join, weights or d on a station step".into());
        }
        if !step.served_by.is_empty() && station.server_types.is_empty() {
            return Err(format!("served_by at station {}, whose servers are untyped", station.name));
        }
        let types = station.server_types.len() as u32;
        for (n, (kind, service)) in step.served_by.iter().enumerate() {
            if *kind >= types {
                return Err(format!("served_by names no server type of station {}", station.name));
            }
            if step.served_by[..n].iter().any(|(k, _)| k == kind) {
                return Err("served_by names a server type twice".into());
            }
            if service.is_none() && step.service.is_none() {
                return Err("no service for a type in served_by".into());
            }
        }
        if step.service.is_none() && step.served_by.is_empty() {
            return Err("no service".into());
        }
        if step.service.is_none() && station.discipline == Discipline::Sjf {
            return Err(format!("station {} orders by service time (sjf): the step needs its own service", station.name));
        }
        if let Some(Balk::Probabilities(ps)) = &step.balk {
            if ps.is_empty() || ps.len() > MAX_BALK_PROBABILITIES || ps.iter().any(|p| !(0.0..=1.0).contains(p)) {
                return Err(format!(
                    "balk probabilities: 1 to {MAX_BALK_PROBABILITIES} numbers from 0 to 1"
                ));
            }
        }
        Ok(())
    }
}

fn validate_station(station: &Station) -> Result<(), SimError> {
    let bad = |what: &str| Err(SimError::Input(format!("station {}: {what}", station.name)));
    if station.servers == Some(0) {
        return bad("servers must be positive");
    }
    if let (Some(servers), Some(capacity)) = (station.servers, station.capacity) {
        if capacity < servers {
            return bad("capacity below servers");
        }
    }
    if !station.server_types.is_empty() {
        let total = station.server_types.iter().map(|t| u64::from(t.count)).sum::<u64>();
        if station.server_types.iter().any(|t| t.count == 0) || station.servers.map(u64::from) != Some(total) {
            return bad("servers must be the sum of the server types' positive counts");
        }
        if station.discipline == Discipline::Ps {
            return bad("typed servers cannot share (discipline ps)");
        }
    }
    if station.preempt != Preempt::None && station.discipline != Discipline::Priority {
        return bad("preempt needs discipline priority");
    }
    Ok(())
}

fn validate_branching(class: &Class, at: usize, step: &Step) -> Result<(), String> {
    if step.station.is_some() || step.service.is_some() || !step.uses.is_empty() {
        return Err("station, service or uses on a fork or dispatch step".into());
    }
    if step.balk.is_some() || step.patience.is_some() || !step.served_by.is_empty() {
        return Err("balk, patience or served_by on a fork or dispatch step".into());
    }
    let branches = step.branches.len() as u32;
    if branches < 2 {
        return Err("fewer than 2 branches".into());
    }
    for &first in &step.branches {
        if first as usize >= class.steps.len() || class.steps[first as usize].scope != Some(at as u32) {
            return Err("a branch does not start at a step of its own scope".into());
        }
    }
    match step.kind {
        StepKind::Fork => {
            if !matches!(step.join, Some(k) if (1..=branches).contains(&k)) {
                return Err(format!("join must be from 1 to {branches}"));
            }
        }
        _ => {
            if step.join.is_some() {
                return Err("join on a dispatch step".into());
            }
            let policy = step.policy.implementation();
            (policy.check)(step, branches)?;
            if step.tie != Tie::default() && !policy.may_tie {
                return Err(format!("tie: {} is for policies that can find branches equal ({})", name_of(step.tie),
                                   tying_policies().join(", ")));
            }
        }
    }
    Ok(())
}

/// How many forks and dispatches enclose step `at` (more than
/// `MAX_BRANCH_DEPTH` when the scopes run in a cycle).
fn scope_depth(class: &Class, at: usize) -> usize {
    let mut depth = 0;
    let mut scope = class.steps[at].scope;
    while let Some(s) = scope {
        depth += 1;
        if depth > MAX_BRANCH_DEPTH {
            break;
        }
        scope = class.steps.get(s as usize).and_then(|step| step.scope);
    }
    depth
}

/// What the model language refuses as not modelled (vocabulary.rs), refused
/// here too in its words instead of silently given some meaning.
fn not_modelled(model: &CompiledModel) -> Result<(), SimError> {
    let refuse = |at: String, refused: NotModelled, subject: &str| {
        Err(SimError::Input(format!("{at}: {}", refused.refusal(subject))))
    };
    for station in &model.stations {
        let preempt = format!("preempt: {}", name_of(station.preempt));
        if station.preempt != Preempt::None && !station.server_types.is_empty() {
            return refuse(format!("station {}", station.name), PREEMPT_AT_TYPED_SERVERS, &preempt);
        }
        if station.preempt != Preempt::None && !model.resources.is_empty() {
            return refuse(format!("station {}", station.name), PREEMPT_WITH_RESOURCES, &preempt);
        }
    }
    for class in &model.classes {
        for step in &class.steps {
            let in_fork = std::iter::successors(step.scope, |&s| class.steps[s as usize].scope)
                .any(|s| class.steps[s as usize].kind == StepKind::Fork);
            if in_fork && (step.balk.is_some() || step.patience.is_some()) {
                let field = if step.balk.is_some() { "balk" } else { "patience" };
                return refuse(format!("class {}", class.name), GIVING_UP_IN_A_FORK, field);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_with(station: &str, step: &str) -> Result<CompiledModel, SimError> {
        CompiledModel::from_json(&format!(
            r#"{{"stations": [{{"name": "bar", "servers": 3, "capacity": null, "discipline": "fifo"{station}}}],
                "classes": [{{"name": "latte", "source": {{"kind": "open", "interarrival": {{"kind": "exp", "mean": 1}}}},
                  "steps": [{{"station": 0, "service": {{"kind": "exp", "mean": 1}}, "next": [[null, 1]]{step}}}]}}]}}"#
        ))
    }

    fn refusal(station: &str, step: &str) -> String {
        model_with(station, step).expect_err("refused").to_string()
    }

    #[test]
    fn todays_compiled_models_read_with_the_defaults() {
        let model = model_with("", "").unwrap();
        let (station, step) = (&model.stations[0], &model.classes[0].steps[0]);
        assert_eq!((station.take, station.assign, station.preempt), (Take::Head, Assign::LongestIdle, Preempt::None));
        assert!(station.server_types.is_empty() && step.served_by.is_empty());
        assert_eq!((step.kind, step.scope, step.mark, &step.balk), (StepKind::Station, None, None, &None));
    }

    #[test]
    fn the_floors_fields_read_and_out_of_range_indices_are_refused() {
        let typed = r#", "server_types": [{"name": "espresso", "count": 2}, {"name": "drip", "count": 1}],
                       "take": "first_fit", "assign": "in_order""#;
        assert!(refusal(typed, r#", "served_by": [[2, null]]"#).contains("served_by names no server type"));
        assert!(refusal(typed, r#", "served_by": [[0, null], [0, null]]"#).contains("twice"));
        assert!(refusal("", r#", "served_by": [[0, null]]"#).contains("untyped"));
        let miscounted = r#", "server_types": [{"name": "espresso", "count": 1}], "take": "head", "assign": "in_order""#;
        assert!(refusal(miscounted, "").contains("sum of the server types"));
        assert!(refusal(r#", "preempt": "resume""#, "").contains("preempt needs discipline priority"));
        assert!(refusal("", r#", "balk": {"probabilities": [0.5, 1.5]}"#).contains("balk probabilities"));
        assert!(refusal("", r#", "balk": {"probabilities": []}"#).contains("balk probabilities"));
        assert!(refusal("", r#", "mark": 2"#).contains("mark out of range"));
        assert!(refusal("", r#", "scope": 0"#).contains("scope is not a fork or dispatch"));
    }

    #[test]
    fn forks_and_dispatches_are_checked() {
        let model = |steps: &str| {
            CompiledModel::from_json(&format!(
                r#"{{"stations": [{{"name": "s", "servers": 1, "capacity": null, "discipline": "fifo"}}],
                    "classes": [{{"name": "c", "source": {{"kind": "open", "interarrival": {{"kind": "exp", "mean": 1}}}},
                      "steps": [{steps},
                        {{"station": 0, "service": {{"kind": "exp", "mean": 1}}, "next": [[null, 1]], "scope": 0}},
                        {{"station": 0, "service": {{"kind": "exp", "mean": 1}}, "next": [[null, 1]], "scope": 0}}]}}]}}"#
            ))
            .expect_err("refused")
            .to_string()
        };
        assert!(model(r#"{"kind": "fork", "branches": [1, 2], "join": 3, "next": [[null, 1]]}"#).contains("join must be from 1 to 2"));
        assert!(model(r#"{"kind": "fork", "branches": [1, 5], "join": 2, "next": [[null, 1]]}"#).contains("a branch does not start"));
        assert!(model(r#"{"kind": "dispatch", "branches": [1, 2], "weights": [0.5], "next": [[null, 1]]}"#).contains("one weight per branch"));
        assert!(model(r#"{"kind": "dispatch", "branches": [1, 2], "policy": "power_of_d", "d": 3, "next": [[null, 1]]}"#).contains("d from 2 to 2"));
        assert!(model(r#"{"kind": "dispatch", "branches": [1, 2], "policy": "shared", "next": [[1, 1]]}"#).contains("another branch"));
        assert!(model(r#"{"kind": "dispatch", "branches": [1, 2], "policy": "round_robin", "tie": "random", "next": [[null, 1]]}"#)
            .contains("tie: random is for policies that can find branches equal (shortest_queue, least_utilized, shared)"));
    }

    #[test]
    fn what_is_not_modelled_is_refused_in_the_vocabularys_words() {
        let fork = r#"{"stations": [{"name": "s", "servers": 1, "capacity": null, "discipline": "priority", "preempt": "resume"}],
            "classes": [{"name": "c", "source": {"kind": "open", "interarrival": {"kind": "exp", "mean": 1}},
              "steps": [{"kind": "fork", "branches": [1, 2], "join": 2, "next": [[null, 1]]},
                {"station": 0, "service": {"kind": "exp", "mean": 1}, "next": [[null, 1]], "scope": 0},
                {"station": 0, "service": {"kind": "exp", "mean": 1}, "next": [[null, 1]], "scope": 0}]}]}"#;
        let refused = |text: &str| CompiledModel::from_json(text).expect_err("refused").to_string();
        let typed_preempting = fork.replace(
            r#""preempt": "resume""#,
            r#""preempt": "resume", "server_types": [{"name": "a", "count": 1}], "take": "head", "assign": "in_order""#,
        );
        assert!(refused(&typed_preempting).contains(&format!(
            "station s: preempt: resume at typed servers is not modelled ({})",
            PREEMPT_AT_TYPED_SERVERS.why
        )));
        let balking_branch = fork.replace(r#", "preempt": "resume""#, "").replace(r#""scope": 0}]"#, r#""scope": 0, "balk": {"threshold": 1}}]"#);
        assert!(refused(&balking_branch).contains("class c: balk inside a fork's branch is not modelled (the customer"));
    }
}
