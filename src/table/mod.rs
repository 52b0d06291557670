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
//!   (`CHECK_BITS` = 40): eight one-word slots per bucket (`slot`: the layout and why a match
//!   is exact). Every board
//!   up to 40 + 14 = 54 key bits (7 x 6, 8 x 5, 6 x 7, 5 x 8, 9 x 5, ...) gets it at any size
//!   (1 MiB is 2^14 buckets); 8 x 6 and 7 x 7 (56 bits) from 4 MiB (2^16 buckets), 8 x 7
//!   (64 bits) from 1 GiB (2^24 buckets); smaller tables give them two words.
//! - **Two words** ([`Layout::TwoWord`]) otherwise, when `i + WIDE_CHECK_BITS >= K`
//!   (`WIDE_CHECK_BITS` = 104): four two-word slots per bucket (`two_word`: the layout and
//!   its proof). Every board up to 104 key bits gets it at any size; wider keys (9 x 12: 117, 10 x 11: 120, 12 x
//!   9: 120, 11 x 10: 121, 9 x 13: 126 bits) need `2^(K - 104)` buckets, at most 256 MiB.
//! - Refused otherwise, with the size the board needs ([`Table::new`]).
//!
//! [`Table::layout_for`] is the rule; a test runs it over every board size 4..=12 x 4..=13
//! whose key fits 128 bits and a range of table sizes.
//!
//! # Where each part lives
//!
//! - `slot`: the bit layout of an entry, packing, and why a one-word slot that matches a key
//!   is that key's entry.
//! - `mix`: the bijective key mix ([`mix`], [`mix128`]).
//! - `one_word` and `two_word`: probe and store for each layout; `two_word` holds the proof
//!   for the 16-byte slots and what their atomics compile to.
//! - `lossy`: the check-bits experiment's lossy table, which keeps fewer check bits than
//!   the exact width on purpose (crate-private: no solve can select it).
//! - `near`: the small per-thread tables of the nodes near the end ([`Table::with_near`]).
//! - `marks`: [`InProgress`], the busy marks of the nodes being searched.
//! - `storage`: the memory (zeroed pages from the OS, huge pages asked for); under loom,
//!   `loom_storage` models it.
//! - `memory`: the machine's memory and the check that a table fits.
//! - This module: [`Table`] itself (building, generations, probe and store by layout,
//!   fill, clear, and the walk over every entry that checkpoints use).
//!
//! # Replacement
//!
//! A bucket is eight slots on one 64-byte cache line. A store reuses the slot that already
//! holds its key, else an empty slot, else the slot of least worth: an entry of an older
//! generation is worth less than any entry of the current one, and within a generation the
//! entry with the least work goes first.
//!

#[cfg(loom)]
mod loom_storage;
mod lossy;
mod marks;
mod memory;
mod mix;
mod near;
mod one_word;
mod slot;
#[cfg(not(loom))]
mod storage;
#[cfg(all(test, not(loom)))]
mod tests;
mod two_word;

#[cfg(loom)]
use loom_storage::Slots;
#[cfg(not(loom))]
use storage::Slots;

pub use marks::InProgress;
pub use memory::{physical_memory, TableError};
pub use mix::{mix, mix128, unmix, unmix128};
pub use slot::{
    Bound, Entry, CHECK_BITS, GENERATIONS, MAX_KEY_BITS, MAX_WORK, WIDE_CHECK_BITS,
    WIDE_SLOTS_PER_BUCKET,
};

use crate::bitboard::Bitboard;
use crate::sync::{AtomicU32, Ordering};
use lossy::Lossy;
pub(crate) use lossy::PLIES;
use memory::check_fits;
use mix::{key_mask, key_mask_wide};
use slot::{check_of, pack, unpack};
use std::fmt;

/// Slots per bucket: one 64-byte cache line.
pub const SLOTS_PER_BUCKET: usize = 8;
/// Bytes per bucket.
pub const BUCKET_BYTES: usize = SLOTS_PER_BUCKET * 8;

/// The default table size in MiB when none is given to a solver's builder.
pub const DEFAULT_TABLE_MIB: usize = 256;
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
    /// Not the plain one-word layout: two words, or lossy. The probe and store paths branch
    /// on this one flag, as they would on `two_word` alone.
    special: bool,
    /// The check-bits experiment's state, on a lossy table only ([`Table::lossy`]).
    lossy: Option<Box<Lossy>>,
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
        if layout == Layout::TwoWord {
            two_word::check_lock_free(key_bits)?;
        }
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
            special: layout == Layout::TwoWord,
            lossy: None,
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
        if self.special {
            match self.lossy.as_deref() {
                Some(l) => self.probe_slot_lossy(l, key.low_u64()),
                None => self.probe_slot_wide(key.to_u128()),
            }
        } else {
            self.probe_slot_narrow(key.low_u64())
        }
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
        if self.special {
            if let Some(l) = self.lossy.as_deref() {
                self.store_at_lossy(l, slot, pack(slot.check, &entry));
                return;
            }
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
        if self.special {
            match self.lossy.as_deref() {
                Some(l) => self.store_lossy(l, key.low_u64(), value, bound, best_move, work),
                None => self.store_wide(key.to_u128(), value, bound, best_move, work),
            }
        } else {
            self.store_narrow(key.low_u64(), value, bound, best_move, work);
        }
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
