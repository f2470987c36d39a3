//! What one request is: an HTTP/1.1 exchange on a kept-alive connection (over
//! TLS for https), or a command run to its exit. Each returns what happened;
//! the generator decides what follows (timing, recording, reconnecting).

use std::io;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use hyper::header::{HeaderName, HeaderValue, CONTENT_LENGTH, HOST, TRANSFER_ENCODING, USER_AGENT};
use hyper::{Method, Uri};
use serde::Deserialize;
use tokio::net::TcpStream;

use crate::error::LoadError;
use crate::files::read_bounded;
use crate::http1::{Connection, Request};
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
    request: Request,
}

/// One worker's hold on the target: its connection, when HTTP.
#[derive(Default)]
pub(crate) struct Link(Option<Connection>);

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
            Some(path) => {
                Some(read_bounded(path, MAX_BODY_BYTES).map_err(|why| LoadError::Input(format!("--body {path}: {why}")))?)
            }
            None => None,
        };
        let method = Method::from_bytes(target.method.as_bytes())
            .map_err(|_| LoadError::Input(format!("method {:?} is not an HTTP method", target.method)))?;
        if target.path.parse::<Uri>().is_err() {
            return Err(LoadError::Input(format!("{:?} is not a request path", target.path)));
        }
        let headers = headers(target)?;
        let fields: Vec<(&str, &[u8])> = headers.iter().map(|(name, value)| (name.as_str(), value.as_bytes())).collect();
        let http = Http {
            addr,
            tls: target.tls.as_ref().map(|settings| Tls::new(settings, host)).transpose()?,
            request: Request::new(method.as_str(), &target.path, &fields, body.as_deref()),
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
            Err(_) => Err(unreachable("no answer to the connection attempt".into())),
        }
    }

    async fn connect(&self) -> Result<Connection, Refused> {
        let stream = TcpStream::connect(self.addr).await.map_err(Refused::Connect)?;
        stream.set_nodelay(true).map_err(Refused::Connect)?;
        Ok(Connection::new(match &self.tls {
            Some(tls) => Box::new(tls.handshake(stream).await.map_err(Refused::Tls)?),
            None => Box::new(stream),
        }))
    }

    async fn exchange(&self, link: &mut Link) -> Outcome {
        // A kept-alive connection the server closed while idle is found out
        // only by sending on it: an idempotent request then goes again, once,
        // on a new connection (its time includes both).
        let mut retried = false;
        loop {
            let connection = match &mut link.0 {
                Some(connection) => connection,
                None => match self.connect().await {
                    Ok(connection) => link.0.insert(connection),
                    Err(Refused::Connect(_)) => return Outcome::Error(ErrorKind::Connect),
                    Err(Refused::Tls(_)) => return Outcome::Error(ErrorKind::Tls),
                },
            };
            match connection.exchange(&self.request).await {
                Ok(answer) => {
                    if !answer.reusable {
                        link.reset();
                    }
                    return Outcome::Status(answer.status);
                }
                Err(broken) => {
                    link.reset();
                    if retried || !Connection::retry_allowed(&broken, &self.request) {
                        return Outcome::Error(ErrorKind::Http);
                    }
                    retried = true;
                }
            }
        }
    }
}

/// Every request's header fields, checked: Host and User-Agent unless the
/// target names its own, then the target's, in order (a name given twice is
/// sent twice). The body's length is the request's own to set.
fn headers(target: &HttpTarget) -> Result<Vec<(HeaderName, HeaderValue)>, LoadError> {
    let value = |v: &str| HeaderValue::from_str(v).map_err(|_| LoadError::Input(format!("header value {v:?} is not valid")));
    let mut given = Vec::with_capacity(target.headers.len() + 2);
    for (name, v) in &target.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| LoadError::Input(format!("header name {name:?} is not valid")))?;
        if name == CONTENT_LENGTH || name == TRANSFER_ENCODING {
            return Err(LoadError::Input(format!("header {name} is set from the body, not given")));
        }
        given.push((name, value(v)?));
    }
    let mut fields = Vec::with_capacity(given.len() + 2);
    if !given.iter().any(|(name, _)| name == HOST) {
        fields.push((HOST, value(&target.authority)?));
    }
    if !given.iter().any(|(name, _)| name == USER_AGENT) {
        fields.push((USER_AGENT, HeaderValue::from_static("brewput-load")));
    }
    fields.extend(given);
    Ok(fields)
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
    let mut shell = tokio::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true); // a timed-out command is killed, not left running
    #[cfg(unix)]
    shell.process_group(0); // with its children: see Group
    match shell.spawn() {
        Ok(mut child) => {
            let mut group = Group::of(&child);
            match child.wait().await {
                Ok(status) => {
                    group.exited();
                    Outcome::Exited(status.success())
                }
                Err(_) => Outcome::Error(ErrorKind::Spawn),
            }
        }
        Err(_) => Outcome::Error(ErrorKind::Spawn),
    }
}

/// The process group of a command that has not exited yet: dropped unexited (a
/// timeout, the run cancelled), it kills the whole group. kill_on_drop ends only
/// the shell, and `sh -c 'sleep 60; true'` runs sleep as the shell's child, which
/// would run on under init. Once the command has exited its group id is left
/// alone: it may be reused.
struct Group(Option<i32>);

impl Group {
    fn of(child: &tokio::process::Child) -> Self {
        Group(child.id().and_then(|pid| i32::try_from(pid).ok()))
    }

    fn exited(&mut self) {
        self.0 = None;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(group) = self.0 {
            // SAFETY: killpg takes plain integers; at worst the group is already gone (ESRCH).
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
    }
}
