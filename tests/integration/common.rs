//! Helpers shared by the integration tests: reading the bundled test sets.

use fourfold::testset::{parse_line, Case};
use fourfold::{Bitboard, Position, Solver};

/// The cases of `tests/data/<name>`, at most `limit` of them.
pub fn cases(name: &str, limit: usize) -> Vec<Case> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(limit)
        .map(|l| parse_line(l).unwrap_or_else(|e| panic!("{path}: {l}: {e}")))
        .collect();
    assert!(!cases.is_empty(), "{path} is empty");
    cases
}

pub fn solver(mib: usize, threads: usize) -> Solver {
    Solver::builder()
        .table_mib(mib)
        .threads(threads)
        .build()
        .expect("solver")
}

/// A small deterministic generator for random positions.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A random game of `W` x `H` played to `W * H - empty` stones (never a winning move), and
/// its columns; `None` when random play got stuck first.
pub fn random_game<const W: usize, const H: usize, B: Bitboard>(
    rng: &mut Rng,
    empty: u32,
) -> Option<(Position<W, H, B>, Vec<usize>)> {
    let mut p = Position::<W, H, B>::new();
    let mut cols = Vec::new();
    while p.moves() < (W * H) as u32 - empty {
        let ok: Vec<usize> = (0..W)
            .filter(|&c| p.can_play(c) && !p.is_winning_move(c))
            .collect();
        if ok.is_empty() {
            return None;
        }
        let c = ok[(rng.next() % ok.len() as u64) as usize];
        p.play_col(c);
        cols.push(c);
    }
    Some((p, cols))
}

/// Plain negamax without table, pruning or ordering: the definition of the score.
pub fn minimax<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> i32 {
    if p.is_full() {
        return 0;
    }
    let win = ((W * H) as i32 + 1 - p.moves() as i32) / 2;
    let mut best = -win; // anything real beats this
    for col in 0..W {
        if !p.can_play(col) {
            continue;
        }
        if p.is_winning_move(col) {
            return win;
        }
        let mut q = *p;
        q.play_col(col);
        best = best.max(-minimax(&q));
    }
    best
}
