//! The engine: a solver for a board size chosen at run time, taking move strings.
//!
//! This is the one entry point of every front end (the command line, the service, the
//! bindings): they turn their input into these calls and print or return what comes back, so
//! parsing, scoring and error messages live here and in the modules below, never in a front
//! end. [`Engine`] owns one [`Solver`] of the board size it was built for and dispatches each
//! call to it; it adds no search of its own.
//!
//! Board sizes: [`BoardSize::SUPPORTED`] lists the sizes the engine solves, every width 4 to
//! 12 and height 4 to 13 whose positions fit 128 bits, in every build. The sizes of
//! [`BoardSize::COMPILED`] (the standard board and the published tables' sizes; all of them
//! with the `all-boards` feature) are each a monomorphised `Solver<W, H, B>`, so the 7 x 6
//! path is the same code as calling [`Solver`] directly. The others run on the run-time-sized
//! solver of their word, the same search with the width and height read at run time instead
//! of folded into the code: the same scores and node counts, at a cost in time that
//! BENCHMARKS.md measures ("Board sizes at run time"); [`Engine::new_run_time_sized`] builds
//! it for any size, to compare.
//! Boards whose positions fit 64 bits (`W * (H + 1) <= 64`) use `u64` bitboards; larger ones
//! (9 x 7, 8 x 8, 10 x 6, ...) use `u128`, and the table gives them two-word slots (see
//! [`crate::table`]). Widths 10 to 12 write columns 10 to 12 as `a`, `b`, `c` in move strings
//! (see [`crate::position`]). A size outside these limits gets an error naming the limit
//! ([`BoardSize::unsupported_reason`]). Opening books hold 64-bit keys: `u128` boards have
//! none.

use crate::bitboard::Bitboard;
use crate::book::{self, Book, BookError, BookWord};
use crate::checkpoint::{self, CheckpointError};
use crate::dims::{self, Dims, RUN_H, RUN_W};
use crate::outcome::Outcome;
use crate::position::{ParseError, Position};
use crate::solver::{
    Analysis, BuildError, Interrupted, Solution, Solver, SolverBuilder, Step, WindowResult,
};
use crate::table::Table;
use crate::testset::{split_line, LineError};
use crate::StopFlag;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// Calls `$m! { { $args } NAME W H WORD, ... }` with every board size this build compiles: the
/// one list from which the [`Inner`] variants, the [`dispatch!`] arms, [`Engine::new`] and
/// [`BoardSize::COMPILED`] are generated. Each entry is one monomorphised `Solver<W, H, B>`,
/// which costs about a second of compile time: the default build compiles the standard board
/// and the 19 sizes of the published tables people solve (`common_boards!`); every other
/// size goes through the run-time-sized solver (`crate::dims`), and the `all-boards` feature
/// compiles the other 59 as well, so that a newcomer's first build stays short
/// (BENCHMARKS.md, "Build time").
macro_rules! common_boards {
    ($m:ident { $($args:tt)* } $($rare:tt)*) => {
        $m! {
            { $($args)* }
            // The standard board first.
            B7x6 7 6 u64,
            // The boards whose whole-board solves people run and publish (Tromp's and
            // Steininger's tables), and the two smallest, which the tests and the check-bits
            // experiment use.
            B4x4 4 4 u64,
            B5x4 5 4 u64,
            B5x7 5 7 u64,
            B5x8 5 8 u64,
            B6x6 6 6 u64,
            B6x7 6 7 u64,
            B6x8 6 8 u64,
            B7x5 7 5 u64,
            B7x7 7 7 u64,
            B8x4 8 4 u64,
            B8x5 8 5 u64,
            B8x6 8 6 u64,
            B7x8 7 8 u64,
            B8x7 8 7 u64,
            B9x5 9 5 u64,
            B9x6 9 6 u64,
            B10x4 10 4 u64,
            B10x5 10 5 u64,
            // Keys of more than 64 bits (W * (H + 1) > 64, at most 128): u128 bitboards.
            B8x8 8 8 u128,
            B9x7 9 7 u128,
            B10x6 10 6 u128,
            $($rare)*
        }
    };
}

#[cfg(not(feature = "all-boards"))]
macro_rules! with_boards {
    ($m:ident ! { $($args:tt)* }) => {
        common_boards! { $m { $($args)* } }
    };
}

/// With the `all-boards` feature: every width 4..=12 and height 4..=13 whose position fits
/// 128 bits (`W * (H + 1) <= 128`).
#[cfg(feature = "all-boards")]
macro_rules! with_boards {
    ($m:ident ! { $($args:tt)* }) => {
        common_boards! { $m { $($args)* }
            B4x5 4 5 u64,
            B6x5 6 5 u64,
            B6x4 6 4 u64,
            B5x6 5 6 u64,
            B5x5 5 5 u64,
            B4x8 4 8 u64,
            B7x4 7 4 u64,
            B4x6 4 6 u64,
            B4x7 4 7 u64,
            B4x9 4 9 u64,
            B4x10 4 10 u64,
            B4x11 4 11 u64,
            B4x12 4 12 u64,
            B4x13 4 13 u64,
            B5x9 5 9 u64,
            B5x10 5 10 u64,
            B5x11 5 11 u64,
            B6x9 6 9 u64,
            B9x4 9 4 u64,
            B11x4 11 4 u64,
            B12x4 12 4 u64,
            B5x12 5 12 u128,
            B5x13 5 13 u128,
            B6x10 6 10 u128,
            B6x11 6 11 u128,
            B6x12 6 12 u128,
            B6x13 6 13 u128,
            B7x9 7 9 u128,
            B7x10 7 10 u128,
            B7x11 7 11 u128,
            B7x12 7 12 u128,
            B7x13 7 13 u128,
            B8x9 8 9 u128,
            B8x10 8 10 u128,
            B8x11 8 11 u128,
            B8x12 8 12 u128,
            B8x13 8 13 u128,
            B9x8 9 8 u128,
            B9x9 9 9 u128,
            B9x10 9 10 u128,
            B9x11 9 11 u128,
            B9x12 9 12 u128,
            B9x13 9 13 u128,
            B10x7 10 7 u128,
            B10x8 10 8 u128,
            B10x9 10 9 u128,
            B10x10 10 10 u128,
            B10x11 10 11 u128,
            B11x5 11 5 u128,
            B11x6 11 6 u128,
            B11x7 11 7 u128,
            B11x8 11 8 u128,
            B11x9 11 9 u128,
            B11x10 11 10 u128,
            B12x5 12 5 u128,
            B12x6 12 6 u128,
            B12x7 12 7 u128,
            B12x8 12 8 u128,
            B12x9 12 9 u128,
        }
    };
}

/// Every width 4..=12 and height 4..=13 whose position fits 128 bits, the standard board
/// first.
const ALL_SIZES: [BoardSize; 81] = {
    let mut all = [BoardSize::STANDARD; 81];
    let (mut n, mut w) = (1, 4);
    while w <= 12 {
        let mut h = 4;
        while h <= 13 {
            if w * (h + 1) <= 128 && !(w == 7 && h == 6) {
                all[n] = BoardSize {
                    width: w,
                    height: h,
                };
                n += 1;
            }
            h += 1;
        }
        w += 1;
    }
    assert!(n == 81);
    all
};

macro_rules! supported_list {
    ({} $($v:ident $w:literal $h:literal $b:ty,)*) => {
        &[$(BoardSize { width: $w, height: $h },)*]
    };
}

/// A board size: width (columns) x height (rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    /// Number of columns.
    pub width: usize,
    /// Number of rows.
    pub height: usize,
}

impl BoardSize {
    /// The standard 7 x 6 board.
    pub const STANDARD: BoardSize = BoardSize {
        width: 7,
        height: 6,
    };

    /// Every size the engine solves, the standard board first: widths 4 to 12, heights 4
    /// to 13, positions of at most 128 bits (`width x (height + 1)`).
    pub const SUPPORTED: &'static [BoardSize] = &ALL_SIZES;

    /// The sizes this build compiles as solvers of their own, the standard board first
    /// (the module docs); the engine solves the others through the run-time-sized solver.
    pub const COMPILED: &'static [BoardSize] = with_boards!(supported_list! {});

    /// Number of cells.
    pub const fn cells(&self) -> u32 {
        (self.width * self.height) as u32
    }

    /// True when the engine solves boards of this size (every size in the limits).
    pub fn is_supported(&self) -> bool {
        Self::SUPPORTED.contains(self)
    }

    /// True when this build compiles a solver of this size's own ([`BoardSize::COMPILED`]);
    /// the other supported sizes are solved by the run-time-sized solver.
    pub fn is_compiled(&self) -> bool {
        Self::COMPILED.contains(self)
    }

    /// Why the engine cannot solve boards of this size (`None` when it can): a width
    /// outside 4..=12, a height outside 4..=13, or a position of more than 128 bits
    /// (`width x (height + 1)`, the widest bitboard).
    pub fn unsupported_reason(&self) -> Option<String> {
        let b = self;
        let bits = self.width * (self.height + 1);
        if self.is_supported() {
            None
        } else if !(4..=12).contains(&self.width) {
            Some(format!("board size {b}: the width must be 4 to 12 columns"))
        } else if !(4..=13).contains(&self.height) {
            Some(format!("board size {b}: the height must be 4 to 13 rows"))
        } else {
            Some(format!(
                "board size {b} needs {bits}-bit positions (width x (height + 1)); \
                 at most 128 bits are supported"
            ))
        }
    }

    /// The columns (0-based) from the centre outwards (`3 2 4 1 5 0 6` on 7 columns): the
    /// search's order and the one tie-break rule of the best move (among the columns that
    /// achieve the score, the first in this order), for drivers that combine scores of
    /// children themselves.
    pub fn centre_order(&self) -> Vec<usize> {
        crate::ordering::centre_order(self.width)
    }

    /// What an exact score of a position with `moves` stones means on this board.
    pub fn outcome(&self, score: i32, moves: u32) -> Option<Outcome> {
        Outcome::from_score(score, moves, self.cells())
    }
}

impl Default for BoardSize {
    fn default() -> Self {
        Self::STANDARD
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for BoardSize {
    type Err = Error;

    /// Reads `WxH` (for example `7x6` or `8X5`) and checks that this build supports it.
    fn from_str(s: &str) -> Result<Self, Error> {
        let bad = || {
            Error::new(ErrorKind::Board(format!(
                "board size {s:?}: expected WIDTHxHEIGHT, for example 7x6"
            )))
        };
        let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let (width, height) = (
            w.parse::<usize>().map_err(|_| bad())?,
            h.parse::<usize>().map_err(|_| bad())?,
        );
        let b = BoardSize { width, height };
        if let Some(why) = b.unsupported_reason() {
            return Err(Error::new(ErrorKind::Board(why)));
        }
        Ok(b)
    }
}

/// Why an engine call failed. [`Error::kind`] tells which; `Display` is the message every
/// front end shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// The kinds of [`Error`].
///
/// Deliberately not `#[non_exhaustive]`: every front end (the command line, the service, C,
/// Python) maps each kind to its own status, exception or failure kind with a match that
/// names them all, so a new kind does not compile until each front end has chosen its
/// mapping, instead of falling silently into a catch-all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The move string is not a legal, unfinished game on the engine's board.
    Position(ParseError),
    /// The solve was stopped (time limit or stop flag) with these bounds proven.
    Interrupted(Interrupted),
    /// The solver could not be built (table size, threads).
    Build(BuildError),
    /// A board size that is malformed or not supported.
    Board(String),
    /// An opening book could not be loaded, built or used.
    Book(BookError),
    /// A search window that is empty (`alpha >= beta`).
    Window(String),
    /// A checkpoint could not be written or loaded (I/O, another board, a corrupt or
    /// truncated file).
    Checkpoint(CheckpointError),
}

impl Error {
    fn new(kind: ErrorKind) -> Self {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Position(e) => e.fmt(f),
            ErrorKind::Interrupted(e) => e.fmt(f),
            ErrorKind::Build(e) => e.fmt(f),
            ErrorKind::Board(m) => f.write_str(m),
            ErrorKind::Book(e) => e.fmt(f),
            ErrorKind::Window(m) => f.write_str(m),
            ErrorKind::Checkpoint(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::new(ErrorKind::Position(e))
    }
}

impl From<Interrupted> for Error {
    fn from(e: Interrupted) -> Self {
        Error::new(ErrorKind::Interrupted(e))
    }
}

impl From<BookError> for Error {
    fn from(e: BookError) -> Self {
        Error::new(ErrorKind::Book(e))
    }
}

impl From<CheckpointError> for Error {
    fn from(e: CheckpointError) -> Self {
        Error::new(ErrorKind::Checkpoint(e))
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        Error::new(ErrorKind::Build(e))
    }
}

/// A parsed position, as far as a front end needs to know it without the board's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionInfo {
    /// Number of stones played.
    pub moves: u32,
    /// For each column (0-based), true when it has room.
    pub playable: Vec<bool>,
    /// For each column (0-based), true when playing there wins at once.
    pub winning: Vec<bool>,
    /// The cells, top row first: `Some(true)` first player, `Some(false)` second, `None`
    /// empty.
    pub rows: Vec<Vec<Option<bool>>>,
    /// The board as text, as [`Position`]'s `Display` writes it.
    pub text: String,
}

impl PositionInfo {
    fn of<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> PositionInfo {
        let w = dims::width::<W, H>();
        PositionInfo {
            moves: p.moves(),
            playable: (0..w).map(|c| p.can_play(c)).collect(),
            winning: (0..w)
                .map(|c| p.can_play(c) && p.is_winning_move(c))
                .collect(),
            rows: (0..dims::height::<W, H>())
                .rev()
                .map(|r| (0..w).map(|c| p.cell(c, r)).collect())
                .collect(),
            text: p.to_string(),
        }
    }
}

macro_rules! board_arms {
    ({ $board:expr, $P:ident, $body:expr } $($v:ident $w:literal $h:literal $b:ty,)*) => {
        match ($board.width, $board.height) {
            $(($w, $h) => {
                type $P = Position<$w, $h, $b>;
                Some($body)
            })*
            (w, h) => match Dims::new(w, h) {
                Some(d) if $board.is_supported() => {
                    let _entered = d.enter();
                    if w * (h + 1) <= 64 {
                        type $P = Position<RUN_W, RUN_H, u64>;
                        Some($body)
                    } else {
                        type $P = Position<RUN_W, RUN_H, u128>;
                        Some($body)
                    }
                }
                _ => None,
            },
        }
    };
}

/// Runs `$body` with `$P` the position type of `$board`; `None` for a size this build does
/// not serve.
macro_rules! with_position_type {
    ($board:expr, $P:ident, $body:expr) => {
        with_boards!(board_arms! { $board, $P, $body })
    };
}

impl BoardSize {
    fn unsupported(&self) -> Error {
        Error::new(ErrorKind::Board(
            self.unsupported_reason()
                .unwrap_or_else(|| format!("board size {self} is not served")),
        ))
    }

    /// Parses a move string on this board, without a solver or table (what
    /// [`Engine::check`] does): a legal, unfinished game, or the parse error.
    pub fn check(&self, moves: &str) -> Result<PositionInfo, Error> {
        with_position_type!(self, P, {
            P::parse(moves)
                .map(|p| PositionInfo::of(&p))
                .map_err(Error::from)
        })
        .unwrap_or_else(|| Err(self.unsupported()))
    }

    /// The position after `moves` and then a stone in `column` (0-based), which may complete
    /// a four: the second value says so. `moves` must be a legal, unfinished game (as for
    /// [`BoardSize::check`]); a column out of range or full is the error the parse of the
    /// longer move string gives.
    pub fn play(&self, moves: &str, column: usize) -> Result<(PositionInfo, bool), Error> {
        with_position_type!(self, P, {
            let mut p = P::parse(moves)?;
            match crate::position::column_char(column) {
                Some(_) if column < self.width && p.can_play(column) => {
                    let won = p.is_winning_move(column);
                    p.play_col(column);
                    Ok((PositionInfo::of(&p), won))
                }
                Some(ch) => {
                    let longer = format!("{}{ch}", moves.trim());
                    match P::parse(&longer) {
                        Err(e) => Err(Error::from(e)),
                        Ok(_) => unreachable!("an illegal move parsed"),
                    }
                }
                None => Err(Error::new(ErrorKind::Board(format!(
                    "column {} is out of range on a {self} board",
                    column + 1
                )))),
            }
        })
        .unwrap_or_else(|| Err(self.unsupported()))
    }
}

/// One line of the test-set format (`<moves> [<score>]`) read on an engine's board: see
/// [`Engine::parse_case`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseLine {
    /// The move string as written.
    pub moves: String,
    /// The expected score, when the line carries one.
    pub expected: Option<i32>,
}

/// A solver of one board size chosen at run time (see the module docs).
///
/// ```
/// use fourfold::{BoardSize, Engine, SolverBuilder};
///
/// let engine = Engine::new(BoardSize::STANDARD, SolverBuilder::default().table_mib(16))?;
/// let s = engine.solve("44455554221")?;
/// let a = engine.analyze("44455554221")?;
/// assert_eq!(a.scores[s.best_move.unwrap()], Some(s.score));
/// assert!(engine.solve("448").is_err());
/// # Ok::<(), fourfold::Error>(())
/// ```
pub struct Engine {
    inner: Inner,
    book: Option<Book>,
}

macro_rules! inner_enum {
    ({} $($v:ident $w:literal $h:literal $b:ty,)*) => {
        /// The engine's solver: one variant per compiled board size, and the run-time-sized
        /// solver of each word for the others.
        enum Inner {
            $($v(Solver<$w, $h, $b>),)*
            Sized64(Solver<RUN_W, RUN_H, u64>),
            Sized128(Solver<RUN_W, RUN_H, u128>),
        }

        /// Builds the solver of `board`, or `None` for a size the engine does not serve.
        fn build_inner(board: BoardSize, builder: SolverBuilder) -> Option<Result<Inner, BuildError>> {
            let BoardSize { width: w, height: h } = board;
            match (w, h) {
                $(($w, $h) => Some(builder.build::<$w, $h, $b>().map(Inner::$v)),)*
                _ if !board.is_supported() => None,
                _ if w * (h + 1) <= 64 => Some(builder.build_sized::<u64>(w, h).map(Inner::Sized64)),
                _ => Some(builder.build_sized::<u128>(w, h).map(Inner::Sized128)),
            }
        }
    };
}

with_boards!(inner_enum! {});

macro_rules! dispatch_arms {
    ({ $self:expr, $s:ident, $W:ident, $H:ident, $body:expr } $($v:ident $w:literal $h:literal $b:ty,)*) => {
        match &$self.inner {
            $(Inner::$v($s) => {
                const $W: usize = $w;
                const $H: usize = $h;
                $body
            })*
            Inner::Sized64($s) => {
                const $W: usize = RUN_W;
                const $H: usize = RUN_H;
                let _entered = $s.dims().enter();
                $body
            }
            Inner::Sized128($s) => {
                const $W: usize = RUN_W;
                const $H: usize = RUN_H;
                let _entered = $s.dims().enter();
                $body
            }
        }
    };
}

/// Runs `$body` with `$s` bound to the engine's solver and `$W`, `$H` to its size.
macro_rules! dispatch {
    ($self:expr, $s:ident, $W:ident, $H:ident, $body:expr) => {
        with_boards!(dispatch_arms! { $self, $s, $W, $H, $body })
    };
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("board", &self.board())
            .finish()
    }
}

impl Engine {
    /// Builds an engine for `board` with the solver settings of `builder`, answering from
    /// the book shipped in the library where it has one ([`Book::shipped`]: the 7 x 6 board,
    /// every position of the first five moves); [`Engine::set_book`] gives another book or
    /// none.
    pub fn new(board: BoardSize, builder: SolverBuilder) -> Result<Engine, Error> {
        match build_inner(board, builder) {
            Some(inner) => Ok(Engine {
                inner: inner?,
                book: Book::shipped(board.width, board.height).cloned(),
            }),
            None => Err(Error::new(ErrorKind::Board(
                board
                    .unsupported_reason()
                    .unwrap_or_else(|| format!("board size {board} is not supported")),
            ))),
        }
    }

    /// As [`Engine::new`], with the run-time-sized solver (the module docs) even where
    /// this build compiles the size: to measure that solver against the compiled one, or to
    /// check that both give the same scores and node counts.
    pub fn new_run_time_sized(board: BoardSize, builder: SolverBuilder) -> Result<Engine, Error> {
        if let Some(why) = board.unsupported_reason() {
            return Err(Error::new(ErrorKind::Board(why)));
        }
        let BoardSize {
            width: w,
            height: h,
        } = board;
        let inner = if w * (h + 1) <= 64 {
            builder.build_sized::<u64>(w, h).map(Inner::Sized64)
        } else {
            builder.build_sized::<u128>(w, h).map(Inner::Sized128)
        };
        Ok(Engine {
            inner: inner?,
            book: Book::shipped(w, h).cloned(),
        })
    }

    /// True when this engine runs the run-time-sized solver (the module docs), false when
    /// it runs a solver compiled for its size.
    pub fn is_run_time_sized(&self) -> bool {
        matches!(self.inner, Inner::Sized64(_) | Inner::Sized128(_))
    }

    /// The board size.
    pub fn board(&self) -> BoardSize {
        dispatch!(self, s, _W, _H, {
            let d = s.dims();
            BoardSize {
                width: d.width,
                height: d.height,
            }
        })
    }

    /// Parses a move string on this board (see [`Position::parse`]).
    pub fn check(&self, moves: &str) -> Result<PositionInfo, Error> {
        dispatch!(self, s, _W, _H, {
            s.parse(moves)
                .map(|p| PositionInfo::of(&p))
                .map_err(Error::from)
        })
    }

    /// Reads one line of the test-set format on this board (see
    /// [`crate::testset::parse_line`]): the move string must be a legal, unfinished game here.
    pub fn parse_case(&self, line: &str) -> Result<CaseLine, LineError> {
        let (moves, expected) = split_line(line)?;
        dispatch!(self, s, _W, _H, {
            s.parse(moves).map_err(LineError::Moves)?;
        });
        Ok(CaseLine {
            moves: moves.to_string(),
            expected,
        })
    }

    /// The exact score and a best move of the position `moves` (from the book when it
    /// covers the position).
    pub fn solve(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, {
            let p = s.parse(moves)?;
            if let Some(sol) = self.book.as_ref().and_then(|b| BookWord::book_solve(b, &p)) {
                return Ok(sol);
            }
            Ok(s.solve(&p)?)
        })
    }

    /// As [`Engine::solve`], with [`Solver::solve_with`]'s progress callback.
    pub fn solve_with(
        &self,
        moves: &str,
        on_step: &mut (dyn FnMut(Step) + Send),
    ) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, {
            let p = s.parse(moves)?;
            if let Some(sol) = self.book.as_ref().and_then(|b| BookWord::book_solve(b, &p)) {
                return Ok(sol);
            }
            Ok(s.solve_with(&p, on_step)?)
        })
    }

    /// One search of the position `moves` with the window `(alpha, beta)` on the solver's
    /// threads and table (see [`Solver::solve_window`]): the score proven at most, at least
    /// or exactly [`WindowResult::value`]. "Is the score above `x`?" is the window
    /// `(x, x + 1)`. The book is not consulted: this is the search a distributed driver
    /// hands to a worker. A stop or time limit is an [`ErrorKind::Interrupted`] error; an
    /// empty window (`alpha >= beta`) an [`ErrorKind::Window`] one.
    pub fn solve_window(&self, moves: &str, alpha: i32, beta: i32) -> Result<WindowResult, Error> {
        if alpha >= beta {
            return Err(Error::new(ErrorKind::Window(format!(
                "the window ({alpha}, {beta}) is empty: alpha must be less than beta"
            ))));
        }
        dispatch!(self, s, _W, _H, {
            let p = s.parse(moves)?;
            Ok(s.solve_window(&p, alpha, beta)?)
        })
    }

    /// Win (1), draw (0) or loss (-1) and a move that keeps it.
    pub fn solve_weak(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, {
            let p = s.parse(moves)?;
            if let Some(sol) = self
                .book
                .as_ref()
                .and_then(|b| BookWord::book_solve_weak(b, &p))
            {
                return Ok(sol);
            }
            Ok(s.solve_weak(&p)?)
        })
    }

    /// The score of every column.
    pub fn analyze(&self, moves: &str) -> Result<Analysis, Error> {
        self.analyze_within(moves, None)
    }

    /// As [`Engine::analyze`], searching for at most `budget` (see
    /// [`Solver::analyze_within`]): past it, an [`ErrorKind::Interrupted`] whose
    /// [`Interrupted::columns`] holds what was proven of each column. Calling again on the
    /// same position goes on from the table.
    pub fn analyze_within(&self, moves: &str, budget: Option<Duration>) -> Result<Analysis, Error> {
        dispatch!(self, s, _W, _H, {
            let p = s.parse(moves)?;
            if let Some(a) = self
                .book
                .as_ref()
                .and_then(|b| BookWord::book_analyze(b, &p))
            {
                return Ok(a);
            }
            Ok(s.analyze_within(&p, budget)?)
        })
    }

    /// Solves a batch across the solver's threads (see [`Solver::solve_many`]); results in
    /// input order, a bad move string giving its error in its place.
    pub fn solve_many<S: AsRef<str>>(
        &self,
        batch: &[S],
        weak: bool,
    ) -> Vec<Result<Solution, Error>> {
        let batch: Vec<&str> = batch.iter().map(AsRef::as_ref).collect();
        self.solve_many_str(&batch, weak)
    }

    /// [`Engine::solve_many`], not generic: a generic method is compiled in the crate that
    /// calls it, and this one reaches every board's solver (compiled in the command's crate
    /// as well, it doubled the release build's time).
    fn solve_many_str(&self, batch: &[&str], weak: bool) -> Vec<Result<Solution, Error>> {
        dispatch!(self, s, W, H, {
            let parsed: Vec<Result<Position<W, H, _>, Error>> =
                batch.iter().map(|m| Ok(s.parse(m.as_ref())?)).collect();
            let from_book = |p: &Position<W, H, _>| {
                let b = self.book.as_ref()?;
                if weak {
                    BookWord::book_solve_weak(b, p)
                } else {
                    BookWord::book_solve(b, p)
                }
            };
            let good: Vec<Position<W, H, _>> = parsed
                .iter()
                .filter_map(|p| p.as_ref().ok().copied())
                .filter(|p| from_book(p).is_none())
                .collect();
            let mut solved = s.solve_many(&good, weak).into_iter();
            parsed
                .into_iter()
                .map(|p| {
                    p.and_then(|p| match from_book(&p) {
                        Some(sol) => Ok(sol),
                        None => solved
                            .next()
                            .expect("one result per good position")
                            .map_err(Error::from),
                    })
                })
                .collect()
        })
    }

    /// A line of perfect play (0-based columns) from `moves`, whose exact score is `score`:
    /// the book's best moves while it covers the line, then the solver's.
    pub fn principal_variation(&self, moves: &str, score: i32) -> Result<Vec<usize>, Error> {
        dispatch!(self, s, _W, _H, {
            let mut p = s.parse(moves)?;
            let mut line = self
                .book
                .as_ref()
                .map(|b| BookWord::book_line(b, &p))
                .unwrap_or_default();
            let mut score = score;
            for &c in &line {
                if p.is_winning_move(c) {
                    return Ok(line);
                }
                p.play_col(c);
                score = -score;
            }
            line.extend(s.principal_variation(&p, score)?);
            Ok(line)
        })
    }

    /// The shared table.
    pub fn table(&self) -> &Table {
        dispatch!(self, s, _W, _H, s.table())
    }

    /// Threads per solve.
    pub fn threads(&self) -> usize {
        dispatch!(self, s, _W, _H, s.threads())
    }

    /// The time limit of each solve (see [`SolverBuilder::time_limit`]).
    pub fn time_limit(&self) -> Option<Duration> {
        dispatch!(self, s, _W, _H, s.time_limit())
    }

    /// The flag that stops solves in progress (see [`Solver::stop_flag`]).
    pub fn stop_flag(&self) -> Arc<StopFlag> {
        dispatch!(self, s, _W, _H, s.stop_flag())
    }

    /// Nodes of the solve in progress (see [`Solver::live_nodes`]).
    pub fn live_nodes(&self) -> u64 {
        dispatch!(self, s, _W, _H, s.live_nodes())
    }

    /// True if pinning was asked for and the OS refused it.
    pub fn pin_failed(&self) -> bool {
        dispatch!(self, s, _W, _H, s.pin_failed())
    }

    /// Answers every position the book covers from it from now on (`None` removes it, so
    /// every answer is searched); refuses a book for another board size. The engine starts
    /// with the shipped book ([`Engine::new`]).
    pub fn set_book(&mut self, book: Option<Book>) -> Result<(), Error> {
        if let Some(b) = &book {
            let board = self.board();
            if crate::position::key_bits(board.width, board.height) > 64 {
                return Err(Error::new(ErrorKind::Book(BookError::WrongBoard(format!(
                    "opening books hold 64-bit keys; a {board} position needs {} bits",
                    crate::position::key_bits(board.width, board.height)
                )))));
            }
            if (b.width(), b.height()) != (board.width, board.height) {
                return Err(Error::new(ErrorKind::Book(BookError::WrongBoard(format!(
                    "the book is for {}x{} boards, not {board}",
                    b.width(),
                    b.height()
                )))));
            }
        }
        self.book = book;
        Ok(())
    }

    /// This engine with `book` attached (see [`Engine::set_book`]).
    pub fn with_book(mut self, book: Book) -> Result<Engine, Error> {
        self.set_book(Some(book))?;
        Ok(self)
    }

    /// True when the attached book answers [`Engine::solve`], [`Engine::solve_weak`] and
    /// [`Engine::analyze`] of `moves` without a search (a legal position with fewer stones
    /// than the book's depth): such calls take microseconds, so a front end may answer them
    /// at once instead of queueing them behind searches.
    pub fn in_book(&self, moves: &str) -> bool {
        dispatch!(self, s, _W, _H, {
            match (s.parse(moves), &self.book) {
                (Ok(p), Some(b)) => BookWord::book_answers(b, &p),
                _ => false,
            }
        })
    }

    /// The attached book (the shipped one unless [`Engine::set_book`] changed it).
    pub fn book(&self) -> Option<&Book> {
        self.book.as_ref()
    }

    /// Builds a book for this engine's board on its solver (see [`book::build`]).
    pub fn build_book(
        &self,
        opts: &book::BuildOptions,
        on_progress: &(dyn Fn(book::Progress) + Sync),
    ) -> Result<Book, Error> {
        dispatch!(
            self,
            s,
            _W,
            _H,
            Ok(BookWord::book_build(s, opts, on_progress)?)
        )
    }

    /// The positions a book of depth `plies` holds on this board (see [`book::positions`]),
    /// as move strings, in the order of their keys: what a driver that solves them elsewhere
    /// (the Python package's distributed build) hands out. An error on boards whose positions
    /// need more than 64 bits, or when the depth does not fit the board.
    pub fn book_positions(&self, plies: u32) -> Result<Vec<String>, Error> {
        dispatch!(self, s, _W, _H, Ok(book_lines(s, plies)?))
    }

    /// The book of depth `plies` made of `scores` (move string, exact score), which must be
    /// exactly the positions of [`Engine::book_positions`] (a mirror image stands for its
    /// position): the same book [`Engine::build_book`] builds when the scores are right. A
    /// missing, extra or unparsable position, or a score out of range, is an error naming it.
    pub fn book_from_scores(&self, plies: u32, scores: &[(String, i32)]) -> Result<Book, Error> {
        dispatch!(self, s, _W, _H, Ok(book_assemble(s, plies, scores)?))
    }

    /// Re-solves `k` random entries of `book` (see [`book::verify`]).
    pub fn verify_book(
        &self,
        book: &Book,
        k: usize,
        seed: u64,
        on_progress: &(dyn Fn(book::Progress) + Sync),
    ) -> Result<usize, Error> {
        dispatch!(self, s, _W, _H, {
            Ok(BookWord::book_verify(book, s, k, seed, on_progress)?)
        })
    }

    /// Writes the table's expensive entries (work at least
    /// [`checkpoint::DEFAULT_MIN_WORK`]) to the checkpoint `path`, atomically (see
    /// [`crate::checkpoint`]), with the root of the latest solve and the bounds proven for it
    /// so far ([`Solver::root_bounds`]); returns the number of entries written. Another
    /// writer holding the file's lock is an error ([`checkpoint::CheckpointError::Locked`]).
    /// Callable from
    /// another thread while a solve runs on this engine: it reads the shared table slot by
    /// slot.
    pub fn save_checkpoint(&self, path: impl AsRef<std::path::Path>) -> Result<usize, Error> {
        self.save_checkpoint_with(path, checkpoint::DEFAULT_MIN_WORK)
            .map(|s| s.entries)
    }

    /// [`Engine::save_checkpoint`] keeping the entries of work at least `min_work`
    /// (`floor(log2)` of their nodes), with the file's size.
    pub fn save_checkpoint_with(
        &self,
        path: impl AsRef<std::path::Path>,
        min_work: u8,
    ) -> Result<checkpoint::Saved, Error> {
        let b = self.board();
        let root = dispatch!(self, s, _W, _H, s.root_bounds());
        Ok(checkpoint::save(
            self.table(),
            b.width,
            b.height,
            min_work,
            root.as_ref(),
            path,
        )?)
    }

    /// [`Engine::save_checkpoint`] to the file of `lock`, which the caller holds (a writer
    /// that writes the same file again and again takes its lock once, see
    /// [`checkpoint::Lock`]).
    pub fn save_checkpoint_locked(&self, lock: &checkpoint::Lock) -> Result<usize, Error> {
        let b = self.board();
        let root = dispatch!(self, s, _W, _H, s.root_bounds());
        Ok(checkpoint::save_locked(
            self.table(),
            b.width,
            b.height,
            checkpoint::DEFAULT_MIN_WORK,
            root.as_ref(),
            lock,
        )?
        .entries)
    }

    /// Loads the checkpoint `path` into the table through its normal store (see
    /// [`crate::checkpoint`]) and hands its root's proven bounds to the solver: a later exact
    /// solve of that very position starts from them, any other position ignores them.
    /// Returns the number of entries read and the root. A file of another board, a corrupt
    /// or a truncated file is an [`ErrorKind::Checkpoint`] error and changes nothing.
    /// Callable while a solve runs on this engine (the bounds apply from its next solve).
    pub fn load_checkpoint(
        &self,
        path: impl AsRef<std::path::Path>,
    ) -> Result<checkpoint::Loaded, Error> {
        let b = self.board();
        let loaded = checkpoint::load(self.table(), b.width, b.height, path)?;
        dispatch!(self, s, _W, _H, s.resume_from(loaded.root));
        Ok(loaded)
    }

    /// The root of the latest exact solve on this engine and the bounds proven for it so far
    /// (see [`Solver::root_bounds`]): what [`Engine::save_checkpoint`] saves with the entries.
    pub fn root_bounds(&self) -> Option<crate::RootBounds> {
        dispatch!(self, s, _W, _H, s.root_bounds())
    }

    /// Positions per depth `0..=plies` of a book for this board (see
    /// [`book::count_positions`]).
    /// [`book::count_positions`]); an error on boards whose positions need more than 64 bits.
    pub fn count_book_positions(&self, plies: u32) -> Result<Vec<usize>, Error> {
        dispatch!(self, s, _W, _H, Ok(book_count(s, plies)?))
    }
}

// The book on every word size goes through [`BookWord`], whose implementation the position's
// or solver's word picks (on 128-bit boards a book finds nothing and cannot be built; see
// `crate::book`). Counting positions has neither, so the solver names the word here.

fn book_lines<const W: usize, const H: usize, B: BookWord>(
    _: &Solver<W, H, B>,
    plies: u32,
) -> Result<Vec<String>, BookError> {
    B::book_lines::<W, H>(plies)
}

fn book_assemble<const W: usize, const H: usize, B: BookWord>(
    _: &Solver<W, H, B>,
    plies: u32,
    scores: &[(String, i32)],
) -> Result<Book, BookError> {
    B::book_assemble::<W, H>(plies, scores)
}

fn book_count<const W: usize, const H: usize, B: BookWord>(
    _: &Solver<W, H, B>,
    plies: u32,
) -> Result<Vec<usize>, BookError> {
    B::book_count::<W, H>(plies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_sizes_parse() {
        assert_eq!("7x6".parse::<BoardSize>().unwrap(), BoardSize::STANDARD);
        assert!(" 7X6 ".parse::<BoardSize>().is_ok());
        for bad in ["", "7", "x6", "7x", "7x6x", "-7x6", "99x99", "3x3", "4x14"] {
            assert!(bad.parse::<BoardSize>().is_err(), "{bad}");
        }
    }

    #[test]
    fn board_play_agrees_with_the_parse_of_the_longer_string() {
        for &b in BoardSize::SUPPORTED {
            let (info, won) = b.play("1", 1).unwrap();
            assert_eq!((info, won), (b.check("12").unwrap(), false), "{b}");
            // Four in the first column: the parse refuses the string, play says won.
            let (info, won) = b.play("121212", 0).unwrap();
            assert!(won && info.moves == 7, "{b}");
            assert!(b.check("1212121").is_err(), "{b}");
            // Out of range and full: the parse's error of the longer string.
            // Out of range: the parse's error of the longer string.
            if let Some(ch) = crate::position::column_char(b.width) {
                let e = b.play("", b.width).unwrap_err().to_string();
                assert_eq!(e, b.check(&ch.to_string()).unwrap_err().to_string(), "{b}");
            }
            assert!(b.play("", 12).is_err(), "{b}");
        }
    }

    #[test]
    fn every_supported_size_builds_or_refuses_its_table_clearly() {
        assert_eq!(BoardSize::SUPPORTED[0], BoardSize::STANDARD);
        for &b in BoardSize::SUPPORTED {
            assert_eq!(b.to_string().parse::<BoardSize>().unwrap(), b);
            match Engine::new(b, SolverBuilder::default().table_mib(1)) {
                Ok(e) => {
                    assert_eq!(e.board(), b);
                    assert_eq!(e.check("1").unwrap().playable.len(), b.width);
                    // The board's own check (no solver) is the engine's.
                    assert_eq!(b.check("12").unwrap(), e.check("12").unwrap());
                }
                // One MiB is too small to identify the keys of the larger boards.
                Err(e) => {
                    assert!(matches!(e.kind(), ErrorKind::Build(_)), "{b}: {e}");
                    assert!(e.to_string().contains("needs at least"), "{b}: {e}");
                }
            }
        }
    }

    #[test]
    fn batch_keeps_order_and_errors() {
        let e = Engine::new(
            BoardSize::STANDARD,
            SolverBuilder::default().table_mib(4).threads(2),
        )
        .unwrap();
        assert_eq!(e.parse_case("4453 -2").unwrap().expected, Some(-2));
        assert!(e.parse_case("448 1").is_err());
        let r = e.solve_many(&["4453", "448", "44455554221"], false);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].as_ref().unwrap().score, e.solve("4453").unwrap().score);
        assert!(matches!(
            r[1].as_ref().unwrap_err().kind(),
            ErrorKind::Position(_)
        ));
        assert_eq!(
            r[2].as_ref().unwrap().score,
            e.solve("44455554221").unwrap().score
        );
    }
}
