//! The test-set line format: `<moves> [<score>]`, one position per line.
//!
//! This module owns reading that format, the one the public benchmark sets and most solvers
//! use, into positions with optional expected scores. It solves nothing.

use crate::position::{ParseError, Position};
use std::fmt;

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
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Moves(e) => e.fmt(f),
            LineError::Score(s) => write!(f, "expected score {s:?} is not an integer"),
            LineError::TrailingFields => {
                f.write_str("too many fields: expected `<moves> [<score>]`")
            }
        }
    }
}

impl std::error::Error for LineError {}

/// Reads one line. A blank line (or only white space) is the empty board.
pub fn parse_line<const W: usize, const H: usize>(line: &str) -> Result<Case<W, H>, LineError> {
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
    let position = Position::parse(moves).map_err(LineError::Moves)?;
    Ok(Case {
        moves: moves.to_string(),
        position,
        expected,
    })
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
    }
}
