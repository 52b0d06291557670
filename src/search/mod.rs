//! The search: negamax with alpha-beta on exact scores, run by one thread.
//!
//! This module owns one thread's search: the recursion, the bounds it derives, when it reads
//! and writes the table, the null-window driver that narrows the exact score, the weak
//! (win/draw/loss) test, and finding a best move for a known score. It shares nothing with
//! other threads except the [`Table`] and the stop flags it is handed; it never spawns
//! threads and never prints.
//!
//! # Where each part lives
//!
//! - `node`: negamax's recursion through the node's named stages, and the children stage.
//! - `bounds`: the stages that may decide a node before its children (moves that settle it,
//!   the bounds from the moves left, the parity bounds, the children's own bounds).
//! - `parity`: the parity (zugzwang) rules as pure functions on bitboards, each with the
//!   game-theoretic argument that makes it sound.
//! - `probe`: the node's use of the table (keys, probes, ETC, prefetches, busy marks, the
//!   store).
//! - `driver`: the null-window solve, the weak solve, the first move's guess, the best move.
//! - `params`: [`Params`], the tuning knobs.
//! - This module: the searcher's state and the types the stages hand each other.
//!
//! # Scores
//!
//! A score is from the side to move's view: `(CELLS + 2 - m) / 2`, rounded down, when it
//! wins with the game's `m`-th stone (both players' counted from 1; on 7 x 6: 22 - s for a
//! win with its `s`-th stone, so 18 for the quickest possible win), the negation when it
//! loses that way, 0 for a draw. [`Searcher::win_now`] is that formula for the next stone.
//!
//! # Bounds before the search of a node
//!
//! - From the moves left: neither side can win before its next stone.
//! - Follow-up (claim-even): with an even number of empty cells the
//!   opponent can answer each of our moves on top of it; if that leaves us no four, we score
//!   at most 0 (at most -1 if it hands the opponent one). With an odd number, each of our
//!   moves is tried as the move after which we follow up, for a lower bound. The argument,
//!   which covers columns of any parity, is at `follow_up_bound`; a test checks it against
//!   the search without it on random positions. A threat of the opponent on its rows of a
//!   column it follows up in makes it win: the bound drops below -1.
//! - Odd threat (zugzwang): with an odd number of empty cells, the player who just moved
//!   wins if it holds a threat in a column with an odd number of empty cells on a row it
//!   gets by following up, and the player to move cannot make four meanwhile
//!   (`odd_threat_bound`, checked the same way). This is an upper bound for the player to
//!   move, and, tried after each of its moves, a lower bound for the other.
//!
//! Both parity bounds rest on the follower taking the cell above each of the leader's
//! moves. That pairs the empty cells of every column with an even number of them, whatever
//! the board's height: the follower gets the cells on the rows of the top row's parity
//! (`Position::follower_rows`: the odd rows, 0-based, on boards of even height, the even
//! ones on boards of odd height), the top one included. So they hold on every board (the
//! tests check them against the search without them on boards of both height parities);
//! on odd heights every column starts with an odd number of empty cells, so they bite only
//! once columns have filled unevenly.
//!
//! # Where the table is used
//!
//! - At every depth on every board (`Params::table_min_empty` is 0), probe and store on even
//!   plies (positions where the first player is to move). Odd
//!   plies instead probe their children (enhanced transposition cutoff, ETC) while few stones
//!   are down, and store nothing, which leaves the table's room for the even plies.
//! - Near the root, while at least `Params::every_ply_min_empty` (22) cells are empty, every
//!   ply probes and stores, as in c4, and a node whose entry gave no move probes its
//!   children. That takes 1.5-13 % of the nodes of the whole boards away and pays in time
//!   there, but costs time in short searches, whose subtrees near the root are small: it
//!   starts once the thread has searched `Params::every_ply_after` (2^17) nodes
//!   (docs/search-ledger.md, "Where the table is used: every ply near the root, ETC").
//! - A position and its mirror image share one entry: the table is keyed by the smaller of
//!   their two keys (`Position::canonical_key`), and a move read from or written to an entry
//!   keyed by the mirror image is mirrored.
//! - The probe also chooses the slot the node's result will go to, so the store does not
//!   read the bucket again (unless the search was long and the bucket may have changed).
//! - The table's move is searched before the other moves are scored.
//!
//! The thresholds live in [`Params`]; BENCHMARKS.md records how they were chosen.

mod bounds;
mod driver;
pub(crate) mod isa;
mod node;
mod params;
mod parity;
mod probe;
#[cfg(test)]
mod stage_tests;
#[cfg(test)]
mod tests;

pub use params::Params;

use crate::bitboard::Bitboard;
use crate::dims;
use crate::ordering::{column_order, LANES};
use crate::position::Position;
use crate::sync::{AtomicU64, Ordering};
use crate::table::{InProgress, Slot, Table};
use crate::StopFlag;
use isa::{Base, Isa};
use parity::NO_BOUND;
use std::sync::Mutex;
use std::time::Instant;

/// Nodes between two polls of the stop flags. The first poll comes at a searcher's first
/// node, so that a stop raised before a short search (one of a batch's small positions)
/// still reaches it.
const POLL_MASK: u64 = (1 << 12) - 1;

/// What a single thread's search is given to share.
pub(crate) struct Shared<'a> {
    pub table: &'a Table,
    /// The user's stop request (Ctrl-C, a time limit, another solve of theirs).
    pub stop: &'a StopFlag,
    /// Raised when another thread of the same solve has finished.
    pub done: &'a StopFlag,
    /// Where this thread publishes its node count for live progress.
    pub live_nodes: &'a AtomicU64,
    pub deadline: Option<Instant>,
    /// Marks of the nodes being searched, when the solve has several threads.
    pub busy: Option<&'a InProgress>,
}

/// Tests' stand-in for a solve: a table of its own and the flags a [`Shared`] borrows.
#[cfg(test)]
pub(crate) struct Alone {
    pub table: Table,
    pub stop: StopFlag,
    pub done: StopFlag,
    pub live: AtomicU64,
}

#[cfg(test)]
impl Alone {
    /// A `mib` MiB table for keys of a `W` x `H` board, flags down.
    pub fn new<const W: usize, const H: usize>(mib: usize) -> Alone {
        Alone {
            table: Table::new(mib, crate::position::key_bits(W, H)).unwrap(),
            stop: StopFlag::new(),
            done: StopFlag::new(),
            live: AtomicU64::new(0),
        }
    }

    /// What a searcher of one thread shares: no deadline, no busy marks.
    pub fn shared(&self) -> Shared<'_> {
        Shared {
            table: &self.table,
            stop: &self.stop,
            done: &self.done,
            live_nodes: &self.live,
            deadline: None,
            busy: None,
        }
    }
}

/// The state of one thread's search.
pub(crate) struct Searcher<'a, const W: usize, const H: usize, B: Bitboard = u64, I: Isa = Base> {
    shared: Shared<'a>,
    params: Params,
    /// Nodes searched (forced moves played through are not counted).
    pub nodes: u64,
    aborted: bool,
    /// Set with `aborted` when the search ended because another thread's bounds settled its
    /// null-window test ([`Params::abandon_settled`]): the driver then goes on with the next
    /// test instead of ending the solve.
    settled: bool,
    /// Whether this thread puts off children other threads are searching.
    defers: bool,
    /// Stones of the position `solve` was called on.
    root_moves: u32,
    /// The distance from the root (0 or 1, modulo 2) of the nodes expected to be all-nodes
    /// in the current null-window test, if guessed ([`Self::expected_all_nodes`]).
    all_parity: Option<u32>,
    /// The bounds shared by the threads of the solve and the current test's `med`, when
    /// other threads search it too: a bound another thread proves is read at the next poll
    /// (a new node-type guess, or the test abandoned).
    question: Option<(&'a Mutex<Window>, i32)>,
    /// This thread's near table ([`Table::near`]): the table of the nodes of at least
    /// `near_from` stones.
    near: &'a Table,
    near_from: u32,
    _word: std::marker::PhantomData<(B, I)>,
}

/// The alpha-beta window of a node being searched.
#[derive(Clone, Copy, Debug)]
struct Ab {
    alpha: i32,
    beta: i32,
}

impl Ab {
    /// Raises `alpha` to a proven lower bound `v` of the score; `Err(alpha)` when that
    /// closes the window (the node fails high with `v`).
    #[inline(always)]
    fn raise(&mut self, v: i32) -> Result<(), i32> {
        if v > self.alpha {
            self.alpha = v;
            if self.alpha >= self.beta {
                return Err(self.alpha);
            }
        }
        Ok(())
    }

    /// [`Ab::raise`] by each of `bounds` in turn ([`NO_BOUND`]: none), computed without a
    /// branch per bound: `Err` with the first that reaches `beta`, else `alpha` raised to
    /// the highest.
    #[inline(always)]
    fn raise_each(&mut self, bounds: &[i32; LANES]) -> Result<(), i32> {
        let (mut cuts, mut best) = (0u32, NO_BOUND);
        for (k, &b) in bounds.iter().enumerate() {
            cuts |= u32::from(b >= self.beta) << k;
            best = best.max(b);
        }
        if cuts != 0 {
            // `cuts` holds bits below `LANES` only; the remainder spares a bounds check.
            return Err(bounds[cuts.trailing_zeros() as usize % LANES]);
        }
        self.alpha = self.alpha.max(best);
        Ok(())
    }

    /// Lowers `beta` to a proven upper bound `v` of the score; `Err(beta)` when that closes
    /// the window (the node fails low with `v`).
    #[inline(always)]
    fn lower(&mut self, v: i32) -> Result<(), i32> {
        if v < self.beta {
            self.beta = v;
            if self.alpha >= self.beta {
                return Err(self.beta);
            }
        }
        Ok(())
    }
}

/// What the table stage hands on to the children and store stages.
struct Probe<B> {
    /// The table's move (a column), searched first.
    tt_move: Option<u8>,
    /// The slot the node's result goes to, with the node's table key and whether it is the
    /// mirror image's (nodes that store only; see [`Searcher::table_key`]).
    slot: Option<(Slot, B, bool)>,
}

/// What the moves alone say of a node: see `Searcher::by_moves`.
enum ByMoves {
    /// Its score.
    Decided(i32),
    /// One move does not lose at once.
    Forced,
    /// Two or more do.
    Open,
}

/// What the children stage found.
struct Found<B> {
    /// The best child's score (`i32::MIN` when none was searched).
    best: i32,
    /// The move to that child.
    best_move: B,
    /// A child's score that reached `beta`, when one did.
    cutoff: Option<i32>,
}

/// Bounds of the score proven so far by a driver; `lower == upper` once exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub lower: i32,
    pub upper: i32,
}

impl Window {
    /// Narrows the shared bounds `window` by `r`, the fail-soft answer to "is the score above
    /// `test`?" (at most `test`: an upper bound; above: a lower one), and returns them.
    fn narrow(window: &Mutex<Window>, test: i32, r: i32) -> Window {
        let mut w = window.lock().unwrap_or_else(|e| e.into_inner());
        if r <= test {
            w.upper = w.upper.min(r);
        } else {
            w.lower = w.lower.max(r);
        }
        *w
    }
}

/// What the first move's value says of the root ([`Searcher::first_move_guess`]).
#[derive(Clone, Copy, Debug)]
struct Guess {
    /// A lower bound of the root's score that the move proved.
    lower: Option<i32>,
    /// The driver's first test: "is the score above `first_test`?".
    first_test: i32,
}

impl<'a, const W: usize, const H: usize, B: Bitboard, I: Isa> Searcher<'a, W, H, B, I> {
    const ORDER: [usize; W] = column_order::<W>();

    /// Number of cells of the board.
    #[inline(always)]
    fn cells() -> i32 {
        Position::<W, H, B>::cells() as i32
    }

    /// The columns from the centre outwards ([`column_order`]).
    #[inline(always)]
    fn columns() -> &'static [usize] {
        if dims::is_run_time::<H>() {
            dims::order(Position::<W, H, B>::w())
        } else {
            &Self::ORDER
        }
    }

    /// A searcher of level `I`; panics where the CPU lacks the level's features (the solver
    /// builds only those of [`isa::level`]).
    pub(crate) fn new(shared: Shared<'a>, params: Params, thread: usize) -> Self {
        assert!(I::available(), "a search level this CPU does not have");
        let table = shared.table;
        Searcher {
            shared,
            params,
            nodes: 0,
            aborted: false,
            settled: false,
            defers: thread > 0 || !params.only_helpers_defer,
            root_moves: 0,
            all_parity: None,
            question: None,
            // The thread's own near table: its index in the solve, or in a batch
            // (`Solver::solve_many`, whose workers each solve alone, as thread 0) its worker's.
            near: table.near(thread + rayon::current_thread_index().unwrap_or(0)),
            near_from: (Self::cells() as u32).saturating_sub(params.near_empty),
            _word: std::marker::PhantomData,
        }
    }

    /// True when a stop, a finished helper or the deadline ended this searcher's search:
    /// the value it returned then means nothing.
    pub(crate) fn aborted(&self) -> bool {
        self.aborted
    }

    /// The score when the player to move wins with its next stone.
    #[inline]
    pub(crate) fn win_now(moves: u32) -> i32 {
        (Self::cells() + 1 - moves as i32) / 2
    }

    /// The score bounds of a position before any search.
    pub(crate) fn initial_window(pos: &Position<W, H, B>) -> Window {
        let m = pos.moves() as i32;
        Window {
            lower: -(Self::cells() - m) / 2,
            upper: (Self::cells() + 1 - m) / 2,
        }
    }

    #[cold]
    fn poll(&mut self) {
        self.shared.live_nodes.store(self.nodes, Ordering::Relaxed);
        if let Some((window, med)) = self.question {
            // Another thread's test may have proven a bound next to ours meanwhile.
            if let Ok(w) = window.try_lock() {
                if !(w.lower..w.upper).contains(&med) {
                    if self.params.abandon_settled {
                        // Their bounds answer this test already: what is left of it is
                        // waste. It ends as a stop would, storing nothing for the nodes
                        // it was in.
                        self.settled = true;
                        self.aborted = true;
                        return;
                    }
                } else if self.params.guess_node_types {
                    self.all_parity = Self::expected_all_nodes(w.lower, w.upper, med);
                }
            }
        }
        if self.shared.stop.is_raised() || self.shared.done.is_raised() {
            self.aborted = true;
        } else if self.shared.deadline.is_some_and(|d| Instant::now() >= d) {
            // The time limit ends this solve (all its threads), not the caller's later ones.
            self.shared.done.raise();
            self.aborted = true;
        }
    }
}
