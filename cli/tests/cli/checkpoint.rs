//! `--checkpoint` of `solve` and `book build`: `kill -9` in the middle of a solve
//! loses at most the work since the last write and the rerun gives the published result; a
//! stop (SIGTERM, time limit) writes a last checkpoint; a damaged file or another board's is
//! refused with exit status 2 and no score.

use crate::common::repo;
use fourfold::published::parse_table;
use fourfold::BoardSize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fourfold");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fourfold-clickpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str], file: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--checkpoint")
        .arg(file)
        .output()
        .expect("run fourfold")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The published result line of `board` (`result on WxH: ...`), from tests/data.
fn published_line(board: &str) -> String {
    let path = repo("tests/data/board_results");
    let table = parse_table(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let r = table
        .iter()
        .find(|r| r.board.to_string() == board)
        .unwrap_or_else(|| panic!("{board} in {path:?}"));
    format!("result on {board}: {r}\n")
}

/// The number in `loaded N entries from checkpoint`, if the line is there.
fn loaded(err: &str) -> Option<usize> {
    let l = err.lines().find(|l| l.starts_with("loaded "))?;
    assert!(l.contains(" entries from checkpoint "), "{l}");
    l.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn kill_9_mid_solve_then_rerun_gives_the_published_result() {
    if "7x5".parse::<BoardSize>().is_err() {
        return;
    }
    let dir = scratch("kill");
    let file = dir.join("7x5.ckpt");
    let args = ["solve", "-b", "7x5", "-t", "2", "--tt-mb", "64"];
    let mut child = Command::new(BIN)
        .args(args)
        .args(["--checkpoint-every", "1", "--checkpoint"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill it two seconds after its first checkpoint (several seconds before it would
    // finish on an idle machine, more on a loaded one).
    let start = Instant::now();
    while !file.exists() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(file.exists(), "no checkpoint written in 120 s");
    std::thread::sleep(Duration::from_secs(2));
    let killed_pid = child.id();
    child.kill().unwrap(); // SIGKILL
    let killed = child.wait_with_output().unwrap();
    let finished_first = killed.status.success();
    let o = run(&args, &file);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains(&published_line("7x5")), "{out}");
    let n = loaded(&err).unwrap_or_else(|| panic!("no `loaded` line: {err}"));
    assert!(n > 0 || finished_first, "{err}");
    // The rerun's own writes replaced the file whole: no temporary of its own is left (the
    // killed run's, if it was killed mid-write, may be).
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.contains(".tmp") || name.starts_with(&format!("7x5.ckpt.tmp.{killed_pid}.")),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// While another writer holds FILE's lock, `solve` and `book build` with `--checkpoint FILE`
/// exit with status 2, naming FILE, before any search and without touching FILE; once the
/// lock is let go, the same solve runs and writes it.
#[test]
fn a_second_writer_of_one_checkpoint_exits_2() {
    let dir = scratch("locked");
    let file = dir.join("5x4.ckpt");
    let lock = fourfold::checkpoint::Lock::acquire(&file).unwrap();
    let args = ["solve", "-b", "5x4", "-t", "1", "--tt-mb", "8"];
    let o = run(&args, &file);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("another run") && err.contains(&*file.to_string_lossy()),
        "{err}"
    );
    assert!(o.stdout.is_empty() && !file.exists(), "{err}");
    let o = Command::new(BIN)
        .args(["book", "build", "--plies", "2", "--board", "5x4", "-t", "1"])
        .args(["--tt-mb", "8", "--out"])
        .arg(dir.join("b.book"))
        .arg("--checkpoint")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("another run"));
    drop(lock);
    let o = run(&args, &file);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(file.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stop_writes_a_last_checkpoint_and_a_finished_one_is_kept() {
    if "8x5".parse::<BoardSize>().is_err() {
        return;
    }
    let dir = scratch("stop");
    let file = dir.join("c");
    // The time limit: exit 124, a last write said on stderr. 8x5 takes minutes, so neither
    // this run nor the next one (stopped after 1.5 s) can finish first on any machine.
    let args = ["solve", "-b", "8x5", "-t", "1", "--tt-mb", "16"];
    let o = run(&[&args[..], &["--time-limit", "1"]].concat(), &file);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(124), "{err}");
    assert!(err.contains("does not exist yet"), "{err}");
    assert!(err.contains("time limit reached: wrote "), "{err}");
    assert!(file.exists());
    // SIGTERM: exit 130, a last write, loaded by the next run.
    let child = Command::new(BIN)
        .args(args)
        .arg("--checkpoint")
        .arg(&file)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: `kill` on the pid of our own child, which has not been waited for yet.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(loaded(&err).is_some(), "{err}");
    // The file carries the stopped solve's root, the empty board, and its proven bounds.
    assert!(
        err.contains("with the score of its position of 0 stones proven in ["),
        "{err}"
    );
    assert!(err.contains("interrupted: wrote "), "{err}");
    // A small board solved to the end: the file is kept and the rerun loads it.
    let small = dir.join("6x5");
    let args = ["solve", "-b", "6x5", "-t", "1", "--tt-mb", "16"];
    let o = run(&args, &small);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("solved: wrote "));
    let o = run(&args, &small);
    assert!(o.status.success());
    assert!(loaded(&text(&o.stderr)).unwrap() > 0);
    assert!(text(&o.stdout).contains(&published_line("6x5")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_or_foreign_checkpoints_exit_2_without_a_score() {
    let dir = scratch("bad");
    let good = dir.join("good");
    let args = ["solve", "-b", "6x5", "-t", "1", "--tt-mb", "16", "-q"];
    assert!(run(&args, &good).status.success());
    let bytes = std::fs::read(&good).unwrap();
    assert!(bytes.len() > 40);
    let mut flipped = bytes.clone();
    let i = bytes.len() - 5;
    flipped[i] ^= 0x04;
    for (name, content, board, says) in [
        ("flipped", flipped, "6x5", "is corrupt"),
        (
            "truncated",
            bytes[..bytes.len() - 7].to_vec(),
            "6x5",
            "is truncated",
        ),
        ("empty", Vec::new(), "6x5", "is truncated"),
        (
            "board",
            bytes.clone(),
            "5x6",
            "is for the 6x5 board, not 5x6",
        ),
        (
            "other",
            b"not a checkpoint at all, just text".to_vec(),
            "6x5",
            "not a fourfold checkpoint",
        ),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, content).unwrap();
        let args = ["solve", "-b", board, "-t", "1", "--tt-mb", "16"];
        let o = run(&args, &f);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(says) && err.contains(&*f.to_string_lossy()),
            "{name}: {err}"
        );
        assert!(err.contains("start afresh"), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}: a score printed");
        // The same refusal in `book build`.
        let o = Command::new(BIN)
            .args(["book", "build", "--plies", "2", "--board", board, "-t", "1"])
            .args(["--tt-mb", "8", "--out"])
            .arg(dir.join("b.book"))
            .arg("--checkpoint")
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(says));
    }
    let o = Command::new(BIN)
        .args([
            "solve",
            "-b",
            "6x5",
            "--checkpoint-every",
            "0",
            "--checkpoint",
        ])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--checkpoint-every must be a positive"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn book_build_writes_and_reloads_a_checkpoint() {
    if "5x4".parse::<BoardSize>().is_err() {
        return;
    }
    let dir = scratch("book");
    let file = dir.join("b.ckpt");
    let build = |out: &str| {
        Command::new(BIN)
            .args(["book", "build", "--plies", "2", "--board", "5x4", "-t", "1"])
            .args(["--tt-mb", "8", "--out"])
            .arg(dir.join(out))
            .arg("--checkpoint")
            .arg(&file)
            .output()
            .unwrap()
    };
    let o = build("a.book");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("built: wrote "),
        "{}",
        text(&o.stderr)
    );
    let o = build("b.book");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(loaded(&text(&o.stderr)).is_some(), "{}", text(&o.stderr));
    // The resumed build's book is the same book.
    assert_eq!(
        std::fs::read(dir.join("a.book")).unwrap(),
        std::fs::read(dir.join("b.book")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
