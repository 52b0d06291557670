//! Move ordering: which child the search tries first.
//!
//! This module owns the order of moves at a node: the static centre-first column order, the
//! threat-based score used near the root.
//! It reads positions; it never touches the table or the search state.
//!
//! The centre-first order is also the one tie-break rule of the best move on every front
//! end: among the columns that achieve a position's score, the best move is the first in
//! [`centre_order`] (see [`crate::Analysis::best_columns`], the search's and the book's
//! best move).

use crate::bitboard::Bitboard;
use crate::dims;
use crate::position::{winning_cells, Position};

/// The `i`-th column (0-based) of the centre-first order of a `width`-wide board: `width / 2`,
/// then alternately left and right of it, nearest first (on an even width the right one of
/// the two centre columns comes first).
pub(crate) const fn centre_column(i: usize, width: usize) -> usize {
    let off = i.div_ceil(2);
    if i % 2 == 1 {
        width / 2 - off
    } else {
        width / 2 + off
    }
}

/// Columns from the centre outwards: `3 2 4 1 5 0 6` on a 7-wide board.
pub(crate) const fn column_order<const W: usize>() -> [usize; W] {
    let mut order = [0; W];
    let mut i = 0;
    while i < W {
        order[i] = centre_column(i, W);
        i += 1;
    }
    order
}

/// The centre-first column order of a `width`-wide board (0-based columns), the same as the
/// search's: the tie-break rule of the best move (see the module docs).
pub(crate) fn centre_order(width: usize) -> Vec<usize> {
    (0..width).map(|i| centre_column(i, width)).collect()
}

/// A short list of moves (one-bit cells), best first.
pub(crate) struct MoveList<const W: usize, B: Bitboard = u64> {
    moves: [B; W],
    len: usize,
}

impl<const W: usize, B: Bitboard> MoveList<W, B> {
    /// Room for the keys of [`MoveList::rank`]: an index below 32 in the low bits.
    const FITS: () = assert!(W <= 32);

    #[inline]
    pub(crate) fn new() -> Self {
        let () = Self::FITS;
        MoveList {
            moves: [B::ZERO; W],
            len: 0,
        }
    }

    /// Fills the list with the moves of `moves` (one per entry, none where an entry is
    /// zero), sorted by decreasing score (`scores`, below `2^26`); equal scores keep the
    /// order of `moves` (so the centre-first order breaks ties).
    ///
    /// Each move's place is the number of moves ahead of it, counted without a branch (a
    /// sort that moved entries one at a time branched on the scores, which the CPU could
    /// not predict: docs/search-ledger.md, "Branch-free bounds and move list").
    #[inline(always)]
    pub(crate) fn rank(&mut self, moves: &[B; W], scores: &[u32; W], width: usize) {
        // Distinct keys, 0 for no move: the score, then the earlier entry first.
        let mut keys = [0u32; W];
        for (i, key) in keys.iter_mut().enumerate() {
            *key = if moves[i] != B::ZERO {
                (scores[i] + 1) << 5 | (31 - i as u32)
            } else {
                0
            };
        }
        // Only the board's `width` entries can hold a move (all `W` of a compiled size).
        let mut len = 0;
        for i in 0..width.min(W) {
            let mut ahead = 0;
            for &k in &keys {
                ahead += usize::from(k > keys[i]);
            }
            if keys[i] != 0 {
                self.moves[ahead] = moves[i];
            }
            len += usize::from(keys[i] != 0);
        }
        self.len = len;
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[B] {
        &self.moves[..self.len]
    }
}

/// Weights of [`threat_score`]'s bit 2 (low threats): per useful threat, per one right above
/// a playable cell, per one two cells above. Tenths, so that the weights stay integers.
pub(crate) const LOW_THREAT_WEIGHTS: [u32; 3] = [3, 12, 5];

/// The threat score of playing `mv` for the player to move: how many empty cells would then
/// complete a four for them (`threats`, their winning cells after `mv`, from
/// [`AfterEach`]), plus (per `bonus`, a bit set) bit 0: the threats on rows of the
/// mover's parity again (odd rows counted from 1 for the first player, even rows for the
/// second: the rows Allis' zugzwang rules favour), bit 1: the threats playable at once
/// again (the opponent must answer them). Bit 2 replaces the count by weighted low threats
/// ([`LOW_THREAT_WEIGHTS`]): only useful threats count (not right above a cell in
/// `opp_threats`, the opponent's winning cells, which the opponent would fill first), and
/// more the nearer they are to being playable: one right above a playable cell keeps the
/// opponent out of that column.
#[inline]
pub(crate) fn threat_score<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    mv: B,
    threats: B,
    bonus: u32,
    opp_threats: B,
) -> u32 {
    debug_assert!(threats == winning_cells::<W, H, B>(pos.current() | mv, pos.mask() | mv));
    let mask = pos.mask() | mv;
    let mut score = if bonus & 4 != 0 {
        let useful = threats & !(opp_threats << 1);
        let board = Position::<W, H, B>::board();
        let above = (Position::<W, H, B>::playable(mask) << 1) & board;
        let [all, near, next] = LOW_THREAT_WEIGHTS;
        all * useful.count_ones()
            + near * (useful & above).count_ones()
            + next * (useful & (above << 1)).count_ones()
    } else {
        threats.count_ones()
    };
    if bonus & 1 != 0 {
        let good_rows = if pos.moves() % 2 == 0 {
            Position::<W, H, B>::even_rows()
        } else {
            Position::<W, H, B>::odd_rows()
        };
        score += (threats & good_rows).count_ones();
    }
    if bonus & 2 != 0 {
        score += (threats & Position::<W, H, B>::playable(mask)).count_ones();
    }
    score
}

/// The player to move's winning cells after its move in each column, by column: what
/// [`threat_score`] counts (without bonus) and what the parity bounds look for, computed
/// for all the playable columns at once the first time a stage of a node needs them
/// ([`Self::get`]) and kept for the node's other stages and its children.
///
/// The columns are computed in lanes of eight, which the compiler turns into one 512-bit
/// vector of 64-bit words where the CPU has them (with seven lanes it split the array into
/// pieces and shuffled between them: docs/search-ledger.md, "A cheaper node: the per-move threats in
/// vector lanes"). The lanes are kept in whole vectors, those past the board's last column included, each written with one full
/// store: a load of the vector cannot be forwarded from a masked store (nor from a store of
/// seven lanes and another of the eighth), and waits for the stores to reach the cache. On
/// seven columns that wait took a tenth of a 7x6 profile's samples (docs/search-ledger.md,
/// "A cheaper node: the per-move threats in vector lanes"). A full column's lane holds the
/// position's own winning cells (no move); callers read the lanes of the moves they have.
pub(crate) struct AfterEach<const W: usize, B: Bitboard> {
    lanes: [B; MAX_LANES],
    ready: bool,
}

impl<const W: usize, B: Bitboard> AfterEach<W, B> {
    /// Room for every column of a board: at most 12 columns (see [`Position`]), in whole
    /// vectors of [`LANES`].
    const FITS: () = assert!(W.div_ceil(LANES) * LANES <= MAX_LANES);

    /// Nothing computed yet.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        let () = Self::FITS;
        AfterEach {
            lanes: [B::ZERO; MAX_LANES],
            ready: false,
        }
    }

    /// The lanes of `pos`, the node's position (the same at every call), computed at the
    /// first call: one per column.
    #[inline(always)]
    pub(crate) fn get<const H: usize>(&mut self, pos: &Position<W, H, B>) -> &[B] {
        if !self.ready {
            self.compute(pos);
            self.ready = true;
        }
        &self.lanes[..Position::<W, H, B>::w()]
    }

    /// The lane of column `col`, if computed.
    #[inline(always)]
    pub(crate) fn lane(&self, col: usize) -> Option<B> {
        self.ready.then(|| self.lanes[col])
    }

    /// Eight columns at a time (a full vector of 64-bit words), the lanes past the board's
    /// last column playing no move. 128-bit words have no such vector: only the columns
    /// there are.
    #[inline(always)]
    fn compute<const H: usize>(&mut self, pos: &Position<W, H, B>) {
        let (cur, mask) = (pos.current(), pos.mask());
        let possible = pos.possible();
        let after = |mv: B| winning_cells::<W, H, B>(cur | mv, mask | mv);
        let w = Position::<W, H, B>::w();
        for first in (0..w).step_by(LANES) {
            let mut lanes = [B::ZERO; LANES];
            let n = if B::BITS <= 64 {
                // Every lane computes the same expression, the cells of the columns past the
                // last one being none (the array folds to constants): a lane computed apart
                // was written with a store of its own, which the vector's load could not be
                // forwarded from.
                let mut cols = [B::ZERO; LANES];
                if dims::is_run_time::<H>() {
                    // All the lanes in one pass, without a branch, so that the vector is
                    // built in registers rather than from lane-sized stores.
                    let low = Position::<W, H, B>::column_mask(0);
                    let h1 = Position::<W, H, B>::h() + 1;
                    for (k, c) in cols.iter_mut().enumerate() {
                        let col = first + k;
                        let (shift, keep) = if col < w {
                            (col * h1, B::ZERO.wrapping_sub(B::ONE))
                        } else {
                            (0, B::ZERO)
                        };
                        *c = (low << shift) & keep;
                    }
                } else {
                    for (k, c) in cols.iter_mut().enumerate().take(w - first) {
                        *c = Position::<W, H, B>::column_mask(first + k);
                    }
                }
                for (t, &c) in lanes.iter_mut().zip(&cols) {
                    *t = after(possible & c);
                }
                LANES
            } else {
                // The array of columns made 128-bit boards 15 % slower.
                let n = LANES.min(w - first);
                for (k, t) in lanes.iter_mut().enumerate().take(n) {
                    *t = after(possible & Position::<W, H, B>::column_mask(first + k));
                }
                n
            };
            self.lanes[first..first + n].copy_from_slice(&lanes[..n]);
        }
    }
}

/// Columns computed together by [`AfterEach`].
pub(crate) const LANES: usize = 8;

/// Lanes held by [`AfterEach`]: two vectors, for up to 16 columns.
const MAX_LANES: usize = 2 * LANES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_first() {
        assert_eq!(column_order::<7>(), [3, 2, 4, 1, 5, 0, 6]);
        let mut o = column_order::<8>();
        o.sort();
        assert_eq!(o, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(column_order::<1>(), [0]);
        assert_eq!(centre_order(8), column_order::<8>().to_vec());
        assert_eq!(centre_order(7), column_order::<7>().to_vec());
    }

    /// Every column's lane against [`winning_cells`] after that column's move (or none, in a
    /// full column), on positions of boards of one vector, of more than one, and of 128-bit
    /// words.
    fn check_after_each<const W: usize, const H: usize, B: Bitboard>(seed: u64) {
        let mut s = seed;
        for _ in 0..200 {
            let mut p = Position::<W, H, B>::new();
            let target = crate::position::xorshift(&mut s) % (W * H) as u64;
            while (p.moves() as u64) < target && p.play_random_quiet(&mut s) {}
            let mut after = AfterEach::<W, B>::new();
            assert_eq!(after.lane(0), None);
            let lanes = after.get(&p).to_vec();
            assert_eq!(lanes.len(), W);
            for (col, &lane) in lanes.iter().enumerate() {
                let mv = p.possible() & Position::<W, H, B>::column_mask(col);
                let want = winning_cells::<W, H, B>(p.current() | mv, p.mask() | mv);
                assert_eq!(lane, want, "{p:?}, column {col}");
                assert_eq!(after.lane(col), Some(want));
            }
        }
    }

    #[test]
    fn after_each_holds_each_columns_winning_cells() {
        check_after_each::<7, 6, u64>(1);
        check_after_each::<8, 7, u64>(2);
        check_after_each::<5, 4, u64>(3);
        check_after_each::<10, 4, u64>(4);
        check_after_each::<9, 7, u128>(5);
        check_after_each::<12, 9, u128>(6);
    }

    #[test]
    fn list_sorts_stably() {
        let mut l = MoveList::<7, u64>::new();
        l.rank(&[1, 0, 2, 4, 8, 0, 16], &[0, 9, 5, 0, 5, 9, 1], 7);
        assert_eq!(l.as_slice(), &[2, 8, 16, 1, 4]);
        l.rank(&[0; 7], &[3; 7], 7);
        assert_eq!(l.as_slice(), &[] as &[u64]);
        // Against a stable sort, on random scores and moves.
        let mut s = 7u64;
        for _ in 0..1000 {
            let mut moves = [0u64; 7];
            let mut scores = [0u32; 7];
            for i in 0..7 {
                let r = crate::position::xorshift(&mut s);
                moves[i] = if r % 3 == 0 { 0 } else { 1 << i };
                scores[i] = (r >> 8) as u32 % 5;
            }
            let mut want: Vec<(u32, u64)> = (0..7)
                .filter(|&i| moves[i] != 0)
                .map(|i| (scores[i], moves[i]))
                .collect();
            want.sort_by_key(|a| std::cmp::Reverse(a.0));
            l.rank(&moves, &scores, 7);
            let want: Vec<u64> = want.into_iter().map(|(_, m)| m).collect();
            assert_eq!(l.as_slice(), &want[..], "{moves:?} {scores:?}");
        }
    }
}
