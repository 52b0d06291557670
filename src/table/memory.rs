//! The table's memory budget: the machine's physical memory, the check that a table fits,
//! and the error of a table that cannot be built.

use std::fmt;

/// Why a table could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub(super) msg: String,
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
pub(super) fn memory_of(pages: libc::c_long, page: libc::c_long) -> Option<u64> {
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
pub(super) fn check_fits(bytes: u64, memory: Option<u64>) -> Result<(), TableError> {
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
