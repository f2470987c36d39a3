//! One HTTP/1.1 exchange at a time on a kept-alive connection, the client side.
//!
//! Written here rather than taken from hyper's client because of what a request
//! costs there: hyper drives each connection from a task of its own, fed
//! through a channel and answering through another, so every request is two
//! task hand-offs and a request and a response (with their header maps) built
//! and dropped. Here the request's bytes are laid out once for the whole run
//! and the request's own future writes them and reads the answer: at 100,000
//! requests/s on one core that is the difference between falling behind and
//! holding the rate (bench/RESULTS.md, "Load generator"). The answer's head is
//! parsed by httparse, hyper's own parser; its body is read to its end by the
//! rules of RFC 9112 section 6 and kept nowhere.

use std::io;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A byte stream a connection runs on: TCP, or TLS over TCP.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// Most bytes of an answer's head (status line and headers), and of a chunk's
/// size line or trailers: past this the answer is refused, not buffered.
const MOST_HEAD_BYTES: usize = 64 * 1024;
/// Most header lines in a head.
const MOST_HEADERS: usize = 100;
/// Bytes asked of the stream per read.
const READ_BYTES: usize = 16 * 1024;

/// A request as it goes on the wire, laid out once.
#[derive(Clone)]
pub(crate) struct Request {
    bytes: Bytes,
    /// HEAD: the answer has a head only, whatever its headers say.
    head_only: bool,
    /// Safe to send again on a new connection when a kept-alive one turns out
    /// to have been closed by the server before it answered (RFC 9110 9.2.2).
    idempotent: bool,
}

impl Request {
    /// `method target HTTP/1.1`, the headers (each `(name, value)`, already
    /// checked to be valid), then `body`, with its length when there is one.
    pub fn new(method: &str, target: &str, headers: &[(&str, &[u8])], body: Option<&[u8]>) -> Request {
        let mut bytes = Vec::with_capacity(256 + body.map_or(0, <[u8]>::len));
        bytes.extend_from_slice(format!("{method} {target} HTTP/1.1\r\n").as_bytes());
        for (name, value) in headers {
            bytes.extend_from_slice(name.as_bytes());
            bytes.extend_from_slice(b": ");
            bytes.extend_from_slice(value);
            bytes.extend_from_slice(b"\r\n");
        }
        match body {
            Some(body) => bytes.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes()),
            // A server may refuse a POST without a length (411) rather than read to the close.
            None if matches!(method, "POST" | "PUT" | "PATCH") => bytes.extend_from_slice(b"content-length: 0\r\n\r\n"),
            None => bytes.extend_from_slice(b"\r\n"),
        }
        if let Some(body) = body {
            bytes.extend_from_slice(body);
        }
        Request {
            bytes: Bytes::from(bytes),
            head_only: method == "HEAD",
            idempotent: matches!(method, "GET" | "HEAD" | "PUT" | "DELETE" | "OPTIONS" | "TRACE"),
        }
    }
}

/// What an exchange got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Answer {
    pub status: u16,
    /// The connection may carry the next request.
    pub reusable: bool,
}

/// Why an exchange gave no answer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Broken {
    /// The server closed a kept-alive connection before any byte of the
    /// answer: the request may not have been seen at all.
    ClosedUnanswered,
    /// The stream failed or ended mid-answer, or the answer is not HTTP/1.x.
    Failed,
}

/// Once the answer has begun, any failure of the stream breaks it.
impl From<io::Error> for Broken {
    fn from(_: io::Error) -> Broken {
        Broken::Failed
    }
}

/// A connection and the bytes read from it that the last answer did not use.
pub(crate) struct Connection {
    stream: Box<dyn Stream>,
    unread: BytesMut,
    /// It has carried a request before: a close before the answer is then the
    /// server ending an idle connection, not a refusal of this request.
    used: bool,
}

impl Connection {
    pub fn new(stream: Box<dyn Stream>) -> Connection {
        Connection { stream, unread: BytesMut::with_capacity(READ_BYTES), used: false }
    }

    /// Sends `request` and reads its answer to the end.
    pub async fn exchange(&mut self, request: &Request) -> Result<Answer, Broken> {
        // A kept-alive connection the server has closed fails the write or
        // ends (or is reset) before the answer's first byte.
        let unanswered = if self.used { Broken::ClosedUnanswered } else { Broken::Failed };
        self.used = true;
        if self.stream.write_all(&request.bytes).await.is_err() || self.stream.flush().await.is_err() {
            return Err(unanswered);
        }
        let mut interim = false;
        let head = loop {
            let head = match self.read_head().await {
                Err(Broken::ClosedUnanswered) if !interim => Err(unanswered),
                Err(_) => Err(Broken::Failed),
                Ok(head) => Ok(head),
            }?;
            // 1xx answers (100 Continue, 103 Early Hints) come before the real one.
            if !(100..200).contains(&head.status) || head.status == 101 {
                break head;
            }
            interim = true;
        };
        if head.status == 101 {
            return Err(Broken::Failed); // no upgrade was asked for
        }
        let framing = if request.head_only || head.status == 204 || head.status == 304 {
            Framing::None
        } else {
            head.framing
        };
        match framing {
            Framing::None => {}
            Framing::Length(length) => self.skip(length).await?,
            Framing::Chunked => self.skip_chunks().await?,
            Framing::UntilClose => self.skip_to_close().await?,
        }
        Ok(Answer { status: head.status, reusable: head.keep_alive && framing != Framing::UntilClose })
    }

    /// True when a failed `exchange` may be tried again with `request` on a
    /// new connection.
    pub fn retry_allowed(broken: &Broken, request: &Request) -> bool {
        matches!(broken, Broken::ClosedUnanswered) && request.idempotent
    }

    /// Reads more bytes into `unread`; false at the end of the stream.
    async fn fill(&mut self) -> io::Result<bool> {
        self.unread.reserve(READ_BYTES);
        Ok(self.stream.read_buf(&mut self.unread).await? > 0)
    }

    /// The next head; `ClosedUnanswered` when the stream ends or fails before
    /// its first byte.
    async fn read_head(&mut self) -> Result<Head, Broken> {
        let mut nothing_yet = true;
        loop {
            if !self.unread.is_empty() {
                nothing_yet = false;
                if let Some((length, head)) = Head::parse(&self.unread)? {
                    self.unread.advance(length);
                    return Ok(head);
                }
                if self.unread.len() > MOST_HEAD_BYTES {
                    return Err(Broken::Failed);
                }
            }
            if !matches!(self.fill().await, Ok(true)) {
                return Err(if nothing_yet { Broken::ClosedUnanswered } else { Broken::Failed });
            }
        }
    }

    /// Consumes `length` bytes of body.
    async fn skip(&mut self, mut length: u64) -> Result<(), Broken> {
        loop {
            let here = (self.unread.len() as u64).min(length);
            self.unread.advance(here as usize);
            length -= here;
            if length == 0 {
                return Ok(());
            }
            if !self.fill().await? {
                return Err(Broken::Failed);
            }
        }
    }

    /// Consumes a chunked body: chunks, the last (empty) chunk and its trailers.
    async fn skip_chunks(&mut self) -> Result<(), Broken> {
        loop {
            let size = loop {
                match httparse::parse_chunk_size(&self.unread).map_err(|_| Broken::Failed)? {
                    httparse::Status::Complete((length, size)) => {
                        self.unread.advance(length);
                        break size;
                    }
                    httparse::Status::Partial if self.unread.len() > MOST_HEAD_BYTES => return Err(Broken::Failed),
                    httparse::Status::Partial => {
                        if !self.fill().await? {
                            return Err(Broken::Failed);
                        }
                    }
                }
            };
            if size == 0 {
                return self.skip_trailers().await;
            }
            self.skip(size).await?;
            self.expect_line_end().await?;
        }
    }

    /// The trailer section after the last chunk: header lines, then an empty line.
    async fn skip_trailers(&mut self) -> Result<(), Broken> {
        loop {
            let mut fields = [httparse::EMPTY_HEADER; MOST_HEADERS];
            match httparse::parse_headers(&self.unread, &mut fields).map_err(|_| Broken::Failed)? {
                httparse::Status::Complete((length, _)) => {
                    self.unread.advance(length);
                    return Ok(());
                }
                httparse::Status::Partial if self.unread.len() > MOST_HEAD_BYTES => return Err(Broken::Failed),
                httparse::Status::Partial => {
                    if !self.fill().await? {
                        return Err(Broken::Failed);
                    }
                }
            }
        }
    }

    /// The CRLF that ends a chunk's data.
    async fn expect_line_end(&mut self) -> Result<(), Broken> {
        while self.unread.len() < 2 {
            if !self.fill().await? {
                return Err(Broken::Failed);
            }
        }
        if &self.unread[..2] != b"\r\n" {
            return Err(Broken::Failed);
        }
        self.unread.advance(2);
        Ok(())
    }

    async fn skip_to_close(&mut self) -> Result<(), Broken> {
        loop {
            self.unread.clear();
            match self.fill().await {
                Ok(true) => {}
                Ok(false) => return Ok(()),
                // A TLS server that closes without close_notify ends such a body
                // as surely as a TCP close: the body had no other end to reach.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(_) => return Err(Broken::Failed),
            }
        }
    }
}

/// How an answer's body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
    UntilClose,
}

struct Head {
    status: u16,
    framing: Framing,
    keep_alive: bool,
}

impl Head {
    /// The head at the start of `bytes` and its length, or none yet.
    fn parse(bytes: &[u8]) -> Result<Option<(usize, Head)>, Broken> {
        let mut fields = [httparse::EMPTY_HEADER; MOST_HEADERS];
        let mut response = httparse::Response::new(&mut fields);
        let length = match response.parse(bytes).map_err(|_| Broken::Failed)? {
            httparse::Status::Complete(length) => length,
            httparse::Status::Partial => return Ok(None),
        };
        let (Some(version), Some(status)) = (response.version, response.code) else { return Err(Broken::Failed) };
        // HTTP/1.1 keeps the connection unless told to close; 1.0 closes unless told to keep it.
        let mut keep_alive = version == 1;
        let mut framing = Framing::UntilClose;
        let mut length_seen: Option<u64> = None;
        for field in response.headers.iter() {
            if field.name.eq_ignore_ascii_case("transfer-encoding") {
                // Chunked must be the last coding; any other coding ends at the close.
                let last = field.value.rsplit(|&b| b == b',').next().unwrap_or_default();
                framing = if last.trim_ascii().eq_ignore_ascii_case(b"chunked") { Framing::Chunked } else { Framing::UntilClose };
                keep_alive &= framing == Framing::Chunked;
                length_seen = None;
            } else if field.name.eq_ignore_ascii_case("content-length") && framing != Framing::Chunked {
                let value = std::str::from_utf8(field.value).ok().and_then(|v| v.trim().parse::<u64>().ok());
                match (value, length_seen) {
                    (None, _) => return Err(Broken::Failed),
                    (Some(new), Some(old)) if new != old => return Err(Broken::Failed),
                    (Some(new), _) => length_seen = Some(new),
                }
            } else if field.name.eq_ignore_ascii_case("connection") {
                for option in field.value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                    if option.eq_ignore_ascii_case(b"close") {
                        keep_alive = false;
                    } else if option.eq_ignore_ascii_case(b"keep-alive") && version == 0 {
                        keep_alive = true;
                    }
                }
            }
        }
        if let (Some(length), false) = (length_seen, framing == Framing::Chunked) {
            framing = Framing::Length(length);
        }
        Ok(Some((length, Head { status, framing, keep_alive })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::{TcpListener, TcpStream};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// A server on loopback that reads each request's head and answers it with
    /// the next of `answers` (written in pieces of `piece` bytes, to split
    /// heads and chunks across reads), closing after the last. Returns the
    /// client's connection and the requests the server saw.
    async fn against(answers: Vec<&'static [u8]>, piece: usize) -> (Connection, tokio::task::JoinHandle<Vec<Vec<u8>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            for answer in answers {
                let mut request = Vec::new();
                while !request.ends_with(b"\r\n\r\n") {
                    let mut byte = [0u8; 1];
                    if socket.read(&mut byte).await.unwrap() == 0 {
                        return seen;
                    }
                    request.push(byte[0]);
                }
                seen.push(request);
                for part in answer.chunks(piece) {
                    // The client may hang up on an answer it refuses.
                    if socket.write_all(part).await.is_err() {
                        return seen;
                    }
                    tokio::task::yield_now().await;
                }
            }
            seen
        });
        let stream = TcpStream::connect(address).await.unwrap();
        (Connection::new(Box::new(stream)), server)
    }

    fn get() -> Request {
        Request::new("GET", "/", &[("host", b"x")], None)
    }

    /// The outcomes of `count` exchanges of `request` against `answers`, the
    /// same whether the answers arrive a byte at a time, 7 at a time or whole.
    fn exchanges(answers: Vec<&'static [u8]>, request: Request, count: usize) -> Vec<Result<Answer, String>> {
        let outcomes: Vec<_> = [1, 7, 1 << 20]
            .into_iter()
            .map(|piece| {
                runtime().block_on(async {
                    let (mut connection, server) = against(answers.clone(), piece).await;
                    let mut outcome = Vec::new();
                    for _ in 0..count {
                        outcome.push(connection.exchange(&request).await.map_err(|e| format!("{e:?}")));
                    }
                    drop(connection);
                    server.await.unwrap();
                    outcome
                })
            })
            .collect();
        assert!(outcomes.iter().all(|o| o == &outcomes[0]), "answers read differently in pieces: {outcomes:?}");
        outcomes.into_iter().next().unwrap()
    }

    const OK: Answer = Answer { status: 200, reusable: true };

    #[test]
    fn the_request_goes_out_as_laid_out() {
        let request = Request::new("POST", "/a?b=c", &[("host", b"h:1"), ("x-k", b"v")], Some(b"body"));
        assert_eq!(&request.bytes[..], &b"POST /a?b=c HTTP/1.1\r\nhost: h:1\r\nx-k: v\r\ncontent-length: 4\r\n\r\nbody"[..]);
        let empty_post = Request::new("POST", "/", &[], None);
        assert_eq!(&empty_post.bytes[..], &b"POST / HTTP/1.1\r\ncontent-length: 0\r\n\r\n"[..]);
        assert_eq!(&get().bytes[..], &b"GET / HTTP/1.1\r\nhost: x\r\n\r\n"[..]);
    }

    #[test]
    fn answers_by_length_follow_each_other_on_one_connection() {
        let answers: Vec<&[u8]> = vec![
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
            b"HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
        ];
        let got = exchanges(answers, get(), 3);
        assert_eq!(got, vec![Ok(OK), Ok(Answer { status: 503, reusable: true }), Ok(OK)]);
    }

    #[test]
    fn chunked_bodies_with_extensions_and_trailers_are_read_to_their_end() {
        let answers: Vec<&[u8]> = vec![
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n",
            b"HTTP/1.1 201 Created\r\ntransfer-encoding: gzip, chunked\r\n\r\nA\r\n0123456789\r\n0\r\nX-Sum: 9\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
        ];
        let got = exchanges(answers, get(), 3);
        assert_eq!(got, vec![Ok(OK), Ok(Answer { status: 201, reusable: true }), Ok(OK)]);
    }

    #[test]
    fn interim_answers_are_passed_over_and_bodiless_statuses_have_no_body() {
        let answers: Vec<&[u8]> = vec![
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
            // 204 and 304 end at their heads even with a length given.
            b"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
            b"HTTP/1.1 304 Not Modified\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny",
        ];
        let got = exchanges(answers, get(), 4);
        assert_eq!(got, vec![Ok(OK), Ok(Answer { status: 204, reusable: true }), Ok(Answer { status: 304, reusable: true }), Ok(OK)]);
    }

    #[test]
    fn a_head_request_reads_no_body_whatever_the_length_says() {
        let head = Request::new("HEAD", "/", &[], None);
        let answers: Vec<&[u8]> =
            vec![b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"];
        assert_eq!(exchanges(answers, head, 2), vec![Ok(OK), Ok(OK)]);
    }

    #[test]
    fn a_body_without_length_ends_at_the_close_and_the_connection_is_not_reused() {
        let answers: Vec<&[u8]> = vec![b"HTTP/1.1 200 OK\r\n\r\nuntil the end"];
        assert_eq!(exchanges(answers, get(), 1), vec![Ok(Answer { status: 200, reusable: false })]);
    }

    #[test]
    fn connection_close_and_http_1_0_say_whether_the_connection_is_kept() {
        let answers: Vec<&[u8]> = vec![b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"];
        assert_eq!(exchanges(answers, get(), 1), vec![Ok(Answer { status: 200, reusable: false })]);
        let answers: Vec<&[u8]> = vec![b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"];
        assert_eq!(exchanges(answers, get(), 1), vec![Ok(Answer { status: 200, reusable: false })]);
        let answers: Vec<&[u8]> = vec![
            b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n",
            b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
        ];
        assert_eq!(exchanges(answers, get(), 2), vec![Ok(OK), Ok(OK)]);
    }

    #[test]
    fn what_is_not_an_answer_is_a_failure() {
        for answer in [
            &b"SSH-2.0-OpenSSH_9.6\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
            b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-",
        ] {
            let got = exchanges(vec![answer], get(), 1);
            assert_eq!(got, vec![Err("Failed".to_string())], "{}", String::from_utf8_lossy(answer));
        }
    }

    #[test]
    fn a_close_before_the_answer_on_a_used_connection_may_be_retried_if_idempotent() {
        let answers: Vec<&[u8]> = vec![b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"];
        // The server answers once, then closes: the second request gets nothing.
        let got = exchanges(answers.clone(), get(), 2);
        assert_eq!(got, vec![Ok(OK), Err("ClosedUnanswered".to_string())]);
        assert!(Connection::retry_allowed(&Broken::ClosedUnanswered, &get()));
        assert!(!Connection::retry_allowed(&Broken::ClosedUnanswered, &Request::new("POST", "/", &[], None)));
        assert!(!Connection::retry_allowed(&Broken::Failed, &get()));
        // A close before the first answer of a new connection is a plain failure.
        assert_eq!(exchanges(vec![], get(), 1), vec![Err("Failed".to_string())]);
    }

    /// A stream that takes any write and reads `answer`, then fails as
    /// tokio-rustls does when the peer closed without close_notify.
    struct CutShort {
        answer: &'static [u8],
    }

    impl AsyncRead for CutShort {
        fn poll_read(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>, buf: &mut tokio::io::ReadBuf<'_>)
            -> std::task::Poll<io::Result<()>> {
            if self.answer.is_empty() {
                return std::task::Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()));
            }
            let n = self.answer.len().min(buf.remaining());
            buf.put_slice(&self.answer[..n]);
            self.answer = &self.answer[n..];
            std::task::Poll::Ready(Ok(()))
        }
    }

    impl AsyncWrite for CutShort {
        fn poll_write(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>, buf: &[u8])
            -> std::task::Poll<io::Result<usize>> {
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[test]
    fn a_close_without_close_notify_ends_a_body_that_runs_to_the_close_and_breaks_any_other() {
        let exchange = |answer: &'static [u8]| {
            runtime().block_on(async {
                Connection::new(Box::new(CutShort { answer })).exchange(&get()).await.map_err(|e| format!("{e:?}"))
            })
        };
        assert_eq!(exchange(b"HTTP/1.1 200 OK\r\n\r\nto the end"), Ok(Answer { status: 200, reusable: false }));
        assert_eq!(exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort"), Err("Failed".to_string()));
    }

    #[test]
    fn a_head_beyond_its_bound_is_refused_not_buffered() {
        let mut answer = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
        answer.resize(answer.len() + 2 * MOST_HEAD_BYTES, b'a');
        let answer: &'static [u8] = answer.leak();
        // In 4 KiB writes: a byte at a time would take seconds.
        let got = runtime().block_on(async {
            let (mut connection, server) = against(vec![answer], 4096).await;
            let got = connection.exchange(&get()).await.map_err(|e| format!("{e:?}"));
            drop(connection);
            server.await.unwrap();
            got
        });
        assert_eq!(got, Err("Failed".to_string()));
    }
}
