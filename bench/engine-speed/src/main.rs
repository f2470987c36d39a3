//! engine-speed: brewput's engine against the minimal M/M/3 loop, same process, same model.
//!
//! Prints one JSON line per measurement: name, customers, seconds, customers_per_s,
//! mean_response and its error against Erlang C. Exits 1 if any mean response is
//! more than 2 % off the closed form, so a broken engine cannot look fast.
//!
//! Usage: engine-speed [--customers N] [--warmup N] [--repeats K]

mod minimal;

use std::time::Instant;

use brewput_sim::{CompiledModel, RunSettings};
use serde_json::json;

const RATE: f64 = 2.7;
const MEAN_SERVICE: f64 = 1.0;
const SEED: u64 = 1;
const TOLERANCE: f64 = 0.02;

struct Args {
    customers: u64,
    warmup: u64,
    repeats: u32,
}

fn parse_args() -> Args {
    let mut args = Args { customers: 10_000_000, warmup: 1_000_000, repeats: 3 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number: u64 = value.parse().unwrap_or_else(|_| usage(&format!("{flag}: not a number: {value}")));
        match flag.as_str() {
            "--customers" => args.customers = number,
            "--warmup" => args.warmup = number,
            "--repeats" => args.repeats = number.max(1) as u32,
            _ => usage(&format!("unknown option {flag}")),
        }
    }
    args
}

fn usage(why: &str) -> ! {
    eprintln!("engine-speed: {why}\nusage: engine-speed [--customers N] [--warmup N] [--repeats K]");
    std::process::exit(2);
}

/// The best (shortest) of `repeats` timed runs: on a shared machine the minimum is
/// the least disturbed estimate. Every run has the same seed, so the same result.
fn best_of<F: FnMut() -> f64>(repeats: u32, mut f: F) -> (f64, f64) {
    let mut best = f64::INFINITY;
    let mut mean = f64::NAN;
    for _ in 0..repeats {
        let start = Instant::now();
        mean = f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, mean)
}

/// The M/M/3 model as docs/compiled-model.md spells it, as the Python side would hand it over.
fn model() -> CompiledModel {
    let text = json!({
        "stations": [{"name": "server", "servers": minimal::SERVERS, "capacity": null, "discipline": "fifo"}],
        "resources": [],
        "classes": [{
            "name": "customer", "priority": 0,
            "source": {"kind": "open", "interarrival": {"kind": "exp", "mean": 1.0 / RATE}},
            "steps": [{"station": 0, "service": {"kind": "exp", "mean": MEAN_SERVICE}, "uses": [], "next": [[null, 1.0]]}]
        }],
        "time_resolution": 0.001
    });
    CompiledModel::from_json(&text.to_string()).expect("the bench's compiled model is valid")
}

fn settings(args: &Args, replications: u32, threads: usize) -> RunSettings {
    let text = json!({
        "seed": SEED, "replications": replications, "threads": threads,
        "stop": {"kind": "customers", "count": args.customers},
        "warmup": {"kind": "customers", "count": args.warmup}
    });
    RunSettings::from_json(&text.to_string()).expect("the bench's run settings are valid")
}

/// The one class's mean response time over all replications.
fn engine_mean_response(summary: &brewput_sim::Summary) -> f64 {
    summary.classes[0].response_time.mean.mean
}

fn main() {
    let args = parse_args();
    let truth = minimal::erlang_c_response(RATE, MEAN_SERVICE, minimal::SERVERS);
    // Both loops simulate warm-up customers too, so both are credited with them.
    let per_replication = args.customers + args.warmup;
    let mut all_ok = true;
    let mut report = |name: &str, replications: u32, threads: usize, (seconds, mean): (f64, f64)| {
        let customers = per_replication * replications as u64;
        let error = mean / truth - 1.0;
        let ok = error.abs() <= TOLERANCE;
        all_ok &= ok;
        println!(
            "{}",
            json!({
                "name": name, "replications": replications, "threads": threads,
                "customers": customers, "seconds": seconds,
                "customers_per_s": customers as f64 / seconds,
                "mean_response": mean, "erlang_c": truth, "error": error, "ok": ok,
            })
        );
    };

    report("minimal", 1, 1, best_of(args.repeats, || {
        minimal::run(RATE, MEAN_SERVICE, SEED, args.warmup, args.customers)
    }));

    let model = model();
    let engine = |replications: u32, threads: usize| {
        let settings = settings(&args, replications, threads);
        best_of(args.repeats, || {
            let summary = brewput_sim::run(&model, &settings).expect("the engine runs the M/M/3 model");
            engine_mean_response(&summary)
        })
    };
    report("brewput", 1, 1, engine(1, 1));
    // Replications are independent, so two threads should run two of them in
    // nearly the time one thread runs one.
    report("brewput-replications", 2, 1, engine(2, 1));
    report("brewput-replications", 2, 2, engine(2, 2));

    if !all_ok {
        eprintln!("engine-speed: a mean response time is more than {}% off Erlang C ({truth:.4})", TOLERANCE * 100.0);
        std::process::exit(1);
    }
}
