//! Whole-board solves of other board sizes, checked against the published results
//! (`tests/data/board_results`: who wins and on which move), through `fourfold::Engine`
//! (the command line's `--board` is tested in `cli/tests`).

use fourfold::published::{parse_table, BoardResult};
use fourfold::{BoardSize, Engine, SolverBuilder};

/// Boards of at most this many cells are all solved.
const MAX_CELLS: u32 = 30;
/// And these larger ones (2 to 16 M nodes each on one thread; 9x4 takes 109 M, 4x10 46 M).
const LARGER: [&str; 4] = ["8x4", "4x8", "5x7", "6x6"];

fn published() -> Vec<BoardResult> {
    let path = format!("{}/tests/data/board_results", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let table = parse_table(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(table.len() >= 40, "{path}: only {} boards", table.len());
    table
}

/// The boards the CI solves: every one of at most `MAX_CELLS` cells, and `LARGER`.
fn chosen(table: &[BoardResult]) -> Vec<BoardResult> {
    let larger: Vec<BoardSize> = LARGER
        .iter()
        .map(|s| {
            let (w, h) = s.split_once('x').unwrap();
            BoardSize {
                width: w.parse().unwrap(),
                height: h.parse().unwrap(),
            }
        })
        .collect();
    let c: Vec<BoardResult> = table
        .iter()
        .filter(|r| r.board.cells() <= MAX_CELLS || larger.contains(&r.board))
        .copied()
        .collect();
    assert_eq!(
        c.iter().filter(|r| larger.contains(&r.board)).count(),
        larger.len(),
        "every board of LARGER is in the table"
    );
    c
}

#[test]
fn whole_board_results_agree_with_the_published_table() {
    let table = published();
    let mut ran = 0;
    for r in chosen(&table) {
        // Every size: the ones this build does not compile on the run-time-sized solver.
        assert!(r.board.is_supported(), "{}: not supported", r.board);
        for threads in [1, 2] {
            let e = Engine::new(
                r.board,
                SolverBuilder::default().table_mib(16).threads(threads),
            )
            .unwrap();
            let s = e.solve("").unwrap();
            let o = r.board.outcome(s.score, 0).expect("a score in range");
            assert!(
                r.agrees(o),
                "{} on {threads} thread(s): solved {o} (score {}), published {r}",
                r.board,
                s.score
            );
            // The perfect line ends where the published result says.
            let pv = e.principal_variation("", s.score).unwrap();
            if let Some(m) = r.end_move {
                assert_eq!(pv.len() as u32, m, "{}: perfect play {pv:?}", r.board);
            }
        }
        ran += 1;
    }
    assert_eq!(ran, chosen(&table).len());
}
