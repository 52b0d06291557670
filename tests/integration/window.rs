//! Windowed searches (`Engine::solve_window`, the building block of the distributed driver):
//! every result is consistent with the exact score (plain minimax on 5 x 4, `solve` on 6 x 5),
//! a stop is an error rather than a bound, and a book assembled from scores solved one by
//! one equals the library's own build.

use crate::common::{minimax, Rng};
use fourfold::book::BuildOptions;
use fourfold::table::Bound;
use fourfold::{BoardSize, Engine, ErrorKind, Position, SolverBuilder, WindowResult};

fn engine(board: &str, threads: usize) -> Engine {
    let mut e = Engine::new(
        board.parse().unwrap(),
        SolverBuilder::default().table_mib(4).threads(threads),
    )
    .unwrap();
    e.set_book(None).unwrap();
    e
}

/// A random legal, unfinished game on `W` x `H` of `len` stones or fewer, as a move string.
fn random_line<const W: usize, const H: usize>(rng: &mut Rng, len: u32) -> String {
    let mut p = Position::<W, H>::new();
    let mut line = String::new();
    while p.moves() < len {
        let cols: Vec<usize> = (0..W)
            .filter(|&c| p.can_play(c) && !p.is_winning_move(c))
            .collect();
        if cols.is_empty() {
            break;
        }
        let c = cols[(rng.next() % cols.len() as u64) as usize];
        p.play_col(c);
        line.push(char::from(b'1' + c as u8));
    }
    line
}

/// True when `r`, the result of the window `(alpha, beta)`, holds for the exact `score`.
fn consistent(r: &WindowResult, alpha: i32, beta: i32, score: i32) -> bool {
    match r.bound {
        Bound::Exact => r.value == score && alpha < r.value && r.value < beta,
        Bound::Lower => score >= r.value && r.value >= beta,
        Bound::Upper => score <= r.value && r.value <= alpha,
    }
}

#[test]
fn windows_agree_with_minimax_on_5x4() {
    let mut rng = Rng(0x5eed_0017);
    for threads in [1, 2] {
        let e = engine("5x4", threads);
        let mut bounds = [0usize; 3];
        for _ in 0..150 {
            // 8 to 13 stones: the plain minimax of up to 12 empty cells stays quick.
            let len = 8 + (rng.next() % 6) as u32;
            let line = random_line::<5, 4>(&mut rng, len);
            let p: Position<5, 4> = line.parse().unwrap();
            let score = minimax(&p);
            // A null window on each side of the score, at it, and wide windows.
            for (alpha, beta) in [
                (score - 1, score),
                (score, score + 1),
                (score - 2, score + 2),
                (-11, 11),
                (score + 1, score + 3),
                (score - 4, score - 1),
            ] {
                let r = e.solve_window(&line, alpha, beta).unwrap();
                assert!(
                    consistent(&r, alpha, beta, score),
                    "{line} ({alpha}, {beta}): {r:?}, score {score}"
                );
                assert_eq!(r.above(alpha), Some(score > alpha), "{line} {r:?}");
                bounds[r.bound as usize - 1] += 1;
            }
        }
        // Each kind of result occurred: the test covers all three.
        assert!(bounds.iter().all(|&n| n > 50), "{bounds:?}");
    }
}

#[test]
fn null_windows_narrow_to_solve_on_6x5() {
    // The exact score rebuilt from null-window tests alone (a binary search) is `solve`'s.
    let mut rng = Rng(0x6517);
    let e = engine("6x5", 2);
    let exact = engine("6x5", 1);
    for _ in 0..25 {
        let len = 4 + (rng.next() % 10) as u32;
        let line = random_line::<6, 5>(&mut rng, len);
        let want = exact.solve(&line).unwrap().score;
        let (mut lo, mut hi) = (-15, 16);
        while lo < hi {
            let x = lo + (hi - lo) / 2;
            let r = e.solve_window(&line, x, x + 1).unwrap();
            match r.above(x) {
                Some(true) => lo = lo.max(r.value).max(x + 1),
                Some(false) => hi = hi.min(r.value).min(x),
                None => panic!("a null window always decides: {r:?}"),
            }
        }
        assert_eq!(lo, want, "{line}");
    }
}

#[test]
fn a_stopped_window_is_an_error_and_an_empty_window_is_refused() {
    let e = engine("7x6", 1);
    e.stop_flag().raise();
    let r = e.solve_window("", 0, 1);
    e.stop_flag().lower();
    match r {
        Err(err) => assert!(matches!(err.kind(), ErrorKind::Interrupted(_)), "{err}"),
        Ok(r) => panic!("a stopped search answered {r:?}"),
    }
    let err = e.solve_window("44", 3, 3).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Window(_)), "{err}");
    assert!(err.to_string().contains("(3, 3)"), "{err}");
    assert!(matches!(
        e.solve_window("448", 0, 1).unwrap_err().kind(),
        ErrorKind::Position(_)
    ));
    // Over or full: scored without a search.
    let won_next = "1212121"[..6].to_string();
    let r = e.solve_window(&won_next, -1, 0).unwrap();
    assert_eq!(
        (r.value, r.bound),
        (e.solve(&won_next).unwrap().score, Bound::Lower)
    );
}

#[test]
fn a_book_assembled_from_scores_equals_the_build() {
    for (board, plies) in [("5x4", 4), ("6x5", 3)] {
        let e = engine(board, 2);
        let built = e
            .build_book(
                &BuildOptions {
                    plies,
                    ..Default::default()
                },
                &|_| {},
            )
            .unwrap();
        let lines = e.book_positions(plies).unwrap();
        assert_eq!(lines.len(), built.len(), "{board}");
        let scores: Vec<(String, i32)> = lines
            .iter()
            .map(|l| (l.clone(), e.solve(l).unwrap().score))
            .collect();
        assert_eq!(
            e.book_from_scores(plies, &scores).unwrap(),
            built,
            "{board}"
        );
        // Missing, extra and foreign positions are refused.
        assert!(e.book_from_scores(plies, &scores[1..]).is_err());
        let mut extra = scores.clone();
        extra.push(("1".into(), 0));
        assert!(e.book_from_scores(plies, &extra).is_err());
        let mut wrong = scores.clone();
        wrong[0].1 = 99;
        assert!(e.book_from_scores(plies, &wrong).is_err());
    }
    let wide = Engine::new(
        BoardSize {
            width: 9,
            height: 7,
        },
        SolverBuilder::default().table_mib(4),
    )
    .unwrap();
    assert!(wide.book_positions(2).is_err());
}
