//! Loom models of `fourfold::StopFlag` built with `--cfg loom`: what `raise` (Release) and
//! `is_raised` (Acquire) promise, and no more.

use fourfold::StopFlag;
use fourfold_loom_tests::model_bounded;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Preemptions per execution (the whole file takes a few seconds).
const PREEMPTIONS: usize = 4;

/// What the raising thread writes before `raise`: one non-atomic cell (loom reports any
/// unsynchronised access to it as a data race) and one `Relaxed` atomic (loom lets a load
/// read a stale value unless a happens-before edge forbids it).
struct Published {
    cell: UnsafeCell<u64>,
    word: AtomicU64,
}

// SAFETY: `cell` is written only before the flag is raised and read only after the flag is
// seen raised; the loom models below check exactly that this is race-free.
unsafe impl Sync for Published {}

impl Published {
    fn new() -> Self {
        Published {
            cell: UnsafeCell::new(0),
            word: AtomicU64::new(0),
        }
    }

    fn write(&self) {
        // SAFETY: no other thread reads `cell` until it sees the flag up (checked by loom).
        self.cell.with_mut(|p| unsafe { *p = 42 });
        self.word.store(7, Ordering::Relaxed);
    }

    fn assert_seen(&self) {
        // SAFETY: the flag was seen raised, so the write happened before (checked by loom).
        let cell = self.cell.with(|p| unsafe { *p });
        assert_eq!(cell, 42, "the cell written before raise() was not seen");
        self.assert_word_seen();
    }

    fn assert_word_seen(&self) {
        assert_eq!(
            self.word.load(Ordering::Relaxed),
            7,
            "the Relaxed word written before raise() was not seen"
        );
    }
}

/// A thread that sees `is_raised()` true also sees everything the raising thread wrote
/// before `raise()`: a non-atomic cell (no data race) and a `Relaxed` atomic (no stale read).
/// A thread that sees it false reads nothing, and the main thread, after joining, sees it up.
#[test]
fn raise_publishes_what_was_written_before_it() {
    model_bounded(PREEMPTIONS, || {
        let flag = Arc::new(StopFlag::new());
        let data = Arc::new(Published::new());
        let raiser = {
            let (flag, data) = (Arc::clone(&flag), Arc::clone(&data));
            thread::spawn(move || {
                data.write();
                flag.raise();
            })
        };
        let observers: Vec<_> = (0..2)
            .map(|_| {
                let (flag, data) = (Arc::clone(&flag), Arc::clone(&data));
                thread::spawn(move || {
                    if flag.is_raised() {
                        data.assert_seen();
                    }
                })
            })
            .collect();
        raiser.join().unwrap();
        for h in observers {
            h.join().unwrap();
        }
        assert!(flag.is_raised());
        data.assert_seen();
    });
}

/// A search thread polling the flag in a loop (as `Searcher::poll` does) eventually sees it
/// raised and then sees the data written before `raise()`.
#[test]
fn polling_until_raised_then_sees_the_data() {
    model_bounded(PREEMPTIONS, || {
        let flag = Arc::new(StopFlag::new());
        let data = Arc::new(Published::new());
        let poller = {
            let (flag, data) = (Arc::clone(&flag), Arc::clone(&data));
            thread::spawn(move || {
                while !flag.is_raised() {
                    thread::yield_now();
                }
                data.assert_seen();
            })
        };
        data.write();
        flag.raise();
        poller.join().unwrap();
    });
}

/// `lower` is `Relaxed`, which the flag justifies by lowering before the search threads
/// start: a flag raised, then lowered before spawning, reads lowered in the spawned threads
/// until someone raises it again.
#[test]
fn lower_before_spawn_is_seen_by_the_threads() {
    model_bounded(PREEMPTIONS, || {
        let flag = Arc::new(StopFlag::new());
        flag.raise();
        flag.lower();
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let flag = Arc::clone(&flag);
                thread::spawn(move || assert!(!flag.is_raised(), "a lowered flag read raised"))
            })
            .collect();
        for h in threads {
            h.join().unwrap();
        }
    });
}

/// Control: the same model as `raise_publishes_what_was_written_before_it` with a `Relaxed`
/// flag instead of `StopFlag` fails (loom reports the data race on the cell), so that model
/// does test the flag's ordering.
#[test]
#[should_panic(expected = "Causality violation")]
fn control_a_relaxed_flag_does_not_publish_the_cell() {
    relaxed_flag_model(Published::assert_seen);
}

/// Control: with a `Relaxed` flag, loom also finds a reader that sees the flag up and still
/// reads the stale `Relaxed` word, so the word check is not vacuous either.
#[test]
#[should_panic(expected = "the Relaxed word written before raise() was not seen")]
fn control_a_relaxed_flag_does_not_publish_the_word() {
    relaxed_flag_model(Published::assert_word_seen);
}

/// A writer publishes `Published` with a `Relaxed` flag; the main thread checks it with
/// `check` when it sees the flag up.
fn relaxed_flag_model(check: fn(&Published)) {
    model_bounded(PREEMPTIONS, move || {
        let flag = Arc::new(AtomicBool::new(false));
        let data = Arc::new(Published::new());
        let raiser = {
            let (flag, data) = (Arc::clone(&flag), Arc::clone(&data));
            thread::spawn(move || {
                data.write();
                flag.store(true, Ordering::Relaxed);
            })
        };
        if flag.load(Ordering::Relaxed) {
            check(&data);
        }
        raiser.join().unwrap();
    });
}

/// Canary: the flag under test is a loom atomic (creating one outside a loom model panics),
/// so these models check the production flag and not `std`'s atomics.
#[test]
#[should_panic(expected = "outside a Loom model")]
fn the_flag_is_a_loom_atomic() {
    let _ = StopFlag::new();
}
