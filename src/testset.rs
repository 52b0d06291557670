//! The test-set line format: `<moves> [<score>]`, one position per line.
//!
//! This module owns reading that format, the one the public benchmark sets and most solvers
//! use, into positions with optional expected scores, and reading lines of any line-based
//! input safely: [`lines`] reads bytes, one line at a time, and turns a line that is not
//! UTF-8 or longer than a limit into an error for that line alone, without holding a long
//! line in memory; [`cases`] reads test-set lines on top of it. Every front end that reads
//! lines (the command's `--input`, a JSON-lines service) uses these. It solves nothing.

use crate::position::{ParseError, Position};
use std::fmt;
use std::io::{self, BufRead};

/// One parsed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case<const W: usize = 7, const H: usize = 6> {
    /// The move string as written.
    pub moves: String,
    /// The position it describes.
    pub position: Position<W, H>,
    /// The expected score, when the line carries one.
    pub expected: Option<i32>,
}

/// Why a line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The move string is not a legal, unfinished game.
    Moves(ParseError),
    /// The second field is not an integer.
    Score(String),
    /// More than two fields.
    TrailingFields,
    /// The line is not valid UTF-8.
    NotUtf8 {
        /// The 0-based byte offset of the first invalid byte.
        offset: usize,
        /// That byte.
        byte: u8,
    },
    /// The line is longer than the reader's limit (its end-of-line not counted).
    TooLong {
        /// The line's length in bytes.
        len: u64,
        /// The limit.
        limit: usize,
    },
    /// The input could not be read (the reader stops after this).
    Io(String),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Moves(e) => e.fmt(f),
            LineError::Score(s) => write!(f, "expected score {s:?} is not an integer"),
            LineError::TrailingFields => {
                f.write_str("too many fields: expected `<moves> [<score>]`")
            }
            LineError::NotUtf8 { offset, byte } => write!(
                f,
                "the line is not valid UTF-8 (byte 0x{byte:02x} at offset {offset})"
            ),
            LineError::TooLong { len, limit } => write!(
                f,
                "the line is {len} bytes long, more than the limit of {limit} bytes"
            ),
            LineError::Io(e) => write!(f, "cannot read the input: {e}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Reads one line. A blank line (or only white space) is the empty board.
pub fn parse_line<const W: usize, const H: usize>(line: &str) -> Result<Case<W, H>, LineError> {
    let (moves, expected) = split_line(line)?;
    let position = Position::parse(moves).map_err(LineError::Moves)?;
    Ok(Case {
        moves: moves.to_string(),
        position,
        expected,
    })
}

/// The fields of one line, unchecked against any board: the move string and the expected
/// score, if any (for readers whose board is chosen at run time, such as
/// [`crate::Engine::parse_case`]).
pub fn split_line(line: &str) -> Result<(&str, Option<i32>), LineError> {
    let mut fields = line.split_whitespace();
    let moves = fields.next().unwrap_or("");
    let expected = match fields.next() {
        Some(s) => Some(
            s.parse::<i32>()
                .map_err(|_| LineError::Score(s.to_string()))?,
        ),
        None => None,
    };
    if fields.next().is_some() {
        return Err(LineError::TrailingFields);
    }
    Ok((moves, expected))
}

/// The longest line [`lines`] accepts by default, in bytes (its end-of-line not counted):
/// far above any move string (at most 64 moves) with a score, or a request of a line-based
/// protocol.
pub const MAX_LINE_BYTES: usize = 4096;

/// The lines of `reader`, numbered from 1: see [`Lines`].
pub fn lines<R: BufRead>(reader: R) -> Lines<R> {
    Lines {
        reader,
        limit: MAX_LINE_BYTES,
        number: 0,
        buf: Vec::new(),
        done: false,
    }
}

/// The test-set lines of `reader`, numbered from 1, each parsed by [`parse_line`]; blank
/// lines (nothing but white space) are skipped. A bad line (not UTF-8, longer than
/// [`MAX_LINE_BYTES`], or not `<moves> [<score>]` of a legal unfinished game) is an error for
/// that line alone: the lines after it are still read.
pub fn cases<const W: usize, const H: usize, R: BufRead>(
    reader: R,
) -> impl Iterator<Item = (u64, Result<Case<W, H>, LineError>)> {
    lines(reader).filter_map(|(n, line)| match line {
        Ok(l) if l.trim().is_empty() => None,
        Ok(l) => Some((n, parse_line(&l))),
        Err(e) => Some((n, Err(e))),
    })
}

/// An iterator over the lines of a [`BufRead`], read as bytes: each item is the line number
/// (from 1) and the line without its end-of-line (`\n` or `\r\n`), or why that line cannot be
/// used. A line that is not UTF-8 gives [`LineError::NotUtf8`], a line longer than the limit
/// [`LineError::TooLong`] (its bytes are skipped, never held: memory stays bounded by the
/// limit whatever the input), and the lines after either are read as usual. A read error
/// gives [`LineError::Io`] and ends the iteration. The last line need not end with `\n`.
#[derive(Debug)]
pub struct Lines<R> {
    reader: R,
    limit: usize,
    number: u64,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// Sets the longest line accepted, in bytes (default [`MAX_LINE_BYTES`]).
    pub fn limit(mut self, bytes: usize) -> Self {
        self.limit = bytes;
        self
    }

    /// The capacity of the line buffer, for tests of the memory bound.
    #[cfg(test)]
    fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = (u64, Result<String, LineError>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.buf.clear();
        // Bytes of the line seen so far, whether kept or skipped.
        let mut len: u64 = 0;
        let mut any = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    self.number += 1;
                    return Some((self.number, Err(LineError::Io(e.to_string()))));
                }
            };
            if chunk.is_empty() {
                if !any {
                    self.done = true;
                    return None;
                }
                break;
            }
            any = true;
            let end = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..end.unwrap_or(chunk.len())];
            len += part.len() as u64;
            if len <= self.limit as u64 + 1 {
                // One byte over the limit is still kept: it may be the `\r` of a `\r\n`.
                self.buf.extend_from_slice(part);
            } else if !self.buf.is_empty() {
                self.buf = Vec::new();
            }
            let used = part.len() + end.is_some() as usize;
            self.reader.consume(used);
            if end.is_some() {
                break;
            }
        }
        self.number += 1;
        if self.buf.last() == Some(&b'\r') && len <= self.limit as u64 + 1 {
            self.buf.pop();
            len -= 1;
        }
        if len > self.limit as u64 {
            return Some((
                self.number,
                Err(LineError::TooLong {
                    len,
                    limit: self.limit,
                }),
            ));
        }
        let line = match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(LineError::NotUtf8 {
                offset: e.valid_up_to(),
                byte: self.buf[e.valid_up_to()],
            }),
        };
        Some((self.number, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let c: Case = parse_line("4453 -2").unwrap();
        assert_eq!((c.moves.as_str(), c.expected), ("4453", Some(-2)));
        let c: Case = parse_line("").unwrap();
        assert_eq!(c.position.moves(), 0);
        assert!(matches!(
            parse_line::<7, 6>("44 x"),
            Err(LineError::Score(_))
        ));
        assert!(matches!(
            parse_line::<7, 6>("44 1 2"),
            Err(LineError::TrailingFields)
        ));
        assert!(matches!(parse_line::<7, 6>("4a"), Err(LineError::Moves(_))));
        assert!(matches!(
            parse_line::<7, 6>("4453 99999999999"),
            Err(LineError::Score(_))
        ));
    }

    fn all(input: &[u8], limit: usize) -> Vec<(u64, Result<String, LineError>)> {
        super::lines(input).limit(limit).collect()
    }

    #[test]
    fn byte_lines_report_bad_lines_and_go_on() {
        let got = all(b"4453\n\xff4\n\r\n44\r\n12345678\n7", 6);
        assert_eq!(got[0], (1, Ok("4453".into())));
        assert_eq!(
            got[1],
            (
                2,
                Err(LineError::NotUtf8 {
                    offset: 0,
                    byte: 0xff
                })
            )
        );
        assert_eq!(got[2], (3, Ok("".into())));
        assert_eq!(got[3], (4, Ok("44".into())));
        assert_eq!(got[4], (5, Err(LineError::TooLong { len: 8, limit: 6 })));
        assert_eq!(got[5], (6, Ok("7".into())));
        assert_eq!(got.len(), 6);
        // Exactly at the limit, with and without `\r`.
        assert_eq!(all(b"123456\r\n123456", 6)[0], (1, Ok("123456".into())));
        assert_eq!(all(b"123456\r\n123456", 6)[1], (2, Ok("123456".into())));
        assert_eq!(
            all(b"1234567\r\n", 6)[0],
            (1, Err(LineError::TooLong { len: 8, limit: 6 }))
        );
        assert!(all(b"", 6).is_empty());
        assert_eq!(all(b"\n", 6), vec![(1, Ok(String::new()))]);
    }

    #[test]
    fn a_huge_line_is_skipped_in_bounded_memory() {
        // 1 GiB of digits on one line, produced on the fly, then a good line.
        use std::io::Read;
        let huge = io::repeat(b'4').take(1 << 30);
        let input = io::BufReader::new(huge.chain(&b"\n4453 -2\n"[..]));
        let mut it = super::lines(input);
        assert_eq!(
            it.next(),
            Some((
                1,
                Err(LineError::TooLong {
                    len: 1 << 30,
                    limit: MAX_LINE_BYTES
                })
            ))
        );
        assert!(it.buffer_capacity() <= 2 * MAX_LINE_BYTES + 64);
        assert_eq!(it.next(), Some((2, Ok("4453 -2".into()))));
        assert_eq!(it.next(), None);
    }

    /// A reader that gives some bytes, then fails.
    struct Failing(&'static [u8]);

    impl io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("disk on fire"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn test_set_cases_skip_blank_lines_and_stop_at_a_read_error() {
        let got: Vec<_> = cases::<7, 6, _>(io::BufReader::new(Failing(b"44 1\n\n  \n4x\n12")))
            .map(|(n, c)| (n, c.map(|c| c.moves)))
            .collect();
        assert_eq!(got[0], (1, Ok("44".into())));
        assert!(matches!(got[1], (4, Err(LineError::Moves(_)))));
        assert!(matches!(&got[2], (5, Err(LineError::Io(e))) if e.contains("disk on fire")));
        assert_eq!(got.len(), 3);
    }
}
