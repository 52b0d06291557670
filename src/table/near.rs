//! The near tables: small per-thread tables for the nodes near the end of the game.
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

use super::memory::check_fits;
use super::{
    physical_memory, Table, TableError, BUCKET_BYTES, MAX_MIB, NEAR_FROM_MIB, NEAR_MAX_MIB,
    NEAR_MIB,
};

impl Table {
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
    /// went (docs/search-ledger.md, "Near tables"). Each part is a table of its own, exact by
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
}
