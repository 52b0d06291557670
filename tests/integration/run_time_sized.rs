//! The run-time-sized solver (the sizes a build does not compile): the same search as a
//! compiled size's, so the same scores, best moves and node counts on the same positions;
//! and Steininger's public 9 x 5 and 10 x 6 sets (`tests/data/9x5`, `tests/data/10x6`)
//! solved to their reference scores, on one thread and on two, both ways.

use fourfold::book::BuildOptions;
use fourfold::{BoardSize, Engine, SolverBuilder};

/// The first `limit` lines of `tests/data/<name>`, as `(moves, expected score)`.
fn lines(name: &str, limit: usize) -> Vec<(String, i32)> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .take(limit)
        .map(|l| {
            let (m, s) = l.split_once(' ').unwrap_or_else(|| panic!("{path}: {l:?}"));
            (m.to_string(), s.trim().parse().expect("a score"))
        })
        .collect()
}

fn engine(board: &str, threads: usize, run_time: bool) -> Engine {
    let b: BoardSize = board.parse().unwrap();
    let builder = SolverBuilder::default().table_mib(16).threads(threads);
    let e = if run_time {
        Engine::new_run_time_sized(b, builder)
    } else {
        Engine::new(b, builder)
    }
    .unwrap();
    assert_eq!(e.is_run_time_sized(), run_time || !b.is_compiled());
    e
}

/// On one thread both solvers search the same tree: every position of the list gets the
/// same score, best move and node count from each, one after the other on one table each;
/// with `analyze`, every column's score too (on 10 x 6 a column's exact score can take
/// minutes: the sets' positions are chosen for their own solves).
fn same_search(board: &str, set: &str, limit: usize, analyze: bool) {
    let (compiled, sized) = (engine(board, 1, false), engine(board, 1, true));
    for (moves, _) in lines(set, limit) {
        let (a, b) = (
            compiled.solve(&moves).unwrap(),
            sized.solve(&moves).unwrap(),
        );
        assert_eq!(
            (a.score, a.best_move, a.nodes),
            (b.score, b.best_move, b.nodes),
            "{board} {moves}"
        );
        if analyze {
            let (a, b) = (
                compiled.analyze(&moves).unwrap(),
                sized.analyze(&moves).unwrap(),
            );
            assert_eq!((a.scores, a.nodes), (b.scores, b.nodes), "{board} {moves}");
        }
    }
}

#[test]
fn the_run_time_sized_solver_searches_the_compiled_ones_tree() {
    same_search("7x6", "Test_L2_R1", 40, true);
    same_search("9x5", "9x5/midgame_L1", 40, true);
    same_search("10x6", "10x6/midgame_L1", 20, false);
}

/// Every listed position of `set` gets its reference score (and a playable best move).
fn reference_scores(board: &str, set: &str, limit: usize, threads: usize, run_time: bool) {
    let e = engine(board, threads, run_time);
    let mut wrong = Vec::new();
    for (moves, want) in lines(set, limit) {
        let s = e.solve(&moves).unwrap();
        if s.score != want {
            wrong.push(format!("{moves}: {} not {want}", s.score));
        }
        let col = s.best_move.expect("a best move");
        assert!(e.check(&moves).unwrap().playable[col], "{board} {moves}");
    }
    assert!(
        wrong.is_empty(),
        "{board} {set} ({threads} threads): {wrong:?}"
    );
}

/// [`reference_scores`] of the first positions of each set, on one thread and two, compiled
/// and run-time-sized.
fn steininger(board: &str, sets: &[(&str, usize)]) {
    for (threads, run_time) in [(1, false), (2, false), (1, true), (2, true)] {
        for &(set, limit) in sets {
            let set = format!("{board}/{set}");
            reference_scores(board, &set, limit, threads, run_time);
        }
    }
}

#[test]
fn steininger_9x5_sets_get_their_scores() {
    steininger(
        "9x5",
        &[("endgame_L1", 100), ("midgame_L1", 100), ("midgame_L2", 25)],
    );
}

#[test]
fn steininger_10x6_sets_get_their_scores() {
    steininger(
        "10x6",
        &[("endgame_L1", 100), ("midgame_L1", 40), ("midgame_L2", 5)],
    );
}

/// A book on a size the default build does not compile (5 x 5, run-time-sized there): built
/// on two threads, it holds every position of its depth, and an engine answering from it
/// gives the searching engine's scores, on its positions and on those with fewer stones.
#[test]
fn books_build_and_answer_on_a_run_time_size() {
    let e = engine("5x5", 2, false);
    let opts = BuildOptions {
        plies: 4,
        verify: 3,
        ..Default::default()
    };
    let book = e.build_book(&opts, &|_| {}).unwrap();
    let positions = e.book_positions(4).unwrap();
    assert_eq!(book.len(), positions.len());
    let (with, plain) = (
        engine("5x5", 1, false).with_book(book).unwrap(),
        engine("5x5", 1, false),
    );
    for m in &positions {
        for moves in [&m[..], &m[..3]] {
            let (a, b) = (with.solve(moves).unwrap(), plain.solve(moves).unwrap());
            assert_eq!(a.score, b.score, "5x5 {moves}");
            assert_eq!(
                with.analyze(moves).unwrap().scores,
                plain.analyze(moves).unwrap().scores
            );
        }
        assert!(with.in_book(&m[..3]), "5x5 {m}");
    }
}

/// The opening sets, whole: hours of CPU. Run with
/// `cargo test --release -- --ignored steininger_opening_sets`.
#[test]
#[ignore]
fn steininger_opening_sets() {
    for set in ["opening_L1", "opening_L2", "opening_L3"] {
        reference_scores("9x5", &format!("9x5/{set}"), usize::MAX, 2, false);
    }
    for set in ["opening_L1", "opening_L2"] {
        reference_scores("10x6", &format!("10x6/{set}"), usize::MAX, 2, false);
    }
}
