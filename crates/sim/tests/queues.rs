//! The engine against closed forms, on models built in Rust. The Python test
//! suite checks far more through the model language; these keep the engine
//! honest with cargo alone.

use brewput_sim::{run, CompiledModel, Discipline, Dist, RunSettings, Source, Station, Step, Stop, Summary, Warmup};

fn station(name: &str, servers: Option<u32>, capacity: Option<u32>, discipline: Discipline) -> Station {
    Station { name: name.into(), servers, capacity, discipline, ..Default::default() }
}

fn step(station: u32, service: Dist, next: Option<u32>) -> Step {
    Step { station: Some(station), service: Some(service), next: vec![(next, 1.0)], ..Default::default() }
}

fn open_class(name: &str, rate: f64, steps: Vec<Step>) -> brewput_sim::Class {
    brewput_sim::Class { name: name.into(), priority: 0, source: Source::Open { interarrival: Dist::Exp { mean: 1.0 / rate } }, steps, marks: vec![], measures: vec![] }
}

fn settings(customers: u64, replications: u32, threads: Option<usize>) -> RunSettings {
    RunSettings {
        seed: 42,
        replications,
        threads,
        stop: Stop::Customers { count: customers },
        warmup: Warmup::Customers { count: customers / 10 },
        distribution: false,
        asked: Default::default(),
        bins: None,
        found: false,
    }
}

fn mm1(discipline: Discipline, service: Dist) -> CompiledModel {
    CompiledModel {
        stations: vec![station("server", Some(1), None, discipline)],
        resources: vec![],
        day: None,
        classes: vec![open_class("job", 0.8, vec![step(0, service, None)])],
    }
}

/// The truth must lie in the 95 % interval widened to about 99.99 % coverage
/// (x2.2 for 10 replications) so a correct engine fails by chance very rarely.
fn assert_covers(what: &str, estimate: brewput_sim::Estimate, truth: f64) {
    let [lo, hi] = estimate.ci.expect("several replications");
    let half = (hi - lo) / 2.0 * 2.2;
    assert!(
        (estimate.mean - truth).abs() <= half,
        "{what}: {} +- {half}, truth {truth}",
        estimate.mean
    );
}

fn class0(summary: &Summary) -> &brewput_sim::ClassSummary {
    &summary.classes[0]
}

#[test]
fn mm1_mean_response_and_utilization() {
    let s = run(&mm1(Discipline::Fifo, Dist::Exp { mean: 1.0 }), &settings(200_000, 10, None)).unwrap();
    assert_covers("response", class0(&s).response_time.mean, 1.0 / (1.0 - 0.8));
    assert_covers("utilization", s.stations[0].utilization.unwrap(), 0.8);
    assert_covers("queue length", s.stations[0].queue_length, 0.8 / 0.2);
    assert_covers("throughput", class0(&s).throughput, 0.8);
}

#[test]
fn md1_matches_pollaczek_khinchine() {
    // W = S + rho S / (2 (1 - rho)) for constant service.
    let s = run(&mm1(Discipline::Fifo, Dist::Const { value: 1.0 }), &settings(200_000, 10, None)).unwrap();
    assert_covers("response", class0(&s).response_time.mean, 1.0 + 0.8 / (2.0 * 0.2));
}

#[test]
fn mean_response_is_the_same_under_lifo_sjf_priority_and_ps_where_theory_says_so() {
    // M/M/1: FIFO, LIFO (non-preemptive) and processor sharing all give 1/(mu - lambda).
    for discipline in [Discipline::Lifo, Discipline::Ps, Discipline::Priority] {
        let s = run(&mm1(discipline, Dist::Exp { mean: 1.0 }), &settings(200_000, 10, None)).unwrap();
        assert_covers(&format!("{discipline:?}"), class0(&s).response_time.mean, 5.0);
    }
    // M/D/1 under processor sharing: mean response S / (1 - rho), insensitive to the distribution.
    let s = run(&mm1(Discipline::Ps, Dist::Const { value: 1.0 }), &settings(200_000, 10, None)).unwrap();
    assert_covers("M/D/1-PS", class0(&s).response_time.mean, 5.0);
}

#[test]
fn sjf_beats_fifo_on_mean_wait() {
    let service = Dist::Hyperexp { p: 0.5, mean1: 0.2, mean2: 1.8 };
    let fifo = run(&mm1(Discipline::Fifo, service.clone()), &settings(100_000, 5, None)).unwrap();
    let sjf = run(&mm1(Discipline::Sjf, service), &settings(100_000, 5, None)).unwrap();
    assert!(class0(&sjf).waiting_time.mean.mean < 0.7 * class0(&fifo).waiting_time.mean.mean);
}

#[test]
fn mm1k_loses_what_theory_says() {
    // M/M/1/K with K = 3 present at most: P(loss) = (1 - r) r^K / (1 - r^(K+1)).
    let mut model = mm1(Discipline::Fifo, Dist::Exp { mean: 1.0 });
    model.stations[0].capacity = Some(3);
    let s = run(&model, &settings(200_000, 10, None)).unwrap();
    let r: f64 = 0.8;
    assert_covers("loss", class0(&s).loss_probability, (1.0 - r) * r.powi(3) / (1.0 - r.powi(4)));
}

#[test]
fn same_seed_same_numbers_whatever_the_threads() {
    let model = mm1(Discipline::Fifo, Dist::Exp { mean: 1.0 });
    let one = run(&model, &settings(20_000, 4, Some(1))).unwrap();
    let many = run(&model, &settings(20_000, 4, Some(3))).unwrap();
    assert_eq!(format!("{one:?}"), format!("{many:?}"));
    let again = run(&model, &settings(20_000, 4, Some(1))).unwrap();
    assert_eq!(format!("{one:?}"), format!("{again:?}"));
}

#[test]
fn rendezvous_tandem_blocks_after_service() {
    // Two constant 1.0 stages, no room between them, saturated by a closed
    // population: the pair advances in lock step, one job per time unit.
    let model = CompiledModel {
        stations: vec![
            station("a", Some(1), None, Discipline::Fifo),
            station("b", Some(1), Some(1), Discipline::Fifo),
        ],
        resources: vec![],
        day: None,
        classes: vec![brewput_sim::Class {
            name: "job".into(),
            priority: 0,
            source: Source::Closed { population: 5, think: Dist::Const { value: 0.0 } },
            steps: vec![step(0, Dist::Const { value: 1.0 }, Some(1)), step(1, Dist::Const { value: 1.0 }, None)],
            marks: vec![],
            measures: vec![],
        }],
    };
    let s = run(&model, &settings(1_000, 2, None)).unwrap();
    assert!((class0(&s).throughput.mean - 1.0).abs() < 1e-2);
    // Exponential stages with a rendezvous lose throughput to blocking.
    let mut variable = model.clone();
    for step in &mut variable.classes[0].steps {
        step.service = Some(Dist::Exp { mean: 1.0 });
    }
    let s = run(&variable, &settings(100_000, 5, None)).unwrap();
    // Two exponential stations, no buffer, saturated: throughput 2/3 (Markov chain on (a busy, a blocked, b busy)).
    assert_covers("blocking throughput", class0(&s).throughput, 2.0 / 3.0);
}

#[test]
fn a_cycle_of_full_buffers_is_reported_as_deadlock() {
    // Two single-server, no-buffer stations feeding each other with three jobs
    // circulating: everyone ends up blocked.
    let model = CompiledModel {
        stations: vec![
            station("a", Some(1), Some(1), Discipline::Fifo),
            station("b", Some(1), Some(1), Discipline::Fifo),
        ],
        resources: vec![],
        day: None,
        classes: vec![brewput_sim::Class {
            name: "job".into(),
            priority: 0,
            source: Source::Closed { population: 2, think: Dist::Const { value: 0.0 } },
            steps: vec![step(0, Dist::Exp { mean: 1.0 }, Some(1)), step(1, Dist::Exp { mean: 1.0 }, Some(0))],
            marks: vec![],
            measures: vec![],
        }],
    };
    let err = run(&model, &settings(1_000, 1, None)).unwrap_err();
    assert!(err.to_string().contains("deadlocked"), "{err}");
    // by a horizon too: the clock's own events are not activity
    for warmup in [Warmup::Time { time: 0.0 }, Warmup::Time { time: 1e6 }] {
        let by_time = RunSettings { stop: Stop::Horizon { time: 1e6 }, warmup, ..settings(1, 1, None) };
        let err = run(&model, &by_time).unwrap_err();
        assert!(matches!(err, brewput_sim::SimError::Deadlock { time } if time < 1e3), "{err}");
    }
}

#[test]
fn control_counts_customers_and_cancels() {
    let model = mm1(Discipline::Fifo, Dist::Exp { mean: 1.0 });
    let control = brewput_sim::Control::default();
    brewput_sim::run_controlled(&model, &settings(10_000, 3, None), &control).unwrap();
    // Warm-up (1,000) and measured (10,000) customers of 3 replications.
    assert_eq!(control.progress().get(), 3 * 11_000);
    control.cancel();
    let err = brewput_sim::run_controlled(&model, &settings(10_000, 3, None), &control).unwrap_err();
    assert_eq!(err, brewput_sim::SimError::Cancelled);
}

#[test]
fn closed_customers_with_no_think_wait_outside_in_arrival_order() {
    // Four customers, no think, at two exponential servers with no waiting room: two are
    // served while two wait outside. Both servers are always busy, so X = 2 / 0.5 = 4 and,
    // every customer cycling, R = N / X = 1 (Little), of which the wait outside is 0.5.
    // A customer back in the instant it left must not take the place it freed ahead of
    // those outside (they would wait for ever and R would be one service).
    let model = CompiledModel {
        stations: vec![station("s", Some(2), Some(2), Discipline::Fifo)],
        resources: vec![],
        day: None,
        classes: vec![brewput_sim::Class {
            name: "job".into(),
            priority: 0,
            source: Source::Closed { population: 4, think: Dist::Const { value: 0.0 } },
            steps: vec![step(0, Dist::Exp { mean: 0.5 }, None)],
            marks: vec![],
            measures: vec![],
        }],
    };
    let s = run(&model, &settings(100_000, 10, None)).unwrap();
    assert_covers("throughput", class0(&s).throughput, 4.0);
    assert_covers("response", class0(&s).response_time.mean, 1.0);
    assert_covers("wait outside", class0(&s).waiting_time.mean, 0.5);
}
