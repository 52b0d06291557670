//! The search: negamax with alpha-beta on exact scores, run by one thread.
//!
//! This module owns one thread's search: the recursion, the bounds it derives, when it reads
//! and writes the table, the null-window driver that narrows the exact score, the weak
//! (win/draw/loss) test, and finding a best move for a known score. It shares nothing with
//! other threads except the [`Table`] and the stop flags it is handed; it never spawns
//! threads and never prints.
//!
//! # Scores
//!
//! A score is from the side to move's view: `CELLS / 2 + 1 - s` when it wins with its `s`-th
//! stone (on 7 x 6: 22 - s, so 18 for the quickest possible win), the negation when it loses
//! that way, 0 for a draw.
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
//!   (BENCHMARKS.md, ninth and eighteenth rounds).
//! - A position and its mirror image share one entry: the table is keyed by the smaller of
//!   their two keys (`Position::canonical_key`), and a move read from or written to an entry
//!   keyed by the mirror image is mirrored.
//! - The probe also chooses the slot the node's result will go to, so the store does not
//!   read the bucket again (unless the search was long and the bucket may have changed).
//! - The table's move is searched before the other moves are scored.
//!
//! The thresholds live in [`Params`]; BENCHMARKS.md records how they were chosen.

use crate::bitboard::Bitboard;
use crate::ordering::{column_order, threat_score, AfterEach, MoveList, LANES};
use crate::position::{has_four, has_four_split, Position};
use crate::sync::{AtomicU64, Ordering};
use crate::table::{Bound, InProgress, Slot, Table};
use crate::StopFlag;
use std::sync::Mutex;
use std::time::Instant;

/// Tuning knobs of the search. The defaults are the measured best on 7 x 6; the thresholds of
/// depth count empty cells (the size of what is left to search), so that they carry over to
/// every board, except `defer_below`, `zero_window_below` and `first_move_guess_below`
/// (stones: the plies nearest the root).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Threat-based ordering while more than this many cells are empty; the static
    /// centre-first order after.
    pub threat_order_min_empty: u32,
    /// Extra weight in the threat score (see `ordering::threat_score`): bit 0 threats on
    /// the mover's rows, bit 1 threats playable at once, bit 2 weighted low useful threats
    /// instead of the plain count.
    pub threat_bonus: u32,
    /// ETC (probing the children) at the nodes that do not store while more than this many
    /// cells are empty.
    pub etc_min_empty: u32,
    /// Use the table on every ply instead of even plies only.
    pub table_every_ply: bool,
    /// While at least this many cells are empty (0: never), use the table on every ply,
    /// and let a node whose own entry gave no move probe its children too (ETC); once the
    /// thread has searched `every_ply_after` nodes.
    pub every_ply_min_empty: u32,
    /// The nodes a thread's search counts before `every_ply_min_empty` applies. The extra
    /// probes near the root pay in long searches, whose subtrees there are large, and cost
    /// time in short ones (BENCHMARKS.md, "Eighteenth round"); the count tells them apart.
    pub every_ply_after: u64,
    /// Windows with `beta >= forcing_from` or `alpha <= -forcing_from` (is there a quick
    /// win, for either side?) add the threats playable at once to the threat score
    /// (`threat_bonus` bit 1).
    pub forcing_from: u32,
    /// Use the table while at least this many cells are empty (0: at every depth, on every
    /// board). Counted in empty cells, not stones, so that no board loses the table on its
    /// late plies.
    pub table_min_empty: u32,
    /// Stores of searches of at least this many nodes look for their slot again.
    pub rescan_work: u64,
    /// Use the parity bounds at all: the follow-up (claim-even)
    /// bounds, and the odd-threat ones as `odd_threat` and `odd_threat_ahead` say.
    pub claim_even: bool,
    /// Extend claim-even to positions with odd-filled columns (see `follow_up_bound`).
    pub claim_even_general: bool,
    /// Positions with fewer stones than this start the exact-score driver with the window
    /// around 0 (their score is usually small) rather than halfway to a bound.
    pub zero_window_below: u32,
    /// With the window around 0, the first test asks "is the score above `first_test`?":
    /// 0 (the default) whether the first player wins, -1 whether it does not lose. Then
    /// one step at a time away from it.
    pub first_test: i32,
    /// With one thread, on a root of fewer stones than this (and than `zero_window_below`),
    /// ask the first test of the first move alone before the root (see
    /// `Searcher::first_move_guess`): when that move is not even above `first_test - 1`, the
    /// driver starts one step lower. 1: the empty board only; 0: never.
    pub first_move_guess_below: u32,
    /// While at most this many cells are empty (0: never), the children's own first stages
    /// run before any child is searched: a child they decide is not searched (see
    /// `Searcher::static_children`).
    pub static_children_empty: u32,
    /// With several threads, put off children another thread is searching while fewer than
    /// this many stones are down. Near the root only: every child entered below it is marked
    /// and unmarked in a shared set (two atomic writes), which deeper costs more time than
    /// the deferrals save.
    pub defer_below: u32,
    /// Only helper threads put off busy children; the main thread keeps its order. Off by
    /// default: the main thread puts them off too.
    pub only_helpers_defer: bool,
    /// Helper threads test a window next to the main thread's instead of the same one.
    pub helper_windows: bool,
    /// Prefetch the children's buckets while ordering moves.
    pub prefetch: bool,
    /// Use the odd-threat bound (see `odd_threat_bound`) on positions with an odd number
    /// of empty cells: a lower bound for the first player, an upper one for the second.
    pub odd_threat: bool,
    /// Also try it one move ahead, after each of the first player's moves.
    pub odd_threat_ahead: bool,
    /// Key the table by [`Position::canonical_key`], so that a position and its mirror
    /// image share one entry at every depth (else each is stored under its own key).
    pub canonical: bool,
    /// With `canonical`, key the table by [`Position::reduced_key`]: positions that differ
    /// only in the colour of stones that can make or stop no four any more share an entry.
    pub dead_stones: bool,
    /// Bound the score by 0 when a side can make no four any more, even with every empty
    /// cell (see `Searcher::no_four_bounds`).
    pub no_four: bool,
    /// With several threads, guess from the proven bounds which nodes of a null-window test
    /// are all-nodes, and put off busy children only there (see
    /// `Searcher::expected_all_nodes`).
    pub guess_node_types: bool,
    /// Nodes with at most this many empty cells use their thread's near table
    /// ([`Table::with_near`], [`Table::near`]; the main table itself when the solver's
    /// table was not split). 0: never, and the solver's table is not split.
    pub near_empty: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threat_order_min_empty: 6,
            threat_bonus: 0,
            etc_min_empty: 18,
            table_every_ply: false,
            every_ply_min_empty: 22,
            every_ply_after: 1 << 17,
            table_min_empty: 0,
            forcing_from: 7,
            rescan_work: 1 << 10,
            claim_even: true,
            claim_even_general: true,
            zero_window_below: 4,
            first_test: 0,
            first_move_guess_below: 1,
            static_children_empty: 6,
            prefetch: true,
            helper_windows: true,
            defer_below: 16,
            only_helpers_defer: false,
            odd_threat: true,
            odd_threat_ahead: true,
            canonical: true,
            dead_stones: false,
            no_four: true,
            guess_node_types: true,
            near_empty: 12,
        }
    }
}

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

/// The state of one thread's search.
pub(crate) struct Searcher<'a, const W: usize, const H: usize, B: Bitboard = u64> {
    shared: Shared<'a>,
    params: Params,
    /// Nodes searched (forced moves played through are not counted).
    pub nodes: u64,
    aborted: bool,
    /// Whether this thread puts off children other threads are searching.
    defers: bool,
    /// Stones of the position `solve` was called on.
    root_moves: u32,
    /// The distance from the root (0 or 1, modulo 2) of the nodes expected to be all-nodes
    /// in the current null-window test, if guessed ([`Self::expected_all_nodes`]).
    all_parity: Option<u32>,
    /// The bounds shared by the threads of the solve and the current test's `med`, while
    /// the guess may change: a bound another thread proves is read at the next poll.
    question: Option<(&'a Mutex<Window>, i32)>,
    /// This thread's near table ([`Table::near`]): the table of the nodes of at least
    /// `near_from` stones.
    near: &'a Table,
    near_from: u32,
    _word: std::marker::PhantomData<B>,
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

impl<'a, const W: usize, const H: usize, B: Bitboard> Searcher<'a, W, H, B> {
    const CELLS: i32 = (W * H) as i32;
    const ORDER: [usize; W] = column_order::<W>();

    pub(crate) fn new(shared: Shared<'a>, params: Params, thread: usize) -> Self {
        let table = shared.table;
        Searcher {
            shared,
            params,
            nodes: 0,
            aborted: false,
            defers: thread > 0 || !params.only_helpers_defer,
            root_moves: 0,
            all_parity: None,
            question: None,
            // The thread's own near table: its index in the solve, or in a batch
            // (`Solver::solve_many`, whose workers each solve alone, as thread 0) its worker's.
            near: table.near(thread + rayon::current_thread_index().unwrap_or(0)),
            near_from: (Self::CELLS as u32).saturating_sub(params.near_empty),
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
        (Self::CELLS + 1 - moves as i32) / 2
    }

    /// The score bounds of a position before any search.
    pub(crate) fn initial_window(pos: &Position<W, H, B>) -> Window {
        let m = pos.moves() as i32;
        Window {
            lower: -(Self::CELLS - m) / 2,
            upper: (Self::CELLS + 1 - m) / 2,
        }
    }

    #[cold]
    fn poll(&mut self) {
        self.shared.live_nodes.store(self.nodes, Ordering::Relaxed);
        if let Some((window, med)) = self.question {
            // Another thread's test may have proven a bound next to ours meanwhile.
            if let Ok(w) = window.try_lock() {
                if (w.lower..w.upper).contains(&med) {
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

    /// Negamax with alpha-beta, fail-soft: a result `<= alpha` is an upper bound of the score,
    /// `>= beta` a lower bound, anything between exact.
    ///
    /// The player to move must not be able to win at once, and the game must not be over.
    ///
    /// A node goes through named stages, each of which may decide it:
    /// 1. [`Self::settle`]: no move that does not lose at once, a draw by the board filling
    ///    up, or a single such move played through; else the node is counted.
    /// 2. [`Self::bounds`]: the bounds from the moves left and the parity bounds.
    /// 3. [`Self::probe`] (nodes that store: even plies) or [`Self::etc`] (odd plies near
    ///    the root): the table's bounds and move; near the end of the game,
    ///    [`Self::static_children`]: the children's own stages 1 and 2, all before any is
    ///    searched.
    /// 4. [`Self::children`]: the table's move, then [`Self::order`]'s list, searched in
    ///    [`Self::child_loop`].
    /// 5. [`Self::store`]: the result, with the kind of bound it is, into the probed slot.
    pub(crate) fn negamax(&mut self, pos: &Position<W, H, B>, alpha: i32, beta: i32) -> i32 {
        self.node(pos, pos.opponent_winning(), alpha, beta)
    }

    /// [`Self::negamax`] given the opponent's winning cells `opp_win`, which the parent may
    /// have computed already (see [`Self::child`]).
    #[inline(always)]
    fn node(&mut self, pos: &Position<W, H, B>, opp_win: B, alpha: i32, beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!pos.can_win_next());
        let (next, opp_threats) = pos.non_losing_moves_from(opp_win);
        if let Some(v) = self.settle(pos, next, alpha, beta) {
            return v;
        }
        let mut w = Ab { alpha, beta };
        self.search_node(pos, next, opp_threats, &mut w)
            .unwrap_or_else(|v| v)
    }

    /// Stages 2 to 5 of [`Self::negamax`] on a counted node: `Err(v)` when a stage decides
    /// the node with `v` before its children are searched.
    #[inline(always)]
    fn search_node(
        &mut self,
        pos: &Position<W, H, B>,
        next: B,
        opp_threats: B,
        w: &mut Ab,
    ) -> Result<i32, i32> {
        let mut after = AfterEach::new();
        self.bounds(pos, next, opp_threats, w, &mut after)?;
        // The node's table, for its probe and its store.
        let tt = self.tt(pos.moves());
        let probe = if self.stores(pos.moves()) {
            let (key, flip) = self.table_key(pos);
            let probe = self.probe(tt, key, flip, w)?;
            // Near the root, a node the table gives no move also looks for a transposition
            // cut among its children (which are stored there too).
            if probe.tt_move.is_none() && self.every_ply(pos.moves()) {
                self.probe_children(pos, next, w)?;
            }
            probe
        } else {
            self.etc(pos, next, w)?;
            Probe {
                tt_move: None,
                slot: None,
            }
        };
        let alpha0 = w.alpha;
        let mut next = next;
        let mut decided = (i32::MIN, B::ZERO);
        if Self::CELLS as u32 - pos.moves() <= self.params.static_children_empty {
            decided = self.static_children(pos, &mut next, w, &mut after)?;
            if next == B::ZERO {
                return Err(decided.0);
            }
        }
        let start = self.nodes;
        let mut found = self.children(pos, next, opp_threats, probe.tt_move, w, &mut after);
        if found.cutoff.is_none() && decided.0 > found.best {
            // A child decided by its own stages was the best.
            (found.best, found.best_move) = decided;
        }
        if self.aborted {
            return Ok(0);
        }
        if let Some((slot, key, flip)) = probe.slot {
            self.store(
                tt,
                key,
                flip,
                slot,
                &found,
                alpha0,
                probe.tt_move,
                self.nodes - start,
            );
        }
        Ok(found.cutoff.unwrap_or(found.best))
    }

    /// Stage 3b, near the end of the game: every child's stages 1 and 2 (its moves alone, a
    /// forced line followed, its bounds) before any child is searched, so that a child they
    /// decide above `beta` ends the node at once wherever it is in the order. A decided
    /// child is taken out of `next`, its score raising `alpha`; returns the best of them
    /// and its move (`i32::MIN` when none), `Err` at a cutoff.
    #[inline(always)]
    fn static_children(
        &self,
        pos: &Position<W, H, B>,
        next: &mut B,
        w: &mut Ab,
        after: &mut AfterEach<W, B>,
    ) -> Result<(i32, B), i32> {
        let mut best = (i32::MIN, B::ZERO);
        let lanes = after.get(pos);
        for (col, &opp_win) in lanes.iter().enumerate() {
            let mv = *next & Position::<W, H, B>::column_mask(col);
            if mv == B::ZERO {
                continue;
            }
            if let Some(v) = self.static_value(&pos.after(mv), opp_win, -w.beta, -w.alpha) {
                let v = -v;
                if v >= w.beta {
                    return Err(v);
                }
                if v > best.0 {
                    best = (v, mv);
                }
                w.alpha = w.alpha.max(v);
                *next ^= mv;
            }
        }
        Ok(best)
    }

    /// What [`Self::negamax`] returns for `pos` in the window `(alpha, beta)` when its
    /// stages 1 and 2 decide it (following a forced line), else `None`. Counts no node.
    /// `opp_win`: the opponent's winning cells ([`Position::opponent_winning`]).
    fn static_value(
        &self,
        pos: &Position<W, H, B>,
        opp_win: B,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let (next, opp_threats) = pos.non_losing_moves_from(opp_win);
        match Self::by_moves(pos, next) {
            ByMoves::Decided(v) => Some(v),
            ByMoves::Forced => {
                let child = pos.after(next);
                self.static_value(&child, child.opponent_winning(), -beta, -alpha)
                    .map(|v| -v)
            }
            ByMoves::Open => {
                let mut w = Ab { alpha, beta };
                self.bounds(pos, next, opp_threats, &mut w, &mut AfterEach::new())
                    .err()
            }
        }
    }

    /// What the moves alone say of a node (`next`: its moves that do not lose at once).
    /// With none, the node is lost (every move lets the opponent win at once); when the
    /// board fills up before the opponent's next stone, drawn (it cannot win with the last
    /// stone); with one, the move is forced.
    #[inline(always)]
    fn by_moves(pos: &Position<W, H, B>, next: B) -> ByMoves {
        let moves = pos.moves() as i32;
        if next == B::ZERO {
            ByMoves::Decided(-(Self::CELLS - moves) / 2)
        } else if moves >= Self::CELLS - 2 {
            ByMoves::Decided(0)
        } else if next & (next - B::ONE) == B::ZERO {
            ByMoves::Forced
        } else {
            ByMoves::Open
        }
    }

    /// Stage 1: the nodes decided by their moves alone ([`Self::by_moves`]); a forced move
    /// is played through without counting a node. Otherwise the node is counted (and the
    /// stop flags polled now and then) and `None` returned.
    #[inline(always)]
    fn settle(&mut self, pos: &Position<W, H, B>, next: B, alpha: i32, beta: i32) -> Option<i32> {
        match Self::by_moves(pos, next) {
            ByMoves::Decided(v) => return Some(v),
            ByMoves::Forced => return Some(-self.negamax(&pos.after(next), -beta, -alpha)),
            ByMoves::Open => {}
        }
        self.nodes += 1;
        if self.nodes & POLL_MASK == 1 {
            self.poll();
            if self.aborted {
                return Some(0);
            }
        }
        None
    }

    /// Stage 2: the bounds known before any search. The opponent cannot win with its next
    /// stone, and we cannot win with ours (the caller checked): the loss comes at the
    /// earliest with the opponent's stone after our second-next, the win with our
    /// second-next. Then the parity bounds (see [`Self::parity_bounds`]) and the bounds of a
    /// side that can make no four ([`Self::no_four_bounds`]).
    #[inline(always)]
    fn bounds(
        &self,
        pos: &Position<W, H, B>,
        next: B,
        opp_threats: B,
        w: &mut Ab,
        after: &mut AfterEach<W, B>,
    ) -> Result<(), i32> {
        let moves = pos.moves() as i32;
        w.raise(-(Self::CELLS - 2 - moves) / 2)?;
        let mut max = (Self::CELLS - 1 - moves) / 2;
        if self.params.claim_even {
            self.parity_bounds(pos, next, opp_threats, w, &mut max, after)?;
        }
        if self.params.no_four {
            Self::no_four_bounds(pos, w, &mut max)?;
        }
        w.lower(max)
    }

    /// The bounds of a side that can make no four any more, even with every empty cell:
    /// that side cannot win, so the score is at most 0 when it is the player to move and at
    /// least 0 when it is the opponent. Tested only where the parity bounds do not already
    /// imply it: the player to move on an odd number of empty cells (on an even one it
    /// leads, and the follow-up bound asks the same of fewer cells), the opponent on an
    /// even number (on an odd one it leads after our move, and the children's follow-up
    /// bounds cover it); and only when the window can use the bound.
    #[inline(always)]
    fn no_four_bounds(pos: &Position<W, H, B>, w: &mut Ab, max: &mut i32) -> Result<(), i32> {
        let empty = Position::<W, H, B>::board() & !pos.mask();
        if (Self::CELLS - pos.moves() as i32) % 2 == 1 {
            if *max > 0 && !has_four::<W, H, B>(pos.current() | empty) {
                *max = 0;
            }
        } else if w.alpha < 0 && !has_four::<W, H, B>((pos.current() ^ pos.mask()) | empty) {
            w.raise(0)?;
        }
        Ok(())
    }

    /// The node's key in the table, and whether it is its mirror image's (then the table's
    /// columns are mirrored): [`Position::canonical_key`] with `Params::canonical`
    /// ([`Position::reduced_key`] with `Params::dead_stones` too), else the position's own key.
    #[inline(always)]
    fn table_key(&self, pos: &Position<W, H, B>) -> (B, bool) {
        if self.params.dead_stones && self.params.canonical {
            pos.reduced_key()
        } else if self.params.canonical {
            pos.canonical_key()
        } else {
            (pos.key(), false)
        }
    }

    /// The table key of the child after `mv`, as [`Self::table_key`] gives it; `base` is the
    /// node's [`Position::child_base`], which spares the canonical key a mirror image per
    /// child.
    #[inline(always)]
    fn child_table_key(&self, pos: &Position<W, H, B>, base: (B, B), mv: B) -> B {
        if self.params.dead_stones && self.params.canonical {
            pos.after(mv).reduced_key().0
        } else if self.params.canonical {
            Position::<W, H, B>::canonical_child_key(base, mv)
        } else {
            base.0 + mv
        }
    }

    /// Column `c` of a node's table entry in the node's own frame (or back): mirrored when
    /// the entry is keyed by the mirror image.
    #[inline(always)]
    fn flip_column(c: u8, flip: bool) -> u8 {
        if flip {
            (W - 1) as u8 - c
        } else {
            c
        }
    }

    /// Whether a node of `moves` stones probes and stores the table itself (else its
    /// children may be probed by [`Self::etc`]).
    #[inline(always)]
    fn stores(&self, moves: u32) -> bool {
        let empty = Self::CELLS as u32 - moves;
        (self.params.table_every_ply || moves % 2 == 0 || self.every_ply(moves))
            && empty >= self.params.table_min_empty
    }

    /// The table of a node of `moves` stones: the near table ([`Table::near`]) from
    /// `Params::near_empty` empty cells on, the main one before.
    #[inline(always)]
    fn tt(&self, moves: u32) -> &'a Table {
        if moves >= self.near_from {
            self.near
        } else {
            self.shared.table
        }
    }

    /// Whether a node of `moves` stones is near enough to the root to use the table on every
    /// ply, in a search long enough for it (see `Params::every_ply_min_empty` and
    /// `Params::every_ply_after`).
    #[inline(always)]
    fn every_ply(&self, moves: u32) -> bool {
        let min = self.params.every_ply_min_empty;
        min != 0 && Self::CELLS as u32 - moves >= min && self.nodes >= self.params.every_ply_after
    }

    /// Whether a node of `moves` stones loads its children's buckets ahead of searching them:
    /// when they will probe the table themselves (not when [`Self::etc`] loads them all
    /// anyway).
    #[inline(always)]
    fn prefetches_children(&self, moves: u32) -> bool {
        let empty = Self::CELLS as u32 - moves;
        self.params.prefetch
            && (self.params.table_every_ply || moves % 2 == 1 || self.every_ply(moves + 1))
            && empty <= self.params.etc_min_empty
            && empty > self.params.table_min_empty
    }

    /// Stage 3, nodes that store: the table's entry under the node's key (`flip`: the key is
    /// its mirror image's, see [`Self::table_key`]) narrows the window or decides the node;
    /// its move is searched first. Chooses the slot the node's result goes to.
    #[inline(always)]
    fn probe(&self, tt: &Table, key: B, flip: bool, w: &mut Ab) -> Result<Probe<B>, i32> {
        let (hit, slot) = tt.probe_slot(key);
        let tt_move = hit
            .and_then(|e| e.best_move)
            .map(|c| Self::flip_column(c, flip));
        if let Some(e) = hit {
            match e.bound {
                Bound::Exact => return Err(e.value),
                Bound::Lower => w.raise(e.value)?,
                Bound::Upper => w.lower(e.value)?,
            }
        }
        Ok(Probe {
            tt_move,
            slot: Some((slot, key, flip)),
        })
    }

    /// Stage 3, nodes that do not store, while many cells are empty: enhanced transposition
    /// cutoff ([`Self::probe_children`]).
    #[inline(always)]
    fn etc(&self, pos: &Position<W, H, B>, next: B, w: &mut Ab) -> Result<(), i32> {
        if Self::CELLS as u32 - pos.moves() <= self.params.etc_min_empty {
            return Ok(());
        }
        self.probe_children(pos, next, w)
    }

    /// Enhanced transposition cutoff: the children's entries under their table keys. A
    /// child whose stored upper bound is low enough proves this node's value is at least its
    /// negation. Every child's bucket is loaded at once first, so that the misses overlap.
    #[inline(always)]
    fn probe_children(&self, pos: &Position<W, H, B>, next: B, w: &mut Ab) -> Result<(), i32> {
        let tt = self.tt(pos.moves() + 1);
        let base = pos.child_base();
        if self.params.prefetch {
            let mut rest = next;
            while rest != B::ZERO {
                let mv = rest & rest.wrapping_neg();
                rest ^= mv;
                tt.prefetch(self.child_table_key(pos, base, mv));
            }
        }
        let mut rest = next;
        while rest != B::ZERO {
            let mv = rest & rest.wrapping_neg();
            rest ^= mv;
            if let Some(e) = tt.probe(self.child_table_key(pos, base, mv)) {
                if e.bound != Bound::Lower {
                    w.raise(-e.value)?;
                }
            }
        }
        Ok(())
    }

    /// Stage 4: the children, the table's move first, the others in [`Self::order`]'s order,
    /// until one reaches `beta`. With several threads, near the root, each child is marked as
    /// being searched, with its window, from before it is entered until it returns, and a
    /// child another thread is searching now with the same window is put off (ABDADA's
    /// idea), so that the threads spread over the tree instead of searching the same child
    /// together.
    #[inline(always)]
    fn children(
        &mut self,
        pos: &Position<W, H, B>,
        next: B,
        opp_threats: B,
        tt_move: Option<u8>,
        w: &mut Ab,
        after: &mut AfterEach<W, B>,
    ) -> Found<B> {
        let mut found = Found {
            best: i32::MIN,
            best_move: B::ZERO,
            cutoff: None,
        };
        let busy = self
            .shared
            .busy
            .filter(|_| pos.moves() < self.params.defer_below)
            .map(|b| (b, pos.child_base()));

        // The table's move first, before the others are scored: when it cuts, as it mostly
        // does, ordering them would be wasted.
        let first = tt_move.map_or(B::ZERO, |c| {
            next & Position::<W, H, B>::column_mask(c as usize)
        });
        if first != B::ZERO {
            let entered = busy
                .map(|(b, base)| (b, self.mark(pos, base, first, w)))
                .filter(|&(b, m)| b.enter(m));
            let v = self.child(pos, first, after, w);
            if let Some((b, m)) = entered {
                b.leave(m);
            }
            (found.best, found.best_move) = (v, first);
            if v >= w.beta {
                found.cutoff = Some(v);
            } else if v > w.alpha {
                w.alpha = v;
            }
        }
        if found.cutoff.is_none() && !self.aborted {
            // Filled in place: a list returned by value was copied with wide loads that
            // waited on its narrow stores.
            let mut list = MoveList::<W, B>::new();
            self.order(pos, next & !first, opp_threats, w, after, &mut list);
            // The first child is never put off: someone must search it.
            let keep = usize::from(first == B::ZERO);
            let prefetch = self
                .prefetches_children(pos.moves())
                .then(|| busy.map_or_else(|| pos.child_base(), |(_, base)| base));
            self.child_loop(
                pos,
                list.as_slice(),
                keep,
                busy,
                prefetch,
                w,
                &mut found,
                after,
            );
        }
        found
    }

    /// The mark of the child after `mv` searched within the parent's window `w`, in the set
    /// of nodes being searched: its table key and window. Two threads searching one position
    /// with different windows (a helper testing its own null window) do not share a mark, so
    /// neither puts off the other's work.
    #[inline(always)]
    fn mark(&self, pos: &Position<W, H, B>, base: (B, B), mv: B, w: &Ab) -> u64 {
        let key = self.child_table_key(pos, base, mv).fold64();
        (key ^ (w.beta as i64 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1
    }

    /// Stage 4a: the moves `rest` into `list`, in the order they are searched. Near the root,
    /// by the threats each makes (forcing moves first when the window asks whether a side
    /// wins quickly); after, centre first.
    #[inline(always)]
    fn order(
        &self,
        pos: &Position<W, H, B>,
        rest: B,
        opp_threats: B,
        w: &Ab,
        after: &mut AfterEach<W, B>,
        list: &mut MoveList<W, B>,
    ) {
        let moves = pos.moves();
        let empty = Self::CELLS as u32 - moves;
        let threats = empty > self.params.threat_order_min_empty;
        // A window far from 0 asks whether a side wins quickly: forcing moves (threats the
        // opponent must answer at once) then come first.
        let quick = self.params.forcing_from as i32;
        let bonus = if w.beta >= quick || w.alpha <= -quick {
            self.params.threat_bonus | 2
        } else {
            self.params.threat_bonus
        };
        let lanes = threats.then(|| after.get(pos));
        // In centre-first order, which breaks ties.
        let (mut moves, mut scores) = ([B::ZERO; W], [0; W]);
        for (i, &col) in Self::ORDER.iter().enumerate() {
            moves[i] = rest & Position::<W, H, B>::column_mask(col);
            scores[i] = match lanes {
                Some(t) if bonus == 0 => t[col].count_ones(),
                Some(t) if moves[i] != B::ZERO => {
                    threat_score(pos, moves[i], t[col], bonus, opp_threats)
                }
                _ => 0,
            };
        }
        list.rank(&moves, &scores);
    }

    /// The child after `mv`, searched in the window `w` and seen from this node (negated).
    /// Its opponent's winning cells are ours after `mv`: taken from `after` when a stage
    /// computed them.
    #[inline(always)]
    fn child(&mut self, pos: &Position<W, H, B>, mv: B, after: &AfterEach<W, B>, w: &Ab) -> i32 {
        let child = pos.after(mv);
        let opp_win = after
            .lane(Position::<W, H, B>::column_of(mv))
            .unwrap_or_else(|| child.opponent_winning());
        -self.node(&child, opp_win, -w.beta, -w.alpha)
    }

    /// Stage 4b: searches `list` in order until a child reaches `beta`, recording the best
    /// in `found`; every child's bucket starts loading first when `prefetch` holds the node's
    /// [`Position::child_base`] ([`Self::prefetches_children`]). The opponent's winning
    /// cells of each child come from `after` when a stage computed them. With marks (`busy`),
    /// children after the first `keep` that another thread is searching with the
    /// same window (marked in `busy`, whose second half is the node's
    /// [`Position::child_base`]) are put off to a second pass, at nodes expected to be
    /// all-nodes when the test guessed them ([`Self::expected_all_nodes`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn child_loop(
        &mut self,
        pos: &Position<W, H, B>,
        list: &[B],
        keep: usize,
        busy: Option<(&InProgress, (B, B))>,
        prefetch: Option<(B, B)>,
        w: &mut Ab,
        found: &mut Found<B>,
        after: &AfterEach<W, B>,
    ) {
        // Every child's bucket starts loading before the first is searched, so that the
        // misses overlap.
        for &mv in list {
            self.load_child(pos, prefetch, mv);
        }
        if busy.is_none() {
            // No marks (one thread, or below `defer_below`): the list in order.
            for &mv in list {
                let v = self.child(pos, mv, after, w);
                if self.aborted || Self::record(found, w, v, mv) {
                    return;
                }
            }
            return;
        }
        let mut deferred = [B::ZERO; W];
        let (mut n_deferred, mut i, mut second) = (0, 0, false);
        loop {
            let mv = if !second && i < list.len() {
                list[i]
            } else if !second {
                (second, i) = (true, 0);
                continue;
            } else if i < n_deferred {
                deferred[i]
            } else {
                break;
            };
            i += 1;
            let mark = busy.map(|(b, base)| (b, self.mark(pos, base, mv, w)));
            let entered = mark.filter(|&(b, m)| b.enter(m));
            if !second
                && i > keep
                && self.defers
                && self
                    .all_parity
                    .map_or(true, |p| (pos.moves() - self.root_moves) % 2 == p)
                && entered.is_none()
                && mark.is_some_and(|(b, m)| b.is_busy(m))
            {
                deferred[n_deferred] = mv;
                n_deferred += 1;
                continue;
            }
            let v = self.child(pos, mv, after, w);
            if let Some((b, m)) = entered {
                b.leave(m);
            }
            if self.aborted || Self::record(found, w, v, mv) {
                break;
            }
        }
    }

    /// Records the score `v` of the child after `mv` in `found` and the window: true at a
    /// cutoff (`v >= beta`).
    #[inline(always)]
    fn record(found: &mut Found<B>, w: &mut Ab, v: i32, mv: B) -> bool {
        if v > found.best {
            found.best = v;
            found.best_move = mv;
        }
        if v >= w.beta {
            found.cutoff = Some(v);
            return true;
        }
        if v > w.alpha {
            w.alpha = v;
        }
        false
    }

    /// Starts loading the bucket of the child after `mv` (`base`: the node's
    /// [`Position::child_base`], when its children probe the table).
    #[inline(always)]
    fn load_child(&self, pos: &Position<W, H, B>, base: Option<(B, B)>, mv: B) {
        if let Some(base) = base {
            self.tt(pos.moves() + 1)
                .prefetch(self.child_table_key(pos, base, mv));
        }
    }

    /// Stage 5: stores the node's result in `slot`: a lower bound after a cutoff, exact when
    /// it rose above `alpha0` (the window's lower end when the children started), else an
    /// upper bound. The move is the best child's, or the table's when none was better.
    /// After a long search (`work` nodes) the slot may have been taken meanwhile: it is
    /// chosen again.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &self,
        tt: &Table,
        key: B,
        flip: bool,
        slot: Slot,
        found: &Found<B>,
        alpha0: i32,
        tt_move: Option<u8>,
        work: u64,
    ) {
        let (value, bound, mv) = if let Some(v) = found.cutoff {
            (v, Bound::Lower, Some(found.best_move))
        } else if found.best > alpha0 {
            (found.best, Bound::Exact, Some(found.best_move))
        } else {
            (found.best, Bound::Upper, None)
        };
        let mv = mv
            .map(|m| Position::<W, H, B>::column_of(m) as u8)
            .or(tt_move)
            .map(|c| Self::flip_column(c, flip));
        if work < self.params.rescan_work {
            tt.store_at(slot, value, bound, mv, work);
        } else {
            tt.store(key, value, bound, mv, work);
        }
    }

    /// The parity bounds of a node (see `follow_up_bound` and
    /// `odd_threat_bound`): the window's `alpha` raised and `max` (the bound the caller
    /// applies to `beta`) lowered by them, or `Err(v)` when they alone decide the node:
    /// `v >= beta` is then a lower bound of its score. `next` and `opp_threats` are the
    /// node's non-losing moves and the opponent's winning cells.
    #[inline(always)]
    fn parity_bounds(
        &self,
        pos: &Position<W, H, B>,
        next: B,
        opp_threats: B,
        w: &mut Ab,
        max: &mut i32,
        after: &mut AfterEach<W, B>,
    ) -> Result<(), i32> {
        let beta = w.beta;
        let moves = pos.moves() as i32;
        // The parity bounds are small scores, so they are computed only when the window is
        // near enough to 0 to use them. A follow-up bound is 0, or a loss of the leader with
        // `above / 2 + 1` where `above`, the cells left empty, is at most `H - 2` (even
        // heights) or `H - 1` (odd ones), the most a column has above a follower's row (see
        // `sure_threats` and `sure_four_value`); an odd threat wins with no more
        // (`odd_threat_bound`).
        let reach = H.div_ceil(2) as i32;
        let (cur, mask) = (pos.current(), pos.mask());
        if (Self::CELLS - moves) % 2 == 0 {
            // An even number of empty cells: the opponent can follow us up.
            if w.alpha >= -reach && (self.params.claim_even_general || pos.columns_paired()) {
                if let Some(b) = follow_up_bound::<W, H, B>(cur, cur ^ mask, opp_threats, mask) {
                    *max = (*max).min(b);
                }
            }
            // After one of our moves the opponent may be in zugzwang: our threats after each
            // move (computed for all the moves at once, and kept for the move order).
            if self.params.odd_threat_ahead && beta < reach {
                for (col, &threats) in after.get(pos).iter().enumerate() {
                    let mv = next & Position::<W, H, B>::column_mask(col);
                    if mv == B::ZERO {
                        continue;
                    }
                    if let Some(b) = odd_threat_bound::<W, H, B>(cur ^ mask, threats, mask | mv) {
                        w.raise(b)?;
                    }
                }
            }
        } else {
            if self.params.odd_threat && beta > 1 - reach {
                // The opponent may hold an odd threat we will have to play under.
                if let Some(b) = odd_threat_bound::<W, H, B>(cur, opp_threats, mask) {
                    *max = (*max).min(-b);
                }
            }
            // The follow-up lower bound is at most `reach`: of use only below.
            if beta <= reach {
                // An odd number: after our stone in a column with an odd number of empty
                // cells, the opponent leads and we follow up.
                let odd = odd_lowest::<W, H, B>(mask);
                if self.params.claim_even_general || odd & odd.wrapping_sub(B::ONE) == B::ZERO {
                    // Any move will do: one in a column with an even number of empty cells
                    // makes that column odd, and the count of odd columns even again.
                    let tried = if self.params.claim_even_general {
                        next
                    } else {
                        odd & next
                    };
                    // Our threats after each move (computed for all the moves at once, and
                    // kept for the move order), and the bounds after each move, also at once.
                    let lanes = after.get(pos);
                    if B::BITS <= 64 && W <= LANES {
                        let (bounds, mut again) =
                            follow_up_after_each::<W, H, B>(cur ^ mask, cur, mask, tried, lanes);
                        w.raise_each(&bounds)?;
                        // Only if no lane cut: the moves the aftereven check may still give
                        // a bound, one at a time (its loop over the columns runs in no lane).
                        while again != 0 {
                            let col = again.trailing_zeros() as usize;
                            again &= again - 1;
                            let mv = tried & Position::<W, H, B>::column_mask(col);
                            let (leader, follower) = (cur ^ mask, cur | mv);
                            if let Some(b) = follow_up_aftereven::<W, H, B>(
                                leader,
                                follower,
                                lanes[col],
                                mask | mv,
                            ) {
                                w.raise(-b)?;
                            }
                        }
                    } else {
                        for (col, &threats) in lanes.iter().enumerate() {
                            let mv = tried & Position::<W, H, B>::column_mask(col);
                            if mv == B::ZERO {
                                continue;
                            }
                            if let Some(b) =
                                follow_up_bound::<W, H, B>(cur ^ mask, cur | mv, threats, mask | mv)
                            {
                                w.raise(-b)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The exact score, narrowed by null-window searches, or `None` if stopped.
    ///
    /// `window` holds the bounds proven so far and is shared by every thread of the solve:
    /// each iteration starts from its latest value and narrows it. Thread 0 tests the
    /// classic midpoint; helper `t` tests a neighbouring window (`+1`, `-1`, `+2`, ...) so
    /// that two threads prove both sides of the answer at once. `on_step` hears of each
    /// finished null-window search.
    pub(crate) fn solve(
        &mut self,
        pos: &Position<W, H, B>,
        window: &'a Mutex<Window>,
        thread: usize,
        on_step: &mut dyn FnMut(&Window, u64),
    ) -> Option<i32> {
        if pos.is_full() || pos.can_win_next() {
            let s = if pos.is_full() {
                0
            } else {
                Self::win_now(pos.moves())
            };
            *window.lock().unwrap_or_else(|e| e.into_inner()) = Window { lower: s, upper: s };
            return Some(s);
        }
        let lock = |w: &Mutex<Window>| *w.lock().unwrap_or_else(|e| e.into_inner());
        let zero_first = pos.moves() < self.params.zero_window_below;
        self.root_moves = pos.moves();
        let mut first_test = self.params.first_test;
        if zero_first && self.guesses(pos) {
            let w = lock(window);
            let guess = self.first_move_guess(pos, first_test, w)?;
            if let Some(lower) = guess.lower {
                // A lower bound: the answer `lower` to "above `lower - 1`?".
                on_step(&Window::narrow(window, lower - 1, lower), self.nodes);
            }
            first_test = guess.first_test;
        }
        loop {
            let Window {
                lower: min,
                upper: max,
            } = lock(window);
            if min >= max {
                return Some(min);
            }
            let mut med = min + (max - min) / 2;
            if zero_first {
                // Small scores expected: the sign first, then one step at a time away from 0.
                let first = first_test;
                med = if (min..max).contains(&first) {
                    first
                } else if min > first {
                    min
                } else {
                    max - 1
                };
            } else if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            if thread > 0 && self.params.helper_windows {
                let step = thread.div_ceil(2) as i32;
                med = (med + if thread % 2 == 1 { step } else { -step }).clamp(min, max - 1);
            }
            let guess = self.params.guess_node_types && self.shared.busy.is_some();
            self.all_parity = if guess {
                Self::expected_all_nodes(min, max, med)
            } else {
                None
            };
            self.question = guess.then_some((window, med));
            // Is the score above `med`?
            let r = self.negamax(pos, med, med + 1);
            self.question = None;
            if self.aborted {
                return None;
            }
            on_step(&Window::narrow(window, med, r), self.nodes);
        }
    }

    /// Whether the driver asks its first test of the first move before the root (see
    /// [`Self::first_move_guess`]): on a root of fewer than `Params::first_move_guess_below`
    /// stones (the empty board), with one thread.
    fn guesses(&self, pos: &Position<W, H, B>) -> bool {
        pos.moves() < self.params.first_move_guess_below && self.shared.busy.is_none()
    }

    /// What the first move's value says of the root, for a driver whose first test is
    /// "above `t`?" and whose bounds so far are `w`; `None` if stopped.
    ///
    /// Which test to ask first depends on the sign of the score, which nothing in the
    /// position tells: "above 0?" first costs one test more on a second-player win, "above
    /// -1?" first one more on a first-player win (BENCHMARKS.md, the eleventh round). So the
    /// two tests are first asked of the first move in centre-first order alone:
    /// - above `t`: the root is too; that is the new lower bound, and the driver goes on
    ///   (the root's test would have searched that move first and stopped there);
    /// - not above `t`, but above `t - 1`: the same, one lower;
    /// - neither: the root is guessed not above `t - 1` either, and its first test is that
    ///   one, which the move's search has begun (its subtree is in the table).
    ///
    /// The guess decides only which test comes first, never a score: a wrong one costs a
    /// test. On the second-player wins it saves most of "above 0?" (6x6: 11 % of the
    /// nodes). A first-player win whose first move does not win pays the move's second test
    /// (6x7: 8 %). Used on the empty board only (`Params::first_move_guess_below`): a few
    /// stones in, the centre is often not the best move, and a root that wins although its
    /// first move loses is guessed wrong (Test_L1_R3's 81 positions of one to three stones:
    /// 6 % more nodes in all). One thread only: with helpers, the neighbouring windows are
    /// tested at once anyway, and the guess kept thread 0 off the root's tests meanwhile
    /// (6x7 on two threads took 4.3-4.8 s against 3.2 s).
    fn first_move_guess(&mut self, pos: &Position<W, H, B>, t: i32, w: Window) -> Option<Guess> {
        let none = Guess {
            lower: None,
            first_test: t,
        };
        let next = pos.non_losing_moves();
        let Some(&col) = Self::ORDER
            .iter()
            .find(|&&c| next & Position::<W, H, B>::column_mask(c) != B::ZERO)
        else {
            return Some(none);
        };
        if !(w.lower < t && t < w.upper) {
            // The bounds have already settled one of the two tests.
            return Some(none);
        }
        let child = pos.after(next & Position::<W, H, B>::column_mask(col));
        for test in [t, t - 1] {
            // Is the move's score above `test`?
            let r = -self.negamax(&child, -(test + 1), -test);
            if self.aborted {
                return None;
            }
            if r > test {
                return Some(Guess {
                    lower: Some(r),
                    ..none
                });
            }
        }
        Some(Guess {
            lower: None,
            first_test: t - 1,
        })
    }

    /// A guess of the all-nodes of the test "is the score above `med`?" when the score is
    /// known to lie in `min..=max`: the parity of their distance from the root, or `None`.
    ///
    /// The guess is that the score equals the proven bound next to `med`, where the last
    /// test left it: with `max == med + 1` (the score is at most `med + 1`), that the answer
    /// is yes, so the root is a cut-node (one move suffices) and the all-nodes (every move
    /// refuted) lie at odd distances; with `min == med`, that it is no, so the root is an
    /// all-node and they lie at even distances. With neither bound next to `med` (the
    /// first test), or both (the last), nothing is guessed.
    ///
    /// Putting off a busy child pays at an all-node, whose every child is needed; at a
    /// cut-node it sends the thread to a sibling that the busy child's cutoff will make
    /// useless. A thread that joins a test another has been searching (two threads on the
    /// 6x7 board: the helper, done with "above 1?", joins "above 0?") then helps inside
    /// the busy child instead; the thread already on that test reads the new bound at its
    /// next poll and guesses too. Only the order of the search changes, never a score.
    fn expected_all_nodes(min: i32, max: i32, med: i32) -> Option<u32> {
        match (max == med + 1, min == med) {
            (true, false) => Some(1),
            (false, true) => Some(0),
            _ => None,
        }
    }

    /// Win (1), draw (0) or loss (-1) for the player to move, or `None` if stopped.
    pub(crate) fn solve_weak(&mut self, pos: &Position<W, H, B>) -> Option<i32> {
        if pos.is_full() {
            return Some(0);
        }
        if pos.can_win_next() {
            return Some(1);
        }
        // Two null windows (is it a win? else, is it a loss?) search less than one (-1, 1).
        // The first move's value may prove one of them, or guess the root lost: then "is it
        // a loss?" comes first.
        // The outcome proven so far is at least `floor` (-1: nothing proven).
        let mut floor = -1;
        if self.guesses(pos) {
            let unknown = Window {
                lower: i32::MIN,
                upper: i32::MAX,
            };
            let guess = self.first_move_guess(pos, 0, unknown)?;
            if guess.first_test < 0 {
                let r = self.negamax(pos, -1, 0);
                if self.aborted {
                    return None;
                } else if r <= -1 {
                    return Some(-1);
                }
                floor = 0;
            } else if let Some(lower) = guess.lower {
                floor = lower.min(1);
            }
        }
        let r = if floor >= 1 || self.negamax(pos, 0, 1) >= 1 {
            1
        } else if self.aborted {
            return None;
        } else if floor >= 0 || self.negamax(pos, -1, 0) > -1 {
            0
        } else {
            -1
        };
        (!self.aborted).then_some(r)
    }

    /// The column (0-based) that achieves `score`, the exact score of `pos` (or, for a weak
    /// solve, the outcome: 1 or 0), first in the centre-first order ([`Self::ORDER`]): the one
    /// tie-break rule of every front end (see [`crate::ordering`]). `None` if the game is over
    /// or the search was stopped. Each column is tested with a null window in that order, so
    /// the answer does not depend on the table's contents or on which thread asks.
    pub(crate) fn best_move(&mut self, pos: &Position<W, H, B>, score: i32) -> Option<usize> {
        if pos.is_full() {
            return None;
        }
        let possible = pos.possible();
        let first_in = |set: B| {
            Self::ORDER
                .iter()
                .copied()
                .find(|&c| set & Position::<W, H, B>::column_mask(c) != B::ZERO)
        };
        if pos.can_win_next() {
            return first_in(pos.winning() & possible);
        }
        let next = pos.non_losing_moves();
        if next == B::ZERO {
            // Lost at once whatever we play: every legal move scores the same.
            return first_in(possible);
        }
        for &col in Self::ORDER.iter() {
            let mv = next & Position::<W, H, B>::column_mask(col);
            if mv == B::ZERO {
                continue;
            }
            if next & (next - B::ONE) == B::ZERO {
                // The only move that does not lose at once: every other scores less.
                return Some(col);
            }
            // Playing `mv` achieves `score` when the child's score is at most `-score`.
            let child = pos.after(mv);
            let v = self.negamax(&child, -score, -score + 1);
            if self.aborted {
                return None;
            }
            if v <= -score {
                return Some(col);
            }
        }
        debug_assert!(false, "no move achieves the exact score");
        None
    }
}

/// The empty cells of the board `mask`, and those of them in columns with an odd number of
/// empty cells.
#[inline]
fn empty_and_odd<const W: usize, const H: usize, B: Bitboard>(mask: B) -> (B, B) {
    let empty = Position::<W, H, B>::board() & !mask;
    // Adding a column's lowest empty cell to its run of empty cells carries out of the
    // board (to the spare bit), leaving the empty cells of the other columns.
    (
        empty,
        empty ^ ((empty + odd_lowest::<W, H, B>(mask)) & Position::<W, H, B>::board()),
    )
}

/// The lowest empty cell of every column with an odd number of empty cells of the board
/// `mask`: the playable cells on a row of the top row's parity (`Position::follower_rows`).
#[inline(always)]
fn odd_lowest<const W: usize, const H: usize, B: Bitboard>(mask: B) -> B {
    Position::<W, H, B>::playable(mask) & Position::<W, H, B>::follower_rows()
}

/// The follow-up (claim-even) bound, for a position with an even
/// number of empty cells where `leader` is to move and `follower` answers;
/// `follower_threats` are the follower's winning cells (empty cells that complete a four
/// with its stones).
///
/// The follower's strategy: answer every move on top of it in the same column. In the
/// columns with an even number of empty cells the leader then gets only the cells on
/// `Position::leader_rows` (even rows, 0-based, on boards of even height; odd ones on odd
/// heights) and the follower those on `follower_rows`, the top one included. The columns
/// with an odd number of empty cells come in pairs (the empty cells are even in number),
/// and the follower plays them one of two ways ([`follow_up_way`]): on top there too, and
/// when the leader fills the last cell of a column, the lowest cell of another odd column
/// (the leader may then get any of their cells, but never two of a column in a row); or in
/// pairs, the lowest cell of one answered by the lowest of its partner (the leader may get
/// that cell and then those on its rows). If the leader's stones and every cell it may get
/// hold no four, the leader never wins: its score is at most 0, and at most -1 when the
/// follower's stones and its sure cells hold a four (the board fills up, the follower gets
/// them all; in pairs, less when the four leaves cells empty: `sure_four_value`). A threat
/// of the follower on one of its rows ends the game before the leader gets the cells above
/// it (see `sure_threats`), and then the leader loses. In pairs, a four of the follower
/// completed before the leader can complete any of its own also keeps it from winning
/// (`aftereven`). `None` when the leader may still make four.
#[inline]
fn follow_up_bound<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    follower_threats: B,
    mask: B,
) -> Option<i32> {
    let (b, _) = follow_up_value::<W, H, B>(leader, follower, follower_threats, mask, true);
    (b != NO_BOUND).then_some(b)
}

/// Of the cells `cells` the leader may get when the follower answers on top in every column
/// (the first way of [`follow_up_way`]; its stones `leader` among them, `mask` the board),
/// those that can make a four up a column. Every move of the leader is answered on top of
/// it, and the follower enters a column first only at its lowest empty cell, so the leader
/// never gets two cells of a column in a row: a four up a column has at most one empty
/// cell, the lowest of its column, above three of the leader's stones.
#[inline(always)]
fn column_fours<const W: usize, const H: usize, B: Bitboard>(cells: B, leader: B, mask: B) -> B {
    cells & (leader | Position::<W, H, B>::playable(mask))
}

/// No bound: what [`follow_up_value`] gives where [`follow_up_bound`] gives `None`.
const NO_BOUND: i32 = i32::MIN;

/// The follower's lower bounds from [`follow_up_bound`] after each of its moves `tried`,
/// one lane per column: for the move in column `c`, the negation of the bound of the
/// position after it, where the other player (`leader`) leads and the player to move
/// (`follower`, its stones before the move) follows up; [`NO_BOUND`] where there is none,
/// no move is tried, or no column. `mask` is the board before the move, `after[c]` the
/// follower's winning cells after its move in column `c` ([`AfterEach`]). For boards of
/// 64-bit words and at most [`LANES`] columns.
///
/// Every lane computes the same expression without a branch, those past the last column on
/// no move (as in `AfterEach::compute`), which the compiler turns into vector
/// instructions. One move after another, the early exits of each bound mispredicted, and
/// the branch-free pass over all the columns is faster (BENCHMARKS.md, "Seventeenth
/// round").
#[inline(always)]
fn follow_up_after_each<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    mask: B,
    tried: B,
    after: &[B],
) -> ([i32; LANES], u32) {
    debug_assert!(B::BITS <= 64 && W <= LANES);
    let (mut moves, mut threats) = ([B::ZERO; LANES], [B::ZERO; LANES]);
    for k in 0..W {
        moves[k] = tried & Position::<W, H, B>::column_mask(k);
        threats[k] = after[k];
    }
    let (mut out, mut again) = ([NO_BOUND; LANES], 0u32);
    for k in 0..LANES {
        let mv = moves[k];
        let (b, maybe) =
            follow_up_value::<W, H, B>(leader, follower | mv, threats[k], mask | mv, false);
        out[k] = if mv != B::ZERO && b != NO_BOUND {
            -b
        } else {
            NO_BOUND
        };
        again |= u32::from(mv != B::ZERO && maybe) << k;
    }
    (out, again)
}

/// The bound of the pairs' way of [`follow_up_way`] with the [`aftereven`] check, for a
/// position where [`follow_up_value`] found none without it (and said the check might give
/// one); `None` if it gives none either.
#[inline(never)]
fn follow_up_aftereven<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    follower_threats: B,
    mask: B,
) -> Option<i32> {
    let (empty, _) = empty_and_odd::<W, H, B>(mask);
    let (threats, lowest) = (follower_threats, odd_lowest::<W, H, B>(mask));
    let (b, _) =
        follow_up_way::<W, H, B>(leader, follower, threats, mask, empty, lowest, true, true);
    (b != NO_BOUND).then_some(b)
}

/// [`follow_up_bound`]'s bound, or [`NO_BOUND`]: the better of the two ways the follower
/// may treat the columns with an odd number of empty cells ([`follow_up_way`]); and, where
/// there is none, whether the pairs' way with the [`aftereven`] check might give one.
/// Without `aftereven` (then without that check) it is computed without a branch on the
/// cells, so that it runs in [`follow_up_after_each`]'s lanes.
#[inline(always)]
fn follow_up_value<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    follower_threats: B,
    mask: B,
    aftereven: bool,
) -> (i32, bool) {
    let (empty, odd) = empty_and_odd::<W, H, B>(mask);
    let lowest = odd_lowest::<W, H, B>(mask);
    let (threats, free) = (follower_threats, lowest);
    let (paired, maybe) = follow_up_way::<W, H, B>(
        leader, follower, threats, mask, empty, free, true, aftereven,
    );
    if B::BITS > 64 && paired != NO_BOUND {
        // No lanes on 128-bit words (see `follow_up_after_each`): an early exit pays there.
        return (paired, false);
    }
    let (open, _) =
        follow_up_way::<W, H, B>(leader, follower, threats, mask, empty, odd, false, false);
    // Where both hold, the pairs' bound is the lower: its follower is sure of more cells
    // and more threats.
    if paired != NO_BOUND {
        (paired, false)
    } else {
        (open, maybe && open == NO_BOUND)
    }
}

/// The follow-up bound under one way of playing the odd columns, or [`NO_BOUND`]. `free`
/// holds the empty cells of the odd columns that either side may get:
/// - every empty cell of them (`odd` of [`empty_and_odd`]): the follower answers on top there
///   too, and when the leader fills the last cell of a column, plays the lowest cell of
///   another odd column. The leader may get any of their cells, but never two of a column
///   in a row ([`column_fours`]).
/// - their lowest cells only: the follower pairs the odd columns, and when the leader plays
///   the lowest cell of one, answers with the lowest cell of its partner. Both columns then
///   have an even number of empty cells, and are followed up like the others: the leader
///   gets the lowest cell of an odd column at most, and above it only cells on its rows.
///
/// `pairs` is true for the second. The follower gets the cells on its rows outside `free`
/// (the board filling up), and its threats there are sure ([`sure_threats`]). With
/// `aftereven`, a four of the follower within those cells may also keep the leader from its
/// fours ([`aftereven`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn follow_up_way<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    follower_threats: B,
    mask: B,
    empty: B,
    free: B,
    pairs: bool,
    aftereven: bool,
) -> (i32, bool) {
    let (cut, above) = sure_threats::<W, H, B>(empty, free, follower_threats);
    let cells = leader | (empty & Position::<W, H, B>::leader_rows() & !cut) | free;
    // In pairs the leader may get an odd column's lowest cell and the one above it: `cells`
    // holds no other two of a column in a row.
    let up = if pairs {
        cells
    } else {
        column_fours::<W, H, B>(cells, leader, mask)
    };
    let sure = follower | (empty & Position::<W, H, B>::follower_rows() & !free);
    // The pairs' way decides where both hold (see `follow_up_value`): the finer checks of
    // the follower's fours pay there only.
    let four = if pairs {
        sure_four_value::<W, H, B>(follower, sure)
    } else {
        -i32::from(has_four::<W, H, B>(sure))
    };
    let four_of_leader = has_four_split::<W, H, B>(cells, up);
    // Whether the aftereven check might keep the leader from its fours.
    let maybe =
        pairs && four < 0 && four_of_leader && aftereven_may::<W, H, B>(cells, up, sure, empty);
    let leader_four = four_of_leader
        && !(aftereven && maybe && self::aftereven::<W, H, B>(cells, up, sure, empty));
    let v = if cut != B::ZERO {
        // The follower wins, with at least `above` cells still empty, or earlier with a four.
        four.min(-1 - above / 2)
    } else {
        four
    };
    (if leader_four { NO_BOUND } else { v }, maybe)
}

/// Whether the [`aftereven`] check might keep the leader from its fours within `cells`
/// (`up`: those that can make a four up a column), looking at rows only: a sure empty cell
/// (of `sure`, `empty`) is covered only if the leader has no four on its row and the rows
/// below, since such a four has no cell above it; and the check needs a four of the follower
/// within its stones and such cells. Computed without a branch on the cells, for the lanes.
#[inline(always)]
fn aftereven_may<const W: usize, const H: usize, B: Bitboard>(
    cells: B,
    up: B,
    sure: B,
    empty: B,
) -> bool {
    let mut rows = B::ZERO;
    for r in follower_rows_below_top::<H>() {
        let low = Position::<W, H, B>::rows_below(r + 1);
        let row = Position::<W, H, B>::bottom() << r;
        rows |= if has_four_split::<W, H, B>(cells & low, up & low) {
            B::ZERO
        } else {
            row
        };
    }
    has_four::<W, H, B>(sure & (rows | !empty))
}

/// Allis' aftereven rule, for [`follow_up_way`]: whether a four of the follower within
/// `sure` (its stones and its sure cells) keeps the leader from every four within `cells`
/// (`up`: those of them that can make a four up a column; `empty`: the empty cells).
///
/// The follower takes each of its sure cells right after the leader plays the cell below
/// it, so such a four `F` is completed, and the game won, as soon as the leader has played
/// below each of its empty cells. A four of the leader that holds a cell above `F`'s empty
/// cell in each of `F`'s columns can be completed only after that. So when every four
/// within `cells` does, none is ever completed.
///
/// Call an empty cell of `sure` covered when every four within `cells` holds a cell above
/// it in its column: when the cells without those above it hold no four. Then the rule
/// holds when `F`'s empty cells are all covered: when the follower's stones and the covered
/// cells hold a four. Up a column, a cell is covered only if the one below it is (what is
/// above it is less), so each column is looked at from the bottom up until a cell is not;
/// a top cell has nothing above it and never is.
#[inline]
fn aftereven<const W: usize, const H: usize, B: Bitboard>(
    cells: B,
    up: B,
    sure: B,
    empty: B,
) -> bool {
    let mut open = sure & empty & Position::<W, H, B>::rows_below(H - 1);
    let mut covered = B::ZERO;
    while open != B::ZERO {
        // The lowest cell left of the first column left.
        let cell = open & open.wrapping_neg();
        let column = Position::<W, H, B>::column_mask(Position::<W, H, B>::column_of(cell));
        let above = column & !((cell << 1) - B::ONE);
        if has_four_split::<W, H, B>(cells & !above, up & !above) {
            open &= !column;
        } else {
            covered |= cell;
            open ^= cell;
        }
    }
    has_four::<W, H, B>(sure & (covered | !empty))
}

/// The leader's bound from a four of the follower within its stones `follower` and its sure
/// cells `sure` (those [`follow_up_way`] gives it when the board fills up), or 0 when they
/// hold none. The follower takes each of its sure cells right after the leader plays the
/// cell below it, so the leader can put off a four's last cell at most until every other
/// cell is filled: the cells above it in its column are still empty when the follower
/// completes the four. The leader leaves to the last the four's empty cell with the fewest
/// cells above it: with at least `k` cells above each of them, the follower wins with `k`
/// cells empty, and the leader's score is at most `-1 - k / 2` (-1 with `k = 0`, when the
/// board fills up). The follower's rows have an even number of cells above them, so `k`
/// goes in steps of two.
#[inline(always)]
fn sure_four_value<const W: usize, const H: usize, B: Bitboard>(follower: B, sure: B) -> i32 {
    let mut v = -i32::from(has_four::<W, H, B>(sure));
    for r in follower_rows_below_top::<H>().rev() {
        // The sure cells with at least `k` cells above them, those of row `r` and below.
        let k = (H - 1 - r) as i32;
        let low = follower | (sure & Position::<W, H, B>::rows_below(r + 1));
        v = if has_four::<W, H, B>(low) {
            -1 - k / 2
        } else {
            v
        };
    }
    v
}

/// The follower's rows (an even number of rows below the top one) but the top one, from the
/// bottom up: the rows of its sure cells that have cells above them.
#[inline(always)]
fn follower_rows_below_top<const H: usize>() -> std::iter::StepBy<std::ops::Range<usize>> {
    ((H - 1) % 2..H - 1).step_by(2)
}

/// The follower's threats it is sure to reach under a follow-up strategy: those on its rows
/// outside `free` (the empty cells either side may get: see [`follow_up_way`]), where the
/// leader gets the other rows. The leader must play under such a threat
/// before the cells above it, and the follower then wins: the leader never gets the
/// threat or what is above it. Returns those cells, from the lowest threat of each column
/// up, and (where there is a threat) how many cells at least are still empty when the game
/// ends. The leader puts off playing under a threat until every other cell is filled: the
/// cells of each column from the one below its lowest threat up are then empty, and the
/// leader's stone under one of them and the follower's on it leave the rest.
#[inline]
fn sure_threats<const W: usize, const H: usize, B: Bitboard>(
    empty: B,
    free: B,
    follower_threats: B,
) -> (B, i32) {
    let threats = follower_threats & Position::<W, H, B>::follower_rows() & !free;
    if B::BITS > 64 && threats == B::ZERO {
        // On 128-bit words (no lanes) the early exit pays.
        return (B::ZERO, 0);
    }
    // A column's lowest threat has no threat an even number of rows below it. Only the
    // threats that stay in their column when shifted up by `k` are shifted (on boards of
    // odd height a row's parity survives the step into the next column).
    let mut lowest = threats;
    let mut k = 2;
    while k < H {
        lowest &= !((threats & Position::<W, H, B>::rows_below(H - k)) << k);
        k += 2;
    }
    let cut = empty ^ ((empty + lowest) & Position::<W, H, B>::board());
    // The leader, forced at last under a threat, has filled every other cell: left empty
    // are the cut cells and the one below each column's lowest threat, less the two played.
    // At most as many as one column may leave above a threat (`H - 2` or `H - 1`), which
    // the parity bounds' window guards assume (`reach` in `Searcher::parity_bounds`).
    let left = (cut.count_ones() + lowest.count_ones()) as i32 - 2;
    let above = left.clamp(0, ((H - 1) & !1) as i32);
    (cut, above)
}

/// The odd-threat (zugzwang) bound, for a position with an odd
/// number of empty cells where `leader` is to move and the follower answers: a lower bound of
/// the follower's score, or `None`. `follower_threats` are the follower's winning cells
/// (empty cells that complete a four with its stones).
///
/// The follower needs a threat (an empty cell completing a four with its stones) in a
/// column `c` with an odd number of empty cells, on a row of the other parity than the
/// column's lowest empty cell. Its strategy: answer every move on top of it in the same
/// column, and play the odd columns other than `c` (they are even in number) one of the two
/// ways of [`follow_up_way`]: when the leader fills the last cell of a column, take the
/// lowest cell of another of them; or pair them. In `c` the leader then gets the cells of
/// the lowest one's parity and the follower the others, the threat among them; in the
/// columns with an even number of empty cells the leader gets only the cells on its rows
/// (see `follow_up_bound`); in the other odd ones, any cell but never two of a column in a
/// row ([`column_fours`]), or in pairs their lowest cell and those on its rows. The leader
/// can delay but not avoid playing under the threat, since every other column fills up
/// first. If the leader's stones and every cell it may get below the threat hold no four,
/// either way, the follower wins, at the latest with the threat cell when every cell above
/// it is still empty. Threats of the follower on its rows of the other columns keep the
/// leader from the cells above them (see `sure_threats`); they end the game no later.
#[inline(always)]
fn odd_threat_bound<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower_threats: B,
    mask: B,
) -> Option<i32> {
    let (empty, odd) = empty_and_odd::<W, H, B>(mask);
    // The lowest empty cell of an odd column is on a follower's row: the threat must be on
    // a leader's one.
    let mut threats = follower_threats & odd & Position::<W, H, B>::leader_rows();
    if threats == B::ZERO {
        return None;
    }
    // The follower's threats in the other columns may keep the leader from cells too. The
    // cells the leader may get outside the threat's column, the other odd columns played
    // either way (see `follow_up_way`): open, or in pairs.
    let (cut, _) = sure_threats::<W, H, B>(empty, odd, follower_threats);
    let leader_cells = leader | (empty & Position::<W, H, B>::leader_rows() & !cut) | odd;
    let lowest = odd_lowest::<W, H, B>(mask);
    let (paired_cut, _) = sure_threats::<W, H, B>(empty, lowest, follower_threats);
    let paired_cells = leader | (empty & Position::<W, H, B>::leader_rows() & !paired_cut) | lowest;
    let mut best = None;
    while threats != B::ZERO {
        // The lowest threat of a column is the one that comes first.
        let t = threats & threats.wrapping_neg();
        let col = Position::<W, H, B>::column_mask(Position::<W, H, B>::column_of(t));
        threats &= !col;
        let below = (t - B::ONE) & col;
        let mine = empty & below & Position::<W, H, B>::follower_rows();
        let cells = leader | (leader_cells & !col) | mine;
        let paired = leader | (paired_cells & !col) | mine;
        if !has_four_split::<W, H, B>(cells, column_fours::<W, H, B>(cells, leader, mask))
            || !has_four::<W, H, B>(paired)
        {
            // The cells above the threat, left empty at the latest.
            let above = (col & !below & !t).count_ones() as i32;
            let b = above / 2 + 1;
            best = Some(best.map_or(b, |x: i32| x.max(b)));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{winning_cells, xorshift};

    /// The oracle of the bound tests: the search without any parity or no-four bound and
    /// without the static look at the children (itself checked against plain minimax by the
    /// integration tests).
    fn oracle<const W: usize, const H: usize>() -> crate::Solver<W, H, u64> {
        crate::Solver::builder()
            .table_mib(16)
            .threads(1)
            .params(Params {
                claim_even: false,
                no_four: false,
                static_children_empty: 0,
                ..Params::default()
            })
            .build()
            .unwrap()
    }

    /// `count` positions that `keep` accepts, each played at random (never a move that wins)
    /// until `empty + 2 * k` cells are left for a random `k < steps`, with any mix of column
    /// parities.
    fn random_positions<const W: usize, const H: usize>(
        seed: u64,
        empty: u32,
        steps: u64,
        count: usize,
        keep: impl Fn(&Position<W, H>) -> bool,
    ) -> Vec<Position<W, H>> {
        let mut s = seed;
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let target = (W * H) as u32 - empty - 2 * (xorshift(&mut s) % steps) as u32;
            let mut p = Position::<W, H>::new();
            while p.moves() < target && p.play_random_quiet(&mut s) {}
            if p.moves() == target && keep(&p) {
                out.push(p);
            }
        }
        out
    }

    /// The follow-up bound against the search without it, on `count` random positions of
    /// W x H with 6 to 12 empty cells (an even number: the leader is to move, the follower
    /// can answer each move). Returns how many it bounded, and how many as a loss.
    fn check_follow_up<const W: usize, const H: usize>(seed: u64, count: usize) -> (u32, u32) {
        let oracle = oracle::<W, H>();
        let (mut bounded, mut lost) = (0, 0);
        for p in random_positions::<W, H>(seed, 6, 4, count, |_| true) {
            let (leader, follower) = (p.current(), p.current() ^ p.mask());
            let Some(b) =
                follow_up_bound::<W, H, u64>(leader, follower, p.opponent_winning(), p.mask())
            else {
                continue;
            };
            let score = oracle.solve(&p).unwrap().score;
            assert!(score <= b, "{W}x{H} {p:?}: score {score}, bound {b}\n{p}");
            bounded += 1;
            lost += u32::from(b < 0);
        }
        (bounded, lost)
    }

    /// [`follow_up_after_each`] against [`follow_up_bound`] after each move one at a time,
    /// and [`Ab::raise_each`] against [`Ab::raise`] by each of its bounds in turn, on
    /// random positions of W x H with an odd number of empty cells (where the search asks
    /// it), in windows around each bound. Returns how many bounds the lanes held.
    fn check_follow_up_lanes<const W: usize, const H: usize>(seed: u64, count: usize) -> u32 {
        let mut found = 0;
        let mut s = seed;
        for p in random_positions::<W, H>(seed, 5, 12, count, |p| !p.can_win_next()) {
            let (cur, mask) = (p.current(), p.mask());
            let (next, _) = p.non_losing_moves_and_threats();
            let mut after = AfterEach::<W, u64>::new();
            let (mut lanes, again) =
                follow_up_after_each::<W, H, u64>(cur ^ mask, cur, mask, next, after.get(&p));
            // The moves left to the aftereven check, as `parity_bounds` does them.
            for col in (0..W).filter(|&c| again >> c & 1 == 1) {
                let mv = next & Position::<W, H>::column_mask(col);
                let threats = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                let (leader, follower) = (cur ^ mask, cur | mv);
                if let Some(b) =
                    follow_up_aftereven::<W, H, u64>(leader, follower, threats, mask | mv)
                {
                    lanes[col] = -b;
                }
            }
            let mut each = [NO_BOUND; LANES];
            for (col, lane) in each.iter_mut().enumerate().take(W) {
                let mv = next & Position::<W, H>::column_mask(col);
                if mv != 0 {
                    let threats = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                    if let Some(b) =
                        follow_up_bound::<W, H, u64>(cur ^ mask, cur | mv, threats, mask | mv)
                    {
                        *lane = -b;
                    }
                }
            }
            assert_eq!(lanes, each, "{W}x{H} {p:?}\n{p}");
            found += lanes.iter().filter(|&&b| b != NO_BOUND).count() as u32;
            let alpha = (xorshift(&mut s) % 7) as i32 - 4;
            for beta in alpha + 1..alpha + 4 {
                let (mut one, mut all) = (Ab { alpha, beta }, Ab { alpha, beta });
                let want = each
                    .iter()
                    .filter(|&&b| b != NO_BOUND)
                    .try_for_each(|&b| one.raise(b));
                assert_eq!(all.raise_each(&lanes), want, "{p:?} ({alpha}, {beta})");
                if want.is_ok() {
                    assert_eq!((all.alpha, all.beta), (one.alpha, one.beta));
                }
            }
        }
        found
    }

    #[test]
    fn the_follow_up_bounds_in_lanes_are_each_moves_bound() {
        assert!(check_follow_up_lanes::<7, 6>(41, 400) > 0);
        assert!(check_follow_up_lanes::<6, 6>(42, 400) > 0);
        assert!(check_follow_up_lanes::<8, 4>(43, 400) > 0);
        assert!(check_follow_up_lanes::<7, 5>(44, 400) > 0);
        assert!(check_follow_up_lanes::<5, 8>(45, 400) > 0);
        assert!(check_follow_up_lanes::<8, 7>(46, 200) > 0);
        assert!(check_follow_up_lanes::<4, 4>(47, 200) > 0);
    }

    /// The no-four bounds against the search without them, on `count` random positions of
    /// W x H with 4 to 11 empty cells where a side can make no four with its stones and
    /// every empty cell: that side never wins, and the search with the bounds scores them as
    /// the oracle does. Returns how many positions bounded each side.
    fn check_no_four<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 2] {
        let oracle = oracle::<W, H>();
        let search: crate::Solver<W, H, u64> = crate::Solver::builder()
            .table_mib(16)
            .threads(1)
            .build()
            .unwrap();
        let mut bounded = [0; 2];
        let empty = |p: &Position<W, H>| Position::<W, H>::board() & !p.mask();
        let mover = |p: &Position<W, H>| !has_four::<W, H, u64>(p.current() | empty(p));
        let opponent =
            |p: &Position<W, H>| !has_four::<W, H, u64>((p.current() ^ p.mask()) | empty(p));
        for offset in [4, 5] {
            let keep = |p: &Position<W, H>| mover(p) || opponent(p);
            for p in random_positions::<W, H>(seed + offset as u64, offset, 4, count / 2, keep) {
                let (mover, opponent) = (mover(&p), opponent(&p));
                let score = oracle.solve(&p).unwrap().score;
                assert_eq!(search.solve(&p).unwrap().score, score, "{W}x{H} {p:?}");
                if mover {
                    assert!(
                        score <= 0,
                        "{W}x{H} {p:?}: the mover cannot win, score {score}\n{p}"
                    );
                    bounded[0] += 1;
                }
                if opponent {
                    assert!(
                        score >= 0,
                        "{W}x{H} {p:?}: the opponent cannot win, score {score}\n{p}"
                    );
                    bounded[1] += 1;
                }
            }
        }
        bounded
    }

    #[test]
    fn a_side_that_can_make_no_four_never_wins() {
        // Both sides bounded often, on both height parities.
        for (board, [mover, opponent]) in [
            ("7x6", check_no_four::<7, 6>(0x40f0, 200)),
            ("6x5", check_no_four::<6, 5>(0x40f1, 200)),
            ("5x4", check_no_four::<5, 4>(0x40f2, 200)),
        ] {
            assert!(
                mover >= 40 && opponent >= 40,
                "{board}: {mover} / {opponent}"
            );
        }
    }

    #[test]
    fn follow_up_bound_never_overstates_the_leader() {
        // The test means something only if the bound often applies, both ways, on boards
        // of either height parity and either width parity.
        for (board, (bounded, lost)) in [
            ("7x6", check_follow_up::<7, 6>(0x5eed, 4000)),
            ("7x5", check_follow_up::<7, 5>(0x5eed_0075, 3000)),
            ("8x5", check_follow_up::<8, 5>(0x5eed_0085, 2000)),
            ("6x7", check_follow_up::<6, 7>(0x5eed_0067, 2000)),
            ("5x5", check_follow_up::<5, 5>(0x5eed_0055, 2000)),
        ] {
            assert!(
                bounded > 60 && lost > 20,
                "{board}: {bounded} bounded, {lost} lost"
            );
        }
    }

    /// The odd-threat bound against the search without it, on `count` random positions of
    /// W x H with 7 to 17 empty cells (an odd number: the leader, to move, may be in
    /// zugzwang). Returns how many it bounded, and how many above 1.
    fn check_odd_threat<const W: usize, const H: usize>(seed: u64, count: usize) -> (u32, u32) {
        let oracle = oracle::<W, H>();
        let (mut bounded, mut above_one) = (0, 0);
        for p in random_positions::<W, H>(seed, 7, 6, count, |p| !p.can_win_next()) {
            let Some(b) =
                odd_threat_bound::<W, H, u64>(p.current(), p.opponent_winning(), p.mask())
            else {
                continue;
            };
            let score = oracle.solve(&p).unwrap().score;
            assert!(
                -score >= b,
                "{W}x{H} {p:?}: follower's score {}, bound {b}\n{p}",
                -score
            );
            bounded += 1;
            above_one += u32::from(b > 1);
        }
        (bounded, above_one)
    }

    #[test]
    fn odd_threat_bound_never_overstates_the_follower() {
        // The test means something only if the bound often applies, and not only as 1.
        for (board, (bounded, above_one)) in [
            ("7x6", check_odd_threat::<7, 6>(0x0dd_7ea7, 4000)),
            ("7x5", check_odd_threat::<7, 5>(0x0dd0_0075, 3000)),
            ("8x5", check_odd_threat::<8, 5>(0x0dd0_0085, 3000)),
            ("6x7", check_odd_threat::<6, 7>(0x0dd0_0067, 2000)),
            ("5x5", check_odd_threat::<5, 5>(0x0dd0_0055, 6000)),
        ] {
            assert!(
                bounded > 100 && above_one > 30,
                "{board}: {bounded} bounded, {above_one} above 1"
            );
        }
    }
    /// The search with the parity bounds (each mix of `claim_even_general`, `odd_threat`
    /// and `odd_threat_ahead`) against the search without them, on `count` random positions
    /// of W x H with 8 to 19 empty cells (either parity): the same score and best move.
    /// Returns the nodes of each mix and of the oracle.
    fn check_parity_bounds<const W: usize, const H: usize>(seed: u64, count: usize) -> Vec<u64> {
        let oracle = oracle::<W, H>();
        let mixes: Vec<crate::Solver<W, H, u64>> = [
            Params::default(),
            Params {
                claim_even_general: false,
                ..Params::default()
            },
            Params {
                odd_threat: false,
                ..Params::default()
            },
            Params {
                odd_threat_ahead: false,
                ..Params::default()
            },
        ]
        .into_iter()
        .map(|params| {
            crate::Solver::builder()
                .table_mib(16)
                .threads(1)
                .params(params)
                .build()
                .unwrap()
        })
        .collect();
        let mut nodes = vec![0; mixes.len() + 1];
        for p in random_positions::<W, H>(seed, 8, 6, count, |_| true) {
            let want = oracle.solve(&p).unwrap();
            nodes[mixes.len()] += want.nodes;
            for (i, solver) in mixes.iter().enumerate() {
                let got = solver.solve(&p).unwrap();
                assert_eq!(
                    (got.score, got.best_move),
                    (want.score, want.best_move),
                    "{W}x{H} {p:?}, mix {i}\n{p}"
                );
                nodes[i] += got.nodes;
            }
        }
        nodes
    }

    #[test]
    fn parity_bounds_keep_the_scores_and_save_nodes() {
        // Boards of either height parity and either width parity. Each bound must be in
        // use: switching it off (or all of them: the oracle) searches more nodes in all.
        let mut total = [0; 5];
        for nodes in [
            check_parity_bounds::<7, 6>(0x9a41_0076, 300),
            check_parity_bounds::<7, 5>(0x9a41_0075, 300),
            check_parity_bounds::<8, 5>(0x9a41_0085, 200),
            check_parity_bounds::<6, 7>(0x9a41_0067, 200),
            check_parity_bounds::<5, 5>(0x9a41_0055, 300),
        ] {
            for (t, n) in total.iter_mut().zip(nodes) {
                *t += n;
            }
        }
        assert!(
            total[1..].iter().all(|&n| n > total[0]),
            "nodes with every bound, without the general claim-even, the odd threat, the \
             odd threat ahead, without any: {total:?}"
        );
    }

    /// Whether some parity bound alone decides a node of `p` in the window `w`, from the
    /// bound functions themselves (`odd_threat` and `odd_threat_ahead` on): `Some(true)`
    /// high, `Some(false)` low. Without `general` (`claim_even_general`), the follow-up
    /// bounds only where every column has an even number of empty cells (before the
    /// opponent's move, or after ours).
    fn decisive<const W: usize, const H: usize>(
        p: &Position<W, H>,
        w: Ab,
        general: bool,
    ) -> Option<bool> {
        let (cur, mask) = (p.current(), p.mask());
        let (next, opp_threats) = p.non_losing_moves_and_threats();
        let moves = (0..W).map(|c| next & Position::<W, H>::column_mask(c));
        let after = |mv: u64| winning_cells::<W, H, u64>(cur | mv, mask | mv);
        if (W * H - p.moves() as usize) % 2 == 0 {
            // The opponent follows us up; or we leave it an odd threat of ours after a move.
            if (general || p.columns_paired())
                && follow_up_bound::<W, H, u64>(cur, cur ^ mask, opp_threats, mask)
                    .is_some_and(|b| b <= w.alpha)
            {
                return Some(false);
            }
            moves
                .filter(|&mv| mv != 0)
                .any(|mv| {
                    odd_threat_bound::<W, H, u64>(cur ^ mask, after(mv), mask | mv)
                        .is_some_and(|b| b >= w.beta)
                })
                .then_some(true)
        } else {
            // The opponent holds an odd threat; or we follow it up after a move.
            if odd_threat_bound::<W, H, u64>(cur, opp_threats, mask).is_some_and(|b| -b <= w.alpha)
            {
                return Some(false);
            }
            moves
                .filter(|&mv| mv != 0 && (general || p.after(mv).columns_paired()))
                .any(|mv| {
                    follow_up_bound::<W, H, u64>(cur ^ mask, cur | mv, after(mv), mask | mv)
                        .is_some_and(|b| -b >= w.beta)
                })
                .then_some(true)
        }
    }

    /// `parity_bounds` on the searched nodes of `count` random positions of W x H (5 to 16
    /// empty cells, half of them odd) and every window of width 1, 2 or 4 near 0: it decides
    /// the node exactly when one of its bounds does (its guards skip only bounds that
    /// cannot), and every bound it proves holds (the oracle's score). Returns how many
    /// nodes a bound decides, by kind: low and high with an even number of empty cells, low
    /// and high with an odd one.
    fn check_decisive<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 4] {
        let cells = (W * H) as u32;
        // The nodes `negamax` hands to `bounds`: no win at once, at least two moves that do
        // not lose at once, and more than two empty cells.
        let searched = |p: &Position<W, H>| {
            let next = p.non_losing_moves();
            !p.can_win_next() && next.count_ones() >= 2 && p.moves() + 2 < cells
        };
        let odd = random_positions::<W, H>(seed, 5, 6, count / 2, searched);
        let even = random_positions(seed, 6, 6, count / 2, searched);
        check_decisive_on::<W, H>(odd.into_iter().chain(even))
    }

    /// [`check_decisive`] on the given positions (each one `negamax` hands to `bounds`).
    fn check_decisive_on<const W: usize, const H: usize>(
        positions: impl Iterator<Item = Position<W, H>>,
    ) -> [u32; 4] {
        let oracle = oracle::<W, H>();
        let table = Table::new(1, crate::position::key_bits(W, H)).unwrap();
        let (stop, done, live) = (StopFlag::new(), StopFlag::new(), AtomicU64::new(0));
        let searchers = [true, false].map(|general| {
            let shared = Shared {
                table: &table,
                stop: &stop,
                done: &done,
                live_nodes: &live,
                deadline: None,
                busy: None,
            };
            let params = Params {
                claim_even_general: general,
                ..Params::default()
            };
            (general, Searcher::<W, H, u64>::new(shared, params, 0))
        });
        let mut kinds = [0; 4];
        for p in positions {
            let score = oracle.solve(&p).unwrap().score;
            let (next, opp_threats) = p.non_losing_moves_and_threats();
            for ((general, searcher), alpha) in
                searchers.iter().flat_map(|s| (-4..=4).map(move |a| (s, a)))
            {
                for width in [1, 2, 4] {
                    let window = Ab {
                        alpha,
                        beta: alpha + width,
                    };
                    let mut w = window;
                    // No bound but the parity ones: `max` is theirs alone.
                    let mut max = i32::MAX;
                    let decided = match searcher.parity_bounds(
                        &p,
                        next,
                        opp_threats,
                        &mut w,
                        &mut max,
                        &mut AfterEach::new(),
                    ) {
                        Err(v) => {
                            assert!(
                                v >= window.beta && score >= v,
                                "{p:?} {window:?}: {v}, score {score}"
                            );
                            Some(true)
                        }
                        Ok(()) => {
                            // Any bound it proved holds.
                            assert!(
                                score <= max && (w.alpha == alpha || score >= w.alpha),
                                "{p:?} {window:?}: max {max}, {w:?}, score {score}"
                            );
                            (max <= alpha).then_some(false)
                        }
                    };
                    // It decides the node exactly when one of its bounds does.
                    let want = decisive(&p, window, *general);
                    assert_eq!(
                        decided, want,
                        "{W}x{H} {p:?} {window:?}, general {general}\n{p}"
                    );
                    if let Some(want) = want {
                        kinds
                            [2 * ((p.moves() as usize % 2) ^ ((W * H) % 2)) + usize::from(want)] +=
                            1;
                    }
                }
            }
        }
        kinds
    }

    #[test]
    fn parity_bounds_decide_exactly_the_nodes_a_bound_decides() {
        // The test means something only if each bound decides many nodes on each board.
        for (board, kinds) in [
            ("7x6", check_decisive::<7, 6>(0xdec1_0076, 400)),
            ("7x5", check_decisive::<7, 5>(0xdec1_0075, 400)),
            ("6x7", check_decisive::<6, 7>(0xdec1_0067, 300)),
            ("5x5", check_decisive::<5, 5>(0xdec1_0055, 400)),
        ] {
            assert!(kinds.iter().all(|&k| k > 50), "{board}: {kinds:?}");
        }
    }

    /// Positions the random ones of the test above miss: after one of the moves, a cell
    /// that completes a four for the mover is already the opponent's (it blocked that
    /// four) and lies an even number of rows below a real threat of the mover in a column
    /// with an even number of empty cells. The odd-threat bound one move ahead must count
    /// only empty cells as threats, or it takes the blocked cell for the column's lowest
    /// threat, misses the real one and proves a smaller bound (found by comparing the bound
    /// with and without the mask on random positions of 4 to 27 empty cells).
    #[test]
    fn parity_bounds_decide_exactly_with_a_blocked_four_below_a_threat() {
        fn parse<const W: usize, const H: usize>(lines: &[&str]) -> Vec<Position<W, H>> {
            lines.iter().map(|l| Position::parse(l).unwrap()).collect()
        }
        let sets = [
            check_decisive_on::<7, 6>(
                parse(&[
                    "512364334451477274225247771625",
                    "16731134773432644366177431667152",
                ])
                .into_iter(),
            ),
            check_decisive_on::<6, 7>(
                parse(&["4424352362514522441232", "24163553422333461252"]).into_iter(),
            ),
            check_decisive_on::<7, 5>(parse(&["6463166644731415343115273"]).into_iter()),
            check_decisive_on::<6, 6>(parse(&["15433316645113365261"]).into_iter()),
        ];
        // Each position has a node the odd-threat bound decides with a high score.
        assert!(sets.iter().all(|k| k[1] > 0), "{sets:?}");
    }

    /// The parity-bound functions restated cell by cell from their docs, on `u64` words
    /// (cell (`c`, `r`) at bit `c * (H + 1) + r`): an oracle free of their bit arithmetic.
    struct Cells<const W: usize, const H: usize>;

    impl<const W: usize, const H: usize> Cells<W, H> {
        fn bit(c: usize, r: usize) -> u64 {
            1 << (c * (H + 1) + r)
        }
        fn at(set: u64, c: usize, r: usize) -> bool {
            set & Self::bit(c, r) != 0
        }
        /// Rows an even number of rows below the top one.
        fn follower_row(r: usize) -> bool {
            (H - 1 - r) % 2 == 0
        }
        fn odd_column(mask: u64, c: usize) -> bool {
            (0..H).filter(|&r| !Self::at(mask, c, r)).count() % 2 == 1
        }
        /// Every cell (`c`, `r`) of the board for which `f` holds.
        fn cells(f: impl Fn(usize, usize) -> bool) -> u64 {
            let mut set = 0;
            for c in 0..W {
                for r in (0..H).filter(|&r| f(c, r)) {
                    set |= Self::bit(c, r);
                }
            }
            set
        }
        fn four(set: u64) -> bool {
            crate::position::four_by_cells::<W, H>(u128::from(set))
        }
        fn empty_and_odd(mask: u64) -> (u64, u64) {
            (
                Self::cells(|c, r| !Self::at(mask, c, r)),
                Self::cells(|c, r| !Self::at(mask, c, r) && Self::odd_column(mask, c)),
            )
        }
        /// Whether either side may get the empty cell (`c`, `r`) of a column with an odd
        /// number of empty cells: any of them, or in `pairs` its lowest one only.
        fn free(mask: u64, c: usize, r: usize, pairs: bool) -> bool {
            let lowest = (0..H).find(|&r| !Self::at(mask, c, r));
            !Self::at(mask, c, r) && Self::odd_column(mask, c) && (!pairs || lowest == Some(r))
        }
        /// In each column, its lowest threat on a follower's row that is not free, and every
        /// cell above it; then the cells left empty when the follower wins on one of them
        /// (where there is one): in each such column, the threat, those above it and the
        /// one below, all but the leader's stone under the threat it plays under last and
        /// the follower's on it.
        fn sure_threats(mask: u64, threats: u64, pairs: bool) -> (u64, i32) {
            let (mut cut, mut left) = (0, None::<i32>);
            for c in 0..W {
                let first = (0..H).find(|&r| {
                    !Self::at(mask, c, r)
                        && !Self::free(mask, c, r, pairs)
                        && Self::follower_row(r)
                        && Self::at(threats, c, r)
                });
                if let Some(row) = first {
                    cut |= Self::cells(|cc, r| cc == c && r >= row);
                    let column = (H - row + 1) as i32;
                    left = Some(left.map_or(column - 2, |l| l + column));
                }
            }
            // No more than one column's cells above a threat: the window guards' limit.
            (cut, left.map_or(0, |l| l.min(((H - 1) & !1) as i32)))
        }
        /// The cells the leader may get under a follow-up: its stones, the free cells and,
        /// elsewhere, those on its rows not cut off by a threat.
        fn leader_cells(leader: u64, mask: u64, cut: u64, pairs: bool) -> u64 {
            leader
                | Self::cells(|c, r| {
                    !Self::at(mask, c, r)
                        && (Self::free(mask, c, r, pairs)
                            || (!Self::follower_row(r) && !Self::at(cut, c, r)))
                })
        }
        /// Every four of the board, as its cells (column, row).
        fn lines() -> Vec<[(usize, usize); 4]> {
            let mut lines = Vec::new();
            for c in 0..W as i64 {
                for r in 0..H as i64 {
                    for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                        let line = [0, 1, 2, 3].map(|i| (c + i * dc, r + i * dr));
                        let on_board = |&(c, r): &(i64, i64)| {
                            (0..W as i64).contains(&c) && (0..H as i64).contains(&r)
                        };
                        if line.iter().all(on_board) {
                            lines.push(line.map(|(c, r)| (c as usize, r as usize)));
                        }
                    }
                }
            }
            lines
        }
        /// A four of the leader within the cells it may get (`cells`, empty in `mask` or
        /// its stones): one up a column needs three of its stones, since when the follower
        /// answers on top in every column the leader never gets two cells of a column in
        /// a row.
        fn leader_four(cells: u64, mask: u64) -> bool {
            Self::lines().iter().any(|line| {
                let empty = line.iter().filter(|&&(c, r)| !Self::at(mask, c, r)).count();
                let up = line[0].0 == line[3].0;
                line.iter().all(|&(c, r)| Self::at(cells, c, r)) && (!up || empty <= 1)
            })
        }
        /// The leader's bound from the follower's fours within `sure` (its stones and the
        /// cells it is sure of): the leader leaves to the last the empty cell of a four
        /// with the fewest cells above it, which are still empty when the four is
        /// completed; the follower picks the four that leaves the most. 0 when `sure`
        /// holds no four.
        fn sure_four(sure: u64, mask: u64) -> i32 {
            Self::lines()
                .iter()
                .filter(|line| line.iter().all(|&(c, r)| Self::at(sure, c, r)))
                .map(|line| {
                    let empty = line.iter().filter(|&&(c, r)| !Self::at(mask, c, r));
                    // A four already made (on made-up boards only): as many as the most.
                    empty
                        .map(|&(_, r)| (H - 1 - r) as i32)
                        .min()
                        .unwrap_or(H as i32 - 1)
                })
                .max()
                .map_or(0, |k| -1 - k / 2)
        }
        /// The follow-up bound of one way of playing the odd columns: in `pairs` the
        /// leader may get two cells of a column in a row (an odd column's lowest and the
        /// one above), else never.
        fn follow_up_way(
            leader: u64,
            follower: u64,
            threats: u64,
            mask: u64,
            pairs: bool,
        ) -> Option<i32> {
            let (cut, above) = Self::sure_threats(mask, threats, pairs);
            let cells = Self::leader_cells(leader, mask, cut, pairs);
            let sure = follower
                | Self::cells(|c, r| {
                    !Self::at(mask, c, r) && Self::follower_row(r) && !Self::free(mask, c, r, pairs)
                });
            // In pairs, the aftereven rule may keep the leader from its fours.
            if (pairs && Self::four(cells) && !Self::aftereven(cells, sure, mask))
                || (!pairs && Self::leader_four(cells, mask))
            {
                return None;
            }
            // The timing of the follower's four, in pairs only (the way that decides).
            let four = match (pairs, Self::four(sure)) {
                (true, _) => Self::sure_four(sure, mask),
                (false, true) => -1,
                (false, false) => 0,
            };
            Some(if cut != 0 {
                four.min(-1 - above / 2)
            } else {
                four
            })
        }
        /// Allis' aftereven: a four of the follower within `sure` such that every four of
        /// the leader within `cells` holds, in each column of the follower's four, a cell
        /// above its empty cell there (the highest, where it has two in the column).
        fn aftereven(cells: u64, sure: u64, mask: u64) -> bool {
            let within = |set: u64, line: &[(usize, usize); 4]| {
                line.iter().all(|&(c, r)| Self::at(set, c, r))
            };
            let lines = Self::lines();
            let leader: Vec<_> = lines.iter().filter(|g| within(cells, g)).collect();
            lines.iter().filter(|f| within(sure, f)).any(|f| {
                let holes: Vec<(usize, usize)> = f
                    .iter()
                    .copied()
                    .filter(|&(c, r)| !Self::at(mask, c, r))
                    .collect();
                let highest = |col: usize| holes.iter().filter(|h| h.0 == col).map(|h| h.1).max();
                leader.iter().all(|g| {
                    holes.iter().all(|&(col, _)| {
                        let top = highest(col).unwrap_or(0);
                        g.iter().any(|&(c, r)| c == col && r > top)
                    })
                })
            })
        }
        /// The lower of the two ways' bounds, where they hold.
        fn follow_up_bound(leader: u64, follower: u64, threats: u64, mask: u64) -> Option<i32> {
            [false, true]
                .iter()
                .filter_map(|&pairs| Self::follow_up_way(leader, follower, threats, mask, pairs))
                .min()
        }
        fn odd_threat_bound(leader: u64, threats: u64, mask: u64) -> Option<i32> {
            let elsewhere = |pairs| {
                let (cut, _) = Self::sure_threats(mask, threats, pairs);
                Self::leader_cells(leader, mask, cut, pairs)
            };
            let mut best = None;
            for c in (0..W).filter(|&c| Self::odd_column(mask, c)) {
                // The column's lowest threat on a leader's row.
                let Some(t) = (0..H).find(|&r| {
                    !Self::at(mask, c, r) && !Self::follower_row(r) && Self::at(threats, c, r)
                }) else {
                    continue;
                };
                let cells = |pairs| {
                    leader
                        | Self::cells(|cc, r| cc != c && Self::at(elsewhere(pairs), cc, r))
                        | Self::cells(|cc, r| {
                            cc == c && r < t && !Self::at(mask, cc, r) && Self::follower_row(r)
                        })
                };
                // Open, the leader never gets two cells of a column in a row; in pairs it
                // may (an odd column's lowest and the one above).
                if !Self::leader_four(cells(false), mask) || !Self::four(cells(true)) {
                    let b = (H - 1 - t) as i32 / 2 + 1;
                    best = Some(best.map_or(b, |x: i32| x.max(b)));
                }
            }
            best
        }
    }

    /// The parity-bound functions against [`Cells`] on the arguments the search gives
    /// them, at `count` random positions of W x H with 2 to 23 empty cells, and on as many
    /// made-up ones.
    fn check_against_cells<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 4] {
        type C<const W: usize, const H: usize> = Cells<W, H>;
        let mut some = [0; 4];
        let even = random_positions::<W, H>(seed, 2, 11, count / 2, |_| true);
        let odd = random_positions::<W, H>(seed ^ 1, 3, 11, count / 2, |_| true);
        for p in even.into_iter().chain(odd) {
            let (cur, mask) = (p.current(), p.mask());
            let threats = p.opponent_winning();
            let mut calls = vec![(cur, cur ^ mask, threats, mask)];
            for mv in (0..W).map(|c| p.possible() & Position::<W, H>::column_mask(c)) {
                if mv != 0 {
                    let after = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                    calls.push((cur ^ mask, cur | mv, after, mask | mv));
                }
            }
            // And made-up arguments: any column heights, any stones, any empty cells as
            // threats (the functions ask no more of them), on the same columns.
            let mut rng = seed ^ u64::from(p.moves()) ^ mask;
            let mut bits = move || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            let heights: Vec<u64> = (0..W).map(|_| bits() % (H as u64 + 1)).collect();
            let stacks = Cells::<W, H>::cells(|c, r| (r as u64) < heights[c]);
            let stones = bits() & stacks;
            let made_up =
                bits() & bits() & Cells::<W, H>::cells(|c, r| !Cells::<W, H>::at(stacks, c, r));
            calls.push((stones, stacks ^ stones, made_up, stacks));
            for (leader, follower, threats, mask) in calls {
                let at = format!("{W}x{H} {p:?}: leader {leader:#x}, threats {threats:#x}");
                let (empty, odd) = empty_and_odd::<W, H, u64>(mask);
                assert_eq!((empty, odd), C::<W, H>::empty_and_odd(mask), "{at}");
                let sure = sure_threats::<W, H, u64>(empty, odd, threats);
                assert_eq!(sure, C::<W, H>::sure_threats(mask, threats, false), "{at}");
                let lowest = odd_lowest::<W, H, u64>(mask);
                assert_eq!(
                    sure_threats::<W, H, u64>(empty, lowest, threats),
                    C::<W, H>::sure_threats(mask, threats, true),
                    "{at}"
                );
                let f = follow_up_bound::<W, H, u64>(leader, follower, threats, mask);
                assert_eq!(
                    f,
                    C::<W, H>::follow_up_bound(leader, follower, threats, mask),
                    "{at}"
                );
                let o = odd_threat_bound::<W, H, u64>(leader, threats, mask);
                assert_eq!(
                    o,
                    C::<W, H>::odd_threat_bound(leader, threats, mask),
                    "{at}"
                );
                some[0] += u32::from(sure.0 != 0);
                some[1] += u32::from(f.is_some_and(|b| b < -1));
                some[2] += u32::from(f == Some(-1));
                some[3] += u32::from(o.is_some_and(|b| b > 1));
            }
        }
        some
    }

    #[test]
    fn parity_bound_functions_agree_with_a_cell_by_cell_oracle() {
        // The test means something only if each kind of answer comes up often: sure
        // threats, follow-up losses by more than 1 and by 1, odd threats above 1.
        for (board, some) in [
            ("7x6", check_against_cells::<7, 6>(0xce11_0076, 4000)),
            ("7x5", check_against_cells::<7, 5>(0xce11_0075, 4000)),
            ("6x7", check_against_cells::<6, 7>(0xce11_0067, 4000)),
            ("8x5", check_against_cells::<8, 5>(0xce11_0085, 4000)),
            ("5x5", check_against_cells::<5, 5>(0xce11_0055, 4000)),
            ("6x6", check_against_cells::<6, 6>(0xce11_0066, 4000)),
            ("7x8", check_against_cells::<7, 8>(0xce11_0078, 4000)),
            ("5x9", check_against_cells::<5, 9>(0xce11_0059, 4000)),
        ] {
            assert!(some.iter().all(|&k| k > 20), "{board}: {some:?}");
        }
    }

    /// Plain minimax (no bound, no table): the oracle of the late-position test.
    fn minimax<const W: usize, const H: usize>(p: &Position<W, H, u128>) -> i32 {
        if p.is_full() {
            return 0;
        }
        let cells = (W * H) as i32;
        let mut best = i32::MIN;
        for c in (0..W).filter(|&c| p.can_play(c)) {
            if p.is_winning_move(c) {
                return (cells + 1 - p.moves() as i32) / 2;
            }
            let mut q = *p;
            q.play_col(c);
            best = best.max(-minimax(&q));
        }
        best
    }

    #[test]
    fn table_is_used_on_the_late_plies_of_big_boards() {
        // 9 x 8 (72 cells, 128-bit words): positions of 64 stones, first player to move. The
        // table must be probed and stored there too (it used to stop at 64 stones), and the
        // scores must agree with plain minimax.
        const W: usize = 9;
        const H: usize = 8;
        let table = Table::new(1, crate::position::key_bits(W, H)).unwrap();
        let (stop, done, live) = (StopFlag::new(), StopFlag::new(), AtomicU64::new(0));
        let mut s: u64 = 0x7ab1e;
        let (mut solved, mut stored) = (0, 0);
        while solved < 400 {
            let mut p = Position::<W, H, u128>::new();
            let target = 64;
            while p.moves() < target && p.play_random_quiet(&mut s) {}
            if p.moves() != target || p.can_win_next() {
                continue;
            }
            let shared = Shared {
                table: &table,
                stop: &stop,
                done: &done,
                live_nodes: &live,
                deadline: None,
                busy: None,
            };
            let mut searcher = Searcher::<W, H, u128>::new(shared, Params::default(), 0);
            let w = Searcher::<W, H, u128>::initial_window(&p);
            let score = searcher.negamax(&p, w.lower - 1, w.upper + 1);
            assert_eq!(score, minimax(&p), "{p:?}\n{p}");
            solved += 1;
            if let Some(e) = table.probe(p.canonical_key().0) {
                // The window inside may have been narrowed to the score: any bound must hold.
                let holds = match e.bound {
                    Bound::Exact => score == e.value,
                    Bound::Lower => score >= e.value,
                    Bound::Upper => score <= e.value,
                };
                assert!(holds, "{p:?}: score {score}, stored {e:?}\n{p}");
                stored += 1;
            }
        }
        // Most roots are decided before the table (one move that does not lose at once, or
        // the bounds); some must reach it (with the table stopped at 64 stones, none did).
        assert!(stored >= 10, "{stored} of {solved} roots stored");
    }

    #[test]
    fn the_first_test_changes_no_score() {
        // The driver's first question only changes which tests are asked: every choice,
        // inside the score range or outside it, ends at the oracle's score (and the weak
        // solve at its sign). The positions have fewer stones than `zero_window_below`,
        // where the first question is used.
        let oracle = oracle::<5, 4>();
        let mut s = 0x51f7_0013;
        let positions: Vec<Position<5, 4>> = (0..40)
            .map(|i| {
                let mut p = Position::new();
                while p.moves() < i % 4 && p.play_random_quiet(&mut s) {}
                p
            })
            .collect();
        let want: Vec<i32> = positions
            .iter()
            .map(|p| oracle.solve(p).unwrap().score)
            .collect();
        assert!(want.iter().any(|&w| w > 0) && want.iter().any(|&w| w < 0));
        // With the first move's guess, its tests prove bounds of the root (the move wins, or
        // holds one lower) or start the driver lower (it does neither): all three happen.
        let mut guesses = [0; 3];
        for (first, guess) in [-9, -2, -1, 0, 1, 3, 9]
            .into_iter()
            .flat_map(|f| [(f, false), (f, true)])
        {
            // The guess on every root of the test, not only the empty one.
            let solver: crate::Solver<5, 4, u64> = crate::Solver::builder()
                .table_mib(4)
                .threads(1)
                .params(Params {
                    first_test: first,
                    first_move_guess_below: if guess { 4 } else { 0 },
                    ..Params::default()
                })
                .build()
                .unwrap();
            for (p, &w) in positions.iter().zip(&want) {
                assert_eq!(
                    solver.solve(p).unwrap().score,
                    w,
                    "first test {first}, guess {guess}: {p:?}"
                );
                assert_eq!(
                    solver.solve_weak(p).unwrap().score,
                    w.signum(),
                    "weak, guess {guess}: {p:?}"
                );
                if guess && first == 0 && !p.can_win_next() {
                    // Which way the guess went, from the first move's score.
                    let next = p.non_losing_moves();
                    let col = column_order::<5>()
                        .into_iter()
                        .find(|&c| next & Position::<5, 4>::column_mask(c) != 0)
                        .unwrap();
                    let after = p.after(next & Position::<5, 4>::column_mask(col));
                    let m = -oracle.solve(&after).unwrap().score;
                    guesses[usize::from(m <= 0) + usize::from(m <= -1)] += 1;
                }
            }
        }
        assert!(guesses.iter().all(|&n| n > 0), "{guesses:?}");
    }

    /// Windows of every kind around the score of each of `count` random positions of
    /// W x H (8 to 18 empty cells), searched with the children looked at statically at every
    /// depth, on one table for all: each result holds for the oracle's score. Returns the
    /// nodes with and without the static look.
    fn check_static_children<const W: usize, const H: usize>(seed: u64, count: usize) -> [u64; 2] {
        use crate::table::Bound;
        let oracle = oracle::<W, H>();
        let [with, without] = [99, 0].map(|k| -> crate::Solver<W, H, u64> {
            crate::Solver::builder()
                .table_mib(4)
                .threads(1)
                .params(Params {
                    static_children_empty: k,
                    ..Params::default()
                })
                .build()
                .unwrap()
        });
        let mut nodes = [0; 2];
        let mut kinds = [0; 3];
        for p in random_positions::<W, H>(seed, 8, 6, count, |_| true) {
            let s = oracle.solve(&p).unwrap().score;
            for (alpha, beta) in [
                (s - 1, s),
                (s, s + 1),
                (s - 2, s + 2),
                (-30, 30),
                (s + 1, s + 3),
                (s - 4, s - 1),
            ] {
                let r = with.solve_window(&p, alpha, beta).unwrap();
                let holds = match r.bound {
                    Bound::Exact => r.value == s && alpha < s && s < beta,
                    Bound::Lower => s >= r.value && r.value >= beta,
                    Bound::Upper => s <= r.value && r.value <= alpha,
                };
                assert!(holds, "{p:?} ({alpha}, {beta}): {r:?}, score {s}");
                kinds[r.bound as usize - 1] += 1;
                nodes[0] += r.nodes;
                nodes[1] += without.solve_window(&p, alpha, beta).unwrap().nodes;
            }
        }
        assert!(kinds.iter().all(|&k| k > 20), "{kinds:?}");
        nodes
    }

    #[test]
    fn children_looked_at_before_the_search_keep_every_window_exact() {
        // Wide windows too: a child decided by its own stages may be the best of an exact
        // node, and then its score and move must be what the node returns and stores.
        let mut total = [0; 2];
        for nodes in [
            check_static_children::<7, 6>(0x57a7_0076, 120),
            check_static_children::<6, 5>(0x57a7_0065, 150),
            check_static_children::<5, 4>(0x57a7_0054, 150),
            check_static_children::<6, 7>(0x57a7_0067, 100),
        ] {
            total[0] += nodes[0];
            total[1] += nodes[1];
        }
        // In use: the children it decides are neither searched nor counted.
        assert!(total[0] < total[1], "nodes with and without: {total:?}");
    }
}
