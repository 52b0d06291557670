//! The solver: the public entry point, and the Lazy SMP driver that puts threads on a solve.
//!
//! This module owns the table's lifetime, the thread pool of one solve, the stop flags, the
//! live counters, and the bounds proven for the root of the latest solve ([`RootBounds`]:
//! what a checkpoint saves, and what a solve of that same position resumes from). It
//! decides nothing about the search itself (that is the `search` module) and never prints:
//! progress reaches the caller through [`Solver::live_nodes`] and the [`Step`] callback of
//! [`Solver::solve_with`].
//!
//! # Lazy SMP
//!
//! Every thread runs the whole null-window driver on the same root with its own searcher.
//! They share the table, the stop flags, cache-padded node counters, the score window
//! proven so far and a small array of "being searched" marks. Helpers are desynchronised
//! two ways: thread `t > 0` tests a null window next to the main thread's (`+1`, `-1`, `+2`,
//! ...), and near the root a thread puts off a child that another thread is searching with
//! the same window (ABDADA's idea; a child is marked before it is entered), so that threads
//! spread over the children of a node instead of searching the same one in lockstep.
//! Move-order jitter was tried and made things worse (BENCHMARKS.md). The first thread to
//! finish gives the answer and raises the solve's `done` flag; the others abandon their
//! search and store nothing for the nodes they were in. `done` goes up as soon as the score
//! is proven; the move that achieves it is then searched by a searcher that no flag or time
//! limit interrupts, so a proven score is never reported as [`Interrupted`].
//!
//! Batches: [`Solver::solve_many`] instead spreads positions over the threads, one thread
//! each, which is the better use of threads for many short solves.

use crate::bitboard::Bitboard;
use crate::dims::{self, Dims, RUN_H, RUN_W};
use crate::ordering::centre_order;
use crate::position::{key_bits, Position};
use crate::search::isa::{with_isa, Isa};
use crate::search::{Params, Searcher, Shared, Window};
use crate::sync::AtomicU64;
use crate::table::{Bound, InProgress, Table, TableError};
use crate::StopFlag;
use crossbeam_utils::CachePadded;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The default table size in MiB when none is given to the builder.
pub use crate::table::DEFAULT_TABLE_MIB;

/// The most threads per solve [`SolverBuilder::build`] accepts: far above any machine's
/// useful count, low enough that a typo (`--threads 100000`) cannot exhaust the OS.
pub const MAX_THREADS: usize = 1024;

/// The result of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The score for the player to move (see the crate docs), or -1/0/1 for a weak solve.
    pub score: i32,
    /// The column (0-based) that achieves the score, the first in the centre-first order
    /// (`3 2 4 1 5 0 6` on 7 columns) when several do: the one tie-break rule of every front
    /// end, from a book or a search (for a weak solve: the first column that keeps the
    /// outcome, or for a loss the first that does not lose at once). `None` when the board
    /// is full.
    pub best_move: Option<usize>,
    /// Nodes searched by all threads (forced moves played through are not counted).
    pub nodes: u64,
    /// Wall time of the solve.
    pub elapsed: Duration,
    /// Where the answer came from: a search or an opening book.
    pub source: Source,
}

/// Where a [`Solution`] or [`Analysis`] came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Source {
    /// A search of the solver.
    #[default]
    Search,
    /// An opening book ([`crate::book`]): no search.
    Book,
}

impl Source {
    /// `"search"` or `"book"`, as the front ends print it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Source::Search => "search",
            Source::Book => "book",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The score of every column of a position, as [`Solver::analyze`] gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// For each column (0-based): `None` when it is full, else the score for the player to
    /// move after playing it there.
    pub scores: Vec<Option<i32>>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Where the scores came from: a search or an opening book.
    pub source: Source,
}

impl Analysis {
    /// The columns with the highest score (0-based), in the search's centre-first order
    /// (`3 2 4 1 5 0 6` on 7 columns). The first is the best move of every front end: the
    /// one tie-break rule, the same as [`Solution::best_move`]'s.
    pub fn best_columns(&self) -> Vec<usize> {
        let Some(best) = self.scores.iter().flatten().max() else {
            return Vec::new();
        };
        centre_order(self.scores.len())
            .into_iter()
            .filter(|&c| self.scores[c] == Some(*best))
            .collect()
    }

    /// The best move: the first of [`Analysis::best_columns`]; `None` on a full board.
    pub fn best_move(&self) -> Option<usize> {
        self.best_columns().first().copied()
    }
}

/// A solve that was stopped (by [`Solver::stop_flag`] or a time limit) before it finished.
///
/// A stop that comes after the score is proven, while the best move is being found, gives
/// `lower == upper`: the score is known and the move is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interrupted {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
    /// Nodes searched before the stop.
    pub nodes: u64,
    /// Wall time before the stop.
    pub elapsed: Duration,
    /// An analysis only ([`Solver::analyze_within`]): what was proven of each column
    /// (`None` for a full column); empty for a solve. `lower`/`upper` are then the
    /// position's bounds, the best column's: the highest lower and the highest upper bound.
    pub columns: Vec<Option<Bounds>>,
}

/// Proven bounds of one score: it lies in `lower..=upper`, exactly known when they meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
}

impl Bounds {
    /// Bounds that meet at `score`.
    pub fn exact(score: i32) -> Bounds {
        Bounds {
            lower: score,
            upper: score,
        }
    }

    /// The score, when the bounds meet.
    pub fn score(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// The same bounds seen by the other player.
    fn negated(self) -> Bounds {
        Bounds {
            lower: -self.upper,
            upper: -self.lower,
        }
    }
}

/// Bounds proven for one position's score, named by the position's exact key: what a solve
/// has proven of its root so far ([`Solver::root_bounds`]), kept in a checkpoint
/// ([`crate::checkpoint`]) for a later solve of the same position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootBounds {
    /// The position's key ([`Position::key`], widened to 128 bits): unique to the position.
    pub key: u128,
    /// The position's stones.
    pub stones: u32,
    /// Its score lies in these bounds.
    pub bounds: Bounds,
}

impl RootBounds {
    /// True when these are bounds of `pos`: same key, same stones.
    fn of<const W: usize, const H: usize, B: Bitboard>(&self, pos: &Position<W, H, B>) -> bool {
        self.key == pos.key().to_u128() && self.stones == pos.moves()
    }
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lower == self.upper {
            write!(
                f,
                "stopped with the score proven to be {}, its best move not yet found",
                self.lower
            )
        } else {
            write!(
                f,
                "stopped with the score proven in [{}, {}]",
                self.lower, self.upper
            )
        }
    }
}

impl std::error::Error for Interrupted {}

/// The result of [`Solver::solve_window`]: what one search with the window `(alpha, beta)`
/// proved about a position's score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowResult {
    /// The value the search returned (fail-soft): with [`WindowResult::bound`] `Upper` the
    /// score is at most this (and this is at most `alpha`), with `Lower` at least this (and
    /// this is at least `beta`), with `Exact` the score itself (strictly between them).
    pub value: i32,
    /// How [`WindowResult::value`] bounds the score.
    pub bound: Bound,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Wall time of the search.
    pub elapsed: Duration,
}

impl WindowResult {
    /// True when the score is proven greater than `x`, false when proven at most `x`, `None`
    /// when this result does not decide it.
    pub fn above(&self, x: i32) -> Option<bool> {
        match self.bound {
            Bound::Exact => Some(self.value > x),
            Bound::Lower => (self.value > x).then_some(true),
            Bound::Upper => (self.value <= x).then_some(false),
        }
    }
}

/// One finished null-window search, reported to [`Solver::solve_with`]'s callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
    /// Nodes of the reporting thread so far.
    pub nodes: u64,
    /// Time since the solve started.
    pub elapsed: Duration,
}

/// Why a solver could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    msg: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for BuildError {}

impl From<TableError> for BuildError {
    fn from(e: TableError) -> Self {
        BuildError { msg: e.to_string() }
    }
}

/// Builds a [`Solver`]: table size, threads, pinning, time limit, search parameters.
#[derive(Clone, Debug)]
pub struct SolverBuilder {
    table_mib: usize,
    threads: usize,
    pin: bool,
    time_limit: Option<Duration>,
    params: Params,
}

impl Default for SolverBuilder {
    fn default() -> Self {
        SolverBuilder {
            table_mib: DEFAULT_TABLE_MIB,
            threads: 1,
            pin: false,
            time_limit: None,
            params: Params::default(),
        }
    }
}

impl SolverBuilder {
    /// Table size in MiB: any whole number from 1 up. Default [`DEFAULT_TABLE_MIB`].
    pub fn table_mib(mut self, mib: usize) -> Self {
        self.table_mib = mib;
        self
    }

    /// Threads per solve (1 to [`MAX_THREADS`]). Default 1. More threads than cores are
    /// allowed and give the same answers, only no faster.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Pin search threads to cores. Where the OS refuses, the solve goes on unpinned and
    /// [`Solver::pin_failed`] says so.
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Stop each solve that takes longer than this, returning [`Interrupted`] for it; later
    /// solves get their own time.
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// Search tuning (for experiments; the defaults are the measured best).
    pub fn params(mut self, params: Params) -> Self {
        self.params = params;
        self
    }

    /// Builds the solver for `W` x `H` boards on bitboards of type `B` (`u64`, or `u128` for
    /// boards of more than 64 key bits), allocating its table.
    pub fn build<const W: usize, const H: usize, B: Bitboard>(
        self,
    ) -> Result<Solver<W, H, B>, BuildError> {
        if self.threads == 0 {
            return Err(BuildError {
                msg: "the number of threads must be at least 1, not 0".into(),
            });
        }
        if self.threads > MAX_THREADS {
            return Err(BuildError {
                msg: format!(
                    "the number of threads must be at most {MAX_THREADS}, not {}",
                    self.threads
                ),
            });
        }
        let bits = key_bits(dims::width::<W, H>(), dims::height::<W, H>());
        // The nodes near the end get a table of their own when the search uses one.
        let table = if self.params.near_empty > 0 {
            Table::with_near(self.table_mib, bits, self.threads)?
        } else {
            Table::new(self.table_mib, bits)?
        };
        self.build_on(table)
    }

    /// Builds the run-time-sized solver (`crate::dims`) for `width` x `height` boards on
    /// bitboards of type `B`: the engine's solver of the sizes this build does not compile.
    pub(crate) fn build_sized<B: Bitboard>(
        self,
        width: usize,
        height: usize,
    ) -> Result<Solver<RUN_W, RUN_H, B>, BuildError> {
        match Dims::new(width, height) {
            Some(d) if width * (height + 1) <= B::BITS as usize => {
                let _entered = d.enter();
                self.build()
            }
            _ => Err(BuildError {
                msg: format!(
                    "a {width}x{height} board does not fit {}-bit positions",
                    B::BITS
                ),
            }),
        }
    }

    /// As [`SolverBuilder::build`] on a table built by the caller (the crate's experiments:
    /// the check-bits experiment's lossy table); the builder's table size is not used.
    pub(crate) fn build_on<const W: usize, const H: usize, B: Bitboard>(
        self,
        table: Table,
    ) -> Result<Solver<W, H, B>, BuildError> {
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(BuildError {
                msg: format!("the number of threads must be 1 to {MAX_THREADS}"),
            });
        }
        let dims = match Dims::new(dims::width::<W, H>(), dims::height::<W, H>()) {
            Some(d) => d,
            None => {
                return Err(BuildError {
                    msg: "the run-time-sized solver needs a board size".into(),
                })
            }
        };
        Ok(Solver {
            dims,
            table,
            threads: self.threads,
            pin: self.pin,
            pin_failed: std::sync::atomic::AtomicBool::new(false),
            time_limit: self.time_limit,
            params: self.params,
            stop: Arc::new(StopFlag::new()),
            live: (0..self.threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            pool: std::sync::OnceLock::new(),
            // The CPUs of the building thread, read once: a thread pinned later sees only
            // its own core.
            cores: if self.pin {
                core_affinity::get_core_ids().unwrap_or_default()
            } else {
                Vec::new()
            },
            progress: Mutex::new(None),
            resumed: Mutex::new(None),
            _word: std::marker::PhantomData,
        })
    }
}

/// A Connect-4 solver for `W` x `H` boards (7 x 6 by default) on bitboards of type `B`
/// (`u64` by default; `u128` for boards of more than 64 key bits) with its own table.
///
/// Reuse one solver for many positions: each solve starts a new table generation instead of
/// clearing, and what earlier solves proved keeps helping. An exact solve of the position the
/// last one was of (a stopped solve asked again) or of a loaded checkpoint's root keeps the
/// generation: those entries are its own work, not old ones to replace first.
///
/// ```
/// use fourfold::{Position, Solver};
///
/// let solver: Solver = Solver::builder().table_mib(16).build().unwrap();
/// let p: Position = "2252576253462244111563365343671351441".parse().unwrap();
/// let s = solver.solve(&p).unwrap();
/// assert_eq!(s.score, -1);
/// assert_eq!(solver.solve_weak(&p).unwrap().score, -1);
/// ```
pub struct Solver<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    table: Table,
    threads: usize,
    pin: bool,
    pin_failed: std::sync::atomic::AtomicBool,
    time_limit: Option<Duration>,
    params: Params,
    stop: Arc<StopFlag>,
    live: Vec<CachePadded<AtomicU64>>,
    /// The thread pool of [`Solver::solve_many`], built by its first call with more than one
    /// thread and kept (its threads sleep between batches): building one per call cost
    /// tens of microseconds per batch. `None` inside when rayon could not build it.
    pool: std::sync::OnceLock<Option<rayon::ThreadPool>>,
    /// The cores search threads are pinned to (empty unless pinning was asked for).
    cores: Vec<core_affinity::CoreId>,
    /// The root of the latest exact solve started on this solver (batches aside) and the
    /// bounds its driver has proven so far: what a checkpoint saves ([`Solver::root_bounds`]).
    progress: Mutex<Option<RootBounds>>,
    /// Bounds handed in from a checkpoint ([`Solver::resume_from`]): an exact solve of that
    /// very position starts its driver from them.
    resumed: Mutex<Option<RootBounds>>,
    /// The board's dimensions, which the run-time-sized instance (`crate::dims`) enters in
    /// every thread it runs the search on.
    dims: Dims,
    _word: std::marker::PhantomData<fn() -> B>,
}

/// A thread pinned to one core until this drops, which gives the thread back the CPU set it
/// had (on Linux; elsewhere the pin stays, as `core_affinity` leaves it).
struct Pinned {
    #[cfg(target_os = "linux")]
    saved: Option<libc::cpu_set_t>,
}

impl Pinned {
    /// Pins the calling thread to `core`; `None` when the OS refuses.
    fn to(core: core_affinity::CoreId) -> Option<Pinned> {
        #[cfg(target_os = "linux")]
        // SAFETY: `cpu_set_t` is a plain bit array, valid all zero; `sched_getaffinity`
        // writes at most `size_of::<cpu_set_t>()` bytes into the local we pass.
        let saved = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            (libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0)
                .then_some(set)
        };
        core_affinity::set_for_current(core).then_some(Pinned {
            #[cfg(target_os = "linux")]
            saved,
        })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(set) = &self.saved {
            // SAFETY: `set` is a valid `cpu_set_t` read by `sched_getaffinity`; the call only
            // reads it. A failure leaves the thread pinned, which costs speed, not answers.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
            }
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> fmt::Debug for Solver<W, H, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("table", &self.table)
            .field("threads", &self.threads)
            .finish()
    }
}

/// Which question a solve answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Exact,
    Weak,
    /// One search with the window `(alpha, beta)`, no move.
    Window(i32, i32),
}

impl Solver<7, 6> {
    /// A builder with the defaults.
    pub fn builder() -> SolverBuilder {
        SolverBuilder::default()
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Solver<W, H, B> {
    /// The board's dimensions.
    pub(crate) fn dims(&self) -> Dims {
        self.dims
    }

    /// Parses a move string on this solver's board (see [`Position::parse`]).
    pub fn parse(&self, moves: &str) -> Result<Position<W, H, B>, crate::ParseError> {
        Position::parse(moves)
    }

    /// The shared table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Threads per solve.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The time limit of each solve ([`SolverBuilder::time_limit`]).
    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit
    }

    /// The flag that stops solves in progress when raised (e.g. from a Ctrl-C handler).
    /// Lower it before the next solve.
    pub fn stop_flag(&self) -> Arc<StopFlag> {
        Arc::clone(&self.stop)
    }

    /// True if pinning was asked for and the OS refused it.
    pub fn pin_failed(&self) -> bool {
        self.pin_failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The root of the latest exact solve started on this solver (a solve, or one column of an
    /// analysis; not the positions of a batch) with the bounds its driver had proven when
    /// asked: exact once it finished. `None` before any. Callable from another thread while
    /// the solve runs (a checkpoint writer does so).
    pub fn root_bounds(&self) -> Option<RootBounds> {
        *self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands this solver bounds proven earlier for one position (from a checkpoint, see
    /// [`crate::checkpoint`]; `None` forgets them): from now on, an exact solve of that very
    /// position (same key and stones) starts its null-window driver from them instead of the
    /// whole score range, and a solve of any other position ignores them. The bounds must
    /// be true: they are what the driver proved, and are trusted as such.
    pub(crate) fn resume_from(&self, root: Option<RootBounds>) {
        *self.resumed.lock().unwrap_or_else(|e| e.into_inner()) = root;
    }

    /// Whether an exact solve of `pos` goes on with the work of the one before: the latest
    /// exact solve on this solver (stopped, most often) or a loaded checkpoint's was of this
    /// very position. Its entries are then this solve's own, and it keeps the table's
    /// generation instead of starting a new one, which would make them the first to be
    /// replaced (measured in BENCHMARKS.md, "Checkpoints").
    fn goes_on_with(&self, pos: &Position<W, H, B>, mode: Mode) -> bool {
        let of = |m: &Mutex<Option<RootBounds>>| {
            m.lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|r| r.of(pos))
        };
        mode == Mode::Exact && (of(&self.progress) || of(&self.resumed))
    }

    /// The window a driver of `pos` starts from: the whole score range, narrowed to the
    /// bounds handed to [`Solver::resume_from`] when they are this position's.
    fn start_window(&self, pos: &Position<W, H, B>) -> Window {
        let w = Searcher::<W, H, B>::initial_window(pos);
        match *self.resumed.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(r) if r.of(pos) => {
                let (lower, upper) = (w.lower.max(r.bounds.lower), w.upper.min(r.bounds.upper));
                // Bounds of this position cannot miss its score range; if they did (a file
                // forged under a valid checksum), the plain range is the safe start.
                if lower <= upper {
                    Window { lower, upper }
                } else {
                    w
                }
            }
            _ => w,
        }
    }

    /// Nodes searched so far by the solve in progress, summed over its threads; updated every
    /// few thousand nodes, for progress displays.
    pub fn live_nodes(&self) -> u64 {
        self.live
            .iter()
            .map(|c| c.load(crate::sync::Ordering::Relaxed))
            .sum()
    }

    /// The exact score of `pos` and a best move.
    pub fn solve(&self, pos: &Position<W, H, B>) -> Result<Solution, Interrupted> {
        self.solve_with(pos, &mut |_| {})
    }

    /// As [`Solver::solve`], calling `on_step` after each finished null-window search of any
    /// thread (from that thread), with the bounds proven so far.
    pub fn solve_with(
        &self,
        pos: &Position<W, H, B>,
        on_step: &mut (dyn FnMut(Step) + Send),
    ) -> Result<Solution, Interrupted> {
        self.run(pos, Mode::Exact, on_step, self.threads, true, None)
    }

    /// Win (1), draw (0) or loss (-1) for the player to move, and a move that achieves it.
    pub fn solve_weak(&self, pos: &Position<W, H, B>) -> Result<Solution, Interrupted> {
        self.run(pos, Mode::Weak, &mut |_| {}, self.threads, true, None)
    }

    /// One alpha-beta search of `pos` with the window `(alpha, beta)` (`alpha < beta`) on
    /// this solver's threads and table: the score is proven at most `value` (fail low), at
    /// least `value` (fail high) or equal to it ([`WindowResult`]). A null window
    /// (`beta = alpha + 1`) answers "is the score above `alpha`?". This is the building block
    /// of drivers that search the top of the tree themselves (the Python package's
    /// distributed solve): the threads run Lazy SMP on the one window, the first to finish
    /// answers; a stop or a time limit gives [`Interrupted`] with nothing proven, never a
    /// guess. No best move is searched.
    ///
    /// # Panics
    /// If `alpha >= beta` (the engine checks the window first).
    pub fn solve_window(
        &self,
        pos: &Position<W, H, B>,
        alpha: i32,
        beta: i32,
    ) -> Result<WindowResult, Interrupted> {
        assert!(alpha < beta, "an empty window ({alpha}, {beta})");
        let s = self.run(
            pos,
            Mode::Window(alpha, beta),
            &mut |_| {},
            self.threads,
            true,
            None,
        )?;
        let bound = if s.score <= alpha {
            Bound::Upper
        } else if s.score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        Ok(WindowResult {
            value: s.score,
            bound,
            nodes: s.nodes,
            elapsed: s.elapsed,
        })
    }

    /// Solves many positions at once, one thread per position, spread over the solver's
    /// threads by rayon on the shared table; results come back in input order. For batches
    /// of short solves this beats putting every thread on each position in turn
    /// (BENCHMARKS.md has the measurement). `weak` asks for win/draw/loss only.
    pub fn solve_many(
        &self,
        positions: &[Position<W, H, B>],
        weak: bool,
    ) -> Vec<Result<Solution, Interrupted>> {
        self.solve_many_with(positions, weak, &|_, _| {})
    }

    /// As [`Solver::solve_many`], calling `on_done(index, result)` from the worker thread
    /// as soon as each position is finished (for journals and progress displays).
    pub fn solve_many_with(
        &self,
        positions: &[Position<W, H, B>],
        weak: bool,
        on_done: &(dyn Fn(usize, &Result<Solution, Interrupted>) + Sync),
    ) -> Vec<Result<Solution, Interrupted>> {
        use rayon::prelude::*;
        self.table.new_generation();
        let mode = if weak { Mode::Weak } else { Mode::Exact };
        let one = |(i, p): (usize, &Position<W, H, B>)| {
            let _dims = self.dims.enter_for::<H>();
            let r = self.run(p, mode, &mut |_| {}, 1, false, None);
            on_done(i, &r);
            r
        };
        if self.threads == 1 || positions.len() < 2 {
            return positions.iter().enumerate().map(one).collect();
        }
        let pool = self.pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads)
                .thread_name(|i| format!("fourfold-batch-{i}"))
                .build()
                .ok()
        });
        let job = || positions.par_iter().enumerate().map(one).collect();
        match pool {
            Some(pool) => pool.install(job),
            None => job(),
        }
    }

    /// The score of every column: what the player to move gets by playing there.
    pub fn analyze(&self, pos: &Position<W, H, B>) -> Result<Analysis, Interrupted> {
        self.analyze_within(pos, None)
    }

    /// As [`Solver::analyze`], stopping after `budget` (or the solver's time limit, or a stop
    /// request, whichever comes first) with what was proven of each column so far in
    /// [`Interrupted::columns`]: exact scores for the columns finished, the proven bounds of
    /// the one being searched, the whole score range for the ones not reached. A later call
    /// on the same position goes on from the table that this one filled, so a front end can
    /// slice a long analysis into short calls, showing the bounds between them and stopping
    /// when nobody wants the answer any more.
    pub fn analyze_within(
        &self,
        pos: &Position<W, H, B>,
        budget: Option<Duration>,
    ) -> Result<Analysis, Interrupted> {
        let start = Instant::now();
        let until = budget.and_then(|b| start.checked_add(b));
        let mut columns = vec![None; self.dims.width];
        let mut nodes = 0;
        let mut stopped = false;
        for (col, slot) in columns.iter_mut().enumerate() {
            if !pos.can_play(col) {
                continue;
            }
            if pos.is_winning_move(col) {
                *slot = Some(Bounds::exact(Searcher::<W, H, B>::win_now(pos.moves())));
                continue;
            }
            let mut child = *pos;
            child.play_col(col);
            let child_bounds = if stopped {
                // Past the stop: nothing proven beyond the score range.
                let w = Searcher::<W, H, B>::initial_window(&child);
                Bounds {
                    lower: w.lower,
                    upper: w.upper,
                }
            } else {
                match self.run(&child, Mode::Exact, &mut |_| {}, self.threads, true, until) {
                    Ok(s) => {
                        nodes += s.nodes;
                        Bounds::exact(s.score)
                    }
                    Err(e) => {
                        nodes += e.nodes;
                        stopped = true;
                        Bounds {
                            lower: e.lower,
                            upper: e.upper,
                        }
                    }
                }
            };
            *slot = Some(child_bounds.negated());
        }
        let elapsed = start.elapsed();
        if stopped {
            let bounds = columns.iter().flatten();
            return Err(Interrupted {
                lower: bounds.clone().map(|b| b.lower).max().unwrap_or(0),
                upper: bounds.map(|b| b.upper).max().unwrap_or(0),
                nodes,
                elapsed,
                columns,
            });
        }
        Ok(Analysis {
            scores: columns.iter().map(|c| c.map(|b| b.lower)).collect(),
            nodes,
            elapsed,
            source: Source::Search,
        })
    }

    /// The principal variation from `pos`, whose exact score is `score`: a line of columns
    /// (0-based) where both sides play perfectly to the end of the game. Read from the table
    /// where it has the move, and re-verified by search.
    pub fn principal_variation(
        &self,
        pos: &Position<W, H, B>,
        score: i32,
    ) -> Result<Vec<usize>, Interrupted> {
        with_isa!(I => self.stop_aware(|searcher: &mut Searcher<'_, W, H, B, I>| {
            let mut line = Vec::new();
            let mut p = *pos;
            let mut s = score;
            loop {
                if p.is_full() {
                    break;
                }
                let won = p.can_win_next();
                let col = searcher.best_move(&p, s)?;
                line.push(col);
                if won {
                    break;
                }
                p.play_col(col);
                s = -s;
            }
            Some(line)
        }))
    }

    /// Runs `f` on a single searcher of this solver's table.
    fn stop_aware<T, I: Isa>(
        &self,
        f: impl FnOnce(&mut Searcher<'_, W, H, B, I>) -> Option<T>,
    ) -> Result<T, Interrupted> {
        let start = Instant::now();
        let done = StopFlag::new();
        let mut searcher = Searcher::new(self.shared(&done, 0, start, None, None), self.params, 0);
        f(&mut searcher).ok_or(Interrupted {
            lower: i32::MIN,
            upper: i32::MAX,
            nodes: searcher.nodes,
            elapsed: start.elapsed(),
            columns: Vec::new(),
        })
    }

    fn shared<'a>(
        &'a self,
        done: &'a StopFlag,
        thread: usize,
        start: Instant,
        busy: Option<&'a InProgress>,
        until: Option<Instant>,
    ) -> Shared<'a> {
        // A limit too far away to be an instant is no limit.
        let limit = self.time_limit.and_then(|d| start.checked_add(d));
        Shared {
            busy,
            table: &self.table,
            stop: &self.stop,
            done,
            live_nodes: &self.live[thread],
            // The earlier of the solver's time limit and the caller's.
            deadline: match (limit, until) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// One solve on `threads` threads; `fresh` starts a new table generation and resets the
    /// live counters (batches running concurrent solves do that once for all); `until` is the
    /// caller's deadline, on top of the solver's time limit.
    fn run(
        &self,
        pos: &Position<W, H, B>,
        mode: Mode,
        on_step: &mut (dyn FnMut(Step) + Send),
        threads: usize,
        fresh: bool,
        until: Option<Instant>,
    ) -> Result<Solution, Interrupted> {
        with_isa!(I => self.run_on::<I>(pos, mode, on_step, threads, fresh, until))
    }

    /// [`Self::run`] with the searchers of level `I` (`crate::search::isa`).
    fn run_on<I: Isa>(
        &self,
        pos: &Position<W, H, B>,
        mode: Mode,
        on_step: &mut (dyn FnMut(Step) + Send),
        threads: usize,
        fresh: bool,
        until: Option<Instant>,
    ) -> Result<Solution, Interrupted> {
        let start = Instant::now();
        if fresh {
            if !self.goes_on_with(pos, mode) {
                self.table.new_generation();
            }
            for c in &self.live {
                c.store(0, crate::sync::Ordering::Relaxed);
            }
        }
        let done = StopFlag::new();
        let marks = (threads > 1).then(InProgress::new);
        let busy = marks.as_ref();
        // What the first finisher leaves: its score and best move.
        let answer: Mutex<Option<(i32, Option<usize>)>> = Mutex::new(None);
        let start_window = if mode == Mode::Exact {
            self.start_window(pos)
        } else {
            Searcher::<W, H, B>::initial_window(pos)
        };
        let best_window = Mutex::new(start_window);
        // A solve of its own (not one of a batch's) records its root and what is proven of
        // it, for a checkpoint.
        let record = mode == Mode::Exact && fresh;
        let root_bounds = |w: Window| RootBounds {
            key: pos.key().to_u128(),
            stones: pos.moves(),
            bounds: Bounds {
                lower: w.lower,
                upper: w.upper,
            },
        };
        let note = |w: Window| {
            if record {
                *self.progress.lock().unwrap_or_else(|e| e.into_inner()) = Some(root_bounds(w));
            }
        };
        note(start_window);
        let on_step = Mutex::new(on_step);
        let nodes: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
        // Concurrent single-thread solves of a batch publish on the rayon worker's slot.
        let slot = |t: usize| {
            if threads == 1 {
                rayon::current_thread_index().unwrap_or(0) % self.live.len()
            } else {
                t
            }
        };
        let cores = &self.cores;
        if self.pin && cores.is_empty() {
            self.pin_failed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }

        let work = |thread: usize| {
            // A batch's one-thread solves run on the rayon workers: each pins to the core of
            // its worker index (`slot`), not all to the first. The pin lasts for this solve
            // only (`_pinned` restores the thread's CPU set), so the caller's thread, which
            // searches as thread 0, is never left pinned.
            let _pinned = if self.pin && !cores.is_empty() {
                let p = Pinned::to(cores[slot(thread) % cores.len()]);
                if p.is_none() {
                    self.pin_failed
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                p
            } else {
                None
            };
            let mut searcher = Searcher::<W, H, B, I>::new(
                self.shared(&done, slot(thread), start, busy, until),
                self.params,
                thread,
            );
            let result = match mode {
                Mode::Exact => {
                    let mut report = |w: &Window, n: u64| {
                        note(*w);
                        let step = Step {
                            lower: w.lower,
                            upper: w.upper,
                            nodes: n,
                            elapsed: start.elapsed(),
                        };
                        (on_step.lock().unwrap_or_else(|e| e.into_inner()))(step);
                    };
                    searcher.solve(pos, &best_window, thread, &mut report)
                }
                Mode::Weak => searcher.solve_weak(pos),
                Mode::Window(alpha, beta) => window_search(&mut searcher, pos, alpha, beta),
            };
            let mut total = searcher.nodes;
            if let (Some(score), Mode::Window(..)) = (result, mode) {
                // A window's value needs no move: the first finisher answers.
                let mut a = answer.lock().unwrap_or_else(|e| e.into_inner());
                if a.is_none() {
                    done.raise();
                    *a = Some((score, None));
                }
            } else if let Some(score) = result {
                // Someone may have beaten us to it; only the first answer counts.
                let mut a = answer.lock().unwrap_or_else(|e| e.into_inner());
                if a.is_none() {
                    // The score is proven: stop the helpers now, then find its move. The
                    // best-move step reads first what the proof stored in the table and
                    // searches only what that leaves open; its searches honour the user's
                    // stop and the deadline (a flag of their own, as `done` is raised), and
                    // a stop there keeps the score with the move unknown.
                    done.raise();
                    #[cfg(test)]
                    hook::score_known(&self.stop, &self.table);
                    let finisher_done = StopFlag::new();
                    let mut finisher = Searcher::<W, H, B, I>::new(
                        Shared {
                            done: &finisher_done,
                            busy: None,
                            ..self.shared(&done, slot(thread), start, busy, until)
                        },
                        self.params,
                        thread,
                    );
                    // Counting on from the solve keeps the live counter monotonic.
                    finisher.nodes = searcher.nodes;
                    let mv = match mode {
                        Mode::Exact => finisher.best_move(pos, score),
                        // A weak score is not exact: find a move that keeps the outcome.
                        Mode::Weak | Mode::Window(..) => self.weak_move(&mut finisher, pos, score),
                    };
                    total = finisher.nodes;
                    // `None` only on a full board, when the step was stopped, or on a lossy table.
                    debug_assert!(
                        mv.is_some()
                            || pos.is_full()
                            || finisher.aborted()
                            || self.table.is_lossy()
                    );
                    *a = Some((score, mv));
                }
            }
            nodes[thread].store(total, crate::sync::Ordering::Relaxed);
        };

        if threads == 1 {
            work(0);
        } else {
            std::thread::scope(|s| {
                for t in 1..threads {
                    let work = &work;
                    // A helper the OS will not start is only a helper less: the answer does
                    // not depend on how many threads search.
                    if std::thread::Builder::new()
                        .spawn_scoped(s, move || {
                            let _dims = self.dims.enter_for::<H>();
                            work(t)
                        })
                        .is_err()
                    {
                        break;
                    }
                }
                work(0);
            });
        }
        let total: u64 = nodes
            .iter()
            .map(|n| n.load(crate::sync::Ordering::Relaxed))
            .sum();
        let elapsed = start.elapsed();
        match answer.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((score, None)) if !pos.is_full() && matches!(mode, Mode::Exact | Mode::Weak) => {
                // Stopped while finding the move: the score is proven, the move unknown.
                note(Window {
                    lower: score,
                    upper: score,
                });
                Err(Interrupted {
                    lower: score,
                    upper: score,
                    nodes: total,
                    elapsed,
                    columns: Vec::new(),
                })
            }
            Some((score, best_move)) => {
                note(Window {
                    lower: score,
                    upper: score,
                });
                Ok(Solution {
                    score,
                    best_move,
                    nodes: total,
                    elapsed,
                    source: Source::Search,
                })
            }
            None => {
                let w = best_window.into_inner().unwrap_or_else(|e| e.into_inner());
                let (lower, upper) = match mode {
                    Mode::Exact | Mode::Window(..) => (w.lower, w.upper),
                    Mode::Weak => (-1, 1),
                };
                Err(Interrupted {
                    lower,
                    upper,
                    nodes: total,
                    elapsed,
                    columns: Vec::new(),
                })
            }
        }
    }

    /// A move keeping a weak outcome, by the one tie-break rule (centre first, see
    /// `crate::ordering`): for a win or a draw, the first column that reaches score 1 or 0
    /// (the exact-score search for it); for a loss, the first column that does not lose at
    /// once (any column when all do).
    fn weak_move<I: Isa>(
        &self,
        s: &mut Searcher<'_, W, H, B, I>,
        pos: &Position<W, H, B>,
        score: i32,
    ) -> Option<usize> {
        if score >= 0 || pos.is_full() || pos.can_win_next() {
            return s.best_move(pos, score);
        }
        let next = pos.non_losing_moves();
        let any = if next == B::ZERO {
            pos.possible()
        } else {
            next
        };
        centre_order(Position::<W, H, B>::w())
            .into_iter()
            .find(|&c| any & Position::<W, H, B>::column_mask(c) != B::ZERO)
    }
}

/// One thread's search of `pos` with the window `(alpha, beta)`: the fail-soft value, or
/// `None` when stopped. A full board or a win at once is scored without a search (the
/// searcher's `negamax` takes neither).
fn window_search<const W: usize, const H: usize, B: Bitboard, I: Isa>(
    searcher: &mut Searcher<'_, W, H, B, I>,
    pos: &Position<W, H, B>,
    alpha: i32,
    beta: i32,
) -> Option<i32> {
    if pos.is_full() {
        return Some(0);
    }
    if pos.can_win_next() {
        return Some(Searcher::<W, H, B>::win_now(pos.moves()));
    }
    let v = searcher.negamax(pos, alpha, beta);
    (!searcher.aborted()).then_some(v)
}

/// A test's hook into the driver, between a proven score and the search of its move.
#[cfg(test)]
mod hook {
    use crate::table::Table;
    use crate::StopFlag;
    use std::cell::Cell;

    /// What a test runs once the score is known.
    pub(super) type Hook = fn(&StopFlag, &Table);

    thread_local! {
        /// Called on the thread that proved the score (the caller's, in a one-thread solve).
        pub(super) static SCORE_KNOWN: Cell<Option<Hook>> = const { Cell::new(None) };
    }

    pub(super) fn score_known(stop: &StopFlag, table: &Table) {
        if let Some(f) = SCORE_KNOWN.get() {
            f(stop, table);
        }
    }
}

#[cfg(test)]
mod tests;
