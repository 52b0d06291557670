//! One node of the search: negamax's recursion through its named stages, and the children
//! stage (the table's move first, then the ordered moves, each searched in turn).
//!
//! The stages that decide a node before its children are in [`super::bounds`]; its use of
//! the table in [`super::probe`].

use super::isa::Isa;
use super::{Ab, Found, Probe, Searcher};
use crate::bitboard::Bitboard;
use crate::ordering::{threat_score, AfterEach, MoveList};
use crate::position::Position;
use crate::table::InProgress;

impl<'a, const W: usize, const H: usize, B: Bitboard, I: Isa> Searcher<'a, W, H, B, I> {
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
    /// 4. [`Self::children`]: the table's move, then [`Self::columns`]'s list, searched in
    ///    [`Self::child_loop`].
    /// 5. [`Self::store`]: the result, with the kind of bound it is, into the probed slot.
    pub(crate) fn negamax(&mut self, pos: &Position<W, H, B>, alpha: i32, beta: i32) -> i32 {
        I::node(self, pos, pos.opponent_winning(), alpha, beta)
    }

    /// [`Self::negamax`] given the opponent's winning cells `opp_win`, which the parent may
    /// have computed already (see [`Self::child`]).
    #[inline(always)]
    pub(super) fn node(
        &mut self,
        pos: &Position<W, H, B>,
        opp_win: B,
        alpha: i32,
        beta: i32,
    ) -> i32 {
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
    pub(super) fn search_node(
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
        if Self::cells() as u32 - pos.moves() <= self.params.static_children_empty {
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

    /// Stage 4: the children, the table's move first, the others in [`Self::columns`]'s order,
    /// until one reaches `beta`. With several threads, near the root, each child is marked as
    /// being searched, with its window, from before it is entered until it returns, and a
    /// child another thread is searching now with the same window is put off (ABDADA's
    /// idea), so that the threads spread over the tree instead of searching the same child
    /// together.
    #[inline(always)]
    pub(super) fn children(
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

    /// Stage 4a: the moves `rest` into `list`, in the order they are searched. Near the root,
    /// by the threats each makes (forcing moves first when the window asks whether a side
    /// wins quickly); after, centre first.
    #[inline(always)]
    pub(super) fn order(
        &self,
        pos: &Position<W, H, B>,
        rest: B,
        opp_threats: B,
        w: &Ab,
        after: &mut AfterEach<W, B>,
        list: &mut MoveList<W, B>,
    ) {
        let moves = pos.moves();
        let empty = Self::cells() as u32 - moves;
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
        for (i, &col) in Self::columns().iter().enumerate() {
            moves[i] = rest & Position::<W, H, B>::column_mask(col);
            scores[i] = match lanes {
                Some(t) if bonus == 0 => t[col].count_ones(),
                Some(t) if moves[i] != B::ZERO => {
                    threat_score(pos, moves[i], t[col], bonus, opp_threats)
                }
                _ => 0,
            };
        }
        list.rank(&moves, &scores, Position::<W, H, B>::w());
    }

    /// The child after `mv`, searched in the window `w` and seen from this node (negated).
    /// Its opponent's winning cells are ours after `mv`: taken from `after` when a stage
    /// computed them.
    #[inline(always)]
    pub(super) fn child(
        &mut self,
        pos: &Position<W, H, B>,
        mv: B,
        after: &AfterEach<W, B>,
        w: &Ab,
    ) -> i32 {
        let child = pos.after(mv);
        let opp_win = after
            .lane(Position::<W, H, B>::column_of(mv))
            .unwrap_or_else(|| child.opponent_winning());
        -I::node(self, &child, opp_win, -w.beta, -w.alpha)
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
    pub(super) fn child_loop(
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
    pub(super) fn record(found: &mut Found<B>, w: &mut Ab, v: i32, mv: B) -> bool {
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
}
