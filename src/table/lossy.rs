//! The lossy table of the check-bits experiment (`crate::experiment`): a one-word table
//! that keeps only `c` check bits of each key, so that distinct positions whose mixed keys
//! share their bucket and their low `c` bits share an entry, at the rate `c` bits give.
//!
//! A lossy table is built only by [`Table::lossy`] (crate-private, called by the
//! experiment alone): no solver builder, engine or front end can ask for one, and the
//! exact table's slots, probes and stores are the ones of `one_word`. The lossy probe and
//! store run the same bucket code with the check masked to `c` bits; the only extra cost of
//! their existence on the exact path is that the table's one layout branch tests a flag
//! that is also set for the lossy layout (`Table::special`).
//!
//! Beside the slots, a lossy table keeps the true key of each slot's entry (one word per
//! slot, tagged so that the empty board's key 0 is told from "none"), so that a hit is
//! known to be true or false. It counts probes, hits, false hits by ply (stones of the
//! probing position less those of the root, from the key: see [`stones_of_key`]), and the
//! exposure: the probes by the number `k` of entries of other positions in the bucket, each
//! of which a `c`-bit check lets through with probability `2^-c`, so that such a probe
//! takes a false hit with probability `1 - (1 - 2^-c)^k` (the birthday estimate). False hits closer to the root than a chosen ply can be refused (taken as
//! misses), which lets the experiment find where the false hits that spoil a root land.
//!
//! The slot and its true key are two words, so each probe and store of a lossy table holds
//! a lock of its bucket (one of [`LOCKS`], by bucket): with two threads a hit is judged on
//! the key of the very entry it read. The exact table has no such lock; its word is its
//! entry.

use super::mix::key_mask;
use super::slot::{field, BOUND_BITS};
use super::{Bound, Entry, Layout, Slot, Table, TableError, SLOTS_PER_BUCKET};
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Plies the false hits are counted by; deeper ones go to the last.
pub(crate) const PLIES: usize = 64;

/// The bucket locks of a lossy table (bucket `b` takes lock `b mod LOCKS`).
pub(crate) const LOCKS: usize = 1024;

/// The tag of a slot's true key (a key of a lossy table has at most 63 bits).
const TAG: u64 = 1 << 63;

/// What a lossy table counted since its last [`Table::lossy_reset`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Probes of the table.
    pub probes: u64,
    /// Probes that matched a slot's check bits.
    pub hits: u64,
    /// Hits on another position's entry.
    pub false_hits: u64,
    /// False hits refused as misses ([`Table::lossy_refuse_below`]).
    pub refused: u64,
    /// The probes by the number of entries of other positions in the probed bucket (index:
    /// that number, 0 to [`SLOTS_PER_BUCKET`]).
    pub exposure: Vec<u64>,
    /// False hits by ply from the root (the last counts the deeper ones too).
    pub by_ply: Vec<u64>,
}

/// The state of a lossy table (see the module docs).
pub(crate) struct Lossy {
    /// The check bits kept: `2^c - 1`.
    check_mask: u64,
    /// The true key of each slot's entry, tagged by [`TAG`], or 0.
    keys: Box<[AtomicU64]>,
    /// Columns and bits per column of the board's keys.
    width: u32,
    h1: u32,
    /// Stones of the position being solved.
    root_stones: AtomicU32,
    /// False hits of fewer plies from the root than this are refused.
    refuse_below: AtomicU32,
    probes: AtomicU64,
    hits: AtomicU64,
    false_hits: AtomicU64,
    refused: AtomicU64,
    exposure: Box<[AtomicU64]>,
    by_ply: Box<[AtomicU64]>,
    /// The bucket locks: a slot and its true key change together.
    locks: Box<[Mutex<()>]>,
}

/// The stones of a position from its key `current + mask` (`width` columns of `h1` bits):
/// a column of `h` stones holds a value in `[2^h - 1, 2^(h+1) - 2]`, so `h` is
/// `floor(log2(v + 1))`. The mirror image's key gives the same count.
pub(crate) fn stones_of_key(key: u64, width: u32, h1: u32) -> u32 {
    let column = (1u64 << h1) - 1;
    (0..width)
        .map(|c| 63 - (((key >> (c * h1)) & column) + 1).leading_zeros())
        .sum()
}

impl Lossy {
    /// The lock of the bucket whose first word is `first`.
    fn lock(&self, first: usize) -> MutexGuard<'_, ()> {
        self.locks[first / SLOTS_PER_BUCKET % LOCKS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Judges a hit on slot `index` by the probing key `key` (`tagged`): the entry when the
    /// slot is that key's or the false hit is taken, `None` when it is refused.
    fn judge(&self, index: usize, tagged: u64, key: u64, e: Entry) -> Option<Entry> {
        self.hits.fetch_add(1, Ordering::Relaxed);
        // ORDERING: Relaxed: the caller holds the bucket's lock.
        if self.keys[index].load(Ordering::Relaxed) == tagged {
            return Some(e);
        }
        let ply = stones_of_key(key, self.width, self.h1)
            .saturating_sub(self.root_stones.load(Ordering::Relaxed));
        self.false_hits.fetch_add(1, Ordering::Relaxed);
        self.by_ply[(ply as usize).min(PLIES - 1)].fetch_add(1, Ordering::Relaxed);
        if ply < self.refuse_below.load(Ordering::Relaxed) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Some(e)
    }
}

impl Table {
    /// The exact check width of a one-word table of `buckets` buckets for keys of
    /// `key_bits` bits: the key bits that the bucket index leaves, `key_bits -
    /// floor(log2 buckets)` (0 when the index alone names the key).
    pub(crate) fn exact_check_bits(buckets: usize, key_bits: u32) -> u32 {
        let index_bits = usize::BITS - 1 - buckets.max(1).leading_zeros();
        key_bits.saturating_sub(index_bits)
    }

    /// A lossy table of `buckets` buckets for the keys of a `width` x `height` board, keeping
    /// `check_bits` check bits (at least the exact width: exact). For the check-bits
    /// experiment only; refused where the exact table would not have one-word slots.
    pub(crate) fn lossy(
        buckets: usize,
        width: usize,
        height: usize,
        check_bits: u32,
    ) -> Result<Table, TableError> {
        let key_bits = crate::position::key_bits(width, height);
        if key_bits >= 64 || Self::layout_for(buckets, key_bits)? != Layout::OneWord {
            return Err(TableError {
                msg: format!(
                    "the check-bits experiment needs one-word slots and keys under 64 bits; \
                     {width}x{height} with {buckets} buckets has neither"
                ),
            });
        }
        let mut table = Self::with_buckets(buckets, key_bits)?;
        let words = buckets * SLOTS_PER_BUCKET;
        let c = check_bits.min(Self::exact_check_bits(buckets, key_bits));
        let zeros = |n: usize| (0..n).map(|_| AtomicU64::new(0)).collect::<Box<[_]>>();
        table.lossy = Some(Box::new(Lossy {
            check_mask: field(c),
            keys: zeros(words),
            width: width as u32,
            h1: height as u32 + 1,
            root_stones: AtomicU32::new(0),
            refuse_below: AtomicU32::new(0),
            probes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            false_hits: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            exposure: zeros(SLOTS_PER_BUCKET + 1),
            by_ply: zeros(PLIES),
            locks: (0..LOCKS).map(|_| Mutex::new(())).collect(),
        }));
        table.special = true;
        Ok(table)
    }

    /// Whether this is a lossy table (the check-bits experiment's, [`Table::lossy`]).
    pub(crate) fn is_lossy(&self) -> bool {
        self.lossy.is_some()
    }

    /// A lossy table's state; `None` for every other table.
    fn lossy_state(&self) -> Option<&Lossy> {
        self.lossy.as_deref()
    }

    /// Starts a lossy table's counts afresh for a solve of a position of `root_stones`
    /// stones. Nothing on other tables.
    pub(crate) fn lossy_reset(&self, root_stones: u32) {
        if let Some(l) = self.lossy_state() {
            l.root_stones.store(root_stones, Ordering::Relaxed);
            for c in [&l.probes, &l.hits, &l.false_hits, &l.refused]
                .into_iter()
                .chain(l.exposure.iter())
                .chain(l.by_ply.iter())
            {
                c.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Makes a lossy table refuse (take as misses) the false hits of fewer than `ply` plies
    /// from the root; 0 refuses none.
    pub(crate) fn lossy_refuse_below(&self, ply: u32) {
        if let Some(l) = self.lossy_state() {
            l.refuse_below.store(ply, Ordering::Relaxed);
        }
    }

    /// What a lossy table counted since [`Table::lossy_reset`]; `None` for other tables.
    pub(crate) fn lossy_tally(&self) -> Option<Tally> {
        let l = self.lossy_state()?;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Some(Tally {
            probes: get(&l.probes),
            hits: get(&l.hits),
            false_hits: get(&l.false_hits),
            refused: get(&l.refused),
            exposure: l.exposure.iter().map(get).collect(),
            by_ply: l.by_ply.iter().map(get).collect(),
        })
    }

    /// Whether the slot word `i` holds an entry.
    fn used(&self, i: usize) -> bool {
        // ORDERING: Relaxed: statistics of an experiment.
        self.slots.get(i).load(Ordering::Relaxed) & field(BOUND_BITS) != 0
    }

    /// [`Table::probe_slot`] on a lossy table: the bucket code of the exact one-word table
    /// with the check cut to `c` bits, then the hit judged against the slot's true key.
    #[inline(never)]
    pub(super) fn probe_slot_lossy(&self, l: &Lossy, key: u64) -> (Option<Entry>, Slot) {
        let key = key & key_mask(self.key_bits);
        let (first, check) = self.locate(key);
        let _bucket = l.lock(first);
        let (hit, mut slot) = self.probe_bucket(first, check & l.check_mask);
        let tagged = key | TAG;
        let others = (first..first + SLOTS_PER_BUCKET)
            .filter(|&i| {
                // ORDERING: Relaxed: statistics of an experiment.
                self.used(i) && l.keys[i].load(Ordering::Relaxed) != tagged
            })
            .count();
        l.probes.fetch_add(1, Ordering::Relaxed);
        l.exposure[others].fetch_add(1, Ordering::Relaxed);
        let entry = hit.and_then(|e| l.judge(slot.index, tagged, key, e));
        // The store that follows writes the slot and its true key.
        slot.check_hi = tagged;
        (entry, slot)
    }

    /// [`Table::store_at`] on a lossy table: the slot's word and its true key.
    #[inline(never)]
    pub(super) fn store_at_lossy(&self, l: &Lossy, slot: Slot, word: u64) {
        let index = slot.index.min(self.slots.len() - 1);
        let _bucket = l.lock(index - index % SLOTS_PER_BUCKET);
        // ORDERING: Relaxed: the bucket's lock orders the slot and its true key.
        l.keys[index].store(slot.check_hi, Ordering::Relaxed);
        self.slots.get(index).store(word, Ordering::Relaxed);
    }

    /// [`Table::store`] on a lossy table.
    #[inline(never)]
    pub(super) fn store_lossy(
        &self,
        l: &Lossy,
        key: u64,
        value: i32,
        bound: Bound,
        best_move: Option<u8>,
        work: u64,
    ) {
        let key = key & key_mask(self.key_bits);
        let (first, check) = self.locate(key);
        let _bucket = l.lock(first);
        let at = self.store_bucket(first, check & l.check_mask, value, bound, best_move, work);
        // ORDERING: Relaxed, under the bucket's lock as in `store_at_lossy`.
        l.keys[at].store(key | TAG, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::stones_of_key;
    use crate::position::{xorshift, Position};

    /// The stones read from a key are the position's, for its key and its mirror image's.
    #[test]
    fn stones_of_key_counts_the_stones() {
        let mut s = 0x5eed_u64;
        for _ in 0..500 {
            let mut p = Position::<7, 6>::new();
            let target = (xorshift(&mut s) % 43) as u32;
            while p.moves() < target && p.play_random_quiet(&mut s) {}
            for key in [p.key(), p.canonical_key().0] {
                assert_eq!(stones_of_key(key, 7, 7), p.moves(), "{p}");
            }
        }
    }
}
