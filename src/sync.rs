//! The atomic types the table and the stop flag are built on, in one place.
//!
//! Under `--cfg loom` they are loom's model-checked atomics, so the `loom-tests` crate checks
//! the production table and stop flag rather than a copy; otherwise they are `std`'s. Nothing
//! else in the crate may name `std::sync::atomic` for shared search state.
//!
//! `AtomicU128` (the two-word table slots) is `portable-atomic`'s outside loom: one 16-byte
//! load or store, never two 8-byte halves (see `src/table/two_word.rs` for what it compiles
//! to). Loom has no 128-bit atomic, so under loom it is [`loom_u128::AtomicU128`], a
//! `u128` behind a loom mutex: atomic by construction, a model of a 16-byte atomic.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(loom)]
pub(crate) use loom_u128::AtomicU128;
#[cfg(not(loom))]
pub(crate) use portable_atomic::AtomicU128;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

#[cfg(loom)]
mod loom_u128 {
    //! The loom model of a 16-byte atomic.
    use super::Ordering;

    /// A `u128` that is loaded and stored whole: a loom mutex around it, so every load and
    /// store is one indivisible step that loom interleaves with the other threads' steps.
    /// It models `portable_atomic::AtomicU128` (a 16-byte `vmovdqa` or `cmpxchg16b`), whose
    /// only property the table relies on is that a load returns some store's whole value.
    /// The mutex orders more than a `Relaxed` atomic would, so the models cannot catch a
    /// missing ordering on these slots; none is needed (the table's `ORDERING:` notes).
    #[derive(Debug)]
    pub(crate) struct AtomicU128(loom::sync::Mutex<u128>);

    impl AtomicU128 {
        pub(crate) fn new(v: u128) -> Self {
            AtomicU128(loom::sync::Mutex::new(v))
        }

        pub(crate) fn load(&self, _order: Ordering) -> u128 {
            *self
                .0
                .lock()
                .expect("no model thread panics holding a slot")
        }

        /// Always: the model stands for a lock-free 16-byte atomic.
        pub(crate) fn is_lock_free() -> bool {
            true
        }

        pub(crate) fn store(&self, v: u128, _order: Ordering) {
            *self
                .0
                .lock()
                .expect("no model thread panics holding a slot") = v;
        }
    }
}

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
