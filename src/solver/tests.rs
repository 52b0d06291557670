//! The solver's unit tests: the step after a proven score (`finish`) and pinned threads
//! (`pinning`).

use super::*;

mod finish {
    use super::*;

    /// Stands for a stop request arriving once the score is known, with a best-move step
    /// that must search: the table is emptied, so nothing the proof stored settles a column.
    fn stop_and_forget(stop: &StopFlag, table: &Table) {
        stop.raise();
        table.clear();
    }

    /// A stop request arriving once the score is known, the table as the proof left it.
    fn stop_only(stop: &StopFlag, _: &Table) {
        stop.raise();
    }

    /// The time limit of [`deadline_in_the_move_step`] running out once the score is known;
    /// the table is emptied, as in [`stop_and_forget`].
    fn sleep_past_the_limit_and_forget(_: &StopFlag, table: &Table) {
        std::thread::sleep(LIMIT + Duration::from_millis(50));
        table.clear();
    }

    const LIMIT: Duration = Duration::from_millis(300);

    /// From tests/data/Test_L2_R2: with the table emptied, finding the root's move takes
    /// about 18 000 nodes, past the searcher's poll of the flags (every 4096).
    const POSITION: &str = "274552224131661";

    /// The exact solve of [`POSITION`] without any hook.
    fn reference() -> (Position, Solver, Solution) {
        let p: Position = POSITION.parse().unwrap();
        let reference: Solver = Solver::builder().table_mib(4).threads(1).build().unwrap();
        let want = reference.solve(&p).unwrap();
        (p, reference, want)
    }

    /// Solves `p` on one thread (the hook is the caller's, and the caller's thread is the
    /// one finishing) with `hook` run once the score is known.
    fn solve_with(
        p: &Position,
        limit: Option<Duration>,
        hook: hook::Hook,
    ) -> Result<Solution, Interrupted> {
        let s: Solver = Solver::builder()
            .table_mib(4)
            .threads(1)
            .time_limit(limit)
            .build()
            .unwrap();
        hook::SCORE_KNOWN.set(Some(hook));
        let got = s.solve(p);
        hook::SCORE_KNOWN.set(None);
        got
    }

    #[test]
    fn a_stop_while_the_move_is_searched_keeps_the_score_and_leaves_the_move_unknown() {
        let (p, _, want) = reference();
        let started = Instant::now();
        let got = solve_with(&p, None, stop_and_forget);
        let e = got.expect_err("the move step was stopped: no move can be claimed");
        assert_eq!(
            (e.lower, e.upper),
            (want.score, want.score),
            "the proven score is kept"
        );
        assert!(e.columns.is_empty());
        // Stopped at the step's first poll, not after a search of every column.
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_deadline_falling_in_the_move_step_keeps_the_score_and_leaves_the_move_unknown() {
        deadline_in_the_move_step();
    }

    fn deadline_in_the_move_step() {
        let (p, _, want) = reference();
        let got = solve_with(&p, Some(LIMIT), sleep_past_the_limit_and_forget);
        let e = got.expect_err("the limit ran out in the move step");
        assert_eq!(
            (e.lower, e.upper),
            (want.score, want.score),
            "the proven score is kept"
        );
    }

    #[test]
    fn after_a_proof_the_best_move_is_read_from_the_table_even_when_stopped() {
        // The stop comes before the move step's first search; the table as the proof left
        // it settles every column up to the best one, so no search is needed.
        let (p, reference, want) = reference();
        let got = solve_with(&p, None, stop_only)
            .unwrap_or_else(|e| panic!("the table settles the move, but the solve gave {e}"));
        assert_eq!(got.score, want.score);
        // The move must achieve the score: the child's score is the score's negation, and
        // it is the tie-break's (the reference's) move.
        let col = got.best_move.expect("a move");
        assert_eq!(Some(col), want.best_move);
        let mut child = p;
        assert!(child.can_play(col) && !child.is_winning_move(col));
        child.play_col(col);
        assert_eq!(reference.solve(&child).unwrap().score, -want.score);
    }
}

#[cfg(target_os = "linux")]
mod pinning {
    use super::*;

    /// The number of CPUs the calling thread may run on.
    fn cpus() -> i32 {
        // SAFETY: as in `Pinned::to`: a zeroed `cpu_set_t` filled by the kernel.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
                0
            );
            libc::CPU_COUNT(&set)
        }
    }

    #[test]
    fn a_pinned_solve_gives_the_caller_its_cpus_back() {
        let before = cpus();
        for threads in [1, 2] {
            let s: Solver = Solver::builder()
                .table_mib(4)
                .threads(threads)
                .pin(true)
                .build()
                .unwrap();
            // Late positions (prefixes of one game): quick solves.
            let game = "2252576253462244111563365343671351441";
            let p: Position = game.parse().unwrap();
            s.solve(&p).unwrap();
            let batch: Vec<Position> = [29, 31, 33, 35]
                .iter()
                .map(|&n| game[..n].parse().unwrap())
                .collect();
            assert!(s.solve_many(&batch, false).iter().all(|r| r.is_ok()));
            assert_eq!(cpus(), before, "{threads} thread(s)");
        }
    }
}
