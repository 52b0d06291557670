//! Properties that tie the solver's answers together: mirror symmetry, analyze against
//! solve, the table-free minimax (on 7 x 6 and other board sizes), table reuse, interruption.

use crate::common::{cases, minimax, random_game, solver, Rng};
use fourfold::table::{Bound, Entry};
use fourfold::{Position, Solver};
use std::time::Duration;

#[test]
fn mirror_scores_the_same() {
    let solver = solver(32, 1);
    for name in ["Test_L2_R2", "Test_L1_R1", "Test_L1_R2"] {
        for c in cases(name, 60) {
            let m = c.position.mirror();
            assert_eq!(
                solver.solve(&m).unwrap().score,
                c.expected.unwrap(),
                "{}",
                c.moves
            );
        }
    }
}

#[test]
fn analyze_best_equals_solve() {
    let solver = solver(32, 1);
    for name in ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1"] {
        for c in cases(name, 30) {
            let a = solver.analyze(&c.position).unwrap();
            let s = solver.solve(&c.position).unwrap();
            let best = a.scores.iter().flatten().max().copied();
            assert_eq!(best, Some(s.score), "{}", c.moves);
            assert_eq!(a.scores[s.best_move.unwrap()], Some(s.score), "{}", c.moves);
            assert!(a.best_columns().contains(&s.best_move.unwrap()));
            for col in 0..7 {
                assert_eq!(a.scores[col].is_none(), !c.position.can_play(col));
            }
        }
    }
}

#[test]
fn table_free_minimax_agrees_on_random_late_positions() {
    let solver = solver(8, 1);
    let mut rng = Rng(0xfeed_beef_1234_5678);
    let mut checked = 0;
    while checked < 300 {
        // Random play to 30..=34 stones, avoiding finished games.
        let target = 30 + (rng.next() % 5) as u32;
        let Some((p, _)) = random_game::<7, 6, u64>(&mut rng, 42 - target) else {
            continue;
        };
        let expected = minimax(&p);
        assert_eq!(solver.solve(&p).unwrap().score, expected, "{p:?}\n{p}");
        assert_eq!(solver.solve_weak(&p).unwrap().score, expected.signum());
        checked += 1;
    }
}

/// Solves `count` random positions of a W x H board with `empty` empty cells each and
/// checks the exact and weak scores against [`minimax`].
fn agrees_with_minimax_on<const W: usize, const H: usize>(empty: u32, count: usize, seed: u64) {
    let solver: Solver<W, H> = Solver::builder()
        .table_mib(4)
        .threads(1)
        .build()
        .expect("solver");
    let mut rng = Rng(seed);
    let mut checked = 0;
    while checked < count {
        let Some((p, _)) = random_game::<W, H, u64>(&mut rng, empty) else {
            continue;
        };
        let expected = minimax(&p);
        assert_eq!(
            solver.solve(&p).unwrap().score,
            expected,
            "{W}x{H} {p:?}\n{p}"
        );
        assert_eq!(solver.solve_weak(&p).unwrap().score, expected.signum());
        checked += 1;
    }
}

#[test]
fn other_board_sizes_agree_with_minimax() {
    // Even and odd heights, the parity bounds on both (their arguments are written for any
    // height), against the definition of the score.
    agrees_with_minimax_on::<4, 4>(12, 100, 0x4a4a_0001);
    agrees_with_minimax_on::<5, 4>(12, 100, 0x5a4a_0002);
    agrees_with_minimax_on::<6, 4>(12, 100, 0x6a4a_0003);
    agrees_with_minimax_on::<5, 6>(12, 100, 0x5a6a_0004);
    agrees_with_minimax_on::<8, 4>(12, 100, 0x8a4a_0005);
    agrees_with_minimax_on::<5, 5>(12, 100, 0x5a5a_0006);
    agrees_with_minimax_on::<6, 3>(12, 100, 0x6a3a_0007);
}

#[test]
fn a_reused_table_gives_the_same_answers_as_a_fresh_one() {
    let reused = solver(2, 1);
    for c in cases("Test_L2_R2", 200) {
        let fresh = solver(2, 1);
        let a = reused.solve(&c.position).unwrap().score;
        let b = fresh.solve(&c.position).unwrap().score;
        assert_eq!(
            (a, b),
            (c.expected.unwrap(), c.expected.unwrap()),
            "{}",
            c.moves
        );
    }
}

/// Whether the stored entry `e` holds for a position whose exact score is `score`.
fn entry_holds(e: &Entry, score: i32) -> bool {
    match e.bound {
        Bound::Exact => e.value == score,
        Bound::Lower => score >= e.value,
        Bound::Upper => score <= e.value,
    }
}

#[test]
fn a_time_limit_interrupts_with_valid_bounds_and_leaves_no_wrong_entry() {
    let s: Solver = Solver::builder()
        .table_mib(16)
        .time_limit(Some(Duration::from_millis(2)))
        .build()
        .unwrap();
    let hard = cases("Test_L1_R3", 3);
    let exact: Solver = Solver::builder().table_mib(16).build().unwrap();
    let table = s.table();
    let mut checked = 0;
    // Rounds of interrupted solves, each going on from the table the last ones left, until
    // the stored entries reach deep enough to check 20 of them (how far one round gets
    // depends on the machine's speed).
    for _round in 0..500 {
        if checked >= 20 {
            break;
        }
        for c in &hard {
            match s.solve(&c.position) {
                Ok(sol) => assert_eq!(Some(sol.score), c.expected),
                Err(e) => {
                    let v = c.expected.unwrap();
                    assert!(
                        e.lower <= v && v <= e.upper,
                        "{}: {v} not in [{}, {}]",
                        c.moves,
                        e.lower,
                        e.upper
                    );
                }
            }
            s.stop_flag().lower();
        }
        // No wrong entry in the interrupted solver's own table. Its roots, if stored, are
        // checked against the files; below them, the entries reachable from a root through
        // stored positions (breadth first, one or two plies at a time, as the search stores
        // every other ply) are checked, once 18 stones are down (cheap to solve exactly),
        // against a fresh unlimited solver.
        for c in &hard {
            if let Some(e) = table.probe(c.position.canonical_key().0) {
                assert!(entry_holds(&e, c.expected.unwrap()), "{}: {e:?}", c.moves);
            }
            let mut seen = std::collections::HashSet::new();
            let mut queue = std::collections::VecDeque::from([c.position]);
            let children = |p: &Position| -> Vec<Position> {
                (0..7)
                    .filter(|&col| p.can_play(col) && !p.is_winning_move(col))
                    .map(|col| {
                        let mut q = *p;
                        q.play_col(col);
                        q
                    })
                    .collect()
            };
            while let Some(p) = queue.pop_front() {
                if checked >= 150 || p.can_win_next() {
                    continue;
                }
                for q in children(&p) {
                    let next = if q.can_win_next() {
                        vec![]
                    } else {
                        children(&q)
                    };
                    for r in std::iter::once(q).chain(next) {
                        // The table keys a position and its mirror image by the smaller
                        // of their keys (both have one score).
                        let key = r.canonical_key().0;
                        let Some(e) = table.probe(key) else {
                            continue;
                        };
                        if !seen.insert(key) {
                            continue;
                        }
                        if r.moves() >= 18 && !r.can_win_next() {
                            let v = exact.solve(&r).unwrap().score;
                            assert!(entry_holds(&e, v), "{r:?}: {v} vs {e:?}");
                            checked += 1;
                        }
                        queue.push_back(r);
                    }
                }
            }
        }
    }
    assert!(checked >= 20, "{checked} entries checked");
    // The same table, reused: solves of middle positions cut short again and again, each
    // resumed on what the interrupted ones left, until they finish; every answer is exact.
    for c in cases("Test_L1_R2", 12) {
        let v = c.expected.unwrap();
        let sol = loop {
            match s.solve(&c.position) {
                Ok(sol) => break sol,
                Err(e) => {
                    assert!(e.lower <= v && v <= e.upper, "{}", c.moves);
                    s.stop_flag().lower();
                }
            }
        };
        assert_eq!(sol.score, v, "{}", c.moves);
    }
    // Storing the nodes an interrupted search was in (its placeholder 0s) fails this on
    // the first of these positions; the limit interrupts about a hundred solves here.
}

#[test]
fn a_raised_stop_flag_stops_and_lowering_it_resumes() {
    let s: Solver = Solver::builder().table_mib(16).threads(1).build().unwrap();
    // Needs far more nodes than one poll interval (the searcher polls every 4096 nodes):
    // checked below by solving it.
    let c = &cases("Test_L1_R2", 1)[0];
    s.stop_flag().raise();
    // A solve started with the flag up stops at its first poll.
    let e = s
        .solve(&c.position)
        .expect_err("the raised flag must stop the solve");
    let v = c.expected.unwrap();
    assert!(e.lower <= v && v <= e.upper);
    assert!(e.nodes <= 4096, "{} nodes with the flag up", e.nodes);
    s.stop_flag().lower();
    let full = s.solve(&c.position).unwrap();
    assert_eq!(Some(full.score), c.expected);
    assert!(
        full.nodes > 4 * 4096,
        "{} nodes: too easy to show a stop",
        full.nodes
    );
    let easy = &cases("Test_L1_R1", 5);
    for c in easy {
        assert_eq!(Some(s.solve(&c.position).unwrap().score), c.expected);
    }
}

#[test]
fn only_a_solve_of_another_position_starts_a_new_table_generation() {
    // A stopped solve gone on with keeps the generation its entries were written in; a solve
    // of another position (or another kind of solve) makes them old, to be replaced first.
    let s: Solver = Solver::builder().table_mib(16).threads(1).build().unwrap();
    let [c, other] = [&cases("Test_L1_R2", 1)[0], &cases("Test_L1_R1", 1)[0]];
    let before = s.table().generation();
    s.stop_flag().raise();
    s.solve(&c.position)
        .expect_err("the raised flag must stop the solve");
    let stopped = s.table().generation();
    assert_ne!(stopped, before, "a new position starts a new generation");
    s.stop_flag().lower();
    assert_eq!(Some(s.solve(&c.position).unwrap().score), c.expected);
    assert_eq!(s.table().generation(), stopped, "the same position goes on");
    s.solve_weak(&c.position).unwrap();
    let weak = s.table().generation();
    assert_ne!(weak, stopped, "a weak solve is another search");
    assert_eq!(
        Some(s.solve(&other.position).unwrap().score),
        other.expected
    );
    assert_ne!(s.table().generation(), weak, "another position");
}

#[test]
fn principal_variation_plays_perfectly_to_the_end() {
    let solver = solver(32, 1);
    for c in cases("Test_L2_R1", 20) {
        let score = c.expected.unwrap();
        let pv = solver.principal_variation(&c.position, score).unwrap();
        // Replaying it: every step keeps the score, and the line ends the game.
        let mut p = c.position;
        let mut s = score;
        for (i, &col) in pv.iter().enumerate() {
            assert!(p.can_play(col));
            if p.is_winning_move(col) {
                assert_eq!(i, pv.len() - 1);
                assert_eq!(s, (43 - p.moves() as i32) / 2);
                break;
            }
            p.play_col(col);
            s = -s;
            assert_eq!(
                solver.solve(&p).unwrap().score,
                s,
                "{} at step {i}",
                c.moves
            );
        }
    }
}

#[test]
fn bad_builder_arguments_are_refused() {
    let e = Solver::builder()
        .table_mib(0)
        .build::<7, 6, u64>()
        .unwrap_err();
    assert!(e.to_string().contains("0"), "{e}");
    let e = Solver::builder()
        .threads(0)
        .build::<7, 6, u64>()
        .unwrap_err();
    assert!(e.to_string().contains("threads"), "{e}");
}

/// Many short 2-thread solves on one small shared table (1 MiB, so that entries are replaced
/// and threads race on the same buckets all the time), in a loop bounded in time: no wrong
/// score, exact or weak.
#[test]
fn stress_many_short_multithreaded_solves_on_one_table() {
    let solver = solver(1, 2);
    let mut all = cases("Test_L2_R2", 1000);
    all.extend(cases("Test_L2_R1", 300));
    all.extend(cases("Test_L1_R1", 300));
    let mut rng = Rng(0x5eed);
    let start = std::time::Instant::now();
    let mut solved = 0;
    while start.elapsed() < Duration::from_secs(20) && solved < 5000 {
        let c = &all[(rng.next() % all.len() as u64) as usize];
        let s = solver.solve(&c.position).unwrap();
        assert_eq!(Some(s.score), c.expected, "{}", c.moves);
        if solved % 5 == 0 {
            let w = solver.solve_weak(&c.position).unwrap();
            assert_eq!(Some(w.score), c.expected.map(i32::signum), "{}", c.moves);
        }
        solved += 1;
    }
    assert!(solved >= 100, "only {solved} solves in 20 s");
}

#[test]
fn an_analysis_in_slices_proves_bounds_that_hold_and_ends_exact() {
    // Opening positions of a test set (book off: a bare Solver), each needing far more than
    // one slice: every slice's bounds must hold the exact scores of a separate analysis, and
    // slicing on must end with exactly those scores.
    let reference = solver(16, 1);
    let sliced = solver(16, 1);
    for case in cases("Test_L1_R2", 3) {
        let p = case.position;
        let exact = reference.analyze(&p).unwrap();
        let mut slices = 0;
        let last = loop {
            slices += 1;
            assert!(slices < 100_000, "{}: slicing does not end", case.moves);
            match sliced.analyze_within(&p, Some(Duration::from_millis(2))) {
                Ok(a) => break a,
                Err(i) => {
                    assert_eq!(i.columns.len(), 7);
                    for (c, (b, s)) in i.columns.iter().zip(&exact.scores).enumerate() {
                        match (b, s) {
                            (Some(b), Some(s)) => assert!(
                                b.lower <= *s && *s <= b.upper,
                                "{} column {c}: {s} outside {b:?}",
                                case.moves
                            ),
                            (b, s) => assert_eq!(b.is_none(), s.is_none(), "full column {c}"),
                        }
                    }
                    let best = exact.scores.iter().flatten().max().unwrap();
                    assert!(i.lower <= *best && *best <= i.upper, "{}", case.moves);
                }
            }
        };
        assert_eq!(last.scores, exact.scores, "{}", case.moves);
        assert!(slices > 1, "{}: finished in one 2 ms slice", case.moves);
    }
}
