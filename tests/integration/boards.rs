//! Whole-board solves of other board sizes, checked against the published results
//! (`tests/data/board_results`: who wins and on which move), through `fourfold::Engine` and
//! the command line's `--board`.

use fourfold::published::{parse_table, BoardResult};
use fourfold::{BoardSize, Engine, SolverBuilder};
use std::process::Command;

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
    assert!(ran >= 12);
}

fn fourfold(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fourfold"))
        .args(args)
        .output()
        .expect("run fourfold")
}

#[test]
fn cli_board_option_prints_the_published_result() {
    let table = published();
    let r = table
        .iter()
        .find(|r| r.board.to_string() == "6x4")
        .expect("6x4 in the table");
    let o = fourfold(&["solve", "-b", "6x4", "-t", "1", "--tt-mb", "8", "-q"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("result on 6x4: {r}\n")), "{out}");
    let o = fourfold(&["bench", "--boards", "4x4,5x4", "-t", "1,2", "--tt-mb", "8"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert_eq!(out.matches(" agrees").count(), 4, "{out}");
    // A position on another board, and a move beyond its width.
    let o = fourfold(&["solve", "--board", "5x4", "-t", "1", "--tt-mb", "8", "5"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).split_whitespace().next(),
        Some("5")
    );
    let o = fourfold(&["solve", "--board", "5x4", "-t", "1", "--tt-mb", "8", "6"]);
    assert!(!o.status.success());
}

#[test]
fn cli_refuses_unsupported_boards_and_small_tables_clearly() {
    for bad in ["3x3", "20x4", "7", "axb"] {
        let o = fourfold(&["solve", "-b", bad, ""]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("board size"), "{bad}: {err}");
    }
    // 8 x 7 keys take 64 bits: an 8 MiB table cannot identify them with one-word slots, so
    // it gets two-word slots and solves (here stopped by the time limit: exit 124).
    let o = fourfold(&[
        "solve",
        "-b",
        "8x7",
        "--tt-mb",
        "8",
        "--time-limit",
        "0.5",
        "",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(124), "{err}");
    assert!(err.contains("time limit"), "{err}");
    // 9 x 13 keys take 126 bits: even two-word slots need 256 MiB; less is refused, naming
    // the size and the option.
    let o = fourfold(&["solve", "-b", "9x13", "--tt-mb", "8", ""]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("256 MiB") && err.contains("--tt-mb"), "{err}");
}
