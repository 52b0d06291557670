//! Criterion benchmark of thread scaling (short form of `fourfold bench --threads 1,2,4`).
//!
//! Run: `cargo bench --bench scaling`. Solves the first 3 positions of Begin-Hard with 1, 2
//! and all available threads, clearing the table before each solve so that every thread
//! count starts equal. Not run in CI.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fourfold::testset::parse_line;
use fourfold::Solver;

fn bench(c: &mut Criterion) {
    let path = format!("{}/tests/data/Test_L1_R3", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("test set");
    let cases: Vec<_> = text
        .lines()
        .take(3)
        .map(|l| parse_line(l).expect("line"))
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2, cores];
    counts.dedup();
    let mut group = c.benchmark_group("scaling");
    group.sample_size(10);
    for threads in counts {
        let solver: Solver = Solver::builder()
            .table_mib(256)
            .threads(threads)
            .build()
            .expect("solver");
        group.bench_with_input(
            BenchmarkId::new("begin_hard_3", threads),
            &threads,
            |b, _| {
                b.iter(|| {
                    for case in &cases {
                        solver.table().clear();
                        let s = solver.solve(&case.position).expect("not interrupted");
                        assert_eq!(Some(s.score), case.expected);
                    }
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
