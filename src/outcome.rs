//! Scores in words: who wins, with which stone, on which move of the game.
//!
//! This module owns the reading of a score (see the crate docs) as a game result, for every
//! front end to print the same words. It computes nothing about positions beyond the stone
//! count and the number of cells.

use std::fmt;

/// Which player: the one who moved first in the game, or the one who moved second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// The player who made the first move of the game.
    First,
    /// The other player.
    Second,
}

impl Player {
    /// The player to move after `moves` stones.
    pub const fn to_move(moves: u32) -> Player {
        if moves % 2 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The other player.
    pub const fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::First => "first player",
            Player::Second => "second player",
        })
    }
}

/// What an exact score means for the game: the result of perfect play from a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nobody can force a win.
    Draw,
    /// `winner` wins with their `stone`-th stone, which is move `on_move` of the game
    /// (counting every stone of both players from 1).
    Win {
        /// Who wins.
        winner: Player,
        /// The winner's stone that completes the four (1-based).
        stone: u32,
        /// The move of the game (1-based, both players' stones counted) that completes it.
        on_move: u32,
    },
}

impl Outcome {
    /// Reads an exact `score` for the player to move in a position with `moves` stones on a
    /// board of `cells` cells. Returns `None` for a score out of range for that board.
    pub fn from_score(score: i32, moves: u32, cells: u32) -> Option<Outcome> {
        if score == 0 {
            return Some(Outcome::Draw);
        }
        let mover = Player::to_move(moves);
        let (winner, s) = if score > 0 {
            (mover, score)
        } else {
            (mover.other(), -score)
        };
        // The search scores a win on move `m` (1-based) as `(cells + 2 - m) / 2`, rounded
        // down: `m` is one of `cells + 2 - 2s` and `cells + 1 - 2s`, the one the winner plays
        // (the first player plays the odd moves).
        let m = cells as i64 + 2 - 2 * s as i64;
        let on_move = if (m % 2 == 1) == (winner == Player::First) {
            m
        } else {
            m - 1
        };
        if on_move <= moves as i64 || on_move > cells as i64 {
            return None;
        }
        let on_move = on_move as u32;
        let stone = on_move.div_ceil(2);
        (stone >= 4).then_some(Outcome::Win {
            winner,
            stone,
            on_move,
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Draw => f.write_str("draw"),
            Outcome::Win {
                winner, on_move, ..
            } => write!(f, "{winner} wins on move {on_move}"),
        }
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, …
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The score in a sentence, from the point of view of the player to move: "a draw with
/// perfect play", "the first player (to move) wins with their 21st stone", ...
pub fn describe(score: i32, moves: u32, cells: u32) -> String {
    match Outcome::from_score(score, moves, cells) {
        None => format!("score {score} is out of range"),
        Some(Outcome::Draw) => "a draw with perfect play".into(),
        Some(Outcome::Win { winner, stone, .. }) if winner == Player::to_move(moves) => {
            format!(
                "the {winner} (to move) wins with their {} stone",
                ordinal(stone)
            )
        }
        Some(Outcome::Win { winner, stone, .. }) => {
            format!("the {winner} wins with their {} stone", ordinal(stone))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_board() {
        // The empty 7 x 6 board scores 1: the first player wins with their 21st stone, the
        // 41st move of the game.
        let o = Outcome::from_score(1, 0, 42).unwrap();
        assert_eq!(
            o,
            Outcome::Win {
                winner: Player::First,
                stone: 21,
                on_move: 41
            }
        );
        assert_eq!(o.to_string(), "first player wins on move 41");
        assert_eq!(
            describe(1, 0, 42),
            "the first player (to move) wins with their 21st stone"
        );
        assert_eq!(
            describe(-2, 1, 42),
            "the first player wins with their 20th stone"
        );
        assert_eq!(Outcome::from_score(0, 5, 42), Some(Outcome::Draw));
        assert_eq!(Outcome::from_score(19, 0, 42), None);
        assert_eq!(
            Outcome::from_score(18, 0, 42).unwrap().to_string(),
            "first player wins on move 7"
        );
        assert_eq!(
            Outcome::from_score(-18, 1, 42).unwrap().to_string(),
            "first player wins on move 7"
        );
        assert_eq!(
            Outcome::from_score(-17, 0, 42).unwrap().to_string(),
            "second player wins on move 10"
        );
        // Odd number of cells (5 x 5): the first player's win on the last move scores 1.
        assert_eq!(
            Outcome::from_score(1, 0, 25).unwrap().to_string(),
            "first player wins on move 25"
        );
        assert_eq!(
            Outcome::from_score(-1, 0, 25).unwrap().to_string(),
            "second player wins on move 24"
        );
    }
}
