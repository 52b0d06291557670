//! Experiments on the solver's design that need the crate's internals, run by
//! `fourfold experiment` and written up under `docs/`.
//!
//! # Check bits
//!
//! [`check_bits`] measures what a table that keeps only `c` check bits would cost. The
//! production table is exact: the bucket index and the check bits together name the key
//! (see [`crate::table`]). Here each position of a set is solved on a lossy table
//! (`Table::lossy`, crate-private) that cuts the check to `c` bits, for each `c` asked, and
//! against the exact answers. A lossy table is built nowhere else: no solve can select it,
//! and the exact table's code paths are the ones every solve runs.
//!
//! Each position is solved on a cleared table, so that its result depends on it alone. The
//! exact reference is the same experiment at the exact width (the lossy table then keeps
//! every bit the exact table keeps, searches the same nodes as the production table and
//! takes no false hit; a test checks both), and every width is solved afresh, the exact
//! one too. Per `c` the experiment reports the false hits taken, the positions whose
//! score came out wrong and how (distance, win/loss and win/draw/loss flips, a score out of
//! the position's range), the nodes, and the birthday estimate beside them: each probe of
//! the exact run meets some number `k` of entries of other positions in its bucket, each of
//! which a `c`-bit check lets through with probability `2^-c`: a false hit with probability
//! `1 - (1 - 2^-c)^k` (at most one per probe, so the estimate saturates at small `c`).
//!
//! Where harm lands: for the first positions whose score is wrong (`CheckBits::trace`),
//! the solve is replayed with the false hits of fewer than `p` plies from the root refused
//! (taken as misses), `p` found by bisection as the largest for which the score is still
//! wrong: false hits at `p` plies or deeper suffice to spoil the root, those deeper than
//! `p` alone do not. That ply is the one reported.
//!
//! A lossy table can make the search inconsistent. Nothing here may panic or hang on it:
//! every solve runs under a time limit (a multiple of the slowest exact solve) and inside
//! `catch_unwind`, and a score outside the position's range is counted and clamped.

use crate::position::{key_bits, Position};
use crate::search::Params;
use crate::solver::{Solver, SolverBuilder};
use crate::table::{Table, BUCKET_BYTES, PLIES};
use crate::BoardSize;
use serde::Serialize;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// The boards the check-bits experiment is compiled for.
pub const CHECK_BITS_BOARDS: [BoardSize; 5] = [
    BoardSize {
        width: 7,
        height: 6,
    },
    BoardSize {
        width: 6,
        height: 6,
    },
    BoardSize {
        width: 7,
        height: 5,
    },
    BoardSize {
        width: 5,
        height: 4,
    },
    BoardSize {
        width: 4,
        height: 4,
    },
];

/// Why an experiment could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentError(pub String);

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExperimentError {}

/// What [`check_bits`] runs.
#[derive(Clone, Debug)]
pub struct CheckBits {
    /// The board (one of [`CHECK_BITS_BOARDS`]).
    pub board: BoardSize,
    /// The positions, as move strings.
    pub positions: Vec<String>,
    /// Table buckets (64 bytes each; [`buckets_of_mib`]).
    pub buckets: usize,
    /// Threads per solve.
    pub threads: usize,
    /// The check widths to measure; the exact width and wider ones are exact.
    pub checks: Vec<u32>,
    /// How many wrong positions per width get their harmful ply located (replays cost a
    /// few solves each).
    pub trace: usize,
}

/// The buckets of a table of `mib` MiB.
pub fn buckets_of_mib(mib: usize) -> usize {
    mib.saturating_mul(1 << 20) / BUCKET_BYTES
}

/// The exact check width of a table of `buckets` buckets on `board`: the key bits the
/// bucket index leaves (`W * (H + 1) - floor(log2 buckets)`).
pub fn exact_check_bits(board: BoardSize, buckets: usize) -> u32 {
    Table::exact_check_bits(buckets, key_bits(board.width, board.height))
}

/// What one check width gave over the set (one JSON line of `fourfold experiment
/// check-bits --json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckBitsRow {
    /// Check bits kept.
    pub c: u32,
    /// The exact width of this board and table.
    pub exact_bits: u32,
    /// Threads per solve.
    pub threads: usize,
    /// Positions solved.
    pub positions: usize,
    /// Probes of the table.
    pub probes: u64,
    /// False hits taken (a hit on another position's entry).
    pub false_hits: u64,
    /// Positions whose solve took at least one false hit.
    pub hit_positions: usize,
    /// Positions whose score came out wrong (a solve stopped or failed counts too).
    pub wrong: usize,
    /// Wrong positions by the distance of their score from the true one (index: distance).
    pub distance: Vec<usize>,
    /// Wrong scores of the opposite sign: a win taken for a loss or back.
    pub sign_flips: usize,
    /// Wrong scores of another outcome: win, draw and loss told apart.
    pub wdl_flips: usize,
    /// Scores outside the position's possible range (clamped before the distance).
    pub out_of_range: usize,
    /// Solves stopped by the time limit, or that panicked (counted wrong).
    pub failed: usize,
    /// Nodes, summed over the positions.
    pub nodes: u64,
    /// Nodes of the exact run.
    pub exact_nodes: u64,
    /// The birthday estimate of the false hits: over the exact run's probes, each meeting `k`
    /// entries of other positions, the sum of `1 - (1 - 2^-c)^k`.
    pub predicted_false_hits: f64,
    /// The birthday estimate of the positions taking a false hit: over the positions, the
    /// sum of the chance that one of the exact run's probes would take one (probes taken as
    /// independent).
    pub predicted_hit_positions: f64,
    /// False hits by ply from the root (trailing zeros cut).
    pub false_hits_by_ply: Vec<u64>,
    /// Wrong positions located (`CheckBits::trace`).
    pub traced: usize,
    /// The located ply of the harmful false hits of each traced position, counted by ply.
    pub harm_ply: Vec<usize>,
    /// Traced positions whose replay with every false hit taken came out right (two
    /// threads' searches differ from run to run): not located.
    pub unlocated: usize,
}

/// One position's solve on one table.
#[derive(Clone, Debug)]
struct One {
    /// The score, `None` when the solve stopped or panicked.
    score: Option<i32>,
    nodes: u64,
    elapsed: Duration,
    false_hits: u64,
    probes: u64,
    exposure: Vec<u64>,
    by_ply: Vec<u64>,
}

impl One {
    /// The birthday estimate at `c` check bits, from this (exact) run's probes: the false
    /// hits expected, and the chance of at least one.
    fn birthday(&self, c: u32) -> (f64, f64) {
        let miss = 1.0 - 0.5f64.powi(c as i32);
        let (mut hits, mut log_none) = (0.0, 0.0);
        // Only the counts met: 0 x ln(0) at `c = 0` would be NaN.
        for (k, &n) in self
            .exposure
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, &n)| n > 0)
        {
            hits += n as f64 * (1.0 - miss.powi(k as i32));
            log_none += n as f64 * k as f64 * miss.ln();
        }
        (hits, 1.0 - log_none.exp())
    }
}

/// Solves every position of `setup` at every check width of `setup.checks` and against the
/// exact width, calling `on_row` with each width's figures as they come.
pub fn check_bits(
    setup: &CheckBits,
    on_row: &mut dyn FnMut(&CheckBitsRow),
) -> Result<Vec<CheckBitsRow>, ExperimentError> {
    match (setup.board.width, setup.board.height) {
        (7, 6) => run::<7, 6>(setup, on_row),
        (6, 6) => run::<6, 6>(setup, on_row),
        (7, 5) => run::<7, 5>(setup, on_row),
        (5, 4) => run::<5, 4>(setup, on_row),
        (4, 4) => run::<4, 4>(setup, on_row),
        _ => Err(ExperimentError(format!(
            "the check-bits experiment runs on {} only, not {}",
            CHECK_BITS_BOARDS
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            setup.board
        ))),
    }
}

/// `count` positions of `stones` stones on `board`, each played at random from the empty
/// board by moves that never win at once (a position reached early where every move wins
/// is drawn again), as move strings; `seed` fixes them.
pub fn random_positions(board: BoardSize, count: usize, stones: u32, seed: u64) -> Vec<String> {
    let (w, h) = (board.width, board.height);
    let stones = stones.min(board.cells());
    let mut s = seed | 1;
    let mut out = Vec::with_capacity(count);
    let mut tries = 0u64;
    while out.len() < count && tries < 1000 * (count as u64 + 1) {
        tries += 1;
        let mut heights = vec![0usize; w];
        let mut moves = String::new();
        let mut cells = vec![vec![None::<bool>; h]; w];
        for n in 0..stones {
            let player = n % 2 == 0;
            let quiet: Vec<usize> = (0..w)
                .filter(|&c| heights[c] < h && !wins(&cells, c, heights[c], player))
                .collect();
            if quiet.is_empty() {
                break;
            }
            let c = quiet[(xorshift(&mut s) % quiet.len() as u64) as usize];
            cells[c][heights[c]] = Some(player);
            heights[c] += 1;
            moves.push(char::from_digit(c as u32 + 1, 13).unwrap_or('?'));
        }
        if moves.len() == stones as usize {
            out.push(moves);
        }
    }
    out
}

/// The xorshift64 generator of the random positions.
fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Whether `player`'s stone at (`col`, `row`) makes four on `cells` (by column, bottom up).
fn wins(cells: &[Vec<Option<bool>>], col: usize, row: usize, player: bool) -> bool {
    let at = |c: isize, r: isize| {
        c >= 0
            && r >= 0
            && (c as usize) < cells.len()
            && (r as usize) < cells[0].len()
            && cells[c as usize][r as usize] == Some(player)
    };
    [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
        let run = |sign: isize| {
            (1..4)
                .take_while(|&k| at(col as isize + sign * k * dc, row as isize + sign * k * dr))
                .count()
        };
        run(1) + run(-1) >= 3
    })
}

/// A solver of `W` x `H` on a lossy table keeping `c` check bits. The table is kept whole
/// (no near tables: `Params::near_empty` 0), so that one width applies to every entry.
fn lossy_solver<const W: usize, const H: usize>(
    setup: &CheckBits,
    c: u32,
    limit: Option<Duration>,
) -> Result<Solver<W, H>, ExperimentError> {
    let table = Table::lossy(
        setup.buckets,
        crate::dims::width::<W, H>(),
        crate::dims::height::<W, H>(),
        c,
    )
    .map_err(|e| ExperimentError(e.to_string()))?;
    SolverBuilder::default()
        .threads(setup.threads)
        .time_limit(limit)
        .params(Params {
            near_empty: 0,
            ..Params::default()
        })
        .build_on(table)
        .map_err(|e| ExperimentError(e.to_string()))
}

/// Solves `pos` on `solver`'s cleared table, false hits of fewer than `refuse_below` plies
/// from the root refused.
fn solve_one<const W: usize, const H: usize>(
    solver: &Solver<W, H>,
    pos: &Position<W, H>,
    refuse_below: u32,
) -> One {
    let table = solver.table();
    table.clear();
    table.lossy_reset(pos.moves());
    table.lossy_refuse_below(refuse_below);
    let start = Instant::now();
    let solved = catch_unwind(AssertUnwindSafe(|| solver.solve(pos)));
    let elapsed = start.elapsed();
    let tally = table.lossy_tally().unwrap_or_default();
    let (score, nodes) = match solved {
        Ok(Ok(s)) => (Some(s.score), s.nodes),
        // A stop while the best move was being found leaves the score known.
        Ok(Err(i)) => ((i.lower == i.upper).then_some(i.lower), i.nodes),
        Err(_) => (None, 0),
    };
    One {
        score,
        nodes,
        elapsed,
        false_hits: tally.false_hits,
        probes: tally.probes,
        exposure: tally.exposure,
        by_ply: tally.by_ply,
    }
}

/// The experiment on `W` x `H` ([`check_bits`]).
fn run<const W: usize, const H: usize>(
    setup: &CheckBits,
    on_row: &mut dyn FnMut(&CheckBitsRow),
) -> Result<Vec<CheckBitsRow>, ExperimentError> {
    let positions = setup
        .positions
        .iter()
        .map(|m| Position::<W, H>::parse(m).map_err(|e| ExperimentError(format!("{m:?}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let exact_bits = exact_check_bits(setup.board, setup.buckets);
    let exact_solver = lossy_solver::<W, H>(setup, exact_bits, None)?;
    let exact: Vec<One> = positions
        .iter()
        .map(|p| solve_one(&exact_solver, p, 0))
        .collect();
    drop(exact_solver);
    if let Some(i) = exact.iter().position(|e| e.score.is_none()) {
        return Err(ExperimentError(format!(
            "the exact solve of {:?} failed",
            setup.positions[i]
        )));
    }
    // A lossy solve may search far more than the exact one; it is stopped well past that.
    let slowest = exact.iter().map(|e| e.elapsed).max().unwrap_or_default();
    let limit = Some((slowest * 50).max(Duration::from_secs(2)));
    let mut rows = Vec::new();
    for &c in &setup.checks {
        // Every width is solved afresh, the exact one too: its row checks the reference.
        let solver = lossy_solver::<W, H>(setup, c, limit)?;
        let lossy: Vec<One> = positions.iter().map(|p| solve_one(&solver, p, 0)).collect();
        let row = row_of(setup, c, exact_bits, &lossy, &exact, &positions, &solver);
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The row of width `c`: `lossy` against `exact`, position by position; the first wrong
/// ones traced on `solver`, the lossy run's.
fn row_of<const W: usize, const H: usize>(
    setup: &CheckBits,
    c: u32,
    exact_bits: u32,
    lossy: &[One],
    exact: &[One],
    positions: &[Position<W, H>],
    solver: &Solver<W, H>,
) -> CheckBitsRow {
    let mut row = CheckBitsRow {
        c,
        exact_bits,
        threads: setup.threads,
        positions: positions.len(),
        ..CheckBitsRow::default()
    };
    let mut by_ply = vec![0u64; PLIES];
    for ((l, e), pos) in lossy.iter().zip(exact).zip(positions) {
        row.probes += l.probes;
        row.false_hits += l.false_hits;
        row.hit_positions += usize::from(l.false_hits > 0);
        row.nodes += l.nodes;
        row.exact_nodes += e.nodes;
        let (hits, any) = e.birthday(c);
        row.predicted_false_hits += hits;
        row.predicted_hit_positions += any;
        for (a, b) in by_ply.iter_mut().zip(&l.by_ply) {
            *a += b;
        }
        let truth = e.score.unwrap_or(0);
        if l.score == Some(truth) {
            continue;
        }
        row.wrong += 1;
        let Some(score) = l.score else {
            row.failed += 1;
            continue;
        };
        count_wrong(&mut row, pos, score, truth);
        if row.traced < setup.trace {
            row.traced += 1;
            let Some(ply) = harm_ply(solver, pos, truth) else {
                row.unlocated += 1;
                continue;
            };
            if row.harm_ply.len() <= ply as usize {
                row.harm_ply.resize(ply as usize + 1, 0);
            }
            row.harm_ply[ply as usize] += 1;
        }
    }
    let used = by_ply.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
    by_ply.truncate(used);
    row.false_hits_by_ply = by_ply;
    row
}

/// Counts a wrong `score` of `pos` (true score `truth`): range, distance and flips.
fn count_wrong<const W: usize, const H: usize>(
    row: &mut CheckBitsRow,
    pos: &Position<W, H>,
    score: i32,
    truth: i32,
) {
    let cells = Position::<W, H>::cells() as i32;
    let m = pos.moves() as i32;
    let (lo, hi) = (-(cells - m) / 2, (cells + 1 - m) / 2);
    if !(lo..=hi).contains(&score) {
        row.out_of_range += 1;
    }
    let score = score.clamp(lo, hi);
    let d = score.abs_diff(truth) as usize;
    if row.distance.len() <= d {
        row.distance.resize(d + 1, 0);
    }
    row.distance[d] += 1;
    row.sign_flips += usize::from(score.signum() * truth.signum() < 0);
    row.wdl_flips += usize::from(score.signum() != truth.signum());
}

/// The ply of the false hits that spoil the score of `pos` (true score `truth`) on
/// `solver`'s lossy table: the largest `p` for which the solve with the false hits of fewer
/// than `p` plies refused still comes out wrong, by bisection. With two threads a first
/// replay that refuses nothing must come out wrong too, else `None` (one thread's solve on a
/// cleared table is the same every time).
fn harm_ply<const W: usize, const H: usize>(
    solver: &Solver<W, H>,
    pos: &Position<W, H>,
    truth: i32,
) -> Option<u32> {
    let wrong = |p: u32| solve_one(solver, pos, p).score != Some(truth);
    if solver.threads() > 1 && !wrong(0) {
        return None;
    }
    // Refusing every false hit (no ply reaches `hi`) leaves an exact search.
    let (mut lo, mut hi) = (0, Position::<W, H>::cells() - pos.moves() + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if wrong(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    solver.table().lossy_refuse_below(0);
    Some(lo)
}
