//! The atomic types the table and the stop flag are built on, in one place.
//!
//! Under `--cfg loom` they are loom's model-checked atomics, so the `loom-tests` crate checks
//! the production table and stop flag rather than a copy; otherwise they are `std`'s. Nothing
//! else in the crate may name `std::sync::atomic` for shared search state.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// A flag that asks every search thread to stop.
///
/// Raising it is a request: threads notice it at their next poll (every few thousand nodes),
/// abandon their search and store nothing for the interrupted nodes. Reset it with
/// [`StopFlag::lower`] before the next solve.
#[derive(Debug, Default)]
pub struct StopFlag(AtomicBool);

impl StopFlag {
    /// A lowered flag.
    pub fn new() -> Self {
        StopFlag(AtomicBool::new(false))
    }

    /// Asks every search that polls this flag to stop.
    pub fn raise(&self) {
        // ORDERING: Release pairs with the Acquire in `is_raised`: whatever the raising thread
        // wrote before (a result, a deadline) is visible to a thread that sees the flag up.
        // The flag publishes nothing else.
        self.0.store(true, Ordering::Release);
    }

    /// Lowers the flag for the next solve.
    pub fn lower(&self) {
        // ORDERING: Relaxed: lowering happens before search threads are started, and thread
        // start is itself a happens-before edge.
        self.0.store(false, Ordering::Relaxed);
    }

    /// True once the flag was raised.
    #[inline]
    pub fn is_raised(&self) -> bool {
        // ORDERING: Acquire pairs with the Release in `raise`.
        self.0.load(Ordering::Acquire)
    }
}
