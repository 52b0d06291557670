//! Helpers shared by the command's tests: the repository's files and the bundled test sets.

use fourfold::testset::Case;
use fourfold::Solver;
use std::path::PathBuf;

/// A path inside the repository (the command's crate sits one level below its root).
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// The cases of `tests/data/<name>`, at most `limit` of them, read by the library's own
/// test-set reader.
pub fn cases(name: &str, limit: usize) -> Vec<Case> {
    let path = repo(&format!("tests/data/{name}"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let cases: Vec<Case> = fourfold::testset::cases(std::io::BufReader::new(file))
        .take(limit)
        .map(|(n, c)| c.unwrap_or_else(|e| panic!("{path:?}:{n}: {e}")))
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
