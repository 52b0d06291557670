//! The two-word layout: probe and store on 16-byte slots, for keys of more than 64 bits
//! or tables with too few buckets for one word.
//!
//! # Two-word slots
//!
//! For keys of more than 64 bits, or too few buckets, the key is mixed by a bijection on
//! `[0, 2^K)` of `u128` words (`mix128`, same steps), the bucket is the same multiply-shift
//! on the top 64 bits of `h << (128 - K)`, and a slot is 16 bytes keeping `h mod 2^104`:
//!
//! ```text
//! bits 127..64, word 1 (data): | check_hi: bits 64..104 of h (40) | gen | work | move | value | bnd |
//! bits  63..0,  word 0:        low 64 bits of h
//! ```
//!
//! Word 1 is packed exactly as a one-word slot, with `check_hi` in the check field. The slot
//! is one `AtomicU128` (`portable-atomic`), loaded whole and stored whole, never by halves
//! (`fill` and `clear` included: the memory of a two-word table is never touched by 8-byte
//! accesses). A reader accepts a slot only when word 1 holds an entry, word 0 is the low 64
//! bits of its `h` and word 1's check field is bits 64..104 of it. Why a hit is exact under
//! any interleaving of any number of readers and writers:
//!
//! 1. **Whole-slot atomicity.** Every load of a slot returns the 128 bits of one store to it
//!    (or its initial zeros): a 16-byte atomic has no torn reads. So both words come from
//!    one write, and that write put its own key's `h mod 2^104` next to its own entry.
//! 2. **The check bits.** The reader compares all 104 of them: the slot names the reader's
//!    `h mod 2^104` exactly, or it is a miss.
//! 3. **The key mix.** The `h` of one bucket form an interval of at most `2^(K - i)` integers
//!    (the top 64 bits of `h << (128 - K)` form one of at most `ceil(2^64 / n)`, each covering
//!    `2^(K - 64)` values of `h` when `K > 64`); no two integers of such an interval share
//!    their low 104 bits when `K - i <= 104`, which [`Table::new`] ensures, and `mix128` is a
//!    bijection. So `(bucket, h mod 2^104)` names one key: the one the reader asked for.
//!
//! A hit is therefore an entry some thread wrote for exactly this key; a race costs at most a
//! miss or an overwritten entry. There is no probability in the argument.
//!
//! An earlier version of the table made a slot two `AtomicU64`s written as `(lo ^ data,
//! data)` and checked by XOR (the lock-free scheme of Hyatt and Mann). A load could then take word 0 of one write
//! and word 1 of another, and that pair passed when word 1 was written for a key sharing the
//! reader's 40 high check bits and word 0 for a key whose low word differed from the
//! reader's by the XOR of the two data words: rare (the keys of one bucket share their top
//! bits, so about 2^-(K - i) per torn read), but not never.
//! `loom-tests/tests/two_word_slot.rs` keeps that old scheme as a broken variant and shows
//! loom finding exactly this wrong hit, which the 16-byte slots refuse.
//!
//! **What the 16-byte atomics compile to** (`portable-atomic` 1.x on x86_64): without
//! `cmpxchg16b` among the compile-time target features (the default `x86_64` target has
//! neither it nor AVX), each load and store is an indirect call chosen on first use by
//! `cpuid` ("outline atomics"): a `vmovdqa` when the CPU has AVX (Intel and AMD document
//! aligned 16-byte AVX accesses as atomic), else `lock cmpxchg16b`, else a lock-based
//! fallback that is still atomic but not lock-free. On this project's machines (AMD EPYC
//! with AVX and `cx16`) that is `vmovdqa` behind one indirect call. With `-C
//! target-feature=+cmpxchg16b,+avx` (or a `target-cpu` that has them) the call is inlined
//! to a bare `vmovdqa`; the project does not set it (BENCHMARKS.md, "16-byte table slots",
//! measures the default build). The one-word layout (every board up to 54 key bits, 7 x 6
//! included) is untouched.
//!
//! **Lock-free on every build that accepts it.** A table refuses the two-word layout where
//! `AtomicU128::is_lock_free()` is false (`check_lock_free`: on x86-64 a CPU without
//! `cx16`, none made since about 2008), with an error that names the missing instruction,
//! so the lock-based fallback is never used. The one-word layout needs only 8-byte atomics,
//! lock-free on every 64-bit target.

use super::slot::{
    check_of, field, pack, unpack, BOUND_BITS, GEN_BITS, GEN_SHIFT, WORK_BITS, WORK_SHIFT,
};
use super::{
    mix128, Bound, Entry, Slot, Table, TableError, CHECK_BITS, MAX_WORK, WIDE_SLOTS_PER_BUCKET,
};
use crate::sync::{AtomicU128, Ordering};

/// Refuses the two-word layout where its 16-byte atomics would not be lock-free.
///
/// `portable-atomic` picks them at run time on a build without `cmpxchg16b` among its
/// target features (the default `x86_64` target): `vmovdqa` on a CPU with AVX, `lock
/// cmpxchg16b` on one with only `cx16`, and else a global lock table. The last would keep
/// every access atomic but make the table blocking, and the table is lock-free on every
/// build that accepts it: such a CPU gets a clear error instead. On targets with native
/// 16-byte atomics (aarch64, x86_64 with `cmpxchg16b`) this is always true.
pub(super) fn check_lock_free(key_bits: u32) -> Result<(), TableError> {
    if AtomicU128::is_lock_free() {
        Ok(())
    } else {
        Err(TableError {
            msg: format!(
                "this CPU has no lock-free 16-byte atomic (on x86-64 the cmpxchg16b \
                 instruction, CPUID flag cx16), which the two-word slots of {key_bits}-bit \
                 keys in a table of this size need (keys of up to 64 bits get one-word slots \
                 in a large enough table)"
            ),
        })
    }
}

impl Table {
    /// The first pair of the bucket of `key`, the low 64 bits of its mixed key and bits
    /// 64..104 of it (two-word layout; see the module docs). In range for any key, as in
    /// [`Table::locate`]: `b < buckets` from a 64-bit `top`, so the pairs `4b .. 4b + 4` are
    /// among the table's `4 * buckets`.
    #[inline]
    pub(super) fn locate_wide(&self, key: u128) -> (usize, u64, u64) {
        let k = self.key_bits;
        let h = mix128(key, k);
        let top = if k <= 64 {
            (h as u64) << (64 - k)
        } else {
            (h >> (k - 64)) as u64
        };
        let b = ((top as u128 * self.buckets as u128) >> 64) as usize;
        debug_assert!(b < self.buckets);
        (
            b * WIDE_SLOTS_PER_BUCKET,
            h as u64,
            (h >> 64) as u64 & field(CHECK_BITS),
        )
    }

    /// Loads the two words `(word 0, word 1)` of a two-word slot in one 16-byte atomic load.
    #[inline]
    pub(super) fn read_pair(pair: &AtomicU128) -> (u64, u64) {
        // ORDERING: Relaxed: the 16 bytes are the whole entry, key check included, and
        // publish no other memory; atomicity alone makes them one write's (module docs).
        let v = pair.load(Ordering::Relaxed);
        (v as u64, (v >> 64) as u64)
    }

    /// True when the words `(w0, w1)` of a two-word slot hold an entry for the key whose
    /// mixed low bits are `lo` and high check bits `hi`.
    #[inline]
    pub(super) fn pair_matches(w0: u64, w1: u64, lo: u64, hi: u64) -> bool {
        w1 & field(BOUND_BITS) != 0 && w0 == lo && check_of(w1) == hi
    }

    /// Writes an entry into a two-word slot as `(lo, data)` in one 16-byte atomic store.
    #[inline]
    pub(super) fn write_pair(pair: &AtomicU128, lo: u64, hi: u64, entry: &Entry) {
        let data = pack(hi, entry);
        // ORDERING: Relaxed: one whole-slot store (see `read_pair`); it publishes nothing
        // else.
        pair.store((data as u128) << 64 | lo as u128, Ordering::Relaxed);
    }

    /// [`Table::probe_slot`] on two-word slots.
    #[inline(never)]
    pub(super) fn probe_slot_wide(&self, key: u128) -> (Option<Entry>, Slot) {
        let (first, lo, hi) = self.locate_wide(key);
        let generation = self.generation() as u64;
        let mut best = u64::MAX;
        let mut found = None;
        for j in 0..WIDE_SLOTS_PER_BUCKET {
            // SAFETY: `first + j < first + WIDE_SLOTS_PER_BUCKET <= len / 2` (`locate_wide`).
            let (w0, w1) = Self::read_pair(unsafe { self.slots.get_pair_unchecked(first + j) });
            let used = w1 & field(BOUND_BITS) != 0;
            let current = ((w1 >> GEN_SHIFT) & field(GEN_BITS) == generation) as u64;
            let worth = 2 + ((w1 >> WORK_SHIFT) & field(WORK_BITS)) + 64 * current;
            let rank = if Self::pair_matches(w0, w1, lo, hi) {
                0
            } else if !used {
                1
            } else {
                worth
            };
            if rank << 3 | (j as u64) < best {
                best = rank << 3 | j as u64;
                if rank == 0 {
                    found = unpack(w1);
                }
            }
        }
        let j = (best & 7) as usize;
        (
            found,
            Slot {
                index: first + j,
                check: lo,
                check_hi: hi,
                owner: self.id(),
            },
        )
    }

    /// [`Table::store`] on two-word slots.
    #[inline(never)]
    pub(super) fn store_wide(
        &self,
        key: u128,
        value: i32,
        bound: Bound,
        best_move: Option<u8>,
        work: u64,
    ) {
        let (found, slot) = self.probe_slot_wide(key);
        let entry = Entry {
            value,
            bound,
            best_move: best_move.or(found.and_then(|e| e.best_move)),
            work: (63 - (work | 1).leading_zeros()).min(MAX_WORK) as u8,
            generation: self.generation(),
        };
        // SAFETY: the slot is one of the bucket `probe_slot_wide` just located, in range as
        // there.
        let pair = unsafe { self.slots.get_pair_unchecked(slot.index) };
        Self::write_pair(pair, slot.check, slot.check_hi, &entry);
    }
}
