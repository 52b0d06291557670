//! The parity (zugzwang) rules: pure functions of a position's bitboards that bound its
//! score without a search, from a strategy one player can follow to the end of the game.

use crate::bitboard::Bitboard;
use crate::ordering::LANES;
use crate::position::{has_four, has_four_split, Position};

/// The empty cells of the board `mask`, and those of them in columns with an odd number of
/// empty cells.
#[inline]
pub(super) fn empty_and_odd<const W: usize, const H: usize, B: Bitboard>(mask: B) -> (B, B) {
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
pub(super) fn odd_lowest<const W: usize, const H: usize, B: Bitboard>(mask: B) -> B {
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
pub(super) fn follow_up_bound<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn column_fours<const W: usize, const H: usize, B: Bitboard>(
    cells: B,
    leader: B,
    mask: B,
) -> B {
    cells & (leader | Position::<W, H, B>::playable(mask))
}

/// No bound: what [`follow_up_value`] gives where [`follow_up_bound`] gives `None`.
pub(super) const NO_BOUND: i32 = i32::MIN;

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
/// the branch-free pass over all the columns is faster (BENCHMARKS.md, "Branch-free bounds and
/// move list").
#[inline(always)]
pub(super) fn follow_up_after_each<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn follow_up_aftereven<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn follow_up_value<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn follow_up_way<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn aftereven_may<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn aftereven<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn sure_four_value<const W: usize, const H: usize, B: Bitboard>(
    follower: B,
    sure: B,
) -> i32 {
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
pub(super) fn follower_rows_below_top<const H: usize>() -> std::iter::StepBy<std::ops::Range<usize>>
{
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
pub(super) fn sure_threats<const W: usize, const H: usize, B: Bitboard>(
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
pub(super) fn odd_threat_bound<const W: usize, const H: usize, B: Bitboard>(
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
