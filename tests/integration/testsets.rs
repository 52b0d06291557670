//! Every position of the public test sets gets the file's exact score, on one thread and on
//! two (Lazy SMP), with the table reused across positions.

use crate::common::{cases, solver};

fn check_set(name: &str, limit: usize, threads: usize) {
    let solver = solver(64, threads);
    let mut wrong = Vec::new();
    for c in cases(name, limit) {
        let s = solver.solve(&c.position).expect("not interrupted");
        if Some(s.score) != c.expected {
            wrong.push(format!(
                "{} got {} expected {:?}",
                c.moves, s.score, c.expected
            ));
        }
        // The best move is legal.
        let col = s.best_move.expect("a best move");
        assert!(
            c.position.can_play(col),
            "{}: best move {col} is not playable",
            c.moves
        );
    }
    assert!(
        wrong.is_empty(),
        "{name}: {} wrong: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn end_easy() {
    check_set("Test_L3_R1", usize::MAX, 1);
}

#[test]
fn middle_easy() {
    check_set("Test_L2_R1", usize::MAX, 1);
}

#[test]
fn middle_medium() {
    check_set("Test_L2_R2", usize::MAX, 1);
}

#[test]
fn begin_easy() {
    check_set("Test_L1_R1", usize::MAX, 1);
}

#[test]
fn begin_medium() {
    check_set("Test_L1_R2", usize::MAX, 1);
}

#[test]
fn begin_hard_first_10() {
    check_set("Test_L1_R3", 10, 1);
}

#[test]
fn two_threads_end_and_middle() {
    for name in ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"] {
        check_set(name, usize::MAX, 2);
    }
}

/// The first 120 of the 1,000 (the whole set runs at one thread above): the two-thread
/// path on opening positions without doubling the suite's longest test.
#[test]
fn two_threads_begin_medium() {
    check_set("Test_L1_R2", 120, 2);
}

#[test]
fn two_threads_begin_hard_first_10() {
    check_set("Test_L1_R3", 10, 2);
}

#[test]
fn weak_scores_agree_in_sign() {
    let solver = solver(64, 1);
    for name in ["Test_L3_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2"] {
        for c in cases(name, 100) {
            let s = solver.solve_weak(&c.position).unwrap();
            assert_eq!(
                Some(s.score),
                c.expected.map(i32::signum),
                "{name}: {}",
                c.moves
            );
            // The weak best move keeps the outcome.
            let col = s.best_move.unwrap();
            if c.position.is_winning_move(col) {
                assert_eq!(s.score, 1);
                continue;
            }
            let mut child = c.position;
            child.play_col(col);
            assert_eq!(
                -solver.solve_weak(&child).unwrap().score,
                s.score,
                "{}",
                c.moves
            );
        }
    }
}

/// Dead stones left out of the table's key (`Params::dead_stones`) keep every score: all of
/// Middle-Medium and the first 30 of Begin-Medium, against the files (an unsound rule fails
/// here: TESTING.md).
#[test]
fn dead_stone_keys_keep_the_scores() {
    use fourfold::{Params, Solver};
    let params = Params {
        dead_stones: true,
        ..Params::default()
    };
    let solver = Solver::builder()
        .table_mib(16)
        .threads(1)
        .params(params)
        .build()
        .expect("solver");
    for (name, n) in [("Test_L2_R2", 1000), ("Test_L1_R2", 30)] {
        for c in cases(name, n) {
            let s = solver.solve(&c.position).expect("not interrupted");
            assert_eq!(Some(s.score), c.expected, "{name}: {}", c.moves);
        }
    }
}

/// The low-threat ordering (`Params::threat_bonus` bit 2, alone and with both others) changes
/// only the order of the moves: the scores stay the files' on two sets, and plain minimax's
/// on random late positions of 5 x 7 and 8 x 4 boards (where it was measured).
#[test]
fn low_threat_ordering_keeps_the_scores() {
    use fourfold::Params;
    for bonus in [4, 7] {
        let params = Params {
            threat_bonus: bonus,
            ..Params::default()
        };
        sets_agree(params, 30);
        random_late_agree::<5, 7>(params, 0x57 + u64::from(bonus));
        random_late_agree::<8, 4>(params, 0x84 + u64::from(bonus));
    }
}

/// The table on every ply near the root, where a node the table gives no move also probes
/// its children (`Params::every_ply_min_empty`), keeps the scores: the files' on two sets at
/// the default threshold, and plain minimax's on random late positions with the threshold
/// below their 9 empty cells (so that the whole search uses it). Each from the first node
/// (these searches are too short to reach the default `Params::every_ply_after`), and from
/// a node count reached in the middle of the searches, where the odd plies start probing
/// and storing.
#[test]
fn the_table_on_every_ply_keeps_the_scores() {
    use fourfold::Params;
    for after in [0, 40] {
        let params = |min| Params {
            every_ply_min_empty: min,
            every_ply_after: after,
            ..Params::default()
        };
        sets_agree(params(Params::default().every_ply_min_empty), 30);
        random_late_agree::<5, 7>(params(4), 0x1857 + after);
        random_late_agree::<8, 4>(params(4), 0x1884 + after);
        random_late_agree::<7, 6>(params(4), 0x1876 + after);
    }
}

/// The near table (`Params::near_empty`: the nodes with at most that many empty cells in a
/// small table of their own) keeps the scores: with none of the nodes in it, the nodes of
/// the last 6 cells, and every node, the files' on two sets and plain minimax's on random
/// late positions, each on a table large enough to be split (16 MiB).
#[test]
fn the_near_table_keeps_the_scores() {
    use fourfold::Params;
    for near in [0, 6, 99] {
        let params = Params {
            near_empty: near,
            ..Params::default()
        };
        sets_agree(params, 30);
        random_late_agree_in::<7, 6>(params, 0x4e76 + u64::from(near), 16);
        random_late_agree_in::<5, 8>(params, 0x4e58 + u64::from(near), 16);
    }
}

/// A one-thread solver with `params` scores the first `n` positions of Middle-Medium and
/// Begin-Medium as their files do.
fn sets_agree(params: fourfold::Params, n: usize) {
    let solver = fourfold::Solver::builder()
        .table_mib(16)
        .threads(1)
        .params(params)
        .build()
        .expect("solver");
    for name in ["Test_L2_R2", "Test_L1_R2"] {
        for c in cases(name, n) {
            let s = solver.solve(&c.position).expect("not interrupted");
            assert_eq!(Some(s.score), c.expected, "{params:?}: {}", c.moves);
        }
    }
}

/// A one-thread solver with `params` scores 40 random W x H positions with 9 empty cells
/// (random moves that do not win) as plain minimax does.
fn random_late_agree<const W: usize, const H: usize>(params: fourfold::Params, seed: u64) {
    random_late_agree_in::<W, H>(params, seed, 4)
}

/// [`random_late_agree`] on a table of `mib` MiB.
fn random_late_agree_in<const W: usize, const H: usize>(
    params: fourfold::Params,
    seed: u64,
    mib: usize,
) {
    use crate::common::{minimax, random_game, Rng};
    use fourfold::SolverBuilder;
    let solver: fourfold::Solver<W, H> = SolverBuilder::default()
        .table_mib(mib)
        .threads(1)
        .params(params)
        .build()
        .expect("solver");
    let mut rng = Rng(seed);
    let mut checked = 0;
    while checked < 40 {
        let Some((p, _)) = random_game::<W, H, u64>(&mut rng, 9) else {
            continue;
        };
        assert_eq!(solver.solve(&p).unwrap().score, minimax(&p), "{W}x{H}\n{p}");
        checked += 1;
    }
}
