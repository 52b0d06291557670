//! Loom models of the production transposition table (`fourfold::table::Table` built with
//! `--cfg loom`): racing stores and probes on one bucket of eight slots.
//!
//! Every model uses a one-bucket table, so every key shares the same eight slots, and
//! [`Write::tagged`] derives every field of an entry from its key, so an entry read back
//! tells which key it was written for. `a_slot_of_another_table_stores_nothing` also runs on
//! a one-bucket table of 100-bit keys (four two-word slots).

use fourfold::table::{Bound, Layout, Table};
use fourfold_loom_tests::{assert_probe_is_one_of, model_bounded, one_bucket, Write, KEY_BITS};
use loom::sync::Arc;
use loom::thread;

/// Preemptions per execution: about 20 s for this file on 2 cores (3 takes 6 s); the races
/// below need one or two.
const PREEMPTIONS: usize = 4;

/// Keys the models never store: a probe for any of them must miss. Key 0 mixes to 0, so its
/// check equals an empty slot's: it also checks that the all-zero word is never an entry.
const NEVER_STORED: [u64; 4] = [0, 9, 33, 63];

/// Spawns one thread per write, each storing it.
fn spawn_stores(
    table: &Arc<Table>,
    writes: impl IntoIterator<Item = Write>,
) -> Vec<thread::JoinHandle<()>> {
    writes
        .into_iter()
        .map(|w| {
            let table = Arc::clone(table);
            thread::spawn(move || w.store(&table))
        })
        .collect()
}

/// Joins every thread, propagating a panic.
fn join_all(handles: Vec<thread::JoinHandle<()>>) {
    for h in handles {
        h.join().unwrap();
    }
}

/// Keys never stored must miss.
fn assert_never_stored_miss(table: &Table) {
    for k in NEVER_STORED {
        assert_eq!(table.probe(k), None);
    }
}

/// How many of `writes`' keys a probe finds, after checking that each hit is an entry one of
/// `writes` stored for that very key in `generation`.
fn found_keys(table: &Table, writes: &[Write], generation: u8) -> usize {
    let mut keys: Vec<u64> = writes.iter().map(|w| w.key).collect();
    keys.sort_unstable();
    keys.dedup();
    for &k in &keys {
        assert_probe_is_one_of(table, k, writes, generation);
    }
    keys.iter().filter(|&&k| table.probe(k).is_some()).count()
}

/// Two writers store different entries for the same key while a third thread probes it: the
/// reader sees nothing or exactly one writer's entry (every field: value, bound, move, work,
/// generation), never fields of both; afterwards the key holds one of the two.
#[test]
fn same_key_writers_never_mix() {
    model_bounded(PREEMPTIONS, || {
        let a = Write {
            key: 7,
            value: 11,
            bound: Bound::Upper,
            best_move: Some(2),
            nodes: 1 << 3,
        };
        let b = Write {
            key: 7,
            value: -13,
            bound: Bound::Exact,
            best_move: Some(5),
            nodes: 1 << 20,
        };
        let table = Arc::new(one_bucket());
        let writers = spawn_stores(&table, [a, b]);
        let reader = {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                assert_probe_is_one_of(&table, 7, &[a, b], 0);
                assert_probe_is_one_of(&table, 7, &[a, b], 0);
            })
        };
        join_all(writers);
        reader.join().unwrap();
        assert!(
            table.probe(7u64).is_some(),
            "both writers stored key 7 and it is gone"
        );
        assert_probe_is_one_of(&table, 7, &[a, b], 0);
        assert_never_stored_miss(&table);
    });
}

/// The same race when the key already sits in the last slot of a bucket whose other slots
/// hold other keys: both writers overwrite that slot in place, so the reader, which must load
/// seven other keys' words before reaching it, always finds the key and gets the old entry
/// or one writer's, never a mix and never a neighbour's entry.
#[test]
fn same_key_overwrite_in_a_full_bucket_never_mixes() {
    model_bounded(PREEMPTIONS, || {
        let table = Arc::new(one_bucket());
        let neighbours: Vec<Write> = (1..=7).map(|k| Write::tagged(k, 40)).collect();
        for w in &neighbours {
            w.store(&table);
        }
        let old = Write::tagged(8, 1);
        old.store(&table);
        let a = Write {
            key: 8,
            value: 17,
            bound: Bound::Lower,
            best_move: Some(0),
            nodes: 1 << 5,
        };
        let b = Write {
            key: 8,
            value: -2,
            bound: Bound::Upper,
            best_move: Some(6),
            nodes: 1 << 50,
        };
        let writers = spawn_stores(&table, [a, b]);
        let reader = {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                assert!(table.probe(8u64).is_some(), "key 8 was never absent");
                assert_probe_is_one_of(&table, 8, &[old, a, b], 0);
            })
        };
        join_all(writers);
        reader.join().unwrap();
        assert_probe_is_one_of(&table, 8, &[a, b], 0);
        assert_eq!(
            found_keys(&table, &neighbours, 0),
            7,
            "an in-place store evicted"
        );
    });
}

/// A one-bucket table holding keys `1..=n` (work growing with the key), and their writes.
fn prefilled(n: u64) -> (Arc<Table>, Vec<Write>) {
    let table = Arc::new(one_bucket());
    let writes: Vec<Write> = (1..=n).map(|k| Write::tagged(k, k as u32)).collect();
    for w in &writes {
        w.store(&table);
    }
    (table, writes)
}

/// Stores keys `1..=prefill` (work growing with the key), then races two writers of new keys
/// 20 and 21 against a reader that probes `probed_racer` and key 1. Every probe returns
/// nothing or that key's own entry; afterwards the bucket holds eight distinct stored keys
/// with at least one racer among them.
fn race_two_writers(prefill: u64, probed_racer: u64) -> Arc<Table> {
    let (table, mut writes) = prefilled(prefill);
    let racers = [Write::tagged(20, 30), Write::tagged(21, 31)];
    writes.extend(racers);
    let all = Arc::new(writes);
    let writers = spawn_stores(&table, racers);
    let reader = {
        let (table, all) = (Arc::clone(&table), Arc::clone(&all));
        thread::spawn(move || {
            assert_probe_is_one_of(&table, probed_racer, &all, 0);
            assert_probe_is_one_of(&table, 1, &all, 0);
        })
    };
    join_all(writers);
    reader.join().unwrap();
    assert_eq!(found_keys(&table, &all, 0), 8, "a slot lost its entry");
    assert!(table.probe(20u64).is_some() || table.probe(21u64).is_some());
    table
}

/// Two writers of different keys race into a bucket with one free slot (seven keys already
/// in), so one takes the free slot and the other either takes it too or evicts the cheapest
/// entry, while a reader probes a racing key and the eviction candidate. Every probe, during
/// and after, returns nothing or the entry stored for that very key; afterwards the bucket
/// holds eight distinct stored keys (so every slot decodes to a valid entry of some stored
/// key), and keys never stored miss.
#[test]
fn different_keys_racing_for_the_last_free_slot() {
    model_bounded(PREEMPTIONS, || {
        let table = race_two_writers(7, 20);
        assert_never_stored_miss(&table);
    });
}

/// Two writers of new keys race into a full bucket (eight keys, the cheapest first), so both
/// must evict, possibly the same victim, while a reader probes a racing key and the cheapest
/// victim. No probe ever returns another key's entry, and afterwards the bucket again holds
/// eight distinct stored keys with at least one racer among them.
#[test]
fn different_keys_racing_to_evict_from_a_full_bucket() {
    model_bounded(PREEMPTIONS, || {
        let table = race_two_writers(8, 21);
        // Key 1 was the cheapest: some racer evicted it.
        assert_eq!(table.probe(1u64), None);
        assert_never_stored_miss(&table);
    });
}

/// The search's store: a slot chosen at probe time and written later, while another thread
/// stores other keys into the same (full) bucket, possibly into that very slot, and a reader
/// probes. The late write may cost another key its entry but every probe, during and after,
/// returns nothing or the entry stored for that very key.
#[test]
fn a_slot_chosen_early_and_written_late_never_gives_a_wrong_hit() {
    model_bounded(PREEMPTIONS, || {
        let (table, mut writes) = prefilled(8);
        let late = Write::tagged(20, 30);
        let others = [Write::tagged(21, 31), Write::tagged(22, 32)];
        writes.push(late);
        writes.extend(others);
        let all = Arc::new(writes);
        let searcher = {
            let table = Arc::clone(&table);
            // Its own subtree stores a key in between, as a search does.
            thread::spawn(move || late.probe_then_store_at(&table, || others[0].store(&table)))
        };
        let rival = {
            let table = Arc::clone(&table);
            thread::spawn(move || others[1].probe_then_store_at(&table, || {}))
        };
        let reader = {
            let (table, all) = (Arc::clone(&table), Arc::clone(&all));
            thread::spawn(move || {
                assert_probe_is_one_of(&table, 20, &all, 0);
                assert_probe_is_one_of(&table, 1, &all, 0);
            })
        };
        searcher.join().unwrap();
        rival.join().unwrap();
        reader.join().unwrap();
        for k in (1..=8).chain([20, 21, 22]) {
            assert_probe_is_one_of(&table, k, &all, 0);
        }
        assert_never_stored_miss(&table);
    });
}

/// Three writers of new keys race into a full bucket with no reader: whatever the
/// interleaving, the bucket ends with eight distinct stored keys, each probe returning the
/// entry written for its own key.
#[test]
fn three_writers_evicting_leave_a_consistent_bucket() {
    model_bounded(PREEMPTIONS, || {
        let (table, mut writes) = prefilled(8);
        let racers = [
            Write::tagged(20, 30),
            Write::tagged(21, 31),
            Write::tagged(22, 32),
        ];
        writes.extend(racers);
        let writers = spawn_stores(&table, racers);
        join_all(writers);
        assert_eq!(found_keys(&table, &writes, 0), 8, "a slot lost its entry");
        assert_never_stored_miss(&table);
    });
}

/// `new_generation` called before the threads are spawned is seen by them: `generation()`
/// returns the bumped value in every thread, and entries they store carry it. The bucket was
/// full of expensive entries of the old generation, so the cheap new entries still evict them
/// (an old entry is worth less than any current one), and the survivors keep generation 0.
#[test]
fn generation_bumped_before_spawn_is_seen_by_the_threads() {
    model_bounded(PREEMPTIONS, || {
        let table = Arc::new(one_bucket());
        let old: Vec<Write> = (1..=8).map(|k| Write::tagged(k, 40 + k as u32)).collect();
        for w in &old {
            w.store(&table);
        }
        table.new_generation();
        table.new_generation();
        assert_eq!(table.generation(), 2);
        let racers = [Write::tagged(20, 0), Write::tagged(21, 0)];
        let writers: Vec<_> = racers
            .into_iter()
            .map(|w| {
                let table = Arc::clone(&table);
                thread::spawn(move || {
                    assert_eq!(table.generation(), 2, "the bump before spawn was not seen");
                    w.store(&table);
                    assert_probe_is_one_of(&table, w.key, &[w], 2);
                })
            })
            .collect();
        join_all(writers);
        assert_eq!(table.generation(), 2);
        let new = found_keys(&table, &racers, 2);
        assert!(new >= 1, "both new entries were lost");
        assert_eq!(
            found_keys(&table, &old, 0) + new,
            8,
            "a slot lost its entry"
        );
        // The cheapest old entry went first.
        assert_eq!(table.probe(1u64), None);
    });
}

/// `clear` called before the threads are spawned is seen by them: probes of the cleared keys
/// miss in every thread, even while another thread stores a new key into the emptied bucket.
#[test]
fn clear_before_spawn_is_seen_by_the_threads() {
    model_bounded(PREEMPTIONS, || {
        let (table, old) = prefilled(8);
        // `fill` reads every slot through the checked access (`Slots::get`): eight of eight.
        assert_eq!(table.fill(), 1.0);
        table.clear();
        assert_eq!(table.fill(), 0.0);
        let fresh = Write::tagged(20, 3);
        let writer = {
            let table = Arc::clone(&table);
            thread::spawn(move || fresh.store(&table))
        };
        let reader = {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                assert_eq!(table.probe(1u64), None, "a cleared entry came back");
                assert_eq!(table.probe(8u64), None, "a cleared entry came back");
                assert_probe_is_one_of(&table, 20, &[fresh], 0);
            })
        };
        writer.join().unwrap();
        reader.join().unwrap();
        assert_eq!(found_keys(&table, &old, 0), 0);
        assert_eq!(table.probe(20u64), Some(fresh.entry(0)));
        assert_eq!(table.fill(), 1.0 / 8.0);
    });
}

/// A slot that one table's probe chose stores nothing in another table, of either layout
/// (`Table::store_at` compares the tables' identities, `Slots::base` under loom), while the
/// other table's own slots still store. A writer of the other table's own key races it.
#[test]
fn a_slot_of_another_table_stores_nothing() {
    model_bounded(PREEMPTIONS, || {
        for bits in [KEY_BITS, 100] {
            let mine = Table::with_buckets(1, bits).expect("one bucket");
            let other = Arc::new(Table::with_buckets(1, bits).expect("one bucket"));
            let foreign = mine.probe_slot(5u64).1;
            let own = Write::tagged(6, 2);
            let writer = {
                let other = Arc::clone(&other);
                thread::spawn(move || own.store(&other))
            };
            other.store_at(foreign, 3, Bound::Exact, Some(1), 4);
            writer.join().unwrap();
            assert_eq!(
                other.probe(5u64),
                None,
                "{bits} bits: a foreign slot stored"
            );
            assert_eq!(mine.probe(5u64), None, "{bits} bits");
            assert_eq!(other.probe(6u64), Some(own.entry(0)), "{bits} bits");
            // One slot used: one of eight words, or of four 16-byte slots.
            let (layout, slots) = if bits == 100 {
                (Layout::TwoWord, 4.0)
            } else {
                (Layout::OneWord, 8.0)
            };
            assert_eq!(other.layout(), layout);
            assert_eq!(other.fill(), 1.0 / slots, "{bits} bits: fill");
        }
    });
}

/// Canary: the table under test is built from loom's atomics (creating one outside a loom
/// model panics), so these models check the production table and not `std`'s atomics.
#[test]
#[should_panic(expected = "outside a Loom model")]
fn the_table_is_built_from_loom_atomics() {
    let _ = one_bucket();
}
