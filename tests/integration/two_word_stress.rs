//! The real 16-byte slots under racing threads: what loom cannot check (its model of the
//! 16-byte atomic is a mutex, so a torn access cannot happen there), checked on the CPU.
//!
//! One bucket of a two-word table (100-bit keys), so every store of every thread lands in
//! the same four slots. The keys all share the high word of their mixed hash, which the
//! slot's data word carries as its check bits: a slot torn between two writes (word 0 of one
//! key's, the data word of another's) would pass every check for the first key and carry
//! the second key's entry. Each key's entry is a function of the key, so any hit that is not
//! exactly that entry is such a tear, or a wrong hit of any other kind.

use crate::common::Rng;
use fourfold::table::{mix128, unmix128, Bound, Entry, Layout, Table};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Key width: more than one word, so one bucket is enough for a two-word table.
const BITS: u32 = 100;
/// Keys racing for the bucket's four slots.
const KEYS: u64 = 24;

/// The key of tag `i`: its mixed hash is `HIGH << 64 | low(i)`, so only word 0 tells two
/// keys apart.
fn key(i: u64) -> u128 {
    const HIGH: u128 = 0xa_5a5a_5a5a;
    let low = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) as u128;
    let k = unmix128(HIGH << 64 | low, BITS);
    assert_eq!(mix128(k, BITS) >> 64, HIGH, "tag {i}");
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

#[test]
fn two_word_slots_give_no_torn_hit_to_racing_threads() {
    let table = Table::with_buckets(1, BITS).expect("one bucket of 100-bit keys");
    assert_eq!(table.layout(), Layout::TwoWord);
    let threads = 4;
    let (hits, probes) = (AtomicU64::new(0), AtomicU64::new(0));
    let stop_at = Instant::now() + Duration::from_secs(3);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (table, hits, probes) = (&table, &hits, &probes);
            s.spawn(move || {
                let mut rng = Rng(0x5eed_0000 + t);
                let (mut my_hits, mut my_probes) = (0, 0);
                while Instant::now() < stop_at {
                    for _ in 0..4096 {
                        let i = rng.next() % KEYS;
                        let (value, bound, best_move) = entry_of(i);
                        // Work from 1 to 2^20 nodes: every replacement rule gets its turn.
                        let work = 1 << (rng.next() % 21);
                        table.store(key(i), value, bound, best_move, work);
                        let j = rng.next() % KEYS;
                        my_probes += 1;
                        if let Some(e) = table.probe(key(j)) {
                            assert!(is_entry_of(&e, j), "key {j} read {e:?}");
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
    assert!(probes >= 100_000, "only {probes} probes");
    assert!(hits * 20 >= probes, "{hits} hits of {probes} probes");
}
