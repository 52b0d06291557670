//! Ctrl-C during a solve: the SIGINT that Python would turn into `KeyboardInterrupt`.
//!
//! This module owns the process's SIGINT disposition for the length of one solve on Python's
//! main thread, and nothing else: it raises the solver's stop flag when the signal comes and
//! hands the signal back to Python's own handler afterwards. It does not solve or convert
//! results.
//!
//! Python runs signal handlers only between bytecodes of the main thread, so a solve that
//! holds the main thread (with the GIL released) would not see Ctrl-C until it finished. For
//! the length of the solve a C-level handler is installed instead of Python's; it only
//! raises the engine's stop flag (an atomic store, async-signal-safe). When the solve
//! returns, Python's handler is put back, the signal is raised again for it, and
//! `check_signals` runs it: by default that raises `KeyboardInterrupt`. Two `sigaction`
//! calls per solve cost far less than a watcher thread per call would.
//!
//! On other threads than the main one (Python never delivers signals there), and on systems
//! other than Linux, solves run without the handler and Ctrl-C waits for the end of the solve.

use fourfold_lib::StopFlag;
use pyo3::prelude::*;
use std::sync::Arc;

/// Runs `f` with the GIL released and Ctrl-C raising `stop`. Returns `f`'s result, or the
/// exception Python's SIGINT handler raised (`KeyboardInterrupt` by default) when Ctrl-C came
/// during the solve. A raised `stop` is lowered again before returning.
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    stop: &Arc<StopFlag>,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let Some(guard) = imp::Guard::install(stop) else {
        let out = py.detach(f);
        lower(stop);
        return Ok(out);
    };
    let out = py.detach(f);
    let caught = guard.remove();
    lower(stop);
    if caught {
        imp::redeliver();
        py.check_signals()?;
    }
    Ok(out)
}

/// Lowers the flag after a solve that it stopped (Ctrl-C or `Solver.stop`), for the next.
fn lower(stop: &StopFlag) {
    if stop.is_raised() {
        stop.lower();
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use fourfold_lib::StopFlag;
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};
    use std::sync::Arc;

    /// The stop flag of the solve in progress (from `Arc::into_raw`), or null.
    static ACTIVE: AtomicPtr<StopFlag> = AtomicPtr::new(std::ptr::null_mut());
    /// Handlers running right now (on any thread).
    static IN_HANDLER: AtomicUsize = AtomicUsize::new(0);
    /// A SIGINT arrived while our handler was installed.
    static CAUGHT: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_sigint(_signal: libc::c_int) {
        // ORDERING: SeqCst on IN_HANDLER and ACTIVE: if this load sees the flag, the
        // increment before it is ordered before `remove`'s swap, so `remove` waits for the
        // decrement below before it frees the flag.
        IN_HANDLER.fetch_add(1, SeqCst);
        // ORDERING: SeqCst, read by `remove` after the handler is gone; nothing else is
        // published through it.
        CAUGHT.store(true, SeqCst);
        let flag = ACTIVE.load(SeqCst);
        if !flag.is_null() {
            // SAFETY: a non-null ACTIVE came from `Arc::into_raw` in `install`, and `remove`
            // keeps that Arc alive until IN_HANDLER, incremented above before this load,
            // drops back to zero. `StopFlag::raise` is one atomic store: async-signal-safe.
            unsafe { (*flag).raise() };
        }
        // ORDERING: SeqCst, see the increment.
        IN_HANDLER.fetch_sub(1, SeqCst);
    }

    /// Our SIGINT handler is installed; `remove` puts the previous one back.
    pub(super) struct Guard {
        old: libc::sigaction,
    }

    impl Guard {
        /// Installs the handler for a solve raising `stop`, when on the main thread of the
        /// process and when Python (or the embedding program) does not ignore SIGINT.
        pub(super) fn install(stop: &Arc<StopFlag>) -> Option<Guard> {
            // SAFETY: getpid and gettid have no preconditions. On Linux the main thread's id
            // is the process id.
            if unsafe { libc::gettid() != libc::getpid() } {
                return None;
            }
            // ORDERING: SeqCst, see `on_sigint`.
            let raw = Arc::into_raw(Arc::clone(stop)) as *mut StopFlag;
            let prev = ACTIVE.swap(raw, SeqCst);
            debug_assert!(
                prev.is_null(),
                "one guarded solve at a time on the main thread"
            );
            // SAFETY: an all-zero sigaction is a valid value (empty mask, no flags).
            let mut new: libc::sigaction = unsafe { std::mem::zeroed() };
            new.sa_sigaction = on_sigint as *const () as libc::sighandler_t;
            new.sa_flags = libc::SA_ONSTACK;
            // SAFETY: as above.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: `new` and `old` are valid sigaction structs; the handler only touches
            // atomics.
            let rc = unsafe { libc::sigaction(libc::SIGINT, &new, &mut old) };
            let guard = Guard { old };
            if rc != 0 || old.sa_sigaction == libc::SIG_IGN {
                // Failed, or SIGINT is ignored: leave it as it was.
                guard.remove();
                return None;
            }
            Some(guard)
        }

        /// Puts the previous handler back, and tells whether a SIGINT came meanwhile.
        pub(super) fn remove(self) -> bool {
            // SAFETY: `self.old` is what sigaction returned for SIGINT in `install`.
            unsafe { libc::sigaction(libc::SIGINT, &self.old, std::ptr::null_mut()) };
            // ORDERING: SeqCst, see `on_sigint`.
            let raw = ACTIVE.swap(std::ptr::null_mut(), SeqCst);
            // ORDERING: SeqCst, see `on_sigint`.
            while IN_HANDLER.load(SeqCst) != 0 {
                std::hint::spin_loop();
            }
            if !raw.is_null() {
                // SAFETY: `raw` came from `Arc::into_raw` in `install`, and no handler can
                // reach it any more (ACTIVE is null and IN_HANDLER was zero after that).
                drop(unsafe { Arc::from_raw(raw) });
            }
            // ORDERING: SeqCst, see `on_sigint`.
            CAUGHT.swap(false, SeqCst)
        }
    }

    /// Raises SIGINT again for the handler now in place (Python's).
    pub(super) fn redeliver() {
        // SAFETY: raise has no preconditions; the handler is Python's own.
        unsafe { libc::raise(libc::SIGINT) };
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use fourfold_lib::StopFlag;
    use std::sync::Arc;

    /// No handler on this system: solves are not interrupted by Ctrl-C.
    pub(super) struct Guard;

    impl Guard {
        pub(super) fn install(_stop: &Arc<StopFlag>) -> Option<Guard> {
            None
        }

        pub(super) fn remove(self) -> bool {
            false
        }
    }

    pub(super) fn redeliver() {}
}
