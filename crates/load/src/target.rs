//! What one request is: an HTTP/1.1 exchange on a kept-alive connection, or a
//! command run to its exit. Each returns what happened; the generator decides
//! what follows (timing, recording, reconnecting).

use std::io;
use std::net::SocketAddr;
use std::process::Stdio;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::SendRequest;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use crate::record::{ErrorKind, Outcome};

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// `GET path` (or `method`) on `host:port`; `authority` is the Host header.
    Http { host: String, port: u16, authority: String, path: String, method: String },
    /// A shell command line, run by `sh -c` per request.
    Exec { command: String },
}

/// A target with its address resolved.
pub(crate) enum Resolved {
    Http { addr: SocketAddr, authority: String, path: String, method: hyper::Method },
    Exec { command: String },
}

/// One worker's hold on the target: its connection, when HTTP.
#[derive(Default)]
pub(crate) struct Link(Option<SendRequest<Empty<Bytes>>>);

impl Link {
    /// Forgets the connection (after a timeout or a broken exchange).
    pub fn reset(&mut self) {
        self.0 = None;
    }
}

impl Resolved {
    pub async fn attempt(&self, link: &mut Link) -> Outcome {
        match self {
            Resolved::Http { addr, authority, path, method } => {
                let outcome = exchange(*addr, authority, path, method, link).await;
                if matches!(outcome, Outcome::Error(_)) {
                    link.reset();
                }
                outcome
            }
            Resolved::Exec { command } => run_command(command).await,
        }
    }
}

pub(crate) async fn connect(addr: SocketAddr) -> io::Result<SendRequest<Empty<Bytes>>> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
    tokio::spawn(connection);
    Ok(sender)
}

async fn exchange(addr: SocketAddr, authority: &str, path: &str, method: &hyper::Method, link: &mut Link) -> Outcome {
    if link.0.as_ref().is_none_or(|s| s.is_closed()) {
        match connect(addr).await {
            Ok(sender) => link.0 = Some(sender),
            Err(_) => return Outcome::Error(ErrorKind::Connect),
        }
    }
    let Some(sender) = link.0.as_mut() else { return Outcome::Error(ErrorKind::Connect) };
    if sender.ready().await.is_err() {
        return Outcome::Error(ErrorKind::Http);
    }
    let request = Request::builder()
        .method(method.clone())
        .uri(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::USER_AGENT, "brewput-load")
        .body(Empty::<Bytes>::new());
    let Ok(request) = request else { return Outcome::Error(ErrorKind::Http) };
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
