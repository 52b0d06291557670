//! Test-set lines and the byte line reader: any bytes, read as a batch file, give one item
//! per line with the right numbers, lines within the limit, and errors instead of panics.
#![no_main]

use fourfold::testset::{cases, lines, parse_line};
use fourfold::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        match parse_line::<7, 6>(s) {
            Ok(c) => assert_eq!(Position::parse(&c.moves), Ok(c.position)),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    // The first byte picks a small limit, so that long lines are common.
    let limit = data.first().map_or(8, |&b| b as usize % 48);
    let mut expected_lines = data.iter().filter(|&&b| b == b'\n').count();
    if data.last().is_some_and(|&b| b != b'\n') {
        expected_lines += 1;
    }
    let mut n = 0;
    let mut shown = false;
    for (number, line) in lines(data).limit(limit) {
        n += 1;
        assert_eq!(number, n as u64);
        match line {
            Ok(l) => assert!(l.len() <= limit && !l.contains('\n')),
            // Display of one error per input: enough to cover it, cheap enough to run fast.
            Err(e) if !shown => {
                shown = true;
                assert!(!e.to_string().is_empty());
            }
            Err(_) => {}
        }
    }
    assert_eq!(n, expected_lines);
    let mut last = 0;
    for (number, case) in cases::<7, 6, _>(data) {
        assert!(number > last);
        last = number;
        if let Ok(c) = case {
            assert_eq!(Position::parse(&c.moves), Ok(c.position));
        }
    }
});
