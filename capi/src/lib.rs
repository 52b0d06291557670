//! The C interface of fourfold: `libfourfold.so` and `include/fourfold.h`.
//!
//! This crate only converts between C values and the library's [`fourfold_lib::Engine`]
//! calls: every solve, parse and error message is the library's (an error's `Display` is the
//! message [`ff_last_error`] returns, as on the command line). It adds no search, scoring or
//! parsing. Every function catches panics: none crosses into C (a panic is a bug, reported
//! as `FF_ERR_INTERNAL`).
//!
//! The header is written by hand; CI compiles the C test (`capi/tests/check.c`, which calls
//! every function) against it with `-Wall -Werror` and checks its answers against the test
//! sets, which is what keeps the two in step.
//!
//! Threads: a solver may be used by several threads at once (each call runs its own solve
//! on the shared table), except that `ff_solver_free` must not race any other call on the
//! same solver. The last error message is per thread.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use fourfold_lib::{BoardSize, Engine, ErrorKind, SolverBuilder};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Success.
pub const FF_OK: c_int = 0;
/// The move string is not a legal, unfinished game on the solver's board.
pub const FF_ERR_POSITION: c_int = 1;
/// The solve was stopped by `ff_solver_stop` before it finished.
pub const FF_ERR_INTERRUPTED: c_int = 2;
/// The solver could not be built (table size, threads).
pub const FF_ERR_BUILD: c_int = 3;
/// The board size is not supported.
pub const FF_ERR_BOARD: c_int = 4;
/// A null pointer, a string that is not UTF-8, an output array too short, or another
/// argument out of its range (such as an empty search window, `alpha >= beta`).
pub const FF_ERR_ARGUMENT: c_int = 5;
/// A bug in fourfold (a Rust panic, caught).
pub const FF_ERR_INTERNAL: c_int = 6;
/// An opening book that could not be read or is for another board size.
pub const FF_ERR_BOOK: c_int = 7;
/// A checkpoint file that could not be written or read, or is corrupt, truncated or for
/// another board size (the library's `ErrorKind::Checkpoint`; no C function takes a
/// checkpoint yet, the code is there so that every library error has its own).
pub const FF_ERR_CHECKPOINT: c_int = 8;

/// `source` of an answer found by a search.
pub const FF_SOURCE_SEARCH: i32 = 0;
/// `source` of an answer read from the opening book (no search).
pub const FF_SOURCE_BOOK: i32 = 1;

/// The score of a full column in `ff_analyze`'s output.
pub const FF_COLUMN_FULL: i32 = i32::MIN;

/// An opaque solver (its own transposition table).
pub struct FfSolver {
    engine: Engine,
}

/// The result of a solve (`ff_solution` in the header).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct FfSolution {
    /// Score for the player to move (or -1/0/1 for a weak solve).
    pub score: i32,
    /// A best column, 1-indexed; 0 when the board is full.
    pub best_move: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in microseconds.
    pub micros: u64,
    /// Where the answer came from: `FF_SOURCE_SEARCH` or `FF_SOURCE_BOOK`.
    pub source: i32,
}

fn source(s: fourfold_lib::Source) -> i32 {
    match s {
        fourfold_lib::Source::Search => FF_SOURCE_SEARCH,
        fourfold_lib::Source::Book => FF_SOURCE_BOOK,
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// The status of a library error, its message made the last error. Every kind is named (no
/// catch-all): a new kind must be given its code here before this compiles.
fn status_of(e: &fourfold_lib::Error) -> c_int {
    set_error(&e.to_string());
    match e.kind() {
        ErrorKind::Position(_) => FF_ERR_POSITION,
        ErrorKind::Interrupted(_) => FF_ERR_INTERRUPTED,
        ErrorKind::Build(_) => FF_ERR_BUILD,
        ErrorKind::Board(_) => FF_ERR_BOARD,
        ErrorKind::Book(_) => FF_ERR_BOOK,
        ErrorKind::Window(_) => FF_ERR_ARGUMENT,
        ErrorKind::Checkpoint(_) => FF_ERR_CHECKPOINT,
    }
}

/// Runs `f`, turning a panic into `FF_ERR_INTERNAL` and clearing the last error on success.
fn guarded(f: impl FnOnce() -> c_int) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(FF_OK) => {
            set_error("");
            FF_OK
        }
        Ok(status) => status,
        Err(_) => {
            set_error("internal error in fourfold (a bug: please report it)");
            FF_ERR_INTERNAL
        }
    }
}

fn argument(msg: &str) -> c_int {
    set_error(msg);
    FF_ERR_ARGUMENT
}

/// The solver behind `s`, or an argument error.
///
/// # Safety
/// `s` is null or a pointer returned by `ff_solver_new` and not yet freed.
unsafe fn solver<'a>(s: *const FfSolver) -> Result<&'a FfSolver, c_int> {
    // SAFETY: the caller promises `s` is null or live; `as_ref` handles null.
    unsafe { s.as_ref() }.ok_or_else(|| argument("the solver is a null pointer"))
}

/// The string behind `moves`, or an argument error.
///
/// # Safety
/// `moves` is null or points to a NUL-terminated string that outlives `'a`.
unsafe fn text<'a>(moves: *const c_char) -> Result<&'a str, c_int> {
    if moves.is_null() {
        return Err(argument("the move string is a null pointer"));
    }
    // SAFETY: non-null, and the caller promises a NUL-terminated string.
    unsafe { CStr::from_ptr(moves) }
        .to_str()
        .map_err(|_| argument("the move string is not UTF-8"))
}

fn solution(s: &fourfold_lib::Solution) -> FfSolution {
    FfSolution {
        score: s.score,
        best_move: s.best_move.map_or(0, |c| c as i32 + 1),
        nodes: s.nodes,
        micros: s.elapsed.as_micros() as u64,
        source: source(s.source),
    }
}

/// Creates a solver with a table of `table_mib` MiB, `threads` threads per solve, for
/// `width` x `height` boards, into `*out`. On error `*out` is left alone.
///
/// # Safety
/// `out` is null (an argument error) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ff_solver_new(
    table_mib: u32,
    threads: u32,
    width: u32,
    height: u32,
    out: *mut *mut FfSolver,
) -> c_int {
    guarded(|| {
        if out.is_null() {
            return argument("the output pointer is null");
        }
        let board = BoardSize {
            width: width as usize,
            height: height as usize,
        };
        let builder = SolverBuilder::default()
            .table_mib(table_mib as usize)
            .threads(threads as usize);
        match Engine::new(board, builder) {
            Ok(engine) => {
                let p = Box::into_raw(Box::new(FfSolver { engine }));
                // SAFETY: `out` is non-null and the caller promises it is valid for a write.
                unsafe { out.write(p) };
                FF_OK
            }
            Err(e) => status_of(&e),
        }
    })
}

/// Frees a solver. Null is allowed (nothing happens).
///
/// # Safety
/// `s` is null or a pointer returned by `ff_solver_new`, not freed before, and not used by
/// any other call during or after this one.
#[no_mangle]
pub unsafe extern "C" fn ff_solver_free(s: *mut FfSolver) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` came from `Box::into_raw` in `ff_solver_new` and is freed only here, once.
    let b = unsafe { Box::from_raw(s) };
    // A panic in a destructor must not unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
}

/// Sets the solver's opening book: the book file at `path` (written by `fourfold book
/// build`), or none when `path` is null (every position is then searched). A new solver of
/// the 7 x 6 board starts with the book shipped inside the library. On error the solver
/// keeps its book.
///
/// # Safety
/// `s` is null or a live solver not used by any other call during this one; `path` is null
/// or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ff_solver_set_book(s: *mut FfSolver, path: *const c_char) -> c_int {
    guarded(|| {
        // SAFETY: the caller promises `s` is null or live and not used elsewhere meanwhile;
        // `as_mut` handles null.
        let Some(s) = (unsafe { s.as_mut() }) else {
            return argument("the solver is a null pointer");
        };
        let book = if path.is_null() {
            None
        } else {
            // SAFETY: non-null, and the caller promises a NUL-terminated string.
            let Ok(p) = unsafe { CStr::from_ptr(path) }.to_str() else {
                return argument("the book path is not UTF-8");
            };
            match fourfold_lib::Book::load(p) {
                Ok(b) => Some(b),
                Err(e) => {
                    set_error(&e.to_string());
                    return FF_ERR_BOOK;
                }
            }
        };
        match s.engine.set_book(book) {
            Ok(()) => FF_OK,
            Err(e) => status_of(&e),
        }
    })
}

/// One solve, exact or weak.
///
/// # Safety
/// As `ff_solve`.
unsafe fn solve_one(
    s: *const FfSolver,
    moves: *const c_char,
    out: *mut FfSolution,
    weak: bool,
) -> c_int {
    guarded(|| {
        // SAFETY: forwarded from the caller's promises.
        let (s, m) = match unsafe { (solver(s), text(moves)) } {
            (Ok(s), Ok(m)) => (s, m),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        if out.is_null() {
            return argument("the output pointer is null");
        }
        let r = if weak {
            s.engine.solve_weak(m)
        } else {
            s.engine.solve(m)
        };
        match r {
            Ok(sol) => {
                // SAFETY: non-null, and the caller promises it is valid for a write.
                unsafe { out.write(solution(&sol)) };
                FF_OK
            }
            Err(e) => status_of(&e),
        }
    })
}

/// The exact score of the position `moves` (1-indexed columns, e.g. "4453") and a best
/// move, into `*out`.
///
/// # Safety
/// `s` is null or a live solver; `moves` is null or a NUL-terminated string; `out` is null
/// or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ff_solve(
    s: *const FfSolver,
    moves: *const c_char,
    out: *mut FfSolution,
) -> c_int {
    // SAFETY: the caller's promises are `solve_one`'s.
    unsafe { solve_one(s, moves, out, false) }
}

/// Win (1), draw (0) or loss (-1) for the player to move and a move keeping it, into `*out`.
///
/// # Safety
/// As `ff_solve`.
#[no_mangle]
pub unsafe extern "C" fn ff_solve_weak(
    s: *const FfSolver,
    moves: *const c_char,
    out: *mut FfSolution,
) -> c_int {
    // SAFETY: the caller's promises are `solve_one`'s.
    unsafe { solve_one(s, moves, out, true) }
}

/// The score of every column of the position for the player to move into `scores[0..width]`
/// (`FF_COLUMN_FULL` for a full column); `len` is the array's length, at least the board
/// width.
///
/// # Safety
/// `s` is null or a live solver; `moves` is null or a NUL-terminated string; `scores` is
/// null or valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn ff_analyze(
    s: *const FfSolver,
    moves: *const c_char,
    scores: *mut i32,
    len: usize,
) -> c_int {
    // SAFETY: the caller's promises are `ff_analyze_best`'s, whose extra pointers are null.
    unsafe {
        ff_analyze_best(
            s,
            moves,
            scores,
            len,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
}

/// As `ff_analyze`, and the best column (1-indexed, the same as `ff_solve`'s; 0 on a full
/// board) into `*best_move` and the answer's source (`FF_SOURCE_*`) into `*source`; either
/// pointer may be null.
///
/// # Safety
/// As `ff_analyze`; `best_move` and `source` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ff_analyze_best(
    s: *const FfSolver,
    moves: *const c_char,
    scores: *mut i32,
    len: usize,
    best_move: *mut i32,
    source_out: *mut i32,
) -> c_int {
    guarded(|| {
        // SAFETY: forwarded from the caller's promises.
        let (s, m) = match unsafe { (solver(s), text(moves)) } {
            (Ok(s), Ok(m)) => (s, m),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let width = s.engine.board().width;
        if scores.is_null() || len < width {
            return argument(&format!(
                "the scores array must hold the board width, {width} columns"
            ));
        }
        match s.engine.analyze(m) {
            Ok(a) => {
                for (c, v) in a.scores.iter().enumerate() {
                    // SAFETY: c < width <= len, and the caller promises `len` writes.
                    unsafe { scores.add(c).write(v.unwrap_or(FF_COLUMN_FULL)) };
                }
                if !best_move.is_null() {
                    let best = a.best_move().map_or(0, |c| c as i32 + 1);
                    // SAFETY: non-null, and the caller promises it is valid for a write.
                    unsafe { best_move.write(best) };
                }
                if !source_out.is_null() {
                    // SAFETY: non-null, and the caller promises it is valid for a write.
                    unsafe { source_out.write(source(a.source)) };
                }
                FF_OK
            }
            Err(e) => status_of(&e),
        }
    })
}

/// Solves `n` positions across the solver's threads (one position per thread at a time):
/// `out[i]` and `status[i]` for `moves[i]`. Returns `FF_OK` when all succeeded, else the
/// status of the first failure, whose message (`position <i>: ...`, 0-based) is the last
/// error. `weak` nonzero asks for win/draw/loss only.
///
/// # Safety
/// `s` is null or a live solver; `moves` is null or holds `n` pointers, each null or a
/// NUL-terminated string; `out` and `status` are null or valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn ff_solve_many(
    s: *const FfSolver,
    moves: *const *const c_char,
    n: usize,
    weak: c_int,
    out: *mut FfSolution,
    status: *mut c_int,
) -> c_int {
    guarded(|| {
        // SAFETY: forwarded from the caller's promises.
        let s = match unsafe { solver(s) } {
            Ok(s) => s,
            Err(e) => return e,
        };
        if n > 0 && (moves.is_null() || out.is_null() || status.is_null()) {
            return argument("a batch array is a null pointer");
        }
        let mut batch: Vec<&str> = Vec::with_capacity(n);
        // Entries that are not strings: (index, status, message).
        let mut bad: Vec<(usize, c_int, String)> = Vec::new();
        for i in 0..n {
            // SAFETY: `moves` holds `n` pointers (checked non-null above when n > 0).
            let p = unsafe { moves.add(i).read() };
            // SAFETY: the caller promises each is null or a NUL-terminated string.
            match unsafe { text(p) } {
                Ok(m) => batch.push(m),
                Err(code) => {
                    let msg = LAST_ERROR.with(|e| e.borrow().to_string_lossy().into_owned());
                    bad.push((i, code, msg));
                    batch.push("");
                }
            }
        }
        let results = s.engine.solve_many(&batch, weak != 0);
        let mut first: Option<(c_int, String)> = None;
        for (i, r) in results.iter().enumerate() {
            let (code, sol) = match (bad.iter().find(|b| b.0 == i), r) {
                (Some((_, code, msg)), _) => (*code, Err(msg.clone())),
                (None, Ok(sol)) => (FF_OK, Ok(solution(sol))),
                (None, Err(e)) => (status_of(e), Err(e.to_string())),
            };
            if let (Err(msg), None) = (&sol, &first) {
                first = Some((code, format!("position {i}: {msg}")));
            }
            // SAFETY: i < n, and the caller promises `n` writes to each array.
            unsafe {
                status.add(i).write(code);
                out.add(i).write(sol.unwrap_or_default());
            }
        }
        match first {
            None => FF_OK,
            Some((code, msg)) => {
                set_error(&msg);
                code
            }
        }
    })
}

/// Raises (`stop` nonzero) or lowers (`stop` zero) the solver's stop flag. Solves in
/// progress and started while it is up return `FF_ERR_INTERRUPTED`; lower it before the
/// next solve. Safe to call from any thread while other threads solve.
///
/// # Safety
/// `s` is null (nothing happens) or a live solver.
#[no_mangle]
pub unsafe extern "C" fn ff_solver_stop(s: *const FfSolver, stop: c_int) {
    // SAFETY: the caller promises `s` is null or live.
    let Some(s) = (unsafe { s.as_ref() }) else {
        return;
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let flag = s.engine.stop_flag();
        if stop != 0 {
            flag.raise();
        } else {
            flag.lower();
        }
    }));
}

/// The message of the last failed call on this thread ("" after a successful one). Valid
/// until the next call into this library on the same thread; never null.
#[no_mangle]
pub extern "C" fn ff_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr()))
        .unwrap_or(c"internal error in fourfold".as_ptr())
}

/// The library version, e.g. "0.1.0". Static; never null.
#[no_mangle]
pub extern "C" fn ff_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(BoardSize::STANDARD, SolverBuilder::default().table_mib(1)).unwrap()
    }

    fn last_error() -> String {
        // SAFETY: `ff_last_error` returns a pointer to this thread's NUL-terminated message,
        // valid until the next call on this thread.
        unsafe { CStr::from_ptr(ff_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    /// The kinds no C function reaches yet get their codes and the library's message: an
    /// empty window is a bad argument, a checkpoint failure its own code.
    #[test]
    fn window_and_checkpoint_errors_have_their_codes() {
        let e = engine();
        let err = e.solve_window("", 1, 1).unwrap_err();
        assert_eq!(status_of(&err), FF_ERR_ARGUMENT);
        assert!(last_error().contains("is empty"), "{}", last_error());
        let err = e.load_checkpoint("no-such-checkpoint").unwrap_err();
        assert_eq!(status_of(&err), FF_ERR_CHECKPOINT);
        assert!(
            last_error().contains("no-such-checkpoint"),
            "{}",
            last_error()
        );
    }
}
