//! `bench`: the test sets or the empty board, timed, with node counts and a thread-scaling
//! table; `--boards`: whole-board solves of several board sizes, checked against the
//! published results.

use crate::common::{
    all_cores, build, default_tt_mb, fmt_time, human, warn_pin, warn_threads, Common,
};
use clap::Args;
use fourfold::engine::CaseLine;
use fourfold::published::{parse_table, BoardResult};
use fourfold::{BoardSize, Engine};
use std::process::ExitCode;
use std::time::Instant;

/// An engine that searches every position (no book): the bench measures the search.
fn searcher(
    common: &crate::common::Common,
    board: Option<BoardSize>,
    threads: usize,
    limit: Option<std::time::Duration>,
) -> Result<Engine, String> {
    let mut e = build(common, board, threads, limit)?;
    e.set_book(None).map_err(|e| e.to_string())?;
    Ok(e)
}

#[derive(Args)]
pub struct BenchArgs {
    /// Test-set files (`<moves> <score>` per line). Default: the bundled sets.
    #[arg(long, short, value_name = "FILE")]
    input: Vec<String>,
    /// Benchmark the empty board instead.
    #[arg(long)]
    empty: bool,
    /// At most N positions per set (default: all, but 10 of Begin-Hard for the bundled sets).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Thread counts, comma separated (e.g. `1,2,4`; default: all available cores). More
    /// than one prints a scaling table.
    #[arg(long, short = 't', value_delimiter = ',', value_name = "N,...")]
    threads: Option<Vec<usize>>,
    /// Clear the table before every position (as the reference figures do) instead of
    /// starting a new generation.
    #[arg(long)]
    fresh: bool,
    /// Weak (win/draw/loss) solves.
    #[arg(long)]
    weak: bool,
    /// Solve each set as one batch through `solve_many` (one position per thread at a time)
    /// and time its wall clock, instead of solving positions one after another.
    #[arg(long, conflicts_with = "fresh")]
    batch: bool,
    /// Solve the empty board of each size in the list (WxH, comma separated; default
    /// 6x6,7x5,5x7,8x5,5x8,6x7,7x7) at each thread count, and check the result against the
    /// published table (tests/data/board_results).
    #[arg(
        long,
        value_delimiter = ',',
        num_args = 0..=1,
        value_name = "WxH,...",
        conflicts_with_all = ["input", "empty", "weak", "fresh", "limit"]
    )]
    boards: Option<Vec<String>>,
    #[command(flatten)]
    common: Common,
}

/// A bundled test set: name and contents.
const BUNDLED: [(&str, &str); 6] = [
    ("Test_L3_R1", include_str!("../../tests/data/Test_L3_R1")),
    ("Test_L2_R1", include_str!("../../tests/data/Test_L2_R1")),
    ("Test_L2_R2", include_str!("../../tests/data/Test_L2_R2")),
    ("Test_L1_R1", include_str!("../../tests/data/Test_L1_R1")),
    ("Test_L1_R2", include_str!("../../tests/data/Test_L1_R2")),
    ("Test_L1_R3", include_str!("../../tests/data/Test_L1_R3")),
];

/// The published whole-board results.
const PUBLISHED: &str = include_str!("../../tests/data/board_results");

/// The boards `--boards` solves when given no list.
const DEFAULT_BOARDS: &str = "6x6,7x5,5x7,8x5,5x8,6x7,7x7";

pub fn run(b: BenchArgs) -> Result<ExitCode, String> {
    let threads = b.threads.clone().unwrap_or_else(|| vec![all_cores()]);
    if threads.contains(&0) {
        return Err("--threads must be at least 1, not 0".into());
    }
    if let Some(&most) = threads.iter().max() {
        if most > fourfold::MAX_THREADS {
            return Err(format!(
                "--threads {most}: the number of threads must be at most {}",
                fourfold::MAX_THREADS
            ));
        }
        warn_threads(most);
    }
    if b.common.tt_mb == Some(0) {
        return Err("--tt-mb must be at least 1 MiB, not 0".into());
    }
    if let Some(list) = &b.boards {
        return bench_boards(&b, list, &threads);
    }
    if b.input.is_empty() && !b.empty && b.common.board != BoardSize::STANDARD {
        return Err(format!(
            "the bundled test sets are 7x6 positions; for the {} board give --input FILE, \
             --empty or --boards",
            b.common.board
        ));
    }
    // The engine of the first thread count; it also reads the sets' lines on its board.
    let mut first = Some(searcher(&b.common, None, threads[0], None)?);
    let parser = first.as_ref().expect("just built");
    // The sets: (name, cases).
    let mut sets: Vec<(String, Vec<CaseLine>)> = Vec::new();
    let mut failed = false;
    let mut load = |name: String, text: &str, limit: Option<usize>| {
        let mut cases = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if limit.is_some_and(|l| cases.len() >= l) {
                break;
            }
            match parser.parse_case(line) {
                Ok(c) => cases.push(c),
                Err(e) => {
                    eprintln!("{name}:{}: {e}", i + 1);
                    failed = true;
                }
            }
        }
        (name, cases)
    };
    if b.empty {
        sets.push((
            "empty board".into(),
            vec![parser.parse_case("").expect("empty board")],
        ));
    } else if b.input.is_empty() {
        for (name, text) in BUNDLED {
            let limit = b.limit.or((name == "Test_L1_R3").then_some(10));
            sets.push(load(name.to_string(), text, limit));
        }
    } else {
        for path in &b.input {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            sets.push(load(path.clone(), &text, b.limit));
        }
    }
    let tt_mb = b.common.tt_mb.unwrap_or_else(default_tt_mb);
    // A table the machine cannot give is refused before anything is printed (the OS maps
    // the pages lazily, so this costs nothing).
    drop(searcher(&b.common, None, 1, None)?);
    println!(
        "fourfold bench: table {tt_mb} MiB, {} table per position, {} solve, search level {}",
        if b.fresh {
            "cleared"
        } else {
            "new generation of the"
        },
        if b.weak { "weak" } else { "strong" },
        fourfold::search_level()
    );
    if b.batch {
        println!("each set solved as one batch (solve_many); times are wall times");
    }
    if threads.len() == 1 {
        let solver = first.take().expect("built above");
        // Touch every page once (in parallel) so that no set pays for the OS zeroing them.
        solver.table().clear();
        let wall = Instant::now();
        println!(
            "{:<14} {:>9} {:>9} {:>12} {:>14} {:>10}",
            "set", "positions", "correct", "mean time", "mean nodes", "Mnodes/s"
        );
        for (name, cases) in &sets {
            let (stats, ok) = bench_set(&solver, cases, b.fresh, b.weak, b.batch)?;
            failed |= ok < cases.len();
            let n = cases.len().max(1) as f64;
            println!(
                "{:<14} {:>9} {:>9} {:>12} {:>14.0} {:>10.2}",
                name,
                cases.len(),
                ok,
                fmt_time(stats.secs / n),
                stats.nodes as f64 / n,
                stats.nodes as f64 / stats.secs.max(1e-12) / 1e6
            );
        }
        println!(
            "wall time: {:.2} s on {} thread(s)",
            wall.elapsed().as_secs_f64(),
            threads[0]
        );
        warn_pin(&solver);
    } else {
        println!(
            "{:>7} {:>11} {:>8} {:>10} {:>14} {:>10} {:>10}",
            "threads", "wall", "speed-up", "efficiency", "total nodes", "Mnodes/s", "table fill"
        );
        let mut base = None;
        for &t in &threads {
            let solver = match first.take() {
                Some(s) => s,
                None => searcher(&b.common, None, t, None)?,
            };
            solver.table().clear();
            let mut secs = 0.0;
            let mut nodes = 0;
            let mut fill: f64 = 0.0;
            for (_, cases) in &sets {
                let (stats, ok) = bench_set(&solver, cases, b.fresh, b.weak, b.batch)?;
                failed |= ok < cases.len();
                secs += stats.secs;
                nodes += stats.nodes;
                fill = fill.max(solver.table().fill());
            }
            let base_secs = *base.get_or_insert(secs);
            let speedup = base_secs / secs;
            println!(
                "{:>7} {:>11} {:>7.2}x {:>9.0}% {:>14} {:>10.2} {:>9.0}%",
                t,
                fmt_time(secs),
                speedup,
                100.0 * speedup / t as f64,
                nodes,
                nodes as f64 / secs / 1e6,
                fill * 100.0
            );
            warn_pin(&solver);
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

struct SetStats {
    secs: f64,
    nodes: u64,
}

/// Solves every case, returning time, nodes and the number of correct scores.
fn bench_set(
    solver: &Engine,
    cases: &[CaseLine],
    fresh: bool,
    weak: bool,
    batch: bool,
) -> Result<(SetStats, usize), String> {
    if batch {
        return Ok(bench_batch(solver, cases, weak));
    }
    let mut stats = SetStats {
        secs: 0.0,
        nodes: 0,
    };
    let mut ok = 0;
    for c in cases {
        if fresh {
            solver.table().clear();
        }
        let s = if weak {
            solver.solve_weak(&c.moves)
        } else {
            solver.solve(&c.moves)
        }
        .map_err(|e| format!("{}: {e}", c.moves))?;
        stats.secs += s.elapsed.as_secs_f64();
        stats.nodes += s.nodes;
        match c.expected {
            Some(e) if (if weak { e.signum() } else { e }) == s.score => ok += 1,
            Some(e) => eprintln!("{}: score {} but the set says {e}", c.moves, s.score),
            None => ok += 1,
        }
    }
    Ok((stats, ok))
}

/// Solves every case in one `solve_many` batch: its wall time, nodes and correct scores.
fn bench_batch(solver: &Engine, cases: &[CaseLine], weak: bool) -> (SetStats, usize) {
    let positions: Vec<&str> = cases.iter().map(|c| c.moves.as_str()).collect();
    let start = Instant::now();
    let results = solver.solve_many(&positions, weak);
    let mut stats = SetStats {
        secs: start.elapsed().as_secs_f64(),
        nodes: 0,
    };
    let mut ok = 0;
    for (c, r) in cases.iter().zip(results) {
        match r {
            Ok(s) => {
                stats.nodes += s.nodes;
                match c.expected {
                    Some(e) if (if weak { e.signum() } else { e }) != s.score => {
                        eprintln!("{}: score {} but the set says {e}", c.moves, s.score)
                    }
                    _ => ok += 1,
                }
            }
            Err(e) => eprintln!("{}: {e}", c.moves),
        }
    }
    (stats, ok)
}

/// `--boards`: the empty board of each size in `list` at each thread count, with time, nodes
/// and the result, checked against the published table where it has the board.
fn bench_boards(b: &BenchArgs, list: &[String], threads: &[usize]) -> Result<ExitCode, String> {
    let list: Vec<String> = if list.is_empty() {
        DEFAULT_BOARDS.split(',').map(String::from).collect()
    } else {
        list.to_vec()
    };
    let boards = list
        .iter()
        .map(|s| s.parse::<BoardSize>().map_err(|e| format!("--boards: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let published: Vec<BoardResult> =
        parse_table(PUBLISHED).map_err(|e| format!("tests/data/board_results: {e}"))?;
    let tt_mb = b.common.tt_mb.unwrap_or_else(default_tt_mb);
    println!("fourfold bench --boards: the empty board of each size, table {tt_mb} MiB");
    println!(
        "{:<6} {:>7} {:>11} {:>14} {:>9} {:>6}  {:<32} published",
        "board", "threads", "time", "nodes", "nodes/s", "score", "result"
    );
    let mut failed = false;
    for board in boards {
        let known = published.iter().find(|p| p.board == board);
        for &t in threads {
            let engine = searcher(&b.common, Some(board), t, None)?;
            engine.table().clear();
            let s = engine.solve("").map_err(|e| format!("{board}: {e}"))?;
            let secs = s.elapsed.as_secs_f64();
            let outcome = board.outcome(s.score, 0);
            let result =
                outcome.map_or(format!("score {} out of range", s.score), |o| o.to_string());
            let check = match (known, outcome) {
                (None, _) => "not published".to_string(),
                (Some(p), Some(o)) if p.agrees(o) => "agrees".to_string(),
                (Some(p), _) => {
                    failed = true;
                    format!("DISAGREES: published {p}")
                }
            };
            println!(
                "{:<6} {:>7} {:>11} {:>14} {:>9} {:>6}  {:<32} {}",
                board.to_string(),
                t,
                fmt_time(secs),
                s.nodes,
                human(s.nodes as f64 / secs.max(1e-9)),
                s.score,
                result,
                check
            );
            warn_pin(&engine);
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
