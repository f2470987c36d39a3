//! What one request is: an HTTP/1.1 exchange on a kept-alive connection (over
//! TLS for https), or a command run to its exit. Each returns what happened;
//! the generator decides what follows (timing, recording, reconnecting).

use std::io;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, HOST, USER_AGENT};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::error::LoadError;
use crate::files::read_bounded;
use crate::record::{ErrorKind, Outcome};
use crate::tls::{self, Tls, TlsSettings};

/// Largest request body (`body`): read once, shared by every request.
pub const MAX_BODY_BYTES: u64 = 64 << 20;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Http(HttpTarget),
    /// A shell command line, run by `sh -c` per request.
    Exec { command: String },
}

/// `method path` on `host:port`; `authority` is the Host header unless
/// `headers` name one; over TLS when `tls` is given, the certificate checked
/// against `host`.
#[derive(Debug, Clone, Deserialize)]
pub struct HttpTarget {
    pub host: String,
    pub port: u16,
    pub authority: String,
    pub path: String,
    pub method: String,
    /// Sent with every request, in this order; a name given here replaces the
    /// default Host or User-Agent.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// A file whose bytes are every request's body (with its Content-Length).
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub tls: Option<TlsSettings>,
}

/// A target with its address resolved and its request prepared.
pub(crate) enum Resolved {
    Http(Box<Http>),
    Exec { command: String },
}

pub(crate) struct Http {
    addr: SocketAddr,
    tls: Option<Tls>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
}

type Sender = SendRequest<Full<Bytes>>;

/// One worker's hold on the target: its connection, when HTTP.
#[derive(Default)]
pub(crate) struct Link(Option<Sender>);

impl Link {
    /// Forgets the connection (after a timeout or a broken exchange).
    pub fn reset(&mut self) {
        self.0 = None;
    }
}

/// Why no connection could be had.
enum Refused {
    Connect(io::Error),
    Tls(io::Error),
    Http(hyper::Error),
}

impl Resolved {
    pub async fn resolve(target: &Target, timeout: Duration) -> Result<Resolved, LoadError> {
        match target {
            Target::Exec { command } => Ok(Resolved::Exec { command: command.clone() }),
            Target::Http(http) => Ok(Resolved::Http(Box::new(Http::resolve(http, timeout).await?))),
        }
    }

    pub async fn attempt(&self, link: &mut Link) -> Outcome {
        match self {
            Resolved::Http(http) => {
                let outcome = http.exchange(link).await;
                if matches!(outcome, Outcome::Error(_)) {
                    link.reset();
                }
                outcome
            }
            Resolved::Exec { command } => run_command(command).await,
        }
    }
}

impl Http {
    async fn resolve(target: &HttpTarget, timeout: Duration) -> Result<Http, LoadError> {
        let HttpTarget { host, port, authority, .. } = target;
        // Where, with the port even when the URL left it to its scheme.
        let place = if authority.ends_with(&format!(":{port}")) { authority.clone() } else { format!("{authority}:{port}") };
        let unreachable = |why: String| LoadError::Unreachable(format!("cannot connect to {place}: {why}"));
        let addr: SocketAddr = tokio::net::lookup_host((host.as_str(), *port))
            .await
            .map_err(|e| unreachable(format!("cannot resolve {host}: {}", plain(&e))))?
            .next()
            .ok_or_else(|| unreachable(format!("{host} has no address")))?;
        let body = match &target.body {
            Some(path) => Some(Bytes::from(
                read_bounded(path, MAX_BODY_BYTES).map_err(|why| LoadError::Input(format!("--body {path}: {why}")))?,
            )),
            None => None,
        };
        let http = Http {
            addr,
            tls: target.tls.as_ref().map(|settings| Tls::new(settings, host)).transpose()?,
            method: Method::from_bytes(target.method.as_bytes())
                .map_err(|_| LoadError::Input(format!("method {:?} is not an HTTP method", target.method)))?,
            uri: target.path.parse().map_err(|_| LoadError::Input(format!("{:?} is not a request path", target.path)))?,
            headers: headers(target, body.as_ref())?,
            body: body.unwrap_or_default(),
        };
        // One connection first, so that a target that is not there (or whose
        // certificate is not trusted) is one clear error before the run, not
        // a run of failures.
        match tokio::time::timeout(timeout.min(Duration::from_secs(5)), http.connect()).await {
            Ok(Ok(_)) => Ok(http),
            Ok(Err(Refused::Connect(e))) => Err(unreachable(plain(&e))),
            Ok(Err(Refused::Tls(e))) => {
                let hint = match &target.tls {
                    Some(TlsSettings { cacert: None, insecure: false }) if tls::refused_certificate(&e) => {
                        " (trust its certificate with --cacert FILE, or skip the check with --insecure)"
                    }
                    _ => "",
                };
                Err(unreachable(format!("TLS handshake failed: {}{hint}", tls::reason(&e))))
            }
            Ok(Err(Refused::Http(e))) => Err(unreachable(format!("HTTP/1.1 handshake failed: {e}"))),
            Err(_) => Err(unreachable("no answer to the connection attempt".into())),
        }
    }

    async fn connect(&self) -> Result<Sender, Refused> {
        let stream = TcpStream::connect(self.addr).await.map_err(Refused::Connect)?;
        stream.set_nodelay(true).map_err(Refused::Connect)?;
        match &self.tls {
            Some(tls) => http1(tls.handshake(stream).await.map_err(Refused::Tls)?).await,
            None => http1(stream).await,
        }
        .map_err(Refused::Http)
    }

    async fn exchange(&self, link: &mut Link) -> Outcome {
        if link.0.as_ref().is_none_or(|s| s.is_closed()) {
            match self.connect().await {
                Ok(sender) => link.0 = Some(sender),
                Err(Refused::Connect(_)) => return Outcome::Error(ErrorKind::Connect),
                Err(Refused::Tls(_)) => return Outcome::Error(ErrorKind::Tls),
                Err(Refused::Http(_)) => return Outcome::Error(ErrorKind::Http),
            }
        }
        let Some(sender) = link.0.as_mut() else { return Outcome::Error(ErrorKind::Connect) };
        if sender.ready().await.is_err() {
            return Outcome::Error(ErrorKind::Http);
        }
        let mut request = Request::new(Full::new(self.body.clone()));
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = self.headers.clone();
        let Ok(response) = sender.send_request(request).await else { return Outcome::Error(ErrorKind::Http) };
        let status = response.status().as_u16();
        // Read the body to its end, keeping none of it: memory stays bounded.
        let mut body = response.into_body();
        while let Some(frame) = body.frame().await {
            if frame.is_err() {
                return Outcome::Error(ErrorKind::Http);
            }
        }
        Outcome::Status(status)
    }
}

/// Every request's headers: Host and User-Agent unless the target names its
/// own, then the target's, then the body's length when there is a body.
fn headers(target: &HttpTarget, body: Option<&Bytes>) -> Result<HeaderMap, LoadError> {
    let value = |v: &str| HeaderValue::from_str(v).map_err(|_| LoadError::Input(format!("header value {v:?} is not valid")));
    let mut headers = HeaderMap::new();
    headers.insert(HOST, value(&target.authority)?);
    headers.insert(USER_AGENT, HeaderValue::from_static("brewput-load"));
    let mut given: Vec<HeaderName> = Vec::new();
    for (name, v) in &target.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| LoadError::Input(format!("header name {name:?} is not valid")))?;
        if given.contains(&name) {
            headers.append(name, value(v)?);
        } else {
            headers.insert(name.clone(), value(v)?);
            given.push(name);
        }
    }
    if let Some(body) = body {
        headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
    }
    Ok(headers)
}

async fn http1<S>(stream: S) -> Result<Sender, hyper::Error>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

/// An I/O error as words, without the OS's error number.
fn plain(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused (is the server running?)".into(),
        _ => {
            let text = e.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_lowercase()
        }
    }
}

async fn run_command(command: &str) -> Outcome {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true) // a timed-out command is killed, not left running
        .spawn();
    match child {
        Ok(mut child) => match child.wait().await {
            Ok(status) => Outcome::Exited(status.success()),
            Err(_) => Outcome::Error(ErrorKind::Spawn),
        },
        Err(_) => Outcome::Error(ErrorKind::Spawn),
    }
}
