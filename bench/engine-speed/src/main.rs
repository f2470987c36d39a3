//! engine-speed: brewput's engine against the minimal M/M/3 loop, same process, same model.
//!
//! Prints one JSON line per measurement: name, customers, seconds, customers_per_s,
//! mean_response and its error against Erlang C. Exits 1 if any mean response is
//! more than 2 % off the closed form, so a broken engine cannot look fast.
//!
//! Usage: engine-speed [--customers N] [--warmup N] [--repeats K]   (defaults 10M, 1M, 3)

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

/// One timed run of a contender, returning its mean response time.
type Work<'a> = Box<dyn Fn() -> f64 + 'a>;

/// The M/M/3 model as docs/compiled-model.md spells it, as the Python side would hand it over.
fn model() -> CompiledModel {
    let text = json!({
        "stations": [{"name": "server", "servers": minimal::SERVERS, "capacity": null, "discipline": "fifo"}],
        "resources": [],
        "classes": [{
            "name": "customer", "priority": 0,
            "source": {"kind": "open", "interarrival": {"kind": "exp", "mean": 1.0 / RATE}},
            "steps": [{"station": 0, "service": {"kind": "exp", "mean": MEAN_SERVICE}, "uses": [], "next": [[null, 1.0]]}]
        }]
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
    let model = model();
    let (one, two, two_threads) = (settings(&args, 1, 1), settings(&args, 2, 1), settings(&args, 2, 2));
    let engine = |settings: &RunSettings| {
        let summary = brewput_sim::run(&model, settings).expect("the engine runs the M/M/3 model");
        engine_mean_response(&summary)
    };
    // (name, replications, threads, the timed work). Replications are independent,
    // so two threads should run two of them in nearly the time one thread runs one.
    let contenders: Vec<(&str, u32, usize, Work)> = vec![
        ("minimal", 1, 1, Box::new(|| minimal::run(RATE, MEAN_SERVICE, SEED, args.warmup, args.customers))),
        ("brewput", 1, 1, Box::new(|| engine(&one))),
        ("brewput-replications", 2, 1, Box::new(|| engine(&two))),
        ("brewput-replications", 2, 2, Box::new(|| engine(&two_threads))),
    ];

    // Each keeps its best (shortest) time, the least disturbed estimate on a shared
    // machine. Rounds go through every contender in turn, so a burst of other work
    // cannot spoil all the repeats of one of them. Same seed, so the same mean each time.
    let mut best = vec![(f64::INFINITY, f64::NAN); contenders.len()];
    for _ in 0..args.repeats {
        for (i, (.., work)) in contenders.iter().enumerate() {
            let start = Instant::now();
            let mean = work();
            best[i] = (best[i].0.min(start.elapsed().as_secs_f64()), mean);
        }
    }

    let mut all_ok = true;
    for ((name, replications, threads, _), (seconds, mean)) in contenders.iter().zip(best) {
        let customers = per_replication * *replications as u64;
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
    }

    if !all_ok {
        eprintln!("engine-speed: a mean response time is more than {}% off Erlang C ({truth:.4})", TOLERANCE * 100.0);
        std::process::exit(1);
    }
}
