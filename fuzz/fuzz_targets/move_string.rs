//! Move strings: any bytes given to `Position::parse` either give a position consistent with
//! the string or an error pointing inside it; never a panic.
#![no_main]

use fourfold::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let moves: Vec<char> = s.trim().chars().collect();
    match Position::<7, 6>::parse(s) {
        Ok(p) => {
            // Every character was one move.
            assert_eq!(p.moves() as usize, moves.len());
            assert_eq!(p.mirror().mirror(), p);
            // The mirrored string is a legal game too, and describes the mirror image.
            let mirrored: String = moves
                .iter()
                .map(|c| char::from_digit(8 - c.to_digit(10).unwrap(), 10).unwrap())
                .collect();
            assert_eq!(Position::<7, 6>::parse(&mirrored), Ok(p.mirror()));
            // A prefix then the rest is the same game.
            let half = moves.len() / 2;
            let head: String = moves[..half].iter().collect();
            let tail: String = moves[half..].iter().collect();
            let mut q = Position::<7, 6>::parse(&head).unwrap();
            q.play_str(&tail).unwrap();
            assert_eq!(q, p);
        }
        Err(e) => {
            assert!(e.index() < moves.len(), "{e}");
            assert!(!e.to_string().is_empty());
        }
    }
    // Other board sizes share the parser.
    let _ = Position::<4, 4>::parse(s);
    let _ = Position::<9, 6>::parse(s);
    let _ = Position::<8, 7>::parse(s);
});
