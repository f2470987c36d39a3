//! Typed servers in a debug build, where the simulation checks the first-fit
//! invariant (no idle server of a type that may serve a waiting job) after
//! every start: a model built to stress it, with several types, classes
//! allowed on overlapping subsets, per-type service and a long queue.

use brewput_sim::{run, CompiledModel, RunSettings, Stop, Warmup};

fn model(take: &str, assign: &str) -> CompiledModel {
    let step = |served_by: &str| {
        format!(r#"[{{"station": 0, "service": {{"kind": "exp", "mean": 1.0}}, "next": [[null, 1.0]], "served_by": {served_by}}}]"#)
    };
    let class = |name: &str, mean: f64, served_by: &str| {
        format!(
            r#"{{"name": "{name}", "source": {{"kind": "open", "interarrival": {{"kind": "exp", "mean": {mean}}}}}, "steps": {}}}"#,
            step(served_by)
        )
    };
    let text = format!(
        r#"{{"stations": [{{"name": "bar", "servers": 6, "capacity": null, "discipline": "fifo",
              "server_types": [{{"name": "a", "count": 1}}, {{"name": "b", "count": 2}}, {{"name": "c", "count": 3}}],
              "take": "{take}", "assign": "{assign}"}}],
            "classes": [{}, {}, {}]}}"#,
        class("x", 1.2, "[[0, null]]"),
        class("y", 0.5, r#"[[1, {"kind": "exp", "mean": 0.5}], [2, null]]"#),
        class("z", 0.4, "[]"),
    );
    CompiledModel::from_json(&text).expect("valid")
}

fn settings() -> RunSettings {
    RunSettings {
        seed: 3,
        replications: 2,
        threads: Some(1),
        stop: Stop::Customers { count: 20_000 },
        warmup: Warmup::Customers { count: 1_000 },
        distribution: false,
        asked: Default::default(),
        bins: None,
        found: false,
    }
}

#[test]
fn first_fit_never_leaves_a_compatible_server_idle() {
    // The debug assertion in the simulation's dispatch fails the run otherwise.
    for assign in ["longest_idle", "in_order"] {
        let summary = run(&model("first_fit", assign), &settings()).expect("runs");
        let types = &summary.stations[0].server_types;
        assert_eq!(types.len(), 3);
        // Class x may only use type a: no other type served it.
        let served = |t: usize, c: usize| types[t].served[c].1.mean;
        assert!(served(0, 0) > 0.0 && served(1, 0) == 0.0 && served(2, 0) == 0.0);
        // Class y never on type a.
        assert_eq!(served(0, 1), 0.0);
        // What the types served adds up to each class's throughput.
        for (c, class) in summary.classes.iter().enumerate() {
            let total: f64 = (0..3).map(|t| served(t, c)).sum();
            assert!((total - class.throughput.mean).abs() < 1e-9 * total.max(1.0), "{}", class.name);
        }
    }
}

#[test]
fn strict_order_runs_too() {
    let summary = run(&model("head", "longest_idle"), &settings()).expect("runs");
    assert!(summary.classes.iter().all(|c| c.throughput.mean > 0.0));
}
