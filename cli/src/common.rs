//! Options and helpers every command shares: board size, table size, pinning, search
//! parameters, the engine they build, Ctrl-C, and number formatting.

use clap::Args;
use fourfold::{BoardSize, Engine, ErrorKind, Params, SolverBuilder, StopFlag};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Clone)]
pub struct Common {
    /// Board size, WIDTHxHEIGHT (for example 8x5).
    #[arg(long, short = 'b', value_name = "WxH", default_value = "7x6")]
    pub board: BoardSize,
    /// Table size in MiB (any whole number >= 1). Default: a sixteenth of the machine's
    /// memory, between 64 MiB and 256 MiB (256 MiB when the memory cannot be read); larger
    /// tables measured slower per node and barely smaller in nodes (BENCHMARKS.md).
    #[arg(long = "tt-mb", value_name = "MIB")]
    pub tt_mb: Option<usize>,
    /// Pin search threads to cores (goes on unpinned, with a warning, where refused).
    #[arg(long)]
    pub pin: bool,
    /// Search tuning for experiments: NAME=VALUE (see `fourfold::Params`).
    #[arg(long = "param", value_name = "NAME=VALUE", hide = true)]
    pub params: Vec<String>,
    /// Solve with the run-time-sized solver even where this build compiles the board's size
    /// (to measure one against the other: same scores, same nodes).
    #[arg(long = "run-time-sized")]
    pub run_time_sized: bool,
}

/// The default table size: a sixteenth of physical memory, clamped to 64..=256 MiB.
pub fn default_tt_mb() -> usize {
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

pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn parse_params(list: &[String]) -> Result<Params, String> {
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
            "threat_order_min_empty" => p.threat_order_min_empty = n()?,
            "etc_min_empty" => p.etc_min_empty = n()?,
            "threat_order_below" | "etc_below" => {
                return Err(format!(
                    "--param {name}: now counted in empty cells, as {}",
                    name.replace("below", "min_empty")
                ))
            }
            "threat_bonus" => p.threat_bonus = n()?,
            "table_every_ply" => p.table_every_ply = b()?,
            "every_ply_min_empty" => p.every_ply_min_empty = n()?,
            "every_ply_after" => p.every_ply_after = n()? as u64,
            "claim_even" => p.claim_even = b()?,
            "claim_even_general" => p.claim_even_general = b()?,
            "table_min_empty" => p.table_min_empty = n()?,
            "forcing_from" => p.forcing_from = n()?,
            "rescan_work" => p.rescan_work = n()? as u64,
            "zero_window_below" => p.zero_window_below = n()?,
            "static_children_empty" => p.static_children_empty = n()?,
            "first_test" => {
                p.first_test = value
                    .parse::<i32>()
                    .map_err(|_| format!("--param {item}: not an integer"))?
            }
            "first_move_guess_below" => p.first_move_guess_below = n()?,
            "prefetch" => p.prefetch = b()?,
            "helper_windows" => p.helper_windows = b()?,
            "abandon_settled" => p.abandon_settled = b()?,
            "defer_below" => p.defer_below = n()?,
            "only_helpers_defer" => p.only_helpers_defer = b()?,
            "odd_threat" => p.odd_threat = b()?,
            "odd_threat_ahead" => p.odd_threat_ahead = b()?,
            "canonical" => p.canonical = b()?,
            "dead_stones" => p.dead_stones = b()?,
            "no_four" => p.no_four = b()?,
            "guess_node_types" => p.guess_node_types = b()?,
            "near_empty" => p.near_empty = n()?,
            _ => return Err(format!("--param: unknown parameter {name}")),
        }
    }
    Ok(p)
}

/// The engine of `board` (the `--board` one unless given) with the shared options.
pub fn build(
    common: &Common,
    board: Option<BoardSize>,
    threads: usize,
    limit: Option<Duration>,
) -> Result<Engine, String> {
    let board = board.unwrap_or(common.board);
    let builder = SolverBuilder::default()
        .params(parse_params(&common.params)?)
        .table_mib(common.tt_mb.unwrap_or_else(default_tt_mb))
        .threads(threads)
        .pin(common.pin)
        .time_limit(limit);
    let engine = if common.run_time_sized {
        Engine::new_run_time_sized(board, builder)
    } else {
        Engine::new(board, builder)
    };
    engine.map_err(|e| match e.kind() {
        ErrorKind::Build(_) => format!("{board} board: {e} (set the table size with --tt-mb)"),
        _ => e.to_string(),
    })
}

/// Warns (stderr) when `threads` is above the number of cores: allowed, and the answers
/// stay exact, but the extra threads only share the cores.
pub fn warn_threads(threads: usize) {
    let cores = all_cores();
    if threads > cores {
        eprintln!(
            "fourfold: warning: {threads} threads on {cores} core(s): answers stay exact, but \
             threads beyond the cores only share them"
        );
    }
}

pub fn warn_pin(solver: &Engine) {
    if solver.pin_failed() {
        eprintln!("fourfold: warning: the OS refused to pin threads to cores; running unpinned");
    }
}

pub fn human(n: f64) -> String {
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

pub fn fmt_time(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.2} us", secs * 1e6)
    }
}

/// From now on Ctrl-C raises `stop` (the running search ends with what it has proved) and
/// sets the flag returned, which tells the command's report an interrupt from a time limit.
/// Installs the process's one handler: a command calls it once.
pub(crate) fn stop_on_ctrl_c(stop: Arc<StopFlag>) -> &'static AtomicBool {
    let interrupted = &*Box::leak(Box::new(AtomicBool::new(false)));
    let _ = ctrlc::set_handler(move || {
        // ORDERING: set before `raise` (Release), so whoever sees the stop raised (Acquire),
        // or joins a thread that did, sees the flag set too; SeqCst, like its loads, is more
        // than that needs.
        interrupted.store(true, Ordering::SeqCst);
        stop.raise();
    });
    interrupted
}
