//! The bound stage of a node: what is known of its score before any child is searched.
//!
//! The moves that settle it (none that does not lose at once, a forced move, a full board),
//! the bounds from the moves left, the parity bounds (whose rules, and the arguments for
//! them, are in [`super::parity`]), and near the end of the game the children's own bounds
//! read before any child is searched.

use super::isa::Isa;
use super::parity::{
    follow_up_after_each, follow_up_aftereven, follow_up_bound, odd_lowest, odd_threat_bound,
};
use super::{Ab, ByMoves, Searcher, POLL_MASK};
use crate::bitboard::Bitboard;
use crate::ordering::{AfterEach, LANES};
use crate::position::{has_four, Position};

impl<'a, const W: usize, const H: usize, B: Bitboard, I: Isa> Searcher<'a, W, H, B, I> {
    /// Stage 3b, near the end of the game: every child's stages 1 and 2 (its moves alone, a
    /// forced line followed, its bounds) before any child is searched, so that a child they
    /// decide above `beta` ends the node at once wherever it is in the order. A decided
    /// child is taken out of `next`, its score raising `alpha`; returns the best of them
    /// and its move (`i32::MIN` when none), `Err` at a cutoff.
    #[inline(always)]
    pub(super) fn static_children(
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
    pub(super) fn static_value(
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
    pub(super) fn by_moves(pos: &Position<W, H, B>, next: B) -> ByMoves {
        let moves = pos.moves() as i32;
        if next == B::ZERO {
            ByMoves::Decided(-(Self::cells() - moves) / 2)
        } else if moves >= Self::cells() - 2 {
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
    pub(super) fn settle(
        &mut self,
        pos: &Position<W, H, B>,
        next: B,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
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
    pub(super) fn bounds(
        &self,
        pos: &Position<W, H, B>,
        next: B,
        opp_threats: B,
        w: &mut Ab,
        after: &mut AfterEach<W, B>,
    ) -> Result<(), i32> {
        let moves = pos.moves() as i32;
        w.raise(-(Self::cells() - 2 - moves) / 2)?;
        let mut max = (Self::cells() - 1 - moves) / 2;
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
    pub(super) fn no_four_bounds(
        pos: &Position<W, H, B>,
        w: &mut Ab,
        max: &mut i32,
    ) -> Result<(), i32> {
        let empty = Position::<W, H, B>::board() & !pos.mask();
        if (Self::cells() - pos.moves() as i32) % 2 == 1 {
            if *max > 0 && !has_four::<W, H, B>(pos.current() | empty) {
                *max = 0;
            }
        } else if w.alpha < 0 && !has_four::<W, H, B>((pos.current() ^ pos.mask()) | empty) {
            w.raise(0)?;
        }
        Ok(())
    }

    /// The parity bounds of a node (see `follow_up_bound` and
    /// `odd_threat_bound`): the window's `alpha` raised and `max` (the bound the caller
    /// applies to `beta`) lowered by them, or `Err(v)` when they alone decide the node:
    /// `v >= beta` is then a lower bound of its score. `next` and `opp_threats` are the
    /// node's non-losing moves and the opponent's winning cells.
    #[inline(always)]
    pub(super) fn parity_bounds(
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
        let reach = Position::<W, H, B>::h().div_ceil(2) as i32;
        let (cur, mask) = (pos.current(), pos.mask());
        if (Self::cells() - moves) % 2 == 0 {
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
                    if B::BITS <= 64 && Position::<W, H, B>::w() <= LANES {
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
}
