//! The real 16-byte slots under racing threads: what loom cannot check (its model of the
//! 16-byte atomic is a mutex, so a torn access cannot happen there), checked on the CPU.
//!
//! One bucket of a two-word table (100-bit keys), so every store of every thread lands in
//! the same four slots, on two key families. In the first the keys share the high word of
//! their mixed hash, which the slot's data word carries as its check bits: a slot torn
//! between two writes (word 0 of one key's, the data word of another's) would pass every
//! check for the first key and carry the second key's entry. In the second they share the
//! low word, so that only the data word's check bits tell them apart. Each key's entry is a
//! function of the key, so any hit that is not exactly that entry is a tear, or a wrong hit
//! of any other kind.

use crate::common::Rng;
use fourfold::table::{mix128, unmix128, Bound, Entry, Layout, Table};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Key width: more than one word, so one bucket is enough for a two-word table.
const BITS: u32 = 100;
/// Keys racing for the bucket's four slots.
const KEYS: u64 = 24;

/// The two key families: the mixed hashes of one share their high word (the data word's
/// check bits), those of the other their low word (word 0), so that only the other word
/// tells two keys apart.
#[derive(Clone, Copy, Debug)]
enum Family {
    SharedHigh,
    SharedLow,
}

/// The key of tag `i` of `family`.
fn key(family: Family, i: u64) -> u128 {
    const HIGH: u128 = 0xa_5a5a_5a5a; // 36 bits
    const LOW: u128 = 0x0123_4567_89ab_cdef;
    let spread = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let h = match family {
        Family::SharedHigh => HIGH << 64 | spread as u128,
        Family::SharedLow => ((spread >> 28) as u128) << 64 | LOW,
    };
    let k = unmix128(h, BITS);
    assert_eq!(mix128(k, BITS), h, "{family:?} tag {i}");
    k
}

/// The entry every store of key `i` writes (its work aside): no two keys share a value.
fn entry_of(i: u64) -> (i32, Bound, Option<u8>) {
    let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(i % 3) as usize];
    (i as i32 - 12, bound, Some((i % 7) as u8))
}

/// Whether `e` is exactly what a store of key `i` writes.
fn is_entry_of(e: &Entry, i: u64) -> bool {
    (e.value, e.bound, e.best_move) == entry_of(i)
}

/// Four threads storing and probing the keys of `family` for `time`: every hit must be
/// exactly its key's entry, and enough of the probes must hit.
fn race(family: Family, time: Duration) {
    let table = Table::with_buckets(1, BITS).expect("one bucket of 100-bit keys");
    assert_eq!(table.layout(), Layout::TwoWord);
    let keys: Vec<u128> = (0..KEYS).map(|i| key(family, i)).collect();
    let (hits, probes) = (AtomicU64::new(0), AtomicU64::new(0));
    let stop_at = Instant::now() + time;
    std::thread::scope(|s| {
        for t in 0..4 {
            let (table, keys, hits, probes) = (&table, &keys, &hits, &probes);
            s.spawn(move || {
                let mut rng = Rng(0x5eed_0000 + t);
                let (mut my_hits, mut my_probes) = (0, 0);
                while Instant::now() < stop_at {
                    for _ in 0..4096 {
                        let i = rng.next() % KEYS;
                        let (value, bound, best_move) = entry_of(i);
                        // Work from 1 to 2^20 nodes: every replacement rule gets its turn.
                        let work = 1 << (rng.next() % 21);
                        table.store(keys[i as usize], value, bound, best_move, work);
                        let j = rng.next() % KEYS;
                        my_probes += 1;
                        if let Some(e) = table.probe(keys[j as usize]) {
                            assert!(is_entry_of(&e, j), "{family:?} key {j} read {e:?}");
                            my_hits += 1;
                        }
                    }
                }
                hits.fetch_add(my_hits, Ordering::Relaxed);
                probes.fetch_add(my_probes, Ordering::Relaxed);
            });
        }
    });
    let (hits, probes) = (hits.into_inner(), probes.into_inner());
    // Four slots for 24 keys: about one probe in six hits, and the test looked at them.
    assert!(probes >= 100_000, "{family:?}: only {probes} probes");
    assert!(
        hits * 20 >= probes,
        "{family:?}: {hits} hits of {probes} probes"
    );
}

#[test]
fn two_word_slots_give_no_torn_hit_to_racing_threads() {
    race(Family::SharedHigh, Duration::from_secs(2));
    race(Family::SharedLow, Duration::from_secs(2));
}
