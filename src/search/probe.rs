//! A node's use of the table: its key (a position and its mirror image share one entry),
//! the probe that gives bounds, a move and the slot for the result, the enhanced
//! transposition cutoff over the children, prefetching, the busy marks of the nodes other
//! threads are searching, and the store.

use super::isa::Isa;
use super::{Ab, Found, Probe, Searcher};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::table::{Bound, Slot, Table};

impl<'a, const W: usize, const H: usize, B: Bitboard, I: Isa> Searcher<'a, W, H, B, I> {
    /// The node's key in the table, and whether it is its mirror image's (then the table's
    /// columns are mirrored): [`Position::canonical_key`] with `Params::canonical`
    /// ([`Position::reduced_key`] with `Params::dead_stones` too), else the position's own key.
    #[inline(always)]
    pub(super) fn table_key(&self, pos: &Position<W, H, B>) -> (B, bool) {
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
    pub(super) fn child_table_key(&self, pos: &Position<W, H, B>, base: (B, B), mv: B) -> B {
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
    pub(super) fn flip_column(c: u8, flip: bool) -> u8 {
        if flip {
            (Position::<W, H, B>::w() - 1) as u8 - c
        } else {
            c
        }
    }

    /// Whether a node of `moves` stones probes and stores the table itself (else its
    /// children may be probed by [`Self::etc`]).
    #[inline(always)]
    pub(super) fn stores(&self, moves: u32) -> bool {
        let empty = Self::cells() as u32 - moves;
        (self.params.table_every_ply || moves % 2 == 0 || self.every_ply(moves))
            && empty >= self.params.table_min_empty
    }

    /// The table of a node of `moves` stones: the near table ([`Table::near`]) from
    /// `Params::near_empty` empty cells on, the main one before.
    #[inline(always)]
    pub(super) fn tt(&self, moves: u32) -> &'a Table {
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
    pub(super) fn every_ply(&self, moves: u32) -> bool {
        let min = self.params.every_ply_min_empty;
        min != 0 && Self::cells() as u32 - moves >= min && self.nodes >= self.params.every_ply_after
    }

    /// Whether a node of `moves` stones loads its children's buckets ahead of searching them:
    /// when they will probe the table themselves (not when [`Self::etc`] loads them all
    /// anyway).
    #[inline(always)]
    pub(super) fn prefetches_children(&self, moves: u32) -> bool {
        let empty = Self::cells() as u32 - moves;
        self.params.prefetch
            && (self.params.table_every_ply || moves % 2 == 1 || self.every_ply(moves + 1))
            && empty <= self.params.etc_min_empty
            && empty > self.params.table_min_empty
    }

    /// Stage 3, nodes that store: the table's entry under the node's key (`flip`: the key is
    /// its mirror image's, see [`Self::table_key`]) narrows the window or decides the node;
    /// its move is searched first. Chooses the slot the node's result goes to.
    #[inline(always)]
    pub(super) fn probe(
        &self,
        tt: &Table,
        key: B,
        flip: bool,
        w: &mut Ab,
    ) -> Result<Probe<B>, i32> {
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
    pub(super) fn etc(&self, pos: &Position<W, H, B>, next: B, w: &mut Ab) -> Result<(), i32> {
        if Self::cells() as u32 - pos.moves() <= self.params.etc_min_empty {
            return Ok(());
        }
        self.probe_children(pos, next, w)
    }

    /// Enhanced transposition cutoff: the children's entries under their table keys. A
    /// child whose stored upper bound is low enough proves this node's value is at least its
    /// negation. Every child's bucket is loaded at once first, so that the misses overlap.
    #[inline(always)]
    pub(super) fn probe_children(
        &self,
        pos: &Position<W, H, B>,
        next: B,
        w: &mut Ab,
    ) -> Result<(), i32> {
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

    /// The mark of the child after `mv` searched within the parent's window `w`, in the set
    /// of nodes being searched: its table key and window. Two threads searching one position
    /// with different windows (a helper testing its own null window) do not share a mark, so
    /// neither puts off the other's work.
    #[inline(always)]
    pub(super) fn mark(&self, pos: &Position<W, H, B>, base: (B, B), mv: B, w: &Ab) -> u64 {
        let key = self.child_table_key(pos, base, mv).fold64();
        (key ^ (w.beta as i64 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1
    }

    /// Starts loading the bucket of the child after `mv` (`base`: the node's
    /// [`Position::child_base`], when its children probe the table).
    #[inline(always)]
    pub(super) fn load_child(&self, pos: &Position<W, H, B>, base: Option<(B, B)>, mv: B) {
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
    pub(super) fn store(
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
}
