//! Unit tests of the node's stages one at a time: each stage called directly on random
//! positions, its result checked against its contract restated with the library's plain
//! position functions.

use super::*;
use crate::ordering::AfterEach;
use crate::position::xorshift;

/// A searcher on a table of its own, with the default parameters.
fn with_searcher<const W: usize, const H: usize, T>(
    f: impl FnOnce(&mut Searcher<'_, W, H>) -> T,
) -> T {
    with_params(Params::default(), f)
}

/// `count` random positions of W x H with `min_empty` to `min_empty + 7` empty cells, in
/// which the player to move cannot win at once (the node's precondition).
fn late_positions<const W: usize, const H: usize>(
    seed: u64,
    min_empty: u32,
    count: usize,
) -> Vec<Position<W, H>> {
    let mut s = seed;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let target = (W * H) as u32 - min_empty - (xorshift(&mut s) % 8) as u32;
        let mut p = Position::<W, H>::new();
        while p.moves() < target && p.play_random_quiet(&mut s) {}
        if p.moves() == target && !p.can_win_next() {
            out.push(p);
        }
    }
    out
}

/// What `static_children` must do, restated: in column order, each child that its own
/// stages 1 and 2 decide ([`Searcher::static_value`], in the window raised so far) is
/// taken out of the moves; a value at `beta` or above is a cutoff with that value; the
/// others raise `alpha`, and the best of them is returned. Returns the expected result,
/// moves left and `alpha`.
fn static_children_model<const W: usize, const H: usize>(
    s: &Searcher<'_, W, H>,
    pos: &Position<W, H>,
    next: u64,
    (mut alpha, beta): (i32, i32),
) -> (Result<i32, i32>, u64, i32) {
    let (mut left, mut best) = (next, i32::MIN);
    for col in 0..W {
        let mv = next & Position::<W, H>::column_mask(col);
        if mv == 0 {
            continue;
        }
        let child = pos.after(mv);
        if let Some(v) = s.static_value(&child, child.opponent_winning(), -beta, -alpha) {
            let v = -v;
            if v >= beta {
                return (Err(v), left, alpha);
            }
            best = best.max(v);
            alpha = alpha.max(v);
            left ^= mv;
        }
    }
    (Ok(best), left, alpha)
}

/// The stage that looks at the children before the search takes out of the moves exactly
/// the children it decides, returns the best of their scores with one of the moves that
/// reach it (which of equal ones is not part of the contract), and cuts with the value
/// that reaches `beta`.
#[test]
fn static_children_takes_out_exactly_the_children_it_decides() {
    let mut taken = 0;
    let mut cuts = 0;
    with_searcher::<7, 6, _>(|s| {
        for pos in late_positions::<7, 6>(0x57a6, 6, 300) {
            let (next, _) = pos.non_losing_moves_from(pos.opponent_winning());
            for window in [(-1, 0), (0, 1), (-3, 2), (-30, 30), (1, 3), (-4, -2)] {
                let (want, want_left, want_alpha) = static_children_model(s, &pos, next, window);
                let mut left = next;
                let mut w = Ab {
                    alpha: window.0,
                    beta: window.1,
                };
                let got = s.static_children(&pos, &mut left, &mut w, &mut AfterEach::new());
                let ctx = format!("{pos:?} window {window:?}");
                match (got, want) {
                    (Err(v), Err(u)) => {
                        assert_eq!(v, u, "{ctx}: cutoff value");
                        cuts += 1;
                    }
                    (Ok((v, mv)), Ok(u)) => {
                        assert_eq!(v, u, "{ctx}: best value");
                        assert_eq!(left, want_left, "{ctx}: moves left");
                        assert_eq!(w.alpha, want_alpha, "{ctx}: alpha");
                        if v != i32::MIN {
                            // The move is a decided child reaching the best value.
                            assert_eq!(mv.count_ones(), 1, "{ctx}: one move");
                            assert_eq!(mv & (next ^ left), mv, "{ctx}: a decided child");
                        }
                        taken += (next ^ left).count_ones();
                    }
                    _ => panic!("{ctx}: got {got:?}, want {want:?}"),
                }
            }
        }
    });
    // Not a test of nothing: children were decided and taken out, and windows were cut.
    assert!(taken > 100 && cuts > 100, "{taken} taken out, {cuts} cuts");
}

/// The parity bounds of `pos` for both sides as leader, on 64-bit words and on the same
/// position widened to 128-bit words: follow-up (with and without the aftereven check) and
/// odd threat. Returns how many of them were bounds.
fn parity_bounds_on_both_words<const W: usize, const H: usize>(pos: &Position<W, H>) -> usize {
    use super::parity::{follow_up_bound, follow_up_value, odd_threat_bound, NO_BOUND};
    use crate::position::winning_cells;
    let (cur, mask) = (pos.current(), pos.mask());
    let wide = |x: u64| u128::from(x);
    let mut bounds = 0;
    for (leader, follower) in [(cur, cur ^ mask), (cur ^ mask, cur)] {
        let threats = winning_cells::<W, H, u64>(follower, mask);
        let (l, f, t, m) = (wide(leader), wide(follower), wide(threats), wide(mask));
        let narrow = (
            follow_up_bound::<W, H, u64>(leader, follower, threats, mask),
            follow_up_value::<W, H, u64>(leader, follower, threats, mask, false).0,
            odd_threat_bound::<W, H, u64>(leader, threats, mask),
        );
        let wide = (
            follow_up_bound::<W, H, u128>(l, f, t, m),
            follow_up_value::<W, H, u128>(l, f, t, m, false).0,
            odd_threat_bound::<W, H, u128>(l, t, m),
        );
        assert_eq!(narrow, wide, "{pos:?}, leader {leader:#x}");
        bounds += usize::from(narrow.0.is_some())
            + usize::from(narrow.1 != NO_BOUND)
            + usize::from(narrow.2.is_some());
    }
    bounds
}

/// The parity bounds do not depend on the word they are computed in: 128-bit words (whose
/// follow-up bound takes an early exit of its own) give the bounds of 64-bit words, on boards
/// of both height parities.
#[test]
fn parity_bounds_are_the_same_on_128_bit_words() {
    let mut bounds = 0;
    for p in late_positions::<7, 6>(0x12876, 4, 400) {
        bounds += parity_bounds_on_both_words(&p);
    }
    for p in late_positions::<6, 7>(0x12867, 4, 300) {
        bounds += parity_bounds_on_both_words(&p);
    }
    for p in late_positions::<8, 5>(0x12885, 6, 300) {
        bounds += parity_bounds_on_both_words(&p);
    }
    assert!(bounds > 500, "{bounds} bounds");
}

/// Checks on `pos`, for both sides as leader, that Allis' aftereven rule holding implies
/// its by-rows test holding, on the arguments the pairs' way gives them. Returns how many
/// times the rule held.
fn aftereven_implies_its_test<const W: usize, const H: usize>(pos: &Position<W, H>) -> usize {
    use super::parity::{aftereven, aftereven_may, empty_and_odd, odd_lowest, sure_threats};
    use crate::position::winning_cells;
    type P<const W: usize, const H: usize> = Position<W, H>;
    let (cur, mask) = (pos.current(), pos.mask());
    let mut held = 0;
    for (leader, follower) in [(cur, cur ^ mask), (cur ^ mask, cur)] {
        let threats = winning_cells::<W, H, u64>(follower, mask);
        let (empty, _) = empty_and_odd::<W, H, u64>(mask);
        let free = odd_lowest::<W, H, u64>(mask);
        let (cut, _) = sure_threats::<W, H, u64>(empty, free, threats);
        let cells = leader | (empty & P::<W, H>::leader_rows() & !cut) | free;
        let sure = follower | (empty & P::<W, H>::follower_rows() & !free);
        if aftereven::<W, H, u64>(cells, cells, sure, empty) {
            held += 1;
            assert!(
                aftereven_may::<W, H, u64>(cells, cells, sure, empty),
                "{pos:?}, leader {leader:#x}"
            );
        }
    }
    held
}

/// The by-rows test that lets the lanes skip the aftereven rule is a necessary condition of
/// the rule (module doc of `parity`, Lemma 10), on boards of both height parities.
#[test]
fn aftereven_holds_only_where_its_test_does() {
    let mut held = 0;
    for p in late_positions::<7, 6>(0xaf7e76, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    for p in late_positions::<7, 5>(0xaf7e75, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    for p in late_positions::<6, 7>(0xaf7e67, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    assert!(held > 50, "the rule held {held} times");
}

/// A searcher on a table of its own, with the parameters `params`.
fn with_params<const W: usize, const H: usize, T>(
    params: Params,
    f: impl FnOnce(&mut Searcher<'_, W, H>) -> T,
) -> T {
    let alone = Alone::new::<W, H>(1);
    let shared = alone.shared();
    f(&mut Searcher::new(shared, params, 0))
}

/// The score of the winner of a game won with its `m`-th stone on a board of `cells`
/// cells (the module doc's *Scores*): `(cells + 2 - m) / 2`, rounded down.
fn win_score(cells: u32, m: u32) -> i32 {
    (cells as i32 + 2 - m as i32) / 2
}

/// Random positions of W x H, each played at random to `min_empty` to `min_empty + 15`
/// empty cells (the player to move cannot win at once), `count` in all.
fn positions_from<const W: usize, const H: usize>(
    seed: u64,
    min_empty: u32,
    count: usize,
) -> Vec<Position<W, H>> {
    let mut out = late_positions::<W, H>(seed, min_empty, count / 2);
    out.extend(late_positions::<W, H>(
        seed ^ 0x8,
        min_empty + 8,
        count - count / 2,
    ));
    out
}

/// Stage 1's verdict on the moves alone, restated: no move that does not lose at once is a
/// loss to the opponent's next stone; two empty cells or fewer, a draw (neither side can
/// win with the last stones: we cannot win at once, and our move leaves the opponent no
/// winning cell it can play); one move, forced; more, open.
#[test]
fn by_moves_decides_exactly_what_the_moves_decide() {
    let mut kinds = [0u32; 4];
    for pos in positions_from::<7, 6>(0xb7_0076, 1, 4000) {
        let (next, _) = pos.non_losing_moves_from(pos.opponent_winning());
        let (cells, moves) = (42, pos.moves());
        let want = if next == 0 {
            ("lost", Some(-win_score(cells, moves + 2)))
        } else if cells - moves <= 2 {
            ("drawn", Some(0))
        } else if next.count_ones() == 1 {
            ("forced", None)
        } else {
            ("open", None)
        };
        let got = match Searcher::<7, 6>::by_moves(&pos, next) {
            ByMoves::Decided(v) if want.0 == "drawn" => ("drawn", Some(v)),
            ByMoves::Decided(v) => ("lost", Some(v)),
            ByMoves::Forced => ("forced", None),
            ByMoves::Open => ("open", None),
        };
        assert_eq!(got, want, "{pos:?}\n{pos}");
        kinds[["lost", "drawn", "forced", "open"]
            .iter()
            .position(|&k| k == want.0)
            .unwrap()] += 1;
    }
    // Each verdict came up.
    assert!(kinds.iter().all(|&k| k > 50), "{kinds:?}");
}

/// Stage 2 with the parity and no-four bounds off: the window is narrowed to what the
/// moves left allow, restated from the scores (the module doc's *Scores*): we cannot win
/// before our second-next stone (the `moves + 3`-th of the game), the opponent not before
/// its stone after that (the `moves + 4`-th).
fn moves_left_bounds<const W: usize, const H: usize>(seed: u64) -> u32 {
    let params = Params {
        claim_even: false,
        no_four: false,
        ..Params::default()
    };
    let cells = (W * H) as u32;
    let mut cut = 0;
    with_params::<W, H, _>(params, |s| {
        for pos in positions_from::<W, H>(seed, 3, 400) {
            let (next, opp_threats) = pos.non_losing_moves_from(pos.opponent_winning());
            if next.count_ones() < 2 {
                continue;
            }
            let lo = -win_score(cells, pos.moves() + 4);
            let hi = win_score(cells, pos.moves() + 3);
            for alpha in lo - 2..=hi + 1 {
                for width in [1, 3] {
                    let window = Ab {
                        alpha,
                        beta: alpha + width,
                    };
                    let mut want_w = window;
                    let want = want_w.raise(lo).and_then(|()| want_w.lower(hi));
                    let mut w = window;
                    let got = s.bounds(&pos, next, opp_threats, &mut w, &mut AfterEach::new());
                    assert_eq!(got, want, "{pos:?} {window:?}");
                    assert_eq!((w.alpha, w.beta), (want_w.alpha, want_w.beta), "{pos:?}");
                    cut += u32::from(got.is_err());
                }
            }
        }
    });
    cut
}

/// [`moves_left_bounds`] on boards of both parities of cells and of heights.
#[test]
fn the_moves_left_bound_the_window_from_both_sides() {
    for (board, cut) in [
        ("7x6", moves_left_bounds::<7, 6>(0x3e_76)),
        ("7x5", moves_left_bounds::<7, 5>(0x3e_75)),
        ("6x7", moves_left_bounds::<6, 7>(0x3e_67)),
    ] {
        assert!(cut > 200, "{board}: {cut} windows closed");
    }
}

/// Whether `set` (cells of a W x H board in the position's layout) holds four in a row,
/// by looking at every line of the board's grid.
fn holds_four<const W: usize, const H: usize>(set: u64) -> bool {
    let at = |c: i32, r: i32| {
        (0..W as i32).contains(&c)
            && (0..H as i32).contains(&r)
            && set >> (c * (H as i32 + 1) + r) & 1 == 1
    };
    (0..W as i32).any(|c| {
        (0..H as i32).any(|r| {
            [(1, 0), (0, 1), (1, 1), (1, -1)]
                .iter()
                .any(|&(dc, dr)| (0..4).all(|i| at(c + i * dc, r + i * dr)))
        })
    })
}

/// The no-four bounds, restated: with an odd number of empty cells, a player to move that
/// cannot make four with its stones and every empty cell scores at most 0 (unless `max`
/// already says so); with an even number, an opponent that cannot scores us at least 0
/// (raised only below 0). Returns how many times each bound applied.
fn no_four_restated<const W: usize, const H: usize>(seed: u64) -> [u32; 2] {
    let (cells, mut applied) = ((W * H) as u32, [0; 2]);
    for pos in positions_from::<W, H>(seed, 1, 1500) {
        let mut empty = 0u64;
        for c in 0..W {
            for r in 0..H {
                if pos.cell(c, r).is_none() {
                    empty |= 1 << (c * (H + 1) + r);
                }
            }
        }
        let (mine, theirs) = (pos.current(), pos.current() ^ pos.mask());
        let odd = (cells - pos.moves()) % 2 == 1;
        for (alpha, beta) in [(-3, -1), (-1, 0), (-1, 1), (0, 1), (1, 2), (-5, 5)] {
            for max0 in [5, 1, 0, -1] {
                let (mut want_w, mut want_max) = (Ab { alpha, beta }, max0);
                let want = if odd {
                    if max0 > 0 && !holds_four::<W, H>(mine | empty) {
                        want_max = 0;
                        applied[0] += 1;
                    }
                    Ok(())
                } else if alpha < 0 && !holds_four::<W, H>(theirs | empty) {
                    applied[1] += 1;
                    want_w.raise(0)
                } else {
                    Ok(())
                };
                let (mut w, mut max) = (Ab { alpha, beta }, max0);
                let got = Searcher::<W, H>::no_four_bounds(&pos, &mut w, &mut max);
                let at = format!("{pos:?} ({alpha}, {beta}) max {max0}");
                assert_eq!(got, want, "{at}");
                assert_eq!(
                    (w.alpha, w.beta, max),
                    (want_w.alpha, want_w.beta, want_max),
                    "{at}"
                );
            }
        }
    }
    applied
}

/// [`no_four_restated`] on boards of both parities of cells.
#[test]
fn the_no_four_bounds_apply_exactly_where_a_side_can_make_no_four() {
    for (board, applied) in [
        ("7x6", no_four_restated::<7, 6>(0x4f_76)),
        ("7x5", no_four_restated::<7, 5>(0x4f_75)),
        ("5x4", no_four_restated::<5, 4>(0x4f_54)),
    ] {
        assert!(applied.iter().all(|&k| k > 50), "{board}: {applied:?}");
    }
}

/// A stop raised while a search runs is seen within a poll period: a watcher raises the
/// flag once the search has published more than three periods' worth of nodes, and the
/// search (the first test of the empty 7x5 board, millions of nodes) ends aborted
/// soon after. Neither a
/// search that never polls nor one that stops polling passes.
#[test]
fn a_stop_raised_during_a_search_ends_it() {
    use std::sync::atomic::AtomicBool;
    let alone = Alone::new::<7, 5>(16);
    let finished = AtomicBool::new(false);
    let period = POLL_MASK + 1;
    let (aborted, nodes, raised_at) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !finished.load(Ordering::Acquire) {
                let seen = alone.live.load(Ordering::Relaxed);
                if seen > 3 * period {
                    alone.stop.raise();
                    return Some(seen);
                }
                std::thread::yield_now();
            }
            None
        });
        let shared = alone.shared();
        let mut s = Searcher::<7, 5>::new(shared, Params::default(), 0);
        s.negamax(&Position::<7, 5>::new(), 0, 1);
        finished.store(true, Ordering::Release);
        (s.aborted, s.nodes, watcher.join().unwrap())
    });
    let raised_at = raised_at.expect("the search published no progress past three periods");
    assert!(aborted, "the search ran to its end ({nodes} nodes)");
    assert!(
        nodes >= raised_at,
        "{nodes} nodes, stop raised at {raised_at}"
    );
}

/// The empty 7x5 board's score from the published table (`tests/data/board_results`): a
/// draw is 0, else the winner's score for its end move.
fn published_7x5_score() -> i32 {
    let path = format!("{}/tests/data/board_results", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("tests/data/board_results");
    let r = crate::published::parse_table(&text)
        .unwrap()
        .into_iter()
        .find(|r| (r.board.width, r.board.height) == (7, 5))
        .expect("7x5 in the published table");
    match (r.winner, r.end_move) {
        (None, _) => 0,
        (Some(crate::outcome::Player::First), Some(m)) => win_score(35, m),
        (Some(_), Some(m)) => -win_score(35, m),
        (Some(_), None) => panic!("7x5: no end move published"),
    }
}

/// The driver of one thread of a solve of several on the empty 7x5 board, its first test
/// "above 0?" (no first move's guess), while a second thread, once the search has published three poll periods
/// of nodes, narrows the shared bounds by the published score's side of that test, as a
/// helper that proved it would. Returns the score and the bounds the driver reported after
/// each test it finished.
fn settled_under_a_search(abandon_settled: bool) -> (Option<i32>, Vec<Window>) {
    use std::sync::atomic::AtomicBool;
    let score = published_7x5_score();
    let alone = Alone::new::<7, 5>(16);
    let pos = Position::<7, 5>::new();
    let window = Mutex::new(Searcher::<7, 5>::initial_window(&pos));
    let finished = AtomicBool::new(false);
    // Marks, as a solve of several threads has: the driver then reads the shared bounds.
    let marks = InProgress::new();
    let params = Params {
        first_move_guess_below: 0,
        abandon_settled,
        ..Params::default()
    };
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !finished.load(Ordering::Acquire) {
                if alone.live.load(Ordering::Relaxed) > 3 * (POLL_MASK + 1) {
                    // The answer to "above 0?" that the published score gives.
                    Window::narrow(&window, 0, if score > 0 { score } else { 0 });
                    return;
                }
                std::thread::yield_now();
            }
        });
        let shared = Shared {
            busy: Some(&marks),
            ..alone.shared()
        };
        let mut s = Searcher::<7, 5>::new(shared, params, 0);
        let mut steps = Vec::new();
        let r = s.solve(&pos, &window, 0, &mut |w, _| steps.push(*w));
        finished.store(true, Ordering::Release);
        (r, steps)
    })
}

/// A test that another thread's bounds answer while it runs is abandoned: the driver
/// reports no result of it and goes on with the next test, and the score still comes out
/// as published (the abandoned search stored nothing wrong). With the abandoning switched
/// off, the same run finishes the settled test and reports it: the check can fail.
#[test]
fn a_test_another_thread_settles_is_abandoned() {
    let score = published_7x5_score();
    let (r, steps) = settled_under_a_search(true);
    assert_eq!(r, Some(score));
    let (r_kept, steps_kept) = settled_under_a_search(false);
    assert_eq!(r_kept, Some(score));
    assert_eq!(
        steps_kept.len(),
        steps.len() + 1,
        "abandoning {steps:?}, finishing {steps_kept:?}"
    );
}
