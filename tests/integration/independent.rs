//! fourfold's exact scores on random mid-game positions of non-standard boards, against a
//! second solver written for this test alone.
//!
//! The reference solver here shares no code with fourfold's search: it has its own board (a
//! plain grid of `w * h` cells, column by column, with column heights), its own four-in-a-row
//! check (walking the four directions from the stone just played), its own table key, and a
//! plain fail-soft negamax alpha-beta on the exact score with a `HashMap` transposition
//! table of lower and upper bounds, centre-first move order and no other pruning: no
//! bitboards, no parity or threat bounds, no null windows. The only things it takes from a
//! fourfold position are the stones, read cell by cell through [`Position::cell`], and whose
//! turn it is. A wrong bound in fourfold's search (a sure-four or threat value off by a few
//! moves) shows up as a score that differs from this solver's.
//!
//! The score convention is the crate's (see the crate docs, *Scores*): for the player to move,
//! a win with the `m`-th stone of the game scores `(w * h + 2 - m) / 2`, a loss the negation
//! of the winner's score, a draw 0.
//!
//! [`all_boards`] runs in CI; [`all_boards_long`] is the long run, ignored by default:
//! `cargo test --release -p fourfold --test integration independent -- --ignored`.

use crate::common::{random_game, Rng};
use fourfold::{Position, Solver};
use std::collections::HashMap;

/// A board of run-time size: `cells[col * h + row]` is 0 (empty), 1 (first player) or 2
/// (second player), rows from the bottom.
struct Grid {
    w: usize,
    h: usize,
    cells: Vec<u8>,
    heights: Vec<usize>,
    moves: usize,
    /// The columns from the centre out.
    order: Vec<usize>,
}

impl Grid {
    /// The grid of `cells` (`cells[col * h + row]`, 0 empty, 1 first player, 2 second)
    /// with `first_to_move` telling whose turn it is; panics on floating stones or a stone
    /// count that does not match the turn.
    fn new(w: usize, h: usize, cells: Vec<u8>, first_to_move: bool) -> Grid {
        assert_eq!(cells.len(), w * h);
        let mut heights = vec![0; w];
        for (col, height) in heights.iter_mut().enumerate() {
            let column = &cells[col * h..(col + 1) * h];
            *height = column.iter().take_while(|&&c| c != 0).count();
            assert!(column[*height..].iter().all(|&c| c == 0), "floating stone");
        }
        let moves = heights.iter().sum::<usize>();
        let ones = cells.iter().filter(|&&c| c == 1).count();
        let twos = cells.iter().filter(|&&c| c == 2).count();
        assert_eq!(ones - twos, usize::from(!first_to_move), "stone counts");
        let mut order: Vec<usize> = (0..w).collect();
        order.sort_by_key(|&c| (2 * c as isize - (w as isize - 1)).abs());
        let grid = Grid {
            w,
            h,
            cells,
            heights,
            moves,
            order,
        };
        assert!(!grid.has_four(), "a game already over");
        grid
    }

    /// True when some player already has four in a row anywhere on the grid.
    fn has_four(&self) -> bool {
        let dirs = [(1, 0), (0, 1), (1, 1), (1, -1)];
        (0..self.w as isize).any(|c| {
            (0..self.h as isize).any(|r| {
                let s = self.at(c, r);
                s != 0
                    && dirs
                        .iter()
                        .any(|&(dc, dr)| (1..4).all(|i| self.at(c + i * dc, r + i * dr) == s))
            })
        })
    }

    fn me(&self) -> u8 {
        1 + (self.moves % 2) as u8
    }

    fn at(&self, col: isize, row: isize) -> u8 {
        if col < 0 || row < 0 || col >= self.w as isize || row >= self.h as isize {
            return 0;
        }
        self.cells[col as usize * self.h + row as usize]
    }

    /// True when the player to move connects four by playing `col` (which must have room).
    fn wins(&self, col: usize) -> bool {
        let me = self.me();
        let (c, r) = (col as isize, self.heights[col] as isize);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let mut n = 1;
            for sign in [1, -1] {
                let (mut x, mut y) = (c + sign * dc, r + sign * dr);
                while self.at(x, y) == me {
                    n += 1;
                    x += sign * dc;
                    y += sign * dr;
                }
            }
            n >= 4
        })
    }

    fn play(&mut self, col: usize) {
        let me = self.me();
        self.cells[col * self.h + self.heights[col]] = me;
        self.heights[col] += 1;
        self.moves += 1;
    }

    fn undo(&mut self, col: usize) {
        self.heights[col] -= 1;
        self.moves -= 1;
        self.cells[col * self.h + self.heights[col]] = 0;
    }

    /// A key unique to the position: per column, the first player's stones and a marker bit
    /// on top of the column's stones, `h + 1` bits a column.
    fn key(&self) -> u128 {
        let mut key = 0u128;
        for col in 0..self.w {
            let mut bits = 1u128 << self.heights[col];
            for row in 0..self.heights[col] {
                if self.cells[col * self.h + row] == 1 {
                    bits |= 1 << row;
                }
            }
            key |= bits << (col * (self.h + 1));
        }
        key
    }
}

/// The reference solver: a grid and its table of bounds, `(lower, upper)` by key.
struct Reference {
    grid: Grid,
    table: HashMap<u128, (i32, i32)>,
}

impl Reference {
    /// The exact score of `grid` for the player to move.
    fn solve(grid: Grid) -> i32 {
        let mut r = Reference {
            grid,
            table: HashMap::new(),
        };
        r.negamax(i32::MIN / 2, i32::MAX / 2)
    }

    /// Fail-soft negamax: the exact score when it lies strictly between `alpha` and `beta`;
    /// else a value `v <= alpha` with score `<= v`, or `v >= beta` with score `>= v`.
    fn negamax(&mut self, alpha: i32, beta: i32) -> i32 {
        let g = &self.grid;
        let cells = (g.w * g.h) as i32;
        let m = g.moves as i32;
        if m == cells {
            return 0;
        }
        if (0..g.w).any(|c| g.heights[c] < g.h && g.wins(c)) {
            // A win with stone `m + 1` of the game.
            return (cells + 1 - m) / 2;
        }
        // No win now: the best is a win with stone `m + 3`, the worst a loss to stone `m + 2`.
        let (mut lo, mut hi) = (-(cells - m) / 2, (cells - 1 - m) / 2);
        if lo > hi {
            // Only possible when one stone fits: the board fills up with a draw.
            (lo, hi) = (0, 0);
        }
        let key = g.key();
        if let Some(&(tlo, thi)) = self.table.get(&key) {
            lo = lo.max(tlo);
            hi = hi.min(thi);
        }
        if lo >= hi {
            return lo;
        }
        if lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        let a0 = alpha.max(lo);
        let b = beta.min(hi);
        let mut a = a0;
        let mut best = i32::MIN;
        for i in 0..self.grid.w {
            let col = self.grid.order[i];
            if self.grid.heights[col] == self.grid.h {
                continue;
            }
            self.grid.play(col);
            let v = -self.negamax(-b, -a);
            self.grid.undo(col);
            best = best.max(v);
            a = a.max(v);
            if a >= b {
                break;
            }
        }
        let entry = self.table.entry(key).or_insert((lo, hi));
        if best <= a0 {
            entry.1 = entry.1.min(best);
        } else if best >= b {
            entry.0 = entry.0.max(best);
        } else {
            *entry = (best, best);
        }
        best
    }
}

/// The reference solver's grid of a fourfold position, read cell by cell.
fn grid_of<const W: usize, const H: usize>(p: &Position<W, H, u64>) -> Grid {
    let mut cells = vec![0u8; W * H];
    for col in 0..W {
        for row in 0..H {
            cells[col * H + row] = match p.cell(col, row) {
                None => 0,
                Some(true) => 1,
                Some(false) => 2,
            };
        }
    }
    Grid::new(W, H, cells, p.moves() % 2 == 0)
}

/// Compares fourfold with the reference on `count` random positions of `W` x `H` with
/// `empty` empty cells each (cycling through the values of `empty`), where the player to move
/// cannot win at once. Returns the number of positions checked and how many of them the
/// reference scores 2 or more away from a draw (the scores the deep bounds must get right).
fn check<const W: usize, const H: usize>(seed: u64, count: usize, empty: &[u32]) -> (usize, usize) {
    let solver: Solver<W, H> = Solver::builder()
        .table_mib(16)
        .threads(1)
        .build()
        .expect("solver");
    let mut rng = Rng(seed);
    let start = std::time::Instant::now();
    let (mut done, mut decisive) = (0, 0);
    while done < count {
        let e = empty[done % empty.len()];
        let Some((p, cols)) = random_game::<W, H, u64>(&mut rng, e) else {
            continue;
        };
        if p.can_win_next() {
            continue;
        }
        let want = Reference::solve(grid_of(&p));
        let got = solver.solve(&p).expect("solve").score;
        let moves: String = cols.iter().map(|c| format!("{} ", c + 1)).collect();
        assert_eq!(
            got,
            want,
            "{W}x{H}, {e} empty, columns (1-based) {}: fourfold {got}, reference {want}",
            moves.trim_end()
        );
        done += 1;
        decisive += usize::from(want.abs() >= 2);
    }
    eprintln!(
        "{W}x{H}: {done} positions, {decisive} won or lost by 2 or more, {:.1?}",
        start.elapsed()
    );
    (done, decisive)
}

/// The empty cells of the positions: 16 to 24, both parities (odd counts leave the first
/// player to move), deep enough for the parity bounds to decide with large values.
const EMPTY: [u32; 9] = [16, 17, 18, 19, 20, 21, 22, 23, 24];

/// The boards of `bench --boards` other than 7 x 6, `per_board` positions each. Returns the
/// positions checked and how many of them were won or lost by 2 or more.
fn run(per_board: usize) -> (usize, usize) {
    let runs = [
        check::<6, 6>(0x6606, per_board, &EMPTY),
        check::<8, 4>(0x8404, per_board, &EMPTY),
        check::<7, 5>(0x7505, per_board, &EMPTY),
        check::<5, 8>(0x5808, per_board, &EMPTY),
        check::<8, 5>(0x8505, per_board, &EMPTY),
        check::<6, 7>(0x6707, per_board, &EMPTY),
        check::<7, 7>(0x7707, per_board, &EMPTY),
    ];
    runs.iter().fold((0, 0), |(n, d), &(a, b)| (n + a, d + b))
}

/// fourfold's score equals the reference solver's on random positions of seven boards, and
/// at least a third of them are decided by 2 or more (so the check is not one of draws).
#[test]
fn all_boards() {
    let (n, decisive) = run(100);
    assert!(3 * decisive >= n, "{decisive} of {n} decided by 2 or more");
}

/// The long run of [`all_boards`]: many more positions on the same boards. Run with
/// `cargo test --release -p fourfold --test integration independent -- --ignored`.
#[test]
#[ignore]
fn all_boards_long() {
    let (n, decisive) = run(1000);
    assert!(3 * decisive >= n, "{decisive} of {n} decided by 2 or more");
}
