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
// SAFETY: as above: every access goes through a shared reference to an atomic (`&AtomicU64`
// on a one-word table, `&AtomicU128` on a two-word one).
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
            let all =
                unsafe { std::slice::from_raw_parts(self.ptr.cast::<AtomicU128>(), self.len / 2) };
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
