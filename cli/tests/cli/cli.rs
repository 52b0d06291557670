//! The `fourfold` command: output formats and every class of bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fourfold"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fourfold");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

/// `fourfold solve` on one thread with an 8 MiB table, then `args`.
fn solve_small(args: &[&str], stdin: Option<&str>) -> Output {
    let mut all = vec!["solve", "--no-book", "--tt-mb", "8", "-t", "1"];
    all.extend_from_slice(args);
    run(&all, stdin)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn solve_prints_moves_and_score_and_stats() {
    let o = solve_small(&["2252576253462244111563365343671351441"], None);
    assert!(o.status.success());
    assert_eq!(
        text(&o.stdout),
        "2252576253462244111563365343671351441 -1\n"
    );
    let o = solve_small(&["--stats", "4453"], None);
    let out = text(&o.stdout);
    let f: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(f.len(), 4, "{out}");
    assert_eq!(f[0], "4453");
    let nodes: u64 = f[2].parse().unwrap();
    let micros: u64 = f[3].parse().unwrap();
    assert!(nodes > 0 && micros > 0);
}

#[test]
fn json_weak_and_analyze() {
    let o = solve_small(&["--json", "44455554221"], None);
    let v: serde_json::Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
    for k in ["moves", "score", "best_move", "nodes", "micros"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let score = v["score"].as_i64().unwrap();
    let o = solve_small(&["--weak", "44455554221"], None);
    assert_eq!(text(&o.stdout), format!("44455554221 {}\n", score.signum()));
    // Column 4 is full after six stones there.
    let o = run(
        &["analyze", "--no-book", "--tt-mb", "8", "-t", "1", "444444"],
        None,
    );
    let out = text(&o.stdout);
    let f: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(f.len(), 8, "{out}");
    assert_eq!(f[4], "full");
}

#[test]
fn batch_checks_expected_scores_and_reports_bad_lines() {
    let input = "2252576253462244111563365343671351441 -1\n\
                 12x4\n\
                 2252576253462244111563365343671351441 5\n\
                 7422341735647741166133573473242566 1\n";
    let o = solve_small(&["--input", "-"], Some(input));
    assert!(!o.status.success());
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    // Every good line solved, in order.
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        err.contains("-:2") && err.contains("invalid character"),
        "{err}"
    );
    assert!(err.contains("-:3") && err.contains("expects 5"), "{err}");
}

fn assert_refused(args: &[&str], needle: &str) {
    let o = run(args, None);
    assert!(!o.status.success(), "{args:?} succeeded");
    let err = text(&o.stderr);
    assert!(err.to_lowercase().contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn each_class_of_bad_input_gets_a_clear_error() {
    let base = ["solve", "--tt-mb", "8", "-t", "1"];
    let with = |p: &'static str| [&base[..], &[p]].concat();
    assert_refused(&with("44a4"), "invalid character");
    assert_refused(&with("48"), "out of range");
    assert_refused(&with("40"), "out of range");
    assert_refused(&with("4444444"), "full");
    // 1212121: the seventh move completes a four; 12121213 moves after it.
    assert_refused(&with("1212121"), "already won");
    assert_refused(&with("12121213"), "already won");
    assert_refused(&["solve", "--tt-mb", "0", "4"], "at least 1 mib");
    assert_refused(&["solve", "--threads", "0", "4"], "at least 1");
    assert_refused(&["bench", "--threads", "1,0", "--empty"], "at least 1");
    assert_refused(&["solve", "--input", "/nonexistent/file"], "cannot open");
    assert_refused(&["solve", "--time-limit", "0", "4"], "time-limit");
    assert_refused(&["solve", "--param", "etc_below=24", "4"], "etc_min_empty");
    assert_refused(&["solve", "--param", "no_such=1", "4"], "unknown parameter");
    assert_refused(&["solve", "--param", "first_test=x", "4"], "not an integer");
}

#[test]
fn good_arguments_are_solved_despite_bad_ones() {
    let o = solve_small(&["9", "2252576253462244111563365343671351441"], None);
    assert!(!o.status.success());
    assert_eq!(
        text(&o.stdout),
        "2252576253462244111563365343671351441 -1\n"
    );
    assert!(text(&o.stderr).contains("argument 1"));
}

#[test]
fn a_time_limit_stops_one_solve_and_the_batch_goes_on() {
    // The empty board takes far longer than 0.2 s; the second position is quick.
    let o = solve_small(
        &[
            "--time-limit",
            "0.2",
            "",
            "2252576253462244111563365343671351441",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(124), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("time limit reached"));
    assert_eq!(
        text(&o.stdout),
        "2252576253462244111563365343671351441 -1\n"
    );
}

/// The fuzz target `cli_args` compiles `cli/src/main.rs` as a module and reaches the
/// command's modules through one glob import (`use fourfold_main::*`), which takes only the
/// modules visible outside `main.rs`: each must be `pub(crate)`, or a module that another
/// names as `crate::NAME` would not compile there (the check needs the fuzz crate's own
/// build, which `cargo test` does not run).
#[test]
fn every_module_of_the_command_reaches_the_fuzz_target() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let main = std::fs::read_to_string(format!("{root}/cli/src/main.rs")).unwrap();
    let fuzz = std::fs::read_to_string(format!("{root}/fuzz/fuzz_targets/cli_args.rs")).unwrap();
    assert!(fuzz.lines().any(|l| l.trim() == "use fourfold_main::*;"));
    let declared: Vec<&str> = main
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.ends_with(';'))
        .filter(|l| l.split_whitespace().any(|w| w == "mod"))
        .collect();
    for line in &declared {
        assert!(
            line.starts_with("pub(crate) mod "),
            "cli/src/main.rs: {line}"
        );
    }
    // Every source file of `cli/src` is one of them.
    for file in std::fs::read_dir(format!("{root}/cli/src")).unwrap() {
        let name = file.unwrap().file_name().into_string().unwrap();
        if let Some(m) = name.strip_suffix(".rs").filter(|&m| m != "main") {
            let line = format!("pub(crate) mod {m};");
            assert!(
                declared.contains(&line.as_str()),
                "{name} is not declared as `{line}`"
            );
        }
    }
}
