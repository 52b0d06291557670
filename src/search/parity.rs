//! The parity (zugzwang) rules: pure functions of a position's bitboards that bound its
//! score without a search, from a strategy one player can follow to the end of the game.
//!
//! The node calls them before its search (`Searcher::parity_bounds`, in `bounds.rs`). With an
//! even number of empty cells, the player to move (the leader) may be followed up by the other
//! (the follower): [`follow_up_bound`] is an upper bound of the leader's score, and
//! [`follow_up_after_each`] gives the same bound after each move of a player who then follows
//! up. With an odd number, [`odd_threat_bound`] is a lower bound of the follower's score when
//! the leader must at last play under a threat of the follower (zugzwang). Each bound comes
//! from a strategy of the follower that works against any play of the leader. The sections
//! below give the arguments as lemmas with proofs, in the terms of the code; the functions
//! point to them. Follow-up, claim-even and aftereven come from Allis' thesis ("A
//! knowledge-based approach of connect-four", 1988).
//!
//! # Terms
//!
//! The board is `W` x `H`, in the layout of `crate::position`: cell (`col`, `row`) is bit
//! `col * (H + 1) + row`, row 0 at the bottom, with one spare bit above each column. No set of
//! cells here holds a spare bit. A column's empty cells are a run from its lowest empty cell
//! up to its top cell (row `H - 1`). A column is even or odd by its number of empty cells. The
//! number of odd columns has the parity of the number of empty cells.
//!
//! The follower's rows are those with an even number of rows above them (`H - 1`, `H - 3`,
//! ...: `Position::follower_rows`), the top row among them. The others are the leader's rows
//! (`Position::leader_rows`). The lowest empty cell of a column with `e` empty cells has
//! `e - 1` cells above it, so:
//!
//! **Lemma 0.** The lowest empty cell of an even column is on a leader's row, that of an odd
//! column on a follower's row. Up a column, the two kinds of rows alternate.
//!
//! Scores are the search's (`super`, *Scores*): a win with the game's `m`-th stone scores
//! `(W * H + 2 - m) / 2`, rounded down, for the winner, and the negation for the loser. With
//! `e = W * H - m` cells still empty after the winning stone, that is `1 + e / 2`, rounded
//! down, which grows with `e`:
//!
//! **Lemma S.** A player that wins with at least `e` cells empty after its winning stone
//! scores at least `1 + e / 2`, and its opponent at most `-1 - e / 2` (rounded down; `e` is
//! even where the leader's bounds use it). A player that never wins scores at most 0.
//!
//! Two bit tricks recur. `Position::playable(mask)`, `(mask + bottom) & board`, is the lowest
//! empty cell of each column that has one: a full column carries into its spare bit, which
//! `board` drops. And let `x` be a set of empty cells, at most one per column. In
//! `empty + x`, each cell of `x` carries up through the run of empty cells above it into the
//! spare bit, where the carry stops (that bit is 0 in `empty`). This clears the cell of `x` and
//! those above it, and sets the spare bit, which `& board` drops. So
//! `empty ^ ((empty + x) & board)` holds each cell of `x` and every cell above it. With `x` the
//! lowest empty cells of the odd columns ([`odd_lowest`]: the playable cells on the follower's
//! rows, by Lemma 0), these are the empty cells of the odd columns ([`empty_and_odd`]). With
//! `x` the lowest sure threat of each column, these are the cells the threats cut off
//! ([`sure_threats`]). This is why the threats handed to these functions must be empty cells.
//!
//! # The follower's strategy
//!
//! The leader is to move and the number of empty cells is even, so the odd columns are even
//! in number. Under a follow-up, the follower answers each stone of the leader with a stone
//! of its own, in one of two ways ([`follow_up_way`]). Each way is named by `free`, the empty
//! cells of the odd columns that the leader may get:
//!
//! - Open (`free`: every empty cell of the odd columns, `odd` of [`empty_and_odd`]). A stone
//!   of the leader is answered on top of it, in its column. A stone that fills its column is
//!   answered with the lowest empty cell of another column that is odd at that moment.
//! - Pairs (`free`: the lowest empty cell of each odd column, [`odd_lowest`]). The odd columns
//!   are paired once and for all. A stone in a column that is odd at that moment is answered
//!   with the lowest empty cell of its partner. Any other stone is answered on top of it.
//!
//! **Lemma 1 (the follower always has its answer).** After each answer, every column that was
//! even at the start is still even, and every odd column was odd at the start. In the open way
//! the odd columns are even in number. In the pairs way, each odd column and its partner still
//! have all the empty cells they had at the start.
//!
//! *Proof*, by induction over the leader's stones. Say the leader plays in column `x`. Open
//! way: if `x` has a cell left, the follower takes it; `x` loses two cells and no column
//! changes parity. Otherwise the stone took `x`'s last cell. Then `x` had one empty cell, so it
//! was odd, and it is now full (even). The odd columns are now odd in number, so at least one
//! is left. The follower takes the lowest empty cell of one of them, which makes it even. There
//! are two odd columns fewer, and no new one. Pairs way: if `x` is even, it has at least two
//! empty cells (an even column that is not full), so the answer on top exists and no column
//! changes parity. If `x` is odd, then `x` and its partner `y` are as at the start. The stone
//! is on `x`'s lowest empty cell, and `y` still has an odd number of empty cells, so at least
//! one: the follower takes the lowest. Both columns become even; the other pairs are untouched.
//!
//! **Lemma 2 (who takes which cells).** Every cell the leader takes on a follower's row is in
//! `free`. The follower takes a cell on a leader's row only in the open way, and then in a
//! column that was odd at the start, whose empty cells are all in `free`.
//!
//! *Proof.* The leader's stone takes the lowest empty cell of its column. In a column even at
//! that moment, that cell is on a leader's row (Lemma 0), and the cell on top of it is on a
//! follower's row. In a column odd at that moment, the cell is on a follower's row, and the
//! column was odd at the start (Lemma 1). In the open way every empty cell of that column is
//! in `free`. In the pairs way the column is as at the start, and its lowest empty cell is in
//! `free`. The follower's other answers (an odd column entered, a partner's cell) take the
//! lowest empty cell of an odd column, on a follower's row. So the follower takes a cell on a
//! leader's row only on top of a leader's stone in an odd column, and the pairs way never
//! answers such a stone on top.
//!
//! # The leader's fours
//!
//! By Lemma 2, every cell the leader may take is one of its stones, an empty cell on a
//! leader's row, or a cell of `free`. These cells, less the cells cut off by the follower's
//! sure threats (*Sure threats* below), are `cells` in [`follow_up_way`]. If they hold no four,
//! the leader never wins. Up a column, the open way allows a finer check.
//!
//! **Lemma 3 (the leader never gets two cells of a column in a row).** In the open way, a four
//! of the leader up a column is three of its stones at the top of a column and the lowest
//! empty cell above them (or four of its stones: a four made already).
//!
//! *Proof.* In the open way, the stone that follows a leader's stone in its column is the
//! follower's answer on top of it, unless the column is full. So no stone the leader plays
//! under the strategy lies right on top of another that it plays. The cells of a four up a
//! column that are empty now are consecutive, above the cells of the four that hold stones
//! now. Two such cells would be two stones the leader plays, one right on top of the other. So
//! the four has at most one empty cell, and that cell is right above three stones, which must
//! be the leader's: it is the column's lowest empty cell.
//!
//! So [`column_fours`] keeps, of `cells`, the leader's stones and the playable cells
//! (`Position::playable`). `has_four_split` looks for fours up a column there, and for the
//! other fours in all of `cells`. In the pairs way, the leader may take the lowest empty cell
//! of an odd column (which is answered in another column) and then the cell right above it.
//! So fours up a column are looked for in all of `cells`.
//!
//! # Sure cells
//!
//! The sure cells of a way are the empty cells on the follower's rows outside `free`. With the
//! follower's stones, they are `sure` in [`follow_up_way`].
//!
//! **Lemma 4 (the follower gets its sure cells).** The leader never takes a sure cell. Right
//! below a sure cell `s` is an empty cell `b` on a leader's row, and the follower takes `s`
//! right after the leader takes `b`. Until then, the cells above `s` are empty.
//!
//! *Proof.* The first claim is Lemma 2. The cell `s` is not the lowest empty cell of its
//! column: in an even column that cell is on a leader's row (Lemma 0), and an odd column has
//! all its cells in `free` in the open way, its lowest one in the pairs way. So `b` is empty,
//! on a leader's row. It is not in `free`: in the open way, `s`'s column is even, and in the
//! pairs way, `free` lies on the follower's rows. So by Lemma 2 the follower never takes `b`,
//! and the leader does. The leader's stone on `b` is then the lowest empty cell of its column,
//! on a leader's row, so the column is even at that moment (Lemma 0), and in either way the
//! stone is answered on top: with `s`. Nothing is played above `s` before `s`.
//!
//! So the follower gets every sure cell that is filled before the game ends.
//!
//! # Sure threats
//!
//! A sure threat is a sure cell that completes a four with the follower's stones: a cell of
//! `follower_threats` on the follower's rows, outside `free`. In each column that has one, let
//! `t` be the lowest one and `b` the cell right below it. The set `cut` holds each such `t` and
//! the cells above it ([`sure_threats`]).
//!
//! **Lemma 5 (the threats end the game first).** When the leader takes some `b`, the follower
//! takes the `t` above it at once and wins. So the game ends before the leader takes any cell
//! of `cut`.
//!
//! *Proof.* The follower keeps its stones, so `t` completes a four whenever it is taken. By
//! Lemma 4 the follower takes `t` right after the leader takes `b`. Nothing above `t` is filled
//! before `t`.
//!
//! So the cells the leader may take before the game ends are
//! `cells = leader | (empty & leader_rows & !cut) | free`. No cell of `free` is cut: in the
//! open way no odd column has a sure cell, and in the pairs way `free` lies below the sure
//! cells.
//!
//! **Lemma 6 (the cells left empty).** Suppose the leader never wins and there is a sure
//! threat. Let `n` be the number of columns with one (`lowest` in the code holds one cell per
//! column). Then the game ends with the follower's win, with at least `left = |cut| + n - 2`
//! cells empty after the winning stone. By Lemma S the leader's score is at most
//! `-1 - left / 2`.
//!
//! *Proof.* The board cannot fill up while a `t` is empty, and the leader does not win, so the
//! game ends with the follower's win. Only the leader takes a `b` (Lemma 4), so until it takes
//! a first one, every `b`, every `t` and every cell above a `t` is empty. In a column whose
//! `t` is on row `r`, that is `H - r` cells of `cut` and the cell `b`, so `|cut| + n` cells in
//! all. When the leader takes the first `b`, the follower takes its `t` and wins (Lemma 5).
//! These two stones fill two of those cells, and `left` are still empty. If the game ends
//! before, more are empty. Each column gives `H - 1 - r` cells, an even number since `r` is a
//! follower's row, plus two. So `left` is even, and at least 0.
//!
//! In the code, all the threats are on the follower's rows, so two threats in one column are
//! an even number of rows apart, from 2 to `H - 1`. A threat is the lowest of its column when
//! no threat lies 2, 4, ... rows below it. The shift up by `k` takes only the threats on the
//! rows below `H - k`, which stay in their column. On boards of odd height, a threat shifted
//! out of the top of a column would land on a row of the same parity in the next column, and
//! could remove a lowest threat there. `cut` is the bit trick of *Terms*.
//!
//! The bound uses `above`, which is `left` capped at `(H - 1) & !1`: the most cells one
//! column has above a follower's row (above its lowest one, row `(H - 1) % 2`). A smaller
//! count of empty cells claims less, so the bound stays sound. Only threats in two columns or
//! more can exceed the cap. The cap keeps every follow-up bound at least `-reach`, with
//! `reach = H.div_ceil(2)` (`-1 - ((H - 1) & !1) / 2` is `-reach`). It also keeps every lower
//! bound of the follower from it at most `reach`. The window guards of
//! `Searcher::parity_bounds` assume this: they skip a follow-up bound only where
//! `alpha < -reach` (the leader's upper bound) or `beta > reach` (the follower's lower bound),
//! where such a bound cannot close the window. Without the cap, a guard could skip a bound
//! beyond `reach` that would have decided the node. That would still be sound, but the guards
//! would no longer be exact: the node is decided by the parity bounds exactly when one of
//! the bounds decides it.
//!
//! # The follower's sure fours
//!
//! **Lemma 7.** Suppose the leader never wins, and the follower's stones and the sure cells on
//! the rows up to a follower's row `r` hold a four `F`. Then the follower wins with at least
//! `k = H - 1 - r` cells empty, and the leader scores at most `-1 - k / 2`. Here `k` is even.
//! It is 0, a score of -1, for the top row, where `F` may use every sure cell.
//!
//! *Proof.* If the board filled up, the follower would hold all of `F` (Lemma 4), a four. So
//! the game ends with the follower's win (the leader never wins), at the latest when `F` is
//! complete. Each empty cell of `F` is
//! on row `r` or below, so it has at least `k` cells above it, which are empty while it is. If
//! `F` is not complete when the game ends, one of its empty cells and the cells above it are
//! still empty. If it is complete, the game ends with the stone on its last empty cell, and
//! the cells above that one are empty.
//!
//! [`sure_four_value`] looks at the follower's rows from the top one down and keeps the last
//! row with such a four (the lowest, for the largest `k`). The open way takes the top row's
//! bound only (-1).
//!
//! # The follow-up bound
//!
//! In either way, suppose the leader's stones and `cells` hold no four (up a column: see *The
//! leader's fours*), or the aftereven rule holds (below; pairs way only). Then the leader
//! never wins, and scores at most 0. It scores at most -1 if the follower's stones and sure
//! cells hold a four (Lemma 7 with the top row: the board fills up). Lemma 7 with lower rows
//! (pairs way only) and Lemma 6 lower the bound. The follower may choose either way, so the
//! bound of either way is sound. The pairs way's `free` lies within the open way's, so in the
//! pairs way the follower is sure of more cells and more threats, and `cut` and `left` are no
//! smaller. Where both ways give a bound, the pairs way's is the lower, and
//! [`follow_up_value`] takes it.
//!
//! # Covered cells
//!
//! Let the leader's fours be those within `cells`, with those up a column within `up` (both as
//! in [`follow_up_way`]). A sure cell `s` is covered when every leader's four holds a cell of
//! `s`'s column above `s`. In the code: when `cells` and `up`, less the cells above `s`, hold
//! no four ([`aftereven`]).
//!
//! **Lemma 8 (covered is monotone up a column).** If a sure cell is not covered, no sure cell
//! above it in its column is covered.
//!
//! *Proof.* A cell `s'` above `s` has fewer cells above it than `s`. So `cells` and `up` less
//! the cells above `s'` contain `cells` and `up` less the cells above `s`, which hold a four.
//! Then the larger sets hold that four too.
//!
//! So [`aftereven`] scans each column from its lowest sure empty cell up, and stops at the
//! first cell that is not covered. `open & open.wrapping_neg()` is the lowest bit left: the
//! lowest cell left in the leftmost column left. `(cell << 1) - 1` holds every bit up to that
//! cell, so `column & !((cell << 1) - 1)` holds the cells of its column above it. A cell of
//! the top row has nothing above it, so it is covered only if the leader has no four at all,
//! and then the rule is not needed. The scan leaves the top row out.
//!
//! # Aftereven
//!
//! **Lemma 9 (Allis' aftereven).** If the follower's stones and covered cells hold a four `F`,
//! the leader never wins.
//!
//! *Proof.* The empty cells of `F` are sure, and covered. A four the leader could complete
//! lies within `cells`, up a column within `up` (*The leader's fours*, Lemma 5). So for each
//! empty cell `s` of `F`, it holds a cell of `s`'s column above `s`, which is filled after `s`.
//! So if it is ever completed, that is after every empty cell of `F` is filled. These cells
//! are the follower's (Lemma 4), so by then the follower has completed `F` and won.
//!
//! Lemmas 6 and 7 need only that the leader never wins, so they then give the bound as when
//! the leader has no four. `F` lies within the sure cells, so the bound is at most -1. The
//! rule is checked in the pairs way only, the way that decides where both ways give a bound.
//!
//! **Lemma 10 (the row test).** A sure cell `s` on row `r` is covered only if `cells` and `up`
//! on rows 0 to `r` hold no four, since those rows hold none of the cells above `s`.
//!
//! So the covered cells are among the sure empty cells on the rows that pass this test, and
//! Lemma 9 needs a four within the follower's stones and those cells ([`aftereven_may`]). It
//! also needs a four within `sure` (`four < 0`), and it is of use only where the leader has a
//! four. Where these tests fail, [`aftereven`] fails or is not needed, so the lanes need not
//! run it.
//!
//! # The odd threat
//!
//! Now the number of empty cells is odd, the leader is to move, and the follower holds a
//! threat `t` (an empty cell that completes a four with its stones) in an odd column `c`, on a
//! leader's row. The lowest empty cell of `c` is on a follower's row (Lemma 0). So `t` is above
//! it, and the cell right below `t` is empty, on a follower's row. The odd columns are odd in
//! number, so those other than `c` are even in number. The follower's strategy: in `c` and in
//! the even columns, answer on top; play the other odd columns in one of the two ways of *The
//! follower's strategy*, never entering `c`.
//!
//! **Lemma 11.** The follower always has its answer. In `c`, the leader takes only cells on
//! the follower's rows below `t` (`mine` in [`odd_threat_bound`]). If the leader never wins,
//! the follower wins with `t` at the latest, with at least the cells above `t` empty.
//!
//! *Proof.* Lemma 1 holds as before for the columns other than `c`: in the open way, the
//! follower enters one of the other odd columns, which are even in number after each answer.
//! In `c` the leader always plays first, since the follower never enters `c`. So the leader
//! takes the cells on the follower's rows (those of `c`'s lowest empty cell) and the follower
//! the cells above them, until the leader takes the cell below `t` and the follower takes `t`
//! and wins. Until then, every stone of the leader in `c` has a cell above it, so the answer on
//! top exists. The board cannot fill up while `t` is empty, so if the leader never wins, the
//! game ends with the follower's win, by the time it takes `t`. The cells above `t` are still
//! empty then.
//!
//! So the leader's cells are its stones, `mine`, and outside `c` those of the way, less the
//! cells cut off by the follower's sure threats in the other columns (Lemmas 4 and 5 hold
//! there as before). In the open
//! way the leader never gets two cells of a column in a row, in `c` too (each of its stones
//! there is answered on top), so [`column_fours`] applies as in Lemma 3. In the pairs way,
//! fours up a column are looked for in all of the leader's cells. If either way leaves the
//! leader no four, and `a` cells lie above `t`, the follower scores at least `1 + a / 2`
//! (Lemma S).
//!
//! In the code, only the lowest such threat of each column is tried: a higher one has fewer
//! cells above it and gives the leader more cells below it, so it proves no more. In the open
//! way (`free` is `odd`), `sure_threats` leaves `c` out, since all of `c` is in `free`. In the
//! pairs way (`free` is `lowest`), it takes the threats on the follower's rows of `c` above
//! `c`'s lowest cell as sure, although the leader takes those cells in `c`. The cells they cut
//! off are all in `c`, and `& !col` drops them with the rest of `c`. The cell `t` is above
//! `c`'s lowest empty cell, so it is at least on row `(H - 1) % 2 + 1`, and the bound is at
//! most `reach - 1` (`reach` as in *Sure threats*), as the window guards of
//! `Searcher::parity_bounds` assume.

use crate::bitboard::Bitboard;
use crate::ordering::LANES;
use crate::position::{has_four, has_four_split, Position};

/// The empty cells of the board `mask`, and those of them in the odd columns (columns with an
/// odd number of empty cells): `empty ^ ((empty + odd_lowest) & board)`, the bit trick of the
/// module doc's *Terms*.
#[inline]
pub(super) fn empty_and_odd<const W: usize, const H: usize, B: Bitboard>(mask: B) -> (B, B) {
    let empty = Position::<W, H, B>::board() & !mask;
    // Adding a column's lowest empty cell to its run of empty cells carries through the run
    // into the spare bit, which `board` drops: left are the empty cells of the other columns.
    (
        empty,
        empty ^ ((empty + odd_lowest::<W, H, B>(mask)) & Position::<W, H, B>::board()),
    )
}

/// The lowest empty cell of every odd column of the board `mask`: the playable cells on the
/// follower's rows (`Position::follower_rows`; module doc, Lemma 0).
#[inline(always)]
pub(super) fn odd_lowest<const W: usize, const H: usize, B: Bitboard>(mask: B) -> B {
    Position::<W, H, B>::playable(mask) & Position::<W, H, B>::follower_rows()
}

/// The follow-up (claim-even) bound: an upper bound of the score of the leader (stones
/// `leader`), to move in a position with an even number of empty cells (board `mask`), when
/// the follower (stones `follower`) follows it up; `None` when the leader may still make four
/// under both ways of playing the odd columns. `follower_threats` are the follower's winning
/// cells (empty cells that complete a four with its stones).
///
/// The bound is 0 when the leader never wins, -1 or less when the follower is sure to make
/// four, and `-1 - k / 2` when it is sure to win with `k` cells still empty. The argument is
/// the module doc's, from *The follower's strategy* to *Aftereven*; the bound is that of the
/// follower's better way ([`follow_up_value`]).
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

/// Of the cells `cells` the leader may get in the open way of [`follow_up_way`] (its stones
/// `leader` among them, `mask` the board), those that can be in a four up a column: its
/// stones and the lowest empty cell of each column. The leader never gets two cells of a
/// column in a row, so such a four is three of its stones and the empty cell right above them
/// (module doc, Lemma 3).
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
/// follower's winning cells after its move in column `c` (`AfterEach`). For boards of
/// 64-bit words and at most [`LANES`] columns.
///
/// Every lane computes the same expression without a branch, those past the last column on
/// no move (as in `AfterEach::compute`), which the compiler turns into vector
/// instructions. One move after another, the early exits of each bound mispredicted, and
/// the branch-free pass over all the columns is faster (docs/search-ledger.md, "Branch-free bounds and
/// move list").
#[inline(always)]
pub(super) fn follow_up_after_each<const W: usize, const H: usize, B: Bitboard>(
    leader: B,
    follower: B,
    mask: B,
    tried: B,
    after: &[B],
) -> ([i32; LANES], u32) {
    let w = Position::<W, H, B>::w();
    debug_assert!(B::BITS <= 64 && w <= LANES);
    let (mut moves, mut threats) = ([B::ZERO; LANES], [B::ZERO; LANES]);
    for k in 0..w {
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

/// [`follow_up_bound`]'s bound, or [`NO_BOUND`]: the better (lower) of the two ways the
/// follower may play the odd columns ([`follow_up_way`]; where both give a bound, the pairs
/// way's: module doc, *The follow-up bound*); and, where there is none, whether the pairs way
/// with the [`aftereven`] check might give one.
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

/// The follow-up bound under one way of playing the odd columns, or [`NO_BOUND`]; and
/// whether the [`aftereven`] check might give one (see below). `empty` holds the board's
/// empty cells. `free` holds the empty cells of the odd columns that the leader may get (module
/// doc, *The follower's strategy*):
/// - the open way (`pairs` false), every one of them (`odd` of [`empty_and_odd`]): the
///   follower answers on top, and when the leader fills a column, takes the lowest empty cell
///   of another odd column;
/// - the pairs way (`pairs` true), their lowest cells ([`odd_lowest`]): the follower pairs the
///   odd columns, answers the lowest cell of one with the lowest cell of its partner, and
///   answers on top elsewhere.
///
/// `cells` are the cells the leader may get before the game ends, less those cut off by the
/// follower's sure threats (*Sure threats*); `up`, those that may be in its fours up a column
/// (*The leader's fours*); `sure`, the follower's stones and its sure cells (*Sure cells*).
/// With no four of the leader, the value is 0 lowered by the follower's sure fours (*The
/// follower's sure fours*: [`sure_four_value`] in pairs, the top row only in the open way) and
/// by its sure threats ([`sure_threats`]). In pairs with `aftereven`, the [`aftereven`] rule
/// may stand for the absence of a leader four. The second value, computed with `aftereven` or
/// without it: in pairs, whether the rule might hold ([`aftereven_may`]) where the leader has
/// a four and the follower a sure four.
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
    // In pairs the leader may get an odd column's lowest cell and the one above it, so its
    // fours up a column are looked for in all of `cells`.
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

/// A test that the [`aftereven`] check must pass to hold, by rows only (module doc, Lemma 10),
/// computed without a branch on the cells, for the lanes. A sure empty cell (of `sure` and
/// `empty`) on row `r` is covered only if the leader has no four within `cells` (`up` up a
/// column) on rows 0 to `r`, since such a four has no cell above it. The test: whether the
/// follower's stones and the sure empty cells on the rows that pass this hold a four.
#[inline(always)]
pub(super) fn aftereven_may<const W: usize, const H: usize, B: Bitboard>(
    cells: B,
    up: B,
    sure: B,
    empty: B,
) -> bool {
    let mut rows = B::ZERO;
    for r in follower_rows_below_top(Position::<W, H, B>::h()) {
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

/// Allis' aftereven rule, for [`follow_up_way`] (module doc, *Covered cells* and
/// *Aftereven*): whether the follower's stones and its covered sure cells hold a four, which
/// keeps the leader from every four within `cells` (up a column: within `up`). `sure` holds
/// the follower's stones and sure cells, `empty` the empty cells.
///
/// A sure empty cell is covered when every four within `cells` holds a cell of its column
/// above it: when `cells` and `up` without the cells above it hold no four. Each column is
/// scanned from the bottom up until a cell is not covered, since no cell above one that is
/// not is (Lemma 8). The top row is left out: its cells have nothing above them and are
/// never covered while the leader has a four.
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

/// The leader's bound from the fours of the follower within its stones `follower` and its sure
/// cells (`sure`, which holds both: see [`follow_up_way`]), valid when the leader never wins
/// (module doc, Lemma 7): 0 when they hold no four; else `-1 - k / 2`, with `k = H - 1 - r`
/// for the lowest follower's row `r` such that the stones and the sure cells on rows 0 to `r`
/// hold a four (-1 for the top row: the board fills up). `k` is even.
#[inline(always)]
pub(super) fn sure_four_value<const W: usize, const H: usize, B: Bitboard>(
    follower: B,
    sure: B,
) -> i32 {
    let mut v = -i32::from(has_four::<W, H, B>(sure));
    let h = Position::<W, H, B>::h();
    for r in follower_rows_below_top(h).rev() {
        // The sure cells with at least `k` cells above them, those of row `r` and below.
        let k = (h - 1 - r) as i32;
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
pub(super) fn follower_rows_below_top(h: usize) -> std::iter::StepBy<std::ops::Range<usize>> {
    ((h - 1) % 2..h - 1).step_by(2)
}

/// The follower's sure threats under a follow-up (module doc, *Sure threats*): the cells of
/// `follower_threats` (which must be empty cells of `empty`) on the follower's rows outside
/// `free` (see [`follow_up_way`]). The game ends with the follower's win before the leader
/// gets a column's lowest sure threat or a cell above it (Lemma 5). Returns `cut`, the lowest
/// sure threat of each column and every cell above it; and Lemma 6's `left`: if the leader
/// never wins, at least that many cells are empty when the game ends. The count is capped at
/// `(H - 1) & !1`, the most cells a column has above a follower's row (the window guards'
/// limit; module doc, *Sure threats*), and is 0 without a threat.
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
    let h = Position::<W, H, B>::h();
    let mut lowest = threats;
    let mut k = 2;
    while k < h {
        lowest &= !((threats & Position::<W, H, B>::rows_below(h - k)) << k);
        k += 2;
    }
    let cut = empty ^ ((empty + lowest) & Position::<W, H, B>::board());
    // Until the leader plays under a column's lowest threat, the cut cells and the cell
    // below each lowest threat are empty; that stone and the follower's winning one on the
    // threat fill two of them (Lemma 6). At most as many as one column may leave above a
    // threat (`H - 2` or `H - 1`), which the parity bounds' window guards assume (`reach` in
    // `Searcher::parity_bounds`).
    let left = (cut.count_ones() + lowest.count_ones()) as i32 - 2;
    let above = left.clamp(0, ((h - 1) & !1) as i32);
    (cut, above)
}

/// The odd-threat (zugzwang) bound: a lower bound of the follower's score in a position with
/// an odd number of empty cells (board `mask`) where the leader (stones `leader`) is to move;
/// or `None`. `follower_threats` are the follower's winning cells (empty cells that complete
/// a four with its stones).
///
/// The follower needs a threat `t` on a leader's row in an odd column, such that the leader
/// has no four in one of the two ways of playing the other odd columns. The follower answers
/// on top in `t`'s column, so the leader must at last play under `t`, and the follower wins
/// with at least the `a` cells above `t` still empty: the bound is `1 + a / 2`, the best over
/// each column's lowest such threat (module doc, *The odd threat*).
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
