//! The `fourfold` Python module: `Solver`, `Solution`, `Analysis` and `Position`.
//!
//! This crate only converts between Python objects and the library's [`fourfold_lib::Engine`]
//! calls: every solve, parse and error message is the library's (an error's `Display` becomes
//! the `ValueError` message, as on the command line). It adds no search, scoring or parsing
//! of its own beyond turning 1-indexed columns into move-string digits. The GIL is released
//! while solving; Ctrl-C handling is in [`interrupt`].
#![deny(missing_docs)]

mod interrupt;

use fourfold_lib::position::column_char;
use fourfold_lib::{BoardSize, CheckpointError, Engine, ErrorKind, PositionInfo, SolverBuilder};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::hash::{Hash, Hasher};

/// A library error as a Python exception with the library's message: `ValueError` for bad
/// input (a position, a board size, solver settings, a book, an empty search window, a
/// damaged or foreign checkpoint file), `OSError` for a checkpoint file that could not be
/// read or written, `RuntimeError` for a solve stopped otherwise than by Ctrl-C (with the
/// stopped search's `nodes` and the bounds it proved, `lower` and `upper`, as attributes).
/// Every kind is named (no catch-all), so a new one must be given its exception here.
fn to_py(e: fourfold_lib::Error) -> PyErr {
    let msg = e.to_string();
    match e.kind() {
        ErrorKind::Interrupted(i) => {
            // What the stopped search proved and cost, for callers that account for it
            // (`fourfold.distributed` counts a stopped task's nodes).
            let err = PyRuntimeError::new_err(msg);
            Python::attach(|py| {
                let v = err.value(py);
                let _ = v.setattr("nodes", i.nodes);
                let _ = v.setattr("lower", i.lower);
                let _ = v.setattr("upper", i.upper);
            });
            err
        }
        ErrorKind::Position(_)
        | ErrorKind::Build(_)
        | ErrorKind::Board(_)
        | ErrorKind::Book(_)
        | ErrorKind::Window(_) => PyValueError::new_err(msg),
        ErrorKind::Checkpoint(CheckpointError::Io(_)) => PyOSError::new_err(msg),
        // Truncated, corrupt, another format or board: a file that is not a usable input.
        ErrorKind::Checkpoint(_) => PyValueError::new_err(msg),
    }
}

/// A count argument as `usize`: any Python int, a negative one a `ValueError` of `floor`'s
/// wording ("..., not -1"), one beyond `usize` saturated (the library then refuses it).
fn count(obj: &Bound<'_, PyAny>, floor: &str) -> PyResult<usize> {
    let n: i128 = match obj.extract::<i128>() {
        Ok(n) => n,
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => {
            if obj.gt(0)? {
                i128::MAX
            } else {
                i128::MIN
            }
        }
        Err(e) => return Err(e),
    };
    if n < 0 {
        return Err(PyValueError::new_err(format!(
            "{floor}, not {}",
            obj.str()?
        )));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The move string of a `str` or `Position` argument (of the `board` size), given to `f`.
fn with_moves<R>(
    obj: &Bound<'_, PyAny>,
    board: BoardSize,
    f: impl FnOnce(&str) -> R,
) -> PyResult<R> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(f(s.to_str()?));
    }
    if let Ok(p) = obj.cast::<Position>() {
        let p = p.get();
        if p.board != board {
            return Err(PyValueError::new_err(format!(
                "the position is on a {} board, the solver's is {board}",
                p.board
            )));
        }
        return Ok(f(&p.moves));
    }
    Err(PyTypeError::new_err(format!(
        "a position is a move string or a fourfold.Position, not {}",
        obj.get_type().name()?
    )))
}

/// Stones in a move string the library has accepted (one ASCII digit each).
fn stones(moves: &str) -> u32 {
    moves.trim().len() as u32
}

/// The result of a solve.
///
/// Attributes:
///     score: the score for the player to move (see the README: 22 - s for a win with the
///         s-th stone on 7x6, its negation for a loss, 0 for a draw; -1/0/1 when weak).
///     best_move: the column (1-indexed) that achieves it, the first in the centre-first
///         order (4 3 5 2 6 1 7 on 7 columns) when several do, as on every front end; None
///         when the board is full.
///     nodes: nodes searched.
///     micros: wall time of the solve in microseconds (a float).
///     outcome: the end of the game with perfect play in words ("first player wins on move
///         41", "draw"); None for a weak solve, whose score does not say when.
///     weak: True for a win/draw/loss (weak) solve.
///     source: "book" (answered from the opening book, no search) or "search".
#[pyclass(frozen, get_all, module = "fourfold")]
#[derive(Clone)]
pub struct Solution {
    score: i32,
    best_move: Option<usize>,
    nodes: u64,
    micros: f64,
    outcome: Option<String>,
    weak: bool,
    source: &'static str,
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        let best = self
            .best_move
            .map_or_else(|| "None".to_string(), |c| c.to_string());
        let outcome = self
            .outcome
            .as_ref()
            .map_or_else(|| "None".to_string(), |o| format!("{o:?}"));
        format!(
            "Solution(score={}, best_move={best}, nodes={}, micros={:.1}, outcome={outcome}, weak={}, source={:?})",
            self.score,
            self.nodes,
            self.micros,
            if self.weak { "True" } else { "False" },
            self.source
        )
    }
}

impl Solution {
    fn new(board: BoardSize, moves: &str, s: fourfold_lib::Solution, weak: bool) -> Self {
        Solution {
            score: s.score,
            best_move: s.best_move.map(|c| c + 1),
            nodes: s.nodes,
            micros: s.elapsed.as_secs_f64() * 1e6,
            outcome: (!weak)
                .then(|| board.outcome(s.score, stones(moves)))
                .flatten()
                .map(|o| o.to_string()),
            weak,
            source: s.source.as_str(),
        }
    }
}

/// The score of every column of a position (Solver.analysis).
///
/// Attributes:
///     scores: for each column (index 0 is column 1), the score for the player to move after
///         playing there; None for a full column.
///     best_move: the best column (1-indexed), the same as solve's; None on a full board.
///     best_moves: every column with the best score (1-indexed), the best move first.
///     nodes: nodes searched.
///     micros: wall time in microseconds (a float).
///     source: "book" (answered from the opening book, no search) or "search".
#[pyclass(frozen, get_all, module = "fourfold")]
#[derive(Clone)]
pub struct Analysis {
    scores: Vec<Option<i32>>,
    best_move: Option<usize>,
    best_moves: Vec<usize>,
    nodes: u64,
    micros: f64,
    source: &'static str,
}

#[pymethods]
impl Analysis {
    fn __repr__(&self) -> String {
        let scores: Vec<String> = self
            .scores
            .iter()
            .map(|s| s.map_or_else(|| "None".to_string(), |v| v.to_string()))
            .collect();
        let best = self
            .best_move
            .map_or_else(|| "None".to_string(), |c| c.to_string());
        format!(
            "Analysis(scores=[{}], best_move={best}, nodes={}, micros={:.1}, source={:?})",
            scores.join(", "),
            self.nodes,
            self.micros,
            self.source
        )
    }
}

impl From<fourfold_lib::Analysis> for Analysis {
    fn from(a: fourfold_lib::Analysis) -> Self {
        Analysis {
            best_move: a.best_move().map(|c| c + 1),
            best_moves: a.best_columns().iter().map(|c| c + 1).collect(),
            nodes: a.nodes,
            micros: a.elapsed.as_secs_f64() * 1e6,
            source: a.source.as_str(),
            scores: a.scores,
        }
    }
}

/// The result of Solver.solve_window: what one search with the window (alpha, beta) proved.
///
/// Attributes:
///     value: the value the search returned.
///     bound: "exact" (the score is value, alpha < value < beta), "lower" (the score is at
///         least value, value >= beta) or "upper" (at most value, value <= alpha).
///     nodes: nodes searched.
///     micros: wall time in microseconds (a float).
#[pyclass(frozen, get_all, module = "fourfold")]
#[derive(Clone)]
pub struct WindowResult {
    value: i32,
    bound: &'static str,
    nodes: u64,
    micros: f64,
}

#[pymethods]
impl WindowResult {
    /// True when the score is proven above x, False when proven at most x, None when this
    /// result does not decide it.
    fn above(&self, x: i32) -> Option<bool> {
        match self.bound {
            "exact" => Some(self.value > x),
            "lower" => (self.value > x).then_some(true),
            _ => (self.value <= x).then_some(false),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "WindowResult(value={}, bound={:?}, nodes={}, micros={:.1})",
            self.value, self.bound, self.nodes, self.micros
        )
    }
}

impl From<fourfold_lib::WindowResult> for WindowResult {
    fn from(r: fourfold_lib::WindowResult) -> Self {
        use fourfold_lib::table::Bound;
        WindowResult {
            value: r.value,
            bound: match r.bound {
                Bound::Exact => "exact",
                Bound::Lower => "lower",
                Bound::Upper => "upper",
            },
            nodes: r.nodes,
            micros: r.elapsed.as_secs_f64() * 1e6,
        }
    }
}

/// A Connect-4 solver with its own transposition table, reused across solves.
///
/// Solver(table_mib=256, threads=None, board="7x6", book="shipped")
///
/// table_mib: table size in MiB (at least 1). threads: threads per solve, and for
/// solve_many the number of positions solved at once (default: all cores). board: "WxH",
/// any size the command line's --board takes (widths 4-12, heights 4-13, positions of up to
/// 128 bits). book: "shipped" (the default: the opening book inside the library on 7x6, none
/// on other boards), the path of a book file (`fourfold book build`), or None to search every
/// position. Every Solution and Analysis says its source ("book" or "search").
///
/// Positions are move strings ("4453": 1-indexed columns, first player first; columns 10-12
/// are a, b, c) or Position objects (of the solver's board size). Bad input raises
/// ValueError with the command line's message. The GIL is released
/// while solving, and Ctrl-C (on the main thread, on Linux) stops a solve and raises
/// KeyboardInterrupt.
#[pyclass(frozen, module = "fourfold")]
pub struct Solver {
    engine: Engine,
    table_mib: usize,
    /// The `book` argument as given ("shipped", a path, or None).
    book: Option<String>,
}

/// The `book` argument that keeps the engine's own book.
const SHIPPED: &str = "shipped";

#[pymethods]
impl Solver {
    #[new]
    #[pyo3(signature = (table_mib = None, threads = None, board = "7x6", book = Some(std::path::PathBuf::from(SHIPPED))))]
    fn new(
        table_mib: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        board: &str,
        book: Option<std::path::PathBuf>,
    ) -> PyResult<Self> {
        let board: BoardSize = board.parse().map_err(to_py)?;
        // Any Python int is taken (no OverflowError): a negative one gets the library's
        // message for 0 with the value given; one too large, the library's own message for
        // a too large value.
        let table_mib = table_mib
            .map(|t| count(t, "table size must be at least 1 MiB"))
            .transpose()?
            .unwrap_or(fourfold_lib::DEFAULT_TABLE_MIB);
        let threads = threads
            .map(|t| count(t, "the number of threads must be at least 1"))
            .transpose()?;
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        let builder = SolverBuilder::default()
            .table_mib(table_mib)
            .threads(threads);
        let mut engine = Engine::new(board, builder).map_err(to_py)?;
        match &book {
            None => engine.set_book(None).map_err(to_py)?,
            Some(p) if p.as_os_str() == SHIPPED => {}
            Some(p) => {
                let b = fourfold_lib::Book::load(p)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                engine
                    .set_book(Some(b))
                    .map_err(|e| PyValueError::new_err(format!("{}: {e}", p.display())))?;
            }
        }
        let book = book.map(|p| p.display().to_string());
        Ok(Solver {
            engine,
            table_mib,
            book,
        })
    }

    /// The exact score of a position, and a best move.
    fn solve(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Solution> {
        self.one(py, position, false)
    }

    /// Win (1), draw (0) or loss (-1) for the player to move, and a move that keeps it.
    /// Faster than solve.
    fn solve_weak(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Solution> {
        self.one(py, position, true)
    }

    /// The score of every column (index 0 is column 1) for the player to move: what they get
    /// by playing there; None for a full column. Solver.analysis gives the best move and the
    /// source too.
    fn analyze(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<Option<i32>>> {
        let r = with_moves(position, self.engine.board(), |m| {
            interrupt::run(py, &self.engine.stop_flag(), || self.engine.analyze(m))
        })??;
        Ok(r.map_err(to_py)?.scores)
    }

    /// As analyze, with the best move (the same as solve's), nodes, time and the source.
    fn analysis(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Analysis> {
        let r = with_moves(position, self.engine.board(), |m| {
            interrupt::run(py, &self.engine.stop_flag(), || self.engine.analyze(m))
        })??;
        Ok(r.map_err(to_py)?.into())
    }

    /// Solves a batch, one position per thread at a time on the shared table, and returns the
    /// solutions in input order. `positions` is any iterable of move strings or Positions.
    /// Every position is checked before any is solved: the first bad one raises ValueError
    /// "position <index>: <message>" (0-based index). weak=True gives win/draw/loss only.
    #[pyo3(signature = (positions, weak = false))]
    fn solve_many(
        &self,
        py: Python<'_>,
        positions: &Bound<'_, PyAny>,
        weak: bool,
    ) -> PyResult<Vec<Solution>> {
        let mut batch: Vec<String> = Vec::new();
        for (i, item) in positions.try_iter()?.enumerate() {
            let item = item?;
            let moves = with_moves(&item, self.engine.board(), str::to_owned)?;
            if let Err(e) = self.engine.check(&moves) {
                return Err(PyValueError::new_err(format!("position {i}: {e}")));
            }
            batch.push(moves);
        }
        let results = interrupt::run(py, &self.engine.stop_flag(), || {
            self.engine.solve_many(&batch, weak)
        })?;
        let board = self.engine.board();
        results
            .into_iter()
            .zip(&batch)
            .map(|(r, m)| Ok(Solution::new(board, m, r.map_err(to_py)?, weak)))
            .collect()
    }

    /// One search of a position with the window (alpha, beta), alpha < beta, on the solver's
    /// threads and table, without the book: a WindowResult saying the score is exactly, at
    /// least or at most its value. "Is the score above x?" is solve_window(p, x, x + 1).
    /// A stop raises RuntimeError (KeyboardInterrupt for Ctrl-C), never a guess, with the
    /// nodes searched until then as its `nodes` attribute; an empty window or a bad
    /// position, ValueError.
    fn solve_window(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        alpha: i32,
        beta: i32,
    ) -> PyResult<WindowResult> {
        let r = with_moves(position, self.engine.board(), |m| {
            interrupt::run(py, &self.engine.stop_flag(), || {
                self.engine.solve_window(m, alpha, beta)
            })
        })??;
        Ok(r.map_err(to_py)?.into())
    }

    /// The positions an opening book of depth `plies` holds on this board, as move strings
    /// (one per position up to mirror image, without those where the player to move wins at
    /// once), in the book's order: what `fourfold book build` solves.
    fn book_positions(&self, plies: u32) -> PyResult<Vec<String>> {
        self.engine.book_positions(plies).map_err(to_py)
    }

    /// Writes the opening book of depth `plies` made of `scores`, an iterable of
    /// (move string, exact score) pairs that must cover exactly book_positions(plies) (a
    /// mirror image stands for its position), to `path`: the file `fourfold book build`
    /// writes when the scores are right. ValueError names a missing, extra or bad entry.
    fn write_book(
        &self,
        path: std::path::PathBuf,
        plies: u32,
        scores: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let mut entries: Vec<(String, i32)> = Vec::new();
        for item in scores.try_iter()? {
            entries.push(item?.extract()?);
        }
        let book = self
            .engine
            .book_from_scores(plies, &entries)
            .map_err(to_py)?;
        book.save(&path)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Asks the solves in progress (in other Python threads) to stop: they raise
    /// RuntimeError. With no solve in progress, the next solve is stopped.
    fn stop(&self) {
        self.engine.stop_flag().raise();
    }

    /// Threads per solve.
    #[getter]
    fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// Table size in MiB.
    #[getter]
    fn table_mib(&self) -> usize {
        self.table_mib
    }

    /// The board size, "WxH".
    #[getter]
    fn board(&self) -> String {
        self.engine.board().to_string()
    }

    /// The book argument: "shipped", a path, or None.
    #[getter]
    fn book(&self) -> Option<String> {
        self.book.clone()
    }

    /// The depth of the book in use (its positions have this many stones; it answers every
    /// position with fewer), or None when there is no book.
    #[getter]
    fn book_plies(&self) -> Option<u32> {
        self.engine.book().map(|b| b.plies())
    }

    fn __repr__(&self) -> String {
        format!(
            "Solver(table_mib={}, threads={}, board={:?}, book={})",
            self.table_mib,
            self.engine.threads(),
            self.engine.board().to_string(),
            self.book
                .as_ref()
                .map_or_else(|| "None".to_string(), |b| format!("{b:?}"))
        )
    }
}

impl Solver {
    fn one(&self, py: Python<'_>, position: &Bound<'_, PyAny>, weak: bool) -> PyResult<Solution> {
        let board = self.engine.board();
        with_moves(position, board, |m| {
            let r = interrupt::run(py, &self.engine.stop_flag(), || {
                if weak {
                    self.engine.solve_weak(m)
                } else {
                    self.engine.solve(m)
                }
            })?;
            Ok(Solution::new(board, m, r.map_err(to_py)?, weak))
        })?
    }
}

/// A Connect-4 position on any board the Solver takes, immutable: play returns a new
/// Position.
///
/// Position(moves="", board="7x6") parses a move string (1-indexed columns, first player
/// first; columns 10-12 are a, b, c) and raises ValueError with the command line's message
/// for an illegal one or one whose game is already won. A Position reached by play may be won
/// (is_won); it cannot be solved then. Every rule (parse, play, wins) is the library's.
#[pyclass(frozen, module = "fourfold")]
#[derive(Clone)]
pub struct Position {
    board: BoardSize,
    moves: String,
    info: PositionInfo,
    won: bool,
}

impl Position {
    fn parse_on(board: BoardSize, moves: &str) -> PyResult<Self> {
        let moves = moves.trim();
        let info = board.check(moves).map_err(to_py)?;
        Ok(Position {
            board,
            moves: moves.to_string(),
            info,
            won: false,
        })
    }

    /// The position after `column` (0-based) on `moves` (a legal, unfinished game).
    fn after(board: BoardSize, moves: &str, column: usize) -> PyResult<Self> {
        let (info, won) = board.play(moves, column).map_err(to_py)?;
        let ch = column_char(column).expect("a played column has a character");
        Ok(Position {
            board,
            moves: format!("{moves}{ch}"),
            info,
            won,
        })
    }

    /// True when column (0-based) has room and the game is not over.
    fn playable(&self, col: usize) -> bool {
        !self.won && self.info.playable.get(col).copied().unwrap_or(false)
    }
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (moves = "", board = "7x6"))]
    fn new(moves: &str, board: &str) -> PyResult<Self> {
        let board: BoardSize = board.parse().map_err(to_py)?;
        Self::parse_on(board, moves)
    }

    /// Parses a move string (as the constructor; board="7x6" by default).
    #[staticmethod]
    #[pyo3(signature = (moves, board = "7x6"))]
    fn parse(moves: &str, board: &str) -> PyResult<Self> {
        Self::new(moves, board)
    }

    /// The position after the player to move drops a stone in `column` (1-indexed). Playing
    /// a winning move gives a won position; playing after one raises ValueError.
    fn play(&self, column: i64) -> PyResult<Self> {
        let col = usize::try_from(column)
            .ok()
            .and_then(|c| c.checked_sub(1))
            .filter(|&c| column_char(c).is_some())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "column {column} is out of range (1 to {})",
                    self.board.width
                ))
            })?;
        if self.won {
            // Illegal: the library's parse of the longer string says why.
            let longer = format!("{}{}", self.moves, column_char(col).unwrap_or('?'));
            return Err(to_py(
                self.board
                    .check(&longer)
                    .expect_err("a move after a win parsed"),
            ));
        }
        Self::after(self.board, &self.moves, col)
    }

    /// The move string.
    #[getter]
    fn moves(&self) -> &str {
        &self.moves
    }

    /// The board size, "WxH".
    #[getter]
    fn board(&self) -> String {
        self.board.to_string()
    }

    /// The columns (1-indexed) the player to move can play; empty when the game is over.
    fn legal_moves(&self) -> Vec<usize> {
        (0..self.board.width)
            .filter(|&c| self.playable(c))
            .map(|c| c + 1)
            .collect()
    }

    /// True when column (1-indexed) has room and the game is not over.
    fn can_play(&self, column: usize) -> bool {
        column >= 1 && self.playable(column - 1)
    }

    /// True when the player to move can win at once by playing `column` (1-indexed).
    fn is_winning_move(&self, column: usize) -> bool {
        self.can_play(column) && self.info.winning[column - 1]
    }

    /// True when the last move completed a four.
    #[getter]
    fn is_won(&self) -> bool {
        self.won
    }

    /// True when every cell is taken.
    #[getter]
    fn is_full(&self) -> bool {
        self.info.moves as usize == self.board.width * self.board.height
    }

    /// The player to move: 1 (first) or 2 (second).
    #[getter]
    fn to_move(&self) -> u32 {
        self.info.moves % 2 + 1
    }

    /// The mirror image (column c becomes width + 1 - c); it has the same score.
    fn mirror(&self) -> PyResult<Self> {
        let w = self.board.width;
        let cols: Vec<usize> = self
            .moves
            .chars()
            .map(|ch| {
                (0..w)
                    .find(|&c| column_char(c) == Some(ch.to_ascii_lowercase()))
                    .expect("a parsed move string names columns")
            })
            .collect();
        let mirrored: String = cols
            .iter()
            .map(|&c| column_char(w - 1 - c).expect("a column of the board"))
            .collect();
        match (self.won, cols.last()) {
            (true, Some(&last)) => {
                let mut m = Self::after(self.board, &mirrored[..mirrored.len() - 1], w - 1 - last)?;
                m.moves = mirrored;
                Ok(m)
            }
            _ => Self::parse_on(self.board, &mirrored),
        }
    }

    /// Number of stones played.
    fn __len__(&self) -> usize {
        self.info.moves as usize
    }

    /// The board, top row first: X first player, O second, . empty; column numbers below.
    fn __str__(&self) -> String {
        self.info.text.clone()
    }

    fn __repr__(&self) -> String {
        if self.board == BoardSize::STANDARD {
            format!("Position({:?})", self.moves)
        } else {
            format!(
                "Position({:?}, board={:?})",
                self.moves,
                self.board.to_string()
            )
        }
    }

    /// Equal when the board size and the stones are the same (whatever the move order).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Position>().is_ok_and(|o| {
            let o = o.get();
            o.board == self.board && o.info.rows == self.info.rows && o.won == self.won
        })
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.board.width, self.board.height).hash(&mut h);
        self.info.rows.hash(&mut h);
        h.finish()
    }
}

/// The columns (1-indexed) of a board from the centre outwards (4 3 5 2 6 1 7 on 7x6): the
/// search's order and the one tie-break rule of the best move (the first best column in it).
#[pyfunction]
#[pyo3(signature = (board = "7x6"))]
fn centre_order(board: &str) -> PyResult<Vec<usize>> {
    let board: BoardSize = board.parse().map_err(to_py)?;
    Ok(board.centre_order().iter().map(|c| c + 1).collect())
}

/// fourfold: a multi-threaded Connect-4 solver.
///
/// Solver solves positions (exact score, win/draw/loss, every column, batches across
/// threads, one search window); Position parses and plays move strings; Solution, Analysis
/// and WindowResult are results. The package `fourfold` (pysrc/fourfold/__init__.py)
/// re-exports this module, `fourfold._fourfold`.
#[pymodule]
#[pyo3(name = "_fourfold")]
fn fourfold(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Solver>()?;
    m.add_class::<Solution>()?;
    m.add_class::<Analysis>()?;
    m.add_class::<Position>()?;
    m.add_class::<WindowResult>()?;
    m.add_function(wrap_pyfunction!(centre_order, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
