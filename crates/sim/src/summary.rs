//! Replications folded into estimates with 95 % confidence intervals.

use std::collections::BTreeMap;

use serde::Serialize;
use statrs::distribution::{Continuous, ContinuousCDF, Normal, StudentsT};
use statrs::function::beta::beta_reg;

use crate::distribution::PercentileDistribution;
use crate::error::SimError;
use crate::giving_up::LOSS_REASONS;
use crate::intervals::{self, IntervalSummary};
use crate::model::CompiledModel;
use crate::stats::{ReplicationStats, TimeSummary, PERCENTILES, SPECTRUM};

/// The confidence level of every interval the engine reports.
pub const CONFIDENCE: f64 = 0.95;

/// The two-sided Student-t critical value: the `t` with a share `level` of the
/// distribution between -t and t, for `df` (at least 1) degrees of freedom; to
/// a relative 1e-9 from 1 degree of freedom and levels from 1e-6 to 1 - 1e-10
/// (tests/test_engine_numbers.py checks it against scipy).
pub fn t_critical(level: f64, df: f64) -> Result<f64, SimError> {
    if !(level > 0.0 && level < 1.0) {
        return Err(SimError::Input(format!("the confidence level must be between 0 and 1, got {level}")));
    }
    if !(df >= 1.0 && df.is_finite()) {
        return Err(SimError::Input(format!("degrees of freedom must be at least 1 and finite, got {df}")));
    }
    // The upper tail beyond t: (1 - level) / 2, exact however close level is to 1.
    let tail = (1.0 - level) / 2.0;
    if df >= MANY_DEGREES_OF_FREEDOM {
        return Ok(t_quantile_expansion(1.0 - tail, df));
    }
    let t = StudentsT::new(0.0, 1.0, df).map_err(|e| SimError::Input(format!("Student-t: {e}")))?;
    // statrs' inverse is only a start (it can be far off in the tails). Newton's
    // method then solves, with the incomplete beta function (accurate where it is
    // small), P(|T| < x) = level for levels below a half, and P(T > x) = tail
    // above: both sides are monotone and of one curvature for x > 0, so after
    // the first step every step approaches the root from one side.
    let central = level < 0.5;
    let miss = |x: f64| {
        if central {
            beta_reg(0.5, df / 2.0, x * x / (df + x * x)) - level
        } else {
            tail - t.sf(x)
        }
    };
    let slope = |x: f64| if central { 2.0 * t.pdf(x) } else { t.pdf(x) };
    let mut x = t.inverse_cdf(1.0 - tail).max(0.0);
    for _ in 0..NEWTON_STEPS {
        let step = -miss(x) / slope(x);
        x += step;
        if !(step.abs() > x.abs() * 1e-15) {
            break;
        }
    }
    Ok(x)
}

/// From here on statrs' Student-t inverse loses digits (a relative 2e-5 at
/// 1e5 degrees of freedom) and its tail is slow to compute, while the
/// expansion below is good to 4e-13.
const MANY_DEGREES_OF_FREEDOM: f64 = 1000.0;

/// Enough for the worst start (1 degree of freedom, far in the tail: the steps
/// double t until they are near, then converge quadratically).
const NEWTON_STEPS: usize = 200;

/// The Student-t `p` quantile for many degrees of freedom: the normal quantile
/// corrected in powers of 1/df (Abramowitz and Stegun 26.7.5).
fn t_quantile_expansion(p: f64, df: f64) -> f64 {
    let x = Normal::new(0.0, 1.0).expect("the standard normal exists").inverse_cdf(p);
    let g = [
        (x.powi(3) + x) / 4.0,
        (5.0 * x.powi(5) + 16.0 * x.powi(3) + 3.0 * x) / 96.0,
        (3.0 * x.powi(7) + 19.0 * x.powi(5) + 17.0 * x.powi(3) - 15.0 * x) / 384.0,
        (79.0 * x.powi(9) + 776.0 * x.powi(7) + 1482.0 * x.powi(5) - 1920.0 * x.powi(3) - 945.0 * x) / 92160.0,
    ];
    x + g.iter().enumerate().map(|(i, gi)| gi / df.powi(i as i32 + 1)).sum::<f64>()
}

/// The mean of per-replication estimates and its `CONFIDENCE` Student-t
/// interval (`None` with a single replication, where no interval can be formed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub mean: f64,
    pub ci: Option<[f64; 2]>,
}

impl Estimate {
    pub fn from_samples(xs: &[f64]) -> Estimate {
        Estimate::with_critical(xs, critical_for(xs.len()))
    }

    /// The ratio of sums over replications, `sum(parts) / sum(wholes)` (a share of the
    /// customers, a mean per customer), with the delta method's interval: what a
    /// customer-weighted figure is where each replication counts a different number
    /// of customers. The mean of each replication's own ratio would weigh a
    /// replication with few customers as one with many, and is biased wherever their
    /// number and the figure move together (a morning's first hour: more arrivals,
    /// longer queues, more giving up). NaN where no replication counted anyone.
    pub fn ratio(parts: &[f64], wholes: &[f64]) -> Estimate {
        let n = wholes.len();
        let whole: f64 = wholes.iter().sum();
        let mean = parts.iter().sum::<f64>() / whole;
        let Some(t) = critical_for(n).filter(|_| mean.is_finite()) else {
            return Estimate { mean: if whole > 0.0 { mean } else { f64::NAN }, ci: None };
        };
        let residuals = parts.iter().zip(wholes).map(|(p, w)| (p - mean * w).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t * (residuals / n as f64).sqrt() / (whole / n as f64);
        Estimate { mean, ci: Some([mean - half, mean + half]) }
    }

    /// `from_samples` with the critical value for `xs.len()` samples already
    /// known (`critical_for`): a summary works it out once for all its figures.
    fn with_critical(xs: &[f64], t: Option<f64>) -> Estimate {
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let Some(t) = t.filter(|_| mean.is_finite()) else {
            return Estimate { mean, ci: None };
        };
        let variance = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t * (variance / n as f64).sqrt();
        Estimate { mean, ci: Some([mean - half, mean + half]) }
    }
}

/// The `CONFIDENCE` critical value for an interval over `n` samples (`None`
/// below two, where no interval can be formed).
fn critical_for(n: usize) -> Option<f64> {
    (n >= 2).then(|| t_critical(CONFIDENCE, (n - 1) as f64).expect("the level is a fraction, n - 1 is positive"))
}

#[derive(Debug, Clone, Serialize)]
pub struct TimesEstimate {
    pub mean: Estimate,
    /// Each of `PERCENTILES`, under its name.
    #[serde(flatten)]
    pub percentiles: BTreeMap<&'static str, Estimate>,
    /// `(percent, estimate)` at every point of `SPECTRUM`, ascending.
    pub spectrum: Vec<(f64, Estimate)>,
    /// The largest over all replications.
    pub max: f64,
    /// `(percent, estimate)` at each percent the run asked for, in its order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quantiles: Vec<(f64, Estimate)>,
    /// `(time, estimate of the share at or below it)` at each time the run asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub within: Vec<(f64, Estimate)>,
    /// The percentile distribution of all replications' values together, when
    /// the run asked for it (response times only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<PercentileDistribution>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassSummary {
    pub name: String,
    pub throughput: Estimate,
    pub response_time: TimesEstimate,
    pub waiting_time: TimesEstimate,
    pub completed: u64,
    pub offered: u64,
    pub lost: u64,
    pub loss_probability: Estimate,
    /// `lost` under each of `LOSS_REASONS`.
    pub lost_by: BTreeMap<&'static str, u64>,
    pub loss_probability_by: BTreeMap<&'static str, Estimate>,
    /// Per measure, by name in the class's order: the times between its two
    /// marks, like the response time, and how many customers were measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measures: Vec<(String, TimesEstimate)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measures_count: Vec<(String, u64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StationSummary {
    pub name: String,
    /// `None` for infinitely many servers.
    pub utilization: Option<Estimate>,
    pub busy_servers: Estimate,
    pub queue_length: Estimate,
    pub waiting: Estimate,
    pub response_time: Estimate,
    pub throughput: Estimate,
    /// Per server type, at a typed station; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_types: Vec<ServerTypeSummary>,
    /// Per class with a step at the station, in the classes' order: its part of the figures.
    pub classes: Vec<ClassAtStationSummary>,
}

/// One class's figures at a station (docs/results.md, "Per class at each station").
#[derive(Debug, Clone, Serialize)]
pub struct ClassAtStationSummary {
    pub name: String,
    /// Its share of the station's utilization; `None` for infinitely many servers.
    pub utilization: Option<Estimate>,
    pub queue_length: Estimate,
    pub waiting: Estimate,
    /// Mean time per visit, of the visits that ended.
    pub response_time: Estimate,
    /// Visits ended per time unit.
    pub throughput: Estimate,
}

/// One server type's figures at a typed station.
#[derive(Debug, Clone, Serialize)]
pub struct ServerTypeSummary {
    pub name: String,
    pub utilization: Estimate,
    /// Services completed per time unit by servers of this type, per class
    /// name (the classes' order).
    pub served: Vec<(String, Estimate)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResourceSummary {
    pub name: String,
    pub utilization: Estimate,
    pub in_use: Estimate,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub replications: usize,
    pub events: u64,
    pub duration: Estimate,
    pub classes: Vec<ClassSummary>,
    pub stations: Vec<StationSummary>,
    pub resources: Vec<ResourceSummary>,
    /// In a model with a day: each reporting interval's figures (intervals.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<IntervalSummary>,
}

impl Summary {
    pub fn from_replications(model: &CompiledModel, reps: &[ReplicationStats]) -> Summary {
        let t = critical_for(reps.len());
        let over = |f: &dyn Fn(&ReplicationStats) -> f64| {
            Estimate::with_critical(&reps.iter().map(f).collect::<Vec<_>>(), t)
        };
        let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { f64::NAN };
        let classes = model.classes.iter().enumerate().map(|(c, class)| {
            // Each asked point (the same in every replication) and its estimate over them.
            let asked = |answers: &dyn Fn(&ReplicationStats) -> &Vec<(f64, f64)>| -> Vec<(f64, Estimate)> {
                reps.first().map_or_else(Vec::new, |first| {
                    answers(first).iter().enumerate().map(|(i, &(at, _))| (at, over(&|r| answers(r)[i].1))).collect()
                })
            };
            let times = |pick: &dyn Fn(&ReplicationStats) -> &TimeSummary| TimesEstimate {
                mean: over(&|r| pick(r).mean),
                percentiles: PERCENTILES.iter().enumerate().map(|(i, &(name, _))| (name, over(&|r| pick(r).percentiles[i]))).collect(),
                spectrum: SPECTRUM.iter().enumerate().map(|(i, &p)| (p, over(&|r| pick(r).spectrum[i]))).collect(),
                max: reps.iter().map(|r| pick(r).max).fold(0.0, f64::max),
                quantiles: asked(&|r| &pick(r).asked.quantiles),
                within: asked(&|r| &pick(r).asked.within),
                distribution: None,
            };
            let total = |f: &dyn Fn(&ReplicationStats) -> u64| reps.iter().map(f).sum();
            ClassSummary {
                name: class.name.clone(),
                throughput: over(&|r| ratio(r.classes[c].completed as f64, r.duration)),
                response_time: times(&|r| &r.classes[c].response),
                waiting_time: times(&|r| &r.classes[c].waiting),
                completed: total(&|r| r.classes[c].completed),
                offered: total(&|r| r.classes[c].offered),
                lost: total(&|r| r.classes[c].lost),
                loss_probability: over(&|r| ratio(r.classes[c].lost as f64, r.classes[c].offered as f64)),
                lost_by: LOSS_REASONS.iter().enumerate().map(|(i, &why)| (why, total(&|r| r.classes[c].lost_by[i]))).collect(),
                measures: class.measures.iter().enumerate().map(|(i, m)| (m.name.clone(), times(&|r| &r.classes[c].measures[i]))).collect(),
                measures_count: class.measures.iter().enumerate().map(|(i, m)| (m.name.clone(), total(&|r| r.classes[c].measure_counts[i]))).collect(),
                loss_probability_by: LOSS_REASONS.iter().enumerate().map(|(i, &why)| {
                    (why, over(&|r| ratio(r.classes[c].lost_by[i] as f64, r.classes[c].offered as f64)))
                }).collect(),
            }
        }).collect();
        let stations = model.stations.iter().enumerate().map(|(s, station)| {
            let per_time = |f: &dyn Fn(&ReplicationStats) -> f64| over(&|r| ratio(f(r), r.duration));
            // Busy servers per server, of the `busy` area.
            let utilization = |busy: &dyn Fn(&ReplicationStats) -> f64| station.servers.map(|c| match intervals::rota_area(station, model.day.as_ref(), 1.0) {
                // A rota's servers change: busy servers per server on over the run.
                Some(_) => over(&|r| ratio(busy(r), intervals::rota_area(station, model.day.as_ref(), r.duration).unwrap_or(0.0))),
                None => per_time(&|r| busy(r) / c as f64),
            });
            StationSummary {
                name: station.name.clone(),
                utilization: utilization(&|r| r.stations[s].busy_area),
                busy_servers: per_time(&|r| r.stations[s].busy_area),
                queue_length: per_time(&|r| r.stations[s].present_area),
                waiting: per_time(&|r| r.stations[s].waiting_area),
                response_time: over(&|r| ratio(r.stations[s].response_sum, r.stations[s].departures as f64)),
                throughput: per_time(&|r| r.stations[s].departures as f64),
                classes: model.classes.iter().enumerate().filter(|(_, class)| class.steps.iter().any(|step| step.station == Some(s as u32))).map(|(c, class)| {
                    ClassAtStationSummary {
                        name: class.name.clone(),
                        utilization: utilization(&|r| r.stations[s].classes[c].busy_area),
                        queue_length: per_time(&|r| r.stations[s].classes[c].present_area),
                        waiting: per_time(&|r| r.stations[s].classes[c].waiting_area),
                        response_time: over(&|r| ratio(r.stations[s].classes[c].response_sum, r.stations[s].classes[c].departures as f64)),
                        throughput: per_time(&|r| r.stations[s].classes[c].departures as f64),
                    }
                }).collect(),
                server_types: station.server_types.iter().enumerate().map(|(t, kind)| ServerTypeSummary {
                    name: kind.name.clone(),
                    utilization: per_time(&|r| r.stations[s].server_types[t].busy_area / kind.count as f64),
                    served: model.classes.iter().enumerate().map(|(c, class)| {
                        (class.name.clone(), per_time(&|r| r.stations[s].server_types[t].served[c] as f64))
                    }).collect(),
                }).collect(),
            }
        }).collect();
        let resources = model.resources.iter().enumerate().map(|(i, resource)| {
            let in_use = |r: &ReplicationStats| ratio(r.resources[i].in_use_area, r.duration);
            ResourceSummary {
                name: resource.name.clone(),
                utilization: over(&|r| in_use(r) / resource.tokens as f64),
                in_use: over(&in_use),
            }
        }).collect();
        Summary {
            replications: reps.len(),
            events: reps.iter().map(|r| r.events).sum(),
            duration: over(&|r| r.duration),
            classes,
            stations,
            resources,
            intervals: intervals::summarise(model, &reps.iter().map(|r| r.intervals.as_slice()).collect::<Vec<_>>()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_weighs_each_replication_by_its_customers() {
        // 1 of 2 and 30 of 100: 31 of 102, where the mean of the ratios is 0.4
        let e = Estimate::ratio(&[1.0, 30.0], &[2.0, 100.0]);
        assert!((e.mean - 31.0 / 102.0).abs() < 1e-15);
        let [low, high] = e.ci.unwrap();
        assert!(low < e.mean && e.mean < high);
        assert!(Estimate::ratio(&[0.0, 0.0], &[0.0, 0.0]).mean.is_nan());
        // equal wholes: the ratio is the mean of the ratios, and so is its interval
        let (same, plain) = (Estimate::ratio(&[1.0, 3.0, 2.0], &[4.0, 4.0, 4.0]), Estimate::from_samples(&[0.25, 0.75, 0.5]));
        assert!((same.mean - plain.mean).abs() < 1e-15 && (same.ci.unwrap()[0] - plain.ci.unwrap()[0]).abs() < 1e-12);
    }
    use crate::stats::{ClassAtStationStats, ClassStats, StationStats};

    #[test]
    fn interval_matches_a_hand_computed_t_interval() {
        // mean 2, sd 1, n 4: half-width t(0.975, 3) * 1/2 = 3.182446 / 2.
        let e = Estimate::from_samples(&[1.0, 2.0, 2.0, 3.0].map(|x: f64| x));
        let sd = (2.0f64 / 3.0).sqrt();
        let half = 3.182446305284263 * sd / 2.0;
        assert_eq!(e.mean, 2.0);
        let [lo, hi] = e.ci.unwrap();
        assert!((lo - (2.0 - half)).abs() < 1e-9 && (hi - (2.0 + half)).abs() < 1e-9);
    }

    #[test]
    fn spectrum_is_the_mean_over_replications() {
        let model: CompiledModel = serde_json::from_str(
            r#"{"stations": [{"name": "s", "servers": 1, "capacity": null, "discipline": "fifo"}],
                "classes": [{"name": "c", "source": {"kind": "open", "interarrival": {"kind": "exp", "mean": 1}},
                             "steps": [{"station": 0, "service": {"kind": "exp", "mean": 0.5}, "next": [[null, 1]]}]}]}"#,
        )
        .unwrap();
        let replication = |scale: f64| {
            let times = TimeSummary {
                mean: scale,
                percentiles: [scale; 5],
                spectrum: SPECTRUM.map(|p| p * scale),
                max: scale,
                asked: Default::default(),
            };
            let class = ClassStats { completed: 1, offered: 1, lost: 0, lost_by: [0; 3], measures: vec![], measure_counts: vec![], response: times.clone(), waiting: times, response_histogram: None };
            let station = StationStats {
                departures: 1,
                response_sum: 1.0,
                busy_area: 1.0,
                present_area: 1.0,
                waiting_area: 0.0,
                server_types: vec![],
                classes: vec![ClassAtStationStats { departures: 1, response_sum: 1.0, busy_area: 1.0, present_area: 1.0, waiting_area: 0.0 }],
            };
            ReplicationStats { duration: 1.0, events: 1, classes: vec![class], stations: vec![station], resources: vec![], intervals: vec![] }
        };
        let summary = Summary::from_replications(&model, &[replication(1.0), replication(3.0)]);
        let spectrum = &summary.classes[0].response_time.spectrum;
        assert_eq!(spectrum.len(), SPECTRUM.len());
        for (&(p, estimate), &want_p) in spectrum.iter().zip(&SPECTRUM) {
            assert_eq!(p, want_p);
            assert_eq!(estimate, Estimate::from_samples(&[want_p, 3.0 * want_p]));
        }
    }

    #[test]
    fn t_critical_matches_tables() {
        // t(0.975, 3), t(0.995, 10), t(0.95, 1) from published tables
        assert!((t_critical(0.95, 3.0).unwrap() - 3.182446305284263).abs() < 1e-9);
        assert!((t_critical(0.99, 10.0).unwrap() - 3.169272672616953).abs() < 1e-9);
        assert!((t_critical(0.90, 1.0).unwrap() - 6.313751514675041).abs() < 1e-9);
        // many degrees of freedom: t(0.975, 99999) and t(0.75, 99999), from scipy
        assert!((t_critical(0.95, 99999.0).unwrap() - 1.9599877077718442).abs() < 1e-12);
        assert!((t_critical(0.5, 99999.0).unwrap() - 0.6744922035778262).abs() < 1e-12);
        // far in the tail of the Cauchy (1 degree of freedom): cot(pi x tail)
        let level = 1.0 - 1e-10;
        let cauchy = 1.0 / (std::f64::consts::PI * (1.0 - level) / 2.0).tan();
        let got = t_critical(level, 1.0).unwrap();
        assert!((got / cauchy - 1.0).abs() < 1e-9, "{got} vs {cauchy}");
        assert!(t_critical(1.0, 3.0).is_err() && t_critical(0.5, 0.5).is_err() && t_critical(f64::NAN, 2.0).is_err());
    }

    #[test]
    fn one_replication_has_no_interval() {
        assert_eq!(Estimate::from_samples(&[5.0]), Estimate { mean: 5.0, ci: None });
    }
}
