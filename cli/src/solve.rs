//! `solve` and `analyze`: positions from arguments or a file, the whole-board main job with
//! progress, and their output formats.
//!
//! A closed standard output (`fourfold solve -i set | head -1`) ends the run quietly: no
//! more solves, no message, and the exit status the lines already printed earned (0 when
//! all were good). Any other write error is an error (exit status 2).

use crate::common::{all_cores, build, human, stop_on_ctrl_c, warn_pin, warn_threads, Common};
use clap::Args;
use fourfold::engine::CaseLine;
use fourfold::outcome::describe;
use fourfold::testset::{lines, LineError};
use fourfold::{Analysis, Engine, ErrorKind, Interrupted, Solution, Step};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Args, Clone)]
pub struct SolveArgs {
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
    pub analyze: bool,
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
    #[command(flatten)]
    book: crate::book::BookArgs,
    #[command(flatten)]
    checkpoint: crate::checkpoint::CheckpointArgs,
}

/// Where a position came from, for error messages.
pub struct Item {
    label: String,
    pub line: Result<CaseLine, LineError>,
}

/// The positions of the arguments, then of `--input`, read as bytes line by line on the
/// engine's board: a bad line (not UTF-8, too long, not a position) is an item of its own,
/// reported in its turn.
fn read_items(a: &SolveArgs, engine: &Engine) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    for (i, p) in a.positions.iter().enumerate() {
        items.push(Item {
            label: format!("argument {}", i + 1),
            line: engine.parse_case(p),
        });
    }
    if let Some(path) = &a.input {
        let reader: Box<dyn BufRead> = if path == "-" {
            Box::new(io::stdin().lock())
        } else {
            let f = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
            Box::new(io::BufReader::new(f))
        };
        for (n, line) in lines(reader) {
            let line = match line {
                Ok(l) if l.trim().is_empty() => continue,
                Ok(l) => engine.parse_case(&l),
                Err(e) => Err(e),
            };
            items.push(Item {
                label: format!("{path}:{n}"),
                line,
            });
        }
    }
    Ok(items)
}

pub fn run(a: SolveArgs) -> Result<ExitCode, String> {
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
        // Longer than a Duration holds: no limit.
        s => s.and_then(|s| Duration::try_from_secs_f64(s).ok()),
    };
    if a.positions.is_empty() && a.input.is_none() && !a.analyze {
        return main_job(&a, threads, limit);
    }
    // The engine first: a table or thread count the machine cannot give is refused before
    // any input is read.
    let mut solver = build(&a.common, None, threads, limit)?;
    crate::book::apply(&a.book, &mut solver)?;
    warn_threads(threads);
    let items = read_items(&a, &solver)?;
    let ckpt = a.checkpoint.start(&solver, a.quiet)?;
    let interrupted = stop_on_ctrl_c(solver.stop_flag());
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
    let mut write_error = None;
    let mut solve_all = || {
        for group in items.chunks(chunk) {
            if stopped || interrupted.load(Ordering::SeqCst) {
                break;
            }
            let good: Vec<&CaseLine> = group.iter().filter_map(|i| i.line.as_ref().ok()).collect();
            let mut results = if split {
                let ps: Vec<&str> = good.iter().map(|c| c.moves.as_str()).collect();
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
                        .analyze(&case.moves)
                        .map(|an| print_analysis(&mut out, &a, case, &an))
                } else {
                    let r = match results.next() {
                        Some(r) => r,
                        None if a.weak => solver.solve_weak(&case.moves),
                        None => solver.solve(&case.moves),
                    };
                    r.map(|s| {
                        let written = print_solution(&mut out, &a, case, &s);
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
                        written
                    })
                };
                match outcome {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        write_error = Some(e);
                        stopped = true;
                        break;
                    }
                    Err(e) => {
                        let ErrorKind::Interrupted(i) = e.kind() else {
                            eprintln!("{}: {e}", item.label);
                            failed = true;
                            continue;
                        };
                        let by_user = interrupted.load(Ordering::SeqCst);
                        report_interrupt(&case.moves, i, by_user);
                        timed_out |= !by_user;
                        if by_user {
                            stopped = true;
                            break;
                        }
                    }
                }
            }
        }
    };
    match &ckpt {
        Some(c) => {
            c.during(solve_all);
            c.finish(if interrupted.load(Ordering::SeqCst) {
                "interrupted"
            } else if timed_out {
                "time limit reached"
            } else {
                "done"
            });
        }
        None => solve_all(),
    }
    if let Some(e) = write_error.or_else(|| out.flush().err()) {
        output_failed(e)?;
    }
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

/// A failed write to stdout: a closed pipe (the reader has all it wanted) is not an error;
/// anything else is.
fn output_failed(e: io::Error) -> Result<(), String> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(format!("cannot write the output: {e}"))
    }
}

fn report_interrupt(moves: &str, e: &Interrupted, by_user: bool) {
    let why = if by_user {
        "interrupted"
    } else {
        "time limit reached"
    };
    let (lo, hi) = (e.lower, e.upper);
    let proven = if lo == hi {
        format!("score {lo} proven, best move unknown")
    } else {
        format!("score proven in [{lo}, {hi}]")
    };
    eprintln!(
        "{moves}: {why} after {:.1} s and {} nodes: {proven}",
        e.elapsed.as_secs_f64(),
        e.nodes
    );
}

fn col_str(c: Option<usize>) -> String {
    c.map_or("-".into(), |c| (c + 1).to_string())
}

fn print_solution(
    out: &mut impl Write,
    a: &SolveArgs,
    case: &CaseLine,
    s: &Solution,
) -> io::Result<()> {
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
            "source": s.source.as_str(),
        });
        writeln!(out, "{v}")
    } else if a.stats {
        writeln!(out, "{} {} {} {micros}", case.moves, s.score, s.nodes)
    } else {
        writeln!(out, "{} {}", case.moves, s.score)
    }
}

fn print_analysis(
    out: &mut impl Write,
    a: &SolveArgs,
    case: &CaseLine,
    an: &Analysis,
) -> io::Result<()> {
    let micros = an.elapsed.as_micros();
    if a.json {
        let v = serde_json::json!({
            "moves": case.moves,
            "scores": an.scores,
            "best_moves": an.best_columns().iter().map(|c| c + 1).collect::<Vec<_>>(),
            "nodes": an.nodes,
            "micros": micros,
            "source": an.source.as_str(),
        });
        return writeln!(out, "{v}");
    }
    let cols: Vec<String> = an
        .scores
        .iter()
        .map(|s| s.map_or("full".to_string(), |v| v.to_string()))
        .collect();
    write!(out, "{} {}", case.moves, cols.join(" "))?;
    if a.stats {
        write!(out, " {} {micros}", an.nodes)?;
    }
    writeln!(out)
}

/// The whole-board solve: progress on stderr, the result, the principal variation.
fn main_job(a: &SolveArgs, threads: usize, limit: Option<Duration>) -> Result<ExitCode, String> {
    let mut solver = build(&a.common, None, threads, limit)?;
    // The main job searches unless a book is asked for by name.
    if a.book.given() {
        crate::book::apply(&a.book, &mut solver)?;
    } else {
        solver.set_book(None).map_err(|e| e.to_string())?;
    }
    warn_threads(threads);
    let board = solver.board();
    let cells = board.cells() as i32;
    let pos = "";
    let ckpt = a.checkpoint.start(&solver, a.quiet)?;
    let interrupted = stop_on_ctrl_c(solver.stop_flag());
    let tty = io::stderr().is_terminal() && !a.quiet;
    let window = Mutex::new((-(cells / 2), cells / 2));
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
            "solving the empty {board} board on {threads} thread(s), table {} MiB",
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
        let mut solve = || {
            if a.weak {
                solver.solve_weak(pos)
            } else {
                solver.solve_with(pos, &mut on_step)
            }
        };
        let r = match &ckpt {
            Some(c) => c.during(solve),
            None => solve(),
        };
        finished.store(true, Ordering::Relaxed);
        r
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    warn_pin(&solver);
    if let Some(c) = &ckpt {
        c.finish(match &result {
            Ok(_) => "solved",
            Err(_) if interrupted.load(Ordering::SeqCst) => "interrupted",
            Err(_) => "time limit reached",
        });
    }
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            let ErrorKind::Interrupted(i) = e.kind() else {
                return Err(e.to_string());
            };
            report_interrupt("empty board", i, interrupted.load(Ordering::SeqCst));
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
        solver.principal_variation(pos, s.score).ok()
    };
    let pv_str = pv
        .as_ref()
        .map(|l| l.iter().map(|c| (c + 1).to_string()).collect::<String>());
    let secs = s.elapsed.as_secs_f64();
    // Who wins and on which move, as the published tables say it (exact solves only).
    let result = if a.weak {
        None
    } else {
        board.outcome(s.score, 0)
    };
    let mut out = io::stdout().lock();
    let print = || -> io::Result<()> {
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
                "source": s.source.as_str(),
                "board": board.to_string(),
                "result": result.map(|r| r.to_string()),
            });
            writeln!(out, "{v}")?;
        } else if a.stats {
            writeln!(out, " {} {} {}", s.score, s.nodes, s.elapsed.as_micros())?;
        } else {
            let meaning = if a.weak {
                ["the first player loses", "a draw", "the first player wins"]
                    [(s.score + 1) as usize]
                    .to_string()
            } else {
                describe(s.score, 0, cells as u32)
            };
            writeln!(out, "score: {} ({meaning})", s.score)?;
            if let Some(r) = result {
                writeln!(out, "result on {board}: {r}")?;
            }
            writeln!(out, "best move: {}", col_str(s.best_move))?;
            if let Some(pv) = pv_str {
                writeln!(out, "perfect play: {pv}")?;
            }
            writeln!(
                out,
                "nodes: {} ({}/s)",
                s.nodes,
                human(s.nodes as f64 / secs.max(1e-9))
            )?;
            writeln!(out, "time: {secs:.2} s on {threads} thread(s)")?;
        }
        Ok(())
    };
    if let Err(e) = print().and_then(|()| out.flush()) {
        output_failed(e)?;
    }
    Ok(ExitCode::SUCCESS)
}
