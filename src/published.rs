//! The published whole-board results: who wins the empty `W` x `H` board with perfect play,
//! and on which move the game ends.
//!
//! This module owns reading the table format of `tests/data/board_results` (one board per
//! line, `width height winner end_move`, `#` comments) and comparing an [`Outcome`] with a
//! published entry, for every front end and test to check a whole-board solve the same way.
//! It solves nothing and knows nothing of positions.

use crate::engine::BoardSize;
use crate::outcome::{Outcome, Player};
use std::fmt;

/// One published result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardResult {
    /// The board.
    pub board: BoardSize,
    /// Who wins with perfect play; `None` for a draw.
    pub winner: Option<Player>,
    /// The move of the game (1-based, both players' stones counted) on which perfect play
    /// ends it (the last cell for a draw); `None` where the source gives none.
    pub end_move: Option<u32>,
}

impl BoardResult {
    /// True when `outcome`, the result of solving the empty board, agrees with this entry:
    /// the same winner (or a draw) and, where published, the same end move.
    pub fn agrees(&self, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Draw => self.winner.is_none(),
            Outcome::Win {
                winner, on_move, ..
            } => {
                self.winner == Some(winner)
                    && match self.end_move {
                        Some(m) => m == on_move,
                        None => true,
                    }
            }
        }
    }
}

impl fmt::Display for BoardResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.winner, self.end_move) {
            (None, _) => f.write_str("draw"),
            (Some(w), Some(m)) => write!(f, "{w} wins on move {m}"),
            (Some(w), None) => write!(f, "{w} wins (move not published)"),
        }
    }
}

/// A line of the table that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The line number (1-based).
    pub line: usize,
    /// What is wrong with it.
    pub msg: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for TableError {}

/// Reads a table: blank lines and lines starting with `#` are skipped; every other line is
/// `width height winner end_move`, `winner` one of `first`, `second`, `draw` and `end_move` a
/// move number or `-`. The move number must fit the board and the winner (the first player
/// plays the odd moves; a draw ends on the last cell).
pub fn parse_table(text: &str) -> Result<Vec<BoardResult>, TableError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |msg: String| TableError { line: i + 1, msg };
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 4 {
            return Err(err(format!(
                "expected `width height winner end_move`, got {line:?}"
            )));
        }
        let num = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| err(format!("{s:?} is not a number")))
        };
        let (width, height) = (num(f[0])?, num(f[1])?);
        let winner = match f[2] {
            "first" => Some(Player::First),
            "second" => Some(Player::Second),
            "draw" => None,
            w => return Err(err(format!("winner {w:?}: expected first, second or draw"))),
        };
        let end_move = if f[3] == "-" { None } else { Some(num(f[3])?) };
        let cells = width * height;
        if let Some(m) = end_move {
            let fits = match winner {
                None => m == cells,
                Some(Player::First) => m % 2 == 1 && (7..=cells).contains(&m),
                Some(Player::Second) => m % 2 == 0 && (8..=cells).contains(&m),
            };
            if !fits {
                return Err(err(format!(
                    "end move {m} does not fit a {width}x{height} board and that result"
                )));
            }
        }
        out.push(BoardResult {
            board: BoardSize {
                width: width as usize,
                height: height as usize,
            },
            winner,
            end_move,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_compares() {
        let t =
            parse_table("# c\n\n7 6 first 41\n6 6 second 36\n4 4 draw 16\n8 9 first -\n").unwrap();
        assert_eq!(t.len(), 4);
        let o = |s| Outcome::from_score(s, 0, 42).unwrap();
        assert!(t[0].agrees(o(1)));
        assert!(!t[0].agrees(o(2)));
        assert!(!t[0].agrees(Outcome::Draw));
        assert!(t[2].agrees(Outcome::Draw));
        assert!(!t[1].agrees(Outcome::Draw));
        assert!(t[1].agrees(Outcome::from_score(-1, 0, 36).unwrap()));
        assert!(t[3].agrees(Outcome::from_score(3, 0, 72).unwrap()));
        assert_eq!(t[0].to_string(), "first player wins on move 41");
        for bad in [
            "7 6 first 42",
            "7 6 second 41",
            "4 4 draw 15",
            "7 6 nobody 41",
            "7 6 first",
            "7 x first 41",
        ] {
            assert!(parse_table(bad).is_err(), "{bad}");
        }
    }
}
