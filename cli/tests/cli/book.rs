//! The command's `book` subcommand and `--book`/`--no-book`: info, a damaged file refused,
//! a small build, the shipped book's answers marked `"source": "book"`.

use crate::common::repo;
use fourfold::{BoardSize, Book};
use std::path::PathBuf;

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fourfold-clibook-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The shipped 4-ply 7 x 6 book.
fn shipped() -> Book {
    Book::load(repo("books/7x6-4.book")).expect("the shipped book loads")
}

#[test]
fn cli_builds_reads_and_uses_a_book() {
    let exe = env!("CARGO_BIN_EXE_fourfold");
    let dir = scratch("cli");
    // The shipped book's header, then a damaged copy of it.
    let out = dir.join("7x6-shipped.book");
    shipped().save(&out).unwrap();
    let o = std::process::Command::new(exe)
        .args(["book", "info"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("board: 7x6"), "{text}");
    assert!(text.contains("OK"), "{text}");
    // A damaged book given on the command line is an error, not a wrong answer.
    let mut bytes = std::fs::read(&out).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&out, &bytes).unwrap();
    for cmd in [
        &["book", "info"][..],
        &["solve", "--tt-mb", "8", "-t", "1", "--book"],
    ] {
        let o = std::process::Command::new(exe)
            .args(cmd)
            .arg(&out)
            .args(if cmd[0] == "solve" { &["44"][..] } else { &[] })
            .output()
            .unwrap();
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("corrupt"));
    }
    // Building: on a small board where this build supports one (quick), and a refused size.
    if "5x4".parse::<BoardSize>().is_ok() {
        let out = dir.join("5x4-2.book");
        let o = std::process::Command::new(exe)
            .args(["book", "build", "--plies", "2", "--board", "5x4", "-t", "2"])
            .args(["--tt-mb", "8", "--verify", "2", "--quiet", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(Book::load(&out).unwrap().plies(), 2);
    }
    let o = std::process::Command::new(exe)
        .args(["book", "build", "--plies", "2", "--board", "99x99", "--out"])
        .arg(dir.join("x.book"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("99x99"));
    // The shipped book answers with "source": "book".
    let o = std::process::Command::new(exe)
        .args(["solve", "--json", "--tt-mb", "8", "-t", "1", "4"])
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
    assert_eq!(v["source"], "book");
    let o = std::process::Command::new(exe)
        .args(["solve", "--json", "--no-book", "--tt-mb", "8", "-t", "1"])
        .arg("2252576253462244111563365343671351441")
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
    assert_eq!(v["source"], "search");
    let _ = std::fs::remove_dir_all(&dir);
}
