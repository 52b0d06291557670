//! Every board size the engine serves, against an oracle that shares no code with it: a plain
//! minimax on a run-time grid (no bitboards, no table, no parity bounds). Odd and even
//! heights, `u64` and `u128` bitboards, one- and two-word table slots, widths with the move
//! letters `a`-`c`: all go through the same [`Engine`] calls as the front ends.

use crate::common::Rng;
use fourfold::{BoardSize, Engine, SolverBuilder};

/// A board of run-time size: `cells[col * h + row]` is 0 (empty), 1 (first player) or 2.
struct Grid {
    w: usize,
    h: usize,
    cells: Vec<u8>,
    heights: Vec<usize>,
    moves: usize,
}

impl Grid {
    fn new(w: usize, h: usize) -> Grid {
        Grid {
            w,
            h,
            cells: vec![0; w * h],
            heights: vec![0; w],
            moves: 0,
        }
    }

    fn at(&self, col: isize, row: isize) -> u8 {
        if col < 0 || row < 0 || col >= self.w as isize || row >= self.h as isize {
            return 0;
        }
        self.cells[col as usize * self.h + row as usize]
    }

    /// True when the player to move would connect four by playing `col`.
    fn wins(&self, col: usize) -> bool {
        let me = 1 + (self.moves % 2) as u8;
        let (c, r) = (col as isize, self.heights[col] as isize);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |s: isize| {
                (1..4)
                    .take_while(|&k| self.at(c + s * k * dc, r + s * k * dr) == me)
                    .count()
            };
            run(1) + run(-1) >= 3
        })
    }

    fn play(&mut self, col: usize) {
        self.cells[col * self.h + self.heights[col]] = 1 + (self.moves % 2) as u8;
        self.heights[col] += 1;
        self.moves += 1;
    }

    fn undo(&mut self, col: usize) {
        self.heights[col] -= 1;
        self.cells[col * self.h + self.heights[col]] = 0;
        self.moves -= 1;
    }

    /// The score of the README's convention, by definition: a win with the stone played as
    /// move `m` (counting from 1) scores `(cells + 2 - m) / 2` for the winner.
    fn negamax(&mut self) -> i32 {
        let cells = self.w * self.h;
        if self.moves == cells {
            return 0;
        }
        let win = (cells as i32 + 1 - self.moves as i32) / 2;
        let open: Vec<usize> = (0..self.w).filter(|&c| self.heights[c] < self.h).collect();
        if open.iter().any(|&c| self.wins(c)) {
            return win;
        }
        let mut best = -win;
        for c in open {
            self.play(c);
            best = best.max(-self.negamax());
            self.undo(c);
        }
        best
    }
}

/// The move-string character of a 0-based column: `1`-`9`, then `a`-`c`.
fn column_char(col: usize) -> char {
    char::from_digit(col as u32 + 1, 13).expect("at most 12 columns")
}

/// A random game on `grid` up to `empty` empty cells without a win, as a move string (the
/// grid is left in that position): depth first over shuffled columns, backing up where every
/// move would win, within `budget` moves tried. Big boards rarely fill by plain random play.
fn random_game(grid: &mut Grid, rng: &mut Rng, empty: usize, budget: &mut u32) -> Option<String> {
    if grid.moves == grid.w * grid.h - empty {
        return Some(String::new());
    }
    let mut cols: Vec<usize> = (0..grid.w)
        .filter(|&c| grid.heights[c] < grid.h && !grid.wins(c))
        .collect();
    for i in (1..cols.len()).rev() {
        cols.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    for c in cols {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        grid.play(c);
        if let Some(rest) = random_game(grid, rng, empty, budget) {
            return Some(format!("{}{rest}", column_char(c)));
        }
        grid.undo(c);
    }
    None
}

#[test]
fn every_supported_size_agrees_with_an_independent_minimax() {
    let mut rng = Rng(0x5eed_0010);
    let (mut checked, mut run_time) = (0, 0);
    for (i, &board) in BoardSize::SUPPORTED.iter().enumerate() {
        // 256 MiB identifies the keys of every size (9x13's 126-bit keys need it); pages are
        // only touched where probed. One and two threads in turn.
        let engine = Engine::new(
            board,
            SolverBuilder::default().table_mib(256).threads(1 + i % 2),
        )
        .unwrap_or_else(|e| panic!("{board}: {e}"));
        assert_eq!(engine.is_run_time_sized(), !board.is_compiled(), "{board}");
        run_time += usize::from(engine.is_run_time_sized());
        let mut found = 0;
        for _ in 0..40 {
            if found == 3 {
                break;
            }
            let mut grid = Grid::new(board.width, board.height);
            let Some(moves) = random_game(&mut grid, &mut rng, 10, &mut 100_000) else {
                continue;
            };
            found += 1;
            let expected = grid.negamax();
            let s = engine
                .solve(&moves)
                .unwrap_or_else(|e| panic!("{board} {moves}: {e}"));
            assert_eq!(s.score, expected, "{board} {moves}");
            let weak = engine.solve_weak(&moves).unwrap();
            assert_eq!(weak.score, expected.signum(), "{board} {moves} weak");
            // Every column's score as well, against the oracle one move deeper.
            let a = engine.analyze(&moves).unwrap();
            for (c, got) in a.scores.iter().enumerate() {
                let want = (grid.heights[c] < grid.h).then(|| {
                    if grid.wins(c) {
                        (board.cells() as i32 + 1 - grid.moves as i32) / 2
                    } else {
                        grid.play(c);
                        let v = -grid.negamax();
                        grid.undo(c);
                        v
                    }
                });
                assert_eq!(*got, want, "{board} {moves} column {}", c + 1);
            }
        }
        assert!(found > 0, "{board}: no random game reached the end");
        checked += 1;
    }
    // Every size of 4..=12 x 4..=13 that fits 128 bits, in every build: the default build
    // compiles the published tables' sizes and runs the others on the run-time-sized
    // solver; `all-boards` compiles them all.
    assert_eq!(checked, 81);
    let all = cfg!(feature = "all-boards");
    assert_eq!(
        run_time,
        if all {
            0
        } else {
            81 - BoardSize::COMPILED.len()
        }
    );
    assert!(run_time > 0 || all);
}
