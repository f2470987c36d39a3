//! https against a TLS server each test starts on 127.0.0.1 (rcgen's
//! self-signed certificates, a tokio-rustls acceptor, hyper answering 200 and
//! recording what arrived): trusted through `cacert`, refused before the run
//! without it, accepted with `insecure`, handshakes that fail mid-run counted
//! as `tls`, the connect and handshake inside the service time, and the
//! headers and body arriving byte for byte.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use brewput_load::{run, Control, LoadError, LoadSettings, RunSummary};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// What reached the server: one entry per request.
#[derive(Debug, Clone)]
struct Arrived {
    method: String,
    path: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
    alpn: Option<Vec<u8>>,
}

struct Certificate {
    pem: String,
    acceptor: TlsAcceptor,
}

/// A self-signed certificate for 127.0.0.1, and an acceptor serving it that
/// offers h2 before http/1.1 (so the client's ALPN choice shows).
fn certificate() -> Certificate {
    let generated = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der()));
    let chain = vec![CertificateDer::from(generated.cert.der().to_vec())];
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Certificate { pem: generated.cert.pem(), acceptor: TlsAcceptor::from(Arc::new(config)) }
}

struct Server {
    addr: SocketAddr,
    arrived: Arc<Mutex<Vec<Arrived>>>,
}

/// Serves on 127.0.0.1 for at most 30 s: the first `first` connections with
/// `early`'s certificate, the rest with `late`'s, each handshake after
/// `delay`.
fn serve(early: TlsAcceptor, late: TlsAcceptor, first: usize, delay: Duration) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let arrived = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&arrived);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let serving = async {
                for count in 0.. {
                    let (stream, _) = listener.accept().await.unwrap();
                    let acceptor = if count < first { early.clone() } else { late.clone() };
                    tokio::spawn(answer(stream, acceptor, delay, Arc::clone(&record)));
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(30), serving).await;
        });
    });
    Server { addr, arrived }
}

async fn answer(stream: tokio::net::TcpStream, acceptor: TlsAcceptor, delay: Duration, record: Arc<Mutex<Vec<Arrived>>>) {
    tokio::time::sleep(delay).await;
    let Ok(stream) = acceptor.accept(stream).await else { return };
    let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
        let (record, alpn) = (Arc::clone(&record), alpn.clone());
        async move {
            let (parts, body) = request.into_parts();
            let body = body.collect().await.map(|b| b.to_bytes().to_vec()).unwrap_or_default();
            record.lock().unwrap().push(Arrived {
                method: parts.method.to_string(),
                path: parts.uri.to_string(),
                headers: parts.headers.iter().map(|(n, v)| (n.to_string(), v.as_bytes().to_vec())).collect(),
                body,
                alpn,
            });
            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"ok"))))
        }
    });
    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
}

/// A file in a fresh folder of this test's own.
fn file(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("brewput-https-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `requests` requests at 100/s on one connection to `https://addr/path`.
fn load(addr: SocketAddr, http: serde_json::Value, requests: u64) -> Result<RunSummary, LoadError> {
    let mut target = serde_json::json!({
        "host": "127.0.0.1", "port": addr.port(), "authority": addr.to_string(), "path": "/echo?x=1", "method": "GET",
    });
    target.as_object_mut().unwrap().extend(http.as_object().unwrap().clone());
    let settings: LoadSettings = serde_json::from_value(serde_json::json!({
        "target": {"http": target},
        "schedule": {"arrivals": "constant", "stages": [{"from": 100.0, "to": 100.0, "seconds": null}],
                     "requests": requests, "warmup_seconds": 0.0, "seed": 1},
        "connections": 1, "max_in_flight": 1000, "timeout_seconds": 5.0,
    }))
    .unwrap();
    run(&settings, &Arc::new(Control::default()))
}

#[test]
fn trusted_through_cacert_with_headers_and_body_byte_for_byte() {
    let cert = certificate();
    let server = serve(cert.acceptor.clone(), cert.acceptor, usize::MAX, Duration::ZERO);
    let cacert = file("trusted", "ca.pem", cert.pem.as_bytes());
    let body: Vec<u8> = (0..=255u8).cycle().take(70_000).collect(); // every byte value, beyond one TLS record
    let body_file = file("trusted", "body.bin", &body);
    let summary = load(
        server.addr,
        serde_json::json!({
            "method": "PUT",
            "headers": [["X-Trace", "a b\tc"], ["Accept", "text/plain"], ["accept", "application/json"],
                        ["User-Agent", "tester/1"]],
            "body": body_file.to_str().unwrap(),
            "tls": {"cacert": cacert.to_str().unwrap()},
        }),
        20,
    )
    .unwrap();
    assert_eq!((summary.counts.sent, summary.counts.answers.get("2xx").copied()), (20, Some(20)), "{:?}", summary.counts);
    let arrived = server.arrived.lock().unwrap().clone();
    assert_eq!(arrived.len(), 20);
    for request in arrived {
        assert_eq!((request.method.as_str(), request.path.as_str()), ("PUT", "/echo?x=1"));
        assert_eq!(request.alpn.as_deref(), Some(&b"http/1.1"[..]));
        assert!(request.body == body, "the body arrived changed ({} bytes)", request.body.len());
        let values = |name: &str| -> Vec<&[u8]> {
            request.headers.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_slice()).collect()
        };
        assert_eq!(values("x-trace"), [b"a b\tc"]);
        assert_eq!(values("accept"), [&b"text/plain"[..], b"application/json"]); // both, in order
        assert_eq!(values("user-agent"), [b"tester/1"]); // replaces the default
        assert_eq!(values("host"), [server.addr.to_string().as_bytes()]);
        assert_eq!(values("content-length"), [b"70000"]);
    }
}

#[test]
fn an_untrusted_certificate_is_refused_before_the_run_naming_the_cure() {
    let cert = certificate();
    let server = serve(cert.acceptor.clone(), cert.acceptor, usize::MAX, Duration::ZERO);
    let refused = load(server.addr, serde_json::json!({"tls": {}}), 5).unwrap_err();
    let LoadError::Unreachable(message) = refused else { panic!("{refused:?}") };
    assert!(message.contains("not trusted") && message.contains("--cacert") && message.contains("--insecure"), "{message}");
    assert!(server.arrived.lock().unwrap().is_empty());
}

#[test]
fn insecure_accepts_any_certificate() {
    let cert = certificate();
    let server = serve(cert.acceptor.clone(), cert.acceptor, usize::MAX, Duration::ZERO);
    let summary = load(server.addr, serde_json::json!({"tls": {"insecure": true}}), 10).unwrap();
    assert_eq!(summary.counts.answers.get("2xx").copied(), Some(10));
    assert_eq!(server.arrived.lock().unwrap().len(), 10);
}

#[test]
fn handshakes_that_fail_during_the_run_are_counted_as_tls_errors() {
    // The check before the run meets the trusted certificate; every later
    // connection meets an untrusted one (a certificate swapped mid-run).
    let (trusted, other) = (certificate(), certificate());
    let server = serve(trusted.acceptor, other.acceptor, 1, Duration::ZERO);
    let cacert = file("swapped", "ca.pem", trusted.pem.as_bytes());
    let summary = load(server.addr, serde_json::json!({"tls": {"cacert": cacert.to_str().unwrap()}}), 6).unwrap();
    let counts = &summary.counts;
    assert_eq!((counts.sent, counts.answered, counts.failed), (6, 0, 6), "{counts:?}");
    assert_eq!(counts.errors.get("tls").copied(), Some(6));
    assert!(!counts.errors.contains_key("connect"));
}

#[test]
fn connect_and_handshake_are_in_the_service_time_of_the_request_that_opened_the_connection() {
    let cert = certificate();
    let delay = Duration::from_millis(150);
    let server = serve(cert.acceptor.clone(), cert.acceptor, usize::MAX, delay);
    let cacert = file("delay", "ca.pem", cert.pem.as_bytes());
    let summary = load(server.addr, serde_json::json!({"tls": {"cacert": cacert.to_str().unwrap()}}), 20).unwrap();
    assert_eq!(summary.counts.answers.get("2xx").copied(), Some(20));
    // One connection, kept alive: its first request waited out the delayed
    // handshake, the other 19 did not.
    let (max, p90) = (summary.service.max.unwrap(), summary.service.percentiles.iter().find(|(n, _)| n == "p90").unwrap().1);
    assert!(max >= delay.as_secs_f64(), "service max {max}");
    assert!(p90 < delay.as_secs_f64() / 2.0, "service p90 {p90}");
}

#[test]
fn a_server_that_does_not_speak_tls_is_refused_before_the_run() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Ok((mut stream, _)) = listener.accept() {
            let _ = stream.read(&mut [0u8; 1024]);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        }
    });
    // No certificate is in question: no hint of --cacert or --insecure.
    let refused = load(addr, serde_json::json!({"tls": {}}), 5).unwrap_err();
    let LoadError::Unreachable(message) = refused else { panic!("{refused:?}") };
    assert!(message.contains("does not answer in TLS") && !message.contains("--cacert"), "{message}");
}

#[test]
fn unusable_cacert_and_body_files_are_named() {
    let cert = certificate();
    let server = serve(cert.acceptor.clone(), cert.acceptor, usize::MAX, Duration::ZERO);
    let not_pem = file("files", "not.pem", b"hello");
    let refused = load(server.addr, serde_json::json!({"tls": {"cacert": not_pem.to_str().unwrap()}}), 1).unwrap_err();
    assert_eq!(refused.to_string(), format!("--cacert {}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)", not_pem.display()));
    let refused = load(server.addr, serde_json::json!({"body": "/no/such/body"}), 1).unwrap_err();
    assert_eq!(refused.to_string(), "--body /no/such/body: no such file");
}
