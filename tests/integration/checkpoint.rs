//! Checkpoints through `fourfold::Engine`: a solve resumed from the checkpoint of an
//! interrupted (or finished) solve gives the score of a fresh solve in fewer nodes, on a
//! one-word `u64` board and a two-word `u128` board; a damaged file or another board's is
//! refused and stores nothing. (The byte-level checks are the unit tests of
//! `src/checkpoint.rs`; the command's `--checkpoint` is tested in `cli/tests`.)

use fourfold::{BoardSize, Engine, ErrorKind, SolverBuilder};
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
    assert_eq!(b.load_checkpoint(&path).unwrap(), saved);
    let resumed = b.solve(moves).unwrap();
    assert_eq!(resumed.score, fresh.score, "{board} {moves}");
    assert!(
        resumed.nodes < fresh.nodes,
        "{board} {moves}: resumed {} nodes, fresh {}",
        resumed.nodes,
        fresh.nodes
    );

    // The finished solve's checkpoint, into a table of another size.
    let done = a.solve(moves).unwrap();
    assert_eq!(done.score, fresh.score);
    let saved = a.save_checkpoint(&path).unwrap();
    let c = engine(board, mib * 2);
    assert_eq!(c.load_checkpoint(&path).unwrap(), saved);
    let again = c.solve(moves).unwrap();
    assert_eq!(again.score, fresh.score, "{board} {moves}");
    assert!(again.nodes < resumed.nodes, "{board}: {}", again.nodes);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_resumed_solve_scores_as_a_fresh_one_in_fewer_nodes_u64() {
    // The empty 6 x 5 board (about 2 M nodes), one-word slots.
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
