//! A small, bounded HTTP/1.1 server for `serve --http`: it owns the listening socket, the
//! connection limit, the time limits on a request's head and on an idle keep-alive
//! connection, and the reading of request heads and writing of responses. What a request
//! means is the caller's handler (`serve`).
//!
//! Each open connection has one thread with a small stack, and there are at most
//! `max_connections` of them. When all are taken, a new connection takes the place of the
//! one that has waited longest for a request head (silent, idle or sending a head byte by
//! byte), if it has waited at least [`EVICT_AFTER`]: a flood of slow clients cannot shut out
//! a visitor whose request arrives whole. With no such connection, it gets a 503 at once and
//! is closed. A connection must send a complete request head within `header_timeout` of its
//! first byte (and its first request within `header_timeout` of being accepted); between
//! requests it may stay idle for `idle_timeout`. Only the head is read: a request with a
//! body is answered and the connection closed.

use fourfold::service::{Failure, FailureKind, Response};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest request head (request line and headers) read; longer ones get a 431.
const MAX_HEAD: usize = 8192;

/// The stack of a connection thread: it parses a head, waits for a worker and writes JSON.
const CONNECTION_STACK: usize = 128 * 1024;

/// The bounds of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// The time a request's head may take to arrive, from its first byte (for the first
    /// request of a connection: from the accept).
    pub header_timeout: Duration,
    /// The time a keep-alive connection may wait for its next request.
    pub idle_timeout: Duration,
}

/// A request's head, as the handler sees it.
pub struct Head {
    /// `GET`, `HEAD`, `POST`, ...
    pub method: String,
    /// The request target: path and query.
    pub target: String,
}

/// A response: status, extra headers (`Content-Length` and `Connection` are added) and body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type", content_type.to_string())],
            body: body.into(),
        }
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// An error reply, the one shape of every error the server answers, the handler's
/// (`serve`) and the transport's: the service's JSON (`{"id":null,"error":{"kind":..,
/// "message":..}}`), `status` (the kind's own, [`FailureKind::status`], but for the
/// transport's 408 and 431), never cached, with the extra `headers` given (`Allow`,
/// `Retry-After`).
pub fn error_reply(
    status: u16,
    kind: FailureKind,
    message: &str,
    headers: &[(&'static str, &str)],
) -> Reply {
    let body = Response::failure(serde_json::Value::Null, Failure::new(kind, message));
    let reply = Reply::new(status, "application/json", body.to_json())
        .with_header("Cache-Control", "no-store");
    headers
        .iter()
        .fold(reply, |r, &(name, value)| r.with_header(name, value))
}

/// Writes the [`error_reply`] of `(status, kind, message, headers)` on a connection that is
/// closed after it (no keep-alive).
fn write_error(
    s: &mut TcpStream,
    status: u16,
    kind: FailureKind,
    message: &str,
    headers: &[(&'static str, &str)],
) -> io::Result<()> {
    let reply = error_reply(status, kind, message, headers);
    write_reply(s, &reply, false, false)
}

/// Writes `reply`; `head_only` leaves the body out (HEAD), `keep` says keep-alive.
fn write_reply(s: &mut TcpStream, reply: &Reply, head_only: bool, keep: bool) -> io::Result<()> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: {}\r\n\r\n",
        reply.body.len(),
        if keep { "keep-alive" } else { "close" }
    ));
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&reply.body);
    }
    // One write (no Nagle wait on a response split across writes).
    s.write_all(&bytes)?;
    s.flush()
}

/// How long a refused connection is drained before it is closed.
const LINGER: Duration = Duration::from_millis(500);

/// Refused connections waiting to be drained; more are closed at once.
const LINGER_QUEUE: usize = 4096;

/// Reads and drops what refused (non-blocking) sockets send until they close or their time
/// is up, so that they end with a FIN after the 503 rather than a reset.
fn drain(rx: std::sync::mpsc::Receiver<(TcpStream, Instant)>) {
    let mut held: Vec<(TcpStream, Instant)> = Vec::new();
    let mut sink = [0u8; 2048];
    loop {
        let next = if held.is_empty() {
            rx.recv().ok()
        } else {
            rx.recv_timeout(Duration::from_millis(20)).ok()
        };
        if let Some(s) = next {
            held.push(s);
        } else if held.is_empty() {
            return;
        }
        while let Ok(s) = rx.try_recv() {
            held.push(s);
        }
        let now = Instant::now();
        held.retain_mut(|(s, until)| {
            if now >= *until {
                return false;
            }
            loop {
                match s.read(&mut sink) {
                    Ok(0) => return false,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return false,
                }
            }
        });
    }
}

/// A connection waiting this long for a request head may be closed to make room for a new
/// one when every place is taken.
pub const EVICT_AFTER: Duration = Duration::from_millis(200);

/// The connections waiting for a request head, by (since when, id), each with a handle on
/// its socket: the acceptor closes the one waiting longest to make room.
#[derive(Default)]
struct Waiting {
    next_id: u64,
    by_age: BTreeMap<(Instant, u64), Arc<TcpStream>>,
}

type Waiters = Arc<Mutex<Waiting>>;

fn lock(w: &Waiters) -> std::sync::MutexGuard<'_, Waiting> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

impl Waiting {
    /// Closes the connection waiting longest for a head, if it has waited `EVICT_AFTER`.
    fn evict_oldest(&mut self) -> bool {
        let Some(entry) = self.by_age.first_entry() else {
            return false;
        };
        if entry.key().0.elapsed() < EVICT_AFTER {
            return false;
        }
        // Its thread's read ends (0 bytes or an error) and the thread returns.
        let _ = entry.remove().shutdown(std::net::Shutdown::Both);
        true
    }
}

/// Counts a connection as open until dropped.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        // ORDERING: a count only; nothing else is published through it, and the acceptor
        // reads it only to decide whether to take one more connection.
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Accepts connections on `listener` forever, each on its own thread (at most
/// `limits.max_connections`), handing every request head to `handler`.
pub fn serve<F>(listener: TcpListener, limits: Limits, handler: Arc<F>)
where
    F: Fn(&Head) -> Reply + Send + Sync + 'static,
{
    let open = Arc::new(AtomicUsize::new(0));
    let waiting: Waiters = Arc::default();
    let (linger, lingering) = std::sync::mpsc::sync_channel(LINGER_QUEUE);
    let _ = std::thread::Builder::new()
        .name("fourfold-http-linger".into())
        .stack_size(CONNECTION_STACK)
        .spawn(move || drain(lingering));
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(s) => s,
            Err(_) => {
                // Out of file descriptors or a connection reset before the accept: wait a
                // little instead of spinning.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        // ORDERING: see `Slot`; only this thread increments, so the check cannot be raced
        // past the limit.
        if open.load(Ordering::Relaxed) >= limits.max_connections && lock(&waiting).evict_oldest() {
            // Wait (briefly) for the closed connection's thread to give its place back.
            let until = Instant::now() + Duration::from_millis(100);
            while open.load(Ordering::Relaxed) >= limits.max_connections && Instant::now() < until {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        if open.load(Ordering::Relaxed) >= limits.max_connections {
            // Never block the acceptor on a client: the 503 goes out if the socket takes it.
            let _ = stream.set_nonblocking(true);
            let msg = format!(
                "too many open connections (at most {}); try again later",
                limits.max_connections
            );
            let busy = FailureKind::Busy;
            let _ = write_error(&mut stream, 503, busy, &msg, &[("Retry-After", "1")]);
            let _ = stream.shutdown(std::net::Shutdown::Write);
            // Closed at once, a socket whose request is unread would be reset and the 503
            // lost: the lingering thread drains it a little first.
            let _ = linger.try_send((stream, Instant::now() + LINGER));
            continue;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let slot = Slot(Arc::clone(&open));
        let handler = Arc::clone(&handler);
        let waiting = Arc::clone(&waiting);
        let spawned = std::thread::Builder::new()
            .name("fourfold-http".into())
            .stack_size(CONNECTION_STACK)
            .spawn(move || {
                let _slot = slot;
                connection(stream, limits, &*handler, &waiting);
            });
        if spawned.is_err() {
            // The thread was not made; its closure (and the slot) is already dropped.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Where the head ends (the index after its blank line), accepting bare `\n` line ends.
fn head_end(buf: &[u8]) -> Option<usize> {
    (0..buf.len()).find_map(|i| {
        if buf[i] != b'\n' {
            None
        } else if buf.get(i + 1) == Some(&b'\n') {
            Some(i + 2)
        } else if buf.get(i + 1..i + 3) == Some(b"\r\n") {
            Some(i + 3)
        } else {
            None
        }
    })
}

enum ReadHead {
    Head(Vec<u8>),
    /// The peer closed, or stayed idle past the idle limit before a first byte.
    Closed,
    /// Part of a head arrived, but not all of it in time.
    TimedOut,
    TooLarge,
}

/// Reads one head into `buf` (which may hold bytes already read): waits until `idle` for a
/// first byte, then `header_timeout` from it (or from `started`, if given) for the rest.
fn read_head(
    s: &mut TcpStream,
    buf: &mut Vec<u8>,
    idle: Instant,
    started: Option<Instant>,
    header_timeout: Duration,
) -> ReadHead {
    let mut deadline = match (buf.is_empty(), started) {
        (_, Some(t)) => t + header_timeout,
        (true, None) => idle,
        (false, None) => Instant::now() + header_timeout,
    };
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = head_end(buf) {
            let rest = buf.split_off(end);
            return ReadHead::Head(std::mem::replace(buf, rest));
        }
        if buf.len() > MAX_HEAD {
            return ReadHead::TooLarge;
        }
        let now = Instant::now();
        let Some(left) = deadline
            .checked_duration_since(now)
            .filter(|d| !d.is_zero())
        else {
            return if buf.is_empty() {
                ReadHead::Closed
            } else {
                ReadHead::TimedOut
            };
        };
        if s.set_read_timeout(Some(left)).is_err() {
            return ReadHead::Closed;
        }
        match s.read(&mut chunk) {
            Ok(0) => return ReadHead::Closed,
            Ok(n) => {
                if buf.is_empty() && started.is_none() {
                    deadline = now + header_timeout;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return ReadHead::Closed,
        }
    }
}

/// What the head says beyond method and target: keep the connection open afterwards?
fn parse(head: &[u8]) -> Result<(Head, bool), String> {
    let text = std::str::from_utf8(head).map_err(|_| "request head is not UTF-8".to_string())?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("bad request line {line:?}"));
    };
    let mut keep = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(format!("unsupported HTTP version {version:?}")),
    };
    if method.is_empty() || !target.starts_with('/') {
        return Err(format!("bad request line {line:?}"));
    }
    for l in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = l.split_once(':') else {
            return Err(format!("bad header line {l:?}"));
        };
        let value = value.trim().to_ascii_lowercase();
        match name.trim().to_ascii_lowercase().as_str() {
            "connection" if value.contains("close") => keep = false,
            "connection" if value.contains("keep-alive") => keep = true,
            // A body is not read: answer, then close rather than read it as a request.
            "content-length" if value != "0" => keep = false,
            "transfer-encoding" => keep = false,
            _ => {}
        }
    }
    let head = Head {
        method: method.to_string(),
        target: target.to_string(),
    };
    Ok((head, keep))
}

/// Serves one connection's requests in order until it closes, times out, asks to close or
/// is closed by the acceptor to make room (while waiting for a head).
fn connection(
    mut s: TcpStream,
    limits: Limits,
    handler: &dyn Fn(&Head) -> Reply,
    waiting: &Waiters,
) {
    let _ = s.set_nodelay(true);
    // A client that does not read its answer does not hold the thread for ever.
    let _ = s.set_write_timeout(Some(limits.idle_timeout.max(limits.header_timeout)));
    // Without a second handle the connection cannot be made room for; it still has its
    // time limits.
    let handle = s.try_clone().ok().map(Arc::new);
    let mut buf = Vec::new();
    let mut first = Some(Instant::now());
    loop {
        let idle = Instant::now() + limits.idle_timeout;
        let key = handle.as_ref().map(|h| {
            let mut w = lock(waiting);
            let key = (Instant::now(), w.next_id);
            w.next_id += 1;
            w.by_age.insert(key, Arc::clone(h));
            key
        });
        let read = read_head(&mut s, &mut buf, idle, first.take(), limits.header_timeout);
        // Gone from the list: the acceptor closed this connection to make room.
        if key.is_some_and(|k| lock(waiting).by_age.remove(&k).is_none()) {
            return;
        }
        let raw = match read {
            ReadHead::Head(h) => h,
            ReadHead::Closed => return,
            ReadHead::TimedOut => {
                let msg = format!(
                    "request head not complete within {} s",
                    limits.header_timeout.as_secs_f64()
                );
                let _ = write_error(&mut s, 408, FailureKind::BadRequest, &msg, &[]);
                return;
            }
            ReadHead::TooLarge => {
                let msg = format!("request head longer than {MAX_HEAD} bytes");
                let _ = write_error(&mut s, 431, FailureKind::BadRequest, &msg, &[]);
                return;
            }
        };
        let (head, keep) = match parse(&raw) {
            Ok(h) => h,
            Err(msg) => {
                let _ = write_error(&mut s, 400, FailureKind::BadRequest, &msg, &[]);
                return;
            }
        };
        let reply = handler(&head);
        if write_reply(&mut s, &reply, head.method == "HEAD", keep).is_err() || !keep {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_end_at_a_blank_line_and_parse() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nrest"), Some(24));
        assert_eq!(head_end(b"GET / HTTP/1.1\n\nrest"), Some(16));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
        let (h, keep) = parse(b"GET /api/solve?pos=4 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!(
            (h.method.as_str(), h.target.as_str(), keep),
            ("GET", "/api/solve?pos=4", true)
        );
        let (_, keep) = parse(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
        assert!(!keep);
        let (_, keep) = parse(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        assert!(!keep);
        let (_, keep) = parse(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n").unwrap();
        assert!(!keep);
        for bad in [
            &b"GET /\r\n\r\n"[..],
            b"GET / HTTP/2\r\n\r\n",
            b"GET x HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\nnocolon\r\n\r\n",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn error_replies_have_the_services_shape_and_the_headers_given() {
        let r = error_reply(
            431,
            FailureKind::BadRequest,
            "head too long",
            &[("Allow", "GET, HEAD"), ("Retry-After", "1")],
        );
        assert_eq!(r.status, 431);
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["kind"], "bad_request");
        assert_eq!(v["error"]["message"], "head too long");
        for (name, value) in [
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
            ("Allow", "GET, HEAD"),
            ("Retry-After", "1"),
        ] {
            assert!(r.headers.contains(&(name, value.to_string())), "{name}");
        }
    }
}
