//! The check-bits experiment (`fourfold::experiment::check_bits`): at the exact width it
//! takes no false hit, gets every score right and searches the production table's nodes;
//! with no check bit on a small table it finds wrong scores, so its counting can fail.

use crate::common::cases;
use fourfold::experiment::{
    buckets_of_mib, check_bits, exact_check_bits, random_positions, CheckBits, CheckBitsRow,
};
use fourfold::{BoardSize, Params, Position, Solver};

fn board(width: usize, height: usize) -> BoardSize {
    BoardSize { width, height }
}

fn run(setup: &CheckBits) -> Vec<CheckBitsRow> {
    check_bits(setup, &mut |_| {}).expect("the experiment runs")
}

/// Nodes of a production solver (one thread, a table of `mib` MiB kept whole, as the
/// experiment keeps it) over `positions`, the table cleared before each, and their scores.
fn production(mib: usize, positions: &[String]) -> (u64, Vec<i32>) {
    let solver: Solver = Solver::builder()
        .table_mib(mib)
        .params(Params {
            near_empty: 0,
            ..Params::default()
        })
        .build()
        .expect("solver");
    let mut nodes = 0;
    let mut scores = Vec::new();
    for m in positions {
        solver.table().clear();
        let s = solver.solve(&m.parse::<Position>().unwrap()).unwrap();
        nodes += s.nodes;
        scores.push(s.score);
    }
    (nodes, scores)
}

#[test]
fn exact_width_takes_no_false_hit_and_searches_the_production_nodes() {
    let set = cases("Test_L2_R1", 30);
    let positions: Vec<String> = set.iter().map(|c| c.moves.clone()).collect();
    let exact = exact_check_bits(BoardSize::STANDARD, buckets_of_mib(1));
    let setup = CheckBits {
        board: BoardSize::STANDARD,
        positions: positions.clone(),
        buckets: buckets_of_mib(1),
        threads: 1,
        checks: vec![exact],
        trace: 0,
    };
    let row = &run(&setup)[0];
    assert_eq!(row.c, exact);
    assert_eq!(row.positions, set.len());
    assert_eq!(row.false_hits, 0, "{row:?}");
    assert_eq!(row.wrong, 0, "{row:?}");
    assert!(row.probes > 0);
    let (nodes, scores) = production(1, &positions);
    assert_eq!(
        row.nodes, nodes,
        "the lossy table at the exact width searches as the exact one"
    );
    assert_eq!(row.exact_nodes, nodes);
    let expected: Vec<i32> = set
        .iter()
        .map(|c| c.expected.expect("scored set"))
        .collect();
    assert_eq!(scores, expected);
}

#[test]
fn exact_width_is_right_on_small_boards_and_two_threads() {
    for (b, buckets) in [(board(4, 4), 64), (board(5, 4), 1 << 10)] {
        let exact = exact_check_bits(b, buckets);
        let setup = CheckBits {
            board: b,
            positions: random_positions(b, 12, 4, 7),
            buckets,
            threads: 2,
            checks: vec![exact, exact + 3],
            trace: 0,
        };
        for row in run(&setup) {
            assert_eq!(
                (row.false_hits, row.wrong, row.failed),
                (0, 0, 0),
                "{b}: {row:?}"
            );
        }
    }
}

#[test]
fn no_check_bits_on_a_small_table_give_wrong_scores() {
    let b = board(5, 4);
    let positions = random_positions(b, 24, 4, 3);
    assert_eq!(positions.len(), 24);
    let setup = CheckBits {
        board: b,
        positions,
        buckets: 16,
        threads: 1,
        checks: vec![0],
        trace: 3,
    };
    let row = &run(&setup)[0];
    assert!(row.false_hits > 0, "{row:?}");
    assert!(row.wrong > 0, "{row:?}");
    assert!(
        row.hit_positions >= row.wrong,
        "a wrong score needs a false hit: {row:?}"
    );
    let counted: usize = row.distance.iter().sum::<usize>() + row.failed;
    assert_eq!(counted, row.wrong);
    assert_eq!(
        row.distance.first().copied().unwrap_or(0),
        0,
        "distance 0 is not wrong"
    );
    assert!(row.wdl_flips >= row.sign_flips);
    assert_eq!(row.traced, row.wrong.min(3));
    assert_eq!(row.unlocated, 0, "one thread's replays are its first solve");
    assert_eq!(row.harm_ply.iter().sum::<usize>(), row.traced);
    assert_eq!(row.false_hits, row.false_hits_by_ply.iter().sum::<u64>());
}

#[test]
fn random_positions_are_legal_with_the_stones_asked() {
    let b = board(7, 5);
    let positions = random_positions(b, 20, 10, 5);
    assert_eq!(positions.len(), 20);
    for m in &positions {
        let p = fourfold::Position::<7, 5>::parse(m).expect("legal");
        assert_eq!(p.moves(), 10);
    }
    assert_ne!(
        positions,
        random_positions(b, 20, 10, 6),
        "the seed matters"
    );
}

#[test]
fn other_boards_are_refused() {
    let setup = CheckBits {
        board: board(8, 7),
        positions: vec![String::new()],
        buckets: 1 << 14,
        threads: 1,
        checks: vec![0],
        trace: 0,
    };
    assert!(check_bits(&setup, &mut |_| {}).is_err());
}
