//! The one tie-break rule of the best move, on every path: among the columns that achieve the
//! score, the first from the centre outwards (of two columns at the same distance from the
//! centre, the left one on odd widths, the right one on even widths; the boards here are 7
//! wide). Checked on
//! positions with ties through the engine's `solve`, `solve_weak` and `analyze`, from the
//! book and from the search, and through the service's JSON answers.

use crate::common::cases;
use fourfold::service::Service;
use fourfold::{BoardSize, Engine, SolverBuilder, Source};

/// The rule, written independently of the library: columns by distance from the centre of a
/// 7-wide board, the left one first on equal distance.
fn centre_first() -> Vec<usize> {
    let mut cols: Vec<usize> = (0..7).collect();
    cols.sort_by_key(|&c| ((2 * c).abs_diff(6), c));
    cols
}

/// The first column (0-based) in the rule's order whose score satisfies `keep`.
fn first(scores: &[Option<i32>], keep: impl Fn(i32) -> bool) -> Option<usize> {
    centre_first()
        .into_iter()
        .find(|&c| scores[c].is_some_and(&keep))
}

fn engine(book: bool) -> Engine {
    let mut e = Engine::new(
        BoardSize::STANDARD,
        SolverBuilder::default().table_mib(64).threads(2),
    )
    .unwrap();
    if !book {
        e.set_book(None).unwrap();
    }
    e
}

/// Checks every front-end path on `moves`; true when the position has a tie for the best
/// move that the lowest column would break differently.
fn check(e: &Engine, service: &Service, moves: &str, source: Source) -> bool {
    let an = e.analyze(moves).unwrap();
    assert_eq!(an.source, source, "{moves}");
    let best = *an.scores.iter().flatten().max().unwrap();
    let expected = first(&an.scores, |s| s == best);
    let s = e.solve(moves).unwrap();
    assert_eq!(s.source, source, "{moves}");
    assert_eq!(s.score, best, "{moves}");
    assert_eq!(s.best_move, expected, "solve {moves}");
    assert_eq!(an.best_move(), expected, "analyze {moves}");
    assert_eq!(an.best_columns().first().copied(), expected, "{moves}");
    // The service: solve and analyze give the same 1-indexed column.
    for op in ["solve", "analyze"] {
        let line = format!(r#"{{"op": "{op}", "position": "{moves}"}}"#);
        let r = service.handle_line(&line);
        let a = r.answer().unwrap_or_else(|| panic!("{line}: {r:?}"));
        assert_eq!(a.best_move, expected.map(|c| c + 1), "service {op} {moves}");
        assert_eq!(a.score, Some(best), "service {op} {moves}");
    }
    // The weak solve: the first column keeping the outcome; for a loss, the first that does
    // not let the opponent win at once.
    let w = e.solve_weak(moves).unwrap();
    assert_eq!(w.score, best.signum(), "{moves}");
    let weak_expected = match best.signum() {
        -1 => centre_first()
            .into_iter()
            .filter(|&c| an.scores[c].is_some())
            .find(|&c| {
                let child = format!("{moves}{}", c + 1);
                !e.check(&child).unwrap().winning.iter().any(|&x| x)
            })
            .or_else(|| first(&an.scores, |_| true)),
        o => first(&an.scores, |s| s.signum() == o),
    };
    assert_eq!(w.best_move, weak_expected, "solve_weak {moves}");
    let lowest = (0..7).find(|&c| an.scores[c] == Some(best));
    lowest != expected
}

#[test]
fn searched_ties_break_centre_first_everywhere() {
    let service = Service::new(engine(false));
    let e = service.engine();
    let mut ties = 0;
    for c in cases("Test_L3_R1", 60)
        .iter()
        .chain(&cases("Test_L2_R1", 8))
    {
        ties += check(e, &service, &c.moves, Source::Search) as usize;
    }
    assert!(ties > 0, "no position where the rule matters");
}

#[test]
fn book_ties_break_centre_first_everywhere() {
    let service = Service::new(engine(true));
    let e = service.engine();
    let mut positions = vec![String::new()];
    for a in 1..=7 {
        positions.push(format!("{a}"));
        for b in 1..=7 {
            positions.push(format!("{a}{b}"));
        }
    }
    let mut ties = 0;
    for p in &positions {
        ties += check(e, &service, p, Source::Book) as usize;
    }
    assert!(ties > 0, "no position where the rule matters");
}
