//! Kept-alive connections that a server closes: against a server each test
//! starts on 127.0.0.1 that answers one request per connection and then
//! closes it without saying so (no `Connection: close`), as a server ending
//! idle connections does. An idempotent request that finds its connection
//! closed goes again on a new one and is answered; any other fails as `http`.
//! A server that says `Connection: close` is believed: no request fails.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use brewput_load::{run, Control, LoadSettings, RunSummary};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves on a thread of its own until the test process ends; counts the
/// connections it accepted.
fn one_answer_per_connection(answer: &'static [u8]) -> (SocketAddr, Arc<AtomicU64>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&accepted);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                counter.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buffer = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let _ = socket.write_all(answer).await;
                    // Closed here, the client not told: its next request on this
                    // connection finds it gone.
                });
            }
        });
    });
    (address, accepted)
}

/// `requests` requests of `method` at 200/s on one connection.
fn load(address: SocketAddr, method: &str, requests: u64) -> RunSummary {
    let settings: LoadSettings = serde_json::from_value(serde_json::json!({
        "target": {"http": {"host": "127.0.0.1", "port": address.port(), "authority": address.to_string(),
                            "path": "/", "method": method}},
        "schedule": {"arrivals": "constant", "stages": [{"from": 200.0, "to": 200.0, "seconds": null}],
                     "requests": requests, "warmup_seconds": 0.0, "seed": 1},
        "connections": 1, "max_in_flight": 1000, "timeout_seconds": 5.0,
    }))
    .unwrap();
    run(&settings, &Arc::new(Control::default())).unwrap()
}

const UNANNOUNCED: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

#[test]
fn an_idempotent_request_on_a_connection_the_server_closed_goes_again_on_a_new_one() {
    let (address, accepted) = one_answer_per_connection(UNANNOUNCED);
    let summary = load(address, "GET", 20);
    assert_eq!(summary.counts.answers.get("2xx"), Some(&20), "{:?}", summary.counts);
    assert!(summary.counts.errors.is_empty(), "{:?}", summary.counts.errors);
    // The check before the run, then one connection per request.
    assert_eq!(accepted.load(Ordering::Relaxed), 21);
}

#[test]
fn any_other_request_on_a_connection_the_server_closed_fails_as_http() {
    let (address, _) = one_answer_per_connection(UNANNOUNCED);
    let summary = load(address, "POST", 20);
    // The first request of each new connection is answered; the next one
    // finds the connection gone and is not sent again.
    let answered = summary.counts.answers.get("2xx").copied().unwrap_or(0);
    let failed = summary.counts.errors.get("http").copied().unwrap_or(0);
    assert_eq!((answered, failed), (10, 10), "{:?}", summary.counts);
}

#[test]
fn a_server_that_says_it_closes_is_believed() {
    let (address, accepted) = one_answer_per_connection(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
    let summary = load(address, "POST", 20);
    assert_eq!(summary.counts.answers.get("2xx"), Some(&20), "{:?}", summary.counts);
    assert_eq!(accepted.load(Ordering::Relaxed), 21);
}
