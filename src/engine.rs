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

use crate::book::{self, Book, BookError};
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
    pub const SUPPORTED: &'static [BoardSize] = &[BoardSize::STANDARD];

    /// Number of cells.
    pub const fn cells(&self) -> u32 {
        (self.width * self.height) as u32
    }

    /// True when this build can solve boards of this size.
    pub fn is_supported(&self) -> bool {
        Self::SUPPORTED.contains(self)
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
        if !b.is_supported() {
            let list: Vec<String> = Self::SUPPORTED.iter().map(|b| b.to_string()).collect();
            return Err(Error::new(ErrorKind::Board(format!(
                "board size {b} is not supported; supported sizes: {}",
                list.join(", ")
            ))));
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
    /// An opening book could not be loaded, built or used.
    Book(BookError),
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
    book: Option<Book>,
}

enum Inner {
    B7x6(Solver<7, 6>),
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
            _ => {
                return Err(Error::new(ErrorKind::Board(format!(
                    "board size {board} is not supported"
                ))))
            }
        };
        Ok(Engine { inner, book: None })
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
        dispatch!(self, _s, W, H, {
            let p = Position::<W, H>::parse(moves)?;
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

    /// The exact score and a best move of the position `moves` (from the book when it
    /// covers the position).
    pub fn solve(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, W, H, {
            let p = Position::<W, H>::parse(moves)?;
            if let Some(sol) = self.book.as_ref().and_then(|b| b.solve(&p)) {
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
        dispatch!(self, s, W, H, {
            Ok(s.solve_with(&Position::<W, H>::parse(moves)?, on_step)?)
        })
    }

    /// Win (1), draw (0) or loss (-1) and a move that keeps it.
    pub fn solve_weak(&self, moves: &str) -> Result<Solution, Error> {
        dispatch!(self, s, W, H, {
            let p = Position::<W, H>::parse(moves)?;
            if let Some(sol) = self.book.as_ref().and_then(|b| b.solve_weak(&p)) {
                return Ok(sol);
            }
            Ok(s.solve_weak(&p)?)
        })
    }

    /// The score of every column.
    pub fn analyze(&self, moves: &str) -> Result<Analysis, Error> {
        dispatch!(self, s, W, H, {
            let p = Position::<W, H>::parse(moves)?;
            if let Some(a) = self.book.as_ref().and_then(|b| b.analyze(&p)) {
                return Ok(a);
            }
            Ok(s.analyze(&p)?)
        })
    }

    /// Solves a batch across the solver's threads (see [`Solver::solve_many`]); results in
    /// input order, a bad move string giving its error in its place.
    pub fn solve_many<S: AsRef<str>>(
        &self,
        batch: &[S],
        weak: bool,
    ) -> Vec<Result<Solution, Error>> {
        dispatch!(self, s, W, H, {
            let parsed: Vec<Result<Position<W, H>, Error>> = batch
                .iter()
                .map(|m| Ok(Position::<W, H>::parse(m.as_ref())?))
                .collect();
            let from_book = |p: &Position<W, H>| {
                let b = self.book.as_ref()?;
                if weak {
                    b.solve_weak(p)
                } else {
                    b.solve(p)
                }
            };
            let good: Vec<Position<W, H>> = parsed
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

    /// A line of perfect play (0-based columns) from `moves`, whose exact score is `score`.
    pub fn principal_variation(&self, moves: &str, score: i32) -> Result<Vec<usize>, Error> {
        dispatch!(self, s, W, H, {
            Ok(s.principal_variation(&Position::<W, H>::parse(moves)?, score)?)
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

    /// Answers every position the book covers from it from now on (`None` removes it);
    /// refuses a book for another board size.
    pub fn set_book(&mut self, book: Option<Book>) -> Result<(), Error> {
        if let Some(b) = &book {
            let board = self.board();
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

    /// The attached book.
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
            W,
            H,
            Ok(book::build::<W, H>(s, opts, on_progress)?)
        )
    }

    /// Re-solves `k` random entries of `book` (see [`book::verify`]).
    pub fn verify_book(
        &self,
        book: &Book,
        k: usize,
        seed: u64,
        on_progress: &(dyn Fn(book::Progress) + Sync),
    ) -> Result<usize, Error> {
        dispatch!(self, s, W, H, {
            Ok(book::verify::<W, H>(book, s, k, seed, on_progress)?)
        })
    }

    /// Positions per depth `0..=plies` of a book for this board (see
    /// [`book::count_positions`]).
    pub fn count_book_positions(&self, plies: u32) -> Vec<usize> {
        dispatch!(self, _s, W, H, book::count_positions::<W, H>(plies))
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
