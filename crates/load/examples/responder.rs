//! The benchmark's responder (bench/load_peers.py): the least an HTTP/1.1
//! keep-alive server can do, so that the load generators, not the server, are
//! what the benchmark measures. Every request (a head without a body, as
//! every generator there sends) gets the same canned `200 ok`, pipelined or
//! not; `GET /count` answers how many requests were answered so far, for
//! requests per second over a window. One thread, so `taskset -c 1` pins it
//! whole.
//!
//! `cargo run --release -p brewput-load --example responder [-- PORT]`
//! prints the port it listens on (on 127.0.0.1; 0 or none: any free port).

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nok\n";
const END_OF_HEAD: &[u8] = b"\r\n\r\n";
const COUNT_PATH: &[u8] = b"GET /count ";
/// A head longer than this is not a request this responder answers.
const MOST_HEAD: usize = 64 * 1024;

static ANSWERED: AtomicU64 = AtomicU64::new(0);

fn main() -> std::io::Result<()> {
    let port: u16 = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|_| std::io::Error::other(format!("port: not a port number: {text}")))?,
        None => 0,
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        println!("{}", listener.local_addr()?.port());
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(answer(stream));
        }
    })
}

/// Answers every complete head in what was read, in one write per read.
async fn answer(mut stream: TcpStream) {
    let mut input = Vec::with_capacity(16 * 1024);
    let mut output = Vec::with_capacity(16 * 1024);
    loop {
        let mut chunk = [0u8; 16 * 1024];
        let read = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        input.extend_from_slice(&chunk[..read]);
        let mut consumed = 0;
        while let Some(at) = find(&input[consumed..], END_OF_HEAD) {
            let head = &input[consumed..consumed + at];
            if head.starts_with(COUNT_PATH) {
                let count = ANSWERED.load(Ordering::Relaxed).to_string();
                output.extend_from_slice(format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", count.len()).as_bytes());
                output.extend_from_slice(count.as_bytes());
            } else {
                output.extend_from_slice(OK);
                ANSWERED.fetch_add(1, Ordering::Relaxed);
            }
            consumed += at + END_OF_HEAD.len();
        }
        input.drain(..consumed);
        if input.len() > MOST_HEAD || stream.write_all(&output).await.is_err() {
            return;
        }
        output.clear();
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
