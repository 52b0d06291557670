//! No input, size or signal crashes the command or loses a batch's good lines: a
//! table larger than the machine, allocation failure, bytes that are not UTF-8, a 10 MB
//! line, absurd thread counts, SIGTERM in a long solve, a closed stdout; and exact answers
//! at thread counts far above the cores.

use crate::common::{cases, solver};
use fourfold::testset::Case;
use fourfold::{Solver, MAX_THREADS};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fourfold");

fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fourfold")
}

/// Runs `fourfold args` with `input` on stdin (written from a thread, so that a child that
/// stops reading cannot block the test).
fn run(args: &[&str], input: Vec<u8>) -> Output {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// No panic, no abort, no backtrace.
fn assert_no_crash(o: &Output) {
    let err = text(&o.stderr);
    for bad in [
        "panicked",
        "backtrace",
        "memory allocation of",
        "Broken pipe",
    ] {
        assert!(!err.contains(bad), "{bad}: {err}");
    }
    assert!(
        o.status.code().is_some(),
        "killed by a signal: {:?}",
        o.status
    );
}

/// `<moves> <score>` lines, what `solve` prints for these cases.
fn expected_output(cases: &[Case]) -> String {
    cases
        .iter()
        .map(|c| format!("{} {}\n", c.moves, c.expected.unwrap()))
        .collect()
}

fn physical_mib() -> usize {
    let meminfo = std::fs::read_to_string("/proc/meminfo").expect("/proc/meminfo");
    let kib: usize = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .expect("MemTotal");
    kib / 1024
}

#[test]
fn a_table_larger_than_memory_is_refused_before_any_work() {
    let mib = (2 * physical_mib())
        .min(fourfold::table::MAX_MIB)
        .to_string();
    let good = cases("Test_L3_R1", 3);
    for args in [
        vec!["solve", "--tt-mb", &mib, "-t", "1", "4453"],
        vec!["solve", "--tt-mb", &mib, "-t", "1", "--input", "-"],
        vec!["solve", "--tt-mb", &mib, "-t", "1"],
        vec!["bench", "--tt-mb", &mib, "-t", "1", "--limit", "1"],
    ] {
        let o = run(&args, expected_output(&good).into_bytes());
        assert_no_crash(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.contains(&format!("{mib} MiB")), "{args:?}: {err}");
        assert!(err.contains("ask for less"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
    }
}

#[test]
fn memory_the_os_refuses_is_an_error_not_an_abort() {
    // 1 GiB of address space for the whole process, 4 GiB asked for: mmap and malloc fail.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576 && exec {BIN} solve --tt-mb 4096 -t 1 4453"
        ))
        .output()
        .unwrap();
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("refused"), "{}", text(&o.stderr));
}

#[test]
fn a_batch_reports_each_bad_line_and_solves_every_good_one_in_order() {
    let good = cases("Test_L3_R1", 6);
    let line = |c: &Case| format!("{} {}\n", c.moves, c.expected.unwrap()).into_bytes();
    let mut input = Vec::new();
    input.extend(line(&good[0]));
    input.extend(b"\xff\xfe44\n"); // 2: not UTF-8
    input.extend(line(&good[1]));
    input.extend(vec![b'4'; 10_000_000]); // 4: a 10 MB line
    input.extend(b"\n");
    input.extend(line(&good[2]));
    input.extend(b"44a4\n"); // 6: bad character
    input.extend(b"4444444\n"); // 7: full column
    input.extend(line(&good[3]));
    input.extend(b"1212121\n"); // 9: already won
    input.extend(b"4453 x\n"); // 10: score not a number
    input.extend(b"4453 1 2\n"); // 11: a third field
    input.extend(line(&good[4]));
    input.extend(line(&good[5])[..line(&good[5]).len() - 1].to_vec()); // no final newline
    let o = run(&["solve", "--tt-mb", "8", "-t", "1", "--input", "-"], input);
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), expected_output(&good));
    let err = text(&o.stderr);
    for (n, reason) in [
        (2, "not valid UTF-8"),
        (4, "10000000 bytes long"),
        (6, "invalid character"),
        (7, "full"),
        (9, "already won"),
        (10, "not an integer"),
        (11, "too many fields"),
    ] {
        let l = err
            .lines()
            .find(|l| l.starts_with(&format!("-:{n}: ")))
            .unwrap_or_else(|| panic!("line {n} not reported: {err}"));
        assert!(l.contains(reason), "line {n}: {l}");
    }
    assert_eq!(err.lines().count(), 7, "{err}");
}

#[test]
fn absurd_thread_counts_are_refused_and_many_threads_warned_about() {
    for n in ["100000", "5000", &(MAX_THREADS + 1).to_string()] {
        let o = run(
            &["solve", "--tt-mb", "8", "--threads", n, "4453"],
            Vec::new(),
        );
        assert_no_crash(&o);
        assert_eq!(o.status.code(), Some(2), "{n}");
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!("at most {MAX_THREADS}")) && err.contains(n),
            "{n}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = run(&["bench", "--threads", "1,5000", "--empty"], Vec::new());
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("at most"), "{}", text(&o.stderr));
    // The cap itself is allowed, warned about, and exact.
    let good = cases("Test_L3_R1", 2);
    let cap = MAX_THREADS.to_string();
    let args = ["solve", "--tt-mb", "8", "--threads", &cap, "--input", "-"];
    let o = run(&args, expected_output(&good).into_bytes());
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), expected_output(&good));
    assert!(
        text(&o.stderr).contains(&format!("warning: {cap} threads")),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_time_limit_too_large_for_a_clock_is_no_limit() {
    let good = cases("Test_L3_R1", 1);
    let args = ["solve", "--tt-mb", "8", "-t", "1", "--time-limit", "1e300"];
    let o = run(&[&args[..], &[good[0].moves.as_str()]].concat(), Vec::new());
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), expected_output(&good));
}

#[test]
fn sigterm_stops_a_long_solve_like_ctrl_c() {
    // The empty board on one thread takes far longer than the wait below.
    let mut child = spawn(&["solve", "--tt-mb", "64", "-t", "1"]);
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    // The handler is installed before this line is printed.
    assert!(first.contains("solving the empty"), "{first}");
    std::thread::sleep(std::time::Duration::from_secs(1));
    // SAFETY: `kill` on the pid of our own child, which has not been waited for yet.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{rest}");
    assert!(!rest.contains("panicked"), "{rest}");
    let l = rest
        .lines()
        .find(|l| l.contains("interrupted"))
        .unwrap_or_else(|| panic!("no bounds printed: {rest}"));
    // `... score proven in [lo, hi]`, a real interval.
    let bounds = l.split('[').nth(1).unwrap().trim_end_matches(']');
    let (lo, hi) = bounds.split_once(", ").unwrap();
    let (lo, hi): (i32, i32) = (lo.parse().unwrap(), hi.parse().unwrap());
    assert!(lo <= hi && lo >= -21 && hi <= 21, "{l}");
    assert!(o.stdout.is_empty());
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    // Ten copies of a set: far more output than a pipe holds, so the writes after the
    // reader has gone must fail.
    let set = cases("Test_L3_R1", 1000);
    let input = expected_output(&set).repeat(10).into_bytes();
    let mut child = spawn(&["solve", "--tt-mb", "8", "-t", "1", "--input", "-"]);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first, expected_output(&set[..1]));
    drop(out); // as `| head -1` does
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_no_crash(&o);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
}

fn check_exact(solver: &Solver, sample: &[Case]) {
    for c in sample {
        let s = solver.solve(&c.position).expect("not interrupted");
        assert_eq!(Some(s.score), c.expected, "{}", c.moves);
        assert!(c.position.can_play(s.best_move.unwrap()), "{}", c.moves);
    }
}

#[test]
fn sixteen_and_sixty_four_threads_on_two_cores_give_exact_scores() {
    let mut sample = cases("Test_L3_R1", 20);
    sample.extend(cases("Test_L2_R1", 20));
    sample.extend(cases("Test_L2_R2", 20));
    sample.extend(cases("Test_L1_R1", 10));
    sample.extend(cases("Test_L1_R2", 5));
    for threads in [16, 64] {
        let s = solver(32, threads);
        check_exact(&s, &sample);
        // The batch path: one position per thread, 64 at a time.
        let positions: Vec<_> = sample.iter().map(|c| c.position).collect();
        for (c, r) in sample.iter().zip(s.solve_many(&positions, false)) {
            assert_eq!(Some(r.unwrap().score), c.expected, "{}", c.moves);
        }
    }
    let e = Solver::builder()
        .threads(MAX_THREADS + 1)
        .build::<7, 6, u64>()
        .unwrap_err();
    assert!(e.to_string().contains(&MAX_THREADS.to_string()), "{e}");
}
