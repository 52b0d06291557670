//! Loom models of the production two-word slots (`fourfold::table`, `Layout::TwoWord`): a
//! slot of 16 bytes, `(low word of h, data)`, loaded and stored as one 128-bit atomic and
//! accepted only when it names the reader's key in all 104 check bits. The table under test
//! is the library's own, built with `--cfg loom` (`src/sync.rs`: loom's atomics, and a loom
//! mutex as the model of the 16-byte atomic), with 100-bit keys in one bucket, so that every
//! key needs two words and every write lands in the same four slots.
//!
//! `torn_xor_pair_attack` is the attack on the scheme the table used before: two
//! `AtomicU64`s written as `(lo ^ data, data)` and checked by XOR. Two writers of keys of one
//! bucket, chosen so that a third key's low word differs from one writer's by the XOR of the
//! two data words, race a reader of that third key. The old scheme (kept below as
//! `XorPairSlot`, the deliberately broken variant) gives the reader a wrong hit; the
//! production table, run on the very same keys and entries, never does.
//!
//! The control keeps the design note's evidence that a plain `(key, data)` pair tears under
//! the same race. Three key families (both words of the mixed hash differ, only the low word
//! differs, only the high word differs) make each check of `pair_matches` necessary:
//! TESTING.md records which model fails when which check is removed.

use fourfold::table::{mix128, unmix128, Bound, Entry, Layout, Table};
use fourfold_loom_tests::model_bounded;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Preemptions per execution: a tear needs one (the control finds it with 2); 3 takes
/// minutes on the models of the whole bucket.
const PREEMPTIONS: usize = 2;

/// Key width of the models: more than one word can identify with one bucket.
const WIDE_BITS: u32 = 100;

/// The 100-bit key of tag `i` (high and low words both vary with it).
fn key(i: u64) -> u128 {
    (i as u128) << 90 | (i as u128) << 40 | i as u128
}

/// The 100-bit key of tag `i` whose mixed hash has the same high word (bits 64..100) for
/// every `i`: only the low word tells these keys apart, so a probe that did not compare word
/// 0 with the low word of its own `h` would take one for another.
fn key_shared_high(i: u64) -> u128 {
    const HIGH: u128 = 0xa_5a5a_5a5a; // 36 bits
    let low = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) as u128;
    let k = unmix128(HIGH << 64 | low, WIDE_BITS);
    assert_eq!(mix128(k, WIDE_BITS) >> 64, HIGH, "tag {i}");
    k
}

/// The 100-bit key of tag `i` whose mixed hash has the same low word for every `i`: only
/// the high check bits tell these keys apart, so a probe that skipped them would take one
/// for another.
fn key_shared_low(i: u64) -> u128 {
    const LOW: u128 = 0x0123_4567_89ab_cdef;
    let high = (i.wrapping_mul(0x9e37_79b9) & 0xf_ffff_ffff) as u128; // 36 bits
    let k = unmix128(high << 64 | LOW, WIDE_BITS);
    assert_eq!(mix128(k, WIDE_BITS) as u64 as u128, LOW, "tag {i}");
    k
}

/// The entry written for tag `i` and variant `v`, so that a read-back entry names both.
fn entry(i: u64, v: u64) -> Entry {
    Entry {
        value: (i * 4 + v) as i32 - 32,
        bound: [Bound::Upper, Bound::Lower, Bound::Exact][(i % 3) as usize],
        best_move: Some(((i + v) % 12) as u8),
        work: 3,
        generation: 0,
    }
}

fn store(t: &Table, key: fn(u64) -> u128, i: u64, v: u64) {
    let e = entry(i, v);
    t.store(key(i), e.value, e.bound, e.best_move, 1 << e.work);
}

/// A one-bucket two-word table.
fn wide_table() -> Arc<Table> {
    let t = Table::with_buckets(1, WIDE_BITS).expect("one bucket of 100-bit keys");
    assert_eq!(t.layout(), Layout::TwoWord);
    Arc::new(t)
}

/// Asserts that a probe of tag `i` finds nothing or one of the entries written for it with
/// the variants `vs`: never another key's entry, never a mix of two writes.
fn assert_probe(t: &Table, key: fn(u64) -> u128, i: u64, vs: &[u64]) {
    if let Some(got) = t.probe(key(i)) {
        assert!(
            vs.iter().any(|&v| entry(i, v) == got),
            "mixed read: key {i} returned {got:?}"
        );
    }
}

/// Two writers of different keys write the same slot (each chose it while it was empty,
/// as the search's probe-then-store does) while a reader probes both keys.
#[test]
fn different_keys_writing_one_slot_never_mix() {
    different_keys_model(key);
}

/// As above, with keys whose mixed hashes share the high word: the `word0 ^ word1` check
/// alone tells them apart.
#[test]
fn keys_sharing_the_high_word_writing_one_slot_never_mix() {
    different_keys_model(key_shared_high);
}

/// As above, with keys whose mixed hashes share the low word: the high check bits alone
/// tell them apart.
#[test]
fn keys_sharing_the_low_word_writing_one_slot_never_mix() {
    different_keys_model(key_shared_low);
}

fn different_keys_model(key: fn(u64) -> u128) {
    model_bounded(PREEMPTIONS, move || {
        let t = wide_table();
        let slots = [t.probe_slot(key(1)).1, t.probe_slot(key(2)).1];
        let writers: Vec<_> = [1u64, 2]
            .into_iter()
            .zip(slots)
            .map(|(i, slot)| {
                let t = Arc::clone(&t);
                thread::spawn(move || {
                    let e = entry(i, 0);
                    t.store_at(slot, e.value, e.bound, e.best_move, 1 << e.work);
                })
            })
            .collect();
        let reader = {
            let t = Arc::clone(&t);
            thread::spawn(move || {
                assert_probe(&t, key, 1, &[0]);
                assert_probe(&t, key, 2, &[0]);
            })
        };
        for h in writers {
            h.join().unwrap();
        }
        reader.join().unwrap();
        // After both, at most one of them is found (the slot may be left torn, a miss).
        let found = [1, 2]
            .iter()
            .filter(|&&i| t.probe(key(i)).is_some())
            .count();
        assert!(found <= 1);
        assert_probe(&t, key, 1, &[0]);
        assert_probe(&t, key, 2, &[0]);
    });
}

/// Two writers of the same key with different entries race a reader: it sees one entry
/// whole or nothing.
#[test]
fn same_key_writers_never_mix() {
    model_bounded(PREEMPTIONS, || {
        let t = wide_table();
        // Both chose the key's slot before writing, as the search's probe-then-store does.
        let slot = t.probe_slot(key(5)).1;
        let writers: Vec<_> = [0u64, 1]
            .into_iter()
            .map(|v| {
                let t = Arc::clone(&t);
                thread::spawn(move || {
                    let e = entry(5, v);
                    t.store_at(slot, e.value, e.bound, e.best_move, 1 << e.work);
                })
            })
            .collect();
        let reader = {
            let t = Arc::clone(&t);
            thread::spawn(move || assert_probe(&t, key, 5, &[0, 1]))
        };
        for h in writers {
            h.join().unwrap();
        }
        reader.join().unwrap();
        assert_probe(&t, key, 5, &[0, 1]);
    });
}

/// A full bucket (four keys), a new key evicting one while a reader probes the evicted
/// key and the new one.
#[test]
fn eviction_in_a_full_bucket_never_mixes() {
    eviction_model(key);
}

/// As above, with keys whose mixed hashes share the high word.
#[test]
fn eviction_of_keys_sharing_the_high_word_never_mixes() {
    eviction_model(key_shared_high);
}

/// As above, with keys whose mixed hashes share the low word.
#[test]
fn eviction_of_keys_sharing_the_low_word_never_mixes() {
    eviction_model(key_shared_low);
}

fn eviction_model(key: fn(u64) -> u128) {
    model_bounded(PREEMPTIONS, move || {
        let t = wide_table();
        for i in 1..=4 {
            store(&t, key, i, 0);
        }
        (1..=4).for_each(|i| assert!(t.probe(key(i)).is_some()));
        // `fill` reads every slot through the checked access (`Slots::get_pair`): four of four.
        assert_eq!(t.fill(), 1.0);
        let writer = {
            let t = Arc::clone(&t);
            thread::spawn(move || store(&t, key, 9, 0))
        };
        let reader = {
            let t = Arc::clone(&t);
            thread::spawn(move || {
                for i in [9, 1, 2] {
                    assert_probe(&t, key, i, &[0]);
                }
            })
        };
        writer.join().unwrap();
        reader.join().unwrap();
        assert_eq!(t.probe(key(9)), Some(entry(9, 0)));
        assert_eq!(t.fill(), 1.0);
        // `clear` empties the two-word slots too.
        t.clear();
        assert_eq!(t.fill(), 0.0);
        assert_eq!(t.probe(key(9)), None);
    });
}

/// The control: two words `(key, data)` with no XOR, as a stand-in slot (not library code).
#[derive(Default)]
struct PlainTwoWords {
    key: AtomicU64,
    data: AtomicU64,
}

impl PlainTwoWords {
    fn store(&self, key: u64, data: u64) {
        self.key.store(key, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
    fn probe(&self, key: u64) -> Option<u64> {
        (self.key.load(Ordering::Relaxed) == key).then(|| self.data.load(Ordering::Relaxed))
    }
}

/// Without the XOR, loom finds a reader that pairs one writer's key with the other's data.
#[test]
#[should_panic(expected = "mixed read")]
fn plain_two_word_slot_tears() {
    const WRITES: [(u64, u64); 2] = [(1, 0x0100), (2, 0x2000)];
    model_bounded(PREEMPTIONS, || {
        let slot = Arc::new(PlainTwoWords::default());
        let writers: Vec<_> = WRITES
            .into_iter()
            .map(|(key, data)| {
                let slot = Arc::clone(&slot);
                thread::spawn(move || slot.store(key, data))
            })
            .collect();
        let reader = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || {
                for (key, data) in WRITES {
                    if let Some(got) = slot.probe(key) {
                        assert_eq!(got, data, "mixed read: key {key} returned {got:#x}");
                    }
                }
            })
        };
        for h in writers {
            h.join().unwrap();
        }
        reader.join().unwrap();
    });
}

/// The slot layout of word 1 (the module docs of `fourfold::table`, "Slot layout"): the
/// data word an entry for a key with high check bits `hi` gets, as `Table::store` packs it.
fn data_word(hi: u64, e: &Entry) -> u64 {
    hi << 24
        | (e.generation as u64) << 19
        | (e.work as u64) << 13
        | e.best_move.map_or(0, |m| m as u64 + 1) << 9
        | ((e.value + 64) as u64) << 2
        | e.bound as u64
}

/// The three keys of the attack and the entries the two writers store. The reader's key
/// `a` is never stored. Writer `y`'s key shares `a`'s high check bits; writer `x`'s low word
/// is `a`'s XOR the two data words. So word 0 of `x`'s write with word 1 of `y`'s passes the
/// old XOR check for `a`, carrying `y`'s entry.
struct Attack {
    a: u128,
    x: (u128, Entry),
    y: (u128, Entry),
}

fn attack() -> Attack {
    const HI: u64 = 0x5_1234_5678; // 36 bits: bits 64..100 of a 100-bit mixed key
    const LO_A: u64 = 0x0123_4567_89ab_cdef;
    let (ex, ey) = (entry(1, 0), entry(2, 0));
    let (hi_x, lo_y) = (0x9_8765_4321u64, 0xfedc_ba98_7654_3210u64);
    let (dx, dy) = (data_word(hi_x, &ex), data_word(HI, &ey));
    let lo_x = LO_A ^ dx ^ dy;
    let key = |hi: u64, lo: u64| unmix128((hi as u128) << 64 | lo as u128, WIDE_BITS);
    Attack {
        a: key(HI, LO_A),
        x: (key(hi_x, lo_x), ex),
        y: (key(HI, lo_y), ey),
    }
}

/// The two-word slot of the old table, kept as the deliberately broken variant: two
/// `AtomicU64`s, `(lo ^ data, data)`, accepted when they XOR back to the reader's low word
/// and word 1's check field is its high bits (the old `write_pair`, `read_pair`,
/// `pair_matches`).
#[derive(Default)]
struct XorPairSlot {
    w0: AtomicU64,
    w1: AtomicU64,
}

impl XorPairSlot {
    fn write(&self, key: u128, e: &Entry) {
        let h = mix128(key, WIDE_BITS);
        let data = data_word((h >> 64) as u64, e);
        self.w0.store(h as u64 ^ data, Ordering::Relaxed);
        self.w1.store(data, Ordering::Relaxed);
    }

    /// The data word read for `key`, if the pair passes the old check.
    fn read(&self, key: u128) -> Option<u64> {
        let h = mix128(key, WIDE_BITS);
        let w0 = self.w0.load(Ordering::Relaxed);
        let w1 = self.w1.load(Ordering::Relaxed);
        (w1 & 3 != 0 && w0 ^ w1 == h as u64 && w1 >> 24 == (h >> 64) as u64).then_some(w1)
    }
}

/// The broken variant: loom finds the interleaving in which the reader of the never-stored
/// key `a` takes writer `y`'s entry (word 0 from `x`, word 1 from `y`). This must panic.
#[test]
#[should_panic(expected = "wrong hit")]
fn torn_xor_pair_attack_breaks_the_old_scheme() {
    model_bounded(PREEMPTIONS, || {
        let at = attack();
        let slot = Arc::new(XorPairSlot::default());
        let writers: Vec<_> = [at.x, at.y]
            .into_iter()
            .map(|(k, e)| {
                let slot = Arc::clone(&slot);
                thread::spawn(move || slot.write(k, &e))
            })
            .collect();
        if let Some(w1) = slot.read(at.a) {
            panic!("wrong hit: key a (never stored) read data word {w1:#x}");
        }
        for h in writers {
            h.join().unwrap();
        }
    });
}

/// The same attack on the production table: both writers chose slot 0 while it was empty
/// (probe-then-store, as the search does) and the reader probes `a`, `x` and `y`. A 16-byte
/// slot is one write's, so `a` is always a miss and `x`, `y` find their own entries or
/// nothing.
#[test]
fn torn_xor_pair_attack_is_a_miss_on_the_table() {
    model_bounded(PREEMPTIONS, || {
        let at = attack();
        let t = wide_table();
        let writers: Vec<_> = [at.x, at.y]
            .into_iter()
            .map(|(k, e)| {
                let t = Arc::clone(&t);
                let slot = t.probe_slot(k).1;
                thread::spawn(move || t.store_at(slot, e.value, e.bound, e.best_move, 1 << e.work))
            })
            .collect();
        if let Some(got) = t.probe(at.a) {
            panic!("wrong hit: key a (never stored) returned {got:?}");
        }
        for (k, e) in [at.x, at.y] {
            if let Some(got) = t.probe(k) {
                assert_eq!(got, e, "mixed read");
            }
        }
        for h in writers {
            h.join().unwrap();
        }
        assert_eq!(t.probe(at.a), None);
    });
}
