//! Helpers shared by the command's tests: the repository's files and the bundled test sets.

use fourfold::testset::{parse_line, Case};
use fourfold::Solver;
use std::path::PathBuf;

/// A path inside the repository (the command's crate sits one level below its root).
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// The cases of `tests/data/<name>`, at most `limit` of them.
pub fn cases(name: &str, limit: usize) -> Vec<Case> {
    let path = repo(&format!("tests/data/{name}"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(limit)
        .map(|l| parse_line(l).unwrap_or_else(|e| panic!("{path:?}: {l}: {e}")))
        .collect();
    assert!(!cases.is_empty(), "{path:?} is empty");
    cases
}

/// A 7 x 6 solver with a table of `mib` MiB on `threads` threads.
pub fn solver(mib: usize, threads: usize) -> Solver {
    Solver::builder()
        .table_mib(mib)
        .threads(threads)
        .build()
        .expect("solver")
}
