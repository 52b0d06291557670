//! The slot layouts: how an entry is packed into a slot word, and why a slot that matches
//! a key is that key's entry.
//!
//! # Why a hit is never wrong (one-word slots)
//!
//! Every slot is one `AtomicU64`, loaded whole and stored whole, so a reader sees either a
//! word some thread wrote entirely or zero. A word identifies its key exactly:
//!
//! 1. The exact key `uid < 2^K` (`K = key_bits`, 49 on 7 x 6) is mixed by [`mix`], a chain of
//!    invertible steps on `[0, 2^K)` (xor-shifts and multiplications by odd constants modulo
//!    `2^K`): a bijection, so `h = mix(uid)` never merges two positions.
//! 2. The bucket is Lemire's multiply-shift `b = ((h << (64 - K)) * n) >> 64`
//!    (`= floor(h * n / 2^K)`), which works for any number `n` of buckets. The `h` that land
//!    in bucket `b` form one interval of at most `ceil(2^K / n)` integers.
//! 3. A slot keeps `check = h mod 2^CHECK_BITS`. No two integers of an interval of length
//!    `<= 2^CHECK_BITS` share their low `CHECK_BITS` bits, so `(b, check)` pins down `h`, hence
//!    `uid`, as soon as `2^CHECK_BITS >= ceil(2^K / n)`, which holds when
//!    `floor(log2 n) >= K - CHECK_BITS`. [`Table::new`] refuses any size that breaks this.
//!
//! So a race or a collision can cost a miss (an entry overwritten), never a wrong value.
//!
//! # Slot layout
//!
//! ```text
//!  63                                      24 23   19 18  13 12   9 8      2 1  0
//! +------------------------------------------+-------+------+------+--------+----+
//! |          check: low 40 bits of h         |  gen  | work | move | value  |bnd |
//! +------------------------------------------+-------+------+------+--------+----+
//! ```
//!
//! - `bnd` (2 bits): 0 empty, 1 upper bound, 2 lower bound, 3 exact. An all-zero word is
//!   never an entry.
//! - `value` (7 bits): the score plus 64, so scores `-64..=63` (every board of at most 64
//!   cells has `|score| <= 32`).
//! - `move` (4 bits): best column plus one, 0 for none (boards of up to 15 columns).
//! - `work` (6 bits): `floor(log2)` of the nodes the entry's search took; the replacement
//!   rule keeps expensive entries.
//! - `gen` (5 bits): the generation of the solve that wrote it; see [`Table::new_generation`].
//!
//! The `const` assertions below prove that the fields tile the 64 bits exactly and that the
//! smallest table (1 MiB) leaves enough check bits for the default 7 x 6 key.
//!

use super::SLOTS_PER_BUCKET;

pub(super) const BOUND_BITS: u32 = 2;
pub(super) const VALUE_BITS: u32 = 7;
pub(super) const MOVE_BITS: u32 = 4;
pub(super) const WORK_BITS: u32 = 6;
pub(super) const GEN_BITS: u32 = 5;
/// Bits of the mixed key kept in a slot.
pub const CHECK_BITS: u32 = 40;
/// Bits of the mixed key kept in a two-word slot: 64 in word 0, [`CHECK_BITS`] in word 1.
pub const WIDE_CHECK_BITS: u32 = 64 + CHECK_BITS;
/// Two-word slots per bucket (one cache line).
pub const WIDE_SLOTS_PER_BUCKET: usize = SLOTS_PER_BUCKET / 2;
/// The widest key a table takes (a `u128` bitboard).
pub const MAX_KEY_BITS: u32 = 128;

pub(super) const BOUND_SHIFT: u32 = 0;
pub(super) const VALUE_SHIFT: u32 = BOUND_SHIFT + BOUND_BITS;
pub(super) const MOVE_SHIFT: u32 = VALUE_SHIFT + VALUE_BITS;
pub(super) const WORK_SHIFT: u32 = MOVE_SHIFT + MOVE_BITS;
pub(super) const GEN_SHIFT: u32 = WORK_SHIFT + WORK_BITS;
pub(super) const CHECK_SHIFT: u32 = GEN_SHIFT + GEN_BITS;

pub(super) const VALUE_OFFSET: i32 = 1 << (VALUE_BITS - 1);
/// The largest work value a slot can hold.
pub const MAX_WORK: u32 = (1 << WORK_BITS) - 1;
/// Generations wrap modulo this.
pub const GENERATIONS: u32 = 1 << GEN_BITS;

pub(super) const fn field(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

// A slot's index within its bucket fits the 3 low bits of `probe_slot`'s ranking.
const _: () = assert!(SLOTS_PER_BUCKET == 8);
// The fields tile the word exactly.
const _: () = assert!(CHECK_SHIFT + CHECK_BITS == 64);
// Scores of every board the position layout allows fit the value field: a key of at most 128
// bits means `W * H < 128` cells, so `|score| <= W * H / 2 < 64`.
const _: () = assert!(MAX_KEY_BITS as i32 / 2 <= VALUE_OFFSET && VALUE_OFFSET >= 32);
// Columns of every board the move-string format allows (<= 12) fit the move field.
const _: () = assert!(12 < field(MOVE_BITS));
// A two-word slot is two words of a bucket's eight: a bucket stays one 64-byte line.
const _: () = assert!(WIDE_SLOTS_PER_BUCKET * 2 == SLOTS_PER_BUCKET && WIDE_SLOTS_PER_BUCKET <= 8);
// Word 1 of a two-word slot keeps `WIDE_CHECK_BITS - 64` bits of `h` in the one-word check
// field, so the two words hold `h mod 2^WIDE_CHECK_BITS` exactly.
const _: () = assert!(WIDE_CHECK_BITS - 64 == CHECK_BITS);
// The smallest table (2^14 buckets) identifies every key of at most 118 bits in two words.
const _: () = assert!(14 + WIDE_CHECK_BITS >= 118);
// The smallest table (1 MiB = 2^14 buckets) identifies a 7 x 6 key (49 bits) exactly.
const _: () = assert!(14 + CHECK_BITS >= crate::position::key_bits(7, 6));

/// Which side of the true score a stored value bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is at most the value.
    Upper = 1,
    /// The score is at least the value.
    Lower = 2,
    /// The score is the value.
    Exact = 3,
}

/// One entry read back from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The stored score (a bound or exact, see `bound`).
    pub value: i32,
    /// What `value` says about the score.
    pub bound: Bound,
    /// The best column (0-based) the search found, if any.
    pub best_move: Option<u8>,
    /// `floor(log2(nodes))` of the search that produced the entry.
    pub work: u8,
    /// The generation that wrote it.
    pub generation: u8,
}

/// Packs an entry into a slot word. `check` must be below `2^CHECK_BITS`.
#[inline]
pub(crate) fn pack(check: u64, e: &Entry) -> u64 {
    debug_assert!(check < (1u64 << CHECK_BITS));
    debug_assert!((-VALUE_OFFSET..VALUE_OFFSET).contains(&e.value));
    (check << CHECK_SHIFT)
        | ((e.generation as u64 & field(GEN_BITS)) << GEN_SHIFT)
        | ((e.work as u64 & field(WORK_BITS)) << WORK_SHIFT)
        | ((e.best_move.map_or(0, |m| m as u64 + 1) & field(MOVE_BITS)) << MOVE_SHIFT)
        | (((e.value + VALUE_OFFSET) as u64 & field(VALUE_BITS)) << VALUE_SHIFT)
        | (e.bound as u64) << BOUND_SHIFT
}

/// Unpacks a non-empty slot word.
#[inline]
pub(crate) fn unpack(w: u64) -> Option<Entry> {
    let bound = match (w >> BOUND_SHIFT) & field(BOUND_BITS) {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    let mv = ((w >> MOVE_SHIFT) & field(MOVE_BITS)) as u8;
    Some(Entry {
        value: ((w >> VALUE_SHIFT) & field(VALUE_BITS)) as i32 - VALUE_OFFSET,
        bound,
        best_move: mv.checked_sub(1),
        work: ((w >> WORK_SHIFT) & field(WORK_BITS)) as u8,
        generation: ((w >> GEN_SHIFT) & field(GEN_BITS)) as u8,
    })
}

#[inline]
pub(super) const fn check_of(w: u64) -> u64 {
    w >> CHECK_SHIFT
}
