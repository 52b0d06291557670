//! Checkpoints through `fourfold::Engine`: a solve resumed from the checkpoint of an
//! interrupted (or finished) solve gives the score of a fresh solve in fewer nodes, on a
//! one-word `u64` board and a two-word `u128` board; a damaged file or another board's is
//! refused and stores nothing. (The byte-level checks are the unit tests of
//! `src/checkpoint.rs`; the command's `--checkpoint` is tested in `cli/tests`.)

use fourfold::{BoardSize, Bounds, Engine, ErrorKind, Position, RootBounds, SolverBuilder, Step};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn engine(board: &str, mib: usize) -> Engine {
    let b: BoardSize = board.parse().unwrap();
    let mut e = Engine::new(b, SolverBuilder::default().table_mib(mib).threads(1)).unwrap();
    e.set_book(None).unwrap();
    e
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ff-ckpt-it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Solves `moves` on `e`, raising its stop flag once `nodes` nodes are searched: the solve
/// must come back interrupted.
fn solve_until(e: &Engine, moves: &str, nodes: u64) {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if e.live_nodes() >= nodes {
                    e.stop_flag().raise();
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let r = e.solve(moves);
        done.store(true, Ordering::Relaxed);
        let err = r.expect_err("stopped halfway");
        assert!(matches!(err.kind(), ErrorKind::Interrupted(_)), "{err}");
    });
    e.stop_flag().lower();
}

/// On `board`, `moves`: a fresh solve; a solve stopped at half its nodes, saved and loaded
/// into a fresh engine, then solved there; the finished solve saved and loaded into another.
/// Both resumed solves give the fresh score in fewer nodes.
fn round_trip(board: &str, moves: &str, mib: usize) {
    let fresh = engine(board, mib).solve(moves).unwrap();
    let path = temp(&format!("{board}.ckpt"));

    let a = engine(board, mib);
    solve_until(&a, moves, fresh.nodes / 2);
    let saved = a.save_checkpoint(&path).unwrap();
    assert!(saved > 0, "{board}: nothing saved");
    let b = engine(board, mib);
    assert_eq!(b.load_checkpoint(&path).unwrap().entries, saved);
    // The loaded entries are the resumed solve's own work: it keeps their generation (a new
    // one would make them the first to be replaced).
    let generation = b.table().generation();
    let resumed = b.solve(moves).unwrap();
    assert_eq!(
        b.table().generation(),
        generation,
        "{board}: loaded entries aged"
    );
    assert_eq!(resumed.score, fresh.score, "{board} {moves}");
    assert!(
        resumed.nodes < fresh.nodes,
        "{board} {moves}: resumed {} nodes, fresh {}",
        resumed.nodes,
        fresh.nodes
    );

    // The stopped solve, gone on with on its own engine (same generation), then its
    // checkpoint, into a table of another size.
    let generation = a.table().generation();
    let done = a.solve(moves).unwrap();
    assert_eq!(
        a.table().generation(),
        generation,
        "{board}: stopped entries aged"
    );
    assert_eq!(done.score, fresh.score);
    let saved = a.save_checkpoint(&path).unwrap();
    let c = engine(board, mib * 2);
    assert_eq!(c.load_checkpoint(&path).unwrap().entries, saved);
    let again = c.solve(moves).unwrap();
    assert_eq!(again.score, fresh.score, "{board} {moves}");
    assert!(again.nodes < resumed.nodes, "{board}: {}", again.nodes);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_resumed_solve_scores_as_a_fresh_one_in_fewer_nodes_u64() {
    // The empty 6 x 5 board (about 2 M nodes), one-word slots; the default build runs this
    // size on the run-time-sized solver.
    round_trip("6x5", "", 16);
}

#[test]
fn a_resumed_solve_scores_as_a_fresh_one_in_fewer_nodes_u128() {
    // An 8 x 8 middle game (about 1 M nodes), 128-bit keys in two-word slots.
    let e = engine("8x8", 16);
    assert_eq!(e.table().layout(), fourfold::table::Layout::TwoWord);
    round_trip("8x8", "3815524675554353145342354724", 16);
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused_and_store_nothing() {
    let a = engine("6x5", 8);
    a.solve("").unwrap();
    let path = temp("good.ckpt");
    assert!(a.save_checkpoint(&path).unwrap() > 0);
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0x10;
    let cases = [
        ("flipped", flipped, "6x5", "corrupt"),
        (
            "truncated",
            good[..good.len() - 3].to_vec(),
            "6x5",
            "truncated",
        ),
        ("board", good.clone(), "5x6", "board"),
    ];
    for (name, bytes, board, says) in cases {
        let p = temp(&format!("{name}.ckpt"));
        std::fs::write(&p, bytes).unwrap();
        let e = engine(board, 8);
        let err = e.load_checkpoint(&p).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Checkpoint(_)),
            "{name}: {err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(says) && msg.contains(&*p.to_string_lossy()),
            "{name}: {msg}"
        );
        let mut any = false;
        e.table().for_each_entry(0, |_, _| any = true);
        assert!(!any, "{name}: entries stored from a refused file");
        std::fs::remove_file(&p).unwrap();
    }
    std::fs::remove_file(&path).unwrap();
}

// The root's bounds (format version 2 on): a checkpoint carries the bounds the stopped solve had
// proven for its position, and only a solve of that very position starts from them.

/// The board and root of these tests: a 6 x 6 middle game (1.3 M nodes, score 2) whose
/// driver narrows the score's bounds from both sides: [-7, 16], [-7, 8], [-2, 8], [-2, 4], ...
/// (on the first three plies the driver tries 0 first and keeps one side of the range until
/// the end).
const BOARD: &str = "6x6";
const ROOT: &str = "2345";

/// The score range of a position of `stones` stones on a board of `cells` cells, before any
/// search (as the driver starts).
fn score_range(cells: i32, stones: i32) -> (i32, i32) {
    (-(cells - stones) / 2, (cells + 1 - stones) / 2)
}

/// Solves `moves` on `e` with its progress callback, raising the stop flag at the first step
/// `stop_at` accepts; the bounds of that step (the solve must be stopped there, not finish).
fn solve_until_step(
    e: &Engine,
    moves: &str,
    stop_at: impl Fn((i32, i32)) -> bool + Sync,
) -> (i32, i32) {
    let seen = std::sync::Mutex::new(None);
    let stop = e.stop_flag();
    let r = e.solve_with(moves, &mut |st: Step| {
        let mut s = seen.lock().unwrap();
        if s.is_none() && stop_at((st.lower, st.upper)) {
            *s = Some((st.lower, st.upper));
            stop.raise();
        }
    });
    e.stop_flag().lower();
    let err = r.expect_err("stopped at a step");
    assert!(matches!(err.kind(), ErrorKind::Interrupted(_)), "{err}");
    seen.into_inner().unwrap().expect("a step")
}

/// The bounds after the first null-window search of a solve of `moves` (then stopped): the
/// window the driver started from, narrowed on one side.
fn first_step(e: &Engine, moves: &str) -> (i32, i32) {
    solve_until_step(e, moves, |_| true)
}

/// A checkpoint at `path` of a solve of `ROOT` stopped once its bounds were narrowed on both
/// sides to at most 6 apart (and not met); returns those bounds, which the file carries.
fn stopped_with_bounds(path: &std::path::Path) -> (i32, i32) {
    let a = engine(BOARD, 16);
    let (lo, hi) = score_range(36, 4);
    let b = solve_until_step(&a, ROOT, |(l, u)| l > lo && u < hi && l < u && u - l <= 6);
    let root = a.root_bounds().expect("the solve's root");
    let key = Position::<6, 6, u64>::parse(ROOT).unwrap().key() as u128;
    assert_eq!(
        root,
        RootBounds {
            key,
            stones: 4,
            bounds: Bounds {
                lower: b.0,
                upper: b.1
            }
        }
    );
    a.save_checkpoint(path).unwrap();
    b
}

/// A solve resumed from a checkpoint whose root is its position starts from the saved
/// bounds, gives the fresh score, and searches fewer nodes than the same entries without
/// the bounds.
#[test]
fn a_resumed_solve_starts_from_the_saved_bounds_in_fewer_nodes() {
    let fresh = engine(BOARD, 16).solve(ROOT).unwrap();
    let path = temp("bounds.ckpt");
    let (l, u) = stopped_with_bounds(&path);

    let b = engine(BOARD, 16);
    let loaded = b.load_checkpoint(&path).unwrap();
    assert_eq!(
        loaded.root.map(|r| (r.bounds.lower, r.bounds.upper)),
        Some((l, u))
    );
    let (fl, fu) = first_step(&b, ROOT);
    assert!(
        l <= fl && fu <= u,
        "first step [{fl}, {fu}] outside [{l}, {u}]"
    );

    let with = engine(BOARD, 16);
    with.load_checkpoint(&path).unwrap();
    let resumed = with.solve(ROOT).unwrap();
    // The same entries, without the bounds (the library's loader stores entries only).
    let without = engine(BOARD, 16);
    let plain = fourfold::checkpoint::load(without.table(), 6, 6, &path).unwrap();
    assert_eq!(plain.entries, loaded.entries);
    let (range_lo, range_hi) = score_range(36, 4);
    let (wl, wu) = first_step(&without, ROOT);
    assert!(
        wl == range_lo || wu == range_hi,
        "[{wl}, {wu}]: no bounds were handed"
    );
    let without = engine(BOARD, 16);
    fourfold::checkpoint::load(without.table(), 6, 6, &path).unwrap();
    let plain = without.solve(ROOT).unwrap();
    assert_eq!(resumed.score, fresh.score);
    assert_eq!(plain.score, fresh.score);
    assert!(
        resumed.nodes < plain.nodes,
        "with the bounds {} nodes, without {}",
        resumed.nodes,
        plain.nodes
    );
    std::fs::remove_file(&path).unwrap();
}

/// The bounds of a checkpoint's root apply to no other position: another position of the
/// same board starts from its whole score range and scores as a fresh solve; an analysis of
/// the root (which solves its children) gives the fresh scores; and the checkpoint of an
/// interrupted analysis (whose root is a column's position) resumes it exactly.
#[test]
fn bounds_apply_only_to_the_position_they_were_proven_for() {
    let path = temp("other.ckpt");
    stopped_with_bounds(&path);
    for moves in ["3", "3434", "1234"] {
        let e = engine(BOARD, 16);
        e.load_checkpoint(&path).unwrap();
        let (lo, hi) = score_range(36, moves.len() as i32);
        let (l, u) = first_step(&e, moves);
        assert!(l == lo || u == hi, "{moves}: started from [{l}, {u}]");
        let e = engine(BOARD, 16);
        e.load_checkpoint(&path).unwrap();
        let want = engine(BOARD, 16).solve(moves).unwrap().score;
        assert_eq!(e.solve(moves).unwrap().score, want, "{moves}");
    }
    let fresh = engine(BOARD, 16).analyze(ROOT).unwrap();
    let e = engine(BOARD, 16);
    e.load_checkpoint(&path).unwrap();
    assert_eq!(e.analyze(ROOT).unwrap().scores, fresh.scores);

    // An analysis stopped partway: its checkpoint's root is the column being solved.
    let a = engine(BOARD, 16);
    let stop = a.stop_flag();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) && a.live_nodes() < 200_000 {
                std::thread::sleep(Duration::from_millis(1));
            }
            stop.raise();
        });
        let r = a.analyze(ROOT);
        done.store(true, Ordering::Relaxed);
        assert!(r.is_err(), "stopped partway");
    });
    a.stop_flag().lower();
    assert_eq!(
        a.root_bounds().map(|r| r.stones),
        Some(ROOT.len() as u32 + 1),
        "a column's position"
    );
    a.save_checkpoint(&path).unwrap();
    let e = engine(BOARD, 16);
    assert_eq!(e.load_checkpoint(&path).unwrap().root, a.root_bounds());
    assert_eq!(e.analyze(ROOT).unwrap().scores, fresh.scores);
    let e = engine(BOARD, 16);
    e.load_checkpoint(&path).unwrap();
    let best = fresh.scores.iter().flatten().max().copied();
    assert_eq!(Some(e.solve(ROOT).unwrap().score), best);
    std::fs::remove_file(&path).unwrap();
}

/// A damaged window field is refused: nothing stored, no bounds handed to the solver.
#[test]
fn a_damaged_root_window_is_refused() {
    let path = temp("window.ckpt");
    stopped_with_bounds(&path);
    let good = std::fs::read(&path).unwrap();
    // Bytes 49 and 50: the root's least and greatest score (see fourfold::checkpoint).
    for at in [49, 50] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        let p = temp(&format!("window-{at}.ckpt"));
        std::fs::write(&p, bad).unwrap();
        let e = engine(BOARD, 16);
        let err = e.load_checkpoint(&p).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Checkpoint(_)), "{err}");
        assert!(err.to_string().contains("corrupt"), "{err}");
        let mut any = false;
        e.table().for_each_entry(0, |_, _| any = true);
        assert!(!any, "entries stored from a refused file");
        let (lo, hi) = score_range(36, 4);
        let (l, u) = first_step(&e, ROOT);
        assert!(
            l == lo || u == hi,
            "[{l}, {u}]: bounds handed from a refused file"
        );
        std::fs::remove_file(&p).unwrap();
    }
    std::fs::remove_file(&path).unwrap();
}
