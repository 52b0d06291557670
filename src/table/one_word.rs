//! The one-word layout: probe and store on eight one-word slots per bucket (see
//! [`super::slot`] for why a match is exact).

use super::slot::{
    check_of, field, pack, unpack, BOUND_BITS, GEN_BITS, GEN_SHIFT, WORK_BITS, WORK_SHIFT,
};
use super::{mix, Bound, Entry, Slot, Table, CHECK_BITS, MAX_WORK, SLOTS_PER_BUCKET};
use crate::sync::Ordering;

impl Table {
    /// The first word of the bucket of `key` (one-word layout) and its check bits.
    ///
    /// In range for any key: the bucket is Lemire's multiply-shift `b = (top * buckets) >> 64`
    /// of a 64-bit `top`, and `top < 2^64` makes `b < buckets`, so the bucket's words `8b ..
    /// 8b + 8` are among the table's `8 * buckets`. The probe and store paths index them
    /// unchecked on this argument.
    #[inline]
    pub(super) fn locate(&self, key: u64) -> (usize, u64) {
        let h = mix(key, self.key_bits);
        let b = (((h << (64 - self.key_bits)) as u128 * self.buckets as u128) >> 64) as usize;
        debug_assert!(b < self.buckets);
        (b * SLOTS_PER_BUCKET, h & field(CHECK_BITS))
    }

    /// [`Table::probe_slot`] on one-word slots.
    #[inline]
    pub(super) fn probe_slot_narrow(&self, key: u64) -> (Option<Entry>, Slot) {
        let (first, check) = self.locate(key);
        self.probe_bucket(first, check)
    }

    /// [`Table::probe_slot_narrow`] on the bucket at word `first` for the check bits
    /// `check`: the slot matching `check`, else an empty one, else the one of least worth.
    /// `first` must be what [`Table::locate`] gave for some key.
    #[inline(always)]
    pub(super) fn probe_bucket(&self, first: usize, check: u64) -> (Option<Entry>, Slot) {
        let generation = self.generation() as u64;
        let mut words = [0u64; SLOTS_PER_BUCKET];
        // Per slot, `rank << 3 | j`: rank 0 for the key's own entry, 1 for an empty slot,
        // 2 + worth otherwise; the smallest wins, the first on ties.
        let mut best = u64::MAX;
        for (j, word) in words.iter_mut().enumerate() {
            // SAFETY: `first + j < first + SLOTS_PER_BUCKET <= len` (`first` is from `locate`).
            let slot = unsafe { self.slots.get_unchecked(first + j) };
            // ORDERING: Relaxed: the word is the whole entry, check bits included, and
            // publishes no other memory; atomicity alone keeps it from tearing.
            let w = slot.load(Ordering::Relaxed);
            *word = w;
            let used = w & field(BOUND_BITS) != 0;
            let current = ((w >> GEN_SHIFT) & field(GEN_BITS) == generation) as u64;
            let worth = 2 + ((w >> WORK_SHIFT) & field(WORK_BITS)) + 64 * current;
            let rank = if !used {
                1
            } else if check_of(w) == check {
                0
            } else {
                worth
            };
            best = best.min(rank << 3 | j as u64);
        }
        let j = (best & 7) as usize;
        let entry = if best < 8 { unpack(words[j]) } else { None };
        (
            entry,
            Slot {
                index: first + j,
                check,
                check_hi: 0,
                owner: self.id(),
            },
        )
    }

    /// [`Table::store`] on one-word slots.
    #[inline]
    pub(super) fn store_narrow(
        &self,
        key: u64,
        value: i32,
        bound: Bound,
        best_move: Option<u8>,
        work: u64,
    ) {
        let (first, check) = self.locate(key);
        self.store_bucket(first, check, value, bound, best_move, work);
    }

    /// [`Table::store_narrow`] in the bucket at word `first` under the check bits `check`;
    /// returns the word written. `first` must be what [`Table::locate`] gave for some key.
    #[inline(always)]
    pub(super) fn store_bucket(
        &self,
        first: usize,
        check: u64,
        value: i32,
        bound: Bound,
        best_move: Option<u8>,
        work: u64,
    ) -> usize {
        let generation = self.generation();
        let work_log = (63 - (work | 1).leading_zeros()).min(MAX_WORK) as u8;
        let mut entry = Entry {
            value,
            bound,
            best_move,
            work: work_log,
            generation,
        };
        let mut victim = first;
        let mut victim_worth = u32::MAX;
        for i in first..first + SLOTS_PER_BUCKET {
            // SAFETY: `i < first + SLOTS_PER_BUCKET <= len` (`first` is from `locate`).
            let slot = unsafe { self.slots.get_unchecked(i) };
            // ORDERING: Relaxed, as in `probe`.
            let w = slot.load(Ordering::Relaxed);
            let Some(old) = unpack(w) else {
                if victim_worth > 0 {
                    victim = i;
                    victim_worth = 0;
                }
                continue;
            };
            if check_of(w) == check {
                if entry.best_move.is_none() {
                    entry.best_move = old.best_move;
                }
                victim = i;
                break;
            }
            let worth = 1 + old.work as u32 + if old.generation == generation { 64 } else { 0 };
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        // SAFETY: `victim` is one of the bucket's words, in range as above.
        let slot = unsafe { self.slots.get_unchecked(victim) };
        // ORDERING: Relaxed: one whole-word store; readers need no other memory with it.
        slot.store(pack(check, &entry), Ordering::Relaxed);
        victim
    }
}
