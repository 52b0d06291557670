//! fourfold: a multi-threaded Connect-4 solver.
//!
//! fourfold computes the exact game-theoretic value of Connect-4 positions, the empty board
//! included, on one lock-free transposition table shared by all threads (Lazy SMP).
//!
//! # Contents
//!
//! - [Quick start](#quick-start)
//! - [Scores](#scores)
//! - [Modules](#modules)
//! - [Threads](#threads)
//!
//! # Quick start
//!
//! ```
//! use fourfold::{Position, Solver};
//!
//! let solver: Solver = Solver::builder().table_mib(16).threads(1).build()?;
//! let p: Position = "44455554221".parse()?;
//! let s = solver.solve(&p)?;
//! let a = solver.analyze(&p)?;
//! // The best move of `solve` is one of the best columns of `analyze`.
//! assert_eq!(a.scores[s.best_move.unwrap()], Some(s.score));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Scores
//!
//! A score is for the player to move. A win on move `m` of the game (both players' stones
//! counted from 1) scores `(W * H + 2 - m) / 2`, rounded down: with their `s`-th stone, the
//! first player scores `(W * H + 1) / 2 + 1 - s` and the second `W * H / 2 + 1 - s` (on 7 x
//! 6 both `22 - s`, from 18 for the quickest win down to 1; on 5 x 5 the first player's win
//! with its last stone scores 1). A loss is the negation of the winner's score, a draw is 0
//! ([`Outcome::from_score`] reads a score back into words). The weak solve answers only
//! 1, 0 or -1. The empty 7 x 6 board scores 1: the first player wins with their last stone.
//!
//! # Modules
//!
//! In the order data flows through them, from a move string to an answer:
//!
//! - [`bitboard`]: the words (`u64`, `u128`) positions are generic over.
//! - [`position`]: the bitboard, its exact key, mirror and move strings.
//! - [`table`]: the shared lock-free transposition table and the proof that it never returns
//!   another position's entry.
//! - `ordering` (internal): move ordering, and the centre-first tie-break of the best move.
//! - `search` (internal): one thread's negamax, its bounds (the parity rules with their
//!   arguments) and the null-window driver; [`Params`] tunes it.
//! - [`solver`]: the public [`Solver`] and the Lazy SMP driver over the search threads.
//! - [`engine`]: [`Engine`], a solver of a board size chosen at run time that takes move
//!   strings: the entry point of every front end.
//! - [`outcome`]: scores in words (who wins, on which move).
//! - [`book`]: the opening book: its file format, lookup and parallel build.
//! - [`checkpoint`]: the checkpoint file of a long solve: the table's expensive entries,
//!   written atomically and loaded back.
//! - [`service`]: the request handler of `fourfold serve` (JSON lines and HTTP).
//! - [`published`]: the published whole-board results of other board sizes, to check against.
//! - [`testset`]: reading the benchmark test-set format.
//! - [`experiment`]: measurements of the design that need the internals (the check-bits
//!   experiment: what a table keeping fewer check bits than the exact width would cost).
//!
//! # Threads
//!
//! [`SolverBuilder::threads`] puts that many threads on each solve. Answers do not depend on
//! the number of threads; node counts do.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bitboard;
pub mod book;
pub mod checkpoint;
mod dims;
pub mod engine;
pub mod experiment;
mod ordering;
pub mod outcome;
pub mod position;
pub mod published;
mod search;
pub mod service;
pub mod solver;
mod sync;
pub mod table;
pub mod testset;

pub use bitboard::Bitboard;
pub use book::{Book, BookError};
pub use checkpoint::CheckpointError;
pub use engine::{BoardSize, Engine, Error, ErrorKind, PositionInfo};
pub use outcome::{Outcome, Player};
pub use position::{ParseError, ParseErrorKind, Position};
pub use search::Params;
pub use solver::Source;
pub use solver::MAX_THREADS;
pub use solver::{
    Analysis, Bounds, BuildError, Interrupted, RootBounds, Solution, Solver, SolverBuilder, Step,
    WindowResult, DEFAULT_TABLE_MIB,
};
pub use sync::StopFlag;
pub use table::Table;

/// The instruction-set level every search of this process runs at: `"x86-64-v4"` or
/// `"x86-64-v3"` where the build dispatches at run time to code compiled for that level
/// (builds without `target-cpu=native` on x86-64), else `"build's own"` (the build's target
/// features). Capped by the environment variable `FOURFOLD_CPU` (`baseline`, `x86-64-v3`).
pub fn search_level() -> &'static str {
    search::isa::level_name(search::isa::level())
}
