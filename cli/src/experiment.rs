//! `experiment check-bits`: reads the positions, runs [`fourfold::experiment::check_bits`]
//! and prints its rows (a table, or JSON lines), and draws them as an SVG plot.

use clap::{Args, Subcommand};
use fourfold::experiment::{
    buckets_of_mib, check_bits, exact_check_bits, random_positions, CheckBits, CheckBitsRow,
};
use fourfold::BoardSize;
use std::fmt::Write as _;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum ExperimentCommand {
    /// Solve positions on a table that keeps only C check bits, for each C, against the
    /// exact table: false hits, wrong scores, and where the harmful false hits landed.
    CheckBits(CheckBitsArgs),
}

#[derive(Args)]
pub struct CheckBitsArgs {
    /// Board size WxH: 7x6, 6x6, 7x5, 5x4 or 4x4.
    #[arg(long, short = 'b', value_name = "WxH", default_value = "7x6")]
    board: BoardSize,
    /// A test-set file (`<moves> [score]` per line; the score is not used).
    #[arg(long, short, value_name = "FILE", conflicts_with_all = ["random", "empty"])]
    input: Option<String>,
    /// At most N positions of the file.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// N random positions (moves that never win at once) of --stones stones.
    #[arg(long, value_name = "N", conflicts_with = "empty")]
    random: Option<usize>,
    /// Stones of the random positions.
    #[arg(long, value_name = "S", default_value_t = 8)]
    stones: u32,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The empty board.
    #[arg(long)]
    empty: bool,
    /// Table size in MiB.
    #[arg(long = "tt-mb", value_name = "MIB", default_value_t = 8)]
    tt_mb: usize,
    /// Thread counts, comma separated.
    #[arg(
        long,
        short = 't',
        value_delimiter = ',',
        value_name = "N,...",
        default_value = "1"
    )]
    threads: Vec<usize>,
    /// Check widths, comma separated (default: 0 to the exact width).
    #[arg(long, short = 'c', value_delimiter = ',', value_name = "C,...")]
    checks: Option<Vec<u32>>,
    /// Wrong positions per width whose harmful ply is located (a few replays each).
    #[arg(long, value_name = "N", default_value_t = 10)]
    trace: usize,
    /// One JSON object per width and thread count on stdout.
    #[arg(long)]
    json: bool,
    /// Write a plot of the rows (log scale, with the birthday estimate) to FILE.
    #[arg(long, value_name = "FILE")]
    svg: Option<String>,
}

pub fn run(cmd: ExperimentCommand) -> Result<ExitCode, String> {
    match cmd {
        ExperimentCommand::CheckBits(a) => run_check_bits(a),
    }
}

/// The positions of `a`: the file's, the random ones, or the empty board.
fn positions(a: &CheckBitsArgs) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = if let Some(path) = &a.input {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        text.lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect()
    } else if let Some(n) = a.random {
        random_positions(a.board, n, a.stones, a.seed)
    } else if a.empty {
        vec![String::new()]
    } else {
        return Err("give --input FILE, --random N or --empty".into());
    };
    if let Some(n) = a.limit {
        out.truncate(n);
    }
    Ok(out)
}

fn run_check_bits(a: CheckBitsArgs) -> Result<ExitCode, String> {
    if a.tt_mb == 0 {
        return Err("--tt-mb must be at least 1 MiB, not 0".into());
    }
    let buckets = buckets_of_mib(a.tt_mb);
    let exact = exact_check_bits(a.board, buckets);
    let mut setup = CheckBits {
        board: a.board,
        positions: positions(&a)?,
        buckets,
        threads: 1,
        checks: a.checks.clone().unwrap_or_else(|| (0..=exact).collect()),
        trace: a.trace,
    };
    if !a.json {
        println!(
            "{} board, {} positions, {} MiB table: exact width {exact} check bits",
            a.board,
            setup.positions.len(),
            a.tt_mb
        );
        println!(
            "{:>3} {:>2} {:>12} {:>12} {:>6} {:>8} {:>6} {:>6} {:>5} {:>5} {:>14} {:>7}  harm plies",
            "c",
            "t",
            "false hits",
            "predicted",
            "hit",
            "pred.",
            "wrong",
            "±1",
            "sign",
            "wdl",
            "nodes",
            "ratio"
        );
    }
    let mut rows = Vec::new();
    for &t in &a.threads {
        setup.threads = t;
        let mut print = |r: &CheckBitsRow| print_row(r, a.json);
        rows.extend(check_bits(&setup, &mut print).map_err(|e| e.to_string())?);
    }
    if let Some(path) = &a.svg {
        let title = format!(
            "{} board, {} positions, {} MiB table",
            a.board,
            setup.positions.len(),
            a.tt_mb
        );
        std::fs::write(path, svg(&rows, &title)).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_row(r: &CheckBitsRow, json: bool) {
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
        return;
    }
    // `ply:count`, and `?:count` for the positions whose replays did not locate it.
    let mut harm: Vec<String> = r
        .harm_ply
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(p, n)| format!("{p}:{n}"))
        .collect();
    if r.unlocated > 0 {
        harm.push(format!("?:{}", r.unlocated));
    }
    println!(
        "{:>3} {:>2} {:>12} {:>12.1} {:>6} {:>8.1} {:>6} {:>6} {:>5} {:>5} {:>14} {:>7.3}  {}",
        r.c,
        r.threads,
        r.false_hits,
        r.predicted_false_hits,
        r.hit_positions,
        r.predicted_hit_positions,
        r.wrong,
        r.distance.get(1).copied().unwrap_or(0),
        r.sign_flips,
        r.wdl_flips,
        r.nodes,
        r.nodes as f64 / r.exact_nodes.max(1) as f64,
        harm.join(" ")
    );
}

/// One plotted series: name, colour, dashed, and its value per row.
type Series<'a> = (&'a str, &'a str, bool, fn(&CheckBitsRow) -> f64);

/// The rows as an SVG plot: per width `c` (x), on a log scale (y), the false hits and the
/// positions taking one, measured and as the birthday estimate predicts, and the wrong
/// scores; one set of lines per thread count (two threads dotted). Zeros are not drawn.
fn svg(rows: &[CheckBitsRow], title: &str) -> String {
    let series: [Series; 5] = [
        ("false hits", "#1f77b4", false, |r| r.false_hits as f64),
        ("false hits, birthday estimate", "#1f77b4", true, |r| {
            r.predicted_false_hits
        }),
        ("positions taking a false hit", "#2ca02c", false, |r| {
            r.hit_positions as f64
        }),
        ("the same, birthday estimate", "#2ca02c", true, |r| {
            r.predicted_hit_positions
        }),
        ("wrong scores", "#d62728", false, |r| r.wrong as f64),
    ];
    let (w, h, left, right, top, bottom) = (760.0, 460.0, 70.0, 250.0, 40.0, 50.0);
    let max_c = rows.iter().map(|r| r.c).max().unwrap_or(1).max(1) as f64;
    let values = rows
        .iter()
        .flat_map(|r| series.iter().map(move |s| (s.3)(r)));
    let max_v = values.fold(1.0f64, f64::max);
    let decades = max_v.log10().ceil().max(1.0);
    let x = |c: f64| left + c / max_c * (w - left - right);
    // From 0.1 (estimates below one) up.
    let y = |v: f64| top + (1.0 - (v.log10() + 1.0) / (decades + 1.0)) * (h - top - bottom);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{left}" y="22" font-size="14">{title}: check bits kept (x) against counts (log scale)</text>
"##
    );
    for d in -1..=decades as i32 {
        let yy = y(10f64.powi(d));
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{d}</text>"##,
            w - right,
            left - 6.0,
            yy + 4.0
        );
    }
    let step = if max_c > 20.0 { 5 } else { 1 };
    for c in (0..=max_c as u32).step_by(step) {
        let xx = x(c as f64);
        let _ = writeln!(
            s,
            r##"<line x1="{xx}" x2="{xx}" y1="{top}" y2="{}" stroke="#eee"/><text x="{xx}" y="{}" text-anchor="middle">{c}</text>"##,
            h - bottom,
            h - bottom + 16.0
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle">c (check bits)</text>"##,
        (left + w - right) / 2.0,
        h - 12.0
    );
    let mut threads: Vec<usize> = rows.iter().map(|r| r.threads).collect();
    threads.dedup();
    for (ti, &t) in threads.iter().enumerate() {
        for (name, colour, dashed, f) in series.iter() {
            let points: Vec<String> = rows
                .iter()
                .filter(|r| r.threads == t && f(r) >= 0.1)
                .map(|r| format!("{:.1},{:.1}", x(r.c as f64), y(f(r))))
                .collect();
            let dash = match (*dashed, ti > 0) {
                (true, _) => r##" stroke-dasharray="6,4""##,
                (false, true) => r##" stroke-dasharray="2,3""##,
                (false, false) => "",
            };
            let _ = writeln!(
                s,
                r##"<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{}"><title>{name}, {t} thread(s)</title></polyline>"##,
                points.join(" ")
            );
        }
    }
    for (i, (name, colour, dashed, _)) in series.iter().enumerate() {
        let yy = top + 20.0 + 20.0 * i as f64;
        let xx = w - right + 15.0;
        let dash = if *dashed {
            r##" stroke-dasharray="6,4""##
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r##"<line x1="{xx}" x2="{}" y1="{yy}" y2="{yy}" stroke="{colour}" stroke-width="2"{dash}/><text x="{}" y="{}">{name}</text>"##,
            xx + 25.0,
            xx + 30.0,
            yy + 4.0
        );
    }
    if threads.len() > 1 {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}">dotted: {} threads</text>"##,
            w - right + 15.0,
            top + 130.0,
            threads[1]
        );
    }
    s.push_str("</svg>\n");
    s
}
