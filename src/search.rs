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
//! # Where the table is used
//!
//! - Probe and store on even plies only (positions where the first player is to move). Odd
//!   plies instead probe their children (enhanced transposition cutoff, ETC) while few stones
//!   are down, and store nothing, which leaves the table's room for the even plies.
//! - While few stones are down, a miss is retried with the mirror image's key.
//!
//! The thresholds live in [`Params`]; BENCHMARKS.md records how they were chosen.

use crate::ordering::{column_order, threat_score, MoveList};
use crate::position::{has_four, Position};
use crate::sync::{AtomicU64, Ordering};
use crate::table::{Bound, Table};
use crate::StopFlag;
use std::time::Instant;

/// Tuning knobs of the search. The defaults are the measured best on 7 x 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Threat-based ordering while fewer than this many stones are down; the static
    /// centre-first order after.
    pub threat_order_below: u32,
    /// ETC (probing the children) on odd plies while fewer than this many stones are down.
    pub etc_below: u32,
    /// Probe the mirror image on a miss while fewer than this many stones are down.
    pub mirror_below: u32,
    /// Use the table on every ply instead of even plies only.
    pub table_every_ply: bool,
    /// Use the claim-even upper bound (boards of even height).
    pub claim_even: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threat_order_below: 36,
            etc_below: 24,
            mirror_below: 14,
            table_every_ply: false,
            claim_even: true,
        }
    }
}

/// Nodes between two polls of the stop flags.
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
}

/// The state of one thread's search.
pub(crate) struct Searcher<'a, const W: usize, const H: usize> {
    shared: Shared<'a>,
    params: Params,
    /// Nodes searched (forced moves played through are not counted).
    pub nodes: u64,
    aborted: bool,
    /// Ordering jitter for helper threads (0 for the main thread).
    rng: u64,
    jitter_below: u32,
}

/// Bounds of the score proven so far by a driver; `lower == upper` once exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub lower: i32,
    pub upper: i32,
}

impl<'a, const W: usize, const H: usize> Searcher<'a, W, H> {
    const CELLS: i32 = (W * H) as i32;
    const ORDER: [usize; W] = column_order::<W>();

    pub(crate) fn new(shared: Shared<'a>, params: Params, thread: usize) -> Self {
        Searcher {
            shared,
            params,
            nodes: 0,
            aborted: false,
            rng: if thread == 0 { 0 } else { 0x9E37_79B9_7F4A_7C15 ^ (thread as u64) << 32 },
            jitter_below: if thread == 0 { 0 } else { 12 + 2 * (thread as u32 % 4) },
        }
    }

    /// True once the search was stopped; its results must be thrown away.
    pub(crate) fn aborted(&self) -> bool {
        self.aborted
    }

    /// The score when the player to move wins with its next stone.
    #[inline]
    pub(crate) fn win_now(moves: u32) -> i32 {
        (Self::CELLS + 1 - moves as i32) / 2
    }

    /// The score bounds of a position before any search.
    pub(crate) fn initial_window(pos: &Position<W, H>) -> Window {
        let m = pos.moves() as i32;
        Window { lower: -(Self::CELLS - m) / 2, upper: (Self::CELLS + 1 - m) / 2 }
    }

    #[cold]
    fn poll(&mut self) {
        self.shared.live_nodes.store(self.nodes, Ordering::Relaxed);
        if self.shared.stop.is_raised() || self.shared.done.is_raised() {
            self.aborted = true;
        } else if self.shared.deadline.is_some_and(|d| Instant::now() >= d) {
            self.shared.stop.raise();
            self.aborted = true;
        }
    }

    #[inline]
    fn next_jitter(&mut self) -> i32 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 61) as i32 & 1
    }

    /// Negamax with alpha-beta, fail-soft: a result `<= alpha` is an upper bound of the score,
    /// `>= beta` a lower bound, anything between exact.
    ///
    /// The player to move must not be able to win at once, and the game must not be over.
    pub(crate) fn negamax(&mut self, pos: &Position<W, H>, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!pos.can_win_next());
        let next = pos.non_losing_moves();
        let moves = pos.moves() as i32;
        if next == 0 {
            // Every move lets the opponent win at once.
            return -(Self::CELLS - moves) / 2;
        }
        if moves >= Self::CELLS - 2 {
            // The opponent cannot win with the last stone: a draw.
            return 0;
        }
        if next & (next - 1) == 0 {
            // One move does not lose at once: play it through without counting a node.
            return -self.negamax(&pos.after(next), -beta, -alpha);
        }
        self.nodes += 1;
        if self.nodes & POLL_MASK == 0 {
            self.poll();
            if self.aborted {
                return 0;
            }
        }

        // The opponent cannot win with its next stone: we lose at the earliest with our
        // second-next stone's reply.
        let min = -(Self::CELLS - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        // We cannot win with our next stone (the caller checked).
        let mut max = (Self::CELLS - 1 - moves) / 2;
        if H % 2 == 0 && self.params.claim_even && pos.columns_even() {
            // Claim-even: the opponent answers every move in the same column, taking every
            // odd-row cell (0-based) left; we get the even-row ones. If our stones and those
            // cells hold no four, we never win; if theirs do, they win at the latest with
            // their last stone.
            let empty = !pos.mask();
            let ours = pos.current() | (Position::<W, H>::EVEN_ROWS & empty);
            if !has_four::<W, H>(ours) {
                let theirs = pos.opponent() | (Position::<W, H>::ODD_ROWS & empty);
                max = max.min(if has_four::<W, H>(theirs) { -1 } else { 0 });
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let use_table = self.params.table_every_ply || moves % 2 == 0;
        let key = pos.key();
        let mut tt_move = None;
        if use_table {
            let mut hit = self.shared.table.probe(key);
            if hit.is_none() && (moves as u32) < self.params.mirror_below {
                hit = self.shared.table.probe(pos.mirror_key()).map(|mut e| {
                    e.best_move = e.best_move.map(|c| (W - 1) as u8 - c);
                    e
                });
            }
            if let Some(e) = hit {
                tt_move = e.best_move;
                match e.bound {
                    Bound::Exact => return e.value,
                    Bound::Lower => {
                        if e.value > alpha {
                            alpha = e.value;
                            if alpha >= beta {
                                return alpha;
                            }
                        }
                    }
                    Bound::Upper => {
                        if e.value < beta {
                            beta = e.value;
                            if alpha >= beta {
                                return beta;
                            }
                        }
                    }
                }
            }
        } else if (moves as u32) < self.params.etc_below {
            // Enhanced transposition cutoff: a child whose stored upper bound is low enough
            // proves this node's value is at least its negation.
            let mut rest = next;
            while rest != 0 {
                let mv = rest & rest.wrapping_neg();
                rest ^= mv;
                let child = pos.after(mv);
                if let Some(e) = self.shared.table.probe(child.key()) {
                    if e.bound != Bound::Lower {
                        let v = -e.value;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                return alpha;
                            }
                        }
                    }
                }
            }
        }

        let mut list = MoveList::<W>::new();
        let threats = (moves as u32) < self.params.threat_order_below;
        let jitter = (moves as u32) < self.jitter_below;
        for &col in Self::ORDER.iter() {
            let mv = next & Position::<W, H>::column_mask(col);
            if mv != 0 {
                let mut score = if threats { threat_score(pos, mv) } else { 0 };
                if jitter {
                    score += self.next_jitter();
                }
                list.push(mv, score);
            }
        }
        if let Some(c) = tt_move {
            list.bring_to_front(next & Position::<W, H>::column_mask(c as usize));
        }

        let start = self.nodes;
        let alpha0 = alpha;
        let mut best = i32::MIN;
        let mut best_move = 0u64;
        for &mv in list.as_slice() {
            let v = -self.negamax(&pos.after(mv), -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = mv;
            }
            if v >= beta {
                if use_table {
                    let col = Position::<W, H>::column_of(mv) as u8;
                    self.shared.table.store(key, v, Bound::Lower, Some(col), self.nodes - start);
                }
                return v;
            }
            if v > alpha {
                alpha = v;
            }
        }
        if use_table {
            let (bound, mv) = if best > alpha0 {
                (Bound::Exact, Some(Position::<W, H>::column_of(best_move) as u8))
            } else {
                (Bound::Upper, None)
            };
            self.shared.table.store(key, best, bound, mv, self.nodes - start);
        }
        best
    }

    /// The exact score, narrowed by null-window searches, or `None` if stopped. `window` is
    /// kept up to date with the bounds proven so far; `on_step` hears of each finished
    /// null-window search.
    pub(crate) fn solve(
        &mut self,
        pos: &Position<W, H>,
        window: &mut Window,
        first_guess: i32,
        on_step: &mut dyn FnMut(&Window, u64),
    ) -> Option<i32> {
        if pos.is_full() {
            *window = Window { lower: 0, upper: 0 };
            return Some(0);
        }
        if pos.can_win_next() {
            let s = Self::win_now(pos.moves());
            *window = Window { lower: s, upper: s };
            return Some(s);
        }
        let mut first = true;
        while window.lower < window.upper {
            let (min, max) = (window.lower, window.upper);
            let mut med = min + (max - min) / 2;
            if first && (min..max).contains(&first_guess) {
                med = first_guess;
            } else if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            first = false;
            // Is the score above `med`?
            let r = self.negamax(pos, med, med + 1);
            if self.aborted {
                return None;
            }
            if r <= med {
                window.upper = r.min(window.upper);
            } else {
                window.lower = r.max(window.lower);
            }
            on_step(window, self.nodes);
        }
        Some(window.lower)
    }

    /// Win (1), draw (0) or loss (-1) for the player to move, or `None` if stopped.
    pub(crate) fn solve_weak(&mut self, pos: &Position<W, H>) -> Option<i32> {
        if pos.is_full() {
            return Some(0);
        }
        if pos.can_win_next() {
            return Some(1);
        }
        let r = self.negamax(pos, -1, 1);
        (!self.aborted).then_some(r.signum())
    }

    /// A column (0-based) that achieves `score`, the exact score of `pos`, or `None` if the
    /// game is over or the search was stopped.
    pub(crate) fn best_move(&mut self, pos: &Position<W, H>, score: i32) -> Option<usize> {
        if pos.is_full() {
            return None;
        }
        let possible = pos.possible();
        if pos.can_win_next() {
            let col = Position::<W, H>::column_of(pos.winning() & possible);
            return Some(col);
        }
        let next = pos.non_losing_moves();
        if next == 0 {
            // Lost at once whatever we play: any legal move.
            return Some(Position::<W, H>::column_of(possible));
        }
        if next & (next - 1) == 0 {
            return Some(Position::<W, H>::column_of(next));
        }
        let mut list = MoveList::<W>::new();
        for &col in Self::ORDER.iter() {
            let mv = next & Position::<W, H>::column_mask(col);
            if mv != 0 {
                list.push(mv, threat_score(pos, mv));
            }
        }
        if let Some(c) = self.shared.table.probe(pos.key()).and_then(|e| e.best_move) {
            list.bring_to_front(next & Position::<W, H>::column_mask(c as usize));
        }
        for &mv in list.as_slice() {
            // Playing `mv` achieves `score` when the child's score is at most `-score`.
            let child = pos.after(mv);
            let v = self.negamax(&child, -score, -score + 1);
            if self.aborted {
                return None;
            }
            if v <= -score {
                return Some(Position::<W, H>::column_of(mv));
            }
        }
        debug_assert!(false, "no move achieves the exact score");
        None
    }
}
