//! The opening book: every position with `N` stones solved ahead of time, its file format,
//! loading, lookup and building.
//!
//! This module owns the book file (its byte layout, checksum and validation), the lookup that
//! answers any position with at most `N` stones from the book (no search), and the build that
//! enumerates and solves the book's positions on all threads of a [`Solver`], with a journal
//! so an interrupted build resumes. It never prints (progress reaches the caller through a
//! callback) and never searches beyond the book: solving is the [`Solver`]'s job.
//!
//! # What a book holds
//!
//! A book of depth `N` for a `W` x `H` board holds the exact score (for the player to move)
//! of every position with exactly `N` stones that legal play reaches (no four on the board),
//! up to mirror symmetry, except those where the player to move wins at once (their score is
//! known without a book). Each is keyed by its *normalised key*: the smaller of
//! [`Position::key`] and [`Position::mirror_key`], an exact key (no two positions share one).
//!
//! So the book knows the score of every position with at most `N` stones ([`Book::score`]),
//! and answers [`Book::solve`] (score and best move) and [`Book::analyze`] (every column's
//! score) of every position with fewer than `N` stones, whose children it knows; front ends
//! search the rest. A position with fewer stones is scored by a one-ply-per-level search into
//! the book:
//! its score is `win_now` when the player to move can win at once, else the maximum over the
//! legal moves of minus the score of the child (alpha-beta, centre columns first, so only a
//! few hundred book probes even for the empty board and a depth-6 book).
//!
//! # File layout (version 1)
//!
//! All integers little-endian. `n` is the number of entries.
//!
//! | offset      | bytes | field                                                          |
//! |-------------|-------|----------------------------------------------------------------|
//! | 0           | 8     | magic `FOURBOOK`                                               |
//! | 8           | 2     | format version, `u16` = 1                                      |
//! | 10          | 1     | board width `W`                                                |
//! | 11          | 1     | board height `H`                                               |
//! | 12          | 1     | depth `N` (stones of every entry)                              |
//! | 13          | 3     | zero                                                           |
//! | 16          | 8     | `n`, `u64`                                                     |
//! | 24          | 8     | checksum: FNV-1a 64 of bytes `0..24` then `32..` (`u64`)       |
//! | 32          | `8n`  | normalised keys, `u64` each, strictly ascending                |
//! | `32 + 8n`   | `n`   | scores, `i8` each, in the order of the keys                    |
//!
//! The file is `32 + 9n` bytes (a 6-ply 7 x 6 book: about 70 KiB). Loading refuses (with a
//! [`BookError`] naming the reason) a file that is too short or too long for its `n`, has
//! another magic or version, a board that no [`Position`] layout fits, a checksum that does
//! not match, keys out of order or out of range, or scores beyond the board's range.
//! [`Book::covers`] refuses positions of another board size, so a book is never used for
//! the wrong board.
//!
//! # Journal (resuming a build)
//!
//! [`build`] can append every finished entry to a journal file at once: a 16-byte header
//! (magic `FOURJRNL`, then `W`, `H`, `N` as bytes, five zero bytes) and 10-byte records (the
//! normalised key as `u64`, the score as `i8`, and a check byte: the xor of the nine bytes
//! before it and `0xA5`). On restart the journal's entries are skipped; a torn last record
//! (a crash in the middle of a write) is cut off, any other bad record is an error. So a crash
//! or Ctrl-C loses at most the positions being solved at the time.

use crate::dims;
use crate::ordering::centre_order;
use crate::position::{key_bits, Position};
use crate::solver::{Analysis, Solution, Solver, Source};
use std::collections::HashMap;
use std::fmt;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The file's magic bytes.
pub const MAGIC: [u8; 8] = *b"FOURBOOK";
/// The journal's magic bytes.
pub const JOURNAL_MAGIC: [u8; 8] = *b"FOURJRNL";
/// The format version this build reads and writes.
pub const VERSION: u16 = 1;
const HEADER: usize = 32;
const JOURNAL_HEADER: usize = 16;
const RECORD: usize = 10;

/// Why a book could not be loaded, built or used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BookError {
    /// Reading or writing a file failed.
    Io(String),
    /// The file is shorter than its header says.
    Truncated {
        /// Bytes the header calls for.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// Not a book of this format (magic, version, layout): the message says what.
    Format(String),
    /// The checksum does not match the contents.
    Checksum {
        /// The checksum in the header.
        stored: u64,
        /// The checksum of the contents.
        computed: u64,
    },
    /// The book (or journal) is for another board size or depth.
    WrongBoard(String),
    /// The build was stopped (stop flag) after this many of the positions.
    Interrupted {
        /// Positions finished (kept in the journal, if any).
        done: usize,
        /// Positions in the book.
        total: usize,
    },
    /// A re-solved entry disagrees with the book.
    Verify(String),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(m) | BookError::Format(m) | BookError::WrongBoard(m) => f.write_str(m),
            BookError::Verify(m) => write!(f, "book verification failed: {m}"),
            BookError::Truncated { expected, found } => write!(
                f,
                "book file is truncated: {found} bytes where its header calls for {expected}"
            ),
            BookError::Checksum { stored, computed } => write!(
                f,
                "book file is corrupt: checksum {computed:#018x} does not match the stored \
                 {stored:#018x}"
            ),
            BookError::Interrupted { done, total } => {
                write!(f, "book build stopped after {done} of {total} positions")
            }
        }
    }
}

impl std::error::Error for BookError {}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> BookError {
    BookError::Io(format!("cannot {what} {}: {e}", path.display()))
}

/// FNV-1a, 64 bits.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The normalised key of a position: the smaller of its key and its mirror's.
pub fn normalised_key<const W: usize, const H: usize>(p: &Position<W, H>) -> u64 {
    p.key().min(p.mirror_key())
}

/// The score when the player to move (after `moves` stones) wins with the next stone.
fn win_now(cells: u32, moves: u32) -> i32 {
    (cells as i32 + 1 - moves as i32) / 2
}

/// An opening book in memory (see the module docs).
#[derive(Clone, PartialEq, Eq)]
pub struct Book {
    width: usize,
    height: usize,
    plies: u32,
    keys: Vec<u64>,
    scores: Vec<i8>,
}

impl fmt::Debug for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Book")
            .field("board", &format_args!("{}x{}", self.width, self.height))
            .field("plies", &self.plies)
            .field("entries", &self.keys.len())
            .finish()
    }
}

impl Book {
    /// A book from its entries (normalised key, score), in any order.
    pub fn from_entries(
        width: usize,
        height: usize,
        plies: u32,
        mut entries: Vec<(u64, i8)>,
    ) -> Book {
        entries.sort_unstable_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        Book {
            width,
            height,
            plies,
            keys: entries.iter().map(|e| e.0).collect(),
            scores: entries.iter().map(|e| e.1).collect(),
        }
    }

    /// Board width.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The depth: the number of stones of every entry.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the book has no entry.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The entries: (normalised key, score), keys ascending.
    pub fn entries(&self) -> impl Iterator<Item = (u64, i8)> + '_ {
        self.keys.iter().copied().zip(self.scores.iter().copied())
    }

    /// The score stored for a normalised key.
    pub fn get(&self, key: u64) -> Option<i8> {
        self.keys.binary_search(&key).ok().map(|i| self.scores[i])
    }

    /// The checksum of the file form (as stored in its header).
    pub fn checksum(&self) -> u64 {
        let bytes = self.to_bytes();
        u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"))
    }

    /// The file form (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.keys.len();
        let mut b = Vec::with_capacity(HEADER + 9 * n);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.push(self.width as u8);
        b.push(self.height as u8);
        b.push(self.plies as u8);
        b.extend_from_slice(&[0; 3]);
        b.extend_from_slice(&(n as u64).to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        for k in &self.keys {
            b.extend_from_slice(&k.to_le_bytes());
        }
        b.extend(self.scores.iter().map(|&s| s as u8));
        let sum = fnv1a(fnv1a(FNV_OFFSET, &b[..24]), &b[HEADER..]);
        b[24..32].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads the file form, refusing anything malformed (see the module docs).
    pub fn from_bytes(b: &[u8]) -> Result<Book, BookError> {
        if b.len() < 8 || b[..8] != MAGIC {
            return Err(BookError::Format(
                "not a fourfold book file (bad magic bytes)".into(),
            ));
        }
        if b.len() < HEADER {
            return Err(BookError::Truncated {
                expected: HEADER as u64,
                found: b.len() as u64,
            });
        }
        let version = u16::from_le_bytes([b[8], b[9]]);
        if version != VERSION {
            return Err(BookError::Format(format!(
                "book format version {version} is not supported (this build reads version \
                 {VERSION})"
            )));
        }
        let (width, height, plies) = (b[10] as usize, b[11] as usize, b[12] as u32);
        if !(1..=9).contains(&width) || height == 0 || width * (height + 1) > 64 {
            return Err(BookError::Format(format!(
                "book header names an impossible board {width}x{height}"
            )));
        }
        if plies as usize > width * height || b[13..16] != [0; 3] {
            return Err(BookError::Format("book header is malformed".into()));
        }
        let n = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
        let expected = n
            .checked_mul(9)
            .and_then(|x| x.checked_add(HEADER as u64))
            .ok_or_else(|| BookError::Format("book header has an impossible size".into()))?;
        let found = b.len() as u64;
        if found < expected {
            return Err(BookError::Truncated { expected, found });
        }
        if found > expected {
            return Err(BookError::Format(format!(
                "book file has {} bytes after its last entry",
                found - expected
            )));
        }
        let stored = u64::from_le_bytes(b[24..32].try_into().expect("8 bytes"));
        let computed = fnv1a(fnv1a(FNV_OFFSET, &b[..24]), &b[HEADER..]);
        if stored != computed {
            return Err(BookError::Checksum { stored, computed });
        }
        let n = n as usize;
        let keys: Vec<u64> = b[HEADER..HEADER + 8 * n]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let scores: Vec<i8> = b[HEADER + 8 * n..].iter().map(|&x| x as i8).collect();
        let bits = key_bits(width, height);
        let max_score = (width * height / 2) as i32 + 1;
        if keys.windows(2).any(|w| w[0] >= w[1]) {
            return Err(BookError::Format("book keys are not in order".into()));
        }
        if keys.last().is_some_and(|&k| bits < 64 && k >> bits != 0) {
            return Err(BookError::Format("book key out of range".into()));
        }
        if scores.iter().any(|&s| (s as i32).abs() > max_score) {
            return Err(BookError::Format("book score out of range".into()));
        }
        Ok(Book {
            width,
            height,
            plies,
            keys,
            scores,
        })
    }

    /// Loads a book file.
    pub fn load(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| io_err("read", path, e))?;
        Book::from_bytes(&bytes).map_err(|e| match e {
            BookError::Io(m) => BookError::Io(m),
            e => BookError::Format(format!("{}: {e}", path.display())),
        })
    }

    /// Writes the book to `path` (through a temporary file renamed into place).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), BookError> {
        let path = path.as_ref();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, self.to_bytes()).map_err(|e| io_err("write", &tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| io_err("write", path, e))
    }

    /// True when the book is for `W` x `H` boards.
    pub fn fits<const W: usize, const H: usize>(&self) -> bool {
        self.width == dims::width::<W, H>() && self.height == dims::height::<W, H>()
    }

    /// True when the book knows the score of `p` ([`Book::score`]): same board, at most the
    /// book's depth of stones.
    pub fn covers<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> bool {
        self.fits::<W, H>() && p.moves() <= self.plies
    }

    /// True when the book answers [`Book::solve`] and [`Book::analyze`] of `p`: same board,
    /// fewer stones than the book's depth (every column's score is then a book score).
    pub fn answers<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> bool {
        self.fits::<W, H>() && p.moves() < self.plies
    }

    /// The exact score of `p`, or `None` when the book does not cover it.
    pub fn score<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Option<i32> {
        if !self.covers(p) {
            return None;
        }
        let mut probes = 0;
        self.search(p, -i32::MAX, i32::MAX, &mut probes)
    }

    /// Centre-first column order (the search's).
    fn order<const W: usize, const H: usize>() -> impl Iterator<Item = usize> {
        centre_order(dims::width::<W, H>()).into_iter()
    }

    /// Fail-soft alpha-beta into the book; exact when the result is inside `(alpha, beta)`.
    /// `None` when an entry is missing (an incomplete book).
    fn search<const W: usize, const H: usize>(
        &self,
        p: &Position<W, H>,
        mut alpha: i32,
        beta: i32,
        probes: &mut u64,
    ) -> Option<i32> {
        *probes += 1;
        if p.can_win_next() {
            return Some(win_now(Position::<W, H>::cells(), p.moves()));
        }
        if p.is_full() {
            return Some(0);
        }
        if p.moves() >= self.plies {
            return self.get(normalised_key(p)).map(i32::from);
        }
        let mut best = -i32::MAX;
        for col in Self::order::<W, H>() {
            if !p.can_play(col) {
                continue;
            }
            let mut child = *p;
            child.play_col(col);
            let v = -self.search(&child, -beta, -alpha, probes)?;
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        Some(best)
    }

    /// The exact score and best move of `p` from the book (`nodes` counts book probes), or
    /// `None` when the book does not answer it (see [`Book::answers`]).
    pub fn solve<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Option<Solution> {
        let a = self.analyze(p)?;
        let best = a.best_columns().first().copied();
        Some(Solution {
            score: best.and_then(|c| a.scores[c]).unwrap_or(0),
            best_move: best,
            nodes: a.nodes,
            elapsed: a.elapsed,
            source: Source::Book,
        })
    }

    /// Win (1), draw (0) or loss (-1) and a move that keeps it, from the book, by the
    /// search's rule for weak solves: the first column in the centre-first order that keeps
    /// the outcome, or for a loss the first that does not lose at once (any when all do).
    pub fn solve_weak<const W: usize, const H: usize>(
        &self,
        p: &Position<W, H>,
    ) -> Option<Solution> {
        let a = self.analyze(p)?;
        let best = a.scores.iter().flatten().max().copied();
        let outcome = best.map_or(0, i32::signum);
        // A column whose stone lets the opponent win with the next one.
        let loses_now = -win_now(Position::<W, H>::cells(), p.moves() + 1);
        let keeps = |s: i32| match outcome {
            -1 => s > loses_now,
            o => s.signum() == o,
        };
        let order = || {
            centre_order(dims::width::<W, H>())
                .into_iter()
                .filter(|&c| a.scores[c].is_some())
        };
        let col = order()
            .find(|&c| a.scores[c].is_some_and(keeps))
            .or_else(|| order().next());
        Some(Solution {
            score: outcome,
            best_move: col,
            nodes: a.nodes,
            elapsed: a.elapsed,
            source: Source::Book,
        })
    }

    /// The score of every column of `p` from the book, or `None` when it does not answer it
    /// (see [`Book::answers`]).
    pub fn analyze<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Option<Analysis> {
        if !self.answers(p) {
            return None;
        }
        let start = Instant::now();
        let mut probes = 0;
        let mut scores = vec![None; dims::width::<W, H>()];
        for (col, slot) in scores.iter_mut().enumerate() {
            if !p.can_play(col) {
                continue;
            }
            *slot = Some(if p.is_winning_move(col) {
                win_now(Position::<W, H>::cells(), p.moves())
            } else {
                let mut child = *p;
                child.play_col(col);
                -self.search(&child, -i32::MAX, i32::MAX, &mut probes)?
            });
        }
        Some(Analysis {
            scores,
            nodes: probes,
            elapsed: start.elapsed(),
            source: Source::Book,
        })
    }

    /// A line of best moves (0-based columns) from `p` while the book covers the position
    /// reached, ending with a winning move or at the book's depth; empty when it does not
    /// cover `p`.
    pub fn best_line<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Vec<usize> {
        let mut line = Vec::new();
        let mut p = *p;
        while p.moves() < self.plies {
            let Some(s) = self.solve(&p) else { break };
            let Some(col) = s.best_move else { break };
            line.push(col);
            if p.is_winning_move(col) {
                break;
            }
            p.play_col(col);
        }
        line
    }
}

/// The file bytes of the book shipped inside the library: `books/7x6-6.book`, the score of
/// every 7 x 6 position with 6 stones, so the engine answers every position of the first
/// five moves (and scores those of six) without a search.
pub const SHIPPED_7X6: &[u8] = include_bytes!("../books/7x6-6.book");

impl Book {
    /// The book shipped inside the library for a `width` x `height` board (only 7 x 6 has
    /// one), read and checked (layout, checksum) once per process; `None` for another size.
    /// Every [`crate::Engine`] of the standard board starts with it. (The bytes are fixed at
    /// build time, and a test checks that they load, so `None` on 7 x 6 cannot happen.)
    pub fn shipped(width: usize, height: usize) -> Option<&'static Book> {
        static SHIPPED: OnceLock<Option<Book>> = OnceLock::new();
        if (width, height) != (7, 6) {
            return None;
        }
        SHIPPED
            .get_or_init(|| Book::from_bytes(SHIPPED_7X6).ok())
            .as_ref()
    }
}

/// Every position a book of depth `plies` holds (see the module docs), normalised (the
/// position whose key is the normalised key), in ascending key order.
pub fn positions<const W: usize, const H: usize>(plies: u32) -> Vec<Position<W, H>> {
    walk::<W, H, ()>(plies, (), |_, _| (), |_| ())
        .into_iter()
        .map(|(p, ())| p)
        .collect()
}

/// The positions of [`positions`] as move strings (1-based column digits, as
/// [`Position::parse`] reads them), in the same order: each string reaches the normalised
/// position itself (the mirror image of the line when the line's position is not the
/// normalised one).
pub fn position_lines<const W: usize, const H: usize>(plies: u32) -> Vec<String> {
    walk::<W, H, Vec<usize>>(
        plies,
        Vec::new(),
        |line, col| {
            let mut l = line.clone();
            l.push(col);
            l
        },
        |line| {
            let w = dims::width::<W, H>();
            line.into_iter().map(|c| w - 1 - c).collect()
        },
    )
    .into_iter()
    .map(|(_, l)| {
        l.iter()
            .map(|&c| crate::position::column_char(c).expect("a column of the board"))
            .collect()
    })
    .collect()
}

/// The one walk behind [`positions`] and [`position_lines`]: ply by ply from the empty board,
/// every move but an immediate win, one normalised position per mirror pair (the first one
/// reached), those where the player to move can win at once left out at the end, in
/// ascending key order. Each position carries a tag: `root` on the empty board, `child(tag,
/// col)` after playing `col`, and `mirror(tag)` when the position kept is the mirror image of
/// the one played (so [`position_lines`] can carry the move string, and [`positions`] nothing).
fn walk<const W: usize, const H: usize, T>(
    plies: u32,
    root: T,
    child: impl Fn(&T, usize) -> T,
    mirror: impl Fn(T) -> T,
) -> Vec<(Position<W, H>, T)> {
    let mut level: Vec<(Position<W, H>, T)> = vec![(Position::new(), root)];
    for _ in 0..plies {
        let mut next: HashMap<u64, (Position<W, H>, T)> = HashMap::new();
        for (p, tag) in &level {
            for col in 0..dims::width::<W, H>() {
                if !p.can_play(col) || p.is_winning_move(col) {
                    continue;
                }
                let mut c = *p;
                c.play_col(col);
                let k = normalised_key(&c);
                next.entry(k).or_insert_with(|| {
                    let t = child(tag, col);
                    if c.key() == k {
                        (c, t)
                    } else {
                        (c.mirror(), mirror(t))
                    }
                });
            }
        }
        level = next.into_values().collect();
    }
    level.retain(|(p, _)| !p.can_win_next());
    level.sort_unstable_by_key(|(p, _)| p.key());
    level
}

/// The book of depth `plies` made of `scores` (move string, exact score), which must hold
/// every position of [`positions`] once (a mirror image stands for its position) and nothing
/// else; the scores are taken as given (see [`verify`] to check some).
pub fn assemble<const W: usize, const H: usize>(
    plies: u32,
    scores: &[(String, i32)],
) -> Result<Book, BookError> {
    let this_board = dims::name::<W, H>();
    let wanted: std::collections::HashSet<u64> =
        positions::<W, H>(plies).iter().map(|p| p.key()).collect();
    let max = Position::<W, H>::cells() as i32 / 2;
    let mut entries = Vec::with_capacity(scores.len());
    for (moves, score) in scores {
        let p: Position<W, H> = Position::parse(moves)
            .map_err(|e| BookError::Format(format!("book position {moves:?}: {e}")))?;
        let key = normalised_key(&p);
        if !wanted.contains(&key) {
            return Err(BookError::Format(format!(
                "{moves:?} is not a position of a {this_board} book of depth {plies}"
            )));
        }
        if score.abs() > max {
            return Err(BookError::Format(format!(
                "book position {moves:?}: score {score} is beyond the board's range (-{max} to {max})"
            )));
        }
        entries.push((key, *score as i8));
    }
    let book = Book::from_entries(
        dims::width::<W, H>(),
        dims::height::<W, H>(),
        plies,
        entries,
    );
    if book.len() != wanted.len() {
        return Err(BookError::Format(format!(
            "{} distinct positions given, a {this_board} book of depth {plies} holds {}",
            book.len(),
            wanted.len()
        )));
    }
    Ok(book)
}

/// Counts of the positions a book of each depth `0..=plies` holds (up to mirror symmetry,
/// without those where the player to move wins at once).
pub fn count_positions<const W: usize, const H: usize>(plies: u32) -> Vec<usize> {
    (0..=plies).map(|n| positions::<W, H>(n).len()).collect()
}

/// What [`build`] is doing, for its progress callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Solving the book's positions.
    Solving,
    /// Re-solving random entries to check them.
    Verifying,
}

/// Progress of a build, passed to its callback after every finished position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// What is being done.
    pub phase: Phase,
    /// Positions finished in this phase, those taken from the journal included.
    pub done: usize,
    /// Positions of this phase.
    pub total: usize,
    /// Positions taken from the journal (finished before this run).
    pub resumed: usize,
}

/// How to build a book.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// The depth: stones of every entry.
    pub plies: u32,
    /// A journal file to resume from and append to (see the module docs).
    pub journal: Option<std::path::PathBuf>,
    /// Re-solve this many random entries at the end (on a cleared table) and compare.
    pub verify: usize,
    /// Seed of the verification's random choice.
    pub seed: u64,
}

/// Reads (and repairs a torn tail of) a journal, or creates it; returns the entries in it
/// and the file, positioned for appending.
fn open_journal<const W: usize, const H: usize>(
    path: &Path,
    plies: u32,
    wanted: &HashMap<u64, usize>,
) -> Result<(Vec<(u64, i8)>, std::fs::File), BookError> {
    let this_board = dims::name::<W, H>();
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| io_err("open", path, e))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| io_err("read", path, e))?;
    let mut header = [0u8; JOURNAL_HEADER];
    header[..8].copy_from_slice(&JOURNAL_MAGIC);
    header[8] = dims::width::<W, H>() as u8;
    header[9] = dims::height::<W, H>() as u8;
    header[10] = plies as u8;
    let name = path.display();
    if bytes.len() < JOURNAL_HEADER {
        // New (or torn before its header was complete): start it.
        f.set_len(0).map_err(|e| io_err("write", path, e))?;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| io_err("write", path, e))?;
        f.write_all(&header).map_err(|e| io_err("write", path, e))?;
        return Ok((Vec::new(), f));
    }
    if bytes[..8] != JOURNAL_MAGIC {
        return Err(BookError::Format(format!(
            "{name} is not a fourfold book journal"
        )));
    }
    if bytes[..JOURNAL_HEADER] != header {
        return Err(BookError::WrongBoard(format!(
            "journal {name} is for a {}x{} book of depth {}, not {this_board} of depth {plies}",
            bytes[8], bytes[9], bytes[10]
        )));
    }
    let body = &bytes[JOURNAL_HEADER..];
    let whole = body.len() / RECORD * RECORD;
    let mut entries = Vec::with_capacity(whole / RECORD);
    for (i, r) in body[..whole].chunks_exact(RECORD).enumerate() {
        let check = r[..9].iter().fold(0xA5u8, |a, &b| a ^ b);
        let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
        let score = r[8] as i8;
        let last = (i + 1) * RECORD == whole;
        if check != r[9] || !wanted.contains_key(&key) {
            if last && whole == body.len() {
                // A torn last record: drop it.
                break;
            }
            return Err(BookError::Format(format!(
                "journal {name} is corrupt at record {}",
                i + 1
            )));
        }
        entries.push((key, score));
    }
    let keep = (JOURNAL_HEADER + entries.len() * RECORD) as u64;
    f.set_len(keep).map_err(|e| io_err("write", path, e))?;
    f.seek(SeekFrom::Start(keep))
        .map_err(|e| io_err("write", path, e))?;
    Ok((entries, f))
}

fn record(key: u64, score: i8) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[..8].copy_from_slice(&key.to_le_bytes());
    r[8] = score as u8;
    r[9] = r[..9].iter().fold(0xA5u8, |a, &b| a ^ b);
    r
}

/// Builds a book of depth `opts.plies` on `solver`'s threads (many positions at once, one
/// thread each, on its shared table), calling `on_progress` after every finished position
/// (from the worker threads). With a journal, entries already in it are skipped and every
/// new one is appended as soon as it is solved. Raising the solver's stop flag ends the build
/// with [`BookError::Interrupted`]. With `opts.verify > 0`, that many random entries are
/// re-solved on a cleared table at the end (see [`verify`]).
pub fn build<const W: usize, const H: usize>(
    solver: &Solver<W, H>,
    opts: &BuildOptions,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Result<Book, BookError> {
    let this_board = dims::name::<W, H>();
    if opts.plies >= Position::<W, H>::cells() {
        return Err(BookError::Format(format!(
            "a book of depth {} does not fit a {this_board} board",
            opts.plies
        )));
    }
    let all = positions::<W, H>(opts.plies);
    let index: HashMap<u64, usize> = all.iter().enumerate().map(|(i, p)| (p.key(), i)).collect();
    let (mut entries, journal) = match &opts.journal {
        Some(path) => {
            let (e, f) = open_journal::<W, H>(path, opts.plies, &index)?;
            (e, Some((f, path.clone())))
        }
        None => (Vec::new(), None),
    };
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    let resumed = entries.len();
    let todo: Vec<Position<W, H>> = all
        .iter()
        .filter(|p| entries.binary_search_by_key(&p.key(), |e| e.0).is_err())
        .copied()
        .collect();
    let total = all.len();
    let done = std::sync::atomic::AtomicUsize::new(resumed);
    let journal = journal.map(Mutex::new);
    let write_error: Mutex<Option<BookError>> = Mutex::new(None);
    on_progress(Progress {
        phase: Phase::Solving,
        done: resumed,
        total,
        resumed,
    });
    let results = solver.solve_many_with(&todo, false, &|i, r| {
        let Ok(s) = r else { return };
        if let Some(j) = &journal {
            let mut j = j.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = j.0.write_all(&record(todo[i].key(), s.score as i8)) {
                *write_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(io_err("write", &j.1, e));
            }
        }
        // ORDERING: a progress count only; nothing else is published through it.
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        on_progress(Progress {
            phase: Phase::Solving,
            done: d,
            total,
            resumed,
        });
    });
    if let Some(e) = write_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut finished = resumed;
    for (p, r) in todo.iter().zip(&results) {
        if let Ok(s) = r {
            entries.push((p.key(), s.score as i8));
            finished += 1;
        }
    }
    if finished < total {
        return Err(BookError::Interrupted {
            done: finished,
            total,
        });
    }
    let book = Book::from_entries(
        dims::width::<W, H>(),
        dims::height::<W, H>(),
        opts.plies,
        entries,
    );
    if opts.verify > 0 {
        verify(&book, solver, opts.verify, opts.seed, on_progress)?;
    }
    Ok(book)
}

/// Re-solves `k` entries of `book` chosen at random (from `seed`) on a cleared table and
/// compares each with the book; also checks that the book holds exactly the positions it
/// should. Returns the number of entries checked.
pub fn verify<const W: usize, const H: usize>(
    book: &Book,
    solver: &Solver<W, H>,
    k: usize,
    seed: u64,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Result<usize, BookError> {
    let this_board = dims::name::<W, H>();
    if !book.fits::<W, H>() {
        return Err(BookError::WrongBoard(format!(
            "the book is for {}x{} boards, not {this_board}",
            book.width, book.height
        )));
    }
    let all = positions::<W, H>(book.plies);
    if all.len() != book.len() || all.iter().any(|p| book.get(p.key()).is_none()) {
        return Err(BookError::Verify(format!(
            "the book has {} entries where a depth-{} book has {}",
            book.len(),
            book.plies,
            all.len()
        )));
    }
    let k = k.min(all.len());
    // Distinct random entries (xorshift64; a partial Fisher-Yates shuffle).
    let mut rng = seed | 1;
    let mut order: Vec<usize> = (0..all.len()).collect();
    for i in 0..k {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let j = i + (rng % (all.len() - i) as u64) as usize;
        order.swap(i, j);
    }
    let chosen: Vec<Position<W, H>> = order[..k].iter().map(|&i| all[i]).collect();
    solver.table().clear();
    let done = std::sync::atomic::AtomicUsize::new(0);
    on_progress(Progress {
        phase: Phase::Verifying,
        done: 0,
        total: k,
        resumed: 0,
    });
    let results = solver.solve_many_with(&chosen, false, &|_, _| {
        // ORDERING: a progress count only.
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        on_progress(Progress {
            phase: Phase::Verifying,
            done: d,
            total: k,
            resumed: 0,
        });
    });
    for (p, r) in chosen.iter().zip(results) {
        let s = r.map_err(|_| BookError::Interrupted { done: 0, total: k })?;
        let stored = book.get(p.key()).map(i32::from);
        if stored != Some(s.score) {
            return Err(BookError::Verify(format!(
                "entry {:#x} holds {stored:?} but solves to {}",
                p.key(),
                s.score
            )));
        }
    }
    Ok(k)
}

/// The bitboard words whose positions a book can hold: a book stores 64-bit keys, so boards
/// whose keys need more ([`crate::Bitboard`] `u128`) have no book. The engine calls the book
/// through this trait on every board size; on wide boards the lookups find nothing and
/// building or verifying a book is an error naming the limit.
pub trait BookWord: crate::Bitboard {
    /// [`Book::solve`] (`None` on wide boards).
    fn book_solve<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Solution>;
    /// [`Book::solve_weak`] (`None` on wide boards).
    fn book_solve_weak<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Solution>;
    /// [`Book::analyze`] (`None` on wide boards).
    fn book_analyze<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Analysis>;
    /// [`Book::answers`] (false on wide boards).
    fn book_answers<const W: usize, const H: usize>(b: &Book, p: &Position<W, H, Self>) -> bool;
    /// [`Book::best_line`] (empty on wide boards).
    fn book_line<const W: usize, const H: usize>(b: &Book, p: &Position<W, H, Self>) -> Vec<usize>;
    /// [`build`] (an error on wide boards).
    fn book_build<const W: usize, const H: usize>(
        solver: &Solver<W, H, Self>,
        opts: &BuildOptions,
        on_progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Book, BookError>;
    /// [`verify`] (an error on wide boards).
    fn book_verify<const W: usize, const H: usize>(
        book: &Book,
        solver: &Solver<W, H, Self>,
        k: usize,
        seed: u64,
        on_progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, BookError>;
    /// [`count_positions`] (an error on wide boards).
    fn book_count<const W: usize, const H: usize>(plies: u32) -> Result<Vec<usize>, BookError>;
    /// [`position_lines`] (an error on wide boards or a depth beyond the board).
    fn book_lines<const W: usize, const H: usize>(plies: u32) -> Result<Vec<String>, BookError>;
    /// [`assemble`] (an error on wide boards).
    fn book_assemble<const W: usize, const H: usize>(
        plies: u32,
        scores: &[(String, i32)],
    ) -> Result<Book, BookError>;
}

impl BookWord for u64 {
    fn book_answers<const W: usize, const H: usize>(b: &Book, p: &Position<W, H, Self>) -> bool {
        b.answers(p)
    }
    fn book_solve<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Solution> {
        b.solve(p)
    }
    fn book_solve_weak<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Solution> {
        b.solve_weak(p)
    }
    fn book_analyze<const W: usize, const H: usize>(
        b: &Book,
        p: &Position<W, H, Self>,
    ) -> Option<Analysis> {
        b.analyze(p)
    }
    fn book_line<const W: usize, const H: usize>(b: &Book, p: &Position<W, H, Self>) -> Vec<usize> {
        b.best_line(p)
    }
    fn book_build<const W: usize, const H: usize>(
        solver: &Solver<W, H, Self>,
        opts: &BuildOptions,
        on_progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Book, BookError> {
        build(solver, opts, on_progress)
    }
    fn book_verify<const W: usize, const H: usize>(
        book: &Book,
        solver: &Solver<W, H, Self>,
        k: usize,
        seed: u64,
        on_progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, BookError> {
        verify(book, solver, k, seed, on_progress)
    }
    fn book_count<const W: usize, const H: usize>(plies: u32) -> Result<Vec<usize>, BookError> {
        Ok(count_positions::<W, H>(plies))
    }
    fn book_lines<const W: usize, const H: usize>(plies: u32) -> Result<Vec<String>, BookError> {
        if plies >= Position::<W, H>::cells() {
            return Err(depth_too_large::<W, H>(plies));
        }
        Ok(position_lines::<W, H>(plies))
    }
    fn book_assemble<const W: usize, const H: usize>(
        plies: u32,
        scores: &[(String, i32)],
    ) -> Result<Book, BookError> {
        if plies >= Position::<W, H>::cells() {
            return Err(depth_too_large::<W, H>(plies));
        }
        assemble::<W, H>(plies, scores)
    }
}

/// Why a book of depth `plies` cannot be made on a `W` x `H` board.
fn depth_too_large<const W: usize, const H: usize>(plies: u32) -> BookError {
    let this_board = dims::name::<W, H>();
    BookError::Format(format!(
        "a book of depth {plies} does not fit a {this_board} board"
    ))
}

/// Why a `W` x `H` board on 128-bit words has no book.
fn too_wide<const W: usize, const H: usize>() -> BookError {
    let this_board = dims::name::<W, H>();
    BookError::WrongBoard(format!(
        "opening books hold 64-bit keys; a {this_board} position needs {} bits",
        key_bits(dims::width::<W, H>(), dims::height::<W, H>())
    ))
}

impl BookWord for u128 {
    fn book_answers<const W: usize, const H: usize>(_: &Book, _: &Position<W, H, Self>) -> bool {
        false
    }
    fn book_solve<const W: usize, const H: usize>(
        _: &Book,
        _: &Position<W, H, Self>,
    ) -> Option<Solution> {
        None
    }
    fn book_solve_weak<const W: usize, const H: usize>(
        _: &Book,
        _: &Position<W, H, Self>,
    ) -> Option<Solution> {
        None
    }
    fn book_analyze<const W: usize, const H: usize>(
        _: &Book,
        _: &Position<W, H, Self>,
    ) -> Option<Analysis> {
        None
    }
    fn book_line<const W: usize, const H: usize>(_: &Book, _: &Position<W, H, Self>) -> Vec<usize> {
        Vec::new()
    }
    fn book_build<const W: usize, const H: usize>(
        _: &Solver<W, H, Self>,
        _: &BuildOptions,
        _: &(dyn Fn(Progress) + Sync),
    ) -> Result<Book, BookError> {
        Err(too_wide::<W, H>())
    }
    fn book_verify<const W: usize, const H: usize>(
        _: &Book,
        _: &Solver<W, H, Self>,
        _: usize,
        _: u64,
        _: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, BookError> {
        Err(too_wide::<W, H>())
    }
    fn book_count<const W: usize, const H: usize>(_: u32) -> Result<Vec<usize>, BookError> {
        Err(too_wide::<W, H>())
    }
    fn book_lines<const W: usize, const H: usize>(_: u32) -> Result<Vec<String>, BookError> {
        Err(too_wide::<W, H>())
    }
    fn book_assemble<const W: usize, const H: usize>(
        _: u32,
        _: &[(String, i32)],
    ) -> Result<Book, BookError> {
        Err(too_wide::<W, H>())
    }
}

#[cfg(test)]
mod tests;
