//! Load benchmark of `fourfold serve --http`: requests per second on Test_L2_R1 positions.
//!
//! Run: `cargo bench --bench serve_load [-- SECONDS CONNECTIONS]` (default 5 s, 8
//! connections). For each op, starts the release binary on a free loopback port (2 workers,
//! 1 thread per solve, a fresh 64 MiB table) and sends the 1000 positions once over
//! CONNECTIONS keep-alive connections ("cold": every position solved for the first time),
//! then keeps them busy for SECONDS cycling through the positions ("warm": the table holds
//! them). Every score is checked against the test set. For scale, the same two phases run
//! through the library's `Service::handle` on 2 threads in this process (no HTTP). Not run
//! in CI.

use fourfold::service::{Request, Service};
use fourfold::testset::{parse_line, Case};
use fourfold::{BoardSize, Engine, SolverBuilder};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn cases() -> Vec<Case> {
    let path = format!("{}/../tests/data/Test_L2_R1", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .expect("test set")
        .lines()
        .map(|l| parse_line(l).expect("line"))
        .collect()
}

/// One GET on a keep-alive connection: the status and the JSON body.
fn get(r: &mut BufReader<TcpStream>, target: &str) -> (u16, Value) {
    // One write per request (no Nagle wait on a request split across writes).
    let req = format!("GET {target} HTTP/1.1\r\nHost: bench\r\n\r\n");
    r.get_mut().write_all(req.as_bytes()).expect("send");
    let mut line = String::new();
    r.read_line(&mut line).expect("status line");
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .expect("status")
        .parse()
        .unwrap();
    let mut len = 0;
    loop {
        line.clear();
        r.read_line(&mut line).expect("header");
        if line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).expect("body");
    (status, serde_json::from_slice(&body).expect("json"))
}

/// The score a response should carry for a case: exact, or its sign for `solve_weak`.
fn want(op: &str, c: &Case) -> i64 {
    let s = c.expected.expect("scored test set") as i64;
    if op == "solve_weak" {
        s.signum()
    } else {
        s
    }
}

/// A `fourfold serve --http` on a free port, fresh table: its child process and address.
fn start_server() -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fourfold"))
        .args(["serve", "--http", "127.0.0.1:0", "--tt-mb", "64"])
        .args(["--workers", "2", "--threads", "1", "--queue", "1024"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fourfold serve");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .expect("address")
        .to_string();
    (child, addr)
}

/// Requests answered, wall seconds, sorted latencies.
struct Run {
    n: usize,
    wall: f64,
    lat: Vec<Duration>,
}

impl Run {
    fn line(&self) -> String {
        let pct = |q: f64| self.lat[((self.lat.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
        format!(
            "{:>7.0} req/s ({} in {:.2} s, p50 {:.3} ms, p99 {:.3} ms)",
            self.n as f64 / self.wall,
            self.n,
            self.wall,
            pct(0.5),
            pct(0.99)
        )
    }
}

/// `clients` threads, each making its own requester with `make(k)`. `secs: None`: every
/// case once, client k taking cases k, k + clients, ...; `Some(s)`: for `s` seconds, each
/// client cycling through the cases from its own offset.
fn drive<F, R>(clients: usize, cases: &[Case], secs: Option<f64>, make: F) -> Run
where
    F: Fn(usize) -> R + Sync,
    R: FnMut(&Case),
{
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let lats: Vec<Vec<Duration>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..clients)
            .map(|k| {
                let (make, stop) = (&make, &stop);
                s.spawn(move || {
                    let mut one = make(k);
                    let mut lat = Vec::new();
                    let mut i = match secs {
                        None => k,
                        Some(_) => k * cases.len() / clients,
                    };
                    loop {
                        let c = match secs {
                            None if i >= cases.len() => break,
                            None => &cases[i],
                            Some(_) if stop.load(Ordering::Relaxed) => break,
                            Some(_) => &cases[i % cases.len()],
                        };
                        let t = Instant::now();
                        one(c);
                        lat.push(t.elapsed());
                        i += if secs.is_none() { clients } else { 1 };
                    }
                    lat
                })
            })
            .collect();
        if let Some(secs) = secs {
            std::thread::sleep(Duration::from_secs_f64(secs));
            stop.store(true, Ordering::Relaxed);
        }
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let wall = start.elapsed().as_secs_f64();
    let mut lat: Vec<Duration> = lats.into_iter().flatten().collect();
    lat.sort();
    Run {
        n: lat.len(),
        wall,
        lat,
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let secs: f64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let conns: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let cases = cases();
    println!(
        "Test_L2_R1 (1000 positions); HTTP: fourfold serve --http (2 workers, 1 thread per solve, 64 MiB), {conns} keep-alive connections; in process: Service::handle on 2 threads, 64 MiB"
    );
    println!("cold = each position once on a fresh table; warm = then cycling for {secs} s");
    for op in ["solve", "solve_weak", "analyze"] {
        let (mut child, addr) = start_server();
        let http = |k: usize| {
            let _ = k;
            let stream = TcpStream::connect(&addr).expect("connect");
            stream.set_nodelay(true).expect("nodelay");
            let mut r = BufReader::new(stream);
            move |c: &Case| {
                let (status, v) = get(&mut r, &format!("/api/{op}?pos={}", c.moves));
                assert_eq!(status, 200, "{v}");
                assert_eq!(v["score"], want(op, c), "{op} {}: {v}", c.moves);
            }
        };
        let cold = drive(conns, &cases, None, http);
        let warm = drive(conns, &cases, Some(secs), http);
        let _ = child.kill();
        let _ = child.wait();
        let service = Service::new(
            Engine::new(
                BoardSize::STANDARD,
                SolverBuilder::default().table_mib(64).threads(1),
            )
            .expect("engine"),
        );
        let lib = |_k: usize| {
            let service = &service;
            move |c: &Case| {
                let r = service.handle(&Request::new(op, &c.moves).unwrap());
                let got = r.answer().and_then(|a| a.score).map(i64::from);
                assert_eq!(got, Some(want(op, c)), "{op} {}", c.moves);
            }
        };
        let lib_cold = drive(2, &cases, None, lib);
        let lib_warm = drive(2, &cases, Some(secs), lib);
        println!("{op:>10} HTTP       cold {}", cold.line());
        println!("{op:>10} HTTP       warm {}", warm.line());
        println!("{op:>10} in process cold {}", lib_cold.line());
        println!("{op:>10} in process warm {}", lib_warm.line());
    }
}
