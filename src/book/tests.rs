//! The opening book's unit tests: the file format, lookup, the build and its errors.

use super::*;

type P = Position<7, 6>;

#[test]
fn counts_match_a_brute_force_enumeration() {
    // Every move sequence, without normalisation: the distinct positions, then their
    // mirror orbits (those where the player to move can win at once left out).
    fn walk(p: P, depth: u32, out: &mut std::collections::HashSet<u64>) {
        if depth == 0 {
            if !p.can_win_next() {
                out.insert(p.key().min(p.mirror_key()));
            }
            return;
        }
        for c in 0..7 {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = p;
                q.play_col(c);
                walk(q, depth - 1, out);
            }
        }
    }
    for n in 0..=4 {
        let mut set = std::collections::HashSet::new();
        walk(P::new(), n, &mut set);
        let ps = positions::<7, 6>(n);
        assert_eq!(ps.len(), set.len(), "depth {n}");
        assert!(ps.iter().all(|p| set.contains(&p.key())));
    }
}

#[test]
fn each_position_line_reaches_its_position() {
    // The move strings, parsed and played, are the positions themselves (not their
    // mirror images), in the same order; on a board with an odd and an even width.
    fn check<const W: usize, const H: usize>(plies: u32) {
        let ps = positions::<W, H>(plies);
        let lines = position_lines::<W, H>(plies);
        assert_eq!(ps.len(), lines.len(), "{W}x{H} depth {plies}");
        for (p, l) in ps.iter().zip(&lines) {
            assert_eq!(l.len(), p.moves() as usize, "{l}");
            let q = Position::<W, H>::parse(l).unwrap();
            assert_eq!(q.key(), p.key(), "{W}x{H} line {l}");
        }
    }
    for n in 0..=4 {
        check::<7, 6>(n);
        check::<6, 5>(n);
    }
}

#[test]
fn bytes_round_trip_and_refuse_damage() {
    let b = Book::from_entries(7, 6, 1, vec![(5, 1), (3, -2), (9, 0)]);
    let bytes = b.to_bytes();
    assert_eq!(bytes.len(), 32 + 9 * 3);
    assert_eq!(Book::from_bytes(&bytes).unwrap(), b);
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        assert!(Book::from_bytes(&bad).is_err(), "flipped byte {i}");
    }
    for n in 0..bytes.len() {
        assert!(Book::from_bytes(&bytes[..n]).is_err(), "cut at {n}");
    }
}

#[test]
fn the_shipped_book_loads_once_and_is_the_repositorys_file() {
    let b = Book::shipped(7, 6).expect("the shipped 7x6 book loads");
    assert!(std::ptr::eq(b, Book::shipped(7, 6).unwrap()));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/books/7x6-6.book");
    assert_eq!(*b, Book::load(path).unwrap());
    assert_eq!(b.len(), positions::<7, 6>(b.plies()).len());
    assert!(Book::shipped(6, 7).is_none() && Book::shipped(8, 7).is_none());
}

#[test]
fn lookup_below_the_depth_uses_immediate_wins() {
    // A book of depth 1 whose entries are all 0 except column 4: the empty board
    // scores the max over the children.
    let entries: Vec<(u64, i8)> = positions::<7, 6>(1)
        .iter()
        .map(|p| (p.key(), if p.height(3) == 1 { -5 } else { 2 }))
        .collect();
    let b = Book::from_entries(7, 6, 1, entries);
    assert_eq!(b.score(&P::new()), Some(5));
    let s = b.solve(&P::new()).unwrap();
    assert_eq!(s.best_move, Some(3));
    assert_eq!(s.source, Source::Book);
    assert_eq!(b.score(&P::parse("44").unwrap()), None);
    assert_eq!(b.score(&Position::<6, 5>::new()), None);
}
