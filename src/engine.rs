//! The engine: a solver for a board size chosen at run time, taking move strings.
//!
//! This is the one entry point of every front end (the command line, the service, the
//! bindings): they turn their input into these calls and print or return what comes back, so
//! parsing, scoring and error messages live here and in the modules below, never in a front
//! end. [`Engine`] owns one [`Solver`] of the board size it was built for and dispatches each
//! call to it; it adds no search of its own.
//!
//! Board sizes: [`BoardSize::SUPPORTED`] lists the sizes this build serves. Each is a
//! monomorphised `Solver<W, H>`, so the 7 x 6 path is the same code as calling
//! [`Solver`] directly.
//! Boards whose positions need more than 64 bits (`W * (H + 1) > 64`: 9 x 7, 8 x 8,
//! 10 x 6, ...) are `Solver<W, H, u128>`; widths 10 to 12 write columns 10 to 12 as `a`,
//! `b`, `c` in move strings (see [`crate::position`]). A size beyond 12 columns, 13 rows or
//! 128 bits gets an error naming the limit ([`BoardSize::unsupported_reason`]).

use crate::outcome::Outcome;
use crate::position::{ParseError, Position};
use crate::solver::{Analysis, BuildError, Interrupted, Solution, Solver, SolverBuilder, Step};
use crate::table::Table;
use crate::StopFlag;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

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

    /// The sizes this build can solve.
    pub const SUPPORTED: &'static [BoardSize] = &[
        BoardSize::STANDARD,
        // Boards of more than 64 key bits (u128 bitboards) or more than 9 columns.
        BoardSize {
            width: 5,
            height: 12,
        },
        BoardSize {
            width: 5,
            height: 13,
        },
        BoardSize {
            width: 6,
            height: 10,
        },
        BoardSize {
            width: 6,
            height: 11,
        },
        BoardSize {
            width: 6,
            height: 12,
        },
        BoardSize {
            width: 6,
            height: 13,
        },
        BoardSize {
            width: 7,
            height: 9,
        },
        BoardSize {
            width: 7,
            height: 10,
        },
        BoardSize {
            width: 7,
            height: 11,
        },
        BoardSize {
            width: 7,
            height: 12,
        },
        BoardSize {
            width: 7,
            height: 13,
        },
        BoardSize {
            width: 8,
            height: 8,
        },
        BoardSize {
            width: 8,
            height: 9,
        },
        BoardSize {
            width: 8,
            height: 10,
        },
        BoardSize {
            width: 8,
            height: 11,
        },
        BoardSize {
            width: 8,
            height: 12,
        },
        BoardSize {
            width: 8,
            height: 13,
        },
        BoardSize {
            width: 9,
            height: 7,
        },
        BoardSize {
            width: 9,
            height: 8,
        },
        BoardSize {
            width: 9,
            height: 9,
        },
        BoardSize {
            width: 9,
            height: 10,
        },
        BoardSize {
            width: 9,
            height: 11,
        },
        BoardSize {
            width: 9,
            height: 12,
        },
        BoardSize {
            width: 9,
            height: 13,
        },
        BoardSize {
            width: 10,
            height: 4,
        },
        BoardSize {
            width: 10,
            height: 5,
        },
        BoardSize {
            width: 10,
            height: 6,
        },
        BoardSize {
            width: 10,
            height: 7,
        },
        BoardSize {
            width: 10,
            height: 8,
        },
        BoardSize {
            width: 10,
            height: 9,
        },
        BoardSize {
            width: 10,
            height: 10,
        },
        BoardSize {
            width: 10,
            height: 11,
        },
        BoardSize {
            width: 11,
            height: 4,
        },
        BoardSize {
            width: 11,
            height: 5,
        },
        BoardSize {
            width: 11,
            height: 6,
        },
        BoardSize {
            width: 11,
            height: 7,
        },
        BoardSize {
            width: 11,
            height: 8,
        },
        BoardSize {
            width: 11,
            height: 9,
        },
        BoardSize {
            width: 11,
            height: 10,
        },
        BoardSize {
            width: 12,
            height: 4,
        },
        BoardSize {
            width: 12,
            height: 5,
        },
        BoardSize {
            width: 12,
            height: 6,
        },
        BoardSize {
            width: 12,
            height: 7,
        },
        BoardSize {
            width: 12,
            height: 8,
        },
        BoardSize {
            width: 12,
            height: 9,
        },
    ];

    /// Number of cells.
    pub const fn cells(&self) -> u32 {
        (self.width * self.height) as u32
    }

    /// True when this build can solve boards of this size.
    pub fn is_supported(&self) -> bool {
        Self::SUPPORTED.contains(self)
    }

    /// Why this build cannot solve boards of this size (`None` when it can): a width
    /// outside 4..=12, a height outside 4..=13, a position of more than 128 bits (`width x
    /// (height + 1)`, the widest bitboard), or a size missing from [`BoardSize::SUPPORTED`].
    pub fn unsupported_reason(&self) -> Option<String> {
        let b = self;
        let bits = self.width * (self.height + 1);
        if self.is_supported() {
            None
        } else if !(4..=12).contains(&self.width) {
            Some(format!("board size {b}: the width must be 4 to 12 columns"))
        } else if !(4..=13).contains(&self.height) {
            Some(format!("board size {b}: the height must be 4 to 13 rows"))
        } else if bits > 128 {
            Some(format!(
                "board size {b} needs {bits}-bit positions (width x (height + 1)); \
                 at most 128 bits are supported"
            ))
        } else {
            let list: Vec<String> = Self::SUPPORTED.iter().map(|b| b.to_string()).collect();
            Some(format!(
                "board size {b} is not supported; supported sizes: {}",
                list.join(", ")
            ))
        }
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
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The move string is not a legal, unfinished game on the engine's board.
    Position(ParseError),
    /// The solve was stopped (time limit or stop flag) with these bounds proven.
    Interrupted(Interrupted),
    /// The solver could not be built (table size, threads).
    Build(BuildError),
    /// A board size that is malformed or not supported.
    Board(String),
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
}

enum Inner {
    B7x6(Solver<7, 6>),
    // Boards of more than 64 key bits (u128 bitboards) or more than 9 columns.
    B5x12(Solver<5, 12, u128>),
    B5x13(Solver<5, 13, u128>),
    B6x10(Solver<6, 10, u128>),
    B6x11(Solver<6, 11, u128>),
    B6x12(Solver<6, 12, u128>),
    B6x13(Solver<6, 13, u128>),
    B7x9(Solver<7, 9, u128>),
    B7x10(Solver<7, 10, u128>),
    B7x11(Solver<7, 11, u128>),
    B7x12(Solver<7, 12, u128>),
    B7x13(Solver<7, 13, u128>),
    B8x8(Solver<8, 8, u128>),
    B8x9(Solver<8, 9, u128>),
    B8x10(Solver<8, 10, u128>),
    B8x11(Solver<8, 11, u128>),
    B8x12(Solver<8, 12, u128>),
    B8x13(Solver<8, 13, u128>),
    B9x7(Solver<9, 7, u128>),
    B9x8(Solver<9, 8, u128>),
    B9x9(Solver<9, 9, u128>),
    B9x10(Solver<9, 10, u128>),
    B9x11(Solver<9, 11, u128>),
    B9x12(Solver<9, 12, u128>),
    B9x13(Solver<9, 13, u128>),
    B10x4(Solver<10, 4, u64>),
    B10x5(Solver<10, 5, u64>),
    B10x6(Solver<10, 6, u128>),
    B10x7(Solver<10, 7, u128>),
    B10x8(Solver<10, 8, u128>),
    B10x9(Solver<10, 9, u128>),
    B10x10(Solver<10, 10, u128>),
    B10x11(Solver<10, 11, u128>),
    B11x4(Solver<11, 4, u64>),
    B11x5(Solver<11, 5, u128>),
    B11x6(Solver<11, 6, u128>),
    B11x7(Solver<11, 7, u128>),
    B11x8(Solver<11, 8, u128>),
    B11x9(Solver<11, 9, u128>),
    B11x10(Solver<11, 10, u128>),
    B12x4(Solver<12, 4, u64>),
    B12x5(Solver<12, 5, u128>),
    B12x6(Solver<12, 6, u128>),
    B12x7(Solver<12, 7, u128>),
    B12x8(Solver<12, 8, u128>),
    B12x9(Solver<12, 9, u128>),
}

/// Runs `$body` with `$s` bound to the engine's solver and `$W`, `$H` to its size.
macro_rules! dispatch {
    ($self:expr, $s:ident, $W:ident, $H:ident, $body:expr) => {
        match &$self.inner {
            Inner::B7x6($s) => {
                const $W: usize = 7;
                const $H: usize = 6;
                $body
            }
            // Boards of more than 64 key bits (u128 bitboards) or more than 9 columns.
            Inner::B5x12($s) => {
                const $W: usize = 5;
                const $H: usize = 12;
                $body
            }
            Inner::B5x13($s) => {
                const $W: usize = 5;
                const $H: usize = 13;
                $body
            }
            Inner::B6x10($s) => {
                const $W: usize = 6;
                const $H: usize = 10;
                $body
            }
            Inner::B6x11($s) => {
                const $W: usize = 6;
                const $H: usize = 11;
                $body
            }
            Inner::B6x12($s) => {
                const $W: usize = 6;
                const $H: usize = 12;
                $body
            }
            Inner::B6x13($s) => {
                const $W: usize = 6;
                const $H: usize = 13;
                $body
            }
            Inner::B7x9($s) => {
                const $W: usize = 7;
                const $H: usize = 9;
                $body
            }
            Inner::B7x10($s) => {
                const $W: usize = 7;
                const $H: usize = 10;
                $body
            }
            Inner::B7x11($s) => {
                const $W: usize = 7;
                const $H: usize = 11;
                $body
            }
            Inner::B7x12($s) => {
                const $W: usize = 7;
                const $H: usize = 12;
                $body
            }
            Inner::B7x13($s) => {
                const $W: usize = 7;
                const $H: usize = 13;
                $body
            }
            Inner::B8x8($s) => {
                const $W: usize = 8;
                const $H: usize = 8;
                $body
            }
            Inner::B8x9($s) => {
                const $W: usize = 8;
                const $H: usize = 9;
                $body
            }
            Inner::B8x10($s) => {
                const $W: usize = 8;
                const $H: usize = 10;
                $body
            }
            Inner::B8x11($s) => {
                const $W: usize = 8;
                const $H: usize = 11;
                $body
            }
            Inner::B8x12($s) => {
                const $W: usize = 8;
                const $H: usize = 12;
                $body
            }
            Inner::B8x13($s) => {
                const $W: usize = 8;
                const $H: usize = 13;
                $body
            }
            Inner::B9x7($s) => {
                const $W: usize = 9;
                const $H: usize = 7;
                $body
            }
            Inner::B9x8($s) => {
                const $W: usize = 9;
                const $H: usize = 8;
                $body
            }
            Inner::B9x9($s) => {
                const $W: usize = 9;
                const $H: usize = 9;
                $body
            }
            Inner::B9x10($s) => {
                const $W: usize = 9;
                const $H: usize = 10;
                $body
            }
            Inner::B9x11($s) => {
                const $W: usize = 9;
                const $H: usize = 11;
                $body
            }
            Inner::B9x12($s) => {
                const $W: usize = 9;
                const $H: usize = 12;
                $body
            }
            Inner::B9x13($s) => {
                const $W: usize = 9;
                const $H: usize = 13;
                $body
            }
            Inner::B10x4($s) => {
                const $W: usize = 10;
                const $H: usize = 4;
                $body
            }
            Inner::B10x5($s) => {
                const $W: usize = 10;
                const $H: usize = 5;
                $body
            }
            Inner::B10x6($s) => {
                const $W: usize = 10;
                const $H: usize = 6;
                $body
            }
            Inner::B10x7($s) => {
                const $W: usize = 10;
                const $H: usize = 7;
                $body
            }
            Inner::B10x8($s) => {
                const $W: usize = 10;
                const $H: usize = 8;
                $body
            }
            Inner::B10x9($s) => {
                const $W: usize = 10;
                const $H: usize = 9;
                $body
            }
            Inner::B10x10($s) => {
                const $W: usize = 10;
                const $H: usize = 10;
                $body
            }
            Inner::B10x11($s) => {
                const $W: usize = 10;
                const $H: usize = 11;
                $body
            }
            Inner::B11x4($s) => {
                const $W: usize = 11;
                const $H: usize = 4;
                $body
            }
            Inner::B11x5($s) => {
                const $W: usize = 11;
                const $H: usize = 5;
                $body
            }
            Inner::B11x6($s) => {
                const $W: usize = 11;
                const $H: usize = 6;
                $body
            }
            Inner::B11x7($s) => {
                const $W: usize = 11;
                const $H: usize = 7;
                $body
            }
            Inner::B11x8($s) => {
                const $W: usize = 11;
                const $H: usize = 8;
                $body
            }
            Inner::B11x9($s) => {
                const $W: usize = 11;
                const $H: usize = 9;
                $body
            }
            Inner::B11x10($s) => {
                const $W: usize = 11;
                const $H: usize = 10;
                $body
            }
            Inner::B12x4($s) => {
                const $W: usize = 12;
                const $H: usize = 4;
                $body
            }
            Inner::B12x5($s) => {
                const $W: usize = 12;
                const $H: usize = 5;
                $body
            }
            Inner::B12x6($s) => {
                const $W: usize = 12;
                const $H: usize = 6;
                $body
            }
            Inner::B12x7($s) => {
                const $W: usize = 12;
                const $H: usize = 7;
                $body
            }
            Inner::B12x8($s) => {
                const $W: usize = 12;
                const $H: usize = 8;
                $body
            }
            Inner::B12x9($s) => {
                const $W: usize = 12;
                const $H: usize = 9;
                $body
            }
        }
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
    /// Builds an engine for `board` with the solver settings of `builder`.
    pub fn new(board: BoardSize, builder: SolverBuilder) -> Result<Engine, Error> {
        let inner = match (board.width, board.height) {
            (7, 6) => Inner::B7x6(builder.build()?),
            // Boards of more than 64 key bits (u128 bitboards) or more than 9 columns.
            (5, 12) => Inner::B5x12(builder.build()?),
            (5, 13) => Inner::B5x13(builder.build()?),
            (6, 10) => Inner::B6x10(builder.build()?),
            (6, 11) => Inner::B6x11(builder.build()?),
            (6, 12) => Inner::B6x12(builder.build()?),
            (6, 13) => Inner::B6x13(builder.build()?),
            (7, 9) => Inner::B7x9(builder.build()?),
            (7, 10) => Inner::B7x10(builder.build()?),
            (7, 11) => Inner::B7x11(builder.build()?),
            (7, 12) => Inner::B7x12(builder.build()?),
            (7, 13) => Inner::B7x13(builder.build()?),
            (8, 8) => Inner::B8x8(builder.build()?),
            (8, 9) => Inner::B8x9(builder.build()?),
            (8, 10) => Inner::B8x10(builder.build()?),
            (8, 11) => Inner::B8x11(builder.build()?),
            (8, 12) => Inner::B8x12(builder.build()?),
            (8, 13) => Inner::B8x13(builder.build()?),
            (9, 7) => Inner::B9x7(builder.build()?),
            (9, 8) => Inner::B9x8(builder.build()?),
            (9, 9) => Inner::B9x9(builder.build()?),
            (9, 10) => Inner::B9x10(builder.build()?),
            (9, 11) => Inner::B9x11(builder.build()?),
            (9, 12) => Inner::B9x12(builder.build()?),
            (9, 13) => Inner::B9x13(builder.build()?),
            (10, 4) => Inner::B10x4(builder.build()?),
            (10, 5) => Inner::B10x5(builder.build()?),
            (10, 6) => Inner::B10x6(builder.build()?),
            (10, 7) => Inner::B10x7(builder.build()?),
            (10, 8) => Inner::B10x8(builder.build()?),
            (10, 9) => Inner::B10x9(builder.build()?),
            (10, 10) => Inner::B10x10(builder.build()?),
            (10, 11) => Inner::B10x11(builder.build()?),
            (11, 4) => Inner::B11x4(builder.build()?),
            (11, 5) => Inner::B11x5(builder.build()?),
            (11, 6) => Inner::B11x6(builder.build()?),
            (11, 7) => Inner::B11x7(builder.build()?),
            (11, 8) => Inner::B11x8(builder.build()?),
            (11, 9) => Inner::B11x9(builder.build()?),
            (11, 10) => Inner::B11x10(builder.build()?),
            (12, 4) => Inner::B12x4(builder.build()?),
            (12, 5) => Inner::B12x5(builder.build()?),
            (12, 6) => Inner::B12x6(builder.build()?),
            (12, 7) => Inner::B12x7(builder.build()?),
            (12, 8) => Inner::B12x8(builder.build()?),
            (12, 9) => Inner::B12x9(builder.build()?),
            _ => {
                return Err(Error::new(ErrorKind::Board(
                    board
                        .unsupported_reason()
                        .unwrap_or_else(|| format!("board size {board} is not supported")),
                )))
            }
        };
        Ok(Engine { inner })
    }

    /// The board size.
    pub fn board(&self) -> BoardSize {
        dispatch!(
            self,
            _s,
            W,
            H,
            BoardSize {
                width: W,
                height: H
            }
        )
    }

    /// Parses a move string on this board (see [`Position::parse`]).
    pub fn check(&self, moves: &str) -> Result<PositionInfo, Error> {
        dispatch!(self, s, W, H, {
            let p = s.parse(moves)?;
            Ok(PositionInfo {
                moves: p.moves(),
                playable: (0..W).map(|c| p.can_play(c)).collect(),
                winning: (0..W)
                    .map(|c| p.can_play(c) && p.is_winning_move(c))
                    .collect(),
                rows: (0..H)
                    .rev()
                    .map(|r| (0..W).map(|c| p.cell(c, r)).collect())
                    .collect(),
            })
        })
    }

    /// The exact score and a best move of the position `moves`.
    pub fn solve(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, Ok(s.solve(&s.parse(moves)?)?))
    }

    /// As [`Engine::solve`], with [`Solver::solve_with`]'s progress callback.
    pub fn solve_with(
        &self,
        moves: &str,
        on_step: &mut (dyn FnMut(Step) + Send),
    ) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, {
            Ok(s.solve_with(&s.parse(moves)?, on_step)?)
        })
    }

    /// Win (1), draw (0) or loss (-1) and a move that keeps it.
    pub fn solve_weak(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, _W, _H, Ok(s.solve_weak(&s.parse(moves)?)?))
    }

    /// The score of every column.
    pub fn analyze(&self, moves: &str) -> Result<Analysis, Error> {
        dispatch!(self, s, _W, _H, Ok(s.analyze(&s.parse(moves)?)?))
    }

    /// Solves a batch across the solver's threads (see [`Solver::solve_many`]); results in
    /// input order, a bad move string giving its error in its place.
    pub fn solve_many<S: AsRef<str>>(
        &self,
        batch: &[S],
        weak: bool,
    ) -> Vec<Result<Solution, Error>> {
        dispatch!(self, s, W, H, {
            let parsed: Vec<Result<Position<W, H, _>, Error>> =
                batch.iter().map(|m| Ok(s.parse(m.as_ref())?)).collect();
            let good: Vec<Position<W, H, _>> = parsed
                .iter()
                .filter_map(|p| p.as_ref().ok().copied())
                .collect();
            let mut solved = s.solve_many(&good, weak).into_iter();
            parsed
                .into_iter()
                .map(|p| {
                    p.and_then(|_| {
                        solved
                            .next()
                            .expect("one result per good position")
                            .map_err(Error::from)
                    })
                })
                .collect()
        })
    }

    /// A line of perfect play (0-based columns) from `moves`, whose exact score is `score`.
    pub fn principal_variation(&self, moves: &str, score: i32) -> Result<Vec<usize>, Error> {
        dispatch!(self, s, _W, _H, {
            Ok(s.principal_variation(&s.parse(moves)?, score)?)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_sizes_parse() {
        assert_eq!("7x6".parse::<BoardSize>().unwrap(), BoardSize::STANDARD);
        assert!(" 7X6 ".parse::<BoardSize>().is_ok());
        for bad in ["", "7", "x6", "7x", "7x6x", "-7x6", "99x99"] {
            assert!(bad.parse::<BoardSize>().is_err(), "{bad}");
        }
    }

    #[test]
    fn batch_keeps_order_and_errors() {
        let e = Engine::new(
            BoardSize::STANDARD,
            SolverBuilder::default().table_mib(4).threads(2),
        )
        .unwrap();
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
