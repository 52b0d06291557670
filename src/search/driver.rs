//! The drivers over the node search: the null-window solve that narrows the exact score
//! (with the first move's guess of which test to ask first), the weak (win/draw/loss)
//! solve, and the best move for a known score.

use super::isa::Isa;
use super::{Guess, Searcher, Window};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::table::Bound;
use std::sync::Mutex;

impl<'a, const W: usize, const H: usize, B: Bitboard, I: Isa> Searcher<'a, W, H, B, I> {
    /// The exact score, narrowed by null-window searches, or `None` if stopped.
    ///
    /// `window` holds the bounds proven so far and is shared by every thread of the solve:
    /// each iteration starts from its latest value and narrows it. Thread 0 tests the
    /// classic midpoint; thread `t > 0` tests a neighbouring window (`+1`, `-1`, `+2`, ...) so
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
            // With other threads on the solve, the bounds they prove are read at each poll.
            let shared = self.shared.busy.is_some();
            self.all_parity = if shared && self.params.guess_node_types {
                Self::expected_all_nodes(min, max, med)
            } else {
                None
            };
            self.question = shared.then_some((window, med));
            // Is the score above `med`?
            let r = self.negamax(pos, med, med + 1);
            self.question = None;
            if std::mem::take(&mut self.settled) {
                // Another thread answered this test meanwhile: on to the next one.
                self.aborted = false;
                continue;
            }
            if self.aborted {
                return None;
            }
            on_step(&Window::narrow(window, med, r), self.nodes);
        }
    }

    /// Whether the driver asks its first test of the first move before the root (see
    /// [`Self::first_move_guess`]): on a root of fewer than `Params::first_move_guess_below`
    /// stones (the empty board), with one thread.
    pub(super) fn guesses(&self, pos: &Position<W, H, B>) -> bool {
        pos.moves() < self.params.first_move_guess_below && self.shared.busy.is_none()
    }

    /// What the first move's value says of the root, for a driver whose first test is
    /// "above `t`?" and whose bounds so far are `w`; `None` if stopped.
    ///
    /// Which test to ask first depends on the sign of the score, which nothing in the
    /// position tells: "above 0?" first costs one test more on a second-player win, "above
    /// -1?" first one more on a first-player win (docs/search-ledger.md, "The first question and the
    /// first move's guess"). So the two tests are first asked of the first move in
    /// centre-first order alone:
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
    pub(super) fn first_move_guess(
        &mut self,
        pos: &Position<W, H, B>,
        t: i32,
        w: Window,
    ) -> Option<Guess> {
        let none = Guess {
            lower: None,
            first_test: t,
        };
        let next = pos.non_losing_moves();
        let Some(&col) = Self::columns()
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
    pub(super) fn expected_all_nodes(min: i32, max: i32, med: i32) -> Option<u32> {
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
    /// solve, the outcome: 1 or 0), first in the centre-first order ([`Self::columns`]): the one
    /// tie-break rule of every front end (see [`crate::ordering`]). `None` if the game is over
    /// or the search was stopped.
    ///
    /// The columns are taken in that order, each settled by what the table already proves of
    /// its child ([`Self::child_at_most`]: the proof of the score stored the children it
    /// searched, the move that proved it among them), else by a null-window search of the
    /// child. Either way the answer is the first column that achieves the score, whatever
    /// the table holds and whichever thread asks; only the work to find it depends on them.
    /// The searches poll the stop flags and the deadline like any other.
    pub(crate) fn best_move(&mut self, pos: &Position<W, H, B>, score: i32) -> Option<usize> {
        if pos.is_full() {
            return None;
        }
        let possible = pos.possible();
        let first_in = |set: B| {
            Self::columns()
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
        for &col in Self::columns().iter() {
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
            let achieves = match self.child_at_most(&child, -score) {
                Some(known) => known,
                None => {
                    // A stop or deadline that came before this search ends it at once (the
                    // node count's polls may be thousands of nodes away).
                    self.poll();
                    if self.aborted {
                        return None;
                    }
                    let v = self.negamax(&child, -score, -score + 1);
                    if self.aborted {
                        return None;
                    }
                    v <= -score
                }
            };
            if achieves {
                return Some(col);
            }
        }
        // Only a lossy table (the check-bits experiment) can give a score no move achieves.
        debug_assert!(
            self.shared.table.is_lossy(),
            "no move achieves the exact score"
        );
        None
    }

    /// Whether the table proves the score of `child` at most `t` (`Some(true)`) or above it
    /// (`Some(false)`); `None` when its entry, if any, leaves both open. An entry is a true
    /// bound of its position's score whatever search wrote it, so this is a proof.
    fn child_at_most(&self, child: &Position<W, H, B>, t: i32) -> Option<bool> {
        let (key, _) = self.table_key(child);
        let e = self.tt(child.moves()).probe(key)?;
        match e.bound {
            Bound::Exact => Some(e.value <= t),
            Bound::Upper if e.value <= t => Some(true),
            Bound::Lower if e.value > t => Some(false),
            Bound::Upper | Bound::Lower => None,
        }
    }
}
