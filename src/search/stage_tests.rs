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
    let table = Table::new(1, crate::position::key_bits(W, H)).unwrap();
    let (stop, done, live) = (StopFlag::new(), StopFlag::new(), AtomicU64::new(0));
    let shared = Shared {
        table: &table,
        stop: &stop,
        done: &done,
        live_nodes: &live,
        deadline: None,
        busy: None,
    };
    f(&mut Searcher::new(shared, Params::default(), 0))
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
    for p in late_positions::<7, 6>(0x128_76, 4, 400) {
        bounds += parity_bounds_on_both_words(&p);
    }
    for p in late_positions::<6, 7>(0x128_67, 4, 300) {
        bounds += parity_bounds_on_both_words(&p);
    }
    for p in late_positions::<8, 5>(0x128_85, 6, 300) {
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
    for p in late_positions::<7, 6>(0xaf7e_76, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    for p in late_positions::<7, 5>(0xaf7e_75, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    for p in late_positions::<6, 7>(0xaf7e_67, 8, 3000) {
        held += aftereven_implies_its_test(&p);
    }
    assert!(held > 50, "the rule held {held} times");
}
