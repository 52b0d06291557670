//! The batch path (`Solver::solve_many`, `Engine::solve_many`): input order, scores from the
//! test sets, repeated batches on one solver (its kept thread pool), weak batches.

use crate::common::{cases, solver};
use fourfold::{BoardSize, Engine, SolverBuilder};

#[test]
fn batches_keep_order_and_match_the_sets() {
    let mut all = cases("Test_L3_R1", 200);
    all.extend(cases("Test_L2_R1", 30));
    let positions: Vec<_> = all.iter().map(|c| c.position).collect();
    for threads in [1, 2] {
        let s = solver(16, threads);
        // Twice on the same solver: the second batch reuses the pool and the table.
        for _ in 0..2 {
            let got = s.solve_many(&positions, false);
            for (c, r) in all.iter().zip(&got) {
                assert_eq!(Some(r.as_ref().unwrap().score), c.expected, "{}", c.moves);
            }
            let weak = s.solve_many(&positions, true);
            for (c, r) in all.iter().zip(&weak) {
                let want = c.expected.map(i32::signum);
                assert_eq!(Some(r.as_ref().unwrap().score), want, "{}", c.moves);
            }
        }
        assert!(s.solve_many(&[], false).is_empty());
    }
}

#[test]
fn engine_batch_reports_bad_entries_in_place() {
    let good = cases("Test_L3_R1", 5);
    let mut batch: Vec<String> = good.iter().map(|c| c.moves.clone()).collect();
    batch.insert(2, "4a".into());
    let e = Engine::new(
        BoardSize::STANDARD,
        SolverBuilder::default().table_mib(4).threads(2),
    )
    .unwrap();
    let r = e.solve_many(&batch, false);
    assert_eq!(r.len(), 6);
    assert!(r[2].is_err());
    let scores: Vec<i32> = r
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, x)| x.as_ref().unwrap().score)
        .collect();
    let want: Vec<i32> = good.iter().map(|c| c.expected.unwrap()).collect();
    assert_eq!(scores, want);
}
