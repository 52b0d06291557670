//! The command line's `--board`: the published result printed, unsupported sizes and small
//! tables refused clearly.

use crate::common::repo;
use fourfold::published::{parse_table, BoardResult};
use std::process::Command;

fn published() -> Vec<BoardResult> {
    let path = repo("tests/data/board_results");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    parse_table(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
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
    // the size and the option (9 x 13 is not compiled by the default build: the run-time-
    // sized solver refuses it the same way).
    let o = fourfold(&["solve", "-b", "9x13", "--tt-mb", "8", ""]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("256 MiB") && err.contains("--tt-mb"), "{err}");
}
