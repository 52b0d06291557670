//! The `fourfold` command: parses arguments, calls the library, prints.
//!
//! Nothing here searches or decides a score: it reads positions, hands them to
//! [`fourfold::Solver`], and formats what comes back (text, JSON, progress on stderr).

use clap::{Args, Parser, Subcommand};
use fourfold::testset::{parse_line, Case, LineError};
use fourfold::{Analysis, Interrupted, Params, Position, Solution, Solver, SolverBuilder, Step};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const CELLS: i32 = 42;

#[derive(Parser)]
#[command(
    name = "fourfold",
    version,
    about = "A multi-threaded Connect-4 solver"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve positions (the empty board when none is given).
    Solve(SolveArgs),
    /// Score every column of positions (same as `solve --analyze`).
    Analyze(SolveArgs),
    /// Benchmark the solver on test sets, or measure thread scaling.
    Bench(BenchArgs),
}

#[derive(Args, Clone)]
struct Common {
    /// Table size in MiB (any whole number >= 1). Default: a sixteenth of the machine's
    /// memory, between 64 MiB and 256 MiB (256 MiB when the memory cannot be read); larger
    /// tables measured slower per node and barely smaller in nodes (BENCHMARKS.md).
    #[arg(long = "tt-mb", value_name = "MIB")]
    tt_mb: Option<usize>,
    /// Pin search threads to cores (goes on unpinned, with a warning, where refused).
    #[arg(long)]
    pin: bool,
    /// Search tuning for experiments: NAME=VALUE (see `fourfold::Params`).
    #[arg(long = "param", value_name = "NAME=VALUE", hide = true)]
    params: Vec<String>,
}

#[derive(Args, Clone)]
struct SolveArgs {
    /// Move strings such as `4453` (1-indexed columns); `""` is the empty board.
    positions: Vec<String>,
    /// Read positions from FILE, one per line (`-` = stdin). A line may carry an expected
    /// score after a space; mismatches are reported and make the exit status non-zero.
    #[arg(long, short, value_name = "FILE")]
    input: Option<String>,
    /// Append `<nodes> <microseconds>` to each line.
    #[arg(long)]
    stats: bool,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Win/draw/loss only: 1, 0 or -1.
    #[arg(long)]
    weak: bool,
    /// Print the score of every column (`full` for a full column).
    #[arg(long)]
    analyze: bool,
    /// Threads (default: all available cores; must be at least 1).
    #[arg(long, short = 't', value_name = "N")]
    threads: Option<usize>,
    /// Give each solve at most SECS seconds; a solve stopped by it prints the bounds proven
    /// so far (exit status 124), and a batch goes on with the next position.
    #[arg(long, value_name = "SECS")]
    time_limit: Option<f64>,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct BenchArgs {
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
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(a) => run_solve(a),
        Command::Analyze(mut a) => {
            a.analyze = true;
            run_solve(a)
        }
        Command::Bench(b) => run_bench(b),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("fourfold: {msg}");
            ExitCode::from(2)
        }
    }
}

/// The default table size: a sixteenth of physical memory, clamped to 64..=256 MiB.
fn default_tt_mb() -> usize {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
    });
    match total_kib {
        Some(kib) => (kib / 1024 / 16).clamp(64, 256),
        None => fourfold::DEFAULT_TABLE_MIB,
    }
}

fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_params(list: &[String]) -> Result<Params, String> {
    let mut p = Params::default();
    for item in list {
        let (name, value) = item
            .split_once('=')
            .ok_or(format!("--param {item}: expected NAME=VALUE"))?;
        let n = || {
            value
                .parse::<u32>()
                .map_err(|_| format!("--param {item}: not a number"))
        };
        let b = || {
            value
                .parse::<bool>()
                .map_err(|_| format!("--param {item}: not true/false"))
        };
        match name {
            "threat_order_below" => p.threat_order_below = n()?,
            "etc_below" => p.etc_below = n()?,
            "threat_bonus" => p.threat_bonus = n()?,
            "mirror_below" => p.mirror_below = n()?,
            "table_every_ply" => p.table_every_ply = b()?,
            "claim_even" => p.claim_even = b()?,
            "claim_even_general" => p.claim_even_general = b()?,
            "table_below" => p.table_below = n()?,
            "forcing_from" => p.forcing_from = n()?,
            "rescan_work" => p.rescan_work = n()? as u64,
            "zero_window_below" => p.zero_window_below = n()?,
            "prefetch" => p.prefetch = b()?,
            "helper_windows" => p.helper_windows = b()?,
            "defer_below" => p.defer_below = n()?,
            "only_helpers_defer" => p.only_helpers_defer = b()?,
            "odd_threat" => p.odd_threat = b()?,
            "odd_threat_ahead" => p.odd_threat_ahead = b()?,
            _ => return Err(format!("--param: unknown parameter {name}")),
        }
    }
    Ok(p)
}

fn build(common: &Common, threads: usize, limit: Option<Duration>) -> Result<Solver, String> {
    let solver = SolverBuilder::default()
        .params(parse_params(&common.params)?)
        .table_mib(common.tt_mb.unwrap_or_else(default_tt_mb))
        .threads(threads)
        .pin(common.pin)
        .time_limit(limit)
        .build()
        .map_err(|e| e.to_string())?;
    Ok(solver)
}

fn warn_pin(solver: &Solver) {
    if solver.pin_failed() {
        eprintln!("fourfold: warning: the OS refused to pin threads to cores; running unpinned");
    }
}

/// Where a position came from, for error messages.
struct Item {
    label: String,
    line: Result<Case, LineError>,
}

fn read_items(a: &SolveArgs) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    for (i, p) in a.positions.iter().enumerate() {
        items.push(Item {
            label: format!("argument {}", i + 1),
            line: parse_line(p),
        });
    }
    if let Some(path) = &a.input {
        let reader: Box<dyn BufRead> = if path == "-" {
            Box::new(io::stdin().lock())
        } else {
            let f = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
            Box::new(io::BufReader::new(f))
        };
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("cannot read {path}: {e}"))?;
            if line.trim().is_empty() {
                continue;
            }
            items.push(Item {
                label: format!("{path}:{}", i + 1),
                line: parse_line(&line),
            });
        }
    }
    Ok(items)
}

fn run_solve(a: SolveArgs) -> Result<ExitCode, String> {
    let threads = a.threads.unwrap_or_else(all_cores);
    if threads == 0 {
        return Err("--threads must be at least 1, not 0".into());
    }
    if a.common.tt_mb == Some(0) {
        return Err("--tt-mb must be at least 1 MiB, not 0".into());
    }
    let limit = match a.time_limit {
        Some(s) if !(s > 0.0 && s.is_finite()) => {
            return Err(format!(
                "--time-limit must be a positive number of seconds, not {s}"
            ))
        }
        s => s.map(Duration::from_secs_f64),
    };
    if a.positions.is_empty() && a.input.is_none() && !a.analyze {
        return main_job(&a, threads, limit);
    }
    let items = read_items(&a)?;
    let solver = build(&a.common, threads, limit)?;
    let stop = solver.stop_flag();
    let interrupted = &*Box::leak(Box::new(AtomicBool::new(false)));
    let _ = ctrlc::set_handler(move || {
        interrupted.store(true, Ordering::SeqCst);
        stop.raise();
    });
    let mut failed = false;
    let out = io::stdout();
    let mut out = out.lock();
    // Batches of many positions on several threads: one thread per position (rayon), which
    // BENCHMARKS.md measures as faster than Lazy SMP on each position in turn; a few positions
    // get every thread each.
    let split = threads > 1 && !a.analyze && items.len() >= 2 * threads;
    let chunk = if split { 16 * threads } else { 1 };
    let mut stopped = false;
    let mut timed_out = false;
    for group in items.chunks(chunk) {
        if stopped || interrupted.load(Ordering::SeqCst) {
            break;
        }
        let good: Vec<&Case> = group.iter().filter_map(|i| i.line.as_ref().ok()).collect();
        let mut results = if split {
            let ps: Vec<Position> = good.iter().map(|c| c.position).collect();
            solver.solve_many(&ps, a.weak).into_iter()
        } else {
            Vec::new().into_iter()
        };
        for item in group {
            let case = match &item.line {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("{}: {e}", item.label);
                    failed = true;
                    continue;
                }
            };
            let outcome = if a.analyze {
                solver
                    .analyze(&case.position)
                    .map(|an| print_analysis(&mut out, &a, case, &an))
            } else {
                let r = match results.next() {
                    Some(r) => r,
                    None if a.weak => solver.solve_weak(&case.position),
                    None => solver.solve(&case.position),
                };
                r.map(|s| {
                    print_solution(&mut out, &a, case, &s);
                    let exp = case.expected.map(|e| if a.weak { e.signum() } else { e });
                    if exp.is_some_and(|e| e != s.score) {
                        eprintln!(
                            "{}: {}: score {} but the line expects {}",
                            item.label,
                            case.moves,
                            s.score,
                            exp.unwrap_or_default()
                        );
                        failed = true;
                    }
                })
            };
            if let Err(e) = outcome {
                let by_user = interrupted.load(Ordering::SeqCst);
                report_interrupt(&case.moves, &e, by_user);
                timed_out |= !by_user;
                if by_user {
                    stopped = true;
                    break;
                }
            }
        }
    }
    let _ = out.flush();
    warn_pin(&solver);
    Ok(if interrupted.load(Ordering::SeqCst) {
        ExitCode::from(130)
    } else if timed_out {
        ExitCode::from(124)
    } else if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn report_interrupt(moves: &str, e: &Interrupted, by_user: bool) {
    let why = if by_user {
        "interrupted"
    } else {
        "time limit reached"
    };
    let (lo, hi) = (e.lower, e.upper);
    eprintln!(
        "{moves}: {why} after {:.1} s and {} nodes: score proven in [{lo}, {hi}]",
        e.elapsed.as_secs_f64(),
        e.nodes
    );
}

fn col_str(c: Option<usize>) -> String {
    c.map_or("-".into(), |c| (c + 1).to_string())
}

fn print_solution(out: &mut impl Write, a: &SolveArgs, case: &Case, s: &Solution) {
    let micros = s.elapsed.as_micros();
    if a.json {
        let v = serde_json::json!({
            "moves": case.moves,
            "score": s.score,
            "best_move": s.best_move.map(|c| c + 1),
            "nodes": s.nodes,
            "micros": micros,
            "weak": a.weak,
            "expected": case.expected,
        });
        let _ = writeln!(out, "{v}");
    } else if a.stats {
        let _ = writeln!(out, "{} {} {} {micros}", case.moves, s.score, s.nodes);
    } else {
        let _ = writeln!(out, "{} {}", case.moves, s.score);
    }
}

fn print_analysis(out: &mut impl Write, a: &SolveArgs, case: &Case, an: &Analysis) {
    let micros = an.elapsed.as_micros();
    if a.json {
        let v = serde_json::json!({
            "moves": case.moves,
            "scores": an.scores,
            "best_moves": an.best_columns().iter().map(|c| c + 1).collect::<Vec<_>>(),
            "nodes": an.nodes,
            "micros": micros,
        });
        let _ = writeln!(out, "{v}");
        return;
    }
    let cols: Vec<String> = an
        .scores
        .iter()
        .map(|s| s.map_or("full".to_string(), |v| v.to_string()))
        .collect();
    let _ = write!(out, "{} {}", case.moves, cols.join(" "));
    if a.stats {
        let _ = write!(out, " {} {micros}", an.nodes);
    }
    let _ = writeln!(out);
}

fn ordinal(n: i32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The score in words, for a position where `moves` stones are down.
fn describe(score: i32, moves: u32) -> String {
    let (mover, other) = if moves % 2 == 0 {
        ("first", "second")
    } else {
        ("second", "first")
    };
    match score {
        0 => "a draw with perfect play".into(),
        s if s > 0 => format!(
            "the {mover} player (to move) wins with their {} stone",
            ordinal(CELLS / 2 + 1 - s)
        ),
        s => format!(
            "the {other} player wins with their {} stone",
            ordinal(CELLS / 2 + 1 + s)
        ),
    }
}

fn human(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.2}G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// The whole-board solve: progress on stderr, the result, the principal variation.
fn main_job(a: &SolveArgs, threads: usize, limit: Option<Duration>) -> Result<ExitCode, String> {
    let solver = build(&a.common, threads, limit)?;
    let pos = Position::new();
    let stop = solver.stop_flag();
    let interrupted = &*Box::leak(Box::new(AtomicBool::new(false)));
    let _ = ctrlc::set_handler(move || {
        interrupted.store(true, Ordering::SeqCst);
        stop.raise();
    });
    let tty = io::stderr().is_terminal() && !a.quiet;
    let window = Mutex::new((-(CELLS / 2), CELLS / 2));
    let finished = AtomicBool::new(false);
    let bar = tty.then(|| {
        let b = ProgressBar::new_spinner();
        b.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").unwrap());
        b.enable_steady_tick(Duration::from_millis(120));
        b
    });
    let start = Instant::now();
    let status = |w: (i32, i32)| {
        let nodes = solver.live_nodes() as f64;
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        format!(
            "score in [{}, {}]  nodes {}  {}/s  table {:.0}% full",
            w.0,
            w.1,
            human(nodes),
            human(nodes / secs),
            solver.table().fill() * 100.0
        )
    };
    if !a.quiet {
        eprintln!(
            "solving the empty {}x{} board on {threads} thread(s), table {} MiB",
            7,
            6,
            solver.table().bytes() >> 20
        );
    }
    let result = std::thread::scope(|s| {
        if let Some(bar) = &bar {
            s.spawn(|| {
                while !finished.load(Ordering::Relaxed) {
                    let w = *window.lock().unwrap();
                    bar.set_message(status(w));
                    std::thread::sleep(Duration::from_millis(250));
                }
            });
        }
        let mut on_step = |st: Step| {
            *window.lock().unwrap() = (st.lower, st.upper);
            if !tty && !a.quiet {
                eprintln!(
                    "[{:9.2} s] {}",
                    st.elapsed.as_secs_f64(),
                    status((st.lower, st.upper))
                );
            }
        };
        let r = if a.weak {
            solver.solve_weak(&pos)
        } else {
            solver.solve_with(&pos, &mut on_step)
        };
        finished.store(true, Ordering::Relaxed);
        r
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    warn_pin(&solver);
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            report_interrupt("empty board", &e, interrupted.load(Ordering::SeqCst));
            return Ok(ExitCode::from(if interrupted.load(Ordering::SeqCst) {
                130
            } else {
                124
            }));
        }
    };
    let pv = if a.weak {
        None
    } else {
        solver.principal_variation(&pos, s.score).ok()
    };
    let pv_str = pv
        .as_ref()
        .map(|l| l.iter().map(|c| (c + 1).to_string()).collect::<String>());
    let secs = s.elapsed.as_secs_f64();
    if a.json {
        let v = serde_json::json!({
            "moves": "",
            "score": s.score,
            "weak": a.weak,
            "best_move": s.best_move.map(|c| c + 1),
            "pv": pv_str,
            "nodes": s.nodes,
            "micros": s.elapsed.as_micros(),
            "threads": threads,
        });
        println!("{v}");
    } else if a.stats {
        println!(" {} {} {}", s.score, s.nodes, s.elapsed.as_micros());
    } else {
        let meaning = if a.weak {
            ["the first player loses", "a draw", "the first player wins"][(s.score + 1) as usize]
                .to_string()
        } else {
            describe(s.score, 0)
        };
        println!("score: {} ({meaning})", s.score);
        println!("best move: {}", col_str(s.best_move));
        if let Some(pv) = pv_str {
            println!("perfect play: {pv}");
        }
        println!(
            "nodes: {} ({}/s)",
            s.nodes,
            human(s.nodes as f64 / secs.max(1e-9))
        );
        println!("time: {secs:.2} s on {threads} thread(s)");
    }
    Ok(ExitCode::SUCCESS)
}

/// A bundled test set: name and contents.
const BUNDLED: [(&str, &str); 6] = [
    ("Test_L3_R1", include_str!("../tests/data/Test_L3_R1")),
    ("Test_L2_R1", include_str!("../tests/data/Test_L2_R1")),
    ("Test_L2_R2", include_str!("../tests/data/Test_L2_R2")),
    ("Test_L1_R1", include_str!("../tests/data/Test_L1_R1")),
    ("Test_L1_R2", include_str!("../tests/data/Test_L1_R2")),
    ("Test_L1_R3", include_str!("../tests/data/Test_L1_R3")),
];

fn run_bench(b: BenchArgs) -> Result<ExitCode, String> {
    let threads = b.threads.clone().unwrap_or_else(|| vec![all_cores()]);
    if threads.contains(&0) {
        return Err("--threads must be at least 1, not 0".into());
    }
    if b.common.tt_mb == Some(0) {
        return Err("--tt-mb must be at least 1 MiB, not 0".into());
    }
    // The sets: (name, cases).
    let mut sets: Vec<(String, Vec<Case>)> = Vec::new();
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
            match parse_line(line) {
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
            vec![parse_line("").expect("empty board")],
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
    println!(
        "fourfold bench: table {tt_mb} MiB, {} table per position, {} solve",
        if b.fresh {
            "cleared"
        } else {
            "new generation of the"
        },
        if b.weak { "weak" } else { "strong" }
    );
    if threads.len() == 1 {
        let solver = build(&b.common, threads[0], None)?;
        // Touch every page once (in parallel) so that no set pays for the OS zeroing them.
        solver.table().clear();
        let wall = Instant::now();
        println!(
            "{:<14} {:>9} {:>9} {:>12} {:>14} {:>10}",
            "set", "positions", "correct", "mean time", "mean nodes", "Mnodes/s"
        );
        for (name, cases) in &sets {
            let (stats, ok) = bench_set(&solver, cases, b.fresh, b.weak)?;
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
            let solver = build(&b.common, t, None)?;
            solver.table().clear();
            let mut secs = 0.0;
            let mut nodes = 0;
            let mut fill: f64 = 0.0;
            for (_, cases) in &sets {
                let (stats, ok) = bench_set(&solver, cases, b.fresh, b.weak)?;
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
    solver: &Solver,
    cases: &[Case],
    fresh: bool,
    weak: bool,
) -> Result<(SetStats, usize), String> {
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
            solver.solve_weak(&c.position)
        } else {
            solver.solve(&c.position)
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

fn fmt_time(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.2} us", secs * 1e6)
    }
}
