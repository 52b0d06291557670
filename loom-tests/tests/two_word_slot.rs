//! The design note's argument for XOR verification, as loom models of a stand-alone slot (not
//! library code): a slot of two atomic words written as `(key, data)` lets a reader pair one
//! write's key with another write's data; written as `(key ^ data, data)` and accepted only
//! when `word0 ^ word1 == key`, a torn read is a miss; a slot of one packed word cannot tear.
//! The production table uses the one-word layout (see `tests/table.rs`).

use fourfold_loom_tests::model_bounded;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Preemptions per execution: the tear needs one; 3 keeps this file near 7 s (4 takes 30 s).
const PREEMPTIONS: usize = 3;

/// The (key, data) pairs the racing writers store; no data is zero (the empty slot's data)
/// and no key is zero (the empty slot's key).
const WRITES: [(u64, u64); 2] = [(1, 0x0100), (2, 0x2000)];

/// A slot layout under test.
trait Slot: Default + Send + Sync + 'static {
    fn store(&self, key: u64, data: u64);
    fn probe(&self, key: u64) -> Option<u64>;
}

/// Two words, key then data, with no verification beyond the key word.
#[derive(Default)]
struct PlainTwoWords {
    key: AtomicU64,
    data: AtomicU64,
}

impl Slot for PlainTwoWords {
    fn store(&self, key: u64, data: u64) {
        self.key.store(key, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
    fn probe(&self, key: u64) -> Option<u64> {
        (self.key.load(Ordering::Relaxed) == key).then(|| self.data.load(Ordering::Relaxed))
    }
}

/// Two words, `key ^ data` then `data`, accepted only when they XOR back to the key.
#[derive(Default)]
struct XorTwoWords {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot for XorTwoWords {
    fn store(&self, key: u64, data: u64) {
        self.check.store(key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
    fn probe(&self, key: u64) -> Option<u64> {
        let check = self.check.load(Ordering::Relaxed);
        let data = self.data.load(Ordering::Relaxed);
        (check ^ data == key).then_some(data)
    }
}

/// One word: key in the high half, data in the low half, as the production table packs it.
#[derive(Default)]
struct OneWord(AtomicU64);

impl Slot for OneWord {
    fn store(&self, key: u64, data: u64) {
        self.0.store(key << 32 | data, Ordering::Relaxed);
    }
    fn probe(&self, key: u64) -> Option<u64> {
        let w = self.0.load(Ordering::Relaxed);
        (w >> 32 == key).then_some(w & 0xffff_ffff)
    }
}

/// Two writers store different keys into one slot of layout `S` while a reader probes both
/// keys; panics with "mixed read" if a probe returns data stored with another key.
fn race<S: Slot>() {
    model_bounded(PREEMPTIONS, || {
        let slot = Arc::new(S::default());
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

/// Without the XOR, loom finds a reader that pairs one writer's key with the other's data.
#[test]
#[should_panic(expected = "mixed read")]
fn plain_two_word_slot_tears() {
    race::<PlainTwoWords>();
}

/// With the XOR, no interleaving or stale read makes a probe return another key's data.
#[test]
fn xor_two_word_slot_never_tears() {
    race::<XorTwoWords>();
}

/// A single packed word, read and written whole, needs no XOR to never tear.
#[test]
fn one_word_slot_never_tears() {
    race::<OneWord>();
}
