//! The opening book: a fresh build equals `solve` entry by entry, damaged files are refused,
//! a resumed build writes the same file as one run, and the shipped book answers the test
//! sets' positions with their scores, as the search does.

use crate::common::cases;
use fourfold::book::{self, BuildOptions, Phase, Progress};
use fourfold::{BoardSize, Book, BookError, Engine, ErrorKind, Position, Solver, Source};
use std::path::PathBuf;

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fourfold-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn solver<const W: usize, const H: usize>(threads: usize) -> Solver<W, H> {
    Solver::builder()
        .table_mib(16)
        .threads(threads)
        .build()
        .expect("solver")
}

fn quiet(_: Progress) {}

/// Every position with at most `plies` stones, not won, reached by legal play.
fn all_up_to<const W: usize, const H: usize>(plies: u32) -> Vec<Position<W, H>> {
    (0..=plies).flat_map(book::positions::<W, H>).collect()
}

fn entries_equal_solve<const W: usize, const H: usize>(plies: u32) {
    let s = solver::<W, H>(2);
    let opts = BuildOptions {
        plies,
        verify: 3,
        ..Default::default()
    };
    let b = book::build(&s, &opts, &quiet).expect("build");
    let ps = book::positions::<W, H>(plies);
    assert_eq!(b.len(), ps.len());
    assert!(!b.is_empty());
    for p in &ps {
        let solved = s.solve(p).unwrap().score;
        assert_eq!(b.get(p.key()).map(i32::from), Some(solved), "{p:?}");
        assert_eq!(
            b.get(p.mirror_key().min(p.key())).map(i32::from),
            Some(solved)
        );
    }
    // Scores of every position up to the depth (the search into the book below it).
    for p in all_up_to::<W, H>(plies) {
        assert_eq!(b.score(&p), Some(s.solve(&p).unwrap().score), "{p:?}");
        assert_eq!(b.score(&p.mirror()), b.score(&p));
    }
    // Best moves and every column's score of positions with fewer stones.
    assert!(b.solve(&book::positions::<W, H>(plies)[0]).is_none());
    for p in all_up_to::<W, H>(plies - 1) {
        let bs = b.solve(&p).expect("answered");
        assert_eq!(bs.source, Source::Book);
        assert_eq!(bs.score, s.solve(&p).unwrap().score, "{p:?}");
        assert_eq!(b.analyze(&p).unwrap().scores, s.analyze(&p).unwrap().scores);
    }
}

#[test]
fn two_ply_book_entries_equal_solve() {
    // Small boards, so that the whole check takes seconds (the 7 x 6 2-ply build takes
    // minutes; the shipped 7 x 6 book is checked against the test sets below).
    entries_equal_solve::<6, 5>(2);
    entries_equal_solve::<5, 4>(2);
    entries_equal_solve::<5, 4>(3);
}

#[test]
fn damaged_files_are_refused() {
    let s = solver::<5, 4>(1);
    let opts = BuildOptions {
        plies: 2,
        ..Default::default()
    };
    let b = book::build(&s, &opts, &quiet).unwrap();
    let dir = scratch("damaged");
    let path = dir.join("5x4-2.book");
    b.save(&path).unwrap();
    assert_eq!(Book::load(&path).unwrap(), b);
    let good = std::fs::read(&path).unwrap();
    // Flipped bytes anywhere: header, keys, scores.
    for at in [0, 9, 10, 12, 20, 27, 32, 40, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x04;
        std::fs::write(&path, &bad).unwrap();
        assert!(Book::load(&path).is_err(), "byte {at} flipped");
    }
    let mut bad = good.clone();
    bad[40] ^= 0x04;
    assert!(matches!(
        Book::from_bytes(&bad),
        Err(BookError::Checksum { .. })
    ));
    // Truncated, or with bytes after the end.
    assert!(matches!(
        Book::from_bytes(&good[..good.len() - 3]),
        Err(BookError::Truncated { .. })
    ));
    let mut long = good.clone();
    long.push(0);
    assert!(Book::from_bytes(&long).is_err());
    // Another version.
    let mut v2 = good.clone();
    v2[8] = 2;
    let e = Book::from_bytes(&v2).unwrap_err();
    assert!(e.to_string().contains("version 2"), "{e}");
    // Another board: refused by the engine, never used for a 7 x 6 position.
    let mut e = Engine::new(
        BoardSize::STANDARD,
        fourfold::SolverBuilder::default().table_mib(4),
    )
    .unwrap();
    let err = e.set_book(Some(b.clone())).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::Book(BookError::WrongBoard(_))
    ));
    assert!(err.to_string().contains("5x4"), "{err}");
    assert_eq!(b.score(&Position::<7, 6>::new()), None);
    // A missing file names the path.
    let e = Book::load(dir.join("none.book")).unwrap_err();
    assert!(e.to_string().contains("none.book"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resumed_build_writes_the_same_file_as_one_run() {
    let dir = scratch("resume");
    let journal = dir.join("5x4-3.book.journal");
    let one_run = book::build(
        &solver::<5, 4>(2),
        &BuildOptions {
            plies: 3,
            ..Default::default()
        },
        &quiet,
    )
    .unwrap();

    // Stop after a few positions (as Ctrl-C does: the solver's stop flag).
    let s = solver::<5, 4>(2);
    let stop = s.stop_flag();
    let opts = BuildOptions {
        plies: 3,
        journal: Some(journal.clone()),
        ..Default::default()
    };
    let stop_early = |p: Progress| {
        if p.phase == Phase::Solving && p.done >= 5 {
            stop.raise();
        }
    };
    let err = book::build(&s, &opts, &stop_early).unwrap_err();
    let BookError::Interrupted { done, total } = err else {
        panic!("{err}")
    };
    assert!(done >= 5 && done < total, "{done} of {total}");
    let kept = (std::fs::metadata(&journal).unwrap().len() - 16) / 10;
    assert_eq!(kept as usize, done);
    // A torn record at the end (a crash in the middle of a write) is cut off.
    let mut j = std::fs::read(&journal).unwrap();
    j.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&journal, &j).unwrap();

    s.stop_flag().lower();
    let resumed_from = std::sync::Mutex::new(0);
    let resumed = book::build(&s, &opts, &|p: Progress| {
        *resumed_from.lock().unwrap() = p.resumed;
    })
    .unwrap();
    assert_eq!(*resumed_from.lock().unwrap(), done);
    assert_eq!(resumed.to_bytes(), one_run.to_bytes());

    // A journal of another depth is refused.
    let other = BuildOptions {
        plies: 2,
        journal: Some(journal.clone()),
        ..Default::default()
    };
    let err = book::build(&s, &other, &quiet).unwrap_err();
    assert!(matches!(err, BookError::WrongBoard(_)), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped book: the deepest `books/7x6-<N>.book` of the repository.
fn shipped() -> Book {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("books");
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(&dir)
        .expect("books/ directory")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = name
                .strip_prefix("7x6-")?
                .strip_suffix(".book")?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .collect();
    found.sort();
    let (_, path) = found.pop().expect("a shipped 7x6 book");
    Book::load(path).expect("the shipped book loads")
}

#[test]
fn shipped_book_scores_equal_the_test_sets_and_the_search() {
    let b = shipped();
    let with = Engine::new(
        BoardSize::STANDARD,
        fourfold::SolverBuilder::default().table_mib(64).threads(2),
    )
    .unwrap()
    .with_book(b.clone())
    .unwrap();
    let mut covered = 0;
    let mut searched = 0;
    for name in ["Test_L1_R1", "Test_L1_R2", "Test_L1_R3"] {
        for c in cases(name, usize::MAX) {
            if c.position.moves() > b.plies() {
                continue;
            }
            covered += 1;
            assert_eq!(b.score(&c.position), c.expected, "{name}: {}", c.moves);
            // Positions with the book's depth: the engine searches them (a best move needs
            // the children's scores); the search agrees with the book where it is quick.
            if c.position.moves() == b.plies() {
                if searched < 1 {
                    searched += 1;
                    let w = with.solve(&c.moves).unwrap();
                    assert_eq!(w.source, Source::Search);
                    assert_eq!(Some(w.score), b.score(&c.position), "{}", c.moves);
                }
                continue;
            }
            let s = with.solve(&c.moves).unwrap();
            assert_eq!(s.source, Source::Book);
            assert_eq!(Some(s.score), c.expected, "{name}: {}", c.moves);
            let a = with.analyze(&c.moves).unwrap();
            assert_eq!(a.source, Source::Book);
            assert_eq!(a.scores[s.best_move.unwrap()], Some(s.score));
            assert_eq!(with.solve_weak(&c.moves).unwrap().score, s.score.signum());
        }
    }
    assert!(covered > 5, "only {covered} test-set positions are covered");
    // Batches mix book answers and searches, in order.
    let batch = ["", "4453", "2252576253462244111563365343671351441"];
    let r = with.solve_many(&batch, false);
    assert_eq!(r[0].as_ref().unwrap().source, Source::Book);
    assert_eq!(r[2].as_ref().unwrap().source, Source::Search);
    assert_eq!(r[2].as_ref().unwrap().score, -1);
}

#[test]
fn every_engine_of_the_standard_board_starts_with_the_shipped_book() {
    let file = Book::load(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("books/7x6-6.book"))
        .expect("books/7x6-6.book loads");
    let mut e = Engine::new(
        BoardSize::STANDARD,
        fourfold::SolverBuilder::default().table_mib(16),
    )
    .unwrap();
    assert_eq!(e.book(), Some(&file));
    assert_eq!(Book::shipped(7, 6), Some(&file));
    let s = e.solve("44").unwrap();
    assert_eq!(s.source, Source::Book);
    // Without a book, a late position (quick to search) and the same answer.
    let late = "2252576253462244111563365343671351441";
    let with = e.solve(late).unwrap();
    e.set_book(None).unwrap();
    assert!(e.book().is_none());
    let without = e.solve(late).unwrap();
    assert_eq!(
        (with.source, without.source),
        (Source::Search, Source::Search)
    );
    assert_eq!(with.score, without.score);
    // Other boards have no shipped book.
    let small = Engine::new(
        BoardSize {
            width: 5,
            height: 4,
        },
        fourfold::SolverBuilder::default().table_mib(4),
    )
    .unwrap();
    assert!(small.book().is_none());
}

#[test]
fn the_service_answers_book_positions_with_source_book_and_at_once() {
    use fourfold::service::{Request, Service, Source as Json};
    let mut engine = Engine::new(
        BoardSize::STANDARD,
        fourfold::SolverBuilder::default().table_mib(16),
    )
    .unwrap();
    let late = "2252576253462244111563365343671351441";
    let service = Service::new(engine);
    for op in ["solve", "solve_weak", "analyze"] {
        for pos in ["", "44", "445"] {
            let req = Request::new(op, pos).unwrap();
            assert!(service.is_instant(&req), "{op} {pos}");
            let r = service.handle(&req);
            let a = r.answer().unwrap_or_else(|| panic!("{op} {pos}: {r:?}"));
            assert_eq!(a.source, Json::Book, "{op} {pos}");
            let json = serde_json::to_value(&r).unwrap();
            assert_eq!(json["source"], "book");
        }
        let req = Request::new(op, late).unwrap();
        assert!(!service.is_instant(&req));
        assert_eq!(service.handle(&req).answer().unwrap().source, Json::Search);
        // A bad position is an error answer: no search either.
        assert!(service.is_instant(&Request::new(op, "448").unwrap()));
    }
    // Without a book: the same late answer, and nothing is instant but errors.
    let with = service.handle(&Request::new("solve", late).unwrap());
    engine = Engine::new(
        BoardSize::STANDARD,
        fourfold::SolverBuilder::default().table_mib(16),
    )
    .unwrap();
    engine.set_book(None).unwrap();
    let bare = Service::new(engine);
    assert!(!bare.is_instant(&Request::new("analyze", "").unwrap()));
    let without = bare.handle(&Request::new("solve", late).unwrap());
    assert_eq!(
        with.answer().unwrap().score,
        without.answer().unwrap().score
    );
    assert_eq!(without.answer().unwrap().source, Json::Search);
}
