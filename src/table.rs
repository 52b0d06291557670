//! The transposition table: one lock-free table shared by every search thread.
//!
//! This module owns the table's memory, the slot layouts, the key mixing and indexing, and the
//! replacement rule. It knows positions only as exact keys of `key_bits` bits (up to 128, in a
//! [`Bitboard`] word) and scores only as small integers with a bound; it never searches and
//! never decides what to store.
//!
//! # Two layouts
//!
//! A table has one of two slot layouts ([`Layout`]), fixed when it is built from the key width
//! `K` and the number of buckets `n` (`i = floor(log2 n)`):
//!
//! - **One word** ([`Layout::OneWord`]) when `K <= 64` and `i + CHECK_BITS >= K`
//!   (`CHECK_BITS` = 40): eight one-word slots per bucket, the proof just below. Every board
//!   up to 40 + 14 = 54 key bits (7 x 6, 8 x 5, 6 x 7, 5 x 8, 9 x 5, ...) gets it at any size
//!   (1 MiB is 2^14 buckets); 8 x 6 and 7 x 7 (56 bits) from 4 MiB (2^16 buckets), 8 x 7
//!   (64 bits) from 1 GiB (2^24 buckets); smaller tables give them two words.
//! - **Two words** ([`Layout::TwoWord`]) otherwise, when `i + WIDE_CHECK_BITS >= K`
//!   (`WIDE_CHECK_BITS` = 104): four two-word slots per bucket, see "Two-word slots". Every
//!   board up to 104 key bits gets it at any size; wider keys (9 x 12: 117, 10 x 11: 120, 12 x
//!   9: 120, 11 x 10: 121, 9 x 13: 126 bits) need `2^(K - 104)` buckets, at most 256 MiB.
//! - Refused otherwise, with the size the board needs ([`Table::new`]).
//!
//! [`Table::layout_for`] is the rule; a test runs it over every board size 4..=12 x 4..=13
//! whose key fits 128 bits and a range of table sizes.
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
//! Until issue 18 a slot was two `AtomicU64`s written as `(lo ^ data, data)` and checked by
//! XOR (the lock-free scheme of Hyatt and Mann). A load could then take word 0 of one write
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
//! fallback that is still atomic. On this project's machines (AMD EPYC with AVX and `cx16`)
//! that is `vmovdqa` behind one indirect call. With `-C target-feature=+cmpxchg16b,+avx`
//! (or a `target-cpu` that has them) the call is inlined to a bare `vmovdqa`; the project
//! does not set it (BENCHMARKS.md, "16-byte table slots", measures the default build).
//! The one-word layout (every board up to 54 key bits, 7 x 6 included) is untouched.
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
//! # Replacement
//!
//! A bucket is eight slots on one 64-byte cache line. A store reuses the slot that already
//! holds its key, else an empty slot, else the slot of least worth: an entry of an older
//! generation is worth less than any entry of the current one, and within a generation the
//! entry with the least work goes first.
//!
//! # The near tables
//!
//! [`Table::with_near`] (what a solver builds) gives [`NEAR_MIB`] of the size asked for (up
//! to [`NEAR_MAX_MIB`] for wide keys) to each of a few small tables, [`Table::near`], one
//! per search thread, for the nodes with few empty cells. Those are most of a search's
//! nodes, each is needed only briefly, and one core's caches hold such a table, while the
//! main table's memory is far larger than the caches: the search's stalls on the first word
//! of a bucket are shorter there. Each is a table like any other, exact by its own layout (a
//! size that cannot identify the keys, or that would change the layout, is not split off),
//! cleared and aged with the main one. The main table stays one, shared by every thread.

use crate::bitboard::Bitboard;
use crate::sync::{AtomicU128, AtomicU32, AtomicU64, Ordering};
use std::fmt;

/// Slots per bucket: one 64-byte cache line.
pub const SLOTS_PER_BUCKET: usize = 8;
/// Bytes per bucket.
pub const BUCKET_BYTES: usize = SLOTS_PER_BUCKET * 8;

const BOUND_BITS: u32 = 2;
const VALUE_BITS: u32 = 7;
const MOVE_BITS: u32 = 4;
const WORK_BITS: u32 = 6;
const GEN_BITS: u32 = 5;
/// Bits of the mixed key kept in a slot.
pub const CHECK_BITS: u32 = 40;
/// Bits of the mixed key kept in a two-word slot: 64 in word 0, [`CHECK_BITS`] in word 1.
pub const WIDE_CHECK_BITS: u32 = 64 + CHECK_BITS;
/// Two-word slots per bucket (one cache line).
pub const WIDE_SLOTS_PER_BUCKET: usize = SLOTS_PER_BUCKET / 2;
/// The widest key a table takes (a `u128` bitboard).
pub const MAX_KEY_BITS: u32 = 128;

const BOUND_SHIFT: u32 = 0;
const VALUE_SHIFT: u32 = BOUND_SHIFT + BOUND_BITS;
const MOVE_SHIFT: u32 = VALUE_SHIFT + VALUE_BITS;
const WORK_SHIFT: u32 = MOVE_SHIFT + MOVE_BITS;
const GEN_SHIFT: u32 = WORK_SHIFT + WORK_BITS;
const CHECK_SHIFT: u32 = GEN_SHIFT + GEN_BITS;

const VALUE_OFFSET: i32 = 1 << (VALUE_BITS - 1);
/// The largest work value a slot can hold.
pub const MAX_WORK: u32 = (1 << WORK_BITS) - 1;
/// Generations wrap modulo this.
pub const GENERATIONS: u32 = 1 << GEN_BITS;
/// Largest table accepted, in MiB (1 TiB).
pub const MAX_MIB: usize = 1 << 20;
/// The size of each near table of a split table ([`Table::with_near`]): a core's L2 cache
/// on the machines measured.
pub const NEAR_MIB: usize = 1;
/// The largest near table: where the keys need more for the whole's layout, no split.
pub const NEAR_MAX_MIB: usize = 4;
/// [`Table::with_near`] splits off at most one near table per this many times its size:
/// the main part keeps at least fifteen sixteenths.
pub const NEAR_FROM_MIB: usize = 16;

const fn field(bits: u32) -> u64 {
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

/// Why a table could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    msg: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for TableError {}

/// The machine's physical memory in bytes, when the OS tells (`sysconf` on Unix).
pub fn physical_memory() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: `sysconf` reads a system constant; it has no preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        memory_of(pages, page)
    }
    #[cfg(not(unix))]
    None
}

/// Memory in bytes from `sysconf`'s page count and page size: `None` when either is an error
/// (`-1`) or zero, or the product overflows.
#[cfg(unix)]
fn memory_of(pages: libc::c_long, page: libc::c_long) -> Option<u64> {
    if pages > 0 && page > 0 {
        (pages as u64).checked_mul(page as u64)
    } else {
        None
    }
}

/// `bytes` in GiB, for messages.
fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Refuses a table of `bytes` bytes on a machine of `memory` bytes (unknown: accepted).
fn check_fits(bytes: u64, memory: Option<u64>) -> Result<(), TableError> {
    match memory {
        Some(m) if bytes > m => Err(TableError {
            msg: format!(
                "a table of {} MiB ({:.1} GiB) does not fit: the machine has {:.1} GiB of \
                 memory; ask for less",
                bytes >> 20,
                gib(bytes),
                gib(m)
            ),
        }),
        _ => Ok(()),
    }
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
const fn check_of(w: u64) -> u64 {
    w >> CHECK_SHIFT
}

/// The key mix of one word width, written once for `u64` ([`mix`], [`unmix`]) and `u128`
/// ([`mix128`], [`unmix128`]): the two mixes, the width's key mask and the inverse of an
/// odd multiplier.
macro_rules! key_mix {
    (
        $word:ty, ($mul1:expr, $mul2:expr), $key_mask:ident, $inverse_odd:ident,
        $(#[$mix_attr:meta])* $mix:ident,
        $(#[$unmix_attr:meta])* $unmix:ident $(,)?
    ) => {
        /// The keys of `key_bits` bits: `2^key_bits - 1`.
        #[inline]
        const fn $key_mask(key_bits: u32) -> $word {
            if key_bits >= <$word>::BITS {
                <$word>::MAX
            } else {
                (1 << key_bits) - 1
            }
        }

        /// The multiplicative inverse of an odd number modulo `2^BITS` (Newton's iteration:
        /// each step doubles the low bits that are right, from 3; seven reach 384).
        const fn $inverse_odd(a: $word) -> $word {
            let mut x = a;
            let mut i = 0;
            while i < 7 {
                x = x.wrapping_mul(<$word>::wrapping_sub(2, a.wrapping_mul(x)));
                i += 1;
            }
            x
        }

        $(#[$mix_attr])*
        #[inline]
        pub fn $mix(key: $word, key_bits: u32) -> $word {
            let m = $key_mask(key_bits);
            let s1 = key_bits.div_ceil(2);
            let s2 = key_bits.div_ceil(3);
            let mut x = key & m;
            x ^= x >> s1;
            x = x.wrapping_mul($mul1) & m;
            x ^= x >> s2;
            x = x.wrapping_mul($mul2) & m;
            x ^= x >> s1;
            x
        }

        $(#[$unmix_attr])*
        pub fn $unmix(h: $word, key_bits: u32) -> $word {
            let m = $key_mask(key_bits);
            let s1 = key_bits.div_ceil(2);
            let s2 = key_bits.div_ceil(3);
            let unxorshift = |mut y: $word, s: u32| {
                // x ^= x >> s is undone by applying it until the shifted part runs out.
                let mut x = y;
                while s > 0 && y != 0 {
                    y >>= s;
                    x ^= y;
                }
                x
            };
            let mut x = h & m;
            x = unxorshift(x, s1);
            x = x.wrapping_mul($inverse_odd($mul2)) & m;
            x = unxorshift(x, s2);
            x = x.wrapping_mul($inverse_odd($mul1)) & m;
            unxorshift(x, s1)
        }
    };
}

const MUL1: u64 = 0x9E37_79B9_7F4A_7C15;
const MUL2: u64 = 0xBF58_476D_1CE4_E5B9;

key_mix!(
    u64,
    (MUL1, MUL2),
    key_mask,
    inverse_odd,
    /// Mixes a key of `key_bits` bits by a bijection on `[0, 2^key_bits)`.
    ///
    /// Each step is invertible on `key_bits`-bit words: `x ^= x >> s` (with `s >= 1`) and
    /// `x = x * odd mod 2^key_bits`; [`unmix`] undoes the chain, and a test checks it does.
    mix,
    /// The inverse of [`mix`]: `unmix(mix(k, b), b) == k` for every `k < 2^b`.
    unmix,
);

const MUL1_WIDE: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835;
const MUL2_WIDE: u128 = 0xBF58_476D_1CE4_E5B9_94D0_49BB_1331_11EB;

key_mix!(
    u128,
    (MUL1_WIDE, MUL2_WIDE),
    key_mask_wide,
    inverse_odd_wide,
    /// [`mix`] for keys of up to 128 bits: the same chain of invertible steps on
    /// `[0, 2^key_bits)`, on `u128` words with 128-bit odd multipliers (the two-word layout).
    mix128,
    /// The inverse of [`mix128`].
    unmix128,
);

/// A slot chosen by [`Table::probe_slot`] for a later [`Table::store_at`].
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// The slot's word (one-word layout) or its 16-byte pair (two-word layout).
    index: usize,
    /// The check field (one word), or the low 64 bits of `h` (two words).
    check: u64,
    /// Two words: bits 64..104 of `h`, word 1's check field.
    check_hi: u64,
    /// The address of the table whose probe chose it ([`Table::store_at`] drops others).
    owner: usize,
}

/// How a table's slots hold their keys (see the module docs for the rule and the proofs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Eight one-word slots per bucket, keeping [`CHECK_BITS`] bits of the mixed key.
    OneWord,
    /// Four 16-byte slots per bucket, `(low word of h, data)` loaded and stored as one
    /// 128-bit atomic, keeping [`WIDE_CHECK_BITS`] bits.
    TwoWord,
}

/// The shared transposition table.
///
/// Built once, shared by reference among threads (`Table` is `Sync`), reused across solves:
/// [`Table::new_generation`] ages every entry instead of clearing. Entries stay true facts
/// about their positions whatever their generation, so old entries still cut the search;
/// their age only makes them the first to be replaced.
pub struct Table {
    slots: Slots,
    buckets: usize,
    key_bits: u32,
    generation: AtomicU32,
    two_word: bool,
    /// The small tables of the nodes near the end of the game, one per search thread, if
    /// this one was split ([`Table::with_near`]).
    near: Vec<Table>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Table");
        d.field("buckets", &self.buckets)
            .field("key_bits", &self.key_bits)
            .field("layout", &self.layout());
        if !self.near.is_empty() {
            d.field("near", &self.near);
        }
        d.finish()
    }
}

impl Table {
    /// A table of `mib` MiB (any whole number from 1 to [`MAX_MIB`]) for keys of `key_bits`
    /// bits.
    ///
    /// Refused: 0 MiB, more than [`MAX_MIB`], more than the machine's physical memory
    /// ([`physical_memory`]; the OS hands pages over lazily, but a table that cannot fit
    /// would only fail later, in the middle of a solve), a size whose buckets are too few
    /// for the check bits to identify a key of `key_bits` bits even in two-word slots (only
    /// boards of more than 118 key bits; see [`Table::layout_for`]), and memory the OS will
    /// not give: every failure is an error, never an abort.
    pub fn new(mib: usize, key_bits: u32) -> Result<Table, TableError> {
        if mib == 0 {
            return Err(TableError {
                msg: "table size must be at least 1 MiB, not 0".into(),
            });
        }
        if mib > MAX_MIB {
            return Err(TableError {
                msg: format!("table size {mib} MiB is larger than the maximum {MAX_MIB} MiB"),
            });
        }
        let bytes = mib.checked_mul(1 << 20).ok_or_else(|| TableError {
            msg: format!("table size {mib} MiB does not fit the address space"),
        })?;
        Self::with_buckets(bytes / BUCKET_BYTES, key_bits)
    }

    /// A table of `mib` MiB in all, as [`Table::new`], of which [`NEAR_MIB`] each (2 or
    /// [`NEAR_MAX_MIB`] where the keys need it for the layout of the whole) go to up to
    /// `parts` small tables of their own ([`Table::near`]): one per [`NEAR_FROM_MIB`] times
    /// that size, at most `parts`. Not split (the same as [`Table::new`]) when that leaves
    /// none, when no near table of at most [`NEAR_MAX_MIB`] has the layout of the whole
    /// (keys of 57 bits or more with one-word slots), or when the rest would not (a table of
    /// a power of two MiB that just gives wide keys one-word slots would lose them).
    ///
    /// The search keeps the nodes near the end of the game there (`Params::near_empty`),
    /// one near table per search thread: those nodes are most of the nodes and each lives
    /// briefly, and a table the size of a core's L2 cache answers them faster than the main
    /// table's far larger memory, whose entries near the root stay for the whole solve.
    /// Shared between threads, the near table's lines moved from core to core and the gain
    /// went (BENCHMARKS.md, "Thirteenth round"). Each part is a table of its own, exact by
    /// the rule of the module docs, and any thread may use any of them.
    pub fn with_near(mib: usize, key_bits: u32, parts: usize) -> Result<Table, TableError> {
        let buckets = |mib: usize| mib.saturating_mul(1 << 20) / BUCKET_BYTES;
        let whole = Self::layout_for(buckets(mib), key_bits).ok();
        // The smallest near table with the whole's layout (7x7 and 8x6 need 4 MiB for
        // one-word slots).
        let near_mib = [NEAR_MIB, 2 * NEAR_MIB, NEAR_MAX_MIB]
            .into_iter()
            .find(|&m| Self::layout_for(buckets(m), key_bits).ok() == whole);
        let Some(near_mib) = near_mib else {
            return Self::new(mib, key_bits);
        };
        let parts = parts.min(mib / (NEAR_FROM_MIB * near_mib));
        let rest = mib - parts * near_mib;
        if parts == 0 || mib > MAX_MIB || Self::layout_for(buckets(rest), key_bits).ok() != whole {
            return Self::new(mib, key_bits);
        }
        // Refused as a whole, so that the error names the size asked for.
        check_fits((mib as u64) << 20, physical_memory())?;
        let mut main = Self::new(rest, key_bits)?;
        main.near = (0..parts)
            .map(|_| Self::new(near_mib, key_bits))
            .collect::<Result<_, _>>()?;
        Ok(main)
    }

    /// The near table of search thread `thread` ([`Table::with_near`]; threads beyond the
    /// parts share them), or this table itself when it was not split.
    #[inline(always)]
    pub fn near(&self, thread: usize) -> &Table {
        if self.near.is_empty() {
            self
        } else {
            &self.near[thread % self.near.len()]
        }
    }

    /// How many near tables this table was split into (0: not split).
    pub fn near_parts(&self) -> usize {
        self.near.len()
    }

    /// The slot layout a table of `buckets` buckets gets for keys of `key_bits` bits, or why
    /// no table of that size can identify them exactly (the rule of the module docs).
    pub fn layout_for(buckets: usize, key_bits: u32) -> Result<Layout, TableError> {
        if buckets == 0 {
            return Err(TableError {
                msg: "a table needs at least one bucket".into(),
            });
        }
        if !(1..=MAX_KEY_BITS).contains(&key_bits) {
            return Err(TableError {
                msg: format!("key width {key_bits} is not in 1..={MAX_KEY_BITS}"),
            });
        }
        let index_bits = usize::BITS - 1 - buckets.leading_zeros();
        if key_bits <= 64 && index_bits + CHECK_BITS >= key_bits {
            Ok(Layout::OneWord)
        } else if index_bits + WIDE_CHECK_BITS >= key_bits {
            Ok(Layout::TwoWord)
        } else {
            let need = 1usize << (key_bits - WIDE_CHECK_BITS);
            Err(TableError {
                msg: format!(
                    "a table of {buckets} buckets cannot identify {key_bits}-bit keys exactly; \
                     this board needs at least {} MiB",
                    (need * BUCKET_BYTES).div_ceil(1 << 20)
                ),
            })
        }
    }

    /// A table of exactly `buckets` buckets (at least 1), for tests and models.
    pub fn with_buckets(buckets: usize, key_bits: u32) -> Result<Table, TableError> {
        let layout = Self::layout_for(buckets, key_bits)?;
        let len = buckets
            .checked_mul(SLOTS_PER_BUCKET * 8)
            .map(|bytes| bytes / 8)
            .ok_or_else(|| TableError {
                msg: format!("a table of {buckets} buckets does not fit the address space"),
            })?;
        check_fits(len as u64 * 8, physical_memory())?;
        Ok(Table {
            slots: Slots::zeroed(len, layout == Layout::TwoWord)?,
            buckets,
            key_bits,
            generation: AtomicU32::new(0),
            two_word: layout == Layout::TwoWord,
            near: Vec::new(),
        })
    }

    /// The slot layout (see the module docs).
    pub fn layout(&self) -> Layout {
        if self.two_word {
            Layout::TwoWord
        } else {
            Layout::OneWord
        }
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Size in bytes, the near tables' ([`Table::with_near`]) included.
    pub fn bytes(&self) -> usize {
        self.buckets * BUCKET_BYTES + self.near.iter().map(Table::bytes).sum::<usize>()
    }

    /// Width of the keys this table identifies exactly.
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// The generation new entries get.
    pub fn generation(&self) -> u8 {
        // ORDERING: Relaxed: the generation is bumped between solves, before the search
        // threads start; spawning (or the scope that runs them) orders the bump before every
        // read. A racing bump could only mislabel an entry's age, which is not a correctness
        // matter.
        (self.generation.load(Ordering::Relaxed) % GENERATIONS) as u8
    }

    /// Starts a new generation: entries written so far become "old" for replacement. Call it
    /// between solves instead of clearing.
    pub fn new_generation(&self) {
        // ORDERING: Relaxed, see `generation`.
        self.generation.fetch_add(1, Ordering::Relaxed);
        for near in &self.near {
            near.new_generation();
        }
    }

    /// The first word of the bucket of `key` (one-word layout) and its check bits.
    ///
    /// In range for any key: the bucket is Lemire's multiply-shift `b = (top * buckets) >> 64`
    /// of a 64-bit `top`, and `top < 2^64` makes `b < buckets`, so the bucket's words `8b ..
    /// 8b + 8` are among the table's `8 * buckets`. The probe and store paths index them
    /// unchecked on this argument.
    #[inline]
    fn locate(&self, key: u64) -> (usize, u64) {
        let h = mix(key, self.key_bits);
        let b = (((h << (64 - self.key_bits)) as u128 * self.buckets as u128) >> 64) as usize;
        debug_assert!(b < self.buckets);
        (b * SLOTS_PER_BUCKET, h & field(CHECK_BITS))
    }

    /// Asks the CPU to start loading the bucket of `key`.
    #[inline]
    pub fn prefetch<K: Bitboard>(&self, key: K) {
        let first = if self.two_word {
            self.locate_wide(key.to_u128()).0 * 2
        } else {
            self.locate(key.low_u64()).0
        };
        self.slots.prefetch(first);
    }

    /// This table's identity in a [`Slot`]: the address of its slots.
    #[inline(always)]
    fn id(&self) -> usize {
        self.slots.base()
    }

    /// The entry stored for `key`, if any. `key` must be below `2^key_bits`.
    #[inline]
    pub fn probe<K: Bitboard>(&self, key: K) -> Option<Entry> {
        self.probe_slot(key).0
    }

    /// The entry stored for `key`, if any, and the slot a later [`Table::store_at`] for the
    /// same key should write: the slot holding the key, else an empty one, else the one of
    /// least worth (see "Replacement" above). One pass over the bucket without branches on
    /// its contents, so that it costs one cache line and no mispredictions.
    #[inline]
    pub fn probe_slot<K: Bitboard>(&self, key: K) -> (Option<Entry>, Slot) {
        if self.two_word {
            self.probe_slot_wide(key.to_u128())
        } else {
            self.probe_slot_narrow(key.low_u64())
        }
    }

    /// [`Table::probe_slot`] on one-word slots.
    #[inline]
    fn probe_slot_narrow(&self, key: u64) -> (Option<Entry>, Slot) {
        let (first, check) = self.locate(key);
        let generation = self.generation() as u64;
        let mut words = [0u64; SLOTS_PER_BUCKET];
        // Per slot, `rank << 3 | j`: rank 0 for the key's own entry, 1 for an empty slot,
        // 2 + worth otherwise; the smallest wins, the first on ties.
        let mut best = u64::MAX;
        for (j, word) in words.iter_mut().enumerate() {
            // SAFETY: `first + j < first + SLOTS_PER_BUCKET <= len` (`locate`).
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

    /// Stores a result at the slot [`Table::probe_slot`] chose for its key, without looking
    /// at the bucket again. Other stores since the probe may have put another key there; it
    /// is then replaced, which costs that entry and is never wrong. A slot that another
    /// table's probe chose (a misuse) stores nothing: its check bits, written in this table's
    /// bucket, could pass for another key's.
    #[inline]
    pub fn store_at(&self, slot: Slot, value: i32, bound: Bound, best_move: Option<u8>, work: u64) {
        if slot.owner != self.id() {
            return;
        }
        let entry = Entry {
            value,
            bound,
            best_move,
            work: (63 - (work | 1).leading_zeros()).min(MAX_WORK) as u8,
            generation: self.generation(),
        };
        // A slot comes from this table's probe, so its index is in range; clamped anyway (a
        // conditional move, no branch), so that no slot can write outside the table.
        if self.two_word {
            let index = slot.index.min(self.slots.len() / 2 - 1);
            // SAFETY: `index < len / 2`, clamped just above (`len >= 8`).
            let pair = unsafe { self.slots.get_pair_unchecked(index) };
            Self::write_pair(pair, slot.check, slot.check_hi, &entry);
            return;
        }
        let index = slot.index.min(self.slots.len() - 1);
        // SAFETY: `index < len`, clamped just above.
        let word = unsafe { self.slots.get_unchecked(index) };
        // ORDERING: Relaxed: one whole-word store; readers need no other memory with it.
        word.store(pack(slot.check, &entry), Ordering::Relaxed);
    }

    /// Stores a result for `key` (below `2^key_bits`): `value` with its `bound`, the best
    /// column if known, and `work`, the number of nodes the search took.
    #[inline]
    pub fn store<K: Bitboard>(
        &self,
        key: K,
        value: i32,
        bound: Bound,
        best_move: Option<u8>,
        work: u64,
    ) {
        if self.two_word {
            self.store_wide(key.to_u128(), value, bound, best_move, work);
        } else {
            self.store_narrow(key.low_u64(), value, bound, best_move, work);
        }
    }

    /// [`Table::store`] on one-word slots.
    #[inline]
    fn store_narrow(&self, key: u64, value: i32, bound: Bound, best_move: Option<u8>, work: u64) {
        let (first, check) = self.locate(key);
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
            // SAFETY: `i < first + SLOTS_PER_BUCKET <= len` (`locate`).
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
    }

    /// The first pair of the bucket of `key`, the low 64 bits of its mixed key and bits
    /// 64..104 of it (two-word layout; see the module docs). In range for any key, as in
    /// [`Table::locate`]: `b < buckets` from a 64-bit `top`, so the pairs `4b .. 4b + 4` are
    /// among the table's `4 * buckets`.
    #[inline]
    fn locate_wide(&self, key: u128) -> (usize, u64, u64) {
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
    fn read_pair(pair: &AtomicU128) -> (u64, u64) {
        // ORDERING: Relaxed: the 16 bytes are the whole entry, key check included, and
        // publish no other memory; atomicity alone makes them one write's (module docs).
        let v = pair.load(Ordering::Relaxed);
        (v as u64, (v >> 64) as u64)
    }

    /// True when the words `(w0, w1)` of a two-word slot hold an entry for the key whose
    /// mixed low bits are `lo` and high check bits `hi`.
    #[inline]
    fn pair_matches(w0: u64, w1: u64, lo: u64, hi: u64) -> bool {
        w1 & field(BOUND_BITS) != 0 && w0 == lo && check_of(w1) == hi
    }

    /// Writes an entry into a two-word slot as `(lo, data)` in one 16-byte atomic store.
    #[inline]
    fn write_pair(pair: &AtomicU128, lo: u64, hi: u64, entry: &Entry) {
        let data = pack(hi, entry);
        // ORDERING: Relaxed: one whole-slot store (see `read_pair`); it publishes nothing
        // else.
        pair.store((data as u128) << 64 | lo as u128, Ordering::Relaxed);
    }

    /// [`Table::probe_slot`] on two-word slots.
    #[inline(never)]
    fn probe_slot_wide(&self, key: u128) -> (Option<Entry>, Slot) {
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
    fn store_wide(&self, key: u128, value: i32, bound: Bound, best_move: Option<u8>, work: u64) {
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

    /// The fraction of sampled slots (the first 8192 words; keys are spread evenly) that
    /// hold an entry, of any generation.
    pub fn fill(&self) -> f64 {
        let words = self.slots.len().min(8192);
        // A two-word table is read only by 16-byte loads, never by halves (module docs).
        let (n, used) = if self.two_word {
            let n = words / 2;
            // ORDERING: Relaxed: a statistic.
            let used = (0..n)
                .filter(|&i| self.slots.get_pair(i).load(Ordering::Relaxed) != 0)
                .count();
            (n, used)
        } else {
            // ORDERING: Relaxed: a statistic.
            let used = (0..words)
                .filter(|&i| self.slots.get(i).load(Ordering::Relaxed) != 0)
                .count();
            (words, used)
        };
        used as f64 / n as f64
    }

    /// Empties the table (and its near tables), on all the cores rayon has.
    pub fn clear(&self) {
        self.slots.clear();
        for near in &self.near {
            near.clear();
        }
    }

    // Checkpoints (`crate::checkpoint`): reading every entry with its full key, and storing
    // one back. Both go through the read and store paths above, never around them.

    /// The smallest mixed key `h` whose bucket is `b`: the index functions of `locate` and
    /// `locate_wide` give each bucket one interval of `h`, starting here.
    fn bucket_start(&self, b: usize) -> u128 {
        let (k, n) = (self.key_bits, self.buckets as u128);
        if k <= 64 {
            // b = floor(h * n / 2^k): the first h with h * n >= b * 2^k.
            ((b as u128) << k).div_ceil(n)
        } else {
            // b = floor((h >> (k - 64)) * n / 2^64), in the two-word layout only.
            ((b as u128) << 64).div_ceil(n) << (k - 64)
        }
    }

    /// Calls `f(key, entry)` for every entry of work at least `min_work` that the table holds
    /// as its slots are read, `key` being the entry's full key (below `2^key_bits`).
    ///
    /// The key is rebuilt from the slot's bucket and check bits (the bucket's interval of
    /// mixed keys holds one value of those low bits, see the module docs), then checked the
    /// way a probe checks it: the key's bucket must be this one and its check must match the
    /// slot. So `f` gets `(key, entry)` only when a [`Table::probe`] of `key` reading the
    /// same words would return `entry`: what this yields is what the table answers, no more.
    /// Safe to call while searches store: each slot is read once, through the same loads as
    /// a probe, and entries stored meanwhile may be seen or missed. A slot is one atomic
    /// load (8 bytes, or 16 for a two-word slot), so what is read is always one whole write.
    pub fn for_each_entry(&self, min_work: u8, mut f: impl FnMut(u128, Entry)) {
        let k = self.key_bits;
        for b in 0..self.buckets {
            let first = b * SLOTS_PER_BUCKET;
            let start = self.bucket_start(b);
            // The one `h` of the bucket's interval whose low `bits` bits are `low`.
            let rebuild = |low: u128, bits: u32| {
                if k <= bits {
                    low
                } else {
                    let m = (1u128 << bits) - 1;
                    start.wrapping_add(low.wrapping_sub(start) & m)
                }
            };
            if self.two_word {
                // Pairs are indexed as `locate_wide` indexes them.
                let first = b * WIDE_SLOTS_PER_BUCKET;
                for j in 0..WIDE_SLOTS_PER_BUCKET {
                    // One 16-byte load: the two words are one write's (module docs). Checked:
                    // this path is not hot.
                    let (w0, w1) = Self::read_pair(self.slots.get_pair(first + j));
                    let Some(e) = unpack(w1) else { continue };
                    if e.work < min_work {
                        continue;
                    }
                    // Word 0 is the mixed key's low 64 bits, word 1 carries the next check bits.
                    let low = (check_of(w1) as u128) << 64 | w0 as u128;
                    let h = rebuild(low, WIDE_CHECK_BITS);
                    if h > key_mask_wide(k) {
                        continue;
                    }
                    let key = unmix128(h, k);
                    let (at, lo, hi) = self.locate_wide(key);
                    if at == first && Self::pair_matches(w0, w1, lo, hi) {
                        f(key, e);
                    }
                }
            } else {
                for j in 0..SLOTS_PER_BUCKET {
                    // ORDERING: Relaxed, as in `probe_slot_narrow`: the word is the entry.
                    let w = self.slots.get(first + j).load(Ordering::Relaxed);
                    let Some(e) = unpack(w) else { continue };
                    if e.work < min_work {
                        continue;
                    }
                    let h = rebuild(check_of(w) as u128, CHECK_BITS);
                    if h > key_mask(k) as u128 {
                        continue;
                    }
                    let key = unmix(h as u64, k);
                    if self.locate(key) == (first, check_of(w)) {
                        f(key as u128, e);
                    }
                }
            }
        }
    }

    /// Stores `entry` (value, bound, move and work; not its generation: the entry gets the
    /// current one) for `key` (below `2^key_bits`) through [`Table::store`], so it obeys the
    /// same replacement rule as a search's store. Reloading checkpoints uses it.
    pub fn insert(&self, key: u128, entry: &Entry) {
        // `store` takes nodes and keeps floor(log2): 2^work gives back `work`.
        let nodes = 1u64 << entry.work.min(MAX_WORK as u8);
        self.store(key, entry.value, entry.bound, entry.best_move, nodes);
    }
}

/// Marks of the positions some thread is searching right now, so that other threads can put
/// them off (a small direct-mapped array of keys; a collision only loses a mark).
///
/// Used by the search near the root when a solve has several threads. A mark is advice for
/// move ordering, never for a score: a lost or stale mark changes only the order in which
/// a thread visits children.
pub struct InProgress {
    marks: Box<[AtomicU64]>,
}

impl InProgress {
    const SIZE: usize = 1 << 14;

    /// An empty set of marks.
    pub fn new() -> Self {
        InProgress {
            marks: (0..Self::SIZE).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.marks[(key.wrapping_mul(MUL1) >> 50) as usize & (Self::SIZE - 1)]
    }

    /// Marks `key` (non-zero: the search's mark of a position and window) as being searched;
    /// false if the slot was taken.
    #[inline]
    pub fn enter(&self, key: u64) -> bool {
        // ORDERING: Relaxed: a mark is a hint; nothing is published through it.
        self.slot(key)
            .compare_exchange(0, key, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Removes the mark `enter` made.
    #[inline]
    pub fn leave(&self, key: u64) {
        // ORDERING: Relaxed, as in `enter`.
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// True when some thread marked `key`.
    #[inline]
    pub fn is_busy(&self, key: u64) -> bool {
        // ORDERING: Relaxed, as in `enter`.
        self.slot(key).load(Ordering::Relaxed) == key
    }
}

impl Default for InProgress {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(loom))]
use storage::Slots;

#[cfg(not(loom))]
mod storage {
    //! The table's memory: zeroed pages straight from the OS, huge pages asked for.
    //!
    //! The memory of a one-word table is only ever accessed as `AtomicU64`s, that of a
    //! two-word table only as 16-byte `AtomicU128`s (`wide`), `clear` included: no location
    //! is accessed with two sizes.
    use super::TableError;
    use crate::sync::{AtomicU128, AtomicU64, Ordering};
    use rayon::prelude::*;

    pub(super) struct Slots {
        ptr: *mut AtomicU64,
        len: usize,
        mapped: bool,
        wide: bool,
    }

    // The two-word slots are 16-byte atomics on the same memory: same size as two words,
    // and the alignment both allocations give (a page, or 64 bytes) is enough for them.
    const _: () = assert!(std::mem::size_of::<AtomicU128>() == 16);
    const _: () = assert!(std::mem::align_of::<AtomicU128>() == 16);

    // SAFETY: `Slots` owns its memory and hands out only shared references to atomics, which
    // are themselves `Sync`.
    unsafe impl Send for Slots {}
    // SAFETY: as above: every access goes through `&AtomicU64`.
    unsafe impl Sync for Slots {}

    impl Slots {
        /// The address of the memory: tells one table's slots from another's.
        #[inline(always)]
        pub(super) fn base(&self) -> usize {
            self.ptr as usize
        }

        /// `len` zeroed words (`len * 8` must not overflow, which the caller checks; `len`
        /// is a multiple of 8), accessed as words or, if `wide`, as 16-byte pairs only; or an
        /// error when the OS refuses the memory.
        pub(super) fn zeroed(len: usize, wide: bool) -> Result<Slots, TableError> {
            let bytes = len * 8;
            #[cfg(unix)]
            {
                // SAFETY: an anonymous private mapping with no address hint has no
                // preconditions; the result is checked against MAP_FAILED.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        bytes,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                if p != libc::MAP_FAILED {
                    #[cfg(target_os = "linux")]
                    // SAFETY: advice on a mapping we own; failure (no THP) is harmless.
                    unsafe {
                        libc::madvise(p, bytes, libc::MADV_HUGEPAGE);
                    }
                    return Ok(Slots {
                        ptr: p.cast(),
                        len,
                        mapped: true,
                        wide,
                    });
                }
            }
            let refused = || TableError {
                msg: format!(
                    "the OS refused the table's {} MiB of memory; ask for less",
                    bytes >> 20
                ),
            };
            let layout = std::alloc::Layout::from_size_align(bytes, 64).map_err(|_| refused())?;
            // SAFETY: the layout has non-zero size (len >= 8).
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            if p.is_null() {
                return Err(refused());
            }
            Ok(Slots {
                ptr: p.cast(),
                len,
                mapped: false,
                wide,
            })
        }

        #[inline]
        pub(super) fn len(&self) -> usize {
            self.len
        }

        /// Whether the memory is a mapping of its own from the OS, not the allocator's.
        #[cfg(test)]
        pub(super) fn mapped(&self) -> bool {
            self.mapped
        }

        /// Word `i` of a one-word table; panics when there is no such word. The checked
        /// access, for every path but the probe and store path (`fill`, `for_each_entry`).
        #[inline]
        pub(super) fn get(&self, i: usize) -> &AtomicU64 {
            assert!(i < self.len && !self.wide, "word {i} of {} words", self.len);
            // SAFETY: `i < len` on a one-word table, checked just above.
            unsafe { self.get_unchecked(i) }
        }

        /// [`Slots::get`] without the check, for the probe and store path only, whose
        /// indices are in range by construction (`Table::locate`).
        ///
        /// # Safety
        ///
        /// `i < len`, on a one-word table.
        #[inline]
        pub(super) unsafe fn get_unchecked(&self, i: usize) -> &AtomicU64 {
            debug_assert!(i < self.len && !self.wide);
            // SAFETY: `i < len` (the caller's contract), the memory is live while `self` is,
            // zeroed memory is a valid `AtomicU64` (same layout as `u64`), and only shared
            // references are ever made.
            unsafe { &*self.ptr.add(i) }
        }

        /// Pair `i` (words `2i` and `2i + 1`) of a two-word table, as one 16-byte atomic;
        /// panics when there is no such pair. The checked access, as [`Slots::get`].
        #[inline]
        pub(super) fn get_pair(&self, i: usize) -> &AtomicU128 {
            assert!(
                i < self.len / 2 && self.wide,
                "pair {i} of {} pairs",
                self.len / 2
            );
            // SAFETY: `i < len / 2` on a two-word table, checked just above.
            unsafe { self.get_pair_unchecked(i) }
        }

        /// [`Slots::get_pair`] without the check, for the probe and store path only
        /// (`Table::locate_wide`).
        ///
        /// # Safety
        ///
        /// `i < len / 2`, on a two-word table.
        #[inline]
        pub(super) unsafe fn get_pair_unchecked(&self, i: usize) -> &AtomicU128 {
            debug_assert!(i < self.len / 2 && self.wide);
            // SAFETY: `2i + 1 < len` (the caller's contract, `len` even), so the 16 bytes are
            // inside the live allocation; they are 16-byte aligned (the base is page- or
            // 64-byte-aligned, see the asserts above); zeroed memory is a valid `AtomicU128`
            // (same layout as `u128`); only shared references are made; and a two-word table
            // never accesses these bytes as `AtomicU64` (`wide`).
            unsafe { &*self.ptr.add(2 * i).cast::<AtomicU128>() }
        }

        #[inline]
        pub(super) fn prefetch(&self, i: usize) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: prefetching is a hint and never faults; the address is in bounds.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(self.ptr.add(i) as *const i8);
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = i;
        }

        pub(super) fn clear(&self) {
            if self.wide {
                // SAFETY: as in `get_pair`, for the whole range (`len` is even).
                let all = unsafe {
                    std::slice::from_raw_parts(self.ptr.cast::<AtomicU128>(), self.len / 2)
                };
                all.par_chunks(1 << 15).for_each(|chunk| {
                    for s in chunk {
                        // ORDERING: Relaxed, as for the one-word slots below.
                        s.store(0, Ordering::Relaxed);
                    }
                });
                return;
            }
            // SAFETY: as in `get`, for the whole range.
            let all = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
            all.par_chunks(1 << 16).for_each(|chunk| {
                for s in chunk {
                    // ORDERING: Relaxed: clearing happens between solves; the next solve's
                    // thread start orders it before any probe.
                    s.store(0, Ordering::Relaxed);
                }
            });
        }
    }

    impl Drop for Slots {
        fn drop(&mut self) {
            let bytes = self.len * 8;
            if self.mapped {
                #[cfg(unix)]
                // SAFETY: the mapping was made in `zeroed` with this length and is unmapped
                // once.
                unsafe {
                    libc::munmap(self.ptr.cast(), bytes);
                }
            } else {
                let layout = std::alloc::Layout::from_size_align(bytes, 64).expect("layout");
                // SAFETY: allocated in `zeroed` with this layout.
                unsafe { std::alloc::dealloc(self.ptr.cast(), layout) };
            }
        }
    }
}

#[cfg(loom)]
use loom_storage::Slots;

#[cfg(loom)]
mod loom_storage {
    //! Under loom the slots are a plain boxed slice of loom atomics: words for a one-word
    //! table, modelled 16-byte atomics (`src/sync.rs`) for a two-word one.
    use crate::sync::{AtomicU128, AtomicU64, Ordering};

    pub(super) struct Slots {
        words: Box<[AtomicU64]>,
        pairs: Box<[AtomicU128]>,
    }

    impl Slots {
        /// The address of the memory in use: tells one table's slots from another's.
        pub(super) fn base(&self) -> usize {
            if self.words.is_empty() {
                self.pairs.as_ptr() as usize
            } else {
                self.words.as_ptr() as usize
            }
        }

        pub(super) fn zeroed(len: usize, wide: bool) -> Result<Slots, super::TableError> {
            let (words, pairs) = if wide { (0, len / 2) } else { (len, 0) };
            Ok(Slots {
                words: (0..words).map(|_| AtomicU64::new(0)).collect(),
                pairs: (0..pairs).map(|_| AtomicU128::new(0)).collect(),
            })
        }
        pub(super) fn len(&self) -> usize {
            self.words.len() + 2 * self.pairs.len()
        }
        pub(super) fn get(&self, i: usize) -> &AtomicU64 {
            &self.words[i]
        }
        /// # Safety
        ///
        /// None here (checked): the contract of the real storage's.
        pub(super) unsafe fn get_unchecked(&self, i: usize) -> &AtomicU64 {
            &self.words[i]
        }
        pub(super) fn get_pair(&self, i: usize) -> &AtomicU128 {
            &self.pairs[i]
        }
        /// # Safety
        ///
        /// None here (checked): the contract of the real storage's.
        pub(super) unsafe fn get_pair_unchecked(&self, i: usize) -> &AtomicU128 {
            &self.pairs[i]
        }
        pub(super) fn prefetch(&self, _i: usize) {}
        pub(super) fn clear(&self) {
            for s in self.words.iter() {
                s.store(0, Ordering::Relaxed);
            }
            for s in self.pairs.iter() {
                s.store(0, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn rng(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn mix_is_a_bijection() {
        let mut s = 0x1234_5678_9abc_def1;
        for bits in [8u32, 20, 42, 49, 56, 63, 64] {
            let m = key_mask(bits);
            for _ in 0..20_000 {
                let k = rng(&mut s) & m;
                let h = mix(k, bits);
                assert!(h <= m);
                assert_eq!(unmix(h, bits), k, "bits {bits}");
            }
        }
        // Exhaustively on a small width: a permutation.
        let mut seen = vec![false; 1 << 12];
        for k in 0..1u64 << 12 {
            let h = mix(k, 12) as usize;
            assert!(!seen[h]);
            seen[h] = true;
        }
    }

    #[test]
    fn every_field_round_trips_at_its_extremes() {
        for value in [-64, -18, -1, 0, 1, 18, 63] {
            for bound in [Bound::Upper, Bound::Lower, Bound::Exact] {
                for best_move in [None, Some(0), Some(6), Some(14)] {
                    for work in [0, 1, 62, 63] {
                        for generation in [0, 1, 30, 31] {
                            for check in [0, 1, (1u64 << CHECK_BITS) - 1] {
                                let e = Entry {
                                    value,
                                    bound,
                                    best_move,
                                    work,
                                    generation,
                                };
                                let w = pack(check, &e);
                                assert_ne!(w, 0);
                                assert_eq!(unpack(w), Some(e));
                                assert_eq!(check_of(w), check);
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(unpack(0), None);
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Table::new(0, 49).is_err());
        assert!(Table::new(MAX_MIB + 1, 49).is_err());
        assert!(Table::new(1, 49).is_ok());
        assert!(Table::new(3, 49).is_ok());
        // A 64-bit key needs 2^24 buckets for one-word slots, two words below.
        assert_eq!(Table::layout_for(1 << 24, 64), Ok(Layout::OneWord));
        assert_eq!(Table::layout_for((1 << 24) - 1, 64), Ok(Layout::TwoWord));
        // A 126-bit key (9 x 13) needs 2^22 buckets (256 MiB) even in two words.
        let e = Table::with_buckets((1 << 22) - 1, 126).unwrap_err();
        assert!(e.to_string().contains("256 MiB"), "{e}");
        assert!(Table::layout_for(1 << 22, 126).is_ok());
        assert!(Table::layout_for(1, 129).is_err() && Table::layout_for(1, 0).is_err());
        // More buckets than the address space holds.
        assert!(Table::with_buckets(usize::MAX / 8, 49).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn memory_is_unknown_when_sysconf_fails_or_says_zero() {
        assert_eq!(memory_of(1 << 20, 4096), Some(4 << 30));
        assert_eq!(memory_of(1, 1), Some(1));
        for (pages, page) in [(0, 4096), (1 << 20, 0), (-1, 4096), (1 << 20, -1), (-1, -1)] {
            assert_eq!(memory_of(pages, page), None, "{pages} {page}");
        }
        assert_eq!(memory_of(libc::c_long::MAX, 4096), None);
    }

    #[test]
    fn a_table_larger_than_memory_is_refused_with_both_sizes() {
        let e = check_fits(200_000 << 20, Some(24 << 30)).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("200000 MiB (195.3 GiB)") && msg.contains("has 24.0 GiB of memory"),
            "{msg}"
        );
        assert!(check_fits(24 << 30, Some(24 << 30)).is_ok());
        assert!(check_fits(u64::MAX, None).is_ok());
        // On this machine: one MiB more than its memory (within MAX_MIB) is refused.
        let mem = physical_memory().expect("sysconf knows the memory");
        let mib = (mem >> 20) as usize + 1;
        if mib <= MAX_MIB {
            // Refused by the check of its size, not by the OS when asked for the memory; a
            // table to be split, by the size of the whole.
            for e in [Table::new(mib, 49), Table::with_near(mib, 49, 2)] {
                let e = e.unwrap_err();
                let want = format!("a table of {mib} MiB");
                assert!(
                    e.to_string().contains(&want) && e.to_string().contains("the machine has"),
                    "{e}"
                );
            }
        }
    }

    /// Every board size the crate allows (4..=12 x 4..=13 with a key of at most 128 bits),
    /// over table sizes from 1 MiB to 1 TiB: the layout follows the rule of the module docs,
    /// the slots keep enough bits of the mixed key for the proof, and the default size
    /// serves every board.
    #[test]
    fn every_board_and_size_gets_an_exact_layout() {
        let mut boards = 0;
        for w in 4..=12usize {
            for h in 4..=13usize {
                let k = crate::position::key_bits(w, h);
                if k > MAX_KEY_BITS {
                    continue;
                }
                boards += 1;
                for mib in [1usize, 2, 3, 4, 5, 16, 100, 256, 1000, 1024, 4096, MAX_MIB] {
                    let buckets = mib * (1 << 20) / BUCKET_BYTES;
                    let i = usize::BITS - 1 - buckets.leading_zeros();
                    match Table::layout_for(buckets, k) {
                        Ok(Layout::OneWord) => {
                            // One word: check bits and index cover the key, which fits u64.
                            assert!(k <= 64 && i + CHECK_BITS >= k, "{w}x{h} {mib} MiB");
                        }
                        Ok(Layout::TwoWord) => {
                            // Two words only where one word cannot be exact.
                            assert!(k > 64 || i + CHECK_BITS < k, "{w}x{h} {mib} MiB");
                            assert!(i + WIDE_CHECK_BITS >= k, "{w}x{h} {mib} MiB");
                        }
                        Err(e) => {
                            assert!(i + WIDE_CHECK_BITS < k, "{w}x{h} {mib} MiB: {e}");
                            assert!(e.to_string().contains("MiB"));
                        }
                    }
                }
                let default = crate::solver::DEFAULT_TABLE_MIB * (1 << 20) / BUCKET_BYTES;
                assert!(Table::layout_for(default, k).is_ok(), "{w}x{h}");
                // 7 x 6 and everything up to 54 bits: one word at every size.
                if k <= 54 {
                    assert_eq!(Table::layout_for(1 << 14, k), Ok(Layout::OneWord));
                }
            }
        }
        assert_eq!(boards, 9 * 10 - 9);
    }

    #[test]
    fn mix128_is_a_bijection() {
        let mut s = 0x0bad_cafe_1234_5678;
        for bits in [8u32, 49, 64, 65, 72, 100, 104, 117, 126, 128] {
            let m = key_mask_wide(bits);
            for _ in 0..5_000 {
                let k = ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & m;
                let h = mix128(k, bits);
                assert!(h <= m);
                assert_eq!(unmix128(h, bits), k, "bits {bits}");
            }
        }
        let mut seen = vec![false; 1 << 12];
        for k in 0..1u128 << 12 {
            let h = mix128(k, 12) as usize;
            assert!(!seen[h]);
            seen[h] = true;
        }
    }

    /// The two-word proof's interval claim on the real index function: every key of one
    /// bucket has distinct low `K - floor(log2 n)` bits of its mixed key.
    #[test]
    fn wide_check_bits_identify_keys_for_any_size() {
        for (bits, buckets) in [(16u32, 3usize), (20, 1000), (18, 1), (21, 12_345)] {
            let t = Table {
                slots: Slots::zeroed(buckets * SLOTS_PER_BUCKET, true).unwrap(),
                buckets,
                key_bits: bits,
                generation: AtomicU32::new(0),
                two_word: true,
                near: Vec::new(),
            };
            let index_bits = usize::BITS - 1 - buckets.leading_zeros();
            let c = bits - index_bits;
            let mut seen = std::collections::HashSet::new();
            for k in 0..1u128 << bits {
                let (first, lo, _) = t.locate_wide(k);
                assert!(first / WIDE_SLOTS_PER_BUCKET < buckets);
                assert_eq!(lo as u128, mix128(k, bits));
                assert!(
                    seen.insert((first, lo & ((1u64 << c) - 1))),
                    "{bits} {buckets}"
                );
            }
        }
    }

    /// Two-word tables of 128-bit and 64-bit keys: what a probe returns is exactly what was
    /// stored for that key, and keys differing only in their high bits do not collide.
    #[test]
    fn two_word_store_then_probe_finds_exactly_that_key() {
        for (bits, mib) in [(126u32, 256usize), (117, 1), (100, 1), (64, 1)] {
            let t = Table::new(mib, bits).unwrap();
            assert_eq!(t.layout(), Layout::TwoWord);
            let m = key_mask_wide(bits);
            let mut s = 7 + bits as u64;
            let keys: Vec<u128> = (0..3000)
                .map(|_| ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & m)
                .collect();
            for (i, &k) in keys.iter().enumerate() {
                t.store(
                    k,
                    (i % 101) as i32 - 50,
                    Bound::Lower,
                    Some((i % 12) as u8),
                    5,
                );
            }
            let mut hits = 0;
            for (i, &k) in keys.iter().enumerate() {
                if let Some(e) = t.probe(k) {
                    hits += 1;
                    assert_eq!(e.value, (i % 101) as i32 - 50);
                    assert_eq!(e.best_move, Some((i % 12) as u8));
                }
                // The same key with its top bit flipped was never stored.
                assert_eq!(t.probe(k ^ (1 << (bits - 1))), None, "{bits}");
            }
            assert!(hits > 2900, "{bits}: {hits}");
            // The one-pass probe picks the slot store would, as in one-word tables.
            let (hit, slot) = t.probe_slot(keys[0]);
            t.store_at(slot, 9, Bound::Exact, None, 1);
            let e = t.probe(keys[0]).unwrap();
            assert_eq!((e.value, e.bound), (9, Bound::Exact));
            assert!(hit.is_none() || hit.unwrap().value == -50);
        }
    }

    /// A slot holding word 0 of one key's entry and word 1 of another's (which the 16-byte
    /// atomics make impossible, but the check must refuse anyway) is a miss for both.
    #[test]
    fn mixed_two_word_slot_is_a_miss() {
        let t = Table::with_buckets(1, 100).unwrap();
        let (a, b) = (5u128 << 90 | 3, 9u128 << 90 | 3);
        t.store(a, 1, Bound::Exact, Some(1), 1);
        let (_, slot) = t.probe_slot(a);
        let va = t.slots.get_pair(slot.index).load(Ordering::Relaxed);
        // Overwrite the slot with key b, then put a's word 0 back: a mixed pair.
        let sb = Slot {
            index: slot.index,
            ..t.probe_slot(b).1
        };
        t.store_at(sb, 2, Bound::Upper, Some(2), 1);
        assert_eq!(t.probe(b).map(|e| e.value), Some(2));
        assert_eq!(t.probe(a), None);
        let vb = t.slots.get_pair(slot.index).load(Ordering::Relaxed);
        let mixed = vb & !(u64::MAX as u128) | va & u64::MAX as u128;
        t.slots.get_pair(slot.index).store(mixed, Ordering::Relaxed);
        assert_eq!(t.probe(a), None);
        assert_eq!(t.probe(b), None);
        // Put b's whole entry back: a hit again.
        t.slots.get_pair(slot.index).store(vb, Ordering::Relaxed);
        assert_eq!(t.probe(b).map(|e| e.value), Some(2));
    }

    /// For several odd sizes, every key in one bucket has distinct check bits: the proof's
    /// interval claim, checked on the real index function.
    #[test]
    fn check_bits_identify_keys_for_any_size() {
        for (bits, buckets) in [(16u32, 3usize), (20, 1000), (22, 12_345), (18, 1)] {
            // Shrink the check to `bits - floor(log2 buckets)` bits by testing that the
            // guarantee holds with the minimum the proof asks for.
            let t = Table::with_buckets(buckets, bits).unwrap();
            let index_bits = usize::BITS - 1 - buckets.leading_zeros();
            let c = bits - index_bits; // minimum check bits the proof needs
            let mut seen = std::collections::HashSet::new();
            for k in 0..1u64 << bits {
                let h = mix(k, bits);
                let (first, _) = t.locate(k);
                assert!(first / SLOTS_PER_BUCKET < buckets);
                assert!(
                    seen.insert((first, h & ((1u64 << c) - 1))),
                    "bits {bits} n {buckets}"
                );
            }
        }
    }

    #[test]
    fn store_then_probe_finds_exactly_that_key() {
        let t = Table::new(1, 49).unwrap();
        let mut s = 99;
        let keys: Vec<u64> = (0..2000).map(|_| rng(&mut s) & key_mask(49)).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.store(
                k,
                (i % 37) as i32 - 18,
                Bound::Lower,
                Some((i % 7) as u8),
                i as u64,
            );
        }
        let mut hits = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Some(e) = t.probe(k) {
                hits += 1;
                assert_eq!(e.value, (i % 37) as i32 - 18);
                assert_eq!(e.best_move, Some((i % 7) as u8));
            }
            // A key never stored is never a hit.
            let other = k ^ (1 << 48);
            if !keys.contains(&other) {
                assert_eq!(t.probe(other), None, "{other:#x}");
            }
        }
        assert!(hits > 1900);
    }

    #[test]
    fn replacement_prefers_old_then_cheap() {
        // One bucket: 8 slots.
        let t = Table::with_buckets(1, 20).unwrap();
        for k in 0..8u64 {
            t.store(k, 0, Bound::Exact, None, 1 << (k + 4));
        }
        // A ninth key evicts the cheapest (k = 0).
        t.store(100u64, 1, Bound::Exact, None, 1 << 10);
        assert!(t.probe(0u64).is_none());
        assert!((1..8u64).all(|k| t.probe(k).is_some()));
        // After a generation bump, old entries go before current ones, even expensive ones.
        t.new_generation();
        t.store(200u64, 1, Bound::Exact, None, 1);
        t.store(201u64, 1, Bound::Exact, None, 1);
        assert!(t.probe(200u64).is_some() && t.probe(201u64).is_some());
        // The cheapest old entries (k = 1, 2) were the victims.
        assert!(t.probe(1u64).is_none() && t.probe(2u64).is_none());
        assert!(t.probe(7u64).is_some() && t.probe(100u64).is_some());
        // Same key: overwritten in place, best move kept when the new entry has none.
        t.store(7u64, 5, Bound::Lower, Some(3), 10);
        t.store(7u64, 6, Bound::Upper, None, 10);
        let e = t.probe(7u64).unwrap();
        assert_eq!((e.value, e.bound, e.best_move), (6, Bound::Upper, Some(3)));
    }

    #[test]
    fn probe_slot_picks_the_slot_store_would() {
        // Two identical one-bucket tables, one filled through `store`, the other through
        // `probe_slot` + `store_at`: the same entries must survive.
        let a = Table::with_buckets(1, 20).unwrap();
        let b = Table::with_buckets(1, 20).unwrap();
        let put = |k: u64, v: i32, bound: Bound, mv: Option<u8>, work: u64| {
            a.store(k, v, bound, mv, work);
            let (_, slot) = b.probe_slot(k);
            b.store_at(slot, v, bound, mv, work);
        };
        for k in 0..8u64 {
            put(k, k as i32, Bound::Exact, Some(1), 1 << (k + 4));
        }
        put(100, 1, Bound::Lower, None, 1 << 10); // evicts the cheapest
        a.new_generation();
        b.new_generation();
        put(200, 2, Bound::Upper, None, 1); // evicts an old entry
        put(5, -3, Bound::Upper, Some(6), 3); // overwrites its own key in place
        for k in (0..8u64).chain([100, 200]) {
            assert_eq!(a.probe(k), b.probe(k), "key {k}");
            let (hit, _) = b.probe_slot(k);
            assert_eq!(hit, b.probe(k));
        }
        assert!(b.probe(0u64).is_none() && b.probe(1u64).is_none());
        assert_eq!(b.probe(5u64).unwrap().value, -3);
    }

    /// A table of `n` MiB is `n` MiB of buckets, each one 64-byte cache line (the module
    /// docs), all of them slots; it keeps the key width it was made for, and `Debug` names
    /// the three facts. `with_buckets` makes exactly the buckets asked for.
    #[test]
    fn a_table_has_the_size_and_key_width_asked_for() {
        for (mib, bits) in [(1usize, 49u32), (3, 49), (1, 100), (2, 64)] {
            let t = Table::new(mib, bits).unwrap();
            let buckets = (mib << 20) / 64;
            assert_eq!(t.bytes(), mib << 20, "{mib} MiB");
            assert_eq!(t.buckets(), buckets, "{mib} MiB");
            assert_eq!(t.slots.len() * 8, mib << 20, "{mib} MiB");
            assert_eq!(t.key_bits(), bits);
            assert_eq!(
                format!("{t:?}"),
                format!(
                    "Table {{ buckets: {buckets}, key_bits: {bits}, layout: {:?} }}",
                    t.layout()
                )
            );
        }
        let t = Table::with_buckets(5, 20).unwrap();
        assert_eq!((t.buckets(), t.bytes(), t.key_bits()), (5, 5 * 64, 20));
        assert_eq!(t.slots.len() * 8, 5 * 64);
    }

    /// `with_near` splits off near tables of `NEAR_MIB` (up to `NEAR_MAX_MIB` where the keys
    /// need it for the whole's layout), one per `NEAR_FROM_MIB` times that size at most and
    /// at most one per thread, the whole keeping the size asked for; smaller tables, keys no
    /// near table up to `NEAR_MAX_MIB` gives the whole's layout, and a rest of another layout
    /// are not split. The parts are tables of their own (an entry of one is not found in
    /// another), any index finds one, and clearing or a new generation reaches them all.
    #[test]
    fn a_split_table_keeps_its_size_and_clears_every_part() {
        for (mib, parts, split) in [(16, 1, 1), (16, 4, 1), (64, 2, 2), (64, 9, 4), (40, 3, 2)] {
            let t = Table::with_near(mib, 49, parts).unwrap();
            assert_eq!((t.near_parts(), t.bytes()), (split, mib << 20), "{mib} MiB");
            assert_eq!(t.buckets(), ((mib - split * NEAR_MIB) << 20) / BUCKET_BYTES);
        }
        let t = Table::with_near(32, 49, 2).unwrap();
        let (near, other) = (t.near(0), t.near(1));
        assert!(!std::ptr::eq(near, &t) && !std::ptr::eq(near, other));
        assert!(std::ptr::eq(t.near(2), near) && std::ptr::eq(t.near(5), other));
        assert_eq!((near.bytes(), near.key_bits()), (NEAR_MIB << 20, 49));
        assert!(format!("{t:?}").contains(&format!("near: [{near:?}, {other:?}]")));
        // 100-bit keys have two-word slots at any size: split.
        let wide = Table::with_near(64, 100, 2).unwrap();
        assert_eq!(
            (wide.near_parts(), wide.near(1).layout()),
            (2, Layout::TwoWord)
        );
        // 56-bit keys (7x7) have one-word slots from 4 MiB, and 120-bit keys two-word slots:
        // a near table of 4 MiB, one per 64 MiB.
        for bits in [56, 120] {
            let t = Table::with_near(64, bits, 2).unwrap();
            assert_eq!((t.near_parts(), t.near(1).bytes()), (1, NEAR_MAX_MIB << 20));
        }
        let t56 = Table::with_near(64, 56, 2).unwrap();
        assert_eq!(
            (t56.layout(), t56.near(0).layout()),
            (Layout::OneWord, Layout::OneWord)
        );
        // 60-bit keys have one-word slots at 64 MiB (2^20 buckets), not at 4 or at 63; 63
        // MiB is too small for a 4 MiB near table: not split.
        for (mib, bits) in [(NEAR_FROM_MIB - 1, 49), (64, 60), (63, 56), (1024, 60)] {
            let whole = Table::with_near(mib, bits, 2).unwrap();
            assert!(
                std::ptr::eq(whole.near(0), &whole),
                "{mib} MiB, {bits} bits"
            );
            assert_eq!((whole.near_parts(), whole.bytes()), (0, mib << 20));
            assert!(!format!("{whole:?}").contains("near"));
        }
        assert_eq!(Table::with_near(64, 49, 0).unwrap().near_parts(), 0);
        other.store(3u64, 1, Bound::Upper, None, 5);
        t.store(1u64, 3, Bound::Exact, Some(2), 5);
        near.store(2u64, -3, Bound::Lower, None, 5);
        assert_eq!(t.probe(1u64).map(|e| e.value), Some(3));
        assert_eq!(near.probe(2u64).map(|e| e.value), Some(-3));
        assert_eq!(other.probe(3u64).map(|e| e.value), Some(1));
        assert!(t.probe(2u64).is_none() && near.probe(1u64).is_none());
        assert!(near.probe(3u64).is_none() && other.probe(2u64).is_none());
        let gens = |t: &Table| {
            [
                t.generation(),
                t.near(0).generation(),
                t.near(1).generation(),
            ]
        };
        let before = gens(&t);
        t.new_generation();
        let next = |g: u8| ((u32::from(g) + 1) % GENERATIONS) as u8;
        assert_eq!(gens(&t), before.map(next));
        t.clear();
        let empty = [t.probe(1u64), near.probe(2u64), other.probe(3u64)];
        assert!(empty.iter().all(Option::is_none), "after clear: {empty:?}");
    }

    /// On Unix a table's memory is a mapping of its own, zeroed pages straight from the OS
    /// (the storage module's docs: huge pages are asked for on it), not the allocator's
    /// fallback; so it starts on a page boundary.
    #[cfg(unix)]
    #[test]
    fn a_table_is_pages_mapped_from_the_os() {
        // SAFETY: `sysconf` reads a system constant; it has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        for bits in [49u32, 100] {
            let t = Table::new(1, bits).unwrap();
            assert!(t.slots.mapped(), "{bits} bits");
            assert_eq!(t.id() % page, 0, "{bits} bits");
        }
    }

    /// Set for the one run of `a_dropped_table_is_unmapped_child` that checks: in a process
    /// of its own, started by `a_dropped_table_is_unmapped`.
    #[cfg(target_os = "linux")]
    const UNMAP_CHILD: &str = "FOURFOLD_TEST_UNMAP_CHILD";
    /// What that run prints for each table it checked.
    #[cfg(target_os = "linux")]
    const UNMAP_CHECKED: &str = "unmap check passed: ";

    /// Dropping a table gives its whole mapping back to the OS (`Drop for Slots`). A leak
    /// changes no result; only the process's mappings show it, and the other tests make and
    /// drop tables on parallel threads, which changes them at the same time. So the check runs
    /// in a process of its own: the test binary again, for `a_dropped_table_is_unmapped_child`
    /// alone, which must pass and say it checked both layouts (a child that ran no test, or
    /// returned early, prints nothing).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_dropped_table_is_unmapped() {
        let exe = std::env::current_exe().expect("the test binary's path");
        let out = std::process::Command::new(exe)
            .args([
                "--exact",
                "table::tests::a_dropped_table_is_unmapped_child",
                "--include-ignored",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(UNMAP_CHILD, "1")
            .output()
            .expect("the test binary runs again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "the child failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        for bits in [49, 100] {
            let line = format!("{UNMAP_CHECKED}{bits} bits");
            assert!(
                stdout.lines().any(|l| l.ends_with(&line)),
                "the child did not check {bits}-bit keys:\n{stdout}\n{stderr}"
            );
        }
    }

    /// The check of `a_dropped_table_is_unmapped`, in the process it starts: the address range
    /// of a live table (each layout) is mapped in `/proc/self/maps`, and no byte of it is
    /// once the table is dropped. Elsewhere (`--include-ignored`) it returns at once.
    #[cfg(target_os = "linux")]
    #[test]
    #[ignore = "run in a process of its own by a_dropped_table_is_unmapped"]
    fn a_dropped_table_is_unmapped_child() {
        use std::io::Read;
        if std::env::var_os(UNMAP_CHILD).is_none() {
            return;
        }
        /// How many bytes of `lo..hi` the mappings listed in `maps` cover.
        fn mapped_bytes(maps: &[u8], lo: usize, hi: usize) -> usize {
            let range = |line: &[u8]| {
                let first = line.split(|&b| b == b' ').next()?;
                let (start, end) = std::str::from_utf8(first).ok()?.split_once('-')?;
                let start = usize::from_str_radix(start, 16).ok()?;
                Some((start, usize::from_str_radix(end, 16).ok()?))
            };
            maps.split(|&b| b == b'\n')
                .filter_map(range)
                .map(|(start, end)| end.min(hi).saturating_sub(start.max(lo)))
                .sum()
        }
        // The buffer for the maps is allocated before any table and kept: reading them must
        // not map new memory, which could land where a dropped table was.
        let mut maps = Vec::with_capacity(1 << 20);
        let read_maps = |maps: &mut Vec<u8>| {
            maps.clear();
            std::fs::File::open("/proc/self/maps")
                .and_then(|mut f| f.read_to_end(maps))
                .expect("/proc/self/maps is readable");
            assert!(
                maps.len() < maps.capacity(),
                "the maps outgrew their buffer"
            );
        };
        for bits in [49u32, 100] {
            // 4 MiB: a mapping of 1024 pages; `munmap` of too short a length leaves most.
            let t = Table::new(4, bits).unwrap();
            assert!(t.slots.mapped(), "{bits} bits");
            t.store(12_345u64, 7, Bound::Exact, Some(3), 100);
            assert!(t.probe(12_345u64).is_some(), "{bits} bits");
            let (lo, hi) = (t.id(), t.id() + t.bytes());
            read_maps(&mut maps);
            assert_eq!(
                mapped_bytes(&maps, lo, hi),
                hi - lo,
                "{bits} bits: live table"
            );
            drop(t);
            read_maps(&mut maps);
            assert_eq!(mapped_bytes(&maps, lo, hi), 0, "{bits} bits: dropped table");
            println!("{UNMAP_CHECKED}{bits} bits");
        }
    }

    /// `fill` counts used slots of either layout (16-byte slots as one) and `clear` empties
    /// both; a two-word table's memory is only touched through its 16-byte slots.
    #[test]
    fn fill_and_clear_work_on_either_layout() {
        // 64 buckets: 512 one-word slots or 256 two-word slots, all sampled by `fill`.
        for (bits, slots) in [(20u32, 512.0), (100, 256.0)] {
            let t = Table::with_buckets(64, bits).unwrap();
            assert_eq!(t.fill(), 0.0);
            let keys = [3u128, 77, 1 << 19, 12_345];
            for (i, &k) in keys.iter().enumerate() {
                t.store(k, i as i32, Bound::Exact, None, 1);
            }
            assert_eq!(t.fill(), keys.len() as f64 / slots, "{bits} bits");
            assert!(keys.iter().all(|&k| t.probe(k).is_some()));
            t.clear();
            assert_eq!(t.fill(), 0.0);
            assert!(keys.iter().all(|&k| t.probe(k).is_none()));
        }
    }

    #[test]
    fn generation_wraps_and_entries_survive_it() {
        let t = Table::with_buckets(64, 20).unwrap(); // 512 slots: all sampled by `fill`
        t.store(42u64, 3, Bound::Exact, Some(2), 5);
        for _ in 0..GENERATIONS + 3 {
            t.new_generation();
        }
        assert_eq!(t.generation() as u32, 3);
        assert_eq!(t.probe(42u64).unwrap().value, 3);
        assert!(t.fill() > 0.0);
        t.clear();
        assert_eq!(t.fill(), 0.0);
        assert!(t.probe(42u64).is_none());
    }

    /// `for_each_entry` on a two-word table gives back every stored key of a bucket with
    /// exactly what a probe of it reads (two keys sharing one bucket, on one bucket and on
    /// many, on keys of 100 and 64 bits).
    #[test]
    fn for_each_entry_yields_each_two_word_entry_under_its_own_key() {
        for (buckets, bits) in [(1usize, 100u32), (1 << 14, 100), (1 << 14, 64)] {
            let t = Table::with_buckets(buckets, bits).unwrap();
            assert_eq!(t.layout(), Layout::TwoWord);
            let a = 5u128 << (bits - 10) | 3;
            // A second key of the same bucket.
            let b = (1..)
                .map(|i: u128| a + (i << 40))
                .find(|&k| t.locate_wide(k).0 == t.locate_wide(a).0)
                .unwrap();
            t.store(a, 1, Bound::Exact, Some(1), 1);
            let mut all = Vec::new();
            t.for_each_entry(0, |k, e| all.push((k, e.value)));
            assert_eq!(all, vec![(a, 1)]);
            t.store(b, 2, Bound::Upper, Some(2), 1);
            let mut all = Vec::new();
            t.for_each_entry(0, |k, e| all.push((k, e)));
            all.sort_by_key(|(k, _)| *k);
            let mut want = vec![(a, t.probe(a).unwrap()), (b, t.probe(b).unwrap())];
            want.sort_by_key(|(k, _)| *k);
            assert_eq!(all, want, "{buckets} {bits}");
        }
    }

    /// `for_each_entry` reads every slot of a full table, each at its own index, in both
    /// layouts: it yields as many entries as `fill` counts used slots, each under a distinct
    /// key that a probe answers with the same entry. (Reading two-word slots at twice their
    /// index, as it once did, skips every other bucket and runs past the end of the table,
    /// where the checked slot access panics.)
    #[test]
    fn for_each_entry_reads_every_slot_of_a_full_table() {
        // 64 buckets: 512 words, all sampled by `fill`; one word up to 46 key bits, two
        // words at 64 (the `k <= 64` rebuild) and 100.
        for bits in [40u32, 64, 100] {
            let t = Table::with_buckets(64, bits).unwrap();
            let slots = if bits <= 40 { 512 } else { 256 };
            assert_eq!(t.layout() == Layout::OneWord, bits <= 40);
            let mut state = 0x9E37_79B9_7F4A_7C15 ^ bits as u64;
            for i in 0..8 * slots {
                let key = ((rng(&mut state) as u128) << 64 | rng(&mut state) as u128)
                    & key_mask_wide(bits);
                t.store(key, (i % 20) as i32, Bound::Lower, Some(1), 1 + i as u64);
            }
            let used = (t.fill() * slots as f64).round() as usize;
            assert!(used > slots * 9 / 10, "{bits} bits: {used} of {slots} used");
            let mut all = Vec::new();
            t.for_each_entry(0, |k, e| all.push((k, e)));
            assert_eq!(all.len(), used, "{bits} bits");
            for &(k, e) in &all {
                assert_eq!(t.probe(k), Some(e), "{bits} bits: key {k:#x}");
            }
            all.sort_by_key(|&(k, _)| k);
            all.dedup_by_key(|&mut (k, _)| k);
            assert_eq!(all.len(), used, "{bits} bits: a key yielded twice");
        }
    }

    /// A table written out slot by slot from the module docs' rules, for
    /// `table_agrees_with_a_model_of_its_rules`: each bucket's slots in order, each empty or
    /// `(key, entry)`.
    struct Model {
        slots: Vec<Vec<Option<(u128, Entry)>>>,
        bits: u32,
        two_word: bool,
        generation: u32,
    }

    impl Model {
        /// The bucket of `key`: `floor(h * n / 2^bits)` of the mixed key `h` (`mix` for
        /// one-word tables, `mix128` for two-word ones), from its top 64 bits when `h` is
        /// wider.
        fn bucket(&self, key: u128) -> usize {
            self.bucket_of_mixed(self.mix(key))
        }

        fn mix(&self, key: u128) -> u128 {
            if self.two_word {
                mix128(key, self.bits)
            } else {
                mix(key as u64, self.bits) as u128
            }
        }

        fn unmix(&self, h: u128) -> u128 {
            if self.two_word {
                unmix128(h, self.bits)
            } else {
                unmix(h as u64, self.bits) as u128
            }
        }

        fn bucket_of_mixed(&self, h: u128) -> usize {
            let (k, n) = (self.bits, self.slots.len() as u128);
            if k <= 64 {
                ((h * n) >> k) as usize
            } else {
                (((h >> (k - 64)) * n) >> 64) as usize
            }
        }

        /// The keys at the ends of the buckets' intervals of mixed keys (the first and
        /// last bucket, and either side of the first three boundaries, found by bisection).
        fn edge_keys(&self) -> Vec<u128> {
            let top = key_mask_wide(self.bits);
            let mut keys = vec![self.unmix(0), self.unmix(top)];
            for b in 1..self.slots.len().min(4) {
                // The first mixed key of bucket `b`.
                let (mut lo, mut hi) = (0u128, top);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.bucket_of_mixed(mid) >= b {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                assert_eq!(self.bucket_of_mixed(lo), b);
                keys.extend([self.unmix(lo - 1), self.unmix(lo)]);
            }
            keys
        }

        /// A store: the slot holding `key`, else the first empty slot, else the first of
        /// least worth (an older generation before the current one, then less work). A
        /// store through `Table::store` keeps the old best move when it has none;
        /// `store_at` does not.
        fn store(
            &mut self,
            key: u128,
            value: i32,
            bound: Bound,
            mv: Option<u8>,
            nodes: u64,
            keep: bool,
        ) {
            let generation = (self.generation % GENERATIONS) as u8;
            let work = if nodes <= 1 {
                0
            } else {
                (63 - nodes.leading_zeros()).min(MAX_WORK) as u8
            };
            let b = self.bucket(key);
            let bucket = &mut self.slots[b];
            let j = if let Some(j) = bucket.iter().position(|s| s.is_some_and(|(k, _)| k == key)) {
                j
            } else if let Some(j) = bucket.iter().position(|s| s.is_none()) {
                j
            } else {
                let worth = |s: &Option<(u128, Entry)>| {
                    let e = s.unwrap().1;
                    (e.generation == generation) as u32 * 64 + e.work as u32
                };
                let least = bucket.iter().map(worth).min().unwrap();
                bucket.iter().position(|s| worth(s) == least).unwrap()
            };
            let old_move = bucket[j]
                .filter(|(k, _)| *k == key)
                .and_then(|(_, e)| e.best_move);
            let best_move = if keep { mv.or(old_move) } else { mv };
            bucket[j] = Some((
                key,
                Entry {
                    value,
                    bound,
                    best_move,
                    work,
                    generation,
                },
            ));
        }

        fn probe(&self, key: u128) -> Option<Entry> {
            self.slots[self.bucket(key)]
                .iter()
                .flatten()
                .find(|(k, _)| *k == key)
                .map(|&(_, e)| e)
        }

        fn entries(&self, min_work: u8) -> Vec<(u128, Entry)> {
            self.slots
                .iter()
                .flatten()
                .flatten()
                .copied()
                .filter(|(_, e)| e.work >= min_work)
                .collect()
        }
    }

    /// Random stores (`store`, `probe_slot` + `store_at`, `insert`), generation bumps (and
    /// wraps) and clears on tables of both layouts, from one bucket to 100, at key widths
    /// where the check bits are exactly enough (46 bits on 64 buckets, 110 on 64, 41 and 105
    /// on 3) and below: every probe answers as the model of the module docs' rules does
    /// (which slot a store takes, what it keeps), `for_each_entry` yields the model's
    /// entries in bucket and slot order, and `fill` counts them.
    #[test]
    fn table_agrees_with_a_model_of_its_rules() {
        let sizes = [
            (1usize, 20u32),
            (3, 20),
            (3, 41),
            (64, 46),
            (100, 46),
            (1, 100),
            (3, 64),
            (3, 105),
            (64, 110),
        ];
        let mut s = 0x05ee_d0f7_ab1e;
        let (mut evictions, mut old_evictions, mut kept_moves) = (0, 0, 0);
        for (buckets, bits) in sizes {
            let t = Table::with_buckets(buckets, bits).unwrap();
            let two_word = t.layout() == Layout::TwoWord;
            let per_bucket = if two_word {
                WIDE_SLOTS_PER_BUCKET
            } else {
                SLOTS_PER_BUCKET
            };
            assert_eq!(two_word, bits > 46, "{buckets} {bits}");
            let mut m = Model {
                slots: vec![vec![None; per_bucket]; buckets],
                bits,
                two_word,
                generation: 0,
            };
            let mask = key_mask_wide(bits);
            let mut pool: Vec<u128> = (0..3 * buckets * per_bucket)
                .map(|_| ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & mask)
                .collect();
            pool.extend(m.edge_keys());
            let check_all = |t: &Table, m: &Model, s: &mut u64| {
                for &k in &pool {
                    assert_eq!(t.probe(k), m.probe(k), "{buckets} {bits}: key {k:#x}");
                    assert_eq!(t.probe_slot(k).0, m.probe(k));
                }
                let min_work = (rng(s) % 8) as u8;
                let mut all = Vec::new();
                t.for_each_entry(min_work, |k, e| all.push((k, e)));
                assert_eq!(
                    all,
                    m.entries(min_work),
                    "{buckets} {bits} min_work {min_work}"
                );
                let used = m.entries(0).len() as f64 / (buckets * per_bucket) as f64;
                assert_eq!(t.fill(), used, "{buckets} {bits}");
            };
            for step in 0..4000 {
                let key = pool[rng(&mut s) as usize % pool.len()];
                let value = (rng(&mut s) % 128) as i32 - 64;
                let bound = [Bound::Upper, Bound::Lower, Bound::Exact][rng(&mut s) as usize % 3];
                let mv = (rng(&mut s) % 3 != 0).then(|| (rng(&mut s) % 15) as u8);
                // Few work values, so that ties come up; sometimes 0 or 1 node, sometimes huge.
                let nodes = match rng(&mut s) % 8 {
                    0 => rng(&mut s) % 2,
                    1 => rng(&mut s) >> (rng(&mut s) % 64),
                    r => (1 << (r - 2)) + rng(&mut s) % (1 << (r - 2)),
                };
                let before = m.probe(key);
                let full = m.slots[m.bucket(key)].iter().all(Option::is_some);
                match rng(&mut s) % 10 {
                    0..=4 => {
                        t.store(key, value, bound, mv, nodes);
                        m.store(key, value, bound, mv, nodes, true);
                    }
                    5..=7 => {
                        let (hit, slot) = t.probe_slot(key);
                        assert_eq!(hit, before);
                        t.store_at(slot, value, bound, mv, nodes);
                        m.store(key, value, bound, mv, nodes, false);
                    }
                    8 => {
                        let work = (rng(&mut s) % 64) as u8;
                        let e = Entry {
                            value,
                            bound,
                            best_move: mv,
                            work,
                            generation: 7,
                        };
                        t.insert(key, &e);
                        m.store(key, value, bound, mv, 1 << work, true);
                        assert_eq!(t.probe(key).map(|e| e.work), Some(work));
                    }
                    _ => {
                        let bumps = if rng(&mut s) % 8 == 0 { GENERATIONS } else { 1 };
                        for _ in 0..bumps {
                            t.new_generation();
                            m.generation += 1;
                        }
                        assert_eq!(t.generation() as u32, m.generation % GENERATIONS);
                    }
                }
                if before.is_none() && full {
                    evictions += 1;
                    let g = (m.generation % GENERATIONS) as u8;
                    old_evictions += m.slots[m.bucket(key)]
                        .iter()
                        .flatten()
                        .any(|(_, e)| e.generation != g)
                        as u32;
                }
                kept_moves +=
                    (mv.is_none() && m.probe(key).is_some_and(|e| e.best_move.is_some())) as u32;
                assert_eq!(t.probe(key), m.probe(key), "{buckets} {bits}: step {step}");
                if step % 100 == 99 {
                    check_all(&t, &m, &mut s);
                }
                if step == 2000 {
                    t.clear();
                    m.slots.iter_mut().flatten().for_each(|slot| *slot = None);
                    check_all(&t, &m, &mut s);
                }
            }
            check_all(&t, &m, &mut s);
        }
        assert!(
            evictions > 1000 && old_evictions > 300 && kept_moves > 300,
            "{evictions} {old_evictions} {kept_moves}"
        );
    }

    /// `InProgress` is a direct-mapped set of marks: a key entered into a free slot is busy
    /// until it leaves; a key whose slot another key holds is refused and not busy; leaving
    /// with a key that is not the slot's mark removes nothing; and the marks spread over the
    /// slots (2000 random keys in 2^14 slots: about 120 collisions expected, `2000^2 / 2^15`).
    #[test]
    fn in_progress_marks_a_direct_mapped_set() {
        let marks = InProgress::new();
        let mut s = 0xC0FF_EE12_3456_789B;
        let keys: Vec<u64> = (0..2000).map(|_| rng(&mut s) | 1).collect();
        assert!(keys.iter().all(|&k| !marks.is_busy(k)));
        let (entered, refused): (Vec<u64>, Vec<u64>) = keys.iter().partition(|&&k| marks.enter(k));
        assert!(entered.len() > 1800, "{} of 2000 entered", entered.len());
        assert!(!refused.is_empty());
        assert!(entered.iter().all(|&k| marks.is_busy(k) && !marks.enter(k)));
        assert!(refused.iter().all(|&k| !marks.is_busy(k)));
        // A refused key shares its slot with an entered one: leaving with it changes nothing.
        for &k in &refused {
            marks.leave(k);
        }
        assert!(entered.iter().all(|&k| marks.is_busy(k)));
        for &k in &entered {
            marks.leave(k);
        }
        assert!(keys.iter().all(|&k| !marks.is_busy(k)));
        // Every slot is free again: each refused key now enters (and leaves, as two of them
        // may share a slot).
        for &k in &refused {
            assert!(marks.enter(k) && marks.is_busy(k));
            marks.leave(k);
            assert!(!marks.is_busy(k));
        }
    }

    /// `store_at` clamps a slot's index to the table. A slot comes from a probe of the same
    /// table, so in use the clamp never binds; a slot made up with an index past the end
    /// (one past the last slot, then the largest index) writes the last slot, one word or
    /// one pair, and nothing else of the table. The key's bucket is the first one, so the
    /// entry in the last slot is no key's: a probe of the key misses it, and
    /// `for_each_entry` (which yields only what a probe would return) yields nothing.
    #[test]
    fn a_slot_past_the_end_writes_the_last_slot() {
        for bits in [20u32, 100] {
            let t = Table::with_buckets(2, bits).unwrap();
            let two_word = t.layout() == Layout::TwoWord;
            let slots = if two_word {
                2 * WIDE_SLOTS_PER_BUCKET
            } else {
                2 * SLOTS_PER_BUCKET
            };
            let key = (0u64..)
                .find(|&k| t.probe_slot(k).1.index < slots / 2)
                .unwrap();
            let (_, slot) = t.probe_slot(key);
            for index in [slots, usize::MAX] {
                t.clear();
                t.store_at(Slot { index, ..slot }, 7, Bound::Exact, Some(3), 1);
                let last = if two_word {
                    (t.slots.get_pair(slots - 1).load(Ordering::Relaxed) >> 64) as u64
                } else {
                    t.slots.get(slots - 1).load(Ordering::Relaxed)
                };
                let e = unpack(last).expect("the last slot holds the entry");
                assert_eq!((e.value, e.best_move), (7, Some(3)), "{bits} bits, {index}");
                assert_eq!(t.fill(), 1.0 / slots as f64, "{bits} bits, {index}");
                assert_eq!(t.probe(key), None, "{bits} bits, {index}");
                let mut yielded = Vec::new();
                t.for_each_entry(0, |k, e| yielded.push((k, e)));
                assert!(yielded.is_empty(), "{bits} bits, {index}: {yielded:?}");
            }
        }
    }

    /// `pair_matches` is true exactly when the pair holds an entry (a bound in word 1:
    /// `unpack` reads one) whose word 0 is the key's low mixed bits and whose check bits are
    /// the key's high ones. An empty pair (all zero) matches no key, not even the key whose
    /// mixed bits are all zero; the entry whose word 1 is the bound alone (check 0, value
    /// -64, no move, work and generation 0) matches that key.
    #[test]
    fn pair_matches_only_an_entry_of_the_key() {
        let holds = |w0: u64, w1: u64, lo: u64, hi: u64| {
            unpack(w1).is_some() && w0 == lo && check_of(w1) == hi
        };
        assert!(!Table::pair_matches(0, 0, 0, 0));
        let bare = Entry {
            value: -VALUE_OFFSET,
            bound: Bound::Exact,
            best_move: None,
            work: 0,
            generation: 0,
        };
        assert!(Table::pair_matches(0, pack(0, &bare), 0, 0));
        let mut s = 0x9a1f_5eed_0bad_cafe;
        let (mut empty, mut matched) = (0, 0);
        for _ in 0..100_000 {
            let (w0, w1) = (rng(&mut s), rng(&mut s));
            let r = rng(&mut s);
            // The key's bits: the pair's own, or one bit off in either word.
            let lo = if r & 1 == 0 {
                w0
            } else {
                w0 ^ (1 << ((r >> 8) & 63))
            };
            let hi = if r & 2 == 0 {
                check_of(w1)
            } else {
                check_of(w1) ^ (1 << ((r >> 16) % u64::from(CHECK_BITS)))
            };
            let want = holds(w0, w1, lo, hi);
            assert_eq!(
                Table::pair_matches(w0, w1, lo, hi),
                want,
                "{w0:x} {w1:x} {lo:x} {hi:x}"
            );
            empty += usize::from(unpack(w1).is_none() && w0 == lo && check_of(w1) == hi);
            matched += usize::from(want);
        }
        assert!(empty > 1000 && matched > 1000, "{empty} {matched}");
    }

    /// The unchecked slot access is reached only through slots a probe of the same table
    /// chose; a slot of another table's probe (a larger one, or of the other layout) stores
    /// nothing, where its check bits could have passed for another key's.
    #[test]
    fn a_slot_of_another_table_stores_nothing() {
        let big = Table::with_buckets(1 << 10, 40).unwrap();
        let key = (0u64..).find(|&k| big.locate(k).0 >= 1000 * 8).unwrap();
        let slot = big.probe_slot(key).1;
        for bits in [20u32, 100] {
            let small = Table::with_buckets(1, bits).unwrap();
            small.store_at(slot, 3, Bound::Exact, None, 1);
            assert_eq!(small.fill(), 0.0, "{bits} bits");
            // The table's own slots still store.
            small.store_at(small.probe_slot(key).1, 3, Bound::Exact, None, 1);
            assert_eq!(small.probe(key).map(|e| e.value), Some(3), "{bits} bits");
        }
    }
}
