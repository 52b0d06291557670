//! Property tests (proptest) of the position's contract: move strings round-trip, a move is
//! undone exactly, the mirror is an involution that agrees with mirrored move strings, and
//! near the end of the game every generated position's score equals plain minimax.
//!
//! `Position` has no move-string display (a position does not remember its move order) and
//! no `undo` (it is `Copy`: the caller keeps the old value), so the round trips are stated on
//! generated move strings and on the accessors: a played move is recovered from the new
//! position's stones exactly.

use fourfold::{Position, Solver};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// A legal, unfinished game from column choices: a full column moves on to the next one
/// with room, and the game stops before a move that would win (or when the board is full).
fn game(choices: &[usize]) -> (String, Position) {
    let mut p = Position::new();
    let mut s = String::new();
    for &c in choices {
        let Some(col) = (0..7).map(|k| (c + k) % 7).find(|&col| p.can_play(col)) else {
            break;
        };
        if p.is_winning_move(col) {
            break;
        }
        p.play_col(col);
        s.push(char::from(b'1' + col as u8));
    }
    (s, p)
}

fn games() -> impl Strategy<Value = (String, Position)> {
    proptest::collection::vec(0usize..7, 0..=42).prop_map(|v| game(&v))
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn move_strings_round_trip((s, p) in games()) {
        prop_assert_eq!(Position::<7, 6>::parse(&s), Ok(p));
        prop_assert_eq!(p.moves() as usize, s.len());
        // Any split: the head parsed, then the tail played on it.
        for k in 0..=s.len() {
            let mut q = Position::<7, 6>::parse(&s[..k]).unwrap();
            q.play_str(&s[k..]).unwrap();
            prop_assert_eq!(q, p);
        }
    }

    #[test]
    fn any_string_parses_consistently_or_is_refused_where_it_goes_wrong(
        s in "[0-9a \\t]{0,50}",
    ) {
        let n = s.trim().chars().count();
        match Position::<7, 6>::parse(&s) {
            Ok(p) => prop_assert_eq!(p.moves() as usize, n),
            Err(e) => {
                prop_assert!(e.index() < n);
                // Refused on top of another position, it leaves that one as it was.
                let before: Position = "44".parse().unwrap();
                let mut q = before;
                if q.play_str(s.trim()).is_err() {
                    prop_assert_eq!(q, before);
                }
            }
        }
    }

    #[test]
    fn a_move_is_undone_exactly((_, p) in games()) {
        for col in (0..7).filter(|&c| p.can_play(c)) {
            let mut q = p;
            q.play_col(col);
            let bit = q.mask() ^ p.mask();
            prop_assert_eq!(bit.count_ones(), 1);
            prop_assert_eq!(Position::<7, 6>::column_of(bit), col);
            // Undo: the stones before the move, from the position after it.
            prop_assert_eq!(q.mask() ^ bit, p.mask());
            prop_assert_eq!(q.opponent() ^ bit, p.current());
            prop_assert_eq!(q.moves(), p.moves() + 1);
            prop_assert_eq!(q.height(col), p.height(col) + 1);
            for c in 0..7 {
                for r in 0..6 {
                    if (c, r) != (col, p.height(col) as usize) {
                        prop_assert_eq!(q.cell(c, r), p.cell(c, r));
                    }
                }
            }
            // The stone belongs to the player who was to move.
            let first_to_move = p.moves() % 2 == 0;
            prop_assert_eq!(q.cell(col, p.height(col) as usize), Some(first_to_move));
        }
    }

    #[test]
    fn mirror_is_an_involution_matching_mirrored_strings((s, p) in games()) {
        prop_assert_eq!(p.mirror().mirror(), p);
        let mirrored: String = s.bytes().map(|b| char::from(b'1' + b'7' - b)).collect();
        prop_assert_eq!(Position::<7, 6>::parse(&mirrored), Ok(p.mirror()));
        prop_assert_eq!(p.mirror_key(), p.mirror().key());
    }
}

/// Plain negamax: no table, no pruning, no ordering; the definition of the score.
fn minimax(p: &Position) -> i32 {
    if p.is_full() {
        return 0;
    }
    let win = (43 - p.moves() as i32) / 2;
    if (0..7).any(|c| p.can_play(c) && p.is_winning_move(c)) {
        return win;
    }
    (0..7)
        .filter(|&c| p.can_play(c))
        .map(|c| {
            let mut q = *p;
            q.play_col(c);
            -minimax(&q)
        })
        .max()
        .unwrap()
}

/// Random unfinished games of 30 to 36 stones (6 to 12 empty cells), from seeds: each move
/// is the seed's choice among the columns that neither are full nor win at once.
fn late_positions() -> impl Strategy<Value = Position> {
    (30u32..=36, proptest::collection::vec(any::<u32>(), 36)).prop_filter_map(
        "the game ended early",
        |(stones, seeds)| {
            let mut p = Position::new();
            for &seed in &seeds[..stones as usize] {
                let cols: Vec<usize> = (0..7)
                    .filter(|&c| p.can_play(c) && !p.is_winning_move(c))
                    .collect();
                if cols.is_empty() {
                    return None;
                }
                p.play_col(cols[seed as usize % cols.len()]);
            }
            Some(p)
        },
    )
}

#[test]
fn late_scores_equal_plain_minimax() {
    let solver: Solver = Solver::builder().table_mib(8).threads(1).build().unwrap();
    let mut runner = TestRunner::new(config(120));
    runner
        .run(&late_positions(), |p| {
            let expected = minimax(&p);
            prop_assert_eq!(solver.solve(&p).unwrap().score, expected, "{:?}", p);
            prop_assert_eq!(solver.solve_weak(&p).unwrap().score, expected.signum());
            Ok(())
        })
        .unwrap();
}
