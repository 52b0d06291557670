//! The search's unit tests: each bound against the search without it, the drivers, the
//! stages.

use super::parity::*;
use super::*;
use crate::ordering::AfterEach;
use crate::position::{has_four, winning_cells, xorshift};
use crate::table::Bound;

/// The oracle of the bound tests: the search without any parity or no-four bound and
/// without the static look at the children (itself checked against plain minimax by the
/// integration tests).
fn oracle<const W: usize, const H: usize>() -> crate::Solver<W, H, u64> {
    crate::Solver::builder()
        .table_mib(16)
        .threads(1)
        .params(Params {
            claim_even: false,
            no_four: false,
            static_children_empty: 0,
            ..Params::default()
        })
        .build()
        .unwrap()
}

/// `count` positions that `keep` accepts, each played at random (never a move that wins)
/// until `empty + 2 * k` cells are left for a random `k < steps`, with any mix of column
/// parities.
fn random_positions<const W: usize, const H: usize>(
    seed: u64,
    empty: u32,
    steps: u64,
    count: usize,
    keep: impl Fn(&Position<W, H>) -> bool,
) -> Vec<Position<W, H>> {
    let mut s = seed;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let target = (W * H) as u32 - empty - 2 * (xorshift(&mut s) % steps) as u32;
        let mut p = Position::<W, H>::new();
        while p.moves() < target && p.play_random_quiet(&mut s) {}
        if p.moves() == target && keep(&p) {
            out.push(p);
        }
    }
    out
}

/// The follow-up bound against the search without it, on `count` random positions of
/// W x H with 6 to 12 empty cells (an even number: the leader is to move, the follower
/// can answer each move). Returns how many it bounded, and how many as a loss.
fn check_follow_up<const W: usize, const H: usize>(seed: u64, count: usize) -> (u32, u32) {
    let oracle = oracle::<W, H>();
    let (mut bounded, mut lost) = (0, 0);
    for p in random_positions::<W, H>(seed, 6, 4, count, |_| true) {
        let (leader, follower) = (p.current(), p.current() ^ p.mask());
        let Some(b) =
            follow_up_bound::<W, H, u64>(leader, follower, p.opponent_winning(), p.mask())
        else {
            continue;
        };
        let score = oracle.solve(&p).unwrap().score;
        assert!(score <= b, "{W}x{H} {p:?}: score {score}, bound {b}\n{p}");
        bounded += 1;
        lost += u32::from(b < 0);
    }
    (bounded, lost)
}

/// [`follow_up_after_each`] against [`follow_up_bound`] after each move one at a time,
/// and [`Ab::raise_each`] against [`Ab::raise`] by each of its bounds in turn, on
/// random positions of W x H with an odd number of empty cells (where the search asks
/// it), in windows around each bound. Returns how many bounds the lanes held.
fn check_follow_up_lanes<const W: usize, const H: usize>(seed: u64, count: usize) -> u32 {
    let mut found = 0;
    let mut s = seed;
    for p in random_positions::<W, H>(seed, 5, 12, count, |p| !p.can_win_next()) {
        let (cur, mask) = (p.current(), p.mask());
        let (next, _) = p.non_losing_moves_and_threats();
        let mut after = AfterEach::<W, u64>::new();
        let (mut lanes, again) =
            follow_up_after_each::<W, H, u64>(cur ^ mask, cur, mask, next, after.get(&p));
        // The moves left to the aftereven check, as `parity_bounds` does them.
        for col in (0..W).filter(|&c| again >> c & 1 == 1) {
            let mv = next & Position::<W, H>::column_mask(col);
            let threats = winning_cells::<W, H, u64>(cur | mv, mask | mv);
            let (leader, follower) = (cur ^ mask, cur | mv);
            if let Some(b) = follow_up_aftereven::<W, H, u64>(leader, follower, threats, mask | mv)
            {
                lanes[col] = -b;
            }
        }
        let mut each = [NO_BOUND; LANES];
        for (col, lane) in each.iter_mut().enumerate().take(W) {
            let mv = next & Position::<W, H>::column_mask(col);
            if mv != 0 {
                let threats = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                if let Some(b) =
                    follow_up_bound::<W, H, u64>(cur ^ mask, cur | mv, threats, mask | mv)
                {
                    *lane = -b;
                }
            }
        }
        assert_eq!(lanes, each, "{W}x{H} {p:?}\n{p}");
        found += lanes.iter().filter(|&&b| b != NO_BOUND).count() as u32;
        let alpha = (xorshift(&mut s) % 7) as i32 - 4;
        for beta in alpha + 1..alpha + 4 {
            let (mut one, mut all) = (Ab { alpha, beta }, Ab { alpha, beta });
            let want = each
                .iter()
                .filter(|&&b| b != NO_BOUND)
                .try_for_each(|&b| one.raise(b));
            assert_eq!(all.raise_each(&lanes), want, "{p:?} ({alpha}, {beta})");
            if want.is_ok() {
                assert_eq!((all.alpha, all.beta), (one.alpha, one.beta));
            }
        }
    }
    found
}

#[test]
fn the_follow_up_bounds_in_lanes_are_each_moves_bound() {
    assert!(check_follow_up_lanes::<7, 6>(41, 400) > 0);
    assert!(check_follow_up_lanes::<6, 6>(42, 400) > 0);
    assert!(check_follow_up_lanes::<8, 4>(43, 400) > 0);
    assert!(check_follow_up_lanes::<7, 5>(44, 400) > 0);
    assert!(check_follow_up_lanes::<5, 8>(45, 400) > 0);
    assert!(check_follow_up_lanes::<8, 7>(46, 200) > 0);
    assert!(check_follow_up_lanes::<4, 4>(47, 200) > 0);
}

/// The no-four bounds against the search without them, on `count` random positions of
/// W x H with 4 to 11 empty cells where a side can make no four with its stones and
/// every empty cell: that side never wins, and the search with the bounds scores them as
/// the oracle does. Returns how many positions bounded each side.
fn check_no_four<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 2] {
    let oracle = oracle::<W, H>();
    let search: crate::Solver<W, H, u64> = crate::Solver::builder()
        .table_mib(16)
        .threads(1)
        .build()
        .unwrap();
    let mut bounded = [0; 2];
    let empty = |p: &Position<W, H>| Position::<W, H>::board() & !p.mask();
    let mover = |p: &Position<W, H>| !has_four::<W, H, u64>(p.current() | empty(p));
    let opponent = |p: &Position<W, H>| !has_four::<W, H, u64>((p.current() ^ p.mask()) | empty(p));
    for offset in [4, 5] {
        let keep = |p: &Position<W, H>| mover(p) || opponent(p);
        for p in random_positions::<W, H>(seed + offset as u64, offset, 4, count / 2, keep) {
            let (mover, opponent) = (mover(&p), opponent(&p));
            let score = oracle.solve(&p).unwrap().score;
            assert_eq!(search.solve(&p).unwrap().score, score, "{W}x{H} {p:?}");
            if mover {
                assert!(
                    score <= 0,
                    "{W}x{H} {p:?}: the mover cannot win, score {score}\n{p}"
                );
                bounded[0] += 1;
            }
            if opponent {
                assert!(
                    score >= 0,
                    "{W}x{H} {p:?}: the opponent cannot win, score {score}\n{p}"
                );
                bounded[1] += 1;
            }
        }
    }
    bounded
}

#[test]
fn a_side_that_can_make_no_four_never_wins() {
    // Both sides bounded often, on both height parities.
    for (board, [mover, opponent]) in [
        ("7x6", check_no_four::<7, 6>(0x40f0, 200)),
        ("6x5", check_no_four::<6, 5>(0x40f1, 200)),
        ("5x4", check_no_four::<5, 4>(0x40f2, 200)),
    ] {
        assert!(
            mover >= 40 && opponent >= 40,
            "{board}: {mover} / {opponent}"
        );
    }
}

#[test]
fn follow_up_bound_never_overstates_the_leader() {
    // The test means something only if the bound often applies, both ways, on boards
    // of either height parity and either width parity.
    for (board, (bounded, lost)) in [
        ("7x6", check_follow_up::<7, 6>(0x5eed, 4000)),
        ("7x5", check_follow_up::<7, 5>(0x5eed_0075, 3000)),
        ("8x5", check_follow_up::<8, 5>(0x5eed_0085, 2000)),
        ("6x7", check_follow_up::<6, 7>(0x5eed_0067, 2000)),
        ("5x5", check_follow_up::<5, 5>(0x5eed_0055, 2000)),
    ] {
        assert!(
            bounded > 60 && lost > 20,
            "{board}: {bounded} bounded, {lost} lost"
        );
    }
}

/// The odd-threat bound against the search without it, on `count` random positions of
/// W x H with 7 to 17 empty cells (an odd number: the leader, to move, may be in
/// zugzwang). Returns how many it bounded, and how many above 1.
fn check_odd_threat<const W: usize, const H: usize>(seed: u64, count: usize) -> (u32, u32) {
    let oracle = oracle::<W, H>();
    let (mut bounded, mut above_one) = (0, 0);
    for p in random_positions::<W, H>(seed, 7, 6, count, |p| !p.can_win_next()) {
        let Some(b) = odd_threat_bound::<W, H, u64>(p.current(), p.opponent_winning(), p.mask())
        else {
            continue;
        };
        let score = oracle.solve(&p).unwrap().score;
        assert!(
            -score >= b,
            "{W}x{H} {p:?}: follower's score {}, bound {b}\n{p}",
            -score
        );
        bounded += 1;
        above_one += u32::from(b > 1);
    }
    (bounded, above_one)
}

#[test]
fn odd_threat_bound_never_overstates_the_follower() {
    // The test means something only if the bound often applies, and not only as 1.
    for (board, (bounded, above_one)) in [
        ("7x6", check_odd_threat::<7, 6>(0x0dd_7ea7, 4000)),
        ("7x5", check_odd_threat::<7, 5>(0x0dd0_0075, 3000)),
        ("8x5", check_odd_threat::<8, 5>(0x0dd0_0085, 3000)),
        ("6x7", check_odd_threat::<6, 7>(0x0dd0_0067, 2000)),
        ("5x5", check_odd_threat::<5, 5>(0x0dd0_0055, 6000)),
    ] {
        assert!(
            bounded > 100 && above_one > 30,
            "{board}: {bounded} bounded, {above_one} above 1"
        );
    }
}
/// The search with the parity bounds (each mix of `claim_even_general`, `odd_threat`
/// and `odd_threat_ahead`) against the search without them, on `count` random positions
/// of W x H with 8 to 19 empty cells (either parity): the same score and best move.
/// Returns the nodes of each mix and of the oracle.
fn check_parity_bounds<const W: usize, const H: usize>(seed: u64, count: usize) -> Vec<u64> {
    let oracle = oracle::<W, H>();
    let mixes: Vec<crate::Solver<W, H, u64>> = [
        Params::default(),
        Params {
            claim_even_general: false,
            ..Params::default()
        },
        Params {
            odd_threat: false,
            ..Params::default()
        },
        Params {
            odd_threat_ahead: false,
            ..Params::default()
        },
    ]
    .into_iter()
    .map(|params| {
        crate::Solver::builder()
            .table_mib(16)
            .threads(1)
            .params(params)
            .build()
            .unwrap()
    })
    .collect();
    let mut nodes = vec![0; mixes.len() + 1];
    for p in random_positions::<W, H>(seed, 8, 6, count, |_| true) {
        let want = oracle.solve(&p).unwrap();
        nodes[mixes.len()] += want.nodes;
        for (i, solver) in mixes.iter().enumerate() {
            let got = solver.solve(&p).unwrap();
            assert_eq!(
                (got.score, got.best_move),
                (want.score, want.best_move),
                "{W}x{H} {p:?}, mix {i}\n{p}"
            );
            nodes[i] += got.nodes;
        }
    }
    nodes
}

#[test]
fn parity_bounds_keep_the_scores_and_save_nodes() {
    // Boards of either height parity and either width parity. Each bound must be in
    // use: switching it off (or all of them: the oracle) searches more nodes in all.
    let mut total = [0; 5];
    for nodes in [
        check_parity_bounds::<7, 6>(0x9a41_0076, 300),
        check_parity_bounds::<7, 5>(0x9a41_0075, 300),
        check_parity_bounds::<8, 5>(0x9a41_0085, 200),
        check_parity_bounds::<6, 7>(0x9a41_0067, 200),
        check_parity_bounds::<5, 5>(0x9a41_0055, 300),
    ] {
        for (t, n) in total.iter_mut().zip(nodes) {
            *t += n;
        }
    }
    assert!(
        total[1..].iter().all(|&n| n > total[0]),
        "nodes with every bound, without the general claim-even, the odd threat, the \
         odd threat ahead, without any: {total:?}"
    );
}

/// Whether some parity bound alone decides a node of `p` in the window `w`, from the
/// bound functions themselves (`odd_threat` and `odd_threat_ahead` on): `Some(true)`
/// high, `Some(false)` low. Without `general` (`claim_even_general`), the follow-up
/// bounds only where every column has an even number of empty cells (before the
/// opponent's move, or after ours).
fn decisive<const W: usize, const H: usize>(
    p: &Position<W, H>,
    w: Ab,
    general: bool,
) -> Option<bool> {
    let (cur, mask) = (p.current(), p.mask());
    let (next, opp_threats) = p.non_losing_moves_and_threats();
    let moves = (0..W).map(|c| next & Position::<W, H>::column_mask(c));
    let after = |mv: u64| winning_cells::<W, H, u64>(cur | mv, mask | mv);
    if (W * H - p.moves() as usize) % 2 == 0 {
        // The opponent follows us up; or we leave it an odd threat of ours after a move.
        if (general || p.columns_paired())
            && follow_up_bound::<W, H, u64>(cur, cur ^ mask, opp_threats, mask)
                .is_some_and(|b| b <= w.alpha)
        {
            return Some(false);
        }
        moves
            .filter(|&mv| mv != 0)
            .any(|mv| {
                odd_threat_bound::<W, H, u64>(cur ^ mask, after(mv), mask | mv)
                    .is_some_and(|b| b >= w.beta)
            })
            .then_some(true)
    } else {
        // The opponent holds an odd threat; or we follow it up after a move.
        if odd_threat_bound::<W, H, u64>(cur, opp_threats, mask).is_some_and(|b| -b <= w.alpha) {
            return Some(false);
        }
        moves
            .filter(|&mv| mv != 0 && (general || p.after(mv).columns_paired()))
            .any(|mv| {
                follow_up_bound::<W, H, u64>(cur ^ mask, cur | mv, after(mv), mask | mv)
                    .is_some_and(|b| -b >= w.beta)
            })
            .then_some(true)
    }
}

/// `parity_bounds` on the searched nodes of `count` random positions of W x H (5 to 16
/// empty cells, half of them odd) and every window of width 1, 2 or 4 near 0: it decides
/// the node exactly when one of its bounds does (its guards skip only bounds that
/// cannot), and every bound it proves holds (the oracle's score). Returns how many
/// nodes a bound decides, by kind: low and high with an even number of empty cells, low
/// and high with an odd one.
fn check_decisive<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 4] {
    let cells = (W * H) as u32;
    // The nodes `negamax` hands to `bounds`: no win at once, at least two moves that do
    // not lose at once, and more than two empty cells.
    let searched = |p: &Position<W, H>| {
        let next = p.non_losing_moves();
        !p.can_win_next() && next.count_ones() >= 2 && p.moves() + 2 < cells
    };
    let odd = random_positions::<W, H>(seed, 5, 6, count / 2, searched);
    let even = random_positions(seed, 6, 6, count / 2, searched);
    check_decisive_on::<W, H>(odd.into_iter().chain(even))
}

/// [`check_decisive`] on the given positions (each one `negamax` hands to `bounds`).
fn check_decisive_on<const W: usize, const H: usize>(
    positions: impl Iterator<Item = Position<W, H>>,
) -> [u32; 4] {
    let oracle = oracle::<W, H>();
    let alone = Alone::new::<W, H>(1);
    let searchers = [true, false].map(|general| {
        let shared = alone.shared();
        let params = Params {
            claim_even_general: general,
            ..Params::default()
        };
        (general, Searcher::<W, H, u64>::new(shared, params, 0))
    });
    let mut kinds = [0; 4];
    for p in positions {
        let score = oracle.solve(&p).unwrap().score;
        let (next, opp_threats) = p.non_losing_moves_and_threats();
        for ((general, searcher), alpha) in
            searchers.iter().flat_map(|s| (-4..=4).map(move |a| (s, a)))
        {
            for width in [1, 2, 4] {
                let window = Ab {
                    alpha,
                    beta: alpha + width,
                };
                let mut w = window;
                // No bound but the parity ones: `max` is theirs alone.
                let mut max = i32::MAX;
                let decided = match searcher.parity_bounds(
                    &p,
                    next,
                    opp_threats,
                    &mut w,
                    &mut max,
                    &mut AfterEach::new(),
                ) {
                    Err(v) => {
                        assert!(
                            v >= window.beta && score >= v,
                            "{p:?} {window:?}: {v}, score {score}"
                        );
                        Some(true)
                    }
                    Ok(()) => {
                        // Any bound it proved holds.
                        assert!(
                            score <= max && (w.alpha == alpha || score >= w.alpha),
                            "{p:?} {window:?}: max {max}, {w:?}, score {score}"
                        );
                        (max <= alpha).then_some(false)
                    }
                };
                // It decides the node exactly when one of its bounds does.
                let want = decisive(&p, window, *general);
                assert_eq!(
                    decided, want,
                    "{W}x{H} {p:?} {window:?}, general {general}\n{p}"
                );
                if let Some(want) = want {
                    kinds[2 * ((p.moves() as usize % 2) ^ ((W * H) % 2)) + usize::from(want)] += 1;
                }
            }
        }
    }
    kinds
}

#[test]
fn parity_bounds_decide_exactly_the_nodes_a_bound_decides() {
    // The test means something only if each bound decides many nodes on each board.
    for (board, kinds) in [
        ("7x6", check_decisive::<7, 6>(0xdec1_0076, 400)),
        ("7x5", check_decisive::<7, 5>(0xdec1_0075, 400)),
        ("6x7", check_decisive::<6, 7>(0xdec1_0067, 300)),
        ("5x5", check_decisive::<5, 5>(0xdec1_0055, 400)),
        // Wider than the lanes: the follow-up bounds after each move one at a time.
        ("9x5", check_decisive::<9, 5>(0xdec1_0095, 200)),
    ] {
        assert!(kinds.iter().all(|&k| k > 50), "{board}: {kinds:?}");
    }
}

/// Positions the random ones of the test above miss: after one of the moves, a cell
/// that completes a four for the mover is already the opponent's (it blocked that
/// four) and lies an even number of rows below a real threat of the mover in a column
/// with an even number of empty cells. The odd-threat bound one move ahead must count
/// only empty cells as threats, or it takes the blocked cell for the column's lowest
/// threat, misses the real one and proves a smaller bound (found by comparing the bound
/// with and without the mask on random positions of 4 to 27 empty cells).
#[test]
fn parity_bounds_decide_exactly_with_a_blocked_four_below_a_threat() {
    fn parse<const W: usize, const H: usize>(lines: &[&str]) -> Vec<Position<W, H>> {
        lines.iter().map(|l| Position::parse(l).unwrap()).collect()
    }
    let sets = [
        check_decisive_on::<7, 6>(
            parse(&[
                "512364334451477274225247771625",
                "16731134773432644366177431667152",
            ])
            .into_iter(),
        ),
        check_decisive_on::<6, 7>(
            parse(&["4424352362514522441232", "24163553422333461252"]).into_iter(),
        ),
        check_decisive_on::<7, 5>(parse(&["6463166644731415343115273"]).into_iter()),
        check_decisive_on::<6, 6>(parse(&["15433316645113365261"]).into_iter()),
    ];
    // Each position has a node the odd-threat bound decides with a high score.
    assert!(sets.iter().all(|k| k[1] > 0), "{sets:?}");
}

/// Positions with an odd number of empty cells where, after one of the moves, the
/// follow-up bound comes from Allis' aftereven rule alone (the lanes find no bound without
/// it and say the rule might give one): the node then runs the rule for that move on its
/// own, outside the lanes, which random positions of the tests above seldom reach.
fn aftereven_after_a_move<const W: usize, const H: usize>(
    seed: u64,
    count: usize,
) -> Vec<Position<W, H>> {
    let cells = (W * H) as u32;
    random_positions::<W, H>(seed, 9, 6, count, |p| {
        let (cur, mask) = (p.current(), p.mask());
        let next = p.non_losing_moves();
        let searched = !p.can_win_next() && next.count_ones() >= 2 && p.moves() + 2 < cells;
        searched
            && (0..W)
                .map(|c| next & Position::<W, H>::column_mask(c))
                .filter(|&mv| mv != 0)
                .any(|mv| {
                    let after = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                    let (leader, follower) = (cur ^ mask, cur | mv);
                    let lanes =
                        follow_up_value::<W, H, u64>(leader, follower, after, mask | mv, false);
                    lanes == (NO_BOUND, true)
                        && follow_up_aftereven::<W, H, u64>(leader, follower, after, mask | mv)
                            .is_some()
                })
    })
}

#[test]
fn parity_bounds_decide_exactly_where_aftereven_gives_the_bound_after_a_move() {
    let sets = [
        check_decisive_on::<7, 6>(aftereven_after_a_move::<7, 6>(0xaf7e_0076, 40).into_iter()),
        check_decisive_on::<6, 7>(aftereven_after_a_move::<6, 7>(0xaf7e_0067, 40).into_iter()),
    ];
    // The follow-up bounds after a move decided nodes high.
    assert!(sets.iter().all(|k| k[3] > 0), "{sets:?}");
}

/// The parity-bound functions restated cell by cell from their docs, on `u64` words
/// (cell (`c`, `r`) at bit `c * (H + 1) + r`): an oracle free of their bit arithmetic.
struct Cells<const W: usize, const H: usize>;

impl<const W: usize, const H: usize> Cells<W, H> {
    fn bit(c: usize, r: usize) -> u64 {
        1 << (c * (H + 1) + r)
    }
    fn at(set: u64, c: usize, r: usize) -> bool {
        set & Self::bit(c, r) != 0
    }
    /// Rows an even number of rows below the top one.
    fn follower_row(r: usize) -> bool {
        (H - 1 - r) % 2 == 0
    }
    fn odd_column(mask: u64, c: usize) -> bool {
        (0..H).filter(|&r| !Self::at(mask, c, r)).count() % 2 == 1
    }
    /// Every cell (`c`, `r`) of the board for which `f` holds.
    fn cells(f: impl Fn(usize, usize) -> bool) -> u64 {
        let mut set = 0;
        for c in 0..W {
            for r in (0..H).filter(|&r| f(c, r)) {
                set |= Self::bit(c, r);
            }
        }
        set
    }
    fn four(set: u64) -> bool {
        crate::position::four_by_cells::<W, H>(u128::from(set))
    }
    fn empty_and_odd(mask: u64) -> (u64, u64) {
        (
            Self::cells(|c, r| !Self::at(mask, c, r)),
            Self::cells(|c, r| !Self::at(mask, c, r) && Self::odd_column(mask, c)),
        )
    }
    /// Whether either side may get the empty cell (`c`, `r`) of a column with an odd
    /// number of empty cells: any of them, or in `pairs` its lowest one only.
    fn free(mask: u64, c: usize, r: usize, pairs: bool) -> bool {
        let lowest = (0..H).find(|&r| !Self::at(mask, c, r));
        !Self::at(mask, c, r) && Self::odd_column(mask, c) && (!pairs || lowest == Some(r))
    }
    /// In each column, its lowest threat on a follower's row that is not free, and every
    /// cell above it; then the cells left empty when the follower wins on one of them
    /// (where there is one): in each such column, the threat, those above it and the
    /// one below, all but the leader's stone under the threat it plays under last and
    /// the follower's on it.
    fn sure_threats(mask: u64, threats: u64, pairs: bool) -> (u64, i32) {
        let (mut cut, mut left) = (0, None::<i32>);
        for c in 0..W {
            let first = (0..H).find(|&r| {
                !Self::at(mask, c, r)
                    && !Self::free(mask, c, r, pairs)
                    && Self::follower_row(r)
                    && Self::at(threats, c, r)
            });
            if let Some(row) = first {
                cut |= Self::cells(|cc, r| cc == c && r >= row);
                let column = (H - row + 1) as i32;
                left = Some(left.map_or(column - 2, |l| l + column));
            }
        }
        // No more than one column's cells above a threat: the window guards' limit.
        (cut, left.map_or(0, |l| l.min(((H - 1) & !1) as i32)))
    }
    /// The cells the leader may get under a follow-up: its stones, the free cells and,
    /// elsewhere, those on its rows not cut off by a threat.
    fn leader_cells(leader: u64, mask: u64, cut: u64, pairs: bool) -> u64 {
        leader
            | Self::cells(|c, r| {
                !Self::at(mask, c, r)
                    && (Self::free(mask, c, r, pairs)
                        || (!Self::follower_row(r) && !Self::at(cut, c, r)))
            })
    }
    /// Every four of the board, as its cells (column, row).
    fn lines() -> Vec<[(usize, usize); 4]> {
        let mut lines = Vec::new();
        for c in 0..W as i64 {
            for r in 0..H as i64 {
                for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let line = [0, 1, 2, 3].map(|i| (c + i * dc, r + i * dr));
                    let on_board = |&(c, r): &(i64, i64)| {
                        (0..W as i64).contains(&c) && (0..H as i64).contains(&r)
                    };
                    if line.iter().all(on_board) {
                        lines.push(line.map(|(c, r)| (c as usize, r as usize)));
                    }
                }
            }
        }
        lines
    }
    /// A four of the leader within the cells it may get (`cells`, empty in `mask` or
    /// its stones): one up a column needs three of its stones, since when the follower
    /// answers on top in every column the leader never gets two cells of a column in
    /// a row.
    fn leader_four(cells: u64, mask: u64) -> bool {
        Self::lines().iter().any(|line| {
            let empty = line.iter().filter(|&&(c, r)| !Self::at(mask, c, r)).count();
            let up = line[0].0 == line[3].0;
            line.iter().all(|&(c, r)| Self::at(cells, c, r)) && (!up || empty <= 1)
        })
    }
    /// The leader's bound from the follower's fours within `sure` (its stones and the
    /// cells it is sure of): the leader leaves to the last the empty cell of a four
    /// with the fewest cells above it, which are still empty when the four is
    /// completed; the follower picks the four that leaves the most. 0 when `sure`
    /// holds no four.
    fn sure_four(sure: u64, mask: u64) -> i32 {
        Self::lines()
            .iter()
            .filter(|line| line.iter().all(|&(c, r)| Self::at(sure, c, r)))
            .map(|line| {
                let empty = line.iter().filter(|&&(c, r)| !Self::at(mask, c, r));
                // A four already made (on made-up boards only): as many as the most.
                empty
                    .map(|&(_, r)| (H - 1 - r) as i32)
                    .min()
                    .unwrap_or(H as i32 - 1)
            })
            .max()
            .map_or(0, |k| -1 - k / 2)
    }
    /// The follow-up bound of one way of playing the odd columns: in `pairs` the
    /// leader may get two cells of a column in a row (an odd column's lowest and the
    /// one above), else never.
    fn follow_up_way(
        leader: u64,
        follower: u64,
        threats: u64,
        mask: u64,
        pairs: bool,
    ) -> Option<i32> {
        let (cut, above) = Self::sure_threats(mask, threats, pairs);
        let cells = Self::leader_cells(leader, mask, cut, pairs);
        let sure = follower
            | Self::cells(|c, r| {
                !Self::at(mask, c, r) && Self::follower_row(r) && !Self::free(mask, c, r, pairs)
            });
        // In pairs, the aftereven rule may keep the leader from its fours.
        if (pairs && Self::four(cells) && !Self::aftereven(cells, sure, mask))
            || (!pairs && Self::leader_four(cells, mask))
        {
            return None;
        }
        // The timing of the follower's four, in pairs only (the way that decides).
        let four = match (pairs, Self::four(sure)) {
            (true, _) => Self::sure_four(sure, mask),
            (false, true) => -1,
            (false, false) => 0,
        };
        Some(if cut != 0 {
            four.min(-1 - above / 2)
        } else {
            four
        })
    }
    /// Allis' aftereven: a four of the follower within `sure` such that every four of
    /// the leader within `cells` holds, in each column of the follower's four, a cell
    /// above its empty cell there (the highest, where it has two in the column).
    fn aftereven(cells: u64, sure: u64, mask: u64) -> bool {
        let within =
            |set: u64, line: &[(usize, usize); 4]| line.iter().all(|&(c, r)| Self::at(set, c, r));
        let lines = Self::lines();
        let leader: Vec<_> = lines.iter().filter(|g| within(cells, g)).collect();
        lines.iter().filter(|f| within(sure, f)).any(|f| {
            let holes: Vec<(usize, usize)> = f
                .iter()
                .copied()
                .filter(|&(c, r)| !Self::at(mask, c, r))
                .collect();
            let highest = |col: usize| holes.iter().filter(|h| h.0 == col).map(|h| h.1).max();
            leader.iter().all(|g| {
                holes.iter().all(|&(col, _)| {
                    let top = highest(col).unwrap_or(0);
                    g.iter().any(|&(c, r)| c == col && r > top)
                })
            })
        })
    }
    /// The lower of the two ways' bounds, where they hold.
    fn follow_up_bound(leader: u64, follower: u64, threats: u64, mask: u64) -> Option<i32> {
        [false, true]
            .iter()
            .filter_map(|&pairs| Self::follow_up_way(leader, follower, threats, mask, pairs))
            .min()
    }
    fn odd_threat_bound(leader: u64, threats: u64, mask: u64) -> Option<i32> {
        let elsewhere = |pairs| {
            let (cut, _) = Self::sure_threats(mask, threats, pairs);
            Self::leader_cells(leader, mask, cut, pairs)
        };
        let mut best = None;
        for c in (0..W).filter(|&c| Self::odd_column(mask, c)) {
            // The column's lowest threat on a leader's row.
            let Some(t) = (0..H).find(|&r| {
                !Self::at(mask, c, r) && !Self::follower_row(r) && Self::at(threats, c, r)
            }) else {
                continue;
            };
            let cells = |pairs| {
                leader
                    | Self::cells(|cc, r| cc != c && Self::at(elsewhere(pairs), cc, r))
                    | Self::cells(|cc, r| {
                        cc == c && r < t && !Self::at(mask, cc, r) && Self::follower_row(r)
                    })
            };
            // Open, the leader never gets two cells of a column in a row; in pairs it
            // may (an odd column's lowest and the one above).
            if !Self::leader_four(cells(false), mask) || !Self::four(cells(true)) {
                let b = (H - 1 - t) as i32 / 2 + 1;
                best = Some(best.map_or(b, |x: i32| x.max(b)));
            }
        }
        best
    }
}

/// The parity-bound functions against [`Cells`] on the arguments the search gives
/// them, at `count` random positions of W x H with 2 to 23 empty cells, and on as many
/// made-up ones; and the aftereven rule on the cells of the pairs way, wherever the leader
/// has a four there.
fn check_against_cells<const W: usize, const H: usize>(seed: u64, count: usize) -> [u32; 5] {
    type C<const W: usize, const H: usize> = Cells<W, H>;
    let mut some = [0; 5];
    let even = random_positions::<W, H>(seed, 2, 11, count / 2, |_| true);
    let odd = random_positions::<W, H>(seed ^ 1, 3, 11, count / 2, |_| true);
    for p in even.into_iter().chain(odd) {
        let (cur, mask) = (p.current(), p.mask());
        let threats = p.opponent_winning();
        let mut calls = vec![(cur, cur ^ mask, threats, mask)];
        for mv in (0..W).map(|c| p.possible() & Position::<W, H>::column_mask(c)) {
            if mv != 0 {
                let after = winning_cells::<W, H, u64>(cur | mv, mask | mv);
                calls.push((cur ^ mask, cur | mv, after, mask | mv));
            }
        }
        // And made-up arguments: any column heights, any stones, any empty cells as
        // threats (the functions ask no more of them), on the same columns.
        let mut rng = seed ^ u64::from(p.moves()) ^ mask;
        let mut bits = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let heights: Vec<u64> = (0..W).map(|_| bits() % (H as u64 + 1)).collect();
        let stacks = Cells::<W, H>::cells(|c, r| (r as u64) < heights[c]);
        let stones = bits() & stacks;
        let made_up =
            bits() & bits() & Cells::<W, H>::cells(|c, r| !Cells::<W, H>::at(stacks, c, r));
        calls.push((stones, stacks ^ stones, made_up, stacks));
        for (leader, follower, threats, mask) in calls {
            let at = format!("{W}x{H} {p:?}: leader {leader:#x}, threats {threats:#x}");
            let (empty, odd) = empty_and_odd::<W, H, u64>(mask);
            assert_eq!((empty, odd), C::<W, H>::empty_and_odd(mask), "{at}");
            let sure = sure_threats::<W, H, u64>(empty, odd, threats);
            assert_eq!(sure, C::<W, H>::sure_threats(mask, threats, false), "{at}");
            let lowest = odd_lowest::<W, H, u64>(mask);
            assert_eq!(
                sure_threats::<W, H, u64>(empty, lowest, threats),
                C::<W, H>::sure_threats(mask, threats, true),
                "{at}"
            );
            let f = follow_up_bound::<W, H, u64>(leader, follower, threats, mask);
            assert_eq!(
                f,
                C::<W, H>::follow_up_bound(leader, follower, threats, mask),
                "{at}"
            );
            // Allis' aftereven rule on the pairs way's cells, wherever the leader has a four
            // there (else the rule is not needed, and the search does not ask it).
            let cut = sure_threats::<W, H, u64>(empty, lowest, threats).0;
            let cells = leader | (empty & Position::<W, H>::leader_rows() & !cut) | lowest;
            let sure_cells = follower | (empty & Position::<W, H>::follower_rows() & !lowest);
            if C::<W, H>::four(cells) {
                let rule = aftereven::<W, H, u64>(cells, cells, sure_cells, empty);
                assert_eq!(rule, C::<W, H>::aftereven(cells, sure_cells, mask), "{at}");
                some[4] += u32::from(rule);
            }
            let o = odd_threat_bound::<W, H, u64>(leader, threats, mask);
            assert_eq!(
                o,
                C::<W, H>::odd_threat_bound(leader, threats, mask),
                "{at}"
            );
            some[0] += u32::from(sure.0 != 0);
            some[1] += u32::from(f.is_some_and(|b| b < -1));
            some[2] += u32::from(f == Some(-1));
            some[3] += u32::from(o.is_some_and(|b| b > 1));
        }
    }
    some
}

#[test]
fn parity_bound_functions_agree_with_a_cell_by_cell_oracle() {
    // The test means something only if each kind of answer comes up often: sure
    // threats, follow-up losses by more than 1 and by 1, odd threats above 1, the aftereven
    // rule holding where the leader has a four.
    for (board, some) in [
        ("7x6", check_against_cells::<7, 6>(0xce11_0076, 4000)),
        ("7x5", check_against_cells::<7, 5>(0xce11_0075, 4000)),
        ("6x7", check_against_cells::<6, 7>(0xce11_0067, 4000)),
        ("8x5", check_against_cells::<8, 5>(0xce11_0085, 4000)),
        ("5x5", check_against_cells::<5, 5>(0xce11_0055, 4000)),
        ("6x6", check_against_cells::<6, 6>(0xce11_0066, 4000)),
        ("7x8", check_against_cells::<7, 8>(0xce11_0078, 4000)),
        ("5x9", check_against_cells::<5, 9>(0xce11_0059, 4000)),
    ] {
        assert!(some.iter().all(|&k| k > 20), "{board}: {some:?}");
    }
}

/// Plain minimax (no bound, no table): the oracle of the late-position test.
fn minimax<const W: usize, const H: usize>(p: &Position<W, H, u128>) -> i32 {
    if p.is_full() {
        return 0;
    }
    let cells = (W * H) as i32;
    let mut best = i32::MIN;
    for c in (0..W).filter(|&c| p.can_play(c)) {
        if p.is_winning_move(c) {
            return (cells + 1 - p.moves() as i32) / 2;
        }
        let mut q = *p;
        q.play_col(c);
        best = best.max(-minimax(&q));
    }
    best
}

#[test]
fn table_is_used_on_the_late_plies_of_big_boards() {
    // 9 x 8 (72 cells, 128-bit words): positions of 64 stones, first player to move. The
    // table must be probed and stored there too (it used to stop at 64 stones), and the
    // scores must agree with plain minimax.
    const W: usize = 9;
    const H: usize = 8;
    let alone = Alone::new::<W, H>(1);
    let mut s: u64 = 0x7ab1e;
    let (mut solved, mut stored) = (0, 0);
    while solved < 400 {
        let mut p = Position::<W, H, u128>::new();
        let target = 64;
        while p.moves() < target && p.play_random_quiet(&mut s) {}
        if p.moves() != target || p.can_win_next() {
            continue;
        }
        let shared = alone.shared();
        let mut searcher = Searcher::<W, H, u128>::new(shared, Params::default(), 0);
        let w = Searcher::<W, H, u128>::initial_window(&p);
        let score = searcher.negamax(&p, w.lower - 1, w.upper + 1);
        assert_eq!(score, minimax(&p), "{p:?}\n{p}");
        solved += 1;
        if let Some(e) = alone.table.probe(p.canonical_key().0) {
            // The window inside may have been narrowed to the score: any bound must hold.
            let holds = match e.bound {
                Bound::Exact => score == e.value,
                Bound::Lower => score >= e.value,
                Bound::Upper => score <= e.value,
            };
            assert!(holds, "{p:?}: score {score}, stored {e:?}\n{p}");
            stored += 1;
        }
    }
    // Most roots are decided before the table (one move that does not lose at once, or
    // the bounds); some must reach it (with the table stopped at 64 stones, none did).
    assert!(stored >= 10, "{stored} of {solved} roots stored");
}

#[test]
fn the_first_test_changes_no_score() {
    // The driver's first question only changes which tests are asked: every choice,
    // inside the score range or outside it, ends at the oracle's score (and the weak
    // solve at its sign). The positions have fewer stones than `zero_window_below`,
    // where the first question is used.
    let oracle = oracle::<5, 4>();
    let mut s = 0x51f7_0013;
    let positions: Vec<Position<5, 4>> = (0..40)
        .map(|i| {
            let mut p = Position::new();
            while p.moves() < i % 4 && p.play_random_quiet(&mut s) {}
            p
        })
        .collect();
    let want: Vec<i32> = positions
        .iter()
        .map(|p| oracle.solve(p).unwrap().score)
        .collect();
    assert!(want.iter().any(|&w| w > 0) && want.iter().any(|&w| w < 0));
    // With the first move's guess, its tests prove bounds of the root (the move wins, or
    // holds one lower) or start the driver lower (it does neither): all three happen.
    let mut guesses = [0; 3];
    for (first, guess) in [-9, -2, -1, 0, 1, 3, 9]
        .into_iter()
        .flat_map(|f| [(f, false), (f, true)])
    {
        // The guess on every root of the test, not only the empty one.
        let solver: crate::Solver<5, 4, u64> = crate::Solver::builder()
            .table_mib(4)
            .threads(1)
            .params(Params {
                first_test: first,
                first_move_guess_below: if guess { 4 } else { 0 },
                ..Params::default()
            })
            .build()
            .unwrap();
        for (p, &w) in positions.iter().zip(&want) {
            assert_eq!(
                solver.solve(p).unwrap().score,
                w,
                "first test {first}, guess {guess}: {p:?}"
            );
            assert_eq!(
                solver.solve_weak(p).unwrap().score,
                w.signum(),
                "weak, guess {guess}: {p:?}"
            );
            if guess && first == 0 && !p.can_win_next() {
                // Which way the guess went, from the first move's score.
                let next = p.non_losing_moves();
                let col = column_order::<5>()
                    .into_iter()
                    .find(|&c| next & Position::<5, 4>::column_mask(c) != 0)
                    .unwrap();
                let after = p.after(next & Position::<5, 4>::column_mask(col));
                let m = -oracle.solve(&after).unwrap().score;
                guesses[usize::from(m <= 0) + usize::from(m <= -1)] += 1;
            }
        }
    }
    assert!(guesses.iter().all(|&n| n > 0), "{guesses:?}");
}

/// Windows of every kind around the score of each of `count` random positions of
/// W x H (8 to 18 empty cells), searched with the children looked at statically at every
/// depth, on one table for all: each result holds for the oracle's score. Returns the
/// nodes with and without the static look.
fn check_static_children<const W: usize, const H: usize>(seed: u64, count: usize) -> [u64; 2] {
    use crate::table::Bound;
    let oracle = oracle::<W, H>();
    let [with, without] = [99, 0].map(|k| -> crate::Solver<W, H, u64> {
        crate::Solver::builder()
            .table_mib(4)
            .threads(1)
            .params(Params {
                static_children_empty: k,
                ..Params::default()
            })
            .build()
            .unwrap()
    });
    let mut nodes = [0; 2];
    let mut kinds = [0; 3];
    for p in random_positions::<W, H>(seed, 8, 6, count, |_| true) {
        let s = oracle.solve(&p).unwrap().score;
        for (alpha, beta) in [
            (s - 1, s),
            (s, s + 1),
            (s - 2, s + 2),
            (-30, 30),
            (s + 1, s + 3),
            (s - 4, s - 1),
        ] {
            let r = with.solve_window(&p, alpha, beta).unwrap();
            let holds = match r.bound {
                Bound::Exact => r.value == s && alpha < s && s < beta,
                Bound::Lower => s >= r.value && r.value >= beta,
                Bound::Upper => s <= r.value && r.value <= alpha,
            };
            assert!(holds, "{p:?} ({alpha}, {beta}): {r:?}, score {s}");
            kinds[r.bound as usize - 1] += 1;
            nodes[0] += r.nodes;
            nodes[1] += without.solve_window(&p, alpha, beta).unwrap().nodes;
        }
    }
    assert!(kinds.iter().all(|&k| k > 20), "{kinds:?}");
    nodes
}

#[test]
fn children_looked_at_before_the_search_keep_every_window_exact() {
    // Wide windows too: a child decided by its own stages may be the best of an exact
    // node, and then its score and move must be what the node returns and stores.
    let mut total = [0; 2];
    for nodes in [
        check_static_children::<7, 6>(0x57a7_0076, 120),
        check_static_children::<6, 5>(0x57a7_0065, 150),
        check_static_children::<5, 4>(0x57a7_0054, 150),
        check_static_children::<6, 7>(0x57a7_0067, 100),
    ] {
        total[0] += nodes[0];
        total[1] += nodes[1];
    }
    // In use: the children it decides are neither searched nor counted.
    assert!(total[0] < total[1], "nodes with and without: {total:?}");
}

/// The score and node count of a search of `p` at level `I`, on a fresh table.
fn search_at<const W: usize, const H: usize, I: super::isa::Isa>(p: &Position<W, H>) -> (i32, u64) {
    let alone = Alone::new::<W, H>(4);
    let shared = alone.shared();
    let mut searcher = Searcher::<W, H, u64, I>::new(shared, Params::default(), 0);
    let w = Searcher::<W, H>::initial_window(p);
    let score = searcher.negamax(p, w.lower - 1, w.upper + 1);
    (score, searcher.nodes)
}

/// Every level this build compiles and this CPU has searches the same tree as the build's
/// own code: the same score and node count on random positions. (On builds for the CPU they
/// run on, `target-cpu=native`, only the build's own level is compiled and this compares
/// it with itself; run it on a baseline build, TESTING.md says how.)
#[test]
fn every_search_level_searches_the_same_tree() {
    let positions = random_positions::<7, 6>(0x15a, 22, 4, 20, |p| !p.can_win_next());
    let mut nodes = 0;
    for p in &positions {
        let base = search_at::<7, 6, super::isa::Base>(p);
        nodes += base.1;
        #[cfg(dispatch_v3)]
        if <super::isa::V3 as super::isa::Isa>::available() {
            assert_eq!(search_at::<7, 6, super::isa::V3>(p), base, "{p:?}");
        }
        #[cfg(dispatch_v4)]
        if <super::isa::V4 as super::isa::Isa>::available() {
            assert_eq!(search_at::<7, 6, super::isa::V4>(p), base, "{p:?}");
        }
    }
    // Not a comparison of empty searches: the positions take thousands of nodes.
    assert!(nodes > 1000 * positions.len() as u64, "{nodes} nodes");
}
