//! `serve`: the service front ends. JSON lines on stdin and stdout (the default), or HTTP
//! (`--http ADDR`): the JSON API under `/api/` and the web page at `/`.
//!
//! Both hand every request to [`fourfold::service::Service::handle`]; this module only
//! moves bytes: it reads lines or HTTP requests, maps query parameters to a request, writes
//! the response's JSON with its status, and holds the HTTP worker pool and its bounded
//! queue (the connections are [`crate::http`]'s). It decides no score and writes no error
//! message of its own for engine errors.

use crate::common::{all_cores, build, Common};
use crate::http::{error_reply, Head, Limits, Reply};
use clap::Args;
use fourfold::service::{Failure, FailureKind, Request, Response, Service};
use fourfold::testset::LineError;
use serde_json::Value;
use std::io::{self, Write};
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The web page, with `__BOARD__` standing for the board's `{"width":W,"height":H}`.
const PAGE: &str = include_str!("web/index.html");

/// The longest request target (path and query) answered; longer ones get a 400.
const MAX_URL: usize = 512;

#[derive(Args, Clone)]
pub struct ServeArgs {
    /// Serve HTTP on this address instead of JSON lines on stdin/stdout (`--http` alone:
    /// 127.0.0.1:8080, loopback only; port 0 picks a free port).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    http: Option<String>,
    /// Threads per solve (default: all cores for JSON lines, 1 for HTTP, where requests
    /// run side by side on the workers).
    #[arg(long, short = 't', value_name = "N")]
    threads: Option<usize>,
    /// HTTP: requests solved at the same time (default: the number of cores).
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
    /// HTTP: requests allowed to wait for a worker; more get 503 at once.
    #[arg(long, value_name = "N", default_value_t = 64)]
    queue: usize,
    /// HTTP: connections open at once (each holds a thread with a small stack); one more
    /// takes the place of the one waiting longest for a request head, or is answered 503.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_connections: usize,
    /// HTTP: seconds a request's head may take to arrive; a connection that sends part of
    /// one and stops is answered 408 and closed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    header_timeout: f64,
    /// HTTP: seconds a keep-alive connection may wait for its next request before it is
    /// closed.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    idle_timeout: f64,
    /// Stop a search after SECS seconds and answer with the bounds proven so far (for
    /// `analyze`, per column).
    #[arg(long, value_name = "SECS")]
    request_timeout: Option<f64>,
    #[command(flatten)]
    book: crate::book::BookArgs,
    #[command(flatten)]
    common: Common,
}

pub fn run(a: ServeArgs) -> Result<ExitCode, String> {
    let limit = match a.request_timeout {
        Some(s) if !(s > 0.0 && s.is_finite()) => {
            return Err(format!(
                "--request-timeout {s}: expected a positive number of seconds"
            ))
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    let threads = a
        .threads
        .unwrap_or(if a.http.is_some() { 1 } else { all_cores() });
    let mut engine = build(&a.common, None, threads, limit)?;
    crate::book::apply(&a.book, &mut engine)?;
    let service = Service::new(engine);
    match &a.http {
        None => lines(&service),
        Some(addr) => {
            let workers = a.workers.unwrap_or_else(all_cores);
            if workers == 0 {
                return Err("--workers must be at least 1".into());
            }
            if a.max_connections == 0 {
                return Err("--max-connections must be at least 1".into());
            }
            let secs = |name: &str, s: f64| {
                if s > 0.0 && s.is_finite() && s < 1e9 {
                    Ok(Duration::from_secs_f64(s))
                } else {
                    Err(format!(
                        "--{name} {s}: expected a positive number of seconds"
                    ))
                }
            };
            let limits = Limits {
                max_connections: a.max_connections,
                header_timeout: secs("header-timeout", a.header_timeout)?,
                idle_timeout: secs("idle-timeout", a.idle_timeout)?,
            };
            http(Arc::new(service), addr, workers, a.queue, limits)
        }
    }
}

/// JSON lines: one response per request line, in order, flushed after each.
fn lines(service: &Service) -> Result<ExitCode, String> {
    let mut out = io::stdout().lock();
    // Read as bytes, a line at a time (the library's reader): a line that is not UTF-8 or is
    // longer than `MAX_LINE_BYTES` gets an error response, without being held in memory, and
    // the service goes on.
    for (_, line) in fourfold::testset::lines(io::stdin().lock()) {
        let r = match line {
            Ok(l) if l.trim().is_empty() => continue,
            Ok(l) => service.handle_line(&l),
            Err(LineError::Io(e)) => return Err(format!("cannot read stdin: {e}")),
            Err(e) => failure(FailureKind::BadRequest, e.to_string()),
        };
        writeln!(out, "{}", r.to_json())
            .and_then(|_| out.flush())
            .map_err(|e| format!("cannot write stdout: {e}"))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn json_response(r: &Response) -> Reply {
    Reply::new(r.status(), "application/json", r.to_json()).with_header("Cache-Control", "no-store")
}

fn failure(kind: FailureKind, msg: impl Into<String>) -> Response {
    Response::failure(Value::Null, Failure::new(kind, msg))
}

/// [`error_reply`] with the status of `kind`.
fn error(kind: FailureKind, msg: &str, headers: &[(&'static str, &str)]) -> Reply {
    error_reply(kind.status(), kind, msg, headers)
}

/// Decodes one `application/x-www-form-urlencoded` component (`%XX` and `+`).
fn url_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s
                    .get(i + 1..i + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent escape in {s:?}"))?;
                out.push(hex);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} is not UTF-8"))
}

/// Maps `/api/<op>?pos=<moves>[&budget_ms=<ms>]` to a request; any other API path or
/// parameter, or a missing or repeated one, is a bad request.
fn api_request(path: &str, query: &str) -> Result<Request, Failure> {
    let op = path.strip_prefix("/api/").unwrap_or(path);
    let bad = |m: String| Failure::new(FailureKind::BadRequest, m);
    let mut pos = None;
    let mut budget = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = url_decode(k).map_err(bad)?;
        match k.as_str() {
            "pos" if pos.is_some() => return Err(bad("parameter pos given twice".into())),
            "pos" => pos = Some(url_decode(v).map_err(bad)?),
            "budget_ms" if budget.is_some() => {
                return Err(bad("parameter budget_ms given twice".into()))
            }
            "budget_ms" => budget = Some(url_decode(v).map_err(bad)?),
            _ => {
                return Err(bad(format!(
                    "unknown parameter {k:?}; expected pos and, for analyze, budget_ms"
                )))
            }
        }
    }
    let mut req = Request::new(op, "")?;
    req.position = pos.ok_or_else(|| {
        bad(format!(
            "missing parameter pos (the move string, for example /api/{op}?pos=4453)"
        ))
    })?;
    match budget {
        None => Ok(req),
        // A number the JSON way, so that both front ends give the same error for bad input.
        Some(b) => req.with_budget_ms(&b.parse::<u64>().map_or(Value::String(b), Value::from)),
    }
}

/// What a request costs: answered at once by the connection's thread (page, errors), or a
/// solve for the workers.
enum Route {
    Now(Reply),
    Solve(Request),
}

fn route(req: &Head, page: &str) -> Route {
    let url = req.target.as_str();
    if url.len() > MAX_URL {
        let msg = format!(
            "request target of {} bytes is too long (at most {MAX_URL})",
            url.len()
        );
        return Route::Now(error(FailureKind::BadRequest, &msg, &[]));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if req.method != "GET" && req.method != "HEAD" {
        let msg = format!("method {} not allowed: use GET", req.method);
        let allow = [("Allow", "GET, HEAD")];
        return Route::Now(error(FailureKind::MethodNotAllowed, &msg, &allow));
    }
    match path {
        "/" | "/index.html" => Route::Now(Reply::new(200, "text/html; charset=utf-8", page)),
        p if p.starts_with("/api/") => match api_request(p, query) {
            Ok(r) => Route::Solve(r),
            Err(e) => Route::Now(error(e.kind, &e.message, &[])),
        },
        _ => Route::Now(error(
            FailureKind::NotFound,
            &format!("no such page: {path}"),
            &[],
        )),
    }
}

/// A solve for the workers and where its answer goes.
type Job = (Request, SyncSender<Response>);

/// HTTP: the connection threads ([`crate::http`], at most `limits.max_connections`) answer
/// what costs nothing (the page, errors, positions the book answers) and queue searches for
/// `workers` threads sharing one service (one table); a full queue answers 503 at once.
fn http(
    service: Arc<Service>,
    addr: &str,
    workers: usize,
    queue: usize,
    limits: Limits,
) -> Result<ExitCode, String> {
    let listener = TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_or_else(|_| addr.to_string(), |a| a.to_string());
    let board = service.engine().board();
    let page = PAGE.replace(
        "__BOARD__",
        &format!(r#"{{"width":{},"height":{}}}"#, board.width, board.height),
    );
    let (tx, rx) = sync_channel::<Job>(queue);
    let rx: Arc<Mutex<Receiver<Job>>> = Arc::new(Mutex::new(rx));
    for _ in 0..workers {
        let rx = Arc::clone(&rx);
        let service = Arc::clone(&service);
        std::thread::spawn(move || loop {
            let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
            let Ok((req, answer)) = job else { return };
            let _ = answer.send(service.handle(&req));
        });
    }
    eprintln!(
        "fourfold: serving {board} on http://{bound}/ ({workers} worker(s), {} thread(s) per solve, queue {queue}, table {} MiB, at most {} connections, head timeout {} s, idle timeout {} s)",
        service.engine().threads(),
        service.engine().table().bytes() >> 20,
        limits.max_connections,
        limits.header_timeout.as_secs_f64(),
        limits.idle_timeout.as_secs_f64(),
    );
    let handler = move |head: &Head| match route(head, &page) {
        Route::Now(reply) => reply,
        // The book's positions and bad input cost microseconds: answered here, never queued
        // behind other visitors' searches.
        Route::Solve(r) if service.is_instant(&r) => json_response(&service.handle(&r)),
        Route::Solve(r) => {
            let (answer, wait) = sync_channel(1);
            match tx.try_send((r, answer)) {
                Ok(()) => match wait.recv() {
                    Ok(resp) => json_response(&resp),
                    Err(_) => error(
                        FailureKind::Internal,
                        "the worker stopped without an answer",
                        &[],
                    ),
                },
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                    let msg =
                        format!("too many requests waiting (at most {queue}); try again later");
                    error(FailureKind::Busy, &msg, &[("Retry-After", "1")])
                }
            }
        }
    };
    crate::http::serve(listener, limits, Arc::new(handler));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_map_to_requests() {
        assert_eq!(url_decode("%34%34+5").unwrap(), "44 5");
        assert!(url_decode("%4").is_err() && url_decode("%zz").is_err());
        let r = api_request("/api/solve_weak", "pos=4%345").unwrap();
        assert_eq!((r.op.name(), r.position.as_str()), ("solve_weak", "445"));
        assert_eq!(api_request("/api/analyze", "pos=").unwrap().position, "");
        let r = api_request("/api/analyze", "pos=44&budget_ms=250").unwrap();
        assert_eq!(r.budget_ms, Some(250));
        for (path, query, kind) in [
            ("/api/solve", "", FailureKind::BadRequest),
            ("/api/solve", "pos=1&pos=2", FailureKind::BadRequest),
            ("/api/solve", "p=1", FailureKind::BadRequest),
            ("/api/fly", "pos=1", FailureKind::UnknownOp),
            ("/api/analyze", "pos=1&budget_ms=0", FailureKind::BadRequest),
            ("/api/analyze", "pos=1&budget_ms=x", FailureKind::BadRequest),
            (
                "/api/analyze",
                "pos=1&budget_ms=5&budget_ms=5",
                FailureKind::BadRequest,
            ),
            ("/api/solve", "pos=1&budget_ms=5", FailureKind::BadRequest),
        ] {
            assert_eq!(
                api_request(path, query).unwrap_err().kind,
                kind,
                "{path}?{query}"
            );
        }
    }
}
