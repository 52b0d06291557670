//! Benchmarks of the opening book: answers from the shipped book, build throughput, and the
//! figures behind the estimate of deeper books.
//!
//! Run: `cargo bench --bench book`. Besides criterion's timings it prints (to stderr) the
//! slowest single book answer, the positions per ply up to mirror symmetry, and the mean
//! one-thread solve time of random positions at 8 and 12 plies.
//! `FOURFOLD_BOOK_COUNT_PLIES` (default 12) bounds the counting.

use criterion::{criterion_group, criterion_main, Criterion};
use fourfold::book::{self, BuildOptions};
use fourfold::{Book, Position, Solver};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The deepest shipped 7 x 6 book.
fn shipped() -> Book {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("books");
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(&dir)
        .expect("books/")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = name
                .strip_prefix("7x6-")?
                .strip_suffix(".book")?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .collect();
    found.sort();
    Book::load(&found.pop().expect("a shipped book").1).expect("loads")
}

fn answers(c: &mut Criterion) {
    let b = shipped();
    let mut group = c.benchmark_group("book");
    let empty = Position::<7, 6>::new();
    group.bench_function(format!("analyze_empty_board_depth_{}", b.plies()), |x| {
        x.iter(|| b.analyze(&empty).expect("answered"))
    });
    for k in 1..b.plies() {
        let ps = book::positions::<7, 6>(k);
        group.bench_function(format!("analyze_all_{}_{k}_ply_positions", ps.len()), |x| {
            x.iter(|| {
                for p in &ps {
                    b.analyze(p).expect("answered");
                }
            })
        });
    }
    group.finish();
    // The slowest single answer: each position analysed 200 times, the mean of those.
    let mut worst = (Duration::ZERO, 0);
    for k in 0..b.plies() {
        for p in book::positions::<7, 6>(k) {
            let t = Instant::now();
            for _ in 0..200 {
                std::hint::black_box(b.analyze(std::hint::black_box(&p)));
            }
            let per = t.elapsed() / 200;
            if per > worst.0 {
                worst = (per, k);
            }
        }
    }
    eprintln!(
        "book: slowest analyze of a position with fewer than {} stones: {:?} ({} stones)",
        b.plies(),
        worst.0,
        worst.1
    );
}

fn build_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("book_build");
    group.sample_size(10);
    let opts = BuildOptions {
        plies: 4,
        ..Default::default()
    };
    let n = book::positions::<6, 5>(4).len();
    for threads in [1, 2] {
        let solver: Solver<6, 5> = Solver::builder()
            .table_mib(64)
            .threads(threads)
            .build()
            .expect("solver");
        group.bench_function(format!("6x5_depth4_{n}_positions_{threads}_threads"), |x| {
            x.iter(|| {
                solver.table().clear();
                book::build(&solver, &opts, &|_| {}).expect("build")
            })
        });
    }
    group.finish();
}

/// Positions per ply and sample solve times: the inputs of the deeper books' estimate.
fn estimate(_: &mut Criterion) {
    let max: u32 = std::env::var("FOURFOLD_BOOK_COUNT_PLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut line = String::new();
    for k in 0..=max {
        let t = Instant::now();
        let n = book::positions::<7, 6>(k).len();
        line += &format!(" {k}:{n}");
        if t.elapsed() > Duration::from_secs(120) {
            break;
        }
    }
    eprintln!("book: 7x6 positions per ply up to mirror symmetry:{line}");
    let solver: Solver = Solver::builder()
        .table_mib(256)
        .threads(1)
        .build()
        .expect("solver");
    for k in [8u32, 12] {
        if k > max {
            continue;
        }
        let ps = book::positions::<7, 6>(k);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let sample = 20;
        let t = Instant::now();
        for _ in 0..sample {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let p = &ps[(rng % ps.len() as u64) as usize];
            solver.table().clear();
            solver.solve(p).expect("solved");
        }
        eprintln!(
            "book: mean one-thread solve of {sample} random {k}-ply positions (cleared table): {:?}",
            t.elapsed() / sample
        );
    }
}

criterion_group!(benches, answers, build_throughput, estimate);
criterion_main!(benches);
