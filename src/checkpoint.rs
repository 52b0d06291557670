//! Checkpoints: a table's expensive entries in a file, so that a long solve survives a restart.
//!
//! This module owns the checkpoint file (its byte layout, checksum and validation), writing it
//! atomically from a live [`Table`], and loading it back into a table. It never searches and
//! never prints; [`crate::Engine::save_checkpoint`] and [`crate::Engine::load_checkpoint`] call
//! it with the engine's table and board, and the command line decides when.
//!
//! # What is saved
//!
//! The entries whose stored work (`floor(log2)` of the nodes their search took, see
//! [`crate::table`]) is at least a threshold, [`DEFAULT_MIN_WORK`] unless the caller asks
//! otherwise: a whole-board solve leaves tens of millions of entries, nearly all of them
//! cheap to find again, and the few expensive ones hold nearly all of its work.
//! BENCHMARKS.md ("Checkpoints") measures entries kept, file size and the nodes a
//! resumed solve saves for several thresholds.
//!
//! Each entry is saved with its full key ([`Table::for_each_entry`] rebuilds it from the slot
//! and checks it the way a probe does) and loaded back through [`Table::insert`], the table's
//! normal store: a loaded entry meets the same replacement rule and the same exact-key check
//! as any other, so it can be lost but never answer for another position. Entries are true
//! bounds of their positions' scores whatever search or generation wrote them (an interrupted
//! search stores nothing), so entries of an interrupted solve are as good as any. They get
//! the table's current generation, which a solve of the checkpoint's root keeps (it does not
//! start a new one), so they are not the first entries to be replaced.
//!
//! # Saving while searches run
//!
//! [`save`] may run while other threads search on the same table. It reads each slot once
//! through the probe's own loads and checks ([`Table::for_each_entry`]); what a checkpoint
//! holds for a key is what a probe of that key would have read from the table at that
//! moment, so it inherits the table's guarantee and adds no risk of its own: every slot, of
//! one word or two, is read in one atomic load, so it is always one whole write. Entries
//! stored or replaced during the scan may be in it or not: a checkpoint is a set of true
//! facts, not a snapshot, and needs to be no more, since every entry is a true bound
//! whatever else the table held with it.
//!
//! # The root's bounds
//!
//! Besides entries, a file may carry one root: the exact key of the position a solve was
//! solving when it was written, and the bounds of that position's score its null-window
//! driver had proven ([`crate::solver::RootBounds`]). The table alone does not keep them: its
//! entry for the root holds one bound, the latest, and a resumed driver would start from the
//! whole score range and prove again what was known (a resumed 8 x 5 solve spent 110 M nodes
//! re-proving "score >= 1"). [`crate::Engine::load_checkpoint`] hands the root to the solver,
//! and a later exact solve starts its driver from those bounds only when its position has
//! that exact key and stone count: a solve of any other position, of this board or another
//! (`analyze`'s columns, a book build's positions), ignores them, so bounds never answer for
//! a position they were not proven for.
//!
//! # File layout (version 3)
//!
//! All integers little-endian. `n` is the number of entries, `k` the key bytes: 8 when the
//! board's keys fit 64 bits, else 16.
//!
//! | offset | bytes        | field                                                        |
//! |--------|--------------|--------------------------------------------------------------|
//! | 0      | 8            | magic `FOURCKPT`                                             |
//! | 8      | 2            | format version, `u16` = 3                                    |
//! | 10     | 1            | board width `W`                                              |
//! | 11     | 1            | board height `H`                                             |
//! | 12     | 1            | key bits, `W * (H + 1)`                                      |
//! | 13     | 1            | the threshold the file was written with (least work kept)    |
//! | 14     | 1            | 1 when the file carries a root (below), else 0               |
//! | 15     | 1            | the key scheme, [`KEY_SCHEME`] = 1 (below)                   |
//! | 16     | 8            | `n`, `u64`                                                   |
//! | 24     | 8            | checksum (below) of bytes `0..24` then `32..`, `u64`         |
//! | 32     | 16           | the root's key, `u128` (zero without a root)                 |
//! | 48     | 1            | the root's stones (zero without a root)                      |
//! | 49     | 1            | the least score proven for the root, `i8` (zero without)     |
//! | 50     | 1            | the greatest score proven for the root, `i8` (zero without)  |
//! | 51     | 5            | zero                                                         |
//! | 56     | `n (k + 4)`  | entries: key (`k` bytes), then value (`i8`), bound (1 upper, |
//! |        |              | 2 lower, 3 exact), best column plus one (0: none), work      |
//!
//! The checksum covers the root's fields as it covers the entries.
//!
//! The key scheme names how a position's key is made, so that a file's keys are never taken
//! for keys of another scheme: scheme 1 is the table's key of this build,
//! [`crate::Position::reduced_key`] (the position's dead stones given to the player to move,
//! then the smaller of the two mirror images' `current + mask`). A build that changes the key
//! gives it a new id; a file of another scheme is refused as of another format.
//!
//! **Versions 1 and 2** (before the key scheme was named, and summed with a word-wise FNV-1a
//! under which two flipped top bits cancel) are refused with an error saying so: their keys
//! may be of an older scheme, so no entry of theirs can be trusted. The file is only a cache
//! of work: delete it and the solve starts afresh.
//!
//! The checksum is XXH3-64 (seed 0) of bytes `0..24` followed by bytes `32..` (the checksum
//! field itself left out): every bit of it depends on every bit of the file, so no small set
//! of flipped bits cancels (a random change passes with odds of 2^-64).
//!
//! Loading refuses, with a [`CheckpointError`] naming the file and the reason, and before
//! storing anything: a file shorter than its header says (truncated), longer (trailing
//! bytes), another magic, version or key scheme, another board, a checksum that does not
//! match, a root whose fields are out of range (a key beyond the board's bits, more stones
//! than cells, bounds outside the score range of that many stones or crossed), and any entry
//! whose key, value, bound, column or work is out of range.
//!
//! # Writing atomically, one writer at a time
//!
//! [`save`] writes a temporary file of its own, `FILE.tmp.<pid>.<n>` (created new, never
//! truncating another's), flushes it to the disk (`fsync`), renames it over `FILE` and flushes
//! the directory, so a crash (`kill -9`, power loss) at any moment leaves either the previous
//! checkpoint or the new one, whole, at `FILE`; a failed write removes its temporary file.
//!
//! A writer holds an exclusive advisory lock ([`Lock`], `flock` on Unix) on `FILE.lock`,
//! which is created next to `FILE` and kept (the lock, not the file, is what counts: the
//! kernel releases it when its holder exits, even by `kill -9`). `FILE` itself cannot carry
//! the lock, since every write replaces it by a rename. [`save`] takes the lock for its
//! write; a long-running writer (the command line's `--checkpoint`) takes it once with
//! [`Lock::acquire`] and writes with [`save_locked`]. While one writer holds it, a second
//! one, in this process or another, is refused with [`CheckpointError::Locked`] naming the
//! file, so two runs never write one checkpoint in turns (each would replace the other's).

use crate::solver::{Bounds, RootBounds};
use crate::table::{Bound, Entry, Table, MAX_WORK};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file's magic bytes.
pub const MAGIC: [u8; 8] = *b"FOURCKPT";
/// The format version this build writes and reads (older versions are refused).
pub const VERSION: u16 = 3;
/// The key scheme of this build's table keys (see the module docs), in byte 15 of a file.
pub const KEY_SCHEME: u8 = 1;
/// The header's size in bytes.
pub const HEADER: usize = 56;
/// Entries of at least this work (`floor(log2(nodes))`: 2^8 = 256 nodes) are saved by
/// default: 1 to 2 % of a solve's entries (a file of 2 to 3 % of the table's bytes), and a
/// 7 x 5, 6 x 6 or 6 x 7 solve stopped halfway and resumed from them takes 1.5 %, 4.5 % and
/// 6.5 % more nodes than one never stopped (all entries: 0 to 1 %, 15 to 80 times the file;
/// work 14: 4 % and 11 % on the two smaller boards).
/// BENCHMARKS.md, "Checkpoints", has the whole measurement.
pub const DEFAULT_MIN_WORK: u8 = 8;

/// Why a checkpoint could not be written or loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckpointError {
    /// Reading or writing a file failed.
    Io(String),
    /// The file is shorter than its header says.
    Truncated(String),
    /// The file is damaged: checksum, trailing bytes or an entry out of range.
    Corrupt(String),
    /// Not a checkpoint of this format (magic, version, key scheme).
    Format(String),
    /// The checkpoint is for another board size.
    WrongBoard(String),
    /// Another writer holds the checkpoint's lock (see [`Lock`]).
    Locked(String),
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Io(m)
            | CheckpointError::Truncated(m)
            | CheckpointError::Corrupt(m)
            | CheckpointError::Format(m)
            | CheckpointError::WrongBoard(m)
            | CheckpointError::Locked(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// What [`load`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// Entries in the file (all stored through the table's normal store).
    pub entries: usize,
    /// The root the file carries, with its proven bounds (none when the writer had no solve
    /// under way).
    pub root: Option<RootBounds>,
}

/// What [`parse`] found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The entries, each with its full key.
    pub entries: Vec<(u128, Entry)>,
    /// The root and its proven bounds, when the file carries one.
    pub root: Option<RootBounds>,
}

/// What [`save`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saved {
    /// Entries in the file.
    pub entries: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// The checksum of a whole file's bytes `b` (at least a header): XXH3-64 of bytes `0..24`
/// then `32..`, leaving out the checksum field (see the module docs).
fn file_checksum(b: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&b[..24]);
    h.update(&b[32..]);
    h.digest()
}

/// Bytes of one key in a file for keys of `key_bits` bits.
fn key_bytes(key_bits: u32) -> usize {
    if key_bits <= 64 {
        8
    } else {
        16
    }
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> CheckpointError {
    CheckpointError::Io(format!("cannot {what} checkpoint {}: {e}", path.display()))
}

/// `FILE.lock` next to `FILE`: the file a writer's [`Lock`] is held on.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut t = path.as_os_str().to_owned();
    t.push(".lock");
    PathBuf::from(t)
}

/// A temporary file name of this writer's next to `FILE`: `FILE.tmp.<pid>.<n>`, `n` new for
/// each call in this process.
fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    // ORDERING: Relaxed: a counter whose values only need to differ.
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut t = path.as_os_str().to_owned();
    t.push(format!(".tmp.{}.{n}", std::process::id()));
    PathBuf::from(t)
}

/// The exclusive right to write one checkpoint file: an advisory lock on `FILE.lock` (see
/// the module docs), released when dropped.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    _file: std::fs::File,
}

impl Lock {
    /// Takes the lock of the checkpoint `path` without waiting: a [`CheckpointError::Locked`]
    /// error naming the file while another writer (of this process or another) holds it, an
    /// [`CheckpointError::Io`] one when `FILE.lock` cannot be opened.
    pub fn acquire(path: impl AsRef<Path>) -> Result<Lock, CheckpointError> {
        let path = path.as_ref();
        let lp = lock_path(path);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lp)
            .map_err(|e| io_err("lock", path, e))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: `flock` on a descriptor this function owns (open until `file` drops).
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                    return Err(CheckpointError::Locked(format!(
                        "checkpoint {} is being written by another run (its lock {} is held); \
                         wait for that run to end or name another file",
                        path.display(),
                        lp.display()
                    )));
                }
                return Err(io_err("lock", path, e));
            }
        }
        Ok(Lock {
            path: path.to_path_buf(),
            _file: file,
        })
    }

    /// The checkpoint file this lock is for.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn encode(e: &Entry) -> [u8; 4] {
    [
        e.value as i8 as u8,
        e.bound as u8,
        e.best_move.map_or(0, |m| m + 1),
        e.work,
    ]
}

/// The file form of the entries of `table` (a `width` x `height` board) of work at least
/// `min_work`, and of `root` when given.
///
/// # Panics
/// If `root`'s bounds do not fit an `i8` (a score's range on any supported board does).
pub fn to_bytes(
    table: &Table,
    width: usize,
    height: usize,
    min_work: u8,
    root: Option<&RootBounds>,
) -> Vec<u8> {
    let bits = table.key_bits();
    let kb = key_bytes(bits);
    let mut b = vec![0u8; HEADER];
    let mut n = 0u64;
    table.for_each_entry(min_work, |key, e| {
        b.extend_from_slice(&key.to_le_bytes()[..kb]);
        b.extend_from_slice(&encode(&e));
        n += 1;
    });
    b[..8].copy_from_slice(&MAGIC);
    b[8..10].copy_from_slice(&VERSION.to_le_bytes());
    b[10] = width as u8;
    b[11] = height as u8;
    b[12] = bits as u8;
    b[13] = min_work;
    b[15] = KEY_SCHEME;
    if let Some(r) = root {
        let byte = |v: i32| i8::try_from(v).expect("a score fits an i8") as u8;
        b[14] = 1;
        b[32..48].copy_from_slice(&r.key.to_le_bytes());
        b[48] = u8::try_from(r.stones).expect("stones fit a u8");
        b[49] = byte(r.bounds.lower);
        b[50] = byte(r.bounds.upper);
    }
    b[16..24].copy_from_slice(&n.to_le_bytes());
    let sum = file_checksum(&b);
    b[24..32].copy_from_slice(&sum.to_le_bytes());
    b
}

/// Writes the entries of `table` (a `width` x `height` board) of work at least `min_work`,
/// and `root` when given, to `path`, atomically, holding its [`Lock`] while it writes (see
/// the module docs; another writer holding it is a [`CheckpointError::Locked`] error). Safe
/// while searches run on `table`.
pub fn save(
    table: &Table,
    width: usize,
    height: usize,
    min_work: u8,
    root: Option<&RootBounds>,
    path: impl AsRef<Path>,
) -> Result<Saved, CheckpointError> {
    let lock = Lock::acquire(path)?;
    save_locked(table, width, height, min_work, root, &lock)
}

/// [`save`] to the file of `lock`, which the caller holds.
pub fn save_locked(
    table: &Table,
    width: usize,
    height: usize,
    min_work: u8,
    root: Option<&RootBounds>,
    lock: &Lock,
) -> Result<Saved, CheckpointError> {
    let path = lock.path();
    let bytes = to_bytes(table, width, height, min_work, root);
    let entries = (bytes.len() - HEADER) / (key_bytes(table.key_bits()) + 4);
    let tmp = temp_path(path);
    let mut f = std::fs::File::create_new(&tmp).map_err(|e| io_err("create", &tmp, e))?;
    let written = f.write_all(&bytes).and_then(|()| f.sync_all());
    drop(f);
    let renamed = written
        .map_err(|e| io_err("write", &tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| io_err("write", path, e)));
    if let Err(e) = renamed {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(path).map_err(|e| io_err("write", path, e))?;
    Ok(Saved {
        entries,
        bytes: bytes.len() as u64,
    })
}

/// Flushes the directory holding `path`, so that the rename into it is on the disk.
fn sync_dir(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// True when `r` can be the root of a `width` x `height` board with keys of `key_bits` bits:
/// a key within those bits, an unfinished game's stones, and bounds within the score range
/// of that many stones that do not cross.
fn root_in_range(r: &RootBounds, width: usize, height: usize, key_bits: u32) -> bool {
    let cells = (width * height) as i32;
    let m = r.stones as i32;
    let Bounds { lower, upper } = r.bounds;
    (key_bits >= 128 || r.key >> key_bits == 0)
        && m < cells
        && -(cells - m) / 2 <= lower
        && lower <= upper
        && upper <= (cells + 1 - m) / 2
}

/// The entries and root of a checkpoint file's bytes for a `width` x `height` board with keys
/// of `key_bits` bits, every check of the module docs passed; `name` names the file in
/// errors.
pub fn parse(
    b: &[u8],
    width: usize,
    height: usize,
    key_bits: u32,
    name: &str,
) -> Result<Parsed, CheckpointError> {
    let truncated_header = |header: usize| {
        CheckpointError::Truncated(format!(
            "checkpoint {name} is truncated: {} bytes, shorter than its {header}-byte header",
            b.len()
        ))
    };
    if b.len() < 8 && MAGIC.starts_with(b) {
        return Err(truncated_header(HEADER));
    }
    if b.len() < 8 || b[..8] != MAGIC {
        return Err(CheckpointError::Format(format!(
            "{name} is not a fourfold checkpoint (bad magic bytes)"
        )));
    }
    if b.len() < 10 {
        return Err(truncated_header(HEADER));
    }
    let version = u16::from_le_bytes([b[8], b[9]]);
    if version != VERSION {
        let why = if version < VERSION {
            ", an older format whose keys this build cannot trust; delete the file to start \
             afresh"
        } else {
            ""
        };
        return Err(CheckpointError::Format(format!(
            "checkpoint {name} has format version {version}; this build reads version \
             {VERSION} only{why}"
        )));
    }
    let header = HEADER;
    if b.len() < header {
        return Err(truncated_header(header));
    }
    let (w, h) = (b[10] as usize, b[11] as usize);
    if (w, h) != (width, height) {
        return Err(CheckpointError::WrongBoard(format!(
            "checkpoint {name} is for the {w}x{h} board, not {width}x{height}"
        )));
    }
    if b[15] != KEY_SCHEME {
        return Err(CheckpointError::Format(format!(
            "checkpoint {name} has key scheme {}; this build's keys are of scheme {KEY_SCHEME}",
            b[15]
        )));
    }
    // Byte 14 says whether a root follows.
    let has_root = b[14] == 1;
    if b[12] as u32 != key_bits || b[14] > 1 {
        return Err(CheckpointError::Corrupt(format!(
            "checkpoint {name} is corrupt: its header is malformed"
        )));
    }
    let kb = key_bytes(key_bits);
    let n = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
    let expected = n
        .checked_mul(kb as u64 + 4)
        .and_then(|x| x.checked_add(header as u64));
    let found = b.len() as u64;
    match expected {
        Some(e) if found < e => {
            return Err(CheckpointError::Truncated(format!(
                "checkpoint {name} is truncated: {found} bytes where its header calls for {e}"
            )))
        }
        Some(e) if found > e => {
            return Err(CheckpointError::Corrupt(format!(
                "checkpoint {name} is corrupt: {} bytes after its last entry",
                found - e
            )))
        }
        Some(_) => {}
        None => {
            return Err(CheckpointError::Truncated(format!(
                "checkpoint {name} is truncated: its header calls for {n} entries"
            )))
        }
    }
    let stored = u64::from_le_bytes(b[24..32].try_into().expect("8 bytes"));
    let computed = file_checksum(b);
    if stored != computed {
        return Err(CheckpointError::Corrupt(format!(
            "checkpoint {name} is corrupt: checksum {computed:#018x} does not match the stored \
             {stored:#018x}"
        )));
    }
    let root = if has_root {
        let r = RootBounds {
            key: u128::from_le_bytes(b[32..48].try_into().expect("16 bytes")),
            stones: b[48] as u32,
            bounds: Bounds {
                lower: b[49] as i8 as i32,
                upper: b[50] as i8 as i32,
            },
        };
        if !root_in_range(&r, width, height, key_bits) || b[51..HEADER].iter().any(|&x| x != 0) {
            return Err(CheckpointError::Corrupt(format!(
                "checkpoint {name} is corrupt: its root's key, stones or score window \
                 [{}, {}] is out of range",
                r.bounds.lower, r.bounds.upper
            )));
        }
        Some(r)
    } else {
        if b[32..header].iter().any(|&x| x != 0) {
            return Err(CheckpointError::Corrupt(format!(
                "checkpoint {name} is corrupt: it has no root but root fields"
            )));
        }
        None
    };
    let mut entries = Vec::with_capacity(n as usize);
    for (i, r) in b[header..].chunks_exact(kb + 4).enumerate() {
        let mut key = [0u8; 16];
        key[..kb].copy_from_slice(&r[..kb]);
        let key = u128::from_le_bytes(key);
        let [value, bound, mv, work] = [r[kb], r[kb + 1], r[kb + 2], r[kb + 3]];
        let value = value as i8 as i32;
        let bound = match bound {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        };
        let in_range = key_bits >= 128 || key >> key_bits == 0;
        // The table's value field holds -64..=63 (see `crate::table`).
        match bound {
            Some(bound)
                if in_range
                    && (-64..64).contains(&value)
                    && (mv as usize) <= width
                    && work as u32 <= MAX_WORK =>
            {
                entries.push((
                    key,
                    Entry {
                        value,
                        bound,
                        best_move: mv.checked_sub(1),
                        work,
                        generation: 0,
                    },
                ))
            }
            _ => {
                return Err(CheckpointError::Corrupt(format!(
                    "checkpoint {name} is corrupt: entry {} is out of range",
                    i + 1
                )))
            }
        }
    }
    Ok(Parsed { entries, root })
}

/// Loads the checkpoint at `path` into `table` (a `width` x `height` board) through the
/// table's normal store, cheapest entries first (so that, in a table smaller than the one it
/// was written from, a full bucket keeps the most expensive); returns the number of entries
/// read and the file's root (which the caller hands to its solver). Nothing is stored unless
/// the whole file passes every check. Safe while searches run on `table`.
pub fn load(
    table: &Table,
    width: usize,
    height: usize,
    path: impl AsRef<Path>,
) -> Result<Loaded, CheckpointError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| io_err("read", path, e))?;
    let Parsed { mut entries, root } = parse(
        &bytes,
        width,
        height,
        table.key_bits(),
        &path.display().to_string(),
    )?;
    entries.sort_by_key(|(_, e)| e.work);
    for (key, e) in &entries {
        table.insert(*key, e);
    }
    Ok(Loaded {
        entries: entries.len(),
        root,
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::table::Layout;
    use std::collections::HashMap;

    fn rng(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// A table of `buckets` buckets for `bits`-bit keys, given `keys` random keys with entries
    /// of work 0..=20 (more keys than slots lets replacement run); returns the table and what
    /// a probe reads for each key it holds.
    fn filled(buckets: usize, keys: usize, bits: u32, seed: u64) -> (Table, HashMap<u128, Entry>) {
        let t = Table::with_buckets(buckets, bits).unwrap();
        let mask = if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let mut s = seed;
        let mut stored = Vec::new();
        for i in 0..keys {
            let key = ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & mask;
            let work = 1u64 << (i % 21);
            let mv = (i % 5 != 0).then_some((i % 7) as u8);
            let bound = [Bound::Upper, Bound::Lower, Bound::Exact][i % 3];
            t.store(key, (i % 41) as i32 - 20, bound, mv, work);
            stored.push(key);
        }
        let held = stored
            .into_iter()
            .filter_map(|k| t.probe(k).map(|e| (k, e)))
            .collect();
        (t, held)
    }

    fn same_fields(a: &Entry, b: &Entry) -> bool {
        (a.value, a.bound, a.best_move, a.work) == (b.value, b.bound, b.best_move, b.work)
    }

    /// One-word and two-word tables (64-bit keys in a small table, 100- and 126-bit keys):
    /// `for_each_entry` yields exactly the stored keys a probe finds, with the probe's entry;
    /// the file of those of work >= 8 parses back to them, and loading it into a fresh table
    /// makes a probe of each key return its fields (into a smaller one: of the keys kept).
    #[test]
    fn entries_round_trip_with_their_full_keys() {
        for (buckets, bits, layout) in [
            (1000usize, 49u32, Layout::OneWord),
            (300, 20, Layout::OneWord),
            (1000, 64, Layout::TwoWord),
            (1000, 100, Layout::TwoWord),
            (1usize << 22, 126, Layout::TwoWord),
        ] {
            // 2^22 buckets for 126 bits is 256 MiB of address space, touched sparsely: only
            // a few keys.
            let keys = if bits == 126 { 2000 } else { buckets * 10 };
            let (t, held) = filled(buckets, keys, bits, 17 + bits as u64);
            assert_eq!(t.layout(), layout, "{bits}");
            let mut seen = HashMap::new();
            t.for_each_entry(0, |k, e| {
                assert!(seen.insert(k, e).is_none(), "{bits}: key {k:#x} twice");
            });
            assert_eq!(seen.len(), held.len(), "{bits}");
            for (k, e) in &held {
                assert_eq!(seen.get(k), Some(e), "{bits}: {k:#x}");
            }
            let bytes = to_bytes(&t, 7, 6, 8, None);
            let parsed = parse(&bytes, 7, 6, bits, "x").unwrap();
            assert_eq!(parsed.root, None);
            let parsed = parsed.entries;
            let want: HashMap<u128, Entry> = held
                .iter()
                .filter(|(_, e)| e.work >= 8)
                .map(|(k, e)| (*k, *e))
                .collect();
            assert!(want.len() > 10 && want.len() < held.len(), "{bits}");
            assert_eq!(parsed.len(), want.len(), "{bits}");
            // A table of the same size holds every one of them again (they were all in the
            // same buckets at once); a smaller one (where it can be built) keeps some, each
            // exactly.
            let fresh = Table::with_buckets(buckets, bits).unwrap();
            let smaller = Table::with_buckets(buckets / 2, bits).ok();
            for (k, e) in &parsed {
                assert!(same_fields(e, &want[k]), "{bits}: {k:#x}");
                fresh.insert(*k, e);
                if let Some(s) = &smaller {
                    s.insert(*k, e);
                }
            }
            for (k, e) in &want {
                let got = fresh.probe(*k).expect("a loaded entry");
                assert!(same_fields(&got, e), "{bits}: {k:#x}");
                if let Some(got) = smaller.as_ref().and_then(|s| s.probe(*k)) {
                    assert!(same_fields(&got, e), "{bits}: {k:#x}");
                }
            }
        }
    }

    /// A root of the 7 x 6 board: a key, one stone, the score in [-2, 5].
    const ROOT: RootBounds = RootBounds {
        key: 0x3 << 21,
        stones: 1,
        bounds: Bounds {
            lower: -2,
            upper: 5,
        },
    };

    fn small_file() -> Vec<u8> {
        let (t, _) = filled(64, 640, 49, 5);
        let b = to_bytes(&t, 7, 6, 4, Some(&ROOT));
        assert!(b.len() > HEADER + 100);
        b
    }

    /// `b` with its checksum made to match its bytes again.
    fn resummed(mut b: Vec<u8>) -> Vec<u8> {
        let sum = file_checksum(&b);
        b[24..32].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// The root round-trips; a file without one parses to none.
    #[test]
    fn the_root_and_its_bounds_round_trip() {
        let b = small_file();
        let p = parse(&b, 7, 6, 49, "f").unwrap();
        assert_eq!(p.root, Some(ROOT));
        let (t, _) = filled(64, 640, 49, 5);
        let without = to_bytes(&t, 7, 6, 4, None);
        let q = parse(&without, 7, 6, 49, "f").unwrap();
        assert_eq!(q.root, None);
        assert_eq!(q.entries, p.entries);
        // Every score range's extremes fit: the empty 8 x 8 board, two-word keys.
        let wide = RootBounds {
            key: (1u128 << 72) - 1,
            stones: 0,
            bounds: Bounds {
                lower: -32,
                upper: 32,
            },
        };
        let t = Table::with_buckets(64, 72).unwrap();
        let b = to_bytes(&t, 8, 8, 8, Some(&wide));
        assert_eq!(parse(&b, 8, 8, 72, "f").unwrap().root, Some(wide));
    }

    /// The FNV-1a 64 word-wise sum of versions 1 and 2, to build their files.
    fn old_sum(b: &[u8]) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let bytes = [&b[..24], &b[32..]].concat();
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(0x100_0000_01b3);
        }
        for &x in words.remainder() {
            h = (h ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
        h
    }

    /// Files of versions 1 and 2 (no key scheme, the old sum), each whole and valid in its
    /// own format, are refused as an older format, saying to delete them; so is a file of
    /// another key scheme under a good checksum, and one of a later version.
    #[test]
    fn older_formats_and_other_key_schemes_are_refused() {
        let (t, _) = filled(64, 640, 49, 5);
        let v3 = to_bytes(&t, 7, 6, 4, None);
        let mut v2 = v3.clone();
        v2[8..10].copy_from_slice(&2u16.to_le_bytes());
        v2[15] = 0;
        let mut v1 = [&v2[..32], &v2[HEADER..]].concat();
        v1[8..10].copy_from_slice(&1u16.to_le_bytes());
        for (version, mut old) in [(2, v2), (1, v1)] {
            let sum = old_sum(&old);
            old[24..32].copy_from_slice(&sum.to_le_bytes());
            let e = parse(&old, 7, 6, 49, "f").unwrap_err();
            assert!(matches!(e, CheckpointError::Format(_)), "{version}: {e}");
            let m = e.to_string();
            assert!(
                m.contains(&format!("format version {version}"))
                    && m.contains("older format")
                    && m.contains("delete the file"),
                "{m}"
            );
        }
        let mut other = v3.clone();
        other[15] = KEY_SCHEME + 1;
        let e = parse(&resummed(other), 7, 6, 49, "f").unwrap_err();
        assert!(matches!(e, CheckpointError::Format(_)), "{e}");
        assert!(e.to_string().contains("key scheme 2"), "{e}");
        let mut later = v3;
        later[8..10].copy_from_slice(&(VERSION + 1).to_le_bytes());
        let e = parse(&resummed(later), 7, 6, 49, "f").unwrap_err();
        assert!(e.to_string().contains("version 4") && !e.to_string().contains("older"));
    }

    /// A damaged root is refused, even under a valid checksum: crossed bounds, bounds
    /// outside the score range of its stones, a finished game's stones, a key beyond the
    /// board's bits, bytes in its padding, root fields without the flag, a flag of 2.
    #[test]
    fn a_damaged_root_is_refused_even_with_a_good_checksum() {
        let b = small_file();
        // 7 x 6 after one stone: scores -20..=21.
        for (at, bad) in [
            (49usize, 6u8),      // lower 6 > upper 5
            (50, (-3i8) as u8),  // upper -3 < lower -2
            (49, (-21i8) as u8), // lower below -20
            (50, 22),            // upper above 21
            (48, 42),            // 42 stones: the board is full
            (46, 0x02),          // key bit 113, beyond 49 bits
            (38, 0x02),          // key bit 49
            (53, 1),             // padding
            (14, 2),             // flag 2
        ] {
            let mut c = b.clone();
            c[at] = bad;
            let e = parse(&resummed(c), 7, 6, 49, "f").unwrap_err();
            assert!(matches!(e, CheckpointError::Corrupt(_)), "{at}: {e}");
        }
        let e = {
            let mut c = b.clone();
            c[49] = 6;
            parse(&resummed(c), 7, 6, 49, "f").unwrap_err()
        };
        assert!(
            e.to_string()
                .contains("root's key, stones or score window [6, 5]"),
            "{e}"
        );
        // No root, yet root fields.
        let mut c = b.clone();
        c[14] = 0;
        let e = parse(&resummed(c), 7, 6, 49, "f").unwrap_err();
        assert!(e.to_string().contains("no root but root fields"), "{e}");
        // A bound that stays in range but changes, without a new checksum: the checksum.
        let mut c = b.clone();
        c[50] = 4;
        let e = parse(&c, 7, 6, 49, "f").unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
    }

    /// Every single-byte change anywhere in a file is refused (the header's fields by their
    /// checks, the rest by the checksum), and so is every shorter prefix of it.
    #[test]
    fn any_flipped_byte_or_truncation_is_refused() {
        let b = small_file();
        assert!(parse(&b, 7, 6, 49, "f").is_ok());
        for i in 0..b.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut c = b.clone();
                c[i] ^= flip;
                assert!(parse(&c, 7, 6, 49, "f").is_err(), "byte {i} ^ {flip:#x}");
            }
        }
        for len in 0..b.len() {
            let e = parse(&b[..len], 7, 6, 49, "f").unwrap_err();
            assert!(matches!(e, CheckpointError::Truncated(_)), "{len}: {e}");
            assert!(e.to_string().contains("truncated"), "{e}");
        }
        let mut longer = b.clone();
        longer.push(0);
        let e = parse(&longer, 7, 6, 49, "f").unwrap_err();
        assert!(matches!(e, CheckpointError::Corrupt(_)), "{e}");
    }

    /// Two flipped bits that cancel in a word-wise sum are refused: bit 63 of two 8-byte
    /// words (offsets 71 and 95 of a 7 x 6 file: bit 31 of two entries' keys, which stay in
    /// range and would re-key both entries), and every other pair of top bits of the body.
    #[test]
    fn two_flipped_top_bits_are_refused() {
        let b = small_file();
        let mut c = b.clone();
        c[71] ^= 0x80;
        c[95] ^= 0x80;
        let e = parse(&c, 7, 6, 49, "f").unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        let tops: Vec<usize> = (HEADER + 7..b.len()).step_by(8).collect();
        for (i, &x) in tops.iter().enumerate() {
            for &y in &tops[i + 1..] {
                let mut c = b.clone();
                c[x] ^= 0x80;
                c[y] ^= 0x80;
                assert!(parse(&c, 7, 6, 49, "f").is_err(), "bytes {x} and {y}");
            }
        }
    }

    #[test]
    fn another_board_or_format_is_named() {
        let b = small_file();
        let e = parse(&b, 6, 7, 49, "f").unwrap_err();
        assert!(matches!(e, CheckpointError::WrongBoard(_)), "{e}");
        assert!(
            e.to_string().contains("7x6") && e.to_string().contains("6x7"),
            "{e}"
        );
        let e = parse(
            b"FOURBOOK and more bytes than a header needs.....",
            7,
            6,
            49,
            "f",
        );
        assert!(matches!(e, Err(CheckpointError::Format(_))), "{e:?}");
        let mut v = b.clone();
        v[8] = 7;
        let e = parse(&v, 7, 6, 49, "f").unwrap_err();
        assert!(e.to_string().contains("version 7"), "{e}");
    }

    /// An entry out of range under a valid checksum (a file written by something else) is
    /// refused too, and loading stores nothing then.
    #[test]
    fn entries_out_of_range_are_refused_even_with_a_good_checksum() {
        let b = small_file();
        // The first entry's fields: key 0..8, value 8, bound 9, move 10, work 11.
        for (at, bad) in [
            (9usize, 0u8),
            (9, 4),
            (10, 9),
            (11, 64),
            (8, 100),
            (6, 0x02),
        ] {
            let mut c = b.clone();
            c[HEADER + at] = bad;
            let c = resummed(c);
            let e = parse(&c, 7, 6, 49, "f").unwrap_err();
            assert!(
                e.to_string().contains("entry 1 is out of range"),
                "{at}: {e}"
            );
            let dir = std::env::temp_dir().join(format!("ff-ckpt-range-{}", std::process::id()));
            std::fs::write(&dir, &c).unwrap();
            let t = Table::with_buckets(64, 49).unwrap();
            assert!(load(&t, 7, 6, &dir).is_err());
            let _ = std::fs::remove_file(&dir);
            let mut any = false;
            t.for_each_entry(0, |_, _| any = true);
            assert!(!any, "nothing stored from a refused file");
        }
    }

    /// `save` writes the file whole through `FILE.tmp` and leaves no temporary behind;
    /// `load` reads it back; a missing file is an I/O error naming it.
    #[test]
    fn save_and_load_a_file() {
        let (t, held) = filled(256, 2560, 49, 9);
        let dir = std::env::temp_dir().join(format!("ff-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.ckpt");
        let saved = save(&t, 7, 6, 0, Some(&ROOT), &path).unwrap();
        assert_eq!(saved.entries, held.len());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), saved.bytes);
        let names = |dir: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            names(&dir),
            ["c.ckpt", "c.ckpt.lock"],
            "no temporary file left"
        );
        let fresh = Table::with_buckets(256, 49).unwrap();
        assert_eq!(
            load(&fresh, 7, 6, &path).unwrap(),
            Loaded {
                entries: held.len(),
                root: Some(ROOT)
            }
        );
        for (k, e) in &held {
            assert!(same_fields(&fresh.probe(*k).unwrap(), e));
        }
        let e = load(&fresh, 7, 6, dir.join("missing")).unwrap_err();
        assert!(matches!(e, CheckpointError::Io(_)) && e.to_string().contains("missing"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// While one writer holds a file's lock, a second `save` of it (another `Lock` of this
    /// process, as of another) is refused naming the file, and the file is unchanged; once
    /// the first lets go, the second writes. Other files are not locked.
    #[test]
    fn a_second_writer_is_refused_while_the_first_holds_the_lock() {
        let (t, _) = filled(256, 2560, 49, 9);
        let dir = std::env::temp_dir().join(format!("ff-ckpt-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.ckpt");
        let first = Lock::acquire(&path).unwrap();
        save_locked(&t, 7, 6, 8, None, &first).unwrap();
        let before = std::fs::read(&path).unwrap();
        let e = save(&t, 7, 6, 0, Some(&ROOT), &path).unwrap_err();
        assert!(matches!(e, CheckpointError::Locked(_)), "{e}");
        assert!(
            e.to_string().contains(&*path.to_string_lossy())
                && e.to_string().contains("another run"),
            "{e}"
        );
        assert!(matches!(
            Lock::acquire(&path),
            Err(CheckpointError::Locked(_))
        ));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        save(&t, 7, 6, 0, None, dir.join("other.ckpt")).unwrap();
        drop(first);
        save(&t, 7, 6, 0, Some(&ROOT), &path).unwrap();
        assert_eq!(
            parse(&std::fs::read(&path).unwrap(), 7, 6, 49, "f")
                .unwrap()
                .root,
            Some(ROOT)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Another writer's temporary files (one named `FILE.tmp`, one `FILE.tmp.<pid>.<n>` of
    /// another process, a killed writer's half-written one) are left as they are: a save
    /// writes and renames a file of its own, and the good file stays loadable throughout.
    #[test]
    fn another_writers_temporary_files_are_left_alone() {
        let (t, held) = filled(256, 2560, 49, 9);
        let dir = std::env::temp_dir().join(format!("ff-ckpt-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.ckpt");
        save(&t, 7, 6, 0, None, &path).unwrap();
        let others = [dir.join("c.ckpt.tmp"), dir.join("c.ckpt.tmp.1.0")];
        let good = std::fs::read(&path).unwrap();
        for (i, o) in others.iter().enumerate() {
            // A killed writer's temporary file: half of a checkpoint.
            std::fs::write(o, &good[..good.len() / (2 + i)]).unwrap();
        }
        save(&t, 7, 6, 0, Some(&ROOT), &path).unwrap();
        for (i, o) in others.iter().enumerate() {
            assert_eq!(std::fs::read(o).unwrap(), &good[..good.len() / (2 + i)]);
        }
        let fresh = Table::with_buckets(256, 49).unwrap();
        let loaded = load(&fresh, 7, 6, &path).unwrap();
        assert_eq!((loaded.entries, loaded.root), (held.len(), Some(ROOT)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
