//! Positions: the Tromp bitboard, its exact key, its mirror image and the move-string format.
//!
//! This module owns everything that is a fact of the board alone: which cells are taken, whose
//! turn it is, which moves are legal, which cells would complete a four, and how a position is
//! written down. It knows nothing of scores beyond the rule that turns a win into one, nor of
//! the table or the search.
//!
//! # Bit layout
//!
//! A `W` x `H` board is stored column-major with one spare bit on top of every column, so bit
//! `col * (H + 1) + row` is the cell of column `col` (0 = leftmost) and row `row`
//! (0 = bottom). For the default 7 x 6 board:
//!
//! ```text
//!   .  .  .  .  .  .  .      <- spare row, always 0 in `mask` and `current`
//!   5 12 19 26 33 40 47
//!   4 11 18 25 32 39 46
//!   3 10 17 24 31 38 45
//!   2  9 16 23 30 37 44
//!   1  8 15 22 29 36 43
//!   0  7 14 21 28 35 42
//! ```
//!
//! Two words describe a position: `mask` has a bit for every stone, `current` one for every
//! stone of the side to move. The exact key is `current + mask`. A column of `h` stones is
//! `2^h - 1` in `mask`, and its stones of the side to move are some `c < 2^h` in `current`,
//! so the column's part of the key is `2^h - 1 + c`: columns of different heights fall in
//! the disjoint ranges `2^h - 1 ..= 2^(h+1) - 2`, the sum never carries out of the column's
//! `H + 1` bits, and so the key fits in `W * (H + 1)` bits and no two positions share one.
//!
//! The spare row keeps shifts by `H`, `H + 1` and `H + 2` (the diagonals and the rows) from
//! wrapping one column's top into the next column's bottom.
//!
//! # Words
//!
//! The third parameter `B` of [`Position<W, H, B>`] is the word the bitboards live in (see
//! [`Bitboard`]): `u64` by default, which holds boards of `W * (H + 1) <= 64` bits (7 x 6, 8 x 7,
//! 9 x 6, ...), and `u128` for the boards up to 128 bits (9 x 7, 8 x 8, 10 x 6, 12 x 9, ...).
//! A board whose key does not fit its word, wider than 12 columns, or with fewer than one
//! row or column, is refused at compile time ([`Position::new`] evaluates the layout
//! assertions).
//!
//! # Move strings
//!
//! A move string is one character per move, first player first, naming the column
//! (1-based): the digits `1`..`9` for columns 1 to 9 and, on boards wider than 9, the letters
//! `a`, `b`, `c` (or `A`, `B`, `C`) for columns 10, 11 and 12. So on a 7-wide board "4453"
//! is unchanged from the classic format, and on a 12-wide board "6a7c" is columns 6, 10, 7,
//! 12. Letters on boards of at most 9 columns are invalid characters, as before.
//! [`column_char`] and [`format_moves`] write the format, [`Position::parse`] reads it, and
//! they round-trip.

use crate::bitboard::Bitboard;
use crate::dims::{self, RUN_W};
use std::fmt;

/// The character naming column `col` (0-based) in a move string: `1`..`9`, then `a`, `b`,
/// `c` for columns 10 to 12 (see the module docs). `None` beyond 12 columns.
pub const fn column_char(col: usize) -> Option<char> {
    match col {
        0..=8 => Some((b'1' + col as u8) as char),
        9..=11 => Some((b'a' + (col - 9) as u8) as char),
        _ => None,
    }
}

/// The move string of a line of columns (0-based), the inverse of [`Position::parse`].
/// Columns beyond 12 are written as `?`.
pub fn format_moves(cols: &[usize]) -> String {
    cols.iter()
        .map(|&c| column_char(c).unwrap_or('?'))
        .collect()
}

/// The column number (1-based) a move-string character names on a board of `width`
/// columns, whether or not it is in range; `None` for a character that names no column.
fn column_number(ch: char, width: usize) -> Option<u32> {
    match ch {
        '0'..='9' => ch.to_digit(10),
        'a'..='c' | 'A'..='C' if width > 9 => {
            Some(10 + (ch.to_ascii_lowercase() as u32 - 'a' as u32))
        }
        _ => None,
    }
}

/// The number of bits of the exact key of a `W` x `H` board: `W * (H + 1)`.
pub const fn key_bits(width: usize, height: usize) -> u32 {
    (width * (height + 1)) as u32
}

/// A Connect-4 position on a `W` x `H` board (7 x 6 by default) on bitboards of type `B`
/// (`u64` by default; `u128` for boards of more than 64 key bits, see the module docs).
///
/// `Position` is a small `Copy` value: playing a move returns or updates a position without
/// allocating. A position can be built from a move string (see [`Position::parse`]) or move
/// by move with [`Position::play`].
///
/// ```
/// use fourfold::Position;
///
/// let p: Position = "4453".parse().unwrap();
/// assert_eq!(p.moves(), 4);
/// assert_eq!(p.mirror(), "4435".parse().unwrap());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// Stones of the player to move.
    current: B,
    /// All stones.
    mask: B,
    /// Number of stones played.
    moves: u32,
}

/// Why a move string was refused. Returned by [`Position::parse`] and
/// [`Position::play_str`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    index: usize,
    kind: ParseErrorKind,
}

/// The reason a move string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A character that names no column (see the module docs for the format).
    InvalidCharacter(char),
    /// A column outside `1..=W`.
    ColumnOutOfRange(u32),
    /// A move into a column that is already full.
    ColumnFull(u32),
    /// The move completes a four: the string describes a game that is already won.
    AlreadyWon(u32),
    /// A move after the board was full.
    BoardFull,
}

impl ParseError {
    /// The 0-based index in the move string of the offending character.
    pub fn index(&self) -> usize {
        self.index
    }

    /// What was wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.index + 1;
        match &self.kind {
            ParseErrorKind::InvalidCharacter(c) => {
                write!(
                    f,
                    "invalid character {c:?} at move {at}: expected a column digit"
                )
            }
            ParseErrorKind::ColumnOutOfRange(c) => {
                write!(f, "column {c} at move {at} is out of range")
            }
            ParseErrorKind::ColumnFull(c) => write!(f, "column {c} at move {at} is already full"),
            ParseErrorKind::AlreadyWon(c) => write!(
                f,
                "move {at} (column {c}) completes a four: the game is already won there"
            ),
            ParseErrorKind::BoardFull => write!(f, "move {at} comes after the board is full"),
        }
    }
}

impl std::error::Error for ParseError {}

impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
    /// Compile-time proof that the board fits the layout: `W * (H + 1)` bits fit the word
    /// `B`, at least one row and column, at most 12 columns (one character per move, see the
    /// module docs). An even number of cells is not required.
    const LAYOUT_OK: () = {
        assert!(
            W * (H + 1) <= B::BITS as usize,
            "a W x H board needs W * (H + 1) bits: use a wider Bitboard word"
        );
        // `H == 0` only for the run-time-sized instance (`crate::dims`).
        assert!(W >= 1 && (H >= 1 || W == RUN_W));
        assert!(W <= 12, "the move-string format names at most 12 columns");
    };
    /// Board width (number of columns) of a compiled size.
    pub const WIDTH: usize = W;
    /// Board height (number of rows).
    pub const HEIGHT: usize = H;
    /// Number of cells of a compiled size.
    pub const CELLS: u32 = (W * H) as u32;
    /// Board width (number of columns): `W`, or the run-time width (`crate::dims`).
    #[inline(always)]
    pub(crate) fn w() -> usize {
        dims::width::<W, H>()
    }
    /// Board height (number of rows): `H`, or the run-time height.
    #[inline(always)]
    pub(crate) fn h() -> usize {
        dims::height::<W, H>()
    }
    /// Bits per column, spare bit included.
    #[inline(always)]
    fn h1() -> usize {
        Self::h() + 1
    }
    /// Number of cells.
    #[inline(always)]
    pub(crate) fn cells() -> u32 {
        (Self::w() * Self::h()) as u32
    }
    /// One bit at the bottom of every column, as a `u128`.
    const BOTTOM_BITS: u128 = {
        let mut b = 0u128;
        let mut c = 0;
        while c < W {
            b |= 1u128 << (c * (H + 1));
            c += 1;
        }
        b
    };
    /// Every playable cell, as a `u128`.
    const BOARD_BITS: u128 = Self::BOTTOM_BITS * ((1u128 << H) - 1);
    /// Cells of even rows, as a `u128`.
    const EVEN_ROWS_BITS: u128 = {
        let mut r = 0u128;
        let mut row = 0;
        while row < H {
            r |= Self::BOTTOM_BITS << row;
            row += 2;
        }
        r
    };
    /// One bit at the bottom of every column.
    #[inline(always)]
    pub(crate) fn bottom() -> B {
        if dims::is_run_time::<H>() {
            return B::from_u128(dims::current().bottom);
        }
        B::from_u128(Self::BOTTOM_BITS)
    }
    /// Every playable cell.
    #[inline(always)]
    pub(crate) fn board() -> B {
        if dims::is_run_time::<H>() {
            return B::from_u128(dims::current().board);
        }
        B::from_u128(Self::BOARD_BITS)
    }
    /// Cells of even rows (0, 2, 4, …; row 0 is the bottom) inside the board.
    #[inline(always)]
    pub(crate) fn even_rows() -> B {
        if dims::is_run_time::<H>() {
            return B::from_u128(dims::current().even_rows);
        }
        B::from_u128(Self::EVEN_ROWS_BITS)
    }
    /// Cells of odd rows inside the board.
    #[inline(always)]
    pub(crate) fn odd_rows() -> B {
        Self::board() & !Self::even_rows()
    }
    /// The follower's rows: those of the top row's parity (`H - 1`, `H - 3`, …). In a column
    /// with an even number of empty cells, a player who answers every move of the other on
    /// top of it in that column gets exactly its empty cells on these rows, the top one
    /// included; the other player (the leader) gets those on [`Self::leader_rows`]. On boards
    /// of even height these are the odd rows, on boards of odd height the even ones.
    #[inline(always)]
    pub(crate) fn follower_rows() -> B {
        if Self::h() % 2 == 0 {
            Self::odd_rows()
        } else {
            Self::even_rows()
        }
    }
    /// The cells of the rows below row `n` (rows `0..n`; all of the board for `n >= H`).
    #[inline(always)]
    pub(crate) fn rows_below(n: usize) -> B {
        if dims::is_run_time::<H>() {
            return B::from_u128(dims::current().rows_below[n.min(13)]);
        }
        let n = n.min(H);
        B::from_u128(Self::BOTTOM_BITS * ((1u128 << n) - 1))
    }
    /// The leader's rows: the cells of the board not on [`Self::follower_rows`].
    #[inline(always)]
    pub(crate) fn leader_rows() -> B {
        Self::board() ^ Self::follower_rows()
    }

    /// The empty board.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::LAYOUT_OK;
        Position {
            current: B::ZERO,
            mask: B::ZERO,
            moves: 0,
        }
    }

    /// Parses a move string: one character per move naming a column `1..=W` (digits, then
    /// `a`, `b`, `c` for columns 10 to 12; see the module docs), first player first. The
    /// empty string is the empty board. Surrounding white space is ignored.
    ///
    /// Refused: a character that is not a digit, a column out of range, a move into a full
    /// column, and any move that completes a four (a position in which the game is already
    /// won cannot be solved) or follows one.
    pub fn parse(moves: &str) -> Result<Self, ParseError> {
        let mut p = Self::new();
        p.play_str(moves.trim())?;
        Ok(p)
    }

    /// Plays a move string on top of this position (see [`Position::parse`]). On error the
    /// position is left as it was before the call.
    pub fn play_str(&mut self, moves: &str) -> Result<(), ParseError> {
        let mut p = *self;
        for (index, ch) in moves.chars().enumerate() {
            let digit = column_number(ch, Self::w()).ok_or(ParseError {
                index,
                kind: ParseErrorKind::InvalidCharacter(ch),
            })?;
            if digit == 0 || digit as usize > Self::w() {
                return Err(ParseError {
                    index,
                    kind: ParseErrorKind::ColumnOutOfRange(digit),
                });
            }
            let col = digit as usize - 1;
            if p.moves >= Self::cells() {
                return Err(ParseError {
                    index,
                    kind: ParseErrorKind::BoardFull,
                });
            }
            if !p.can_play(col) {
                return Err(ParseError {
                    index,
                    kind: ParseErrorKind::ColumnFull(digit),
                });
            }
            if p.is_winning_move(col) {
                return Err(ParseError {
                    index,
                    kind: ParseErrorKind::AlreadyWon(digit),
                });
            }
            p.play_col(col);
        }
        *self = p;
        Ok(())
    }

    /// Number of stones on the board.
    #[inline]
    pub const fn moves(&self) -> u32 {
        self.moves
    }

    /// Stones of the player to move.
    #[inline]
    pub fn current(&self) -> B {
        self.current
    }

    /// All stones.
    #[inline]
    pub fn mask(&self) -> B {
        self.mask
    }

    /// Stones of the player who just moved.
    #[inline]
    pub fn opponent(&self) -> B {
        self.current ^ self.mask
    }

    /// The exact key `current + mask`, unique to the position, below `2^(W * (H + 1))`.
    #[inline]
    pub fn key(&self) -> B {
        self.current + self.mask
    }

    /// True when no cell is left.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.moves >= Self::cells()
    }

    /// The mask of column `col` (0-based).
    #[inline]
    pub fn column_mask(col: usize) -> B {
        ((B::ONE << Self::h()) - B::ONE) << (col * Self::h1())
    }

    #[inline]
    fn top_mask(col: usize) -> B {
        B::ONE << (Self::h() - 1 + col * Self::h1())
    }

    #[inline]
    fn bottom_mask(col: usize) -> B {
        B::ONE << (col * Self::h1())
    }

    /// The column (0-based) of a one-bit move.
    #[inline]
    pub fn column_of(bit: B) -> usize {
        if dims::is_run_time::<H>() {
            return dims::current().column_of_bit(bit.trailing_zeros());
        }
        bit.trailing_zeros() as usize / Self::h1()
    }

    /// True when column `col` (0-based) has room.
    #[inline]
    pub fn can_play(&self, col: usize) -> bool {
        col < Self::w() && self.mask & Self::top_mask(col) == B::ZERO
    }

    /// The cell a stone dropped in each column would take, as a bitboard.
    #[inline]
    pub fn possible(&self) -> B {
        Self::playable(self.mask)
    }

    /// The cell a stone dropped in each column of the board `mask` (stones of either
    /// player) would take: [`Self::possible`] of any set of stacked columns.
    #[inline(always)]
    pub(crate) fn playable(mask: B) -> B {
        (mask + Self::bottom()) & Self::board()
    }

    /// Plays a one-bit move (a cell of [`Position::possible`]).
    #[inline]
    pub fn play(&mut self, bit: B) {
        debug_assert!(bit.count_ones() == 1 && bit & self.possible() != B::ZERO);
        self.current ^= self.mask;
        self.mask |= bit;
        self.moves += 1;
    }

    /// Plays in column `col` (0-based), which must have room.
    #[inline]
    pub fn play_col(&mut self, col: usize) {
        self.play((self.mask + Self::bottom_mask(col)) & Self::column_mask(col));
    }

    /// The position after a one-bit move.
    #[inline]
    #[must_use]
    pub fn after(&self, bit: B) -> Self {
        let mut p = *self;
        p.play(bit);
        p
    }

    /// True when playing column `col` (0-based, playable) completes a four for the player to
    /// move.
    #[inline]
    pub fn is_winning_move(&self, col: usize) -> bool {
        self.winning() & self.possible() & Self::column_mask(col) != B::ZERO
    }

    /// True when the player to move can win at once.
    #[inline]
    pub fn can_win_next(&self) -> bool {
        self.winning() & self.possible() != B::ZERO
    }

    /// Empty cells that would complete a four for the player to move.
    #[inline]
    pub fn winning(&self) -> B {
        winning_cells::<W, H, B>(self.current, self.mask)
    }

    /// Empty cells that would complete a four for the player who just moved.
    #[inline]
    pub fn opponent_winning(&self) -> B {
        winning_cells::<W, H, B>(self.opponent(), self.mask)
    }

    /// Moves of the player to move that do not hand the opponent an immediate win: a forced
    /// block when the opponent threatens one cell, nothing when it threatens two, and never a
    /// cell right below an opponent threat. The player to move must not be able to win at
    /// once (callers check [`Position::can_win_next`] first).
    #[inline]
    pub fn non_losing_moves(&self) -> B {
        self.non_losing_moves_and_threats().0
    }

    /// [`Position::non_losing_moves`], and the opponent's winning cells
    /// ([`Position::opponent_winning`]) it was computed from.
    #[inline]
    pub(crate) fn non_losing_moves_and_threats(&self) -> (B, B) {
        self.non_losing_moves_from(self.opponent_winning())
    }

    /// [`Position::non_losing_moves_and_threats`] from the opponent's winning cells
    /// `opp_win` ([`Position::opponent_winning`]), which the caller already has.
    #[inline]
    pub(crate) fn non_losing_moves_from(&self, opp_win: B) -> (B, B) {
        debug_assert!(opp_win == self.opponent_winning());
        let mut possible = self.possible();
        let forced = possible & opp_win;
        if forced != B::ZERO {
            if forced & (forced - B::ONE) != B::ZERO {
                return (B::ZERO, opp_win);
            }
            possible = forced;
        }
        (possible & !(opp_win >> 1), opp_win)
    }

    /// True when every column has an even number of empty cells (a full one included): the
    /// lowest empty cell of each column is on a leader's row ([`Self::leader_rows`]).
    #[inline]
    pub(crate) fn columns_paired(&self) -> bool {
        (self.mask + Self::bottom()) & Self::follower_rows() == B::ZERO
    }

    /// The mirror image (column `c` becomes column `W - 1 - c`); it has the same score.
    #[must_use]
    pub fn mirror(&self) -> Self {
        Position {
            current: mirror_bits::<W, H, B>(self.current),
            mask: mirror_bits::<W, H, B>(self.mask),
            moves: self.moves,
        }
    }

    /// The key of the mirror image, computed without building it.
    #[inline]
    pub fn mirror_key(&self) -> B {
        mirror_bits::<W, H, B>(self.key())
    }

    /// The opponent's stones that can be given to the player to move without changing the
    /// score: each open line of four (in the board, with an empty cell) through such a stone
    /// also holds a stone of the player to move and an *anchor*, an opponent stone on some
    /// open line free of the player to move's stones. Depends on the position only, and is
    /// mirror-symmetric. See [`Self::reduced_key`] for why recolouring them all at once is
    /// safe.
    #[inline]
    pub fn dead_stones(&self) -> B {
        let h1 = column_step::<W, H>();
        let (board, mask, mine) = (Self::board(), self.mask, self.current);
        // Lines are named by their first cell: `gather` marks the lines holding one of the
        // cells `c`, `spread` the cells of the lines `w`.
        let gather = |c: B, s: usize| c | (c >> s) | (c >> (2 * s)) | (c >> (3 * s));
        let spread = |w: B, s: usize| w | (w << s) | (w << (2 * s)) | (w << (3 * s));
        let dirs = [1, h1, h1 - 1, h1 + 1];
        let (mut open, mut with_mine) = ([B::ZERO; 4], [B::ZERO; 4]);
        let mut on_line_without_mine = B::ZERO;
        for (i, &s) in dirs.iter().enumerate() {
            open[i] = gather_all(board, s) & !gather_all(mask, s);
            with_mine[i] = gather(mine, s);
            on_line_without_mine |= spread(open[i] & !with_mine[i], s);
        }
        let theirs = mask ^ mine;
        let anchors = theirs & on_line_without_mine;
        let mut live = B::ZERO;
        for (i, &s) in dirs.iter().enumerate() {
            let blocked = with_mine[i] & gather(anchors, s);
            live |= spread(open[i] & !blocked, s);
        }
        theirs & !live
    }

    /// [`Self::canonical_key`] of the position with its [dead stones](Self::dead_stones)
    /// given to the player to move: positions that differ only there share it.
    ///
    /// Why they have the same score. Call a line of four *open* while it has an empty cell;
    /// every four still to be made lies on a line open today, and what an open line can
    /// still become depends only on which colours it holds: both (never a four), one (only
    /// that player's), none. Recolouring a dead stone `s` (the opponent's) to the player to
    /// move changes no open line's colours: each open line through `s` keeps a stone of the
    /// player to move (never recoloured) and an anchor, which is not dead (it lies on an
    /// open line free of the player to move's stones), so it keeps the opponent's colour and
    /// the line holds both colours before and after. So the same moves make the same fours.
    /// Anchors matter: two opponent stones of one line, each counted as the other's
    /// blocker, would together turn a dead line into the player to move's three.
    #[inline]
    pub fn reduced_key(&self) -> (B, bool) {
        smaller_of_mirrors::<W, H, B>((self.current | self.dead_stones()) + self.mask)
    }

    /// What [`Self::canonical_child_key`] needs, computed once for all the moves: the key of
    /// the position after a move, less the move's bit, and its mirror image.
    #[inline]
    pub(crate) fn child_base(&self) -> (B, B) {
        let k = (self.current ^ self.mask) + self.mask;
        (k, mirror_bits::<W, H, B>(k))
    }

    /// [`Self::canonical_key`] of the position after the move `bit` (a playable cell), from
    /// [`Self::child_base`]: one mirror image per position instead of one per move. The key
    /// after a move is the base plus the move's bit, and a key's columns never carry into
    /// each other, so its mirror image is the base's plus the mirrored bit.
    #[inline]
    pub(crate) fn canonical_child_key((key, mirrored): (B, B), bit: B) -> B {
        let col = Self::column_of(bit);
        let h1 = Self::h1();
        let mirrored_bit = (bit >> (col * h1)) << ((Self::w() - 1 - col) * h1);
        (key + bit).min(mirrored + mirrored_bit)
    }

    /// The smaller of [`Self::key`] and [`Self::mirror_key`], and whether it is the mirror
    /// image's: one key for a position and its mirror image, which have the same score.
    #[inline]
    pub fn canonical_key(&self) -> (B, bool) {
        smaller_of_mirrors::<W, H, B>(self.key())
    }

    /// Number of stones in column `col` (0-based).
    pub fn height(&self, col: usize) -> u32 {
        (self.mask & Self::column_mask(col)).count_ones()
    }

    /// The stone at (`col`, `row`), 0-based from the bottom left: `Some(true)` for the first
    /// player, `Some(false)` for the second, `None` for an empty cell.
    pub fn cell(&self, col: usize, row: usize) -> Option<bool> {
        let bit = B::ONE << (col * Self::h1() + row);
        if self.mask & bit == B::ZERO {
            return None;
        }
        // The first player is to move after an even number of moves.
        let current_is_first = self.moves % 2 == 0;
        Some((self.current & bit != B::ZERO) == current_is_first)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Default for Position<W, H, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize, B: Bitboard> std::str::FromStr for Position<W, H, B> {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Self::parse(s)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> fmt::Debug for Position<W, H, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} moves, key {:#x})", self.moves, self.key())
    }
}

/// Draws the board, top row first: `X` for the first player, `O` for the second, `.` empty.
impl<const W: usize, const H: usize, B: Bitboard> fmt::Display for Position<W, H, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..Self::h()).rev() {
            for col in 0..Self::w() {
                let c = match self.cell(col, row) {
                    Some(true) => 'X',
                    Some(false) => 'O',
                    None => '.',
                };
                if col > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        for col in 0..Self::w() {
            if col > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}", column_char(col).unwrap_or('?'))?;
        }
        Ok(())
    }
}

/// The step between a column's cell and its neighbour's (`H + 1`), less than 16, masked so
/// that the compiler sees it: three steps are less than 64, and a 128-bit shift by a
/// run-time amount known to be below 64 needs no code for the larger amounts (on the
/// run-time-sized instance, `crate::dims`; a compiled size's step is a constant anyway).
#[inline(always)]
fn column_step<const W: usize, const H: usize>() -> usize {
    (dims::height::<W, H>() + 1) & 15
}

/// Empty cells of the board that complete a four with the stones `p`.
#[inline]
pub(crate) fn winning_cells<const W: usize, const H: usize, B: Bitboard>(p: B, mask: B) -> B {
    let h1 = column_step::<W, H>();
    // Vertical: three stones below the cell.
    let mut r = (p << 1) & (p << 2) & (p << 3);
    // Horizontal (h1), and the two diagonals (h1 - 1, h1 + 1).
    for s in [h1, h1 - 1, h1 + 1] {
        let t = (p << s) & (p << (2 * s));
        r |= t & (p << (3 * s));
        r |= t & (p >> s);
        let t = (p >> s) & (p >> (2 * s));
        r |= t & (p << s);
        r |= t & (p >> (3 * s));
    }
    r & (Position::<W, H, B>::board() ^ mask)
}

/// True when the cells `p` (a subset of the board) contain four in a row.
///
/// On 64-bit words the four directions are all computed, with one branch at the end: an
/// exit after each direction was a branch on the cells that the CPU mispredicted, and cost
/// more than the directions it saved. On 128-bit words, where each direction takes twice
/// the instructions, the exits still pay (docs/search-ledger.md, "Branch-free bounds and move list").
#[inline]
pub(crate) fn has_four<const W: usize, const H: usize, B: Bitboard>(p: B) -> bool {
    let h1 = column_step::<W, H>();
    let mut r = B::ZERO;
    for s in [1, h1, h1 - 1, h1 + 1] {
        let m = p & (p >> s);
        r |= m & (m >> (2 * s));
        if B::BITS > 64 && r != B::ZERO {
            return true;
        }
    }
    r != B::ZERO
}

/// True when the cells `p` contain four in a row across columns (horizontally or
/// diagonally), or the cells `up` four in a column: [`has_four`] with the vertical direction
/// taken from its own set. A player who never gets two vertically adjacent empty cells (the
/// parity strategies of the search's bounds) makes a vertical four only from its stones and
/// the playable cells, while any empty cell it may get can complete another line.
#[inline]
pub(crate) fn has_four_split<const W: usize, const H: usize, B: Bitboard>(p: B, up: B) -> bool {
    let h1 = column_step::<W, H>();
    let m = up & (up >> 1);
    let mut r = m & (m >> 2);
    for s in [h1, h1 - 1, h1 + 1] {
        let m = p & (p >> s);
        r |= m & (m >> (2 * s));
        if B::BITS > 64 && r != B::ZERO {
            return true;
        }
    }
    r != B::ZERO
}

/// The smaller of the key `k` and its mirror image, and whether it is the mirror image.
#[inline]
fn smaller_of_mirrors<const W: usize, const H: usize, B: Bitboard>(k: B) -> (B, bool) {
    let m = mirror_bits::<W, H, B>(k);
    if m < k {
        (m, true)
    } else {
        (k, false)
    }
}

/// The lines of four in direction `s` (named by their first cell) whose cells are all in `c`.
#[inline]
fn gather_all<B: Bitboard>(c: B, s: usize) -> B {
    c & (c >> s) & (c >> (2 * s)) & (c >> (3 * s))
}

/// Reverses the column order of a bitboard (spare bits included).
#[inline]
fn mirror_bits<const W: usize, const H: usize, B: Bitboard>(b: B) -> B {
    let (w, h1) = (dims::width::<W, H>(), dims::height::<W, H>() + 1);
    let col = (B::ONE << h1) - B::ONE;
    let mut out = B::ZERO;
    for c in 0..w {
        out |= ((b >> (c * h1)) & col) << ((w - 1 - c) * h1);
    }
    out
}

/// Test helper: true when the cells `cells` (a bit per cell, `col * (H + 1) + row`) hold
/// four in a row on a `W` x `H` board, scanned line by line.
#[cfg(test)]
pub(crate) fn four_by_cells<const W: usize, const H: usize>(cells: u128) -> bool {
    let has = |c: i64, r: i64| {
        (0..W as i64).contains(&c)
            && (0..H as i64).contains(&r)
            && cells >> (c as usize * (H + 1) + r as usize) & 1 == 1
    };
    (0..W as i64).any(|c| {
        (0..H as i64).any(|r| {
            [(0, 1), (1, 0), (1, 1), (1, -1)]
                .iter()
                .any(|&(dc, dr)| (0..4).all(|i| has(c + i * dc, r + i * dr)))
        })
    })
}

/// Test helper: the next value of the xorshift generator whose state is `s`.
#[cfg(test)]
pub(crate) fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[cfg(test)]
impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
    /// Test helper: plays a column drawn with [`xorshift`] from `s` among those whose move
    /// does not win at once; false, having played nothing, when there is none.
    pub(crate) fn play_random_quiet(&mut self, s: &mut u64) -> bool {
        let cols: Vec<usize> = (0..Self::w())
            .filter(|&c| self.can_play(c) && !self.is_winning_move(c))
            .collect();
        if cols.is_empty() {
            return false;
        }
        self.play_col(cols[(xorshift(s) % cols.len() as u64) as usize]);
        true
    }
}

#[cfg(test)]
mod tests;
