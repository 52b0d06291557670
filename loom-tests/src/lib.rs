//! Loom models of fourfold's shared state: the transposition table and the stop flag.
//!
//! The models live in `tests/`; this library only holds what they share. They check the
//! production code: `fourfold` built with `--cfg loom` swaps its atomics (see `src/sync.rs`)
//! for loom's, so every load and store of a table slot is a point where loom switches threads
//! and chooses which earlier store a `Relaxed` load reads.
//!
//! Run them with
//!
//! ```text
//! cd loom-tests && RUSTFLAGS="--cfg loom" cargo test --release
//! ```
//!
//! Without `--cfg loom` the crate refuses to build: the models would otherwise run against
//! `std` atomics, which loom can neither interleave nor reorder, and prove nothing.
//!
//! `LOOM_MAX_PREEMPTIONS` overrides each model's preemption bound (raise it for a deeper,
//! slower run); the other `LOOM_*` variables work as loom documents them. `--nocapture`
//! shows how many executions each model explored.
//!
//! # What the models were seen to catch
//!
//! The models were run against deliberately broken copies of the library: `probe` accepting
//! a slot without comparing its check bits, `store` writing its word in two halves (a torn
//! write), and `StopFlag` with `Relaxed` in `raise` or in `is_raised`. Each break made the
//! models aimed at it fail (the same-key, different-key and stop-flag models respectively).
//! The `control_*` and `plain_two_word_slot_tears` tests keep the same kind of evidence in
//! the suite, on stand-in code: they must panic.
//!
//! # Limits of loom 0.7 to keep in mind
//!
//! - Its DPOR remembers one last access per atomic, so a load by one thread, then a load and
//!   a store by another, can hide the first load's race with the store (tokio-rs/loom#392).
//!   What a `Relaxed` load may read is still branched over all visible stores, which is what
//!   these one-word, `Relaxed`-only models mostly rely on.
//! - Its modification order is not a total order (tokio-rs/loom#282 shows one symptom). Seen
//!   here: two threads that each store twice to one atomic and then load it let a load after
//!   `join` read a thread's first store, which no real execution allows. No model here stores
//!   twice to a slot from one thread; a new model that does may fail spuriously after `join`.

#[cfg(not(loom))]
compile_error!(
    "the loom models need fourfold's loom atomics: build with RUSTFLAGS=\"--cfg loom\" \
     (cd loom-tests && RUSTFLAGS=\"--cfg loom\" cargo test --release)"
);

use fourfold::table::{Bound, Entry, Table};

/// Key width of every model table. One bucket holds any key width up to `CHECK_BITS`, so a
/// 16-bit key is identified exactly and every key lands in bucket 0.
pub const KEY_BITS: u32 = 16;

/// Runs `f` under loom with at most `bound` preemptions per execution, unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise, and returns how many executions loom explored
/// (also printed, visible with `--nocapture`).
pub fn model_bounded<F>(bound: usize, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(bound);
    }
    // A std atomic on purpose: it counts loom's executions from outside the model.
    let executions = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&executions);
    builder.check(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f();
    });
    let n = executions.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "loom explored {n} executions (preemption bound {:?})",
        builder.preemption_bound
    );
    n
}

/// A one-bucket table: eight slots, so every key shares them and a ninth key evicts.
pub fn one_bucket() -> Table {
    Table::with_buckets(1, KEY_BITS).expect("a one-bucket table of 16-bit keys is valid")
}

/// One call to [`Table::store`], with what it should read back as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    /// The key stored.
    pub key: u64,
    /// The stored value.
    pub value: i32,
    /// The stored bound.
    pub bound: Bound,
    /// The best move; always `Some`, so `store` never carries over an older entry's move and
    /// the entry read back is exactly this write's.
    pub best_move: Option<u8>,
    /// Nodes the search took; a power of two so the stored work is its exact log.
    pub nodes: u64,
}

impl Write {
    /// A write whose every field is derived from `key`, so a read-back entry tells which key
    /// it was stored for. `key` must be below 64; `work` is the log2 of the nodes (< 63).
    pub fn tagged(key: u64, work: u32) -> Write {
        assert!(key < 64 && work < 63);
        Write {
            key,
            value: key as i32 - 32,
            bound: [Bound::Upper, Bound::Lower, Bound::Exact][(key % 3) as usize],
            best_move: Some((key % 15) as u8),
            nodes: 1 << work,
        }
    }

    /// Stores it.
    pub fn store(&self, table: &Table) {
        table.store(self.key, self.value, self.bound, self.best_move, self.nodes);
    }

    /// Stores it the search's way: [`Table::probe_slot`] first, [`Table::store_at`] later
    /// (with `between` run in the gap, as the search of the subtree would).
    pub fn probe_then_store_at(&self, table: &Table, between: impl FnOnce()) {
        let (_, slot) = table.probe_slot(self.key);
        between();
        table.store_at(slot, self.value, self.bound, self.best_move, self.nodes);
    }

    /// The entry this write reads back as when written in `generation`.
    pub fn entry(&self, generation: u8) -> Entry {
        Entry {
            value: self.value,
            bound: self.bound,
            best_move: self.best_move,
            work: self.nodes.ilog2() as u8,
            generation,
        }
    }
}

/// Asserts that a probe for `key` found nothing or exactly one of the entries `writes` stored
/// for `key` (in `generation`): never another key's entry, never a mix of two writes.
pub fn assert_probe_is_one_of(table: &Table, key: u64, writes: &[Write], generation: u8) {
    if let Some(got) = table.probe(key) {
        let ok = writes
            .iter()
            .any(|w| w.key == key && w.entry(generation) == got);
        assert!(
            ok,
            "probe({key}) returned {got:?}, which no write of key {key} stored; writes: {writes:?}"
        );
    }
}
