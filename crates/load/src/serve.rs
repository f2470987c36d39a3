//! The demo server: an M/G/c queue behind HTTP. Every request joins one FIFO
//! queue served by `workers` threads; its service time is drawn, in arrival
//! order from the seed, from a brewput distribution, and spent sleeping (or
//! burning CPU with `burn`). A full queue answers 503 at once, so memory stays
//! bounded under any load.
//!
//! With a rota the number of workers on changes per interval, as a model's
//! station's servers do through its day: the rota's clock starts with the
//! first request, so that a load started any time later meets it at its
//! start; after its last interval the last count holds, or the rota starts
//! again when it repeats (a day run several times). A worker going off
//! shift finishes the request in hand (the model language's `off_shift:
//! finish`) and takes no other until it is on again.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use brewput_measure::control::Control;
use brewput_sim::{Dist, Sampler};
use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::clock;
use crate::error::LoadError;

pub const MAX_WORKERS: usize = 4096;
pub const MAX_QUEUE: usize = 1_000_000;
/// Most intervals of a rota (a model's day has at most 10,000).
pub const MAX_ROTA: usize = 10_000;

#[derive(Debug, Clone, Deserialize)]
pub struct ServeSettings {
    pub host: String,
    pub port: u16,
    pub workers: usize,
    /// Service time in seconds.
    pub service: Dist,
    pub burn: bool,
    /// Requests waiting at most; more are answered 503.
    pub queue: usize,
    pub seed: u64,
    pub for_seconds: Option<f64>,
    /// Workers on per interval (`workers` is the most), from the first request on.
    #[serde(default)]
    pub rota: Option<Rota>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Rota {
    pub workers: Vec<usize>,
    pub interval_seconds: f64,
    /// Whether the rota starts again after its last interval.
    #[serde(default)]
    pub repeat: bool,
}

impl Rota {
    fn check(&self, most: usize) -> Result<(), String> {
        if self.workers.is_empty() || self.workers.len() > MAX_ROTA {
            return Err(format!("a rota gives from 1 to {MAX_ROTA} intervals"));
        }
        if self.workers.iter().any(|&n| n > most) {
            return Err(format!("a rota's workers must be at most {most}"));
        }
        if !(self.interval_seconds.is_finite() && self.interval_seconds > 0.0) {
            return Err("a rota's interval must be a positive number of seconds".into());
        }
        Ok(())
    }

    /// Workers on `seconds` after the rota's start, and the seconds until that changes (None: never).
    fn on(&self, seconds: f64) -> (usize, Option<f64>) {
        let seconds = if self.repeat {
            seconds.rem_euclid(self.workers.len() as f64 * self.interval_seconds)
        } else {
            seconds
        };
        let mut k = (seconds / self.interval_seconds).floor().max(0.0) as usize;
        if self.repeat {
            k = k.min(self.workers.len() - 1); // rounding at the round's very end
        }
        match self.workers.get(k) {
            Some(&n) => (n, Some((k + 1) as f64 * self.interval_seconds - seconds)),
            None => (*self.workers.last().unwrap_or(&0), None),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ServeSummary {
    pub served: u64,
    pub rejected: u64,
    pub seconds: f64,
}

pub struct Server {
    listener: std::net::TcpListener,
    settings: ServeSettings,
    sampler: Sampler,
}

struct Request {
    service: Duration,
    reply: oneshot::Sender<()>,
}

/// The queue and its bookkeeping, shared by the connections.
struct Floor {
    rng: Mutex<Xoshiro256PlusPlus>,
    sampler: Sampler,
    queue: std_mpsc::Sender<Request>,
    waiting: AtomicUsize,
    capacity: usize,
    served: AtomicU64,
    rejected: AtomicU64,
    /// When the first request came: the rota's start.
    first_request: OnceLock<Instant>,
    rota: Option<Rota>,
    stopped: AtomicBool,
}

impl Server {
    /// Listens where `settings` say; the run starts with `run`.
    pub fn bind(settings: ServeSettings) -> Result<Server, LoadError> {
        if !(1..=MAX_WORKERS).contains(&settings.workers) {
            return Err(LoadError::Input(format!("workers must be from 1 to {MAX_WORKERS}")));
        }
        if !(1..=MAX_QUEUE).contains(&settings.queue) {
            return Err(LoadError::Input(format!("queue must be from 1 to {MAX_QUEUE}")));
        }
        if let Some(rota) = &settings.rota {
            rota.check(settings.workers).map_err(LoadError::Input)?;
        }
        let sampler = Sampler::new(&settings.service).map_err(|e| LoadError::Input(e.to_string()))?;
        let listener = std::net::TcpListener::bind((settings.host.as_str(), settings.port))
            .map_err(|e| LoadError::Bind(format!("cannot listen on {}:{}: {e}", settings.host, settings.port)))?;
        Ok(Server { listener, settings, sampler })
    }

    pub fn address(&self) -> Result<SocketAddr, LoadError> {
        self.listener.local_addr().map_err(|e| LoadError::System(e.to_string()))
    }

    /// Serves until `control` is stopped or `for_seconds` have passed.
    pub fn run(self, control: &Control) -> Result<ServeSummary, LoadError> {
        let system = |e: std::io::Error| LoadError::System(format!("the server cannot run: {e}"));
        self.listener.set_nonblocking(true).map_err(system)?;
        let (queue, requests) = std_mpsc::channel::<Request>();
        let requests = Arc::new(Mutex::new(requests));
        let floor = Arc::new(Floor {
            rng: Mutex::new(service_stream(self.settings.seed)),
            sampler: self.sampler,
            queue,
            waiting: AtomicUsize::new(0),
            capacity: self.settings.queue,
            served: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            first_request: OnceLock::new(),
            rota: self.settings.rota.clone(),
            stopped: AtomicBool::new(false),
        });
        for i in 0..self.settings.workers {
            let (requests, floor, burn) = (Arc::clone(&requests), Arc::clone(&floor), self.settings.burn);
            std::thread::Builder::new()
                .name(format!("brewput-serve-{i}"))
                .spawn(move || work(i, &requests, &floor, burn))
                .map_err(system)?;
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(system)?;
        let start = Instant::now();
        let deadline = self.settings.for_seconds.and_then(|s| Duration::try_from_secs_f64(s).ok()).map(|d| start + d);
        let listener = self.listener;
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::from_std(listener).map_err(system)?;
            loop {
                if control.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                tokio::select! {
                    accepted = listener.accept() => {
                        if let Ok((stream, _)) = accepted {
                            let _ = stream.set_nodelay(true);
                            tokio::spawn(connection(stream, Arc::clone(&floor)));
                        }
                    }
                    _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                }
            }
            Ok::<(), LoadError>(())
        })?;
        // Dropping the runtime closes every connection; the workers finish the
        // request in hand and end when the queue's last sender goes.
        drop(runtime);
        floor.stopped.store(true, Ordering::Relaxed);
        Ok(ServeSummary {
            served: floor.served.load(Ordering::Relaxed),
            rejected: floor.rejected.load(Ordering::Relaxed),
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

async fn connection(stream: tokio::net::TcpStream, floor: Arc<Floor>) {
    let service = service_fn(move |_request| {
        let floor = Arc::clone(&floor);
        async move { Ok::<_, std::convert::Infallible>(answer(&floor).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
}

async fn answer(floor: &Floor) -> Response<Full<Bytes>> {
    let respond = |status, body: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
        *response.status_mut() = status;
        response
    };
    if floor.waiting.fetch_add(1, Ordering::Relaxed) >= floor.capacity {
        floor.waiting.fetch_sub(1, Ordering::Relaxed);
        floor.rejected.fetch_add(1, Ordering::Relaxed);
        return respond(StatusCode::SERVICE_UNAVAILABLE, "queue full\n");
    }
    floor.first_request.get_or_init(Instant::now);
    // Drawn in arrival order: the same seed and order give the same times.
    let seconds = floor.sampler.sample(&mut *floor.rng.lock().unwrap_or_else(|e| e.into_inner()));
    let service = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
    let (reply, done) = oneshot::channel();
    if floor.queue.send(Request { service, reply }).is_err() || done.await.is_err() {
        return respond(StatusCode::SERVICE_UNAVAILABLE, "stopping\n");
    }
    floor.served.fetch_add(1, Ordering::Relaxed);
    respond(StatusCode::OK, "ok\n")
}

/// The service times' random stream for `seed`: the generator's schedule
/// (brewput_measure::arrivals) seeds the same generator the same way, so that with equal
/// seeds (both default to 1) an exponential service would be the Poisson
/// gaps over again, each request's service time proportional to a gap beside
/// it; served so, M/M/2 at 200/s measured 10 % under Erlang C every time.
/// A long jump (2^192 draws on) keeps the two streams apart for any seeds.
fn service_stream(seed: u64) -> Xoshiro256PlusPlus {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    rng.long_jump();
    rng
}

/// How long a worker off shift (or waiting on an empty queue under a rota)
/// sleeps at most before it looks at the rota and the stop again.
const ROTA_LOOK: Duration = Duration::from_millis(20);

/// One worker (the `index`th): takes the queue's head, spends its service
/// time, answers; under a rota only while it is on.
fn work(index: usize, requests: &Mutex<std_mpsc::Receiver<Request>>, floor: &Floor, burn: bool) {
    clock::precise_sleeps();
    loop {
        let next = match &floor.rota {
            None => requests.lock().unwrap_or_else(|e| e.into_inner()).recv().ok(),
            Some(rota) => {
                if floor.stopped.load(Ordering::Relaxed) {
                    return;
                }
                // Asked with the queue in hand: a worker that waited for it
                // while the rota changed must not take a request on the old one.
                let queue = requests.lock().unwrap_or_else(|e| e.into_inner());
                let since = floor.first_request.get().map_or(0.0, |t| t.elapsed().as_secs_f64());
                let (on, change) = rota.on(since);
                // Look again when the rota changes (to the microsecond), or soon.
                let look = change.and_then(|s| Duration::try_from_secs_f64(s).ok()).map_or(ROTA_LOOK, |d| d.min(ROTA_LOOK));
                if index >= on {
                    drop(queue);
                    std::thread::sleep(look);
                    continue;
                }
                match queue.recv_timeout(look) {
                    Ok(request) => Some(request),
                    Err(std_mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(std_mpsc::RecvTimeoutError::Disconnected) => None,
                }
            }
        };
        let Some(request) = next else { return };
        floor.waiting.fetch_sub(1, Ordering::Relaxed);
        if burn {
            let until = Instant::now() + request.service;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        } else {
            std::thread::sleep(request.service);
        }
        let _ = request.reply.send(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn a_rota_says_who_is_on_and_until_when_then_holds_its_last() {
        let rota = Rota { workers: vec![2, 0, 3], interval_seconds: 0.5, repeat: false };
        assert!(rota.check(3).is_ok() && rota.check(2).is_err());
        assert_eq!(rota.on(0.0), (2, Some(0.5)));
        let (on, change) = rota.on(0.75);
        assert_eq!(on, 0);
        assert!((change.unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(rota.on(1.2).0, 3);
        assert_eq!(rota.on(9.0), (3, None));
        assert!(Rota { workers: vec![], interval_seconds: 1.0, repeat: false }.check(3).is_err());
        assert!(Rota { workers: vec![1], interval_seconds: 0.0, repeat: false }.check(3).is_err());
        let again = Rota { repeat: true, ..rota };
        assert_eq!(again.on(1.6).0, 2, "1.6 s is 0.1 s into the second round");
        let (on, change) = again.on(2.3);
        assert_eq!(on, 0);
        assert!((change.unwrap() - 0.2).abs() < 1e-9);
    }

    #[test]
    fn the_service_stream_is_not_the_schedules_for_the_same_seed() {
        // The schedule's stream is seed_from_u64(seed) itself: 4,000 uniforms
        // from each, correlated no more than chance allows (4 standard errors).
        for seed in [0u64, 1, 7] {
            let (mut schedule, mut service) = (Xoshiro256PlusPlus::seed_from_u64(seed), service_stream(seed));
            let (x, y): (Vec<f64>, Vec<f64>) = (0..4000).map(|_| (schedule.gen::<f64>(), service.gen::<f64>())).unzip();
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let (mx, my) = (mean(&x), mean(&y));
            let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
            let (vx, vy): (f64, f64) = (x.iter().map(|a| (a - mx).powi(2)).sum(), y.iter().map(|b| (b - my).powi(2)).sum());
            let r = cov / (vx * vy).sqrt();
            assert!(r.abs() < 4.0 / 4000f64.sqrt(), "seed {seed}: r = {r}");
            assert_ne!(x[..10], y[..10]);
        }
    }
}
