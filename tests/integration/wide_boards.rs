//! Boards beyond 64-bit positions or 9 columns: 128-bit bitboards,
//! two-word table slots, columns 10 to 12 in move strings, and the parity bounds on heights
//! of both parities, all against plain minimax on random positions near the end of the game.

use crate::common::{minimax, random_game, Rng};
use fourfold::position::format_moves;
use fourfold::table::Layout;
use fourfold::{Bitboard, BoardSize, Engine, Params, Position, Solver, SolverBuilder};

/// Solves `count` random positions of a `W` x `H` board (word `B`, a `mib` MiB table of the
/// given layout) with `empty` empty cells and checks exact and weak scores against
/// [`minimax`], and that the move string of each game reads back as the same position; the
/// search without the parity bounds too (the bounds themselves are checked on positions
/// where they apply by `search`'s unit tests, on heights of both parities), and the search
/// whose table key leaves out the colour of dead stones (`Params::dead_stones`).
fn agrees_with_minimax<const W: usize, const H: usize, B: Bitboard>(
    empty: u32,
    count: usize,
    seed: u64,
    mib: usize,
    layout: Layout,
) {
    let build = |params: Params| -> Solver<W, H, B> {
        SolverBuilder::default()
            .table_mib(mib)
            .threads(1)
            .params(params)
            .build()
            .expect("solver")
    };
    let solver = build(Params::default());
    assert_eq!(solver.table().layout(), layout, "{W}x{H}");
    let no_parity = build(Params {
        claim_even: false,
        ..Params::default()
    });
    // Dead stones (their colour no longer matters) given to one side in the table's key.
    let dead = build(Params {
        dead_stones: true,
        ..Params::default()
    });
    let mut rng = Rng(seed);
    let mut checked = 0;
    while checked < count {
        let Some((p, cols)) = random_game::<W, H, B>(&mut rng, empty) else {
            continue;
        };
        assert_eq!(Position::<W, H, B>::parse(&format_moves(&cols)), Ok(p));
        let expected = minimax(&p);
        let s = solver.solve(&p).unwrap();
        assert_eq!(s.score, expected, "{W}x{H} {}\n{p}", format_moves(&cols));
        assert_eq!(solver.solve_weak(&p).unwrap().score, expected.signum());
        let plain = no_parity.solve(&p).unwrap().score;
        assert_eq!(plain, expected, "{W}x{H} without parity bounds");
        let reduced = dead.solve(&p).unwrap().score;
        assert_eq!(
            reduced, expected,
            "{W}x{H} with dead stones left out of the key"
        );
        checked += 1;
    }
}

#[test]
fn wide_keys_agree_with_minimax() {
    // 128-bit positions, even and odd heights.
    agrees_with_minimax::<9, 7, u128>(9, 25, 0x97_0001, 4, Layout::TwoWord);
    agrees_with_minimax::<8, 8, u128>(9, 25, 0x88_0002, 4, Layout::TwoWord);
    // The widest key (126 bits): two words need 2^22 buckets, 256 MiB (mapped lazily).
    agrees_with_minimax::<9, 13, u128>(8, 10, 0x9d_0003, 256, Layout::TwoWord);
    // A 64-bit key with a table too small for one-word slots.
    agrees_with_minimax::<8, 7, u64>(9, 25, 0x87_0004, 4, Layout::TwoWord);
}

#[test]
fn widths_10_to_12_agree_with_minimax() {
    agrees_with_minimax::<10, 4, u64>(9, 25, 0xa4_0001, 4, Layout::OneWord);
    agrees_with_minimax::<10, 6, u128>(9, 25, 0xa6_0002, 4, Layout::TwoWord);
    agrees_with_minimax::<11, 5, u128>(9, 25, 0xb5_0003, 4, Layout::TwoWord);
    // 60 bits: two words at 4 MiB, one word from 64 MiB.
    agrees_with_minimax::<12, 4, u64>(9, 15, 0xc4_0004, 4, Layout::TwoWord);
    agrees_with_minimax::<12, 4, u64>(9, 15, 0xc4_0005, 64, Layout::OneWord);
    agrees_with_minimax::<12, 9, u128>(8, 15, 0xc9_0005, 4, Layout::TwoWord);
}

#[test]
fn engine_serves_wide_boards_and_names_what_does_not_fit() {
    let e = Engine::new(
        "10x4".parse().unwrap(),
        SolverBuilder::default().table_mib(4),
    )
    .unwrap();
    assert_eq!(
        e.board(),
        BoardSize {
            width: 10,
            height: 4
        }
    );
    // Columns 10 as `a` or `A`; on this board `b` (column 11) is out of range.
    let info = e.check("5a6A").unwrap();
    assert_eq!(info.moves, 4);
    // Rows top first: the second player's two stones at the bottom of column 10.
    assert_eq!(info.rows[3][9], Some(false));
    assert_eq!(info.rows[2][9], Some(false));
    assert_eq!(info.rows[1][9], None);
    assert!(e.check("5b").unwrap_err().to_string().contains("column 11"));
    // A solve through the engine equals the generic solver's on the same position.
    let mut rng = Rng(0xe0_0001);
    let (p, cols) = loop {
        if let Some(g) = random_game::<10, 4, u64>(&mut rng, 10) {
            break g;
        }
    };
    assert_eq!(e.solve(&format_moves(&cols)).unwrap().score, minimax(&p));

    for (board, words) in [
        ("12x10", "128 bits"),
        ("13x4", "4 to 12 columns"),
        ("8x14", "4 to 13 rows"),
        ("3x6", "4 to 12 columns"),
    ] {
        let err = board.parse::<BoardSize>().unwrap_err().to_string();
        assert!(err.contains(words), "{board}: {err}");
    }
    // A size within the limits that the default build does not compile is served all the
    // same, by the run-time-sized solver.
    let b: BoardSize = "12x9".parse().unwrap();
    assert_eq!(b.is_compiled(), cfg!(feature = "all-boards"));
    let e = Engine::new(b, SolverBuilder::default()).unwrap();
    assert_eq!(e.is_run_time_sized(), !b.is_compiled());
    let (p, cols) = loop {
        if let Some(g) = random_game::<12, 9, u128>(&mut rng, 9) {
            break g;
        }
    };
    assert_eq!(e.solve(&format_moves(&cols)).unwrap().score, minimax(&p));
    // Every size the issue allows and this engine lists builds (a 256 MiB table serves all).
    for b in BoardSize::SUPPORTED {
        if b.width * (b.height + 1) > 64 || b.width > 9 {
            let e = Engine::new(*b, SolverBuilder::default()).unwrap();
            assert_eq!(e.board(), *b);
            assert!(e.check("").is_ok());
        }
    }
}
