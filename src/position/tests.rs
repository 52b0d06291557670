//! The position's unit tests: moves, keys, mirror, threats, move strings.

use super::*;

type P = Position;

#[test]
fn layout_constants() {
    assert_eq!(P::bottom().count_ones(), 7);
    assert_eq!(P::board().count_ones(), 42);
    assert_eq!(P::even_rows().count_ones(), 21);
    assert_eq!(P::odd_rows().count_ones(), 21);
    assert_eq!(key_bits(7, 6), 49);
}

#[test]
fn parse_errors_name_the_reason() {
    let e = P::parse("44x").unwrap_err();
    assert_eq!(e.index(), 2);
    assert_eq!(e.kind(), &ParseErrorKind::InvalidCharacter('x'));
    // The message counts moves from 1: the third character is move 3.
    let text = e.to_string();
    assert!(text.contains("at move 3") && text.contains("'x'"), "{text}");
    assert_eq!(
        P::parse("8").unwrap_err().kind(),
        &ParseErrorKind::ColumnOutOfRange(8)
    );
    assert_eq!(
        P::parse("0").unwrap_err().kind(),
        &ParseErrorKind::ColumnOutOfRange(0)
    );
    assert_eq!(
        P::parse("1111111").unwrap_err().kind(),
        &ParseErrorKind::ColumnFull(1)
    );
    let e = P::parse("1212121").unwrap_err();
    assert_eq!(e.kind(), &ParseErrorKind::AlreadyWon(1));
    assert_eq!(e.index(), 6);
    // `str::parse` (`FromStr`) is `Position::parse`: the moves played one by one, white
    // space around them ignored, and the same errors.
    let mut q = P::new();
    for c in [3, 3, 4, 2] {
        q.play_col(c);
    }
    assert_eq!(" 4453 ".parse::<P>(), Ok(q));
    assert_eq!("44x".parse::<P>(), P::parse("44x"));
    assert!("44x".parse::<P>().is_err());
}

#[test]
fn keys_are_unique_and_canonical_keys_join_mirror_images_only() {
    // Up to 6 plies: every position has its own key, and equal positions reached by
    // different orders share it; a canonical key stands for one position up to mirroring
    // (the one whose own key it is), a position and its mirror image get the same one,
    // and the flag says which of the two the key belongs to.
    type Seen = std::collections::HashMap<u64, (u64, u64)>;
    fn walk(p: P, depth: u32, seen: &mut Seen, canonical: &mut Seen) {
        let e = seen.entry(p.key()).or_insert((p.current(), p.mask()));
        assert_eq!(*e, (p.current(), p.mask()));
        let (k, flip) = p.canonical_key();
        let m = p.mirror();
        assert_eq!(m.canonical_key().0, k);
        let owner = if flip { m } else { p };
        assert_eq!(owner.key(), k);
        assert_eq!(flip, m.key() < p.key());
        let e = canonical
            .entry(k)
            .or_insert((owner.current(), owner.mask()));
        assert_eq!(*e, (owner.current(), owner.mask()));
        if depth == 0 {
            return;
        }
        for c in 0..7 {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = p;
                q.play_col(c);
                walk(q, depth - 1, seen, canonical);
            }
        }
    }
    let (mut seen, mut canonical) = (Seen::new(), Seen::new());
    walk(P::new(), 6, &mut seen, &mut canonical);
    assert!(seen.len() > 10_000);
    assert!(canonical.len() > 5_000 && canonical.len() < seen.len());
}

/// The dead stones by their definition, line by line: the opponent's stones each of whose
/// open lines (in the board, with an empty cell) holds a stone of the player to move and
/// an anchor (an opponent stone on an open line without the player to move's stones).
fn dead_by_definition<const W: usize, const H: usize>(p: &Position<W, H>) -> u64 {
    let mover_is_first = p.moves() % 2 == 0;
    // Some(true): the player to move's stone.
    let at = |c: i64, r: i64| p.cell(c as usize, r as usize).map(|f| f == mover_is_first);
    let inside = |c: i64, r: i64| (0..W as i64).contains(&c) && (0..H as i64).contains(&r);
    let mut lines = Vec::new();
    for c in 0..W as i64 {
        for r in 0..H as i64 {
            for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let cells: Vec<(i64, i64)> = (0..4).map(|i| (c + i * dc, r + i * dr)).collect();
                if cells.iter().all(|&(x, y)| inside(x, y))
                    && cells.iter().any(|&(x, y)| at(x, y).is_none())
                {
                    lines.push(cells);
                }
            }
        }
    }
    let holds = |l: &Vec<(i64, i64)>, v: Option<bool>| l.iter().any(|&(x, y)| at(x, y) == v);
    let anchors: Vec<(i64, i64)> = lines
        .iter()
        .filter(|l| !holds(l, Some(true)))
        .flat_map(|l| l.iter().copied().filter(|&(x, y)| at(x, y) == Some(false)))
        .collect();
    let mut dead = 0;
    for c in 0..W as i64 {
        for r in 0..H as i64 {
            let is_dead = at(c, r) == Some(false)
                && lines
                    .iter()
                    .filter(|l| l.contains(&(c, r)))
                    .all(|l| holds(l, Some(true)) && l.iter().any(|cell| anchors.contains(cell)));
            if is_dead {
                dead |= 1u64 << (c as usize * (H + 1) + r as usize);
            }
        }
    }
    dead
}

#[test]
fn dead_stones_match_their_definition() {
    // Random games of 7 x 6 and 5 x 4 to every length: the bitboard computation against
    // the definition, cell by cell; the reduced key is shared by the position with its
    // dead stones recoloured, and by its mirror image. (And the children's canonical
    // keys computed from the parent's.)
    fn check<const W: usize, const H: usize>(seed: u64) -> u32 {
        let mut s = seed;
        let mut found = 0;
        for _ in 0..200 {
            let mut p = Position::<W, H>::new();
            loop {
                let dead = p.dead_stones();
                assert_eq!(dead, dead_by_definition(&p), "{p:?}\n{p}");
                found += dead.count_ones();
                let recoloured = Position::<W, H> {
                    current: p.current | dead,
                    ..p
                };
                assert_eq!(recoloured.reduced_key(), p.reduced_key());
                // What it is: the canonical key of the recoloured position.
                assert_eq!(p.reduced_key(), recoloured.canonical_key());
                assert_eq!(p.mirror().reduced_key().0, p.reduced_key().0);
                let mut moves = p.possible();
                while moves != 0 {
                    let bit = moves & moves.wrapping_neg();
                    moves ^= bit;
                    let child = p.after(bit).canonical_key().0;
                    assert_eq!(
                        Position::<W, H>::canonical_child_key(p.child_base(), bit),
                        child
                    );
                }
                if !p.play_random_quiet(&mut s) {
                    break;
                }
            }
        }
        found
    }
    // Dead stones must actually occur for the check to mean anything.
    assert!(check::<7, 6>(0x5eed) > 1000);
    assert!(check::<5, 4>(0xc105e) > 1000);
}

#[test]
fn mirror_round_trip() {
    let p = P::parse("4453215").unwrap();
    assert_eq!(p.mirror().mirror(), p);
    assert_eq!(p.mirror(), P::parse("4435673").unwrap());
    assert_eq!(p.mirror_key(), p.mirror().key());
}

#[test]
fn non_losing_moves_block_and_avoid() {
    // First player threatens column 4 (index 3) vertically: the second player must block.
    let p = P::parse("41414").unwrap();
    assert_eq!(p.non_losing_moves(), p.possible() & P::column_mask(3));
    // Two threats (X on columns 3, 4, 5 of the bottom row, 2 and 6 open): nothing saves O.
    let p = P::parse("44553").unwrap();
    assert_eq!(p.non_losing_moves(), 0);
    // A cell right below an opponent threat is never offered.
    let p = P::parse("2233").unwrap(); // X: b1 c1, O: b2 c2; X to move
    assert!(p.non_losing_moves() & P::column_mask(0) != 0);
}

#[test]
fn move_strings_name_columns_10_to_12_with_letters() {
    type P12 = Position<12, 4>;
    let cols = [5, 9, 6, 11, 10, 0, 8];
    let s = format_moves(&cols);
    assert_eq!(s, "6a7cb19");
    let mut q = P12::new();
    for &c in &cols {
        q.play_col(c);
    }
    assert_eq!(P12::parse(&s), Ok(q));
    assert_eq!(P12::parse("6A7CB19"), Ok(q));
    assert_eq!(
        Position::<10, 4>::parse("b").unwrap_err().kind(),
        &ParseErrorKind::ColumnOutOfRange(11)
    );
    assert_eq!(
        P12::parse("d").unwrap_err().kind(),
        &ParseErrorKind::InvalidCharacter('d')
    );
    // Boards of at most 9 columns keep the classic format: letters are not columns.
    assert_eq!(
        Position::<9, 6>::parse("a").unwrap_err().kind(),
        &ParseErrorKind::InvalidCharacter('a')
    );
    assert!(P12::new().to_string().ends_with("1 2 3 4 5 6 7 8 9 a b c"));
    assert_eq!(column_char(12), None);
}

#[test]
fn wide_positions_keep_unique_keys_and_mirror() {
    // 9 x 7 needs 80 bits: keys unique on a small tree, mirror as on u64 boards.
    type Q = Position<9, 7, u128>;
    assert_eq!(Q::board().count_ones(), 63);
    let mut seen = std::collections::HashMap::new();
    fn walk(p: Q, depth: u32, seen: &mut std::collections::HashMap<u128, (u128, u128)>) {
        let e = seen.entry(p.key()).or_insert((p.current(), p.mask()));
        assert_eq!(*e, (p.current(), p.mask()));
        assert_eq!(p.mirror_key(), p.mirror().key());
        if depth == 0 {
            return;
        }
        for c in 0..9 {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = p;
                q.play_col(c);
                walk(q, depth - 1, seen);
            }
        }
    }
    walk(Q::new(), 4, &mut seen);
    assert!(seen.len() > 1000);
    // A column filled to the top of the last column: the highest bits of the key.
    let p = Q::parse("9999999").unwrap();
    assert!(p.key() >> 64 != 0);
    assert!(!p.can_play(8) && p.can_play(7));
    assert_eq!(p.mirror().mirror(), p);
    // 8 x 8 and 12 x 9 play, win and refuse the same way.
    assert_eq!(
        Position::<8, 8, u128>::parse("1212121").unwrap_err().kind(),
        &ParseErrorKind::AlreadyWon(1)
    );
    let p = Position::<12, 9, u128>::parse("cbcbcb").unwrap();
    assert!(p.is_winning_move(11) && p.can_win_next() && !p.is_winning_move(10));
}

/// The row sets of the parity bounds cell by cell (row `H` is the spare bit above each
/// column): the follower's rows are those an even number of rows below the top one,
/// the leader's the other rows of the board, `rows_below(n)` rows `0..n`. And
/// `columns_paired` against the columns' heights, at every ply of random games.
fn check_row_sets<const W: usize, const H: usize, B: Bitboard>(seed: u64) {
    let (mut follower, mut leader) = (B::ZERO, B::ZERO);
    let mut below = vec![B::ZERO; H + 2];
    for c in 0..W {
        let col = Position::<W, H, B>::column_mask(c);
        for r in 0..=H {
            let cell = (col & col.wrapping_neg()) << r;
            if r < H && (H - 1 - r) % 2 == 0 {
                follower |= cell;
            } else if r < H {
                leader |= cell;
            }
            for (n, set) in below.iter_mut().enumerate() {
                if r < n.min(H) {
                    *set |= cell;
                }
            }
        }
    }
    assert_eq!(Position::<W, H, B>::follower_rows(), follower, "{W}x{H}");
    assert_eq!(Position::<W, H, B>::leader_rows(), leader, "{W}x{H}");
    for (n, set) in below.into_iter().enumerate() {
        assert_eq!(Position::<W, H, B>::rows_below(n), set, "{W}x{H}, n = {n}");
    }
    let mut s = seed;
    for _ in 0..50 {
        let mut p = Position::<W, H, B>::new();
        loop {
            let paired = (0..W).all(|c| (H as u32 - p.height(c)) % 2 == 0);
            assert_eq!(p.columns_paired(), paired, "{W}x{H} {p:?}");
            if !p.play_random_quiet(&mut s) {
                break;
            }
        }
    }
}

#[test]
fn parity_row_sets_and_paired_columns() {
    check_row_sets::<7, 6, u64>(0x76);
    check_row_sets::<7, 5, u64>(0x75);
    check_row_sets::<6, 7, u64>(0x67);
    check_row_sets::<4, 4, u64>(0x44);
    check_row_sets::<5, 3, u64>(0x53);
    check_row_sets::<9, 8, u128>(0x98);
    check_row_sets::<12, 9, u128>(0xc9);
}

#[test]
fn display_draws_the_board() {
    let p = P::parse("44").unwrap();
    let s = p.to_string();
    assert!(s.contains(". . . O . . ."));
    assert!(s.ends_with("1 2 3 4 5 6 7"));
    // The whole picture, drawn by hand from the moves (X: 4 then 5; O: 4 on top, then
    // 3): one line per row, top row first, cells apart by one space, no space at either
    // end, and the column names last without a newline.
    let p = P::parse("4453").unwrap();
    let picture = [
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . O . . .",
        ". . O X X . .",
        "1 2 3 4 5 6 7",
    ];
    assert_eq!(p.to_string(), picture.join("\n"));
}

/// The facts of the board against a cell-by-cell oracle, at every ply of random games:
/// `winning_cells` of either player is the set of empty cells that would give that player
/// four in a row; `has_four` of each player's stones and of random sets of cells; a move
/// wins at once exactly when its cell is such a cell; and `non_losing_moves` (when the
/// player to move cannot win at once) is the set of moves after which the opponent has no
/// winning move.
fn check_board_facts<const W: usize, const H: usize, B: Bitboard>(
    seed: u64,
    games: usize,
) -> [u32; 3] {
    let cell = |c: usize, r: usize| 1u128 << (c * (H + 1) + r);
    let board: u128 = (0..W)
        .flat_map(|c| (0..H).map(move |r| (c, r)))
        .map(|(c, r)| cell(c, r))
        .sum();
    let wins = |stones: u128, mask: u128| -> u128 {
        let mut w = 0;
        for c in 0..W {
            for r in 0..H {
                let x = cell(c, r);
                if mask & x == 0 && four_by_cells::<W, H>(stones | x) {
                    w |= x;
                }
            }
        }
        w
    };
    // The lowest empty cell of each column with room.
    let playable = |mask: u128| -> Vec<u128> {
        (0..W)
            .filter_map(|c| (0..H).map(|r| cell(c, r)).find(|&x| mask & x == 0))
            .collect()
    };
    let mut s = seed;
    // How often a position had a winning move, a forced block, no safe move.
    let mut seen = [0; 3];
    for _ in 0..games {
        let mut p = Position::<W, H, B>::new();
        loop {
            let (cur, mask) = (p.current().to_u128(), p.mask().to_u128());
            let opp = cur ^ mask;
            let mine = wins(cur, mask);
            let theirs = wins(opp, mask);
            assert_eq!(p.winning().to_u128(), mine, "{W}x{H}\n{p}");
            assert_eq!(p.opponent_winning().to_u128(), theirs, "{W}x{H}\n{p}");
            assert_eq!(
                winning_cells::<W, H, B>(p.current(), p.mask()).to_u128(),
                mine
            );
            for stones in [cur, opp, xorshift(&mut s) as u128 & board, {
                let x = (xorshift(&mut s) as u128) << 64 | xorshift(&mut s) as u128;
                x & board
            }] {
                assert_eq!(
                    has_four::<W, H, B>(B::from_u128(stones)),
                    four_by_cells::<W, H>(stones),
                    "{W}x{H} {stones:#x}"
                );
            }
            let moves = playable(mask);
            for c in 0..W {
                if let Some(&x) = moves
                    .iter()
                    .find(|&&x| x & Position::<W, H, B>::column_mask(c).to_u128() != 0)
                {
                    assert_eq!(p.is_winning_move(c), mine & x != 0, "{W}x{H} {c}\n{p}");
                }
            }
            let can_win = moves.iter().any(|&x| mine & x != 0);
            assert_eq!(p.can_win_next(), can_win, "{W}x{H}\n{p}");
            if can_win {
                seen[0] += 1;
            } else {
                // After our move `x` the opponent moves; it wins at once when one of its
                // moves completes four of its stones.
                let safe: u128 = moves
                    .iter()
                    .filter(|&&x| {
                        let after = mask | x;
                        !playable(after).iter().any(|&y| wins(opp, after) & y != 0)
                    })
                    .sum();
                let (next, threats) = p.non_losing_moves_and_threats();
                assert_eq!(next.to_u128(), safe, "{W}x{H}\n{p}");
                assert_eq!(p.non_losing_moves().to_u128(), safe);
                assert_eq!(threats.to_u128(), theirs);
                if moves.iter().any(|&x| theirs & x != 0) {
                    seen[1] += 1;
                }
                if safe == 0 && !moves.is_empty() {
                    seen[2] += 1;
                }
            }
            if !p.play_random_quiet(&mut s) {
                break;
            }
        }
    }
    seen
}

#[test]
fn board_facts_agree_with_a_cell_by_cell_oracle() {
    for (board, seen) in [
        ("7x6", check_board_facts::<7, 6, u64>(0xfac776, 12)),
        ("5x4", check_board_facts::<5, 4, u64>(0xfac754, 40)),
        ("4x5", check_board_facts::<4, 5, u64>(0xfac745, 40)),
        ("8x7", check_board_facts::<8, 7, u64>(0xfac787, 8)),
        ("6x7", check_board_facts::<6, 7, u64>(0xfac767, 10)),
        ("9x7", check_board_facts::<9, 7, u128>(0xfac797, 6)),
        ("12x9", check_board_facts::<12, 9, u128>(0xfac7c9, 5)),
    ] {
        // The test means something only if each case comes up.
        assert!(seen.iter().all(|&n| n > 10), "{board}: {seen:?}");
    }
}

#[test]
fn can_play_only_columns_of_the_board_with_room() {
    // At every ply of random games: a column can be played when it is on the board and
    // its top cell is empty; never a column at or past the width.
    fn check<const W: usize, const H: usize>(seed: u64) {
        let mut s = seed;
        for _ in 0..20 {
            let mut p = Position::<W, H>::new();
            loop {
                for c in 0..W + 2 {
                    let room = c < W && p.cell(c, H - 1).is_none();
                    assert_eq!(p.can_play(c), room, "{W}x{H} column {c}\n{p}");
                }
                if !p.play_random_quiet(&mut s) {
                    break;
                }
            }
        }
    }
    check::<7, 6>(0x7e6);
    check::<8, 7>(0x8e7);
    check::<4, 3>(0x4e3);
}

#[test]
fn debug_names_the_moves_and_the_key() {
    // The key `current + mask` column by column, from the cells: a column of `h` stones
    // holds `2^h - 1` plus the player to move's stones of the column read as a binary
    // number (row 0 the lowest bit), which stays below `2^(H + 1)`: no carry between
    // columns.
    fn key_by_cells<const W: usize, const H: usize>(p: &Position<W, H>) -> u64 {
        let mover_is_first = p.moves() % 2 == 0;
        let mut key = 0;
        for c in 0..W {
            let mut column = 0u64;
            let mut h = 0;
            while h < H && p.cell(c, h).is_some() {
                if p.cell(c, h) == Some(mover_is_first) {
                    column += 1 << h;
                }
                h += 1;
            }
            column += (1 << h) - 1;
            key += column << (c * (H + 1));
        }
        key
    }
    for s in ["", "4", "4453", "1212343"] {
        let p = P::parse(s).unwrap();
        let text = format!("{p:?}");
        let want = format!("Position({} moves, key {:#x})", s.len(), key_by_cells(&p));
        assert_eq!(text, want);
    }
}
