//! The busy marks: which nodes other threads of a solve are searching right now, so that a
//! thread can put those children off.

use super::mix::MUL1;
use crate::sync::{AtomicU64, Ordering};

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
