//! `fourfold serve`: the JSON-lines service and the HTTP API (every op, every error class,
//! order and ids, concurrency, the queue limit, the time limit). Expected scores come from
//! the test sets; expected error messages from the library's own `Error`.

use crate::common::cases;
use fourfold::testset::Case;
use fourfold::{BoardSize, Engine, Outcome, SolverBuilder};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// The error message the library gives for a bad move string.
fn engine_message(moves: &str) -> String {
    let e = Engine::new(BoardSize::STANDARD, SolverBuilder::default().table_mib(1)).unwrap();
    e.check(moves).unwrap_err().to_string()
}

fn expected(c: &Case) -> i32 {
    c.expected.expect("test sets carry scores")
}

fn words(score: i32, moves: &str) -> String {
    Outcome::from_score(score, moves.len() as u32, 42)
        .unwrap()
        .to_string()
}

/// Runs `fourfold serve` (JSON lines) on `input` and returns its response lines.
fn serve_lines(extra: &[&str], input: impl AsRef<[u8]>) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fourfold"))
        .args(["serve", "--tt-mb", "16", "-t", "1"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fourfold serve");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.as_ref().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn check_answer(r: &Value, op: &str, c: &Case) {
    let want = expected(c);
    assert_eq!(r["op"], op, "{r}");
    assert_eq!(r["position"], c.moves.as_str(), "{r}");
    assert_eq!(r["source"], "search", "{r}");
    assert!(r["nodes"].is_u64() && r["micros"].is_u64(), "{r}");
    match op {
        "solve" => {
            assert_eq!(r["score"], want, "{r}");
            assert_eq!(r["outcome"], words(want, &c.moves), "{r}");
        }
        "solve_weak" => assert_eq!(r["score"], want.signum(), "{r}"),
        "analyze" => {
            assert_eq!(r["score"], want, "{r}");
            let scores = r["scores"].as_array().unwrap();
            assert_eq!(scores.len(), 7);
            let best = scores.iter().filter_map(|s| s.as_i64()).max().unwrap();
            assert_eq!(best, want as i64, "{r}");
            let outcomes = r["outcomes"].as_array().unwrap();
            for (s, o) in scores.iter().zip(outcomes) {
                match s.as_i64() {
                    Some(s) => assert_eq!(o.as_str().unwrap(), words(s as i32, &c.moves)),
                    None => assert!(o.is_null()),
                }
            }
        }
        _ => unreachable!(),
    }
    if op != "solve_weak" {
        let col = r["best_move"].as_u64().expect("a best move") as usize;
        assert!((1..=7).contains(&col));
        // The best move is a column of the best score: check it with a second solve below
        // for solve, and directly for analyze.
        if op == "analyze" {
            assert_eq!(r["scores"][col - 1], want, "{r}");
        }
    }
}

#[test]
fn lines_answer_every_op_in_order_with_ids() {
    let cs = cases("Test_L2_R1", 12);
    let ops = ["solve", "solve_weak", "analyze"];
    let mut input = String::new();
    let mut ids = Vec::new();
    for (i, c) in cs.iter().enumerate() {
        for op in ops {
            // Ids of every JSON type are echoed as given.
            let id = match i % 3 {
                0 => json!(ids.len()),
                1 => json!(format!("req-{}", ids.len())),
                _ => json!({"n": ids.len()}),
            };
            input.push_str(&json!({"id": id, "op": op, "position": c.moves}).to_string());
            input.push('\n');
            ids.push((id, op, c));
        }
    }
    let out = serve_lines(&[], &input);
    assert_eq!(out.len(), ids.len());
    for (r, (id, op, c)) in out.iter().zip(&ids) {
        assert_eq!(&r["id"], id);
        assert!(r.get("error").is_none(), "{r}");
        check_answer(r, op, c);
    }
}

#[test]
fn lines_bad_requests_get_errors_and_the_service_goes_on() {
    let good = &cases("Test_L2_R1", 1)[0];
    let good_line = json!({"id": "last", "op": "solve", "position": good.moves}).to_string();
    let lines = [
        ("not json", Value::Null, "bad_request"),
        ("[1, 2]", Value::Null, "bad_request"),
        (
            r#"{"id": 1, "op": "fly", "position": "4"}"#,
            json!(1),
            "unknown_op",
        ),
        (r#"{"id": 2, "op": "solve"}"#, json!(2), "bad_request"),
        (r#"{"id": 3, "position": "4"}"#, json!(3), "bad_request"),
        (
            r#"{"id": 4, "op": "solve", "position": 44}"#,
            json!(4),
            "bad_request",
        ),
        (
            r#"{"id": 5, "op": "solve", "position": "4", "x": 1}"#,
            json!(5),
            "bad_request",
        ),
        (
            r#"{"id": 6, "op": "solve", "position": "448"}"#,
            json!(6),
            "bad_position",
        ),
        (
            r#"{"id": 7, "op": "analyze", "position": "4444444"}"#,
            json!(7),
            "bad_position",
        ),
        (
            r#"{"id": 8, "op": "solve_weak", "position": "4a"}"#,
            json!(8),
            "bad_position",
        ),
        (
            r#"{"id": 9, "op": "solve", "position": "1212121"}"#,
            json!(9),
            "bad_position",
        ),
    ];
    let mut input: String = lines.iter().map(|(l, _, _)| format!("{l}\n")).collect();
    input.push_str(&good_line);
    input.push('\n');
    let out = serve_lines(&[], &input);
    assert_eq!(out.len(), lines.len() + 1);
    for (r, (line, id, kind)) in out.iter().zip(&lines) {
        assert_eq!(&r["id"], id, "{line} -> {r}");
        assert_eq!(r["error"]["kind"], *kind, "{line} -> {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(!msg.is_empty());
        if *kind == "bad_position" {
            let pos: Value = serde_json::from_str(line).unwrap();
            assert_eq!(msg, engine_message(pos["position"].as_str().unwrap()));
        }
    }
    let last = out.last().unwrap();
    assert_eq!(last["id"], "last");
    check_answer(last, "solve", good);
}

#[test]
fn lines_that_are_not_utf8_or_too_long_get_errors_and_the_service_goes_on() {
    let good = &cases("Test_L2_R1", 1)[0];
    let mut input = b"\xff\xfe not text\n".to_vec();
    input.extend(std::iter::repeat(b' ').take(100_000));
    input.push(b'\n');
    input.extend(
        json!({"id": "last", "op": "solve", "position": good.moves})
            .to_string()
            .bytes(),
    );
    input.push(b'\n');
    let out = serve_lines(&[], &input);
    assert_eq!(out.len(), 3, "{out:?}");
    for (r, words) in out.iter().zip(["UTF-8", "4096 bytes"]) {
        assert_eq!(r["id"], Value::Null, "{r}");
        assert_eq!(r["error"]["kind"], "bad_request", "{r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(msg.contains(words), "{msg}");
    }
    check_answer(&out[2], "solve", good);
}

#[test]
fn lines_time_limit_answers_with_bounds_and_goes_on() {
    let good = &cases("Test_L2_R1", 1)[0];
    let input = format!(
        "{}\n{}\n",
        json!({"id": 1, "op": "solve", "position": ""}),
        json!({"id": 2, "op": "solve", "position": good.moves})
    );
    // No book: the empty board is then a long search.
    let out = serve_lines(&["--no-book", "--request-timeout", "0.2"], &input);
    assert_eq!(out[0]["error"]["kind"], "timeout", "{}", out[0]);
    let (lo, hi) = (&out[0]["error"]["lower"], &out[0]["error"]["upper"]);
    assert!(lo.as_i64().unwrap() <= hi.as_i64().unwrap(), "{}", out[0]);
    check_answer(&out[1], "solve", good);
}

#[test]
fn lines_analyze_budget_gives_column_bounds_that_hold_and_bad_budgets_are_refused() {
    // An opening position past the book, analysed in 1 ms slices: each slice's bounds hold
    // the exact scores (a full analysis at the end, same table), and the service goes on.
    let c = &cases("Test_L1_R2", 1)[0];
    let sliced = json!({"id": 1, "op": "analyze", "position": c.moves, "budget_ms": 1});
    let mut input = String::new();
    for _ in 0..3 {
        input += &format!("{sliced}\n");
    }
    for (id, bad) in [
        (
            2,
            json!({"id": 2, "op": "analyze", "position": "", "budget_ms": 0}),
        ),
        (
            3,
            json!({"id": 3, "op": "analyze", "position": "", "budget_ms": "5"}),
        ),
        (
            4,
            json!({"id": 4, "op": "analyze", "position": "", "budget_ms": -1}),
        ),
        (
            5,
            json!({"id": 5, "op": "solve", "position": "", "budget_ms": 5}),
        ),
    ] {
        assert_eq!(bad["id"], id);
        input += &format!("{bad}\n");
    }
    input += &format!(
        "{}\n",
        json!({"id": 6, "op": "analyze", "position": c.moves})
    );
    let out = serve_lines(&["--no-book"], &input);
    assert_eq!(out.len(), 8);
    let exact = &out[7];
    assert_eq!(exact["id"], 6);
    assert_eq!(exact["score"].as_i64(), Some(expected(c) as i64), "{exact}");
    let mut bounded = 0;
    for r in &out[..3] {
        if r["error"].is_null() {
            assert_eq!(r["scores"], exact["scores"], "{r}");
            continue;
        }
        bounded += 1;
        let e = &r["error"];
        assert_eq!(e["kind"], "timeout", "{r}");
        assert_eq!(e["wins_now"], exact["wins_now"], "{r}");
        let cols = e["columns"].as_array().expect("columns");
        for (b, s) in cols.iter().zip(exact["scores"].as_array().unwrap()) {
            let Some(s) = s.as_i64() else {
                assert!(b.is_null(), "{r}");
                continue;
            };
            let (lo, hi) = (b["lower"].as_i64().unwrap(), b["upper"].as_i64().unwrap());
            assert!(lo <= s && s <= hi, "{s} outside {b} in {r}");
        }
        let best = exact["score"].as_i64().unwrap();
        assert!(e["lower"].as_i64().unwrap() <= best && best <= e["upper"].as_i64().unwrap());
    }
    assert!(bounded > 0, "no 1 ms slice stopped: {out:?}");
    for r in &out[3..7] {
        assert_eq!(r["error"]["kind"], "bad_request", "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("budget_ms"),
            "{r}"
        );
    }
}

/// A `fourfold serve --http` on a free loopback port, killed on drop.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fourfold"))
            .args(["serve", "--http", "127.0.0.1:0", "--tt-mb", "16"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run fourfold serve --http");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// GET `target`: the status and the body.
    fn get_raw(&self, target: &str) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        write!(
            s,
            "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
        (status, body)
    }

    fn get(&self, target: &str) -> (u16, Value) {
        let (status, body) = self.get_raw(target);
        let v = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {body}: {e}"));
        (status, v)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn http_every_op_and_the_page() {
    let server = Server::start(&["--workers", "2"]);
    for c in cases("Test_L2_R1", 8) {
        for op in ["solve", "solve_weak", "analyze"] {
            let (status, r) = server.get(&format!("/api/{op}?pos={}", c.moves));
            assert_eq!(status, 200, "{r}");
            check_answer(&r, op, &c);
        }
    }
    // Percent-encoded digits are the same position.
    let c = &cases("Test_L2_R1", 1)[0];
    let enc: String = c.moves.bytes().map(|b| format!("%{b:02X}")).collect();
    let (status, r) = server.get(&format!("/api/solve?pos={enc}"));
    assert_eq!(status, 200);
    check_answer(&r, "solve", c);
    let (status, page) = server.get_raw("/");
    assert_eq!(status, 200);
    assert!(page.contains(r#"const BOARD = {"width":7,"height":6};"#));
    assert!(page.contains("Play best"));
}

#[test]
fn http_errors_have_their_status_kind_and_message() {
    let server = Server::start(&["--workers", "1"]);
    let long = "4".repeat(600);
    let checks: Vec<(String, u16, &str, Option<&str>)> = vec![
        (
            "/api/solve?pos=448".into(),
            400,
            "bad_position",
            Some("448"),
        ),
        (
            "/api/analyze?pos=4444444".into(),
            400,
            "bad_position",
            Some("4444444"),
        ),
        (
            "/api/solve_weak?pos=12x".into(),
            400,
            "bad_position",
            Some("12x"),
        ),
        (
            "/api/solve?pos=1212121".into(),
            400,
            "bad_position",
            Some("1212121"),
        ),
        ("/api/solve".into(), 400, "bad_request", None),
        ("/api/solve?position=44".into(), 400, "bad_request", None),
        ("/api/solve?pos=4&pos=4".into(), 400, "bad_request", None),
        ("/api/solve?pos=%zz".into(), 400, "bad_request", None),
        (format!("/api/solve?pos={long}"), 400, "bad_request", None),
        ("/api/fly?pos=4".into(), 400, "unknown_op", None),
        ("/nowhere".into(), 404, "not_found", None),
        ("/api".into(), 404, "not_found", None),
    ];
    for (target, status, kind, pos) in checks {
        let (got, r) = server.get(&target);
        assert_eq!(got, status, "{target}: {r}");
        assert_eq!(r["error"]["kind"], kind, "{target}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        if let Some(p) = pos {
            assert_eq!(msg, engine_message(p), "{target}");
        }
    }
    // Methods other than GET and HEAD: 405 with an `Allow` header, kind method_not_allowed.
    for method in ["POST", "PUT", "DELETE"] {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        write!(
            s,
            "{method} /api/solve?pos=4 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        assert!(text.starts_with("HTTP/1.1 405"), "{method}: {text}");
        let head = text.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
        assert!(head.contains("\r\nallow: get, head"), "{method}: {text}");
        let body: Value = serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(
            body["error"]["kind"], "method_not_allowed",
            "{method}: {text}"
        );
    }
    // The server is still answering.
    let c = &cases("Test_L2_R1", 1)[0];
    let (status, r) = server.get(&format!("/api/solve?pos={}", c.moves));
    assert_eq!(status, 200);
    check_answer(&r, "solve", c);
}

#[test]
fn http_fifty_parallel_requests_get_the_right_scores() {
    let server = Server::start(&["--workers", "2", "--queue", "64"]);
    let cs = cases("Test_L2_R1", 50);
    std::thread::scope(|s| {
        let handles: Vec<_> = cs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let server = &server;
                s.spawn(move || {
                    let op = ["solve", "analyze", "solve_weak"][i % 3];
                    let (status, r) = server.get(&format!("/api/{op}?pos={}", c.moves));
                    assert_eq!(status, 200, "{r}");
                    check_answer(&r, op, c);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn http_full_queue_answers_503_and_time_limit_answers_bounds() {
    // One worker, one waiting place; each empty-board solve runs into the 1 s limit.
    // No book: the empty board is then a long search, queued.
    let server = Server::start(&[
        "--no-book",
        "--workers",
        "1",
        "--queue",
        "1",
        "--request-timeout",
        "1",
    ]);
    let n = 6;
    let results: Vec<(u16, Value)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|_| s.spawn(|| server.get("/api/solve?pos=")))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let busy = results.iter().filter(|(st, _)| *st == 503).count();
    let done: Vec<&Value> = results
        .iter()
        .filter(|(st, _)| *st == 200)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(busy + done.len(), n, "{results:?}");
    assert!((1..=2).contains(&done.len()), "{results:?}");
    for (st, v) in &results {
        if *st == 503 {
            assert_eq!(v["error"]["kind"], "busy", "{v}");
        }
    }
    for v in done {
        assert_eq!(v["error"]["kind"], "timeout", "{v}");
        let (lo, hi) = (v["error"]["lower"].as_i64(), v["error"]["upper"].as_i64());
        assert!(lo.unwrap() <= hi.unwrap(), "{v}");
    }
    // Once the queue drains, requests are answered again.
    let c = &cases("Test_L2_R1", 1)[0];
    let (status, r) = server.get(&format!("/api/solve?pos={}", c.moves));
    assert_eq!(status, 200, "{r}");
    check_answer(&r, "solve", c);
}

#[test]
fn serve_answers_book_positions_from_the_book_unless_told_otherwise() {
    let lines = |v: &[Value]| v.iter().map(|j| format!("{j}\n")).collect::<String>();
    let input = [
        json!({"id": 1, "op": "analyze", "position": ""}),
        json!({"id": 2, "op": "solve", "position": "44"}),
    ];
    let out = serve_lines(&[], lines(&input));
    assert_eq!(out.len(), 2);
    for r in &out {
        assert_eq!(r["source"], "book", "{r}");
    }
    // Columns 3 and 6 tie after 445: solve and analyze name the same best move.
    let tie = [
        json!({"op": "analyze", "position": "445"}),
        json!({"op": "solve", "position": "445"}),
    ];
    let out = serve_lines(&[], lines(&tie));
    assert_eq!(out[0]["best_move"], out[1]["best_move"]);
    // Another book file, or none.
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../books/7x6-2.book");
    let out = serve_lines(&["--book", book], lines(&input[..1]));
    assert_eq!(out[0]["source"], "book");
    let late = json!({"op": "solve", "position": "2252576253462244111563365343671351441"});
    let out = serve_lines(&["--no-book"], lines(&[late]));
    assert_eq!(out[0]["source"], "search");
}

/// The `Threads:` line of /proc/PID/status.
fn threads_of(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:").map(|n| n.trim().parse().ok()))
                .flatten()
        })
        .unwrap_or(0)
}

#[test]
fn http_half_open_connections_are_bounded_and_time_out() {
    // 500 connections that send half a request head and stop, against a bound of 100
    // connections and a head timeout of 4 s.
    let server = Server::start(&[
        "--workers",
        "1",
        "--max-connections",
        "100",
        "--header-timeout",
        "4",
        "--idle-timeout",
        "1",
    ]);
    let pid = server.child.id();
    let base = threads_of(pid);
    let mut held: Vec<TcpStream> = (0..500)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(b"GET /api/solve?pos=4 HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            s
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let during = threads_of(pid);
    // The bound's 100 connection threads, and the thread that drains refused connections
    // (started with the acceptor, so perhaps not yet counted in `base`).
    assert!(
        during <= base + 101,
        "{during} threads with 500 half-open connections (base {base}, bound 100 + 1)"
    );
    // Past the bound, a whole request still gets its answer: it takes the place of the
    // connection that has waited longest for its head (which is closed), and the threads
    // stay bounded.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("fourfold"), "{text}");
    let after = threads_of(pid);
    assert!(after <= base + 101, "{after} threads after making room");
    // After the head timeout every half-open connection is answered and closed (408, or
    // 503 for those past the bound, or closed with no answer to make room) and the server
    // answers again.
    for s in &mut held {
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut text = Vec::new();
        // A connection refused past the bound may be reset instead of read to the end.
        let _ = s.read_to_end(&mut text);
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 408") || text.starts_with("HTTP/1.1 503"),
            "{text}"
        );
    }
    drop(held);
    let c = &cases("Test_L2_R1", 1)[0];
    let (status, r) = server.get(&format!("/api/solve?pos={}", c.moves));
    assert_eq!(status, 200, "{r}");
    check_answer(&r, "solve", c);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        threads_of(pid) <= base + 1,
        "{} threads after the timeout",
        threads_of(pid)
    );
}

#[test]
fn http_keep_alive_answers_in_order_and_idle_connections_close() {
    let server = Server::start(&["--workers", "1", "--idle-timeout", "1"]);
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let cs = cases("Test_L2_R1", 3);
    // Three requests in one write (pipelined), then HEAD: answered in order.
    let mut req = String::new();
    for c in &cs {
        req.push_str(&format!(
            "GET /api/solve?pos={} HTTP/1.1\r\nHost: x\r\n\r\n",
            c.moves
        ));
    }
    req.push_str("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut r = BufReader::new(s);
    for c in &cs {
        let mut len = 0;
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        loop {
            line.clear();
            r.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        check_answer(&serde_json::from_slice(&body).unwrap(), "solve", c);
    }
    // HEAD: the head only; then the idle connection is closed after 1 s.
    let start = std::time::Instant::now();
    let mut rest = String::new();
    r.get_mut()
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    r.read_to_string(&mut rest).unwrap();
    assert!(rest.starts_with("HTTP/1.1 200"), "{rest}");
    assert!(rest.ends_with("\r\n\r\n"), "HEAD has no body: {rest}");
    assert!(start.elapsed() < std::time::Duration::from_secs(8));
}
