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

/// The shipped 6-ply 7 x 6 book.
fn shipped() -> Book {
    Book::load(repo("books/7x6-6.book")).expect("the shipped book loads")
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

#[test]
fn book_build_says_it_resumes_and_counts_the_journal() {
    if "5x4".parse::<BoardSize>().is_err() {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_fourfold");
    let dir = scratch("resume");
    let build = |out: &PathBuf| {
        std::process::Command::new(exe)
            .args(["book", "build", "--plies", "2", "--board", "5x4", "-t", "1"])
            // With a verifying phase after the solving one: the count below must survive it.
            .args(["--tt-mb", "8", "--verify", "2", "--out"])
            .arg(out)
            .output()
            .unwrap()
    };
    // A fresh build says nothing of resuming.
    let fresh = dir.join("fresh.book");
    let o = build(&fresh);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("resuming"));
    let book = Book::load(&fresh).unwrap();
    let entries: Vec<(u64, i8)> = book.entries().collect();
    assert!(entries.len() > 3);
    // A journal holding three of its entries, in the documented format (module docs of
    // fourfold::book): header FOURJRNL W H N and five zeros, records key, score, check byte.
    let out = dir.join("resumed.book");
    let mut j = b"FOURJRNL".to_vec();
    j.extend_from_slice(&[5, 4, 2, 0, 0, 0, 0, 0]);
    for &(key, score) in &entries[..3] {
        let mut r = key.to_le_bytes().to_vec();
        r.push(score as u8);
        r.push(r.iter().fold(0xA5u8, |a, &b| a ^ b));
        j.extend_from_slice(&r);
    }
    let mut jpath = out.clone().into_os_string();
    jpath.push(".journal");
    std::fs::write(&jpath, &j).unwrap();
    let o = build(&out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let n = entries.len();
    let first = err.lines().find(|l| l.contains("resuming")).unwrap_or("");
    assert!(
        first.contains(&format!(
            "3 of {n} positions already solved, {} to go",
            n - 3
        )),
        "{err}"
    );
    // Said at the start: before the bar and the end.
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("(3 from the journal)"), "{text}");
    assert!(!err.contains(" 0/0 "), "{err}");
    assert_eq!(Book::load(&out).unwrap().checksum(), book.checksum());
}
