//! Criterion benchmark of single-thread solves over a fixed small subset of the test sets.
//!
//! Run: `cargo bench --bench solve`. Each sample solves every position of the subset on a
//! fresh table generation (the table is reused, as a batch would).

use criterion::{criterion_group, criterion_main, Criterion};
use fourfold::testset::{parse_line, Case};
use fourfold::Solver;

fn subset(name: &str, n: usize) -> Vec<Case> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("test set");
    text.lines()
        .take(n)
        .map(|l| parse_line(l).expect("line"))
        .collect()
}

fn bench(c: &mut Criterion) {
    let solver: Solver = Solver::builder()
        .table_mib(64)
        .threads(1)
        .build()
        .expect("solver");
    solver.table().clear();
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    for (name, n) in [
        ("Test_L3_R1", 200),
        ("Test_L2_R1", 100),
        ("Test_L2_R2", 20),
        ("Test_L1_R2", 3),
    ] {
        let cases = subset(name, n);
        group.bench_function(format!("{name}/first_{n}"), |b| {
            b.iter(|| {
                for case in &cases {
                    let s = solver.solve(&case.position).expect("not interrupted");
                    assert_eq!(Some(s.score), case.expected);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
