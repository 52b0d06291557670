//! The table's unit tests: layouts, exactness, replacement, near tables, storage.

use super::memory::memory_of;
use super::slot::VALUE_OFFSET;
use super::*;

fn rng(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn mix_is_a_bijection() {
    let mut s = 0x1234_5678_9abc_def1;
    for bits in [8u32, 20, 42, 49, 56, 63, 64] {
        let m = key_mask(bits);
        for _ in 0..20_000 {
            let k = rng(&mut s) & m;
            let h = mix(k, bits);
            assert!(h <= m);
            assert_eq!(unmix(h, bits), k, "bits {bits}");
        }
    }
    // Exhaustively on a small width: a permutation.
    let mut seen = vec![false; 1 << 12];
    for k in 0..1u64 << 12 {
        let h = mix(k, 12) as usize;
        assert!(!seen[h]);
        seen[h] = true;
    }
}

#[test]
fn every_field_round_trips_at_its_extremes() {
    for value in [-64, -18, -1, 0, 1, 18, 63] {
        for bound in [Bound::Upper, Bound::Lower, Bound::Exact] {
            for best_move in [None, Some(0), Some(6), Some(14)] {
                for work in [0, 1, 62, 63] {
                    for generation in [0, 1, 30, 31] {
                        for check in [0, 1, (1u64 << CHECK_BITS) - 1] {
                            let e = Entry {
                                value,
                                bound,
                                best_move,
                                work,
                                generation,
                            };
                            let w = pack(check, &e);
                            assert_ne!(w, 0);
                            assert_eq!(unpack(w), Some(e));
                            assert_eq!(check_of(w), check);
                        }
                    }
                }
            }
        }
    }
    assert_eq!(unpack(0), None);
}

#[test]
fn sizes_are_checked() {
    assert!(Table::new(0, 49).is_err());
    assert!(Table::new(MAX_MIB + 1, 49).is_err());
    assert!(Table::new(1, 49).is_ok());
    assert!(Table::new(3, 49).is_ok());
    // A 64-bit key needs 2^24 buckets for one-word slots, two words below.
    assert_eq!(Table::layout_for(1 << 24, 64), Ok(Layout::OneWord));
    assert_eq!(Table::layout_for((1 << 24) - 1, 64), Ok(Layout::TwoWord));
    // A 126-bit key (9 x 13) needs 2^22 buckets (256 MiB) even in two words.
    let e = Table::with_buckets((1 << 22) - 1, 126).unwrap_err();
    assert!(e.to_string().contains("256 MiB"), "{e}");
    assert!(Table::layout_for(1 << 22, 126).is_ok());
    assert!(Table::layout_for(1, 129).is_err() && Table::layout_for(1, 0).is_err());
    // More buckets than the address space holds.
    assert!(Table::with_buckets(usize::MAX / 8, 49).is_err());
}

#[cfg(unix)]
#[test]
fn memory_is_unknown_when_sysconf_fails_or_says_zero() {
    assert_eq!(memory_of(1 << 20, 4096), Some(4 << 30));
    assert_eq!(memory_of(1, 1), Some(1));
    for (pages, page) in [(0, 4096), (1 << 20, 0), (-1, 4096), (1 << 20, -1), (-1, -1)] {
        assert_eq!(memory_of(pages, page), None, "{pages} {page}");
    }
    assert_eq!(memory_of(libc::c_long::MAX, 4096), None);
}

#[test]
fn a_table_larger_than_memory_is_refused_with_both_sizes() {
    let e = check_fits(200_000 << 20, Some(24 << 30)).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("200000 MiB (195.3 GiB)") && msg.contains("has 24.0 GiB of memory"),
        "{msg}"
    );
    assert!(check_fits(24 << 30, Some(24 << 30)).is_ok());
    assert!(check_fits(u64::MAX, None).is_ok());
    // On this machine: one MiB more than its memory (within MAX_MIB) is refused.
    let mem = physical_memory().expect("sysconf knows the memory");
    let mib = (mem >> 20) as usize + 1;
    if mib <= MAX_MIB {
        // Refused by the check of its size, not by the OS when asked for the memory; a
        // table to be split, by the size of the whole.
        for e in [Table::new(mib, 49), Table::with_near(mib, 49, 2)] {
            let e = e.unwrap_err();
            let want = format!("a table of {mib} MiB");
            assert!(
                e.to_string().contains(&want) && e.to_string().contains("the machine has"),
                "{e}"
            );
        }
    }
}

/// Every board size the crate allows (4..=12 x 4..=13 with a key of at most 128 bits),
/// over table sizes from 1 MiB to 1 TiB: the layout follows the rule of the module docs,
/// the slots keep enough bits of the mixed key for the proof, and the default size
/// serves every board.
#[test]
fn every_board_and_size_gets_an_exact_layout() {
    let mut boards = 0;
    for w in 4..=12usize {
        for h in 4..=13usize {
            let k = crate::position::key_bits(w, h);
            if k > MAX_KEY_BITS {
                continue;
            }
            boards += 1;
            for mib in [1usize, 2, 3, 4, 5, 16, 100, 256, 1000, 1024, 4096, MAX_MIB] {
                let buckets = mib * (1 << 20) / BUCKET_BYTES;
                let i = usize::BITS - 1 - buckets.leading_zeros();
                match Table::layout_for(buckets, k) {
                    Ok(Layout::OneWord) => {
                        // One word: check bits and index cover the key, which fits u64.
                        assert!(k <= 64 && i + CHECK_BITS >= k, "{w}x{h} {mib} MiB");
                    }
                    Ok(Layout::TwoWord) => {
                        // Two words only where one word cannot be exact.
                        assert!(k > 64 || i + CHECK_BITS < k, "{w}x{h} {mib} MiB");
                        assert!(i + WIDE_CHECK_BITS >= k, "{w}x{h} {mib} MiB");
                    }
                    Err(e) => {
                        assert!(i + WIDE_CHECK_BITS < k, "{w}x{h} {mib} MiB: {e}");
                        assert!(e.to_string().contains("MiB"));
                    }
                }
            }
            let default = DEFAULT_TABLE_MIB * (1 << 20) / BUCKET_BYTES;
            assert!(Table::layout_for(default, k).is_ok(), "{w}x{h}");
            // 7 x 6 and everything up to 54 bits: one word at every size.
            if k <= 54 {
                assert_eq!(Table::layout_for(1 << 14, k), Ok(Layout::OneWord));
            }
        }
    }
    assert_eq!(boards, 9 * 10 - 9);
}

#[test]
fn mix128_is_a_bijection() {
    let mut s = 0x0bad_cafe_1234_5678;
    for bits in [8u32, 49, 64, 65, 72, 100, 104, 117, 126, 128] {
        let m = key_mask_wide(bits);
        for _ in 0..5_000 {
            let k = ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & m;
            let h = mix128(k, bits);
            assert!(h <= m);
            assert_eq!(unmix128(h, bits), k, "bits {bits}");
        }
    }
    let mut seen = vec![false; 1 << 12];
    for k in 0..1u128 << 12 {
        let h = mix128(k, 12) as usize;
        assert!(!seen[h]);
        seen[h] = true;
    }
}

/// The two-word proof's interval claim on the real index function: every key of one
/// bucket has distinct low `K - floor(log2 n)` bits of its mixed key.
#[test]
fn wide_check_bits_identify_keys_for_any_size() {
    for (bits, buckets) in [(16u32, 3usize), (20, 1000), (18, 1), (21, 12_345)] {
        let t = Table {
            slots: Slots::zeroed(buckets * SLOTS_PER_BUCKET, true).unwrap(),
            buckets,
            key_bits: bits,
            generation: AtomicU32::new(0),
            two_word: true,
            special: true,
            lossy: None,
            near: Vec::new(),
        };
        let index_bits = usize::BITS - 1 - buckets.leading_zeros();
        let c = bits - index_bits;
        let mut seen = std::collections::HashSet::new();
        for k in 0..1u128 << bits {
            let (first, lo, _) = t.locate_wide(k);
            assert!(first / WIDE_SLOTS_PER_BUCKET < buckets);
            assert_eq!(lo as u128, mix128(k, bits));
            assert!(
                seen.insert((first, lo & ((1u64 << c) - 1))),
                "{bits} {buckets}"
            );
        }
    }
}

/// Two-word tables of 128-bit and 64-bit keys: what a probe returns is exactly what was
/// stored for that key, and keys differing only in their high bits do not collide.
#[test]
fn two_word_store_then_probe_finds_exactly_that_key() {
    for (bits, mib) in [(126u32, 256usize), (117, 1), (100, 1), (64, 1)] {
        let t = Table::new(mib, bits).unwrap();
        assert_eq!(t.layout(), Layout::TwoWord);
        let m = key_mask_wide(bits);
        let mut s = 7 + bits as u64;
        let keys: Vec<u128> = (0..3000)
            .map(|_| ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & m)
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.store(
                k,
                (i % 101) as i32 - 50,
                Bound::Lower,
                Some((i % 12) as u8),
                5,
            );
        }
        let mut hits = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Some(e) = t.probe(k) {
                hits += 1;
                assert_eq!(e.value, (i % 101) as i32 - 50);
                assert_eq!(e.best_move, Some((i % 12) as u8));
            }
            // The same key with its top bit flipped was never stored.
            assert_eq!(t.probe(k ^ (1 << (bits - 1))), None, "{bits}");
        }
        assert!(hits > 2900, "{bits}: {hits}");
        // The one-pass probe picks the slot store would, as in one-word tables.
        let (hit, slot) = t.probe_slot(keys[0]);
        t.store_at(slot, 9, Bound::Exact, None, 1);
        let e = t.probe(keys[0]).unwrap();
        assert_eq!((e.value, e.bound), (9, Bound::Exact));
        assert!(hit.is_none() || hit.unwrap().value == -50);
    }
}

/// A slot holding word 0 of one key's entry and word 1 of another's (which the 16-byte
/// atomics make impossible, but the check must refuse anyway) is a miss for both.
#[test]
fn mixed_two_word_slot_is_a_miss() {
    let t = Table::with_buckets(1, 100).unwrap();
    let (a, b) = (5u128 << 90 | 3, 9u128 << 90 | 3);
    t.store(a, 1, Bound::Exact, Some(1), 1);
    let (_, slot) = t.probe_slot(a);
    let va = t.slots.get_pair(slot.index).load(Ordering::Relaxed);
    // Overwrite the slot with key b, then put a's word 0 back: a mixed pair.
    let sb = Slot {
        index: slot.index,
        ..t.probe_slot(b).1
    };
    t.store_at(sb, 2, Bound::Upper, Some(2), 1);
    assert_eq!(t.probe(b).map(|e| e.value), Some(2));
    assert_eq!(t.probe(a), None);
    let vb = t.slots.get_pair(slot.index).load(Ordering::Relaxed);
    let mixed = vb & !(u64::MAX as u128) | va & u64::MAX as u128;
    t.slots.get_pair(slot.index).store(mixed, Ordering::Relaxed);
    assert_eq!(t.probe(a), None);
    assert_eq!(t.probe(b), None);
    // Put b's whole entry back: a hit again.
    t.slots.get_pair(slot.index).store(vb, Ordering::Relaxed);
    assert_eq!(t.probe(b).map(|e| e.value), Some(2));
}

/// For several odd sizes, every key in one bucket has distinct check bits: the proof's
/// interval claim, checked on the real index function.
#[test]
fn check_bits_identify_keys_for_any_size() {
    for (bits, buckets) in [(16u32, 3usize), (20, 1000), (22, 12_345), (18, 1)] {
        // Shrink the check to `bits - floor(log2 buckets)` bits by testing that the
        // guarantee holds with the minimum the proof asks for.
        let t = Table::with_buckets(buckets, bits).unwrap();
        let index_bits = usize::BITS - 1 - buckets.leading_zeros();
        let c = bits - index_bits; // minimum check bits the proof needs
        let mut seen = std::collections::HashSet::new();
        for k in 0..1u64 << bits {
            let h = mix(k, bits);
            let (first, _) = t.locate(k);
            assert!(first / SLOTS_PER_BUCKET < buckets);
            assert!(
                seen.insert((first, h & ((1u64 << c) - 1))),
                "bits {bits} n {buckets}"
            );
        }
    }
}

#[test]
fn store_then_probe_finds_exactly_that_key() {
    let t = Table::new(1, 49).unwrap();
    let mut s = 99;
    let keys: Vec<u64> = (0..2000).map(|_| rng(&mut s) & key_mask(49)).collect();
    for (i, &k) in keys.iter().enumerate() {
        t.store(
            k,
            (i % 37) as i32 - 18,
            Bound::Lower,
            Some((i % 7) as u8),
            i as u64,
        );
    }
    let mut hits = 0;
    for (i, &k) in keys.iter().enumerate() {
        if let Some(e) = t.probe(k) {
            hits += 1;
            assert_eq!(e.value, (i % 37) as i32 - 18);
            assert_eq!(e.best_move, Some((i % 7) as u8));
        }
        // A key never stored is never a hit.
        let other = k ^ (1 << 48);
        if !keys.contains(&other) {
            assert_eq!(t.probe(other), None, "{other:#x}");
        }
    }
    assert!(hits > 1900);
}

#[test]
fn replacement_prefers_old_then_cheap() {
    // One bucket: 8 slots.
    let t = Table::with_buckets(1, 20).unwrap();
    for k in 0..8u64 {
        t.store(k, 0, Bound::Exact, None, 1 << (k + 4));
    }
    // A ninth key evicts the cheapest (k = 0).
    t.store(100u64, 1, Bound::Exact, None, 1 << 10);
    assert!(t.probe(0u64).is_none());
    assert!((1..8u64).all(|k| t.probe(k).is_some()));
    // After a generation bump, old entries go before current ones, even expensive ones.
    t.new_generation();
    t.store(200u64, 1, Bound::Exact, None, 1);
    t.store(201u64, 1, Bound::Exact, None, 1);
    assert!(t.probe(200u64).is_some() && t.probe(201u64).is_some());
    // The cheapest old entries (k = 1, 2) were the victims.
    assert!(t.probe(1u64).is_none() && t.probe(2u64).is_none());
    assert!(t.probe(7u64).is_some() && t.probe(100u64).is_some());
    // Same key: overwritten in place, best move kept when the new entry has none.
    t.store(7u64, 5, Bound::Lower, Some(3), 10);
    t.store(7u64, 6, Bound::Upper, None, 10);
    let e = t.probe(7u64).unwrap();
    assert_eq!((e.value, e.bound, e.best_move), (6, Bound::Upper, Some(3)));
}

#[test]
fn probe_slot_picks_the_slot_store_would() {
    // Two identical one-bucket tables, one filled through `store`, the other through
    // `probe_slot` + `store_at`: the same entries must survive.
    let a = Table::with_buckets(1, 20).unwrap();
    let b = Table::with_buckets(1, 20).unwrap();
    let put = |k: u64, v: i32, bound: Bound, mv: Option<u8>, work: u64| {
        a.store(k, v, bound, mv, work);
        let (_, slot) = b.probe_slot(k);
        b.store_at(slot, v, bound, mv, work);
    };
    for k in 0..8u64 {
        put(k, k as i32, Bound::Exact, Some(1), 1 << (k + 4));
    }
    put(100, 1, Bound::Lower, None, 1 << 10); // evicts the cheapest
    a.new_generation();
    b.new_generation();
    put(200, 2, Bound::Upper, None, 1); // evicts an old entry
    put(5, -3, Bound::Upper, Some(6), 3); // overwrites its own key in place
    for k in (0..8u64).chain([100, 200]) {
        assert_eq!(a.probe(k), b.probe(k), "key {k}");
        let (hit, _) = b.probe_slot(k);
        assert_eq!(hit, b.probe(k));
    }
    assert!(b.probe(0u64).is_none() && b.probe(1u64).is_none());
    assert_eq!(b.probe(5u64).unwrap().value, -3);
}

/// A table of `n` MiB is `n` MiB of buckets, each one 64-byte cache line (the module
/// docs), all of them slots; it keeps the key width it was made for, and `Debug` names
/// the three facts. `with_buckets` makes exactly the buckets asked for.
#[test]
fn a_table_has_the_size_and_key_width_asked_for() {
    for (mib, bits) in [(1usize, 49u32), (3, 49), (1, 100), (2, 64)] {
        let t = Table::new(mib, bits).unwrap();
        let buckets = (mib << 20) / 64;
        assert_eq!(t.bytes(), mib << 20, "{mib} MiB");
        assert_eq!(t.buckets(), buckets, "{mib} MiB");
        assert_eq!(t.slots.len() * 8, mib << 20, "{mib} MiB");
        assert_eq!(t.key_bits(), bits);
        assert_eq!(
            format!("{t:?}"),
            format!(
                "Table {{ buckets: {buckets}, key_bits: {bits}, layout: {:?} }}",
                t.layout()
            )
        );
    }
    let t = Table::with_buckets(5, 20).unwrap();
    assert_eq!((t.buckets(), t.bytes(), t.key_bits()), (5, 5 * 64, 20));
    assert_eq!(t.slots.len() * 8, 5 * 64);
}

/// `with_near` splits off near tables of `NEAR_MIB` (up to `NEAR_MAX_MIB` where the keys
/// need it for the whole's layout), one per `NEAR_FROM_MIB` times that size at most and
/// at most one per thread, the whole keeping the size asked for; smaller tables, keys no
/// near table up to `NEAR_MAX_MIB` gives the whole's layout, and a rest of another layout
/// are not split. The parts are tables of their own (an entry of one is not found in
/// another), any index finds one, and clearing or a new generation reaches them all.
#[test]
fn a_split_table_keeps_its_size_and_clears_every_part() {
    for (mib, parts, split) in [(16, 1, 1), (16, 4, 1), (64, 2, 2), (64, 9, 4), (40, 3, 2)] {
        let t = Table::with_near(mib, 49, parts).unwrap();
        assert_eq!((t.near_parts(), t.bytes()), (split, mib << 20), "{mib} MiB");
        assert_eq!(t.buckets(), ((mib - split * NEAR_MIB) << 20) / BUCKET_BYTES);
    }
    let t = Table::with_near(32, 49, 2).unwrap();
    let (near, other) = (t.near(0), t.near(1));
    assert!(!std::ptr::eq(near, &t) && !std::ptr::eq(near, other));
    assert!(std::ptr::eq(t.near(2), near) && std::ptr::eq(t.near(5), other));
    assert_eq!((near.bytes(), near.key_bits()), (NEAR_MIB << 20, 49));
    assert!(format!("{t:?}").contains(&format!("near: [{near:?}, {other:?}]")));
    // 100-bit keys have two-word slots at any size: split.
    let wide = Table::with_near(64, 100, 2).unwrap();
    assert_eq!(
        (wide.near_parts(), wide.near(1).layout()),
        (2, Layout::TwoWord)
    );
    // 56-bit keys (7x7) have one-word slots from 4 MiB, and 120-bit keys two-word slots:
    // a near table of 4 MiB, one per 64 MiB.
    for bits in [56, 120] {
        let t = Table::with_near(64, bits, 2).unwrap();
        assert_eq!((t.near_parts(), t.near(1).bytes()), (1, NEAR_MAX_MIB << 20));
    }
    let t56 = Table::with_near(64, 56, 2).unwrap();
    assert_eq!(
        (t56.layout(), t56.near(0).layout()),
        (Layout::OneWord, Layout::OneWord)
    );
    // 60-bit keys have one-word slots at 64 MiB (2^20 buckets), not at 4 or at 63; 63
    // MiB is too small for a 4 MiB near table: not split.
    for (mib, bits) in [(NEAR_FROM_MIB - 1, 49), (64, 60), (63, 56), (1024, 60)] {
        let whole = Table::with_near(mib, bits, 2).unwrap();
        assert!(
            std::ptr::eq(whole.near(0), &whole),
            "{mib} MiB, {bits} bits"
        );
        assert_eq!((whole.near_parts(), whole.bytes()), (0, mib << 20));
        assert!(!format!("{whole:?}").contains("near"));
    }
    assert_eq!(Table::with_near(64, 49, 0).unwrap().near_parts(), 0);
    other.store(3u64, 1, Bound::Upper, None, 5);
    t.store(1u64, 3, Bound::Exact, Some(2), 5);
    near.store(2u64, -3, Bound::Lower, None, 5);
    assert_eq!(t.probe(1u64).map(|e| e.value), Some(3));
    assert_eq!(near.probe(2u64).map(|e| e.value), Some(-3));
    assert_eq!(other.probe(3u64).map(|e| e.value), Some(1));
    assert!(t.probe(2u64).is_none() && near.probe(1u64).is_none());
    assert!(near.probe(3u64).is_none() && other.probe(2u64).is_none());
    let gens = |t: &Table| {
        [
            t.generation(),
            t.near(0).generation(),
            t.near(1).generation(),
        ]
    };
    let before = gens(&t);
    t.new_generation();
    let next = |g: u8| ((u32::from(g) + 1) % GENERATIONS) as u8;
    assert_eq!(gens(&t), before.map(next));
    t.clear();
    let empty = [t.probe(1u64), near.probe(2u64), other.probe(3u64)];
    assert!(empty.iter().all(Option::is_none), "after clear: {empty:?}");
}

/// On Unix a table's memory is a mapping of its own, zeroed pages straight from the OS
/// (the storage module's docs: huge pages are asked for on it), not the allocator's
/// fallback; so it starts on a page boundary.
#[cfg(unix)]
#[test]
fn a_table_is_pages_mapped_from_the_os() {
    // SAFETY: `sysconf` reads a system constant; it has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    for bits in [49u32, 100] {
        let t = Table::new(1, bits).unwrap();
        assert!(t.slots.mapped(), "{bits} bits");
        assert_eq!(t.id() % page, 0, "{bits} bits");
    }
}

/// Set for the one run of `a_dropped_table_is_unmapped_child` that checks: in a process
/// of its own, started by `a_dropped_table_is_unmapped`.
#[cfg(target_os = "linux")]
const UNMAP_CHILD: &str = "FOURFOLD_TEST_UNMAP_CHILD";
/// What that run prints for each table it checked.
#[cfg(target_os = "linux")]
const UNMAP_CHECKED: &str = "unmap check passed: ";

/// Dropping a table gives its whole mapping back to the OS (`Drop for Slots`). A leak
/// changes no result; only the process's mappings show it, and the other tests make and
/// drop tables on parallel threads, which changes them at the same time. So the check runs
/// in a process of its own: the test binary again, for `a_dropped_table_is_unmapped_child`
/// alone, which must pass and say it checked both layouts (a child that ran no test, or
/// returned early, prints nothing).
#[cfg(target_os = "linux")]
#[test]
fn a_dropped_table_is_unmapped() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "table::tests::a_dropped_table_is_unmapped_child",
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(UNMAP_CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the child failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    for bits in [49, 100] {
        let line = format!("{UNMAP_CHECKED}{bits} bits");
        assert!(
            stdout.lines().any(|l| l.ends_with(&line)),
            "the child did not check {bits}-bit keys:\n{stdout}\n{stderr}"
        );
    }
}

/// The check of `a_dropped_table_is_unmapped`, in the process it starts: the address range
/// of a live table (each layout) is mapped in `/proc/self/maps`, and no byte of it is
/// once the table is dropped. Elsewhere (`--include-ignored`) it returns at once.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "run in a process of its own by a_dropped_table_is_unmapped"]
fn a_dropped_table_is_unmapped_child() {
    use std::io::Read;
    if std::env::var_os(UNMAP_CHILD).is_none() {
        return;
    }
    /// How many bytes of `lo..hi` the mappings listed in `maps` cover.
    fn mapped_bytes(maps: &[u8], lo: usize, hi: usize) -> usize {
        let range = |line: &[u8]| {
            let first = line.split(|&b| b == b' ').next()?;
            let (start, end) = std::str::from_utf8(first).ok()?.split_once('-')?;
            let start = usize::from_str_radix(start, 16).ok()?;
            Some((start, usize::from_str_radix(end, 16).ok()?))
        };
        maps.split(|&b| b == b'\n')
            .filter_map(range)
            .map(|(start, end)| end.min(hi).saturating_sub(start.max(lo)))
            .sum()
    }
    // The buffer for the maps is allocated before any table and kept: reading them must
    // not map new memory, which could land where a dropped table was.
    let mut maps = Vec::with_capacity(1 << 20);
    let read_maps = |maps: &mut Vec<u8>| {
        maps.clear();
        std::fs::File::open("/proc/self/maps")
            .and_then(|mut f| f.read_to_end(maps))
            .expect("/proc/self/maps is readable");
        assert!(
            maps.len() < maps.capacity(),
            "the maps outgrew their buffer"
        );
    };
    for bits in [49u32, 100] {
        // 4 MiB: a mapping of 1024 pages; `munmap` of too short a length leaves most.
        let t = Table::new(4, bits).unwrap();
        assert!(t.slots.mapped(), "{bits} bits");
        t.store(12_345u64, 7, Bound::Exact, Some(3), 100);
        assert!(t.probe(12_345u64).is_some(), "{bits} bits");
        let (lo, hi) = (t.id(), t.id() + t.bytes());
        read_maps(&mut maps);
        assert_eq!(
            mapped_bytes(&maps, lo, hi),
            hi - lo,
            "{bits} bits: live table"
        );
        drop(t);
        read_maps(&mut maps);
        assert_eq!(mapped_bytes(&maps, lo, hi), 0, "{bits} bits: dropped table");
        println!("{UNMAP_CHECKED}{bits} bits");
    }
}

/// `fill` counts used slots of either layout (16-byte slots as one) and `clear` empties
/// both; a two-word table's memory is only touched through its 16-byte slots.
#[test]
fn fill_and_clear_work_on_either_layout() {
    // 64 buckets: 512 one-word slots or 256 two-word slots, all sampled by `fill`.
    for (bits, slots) in [(20u32, 512.0), (100, 256.0)] {
        let t = Table::with_buckets(64, bits).unwrap();
        assert_eq!(t.fill(), 0.0);
        let keys = [3u128, 77, 1 << 19, 12_345];
        for (i, &k) in keys.iter().enumerate() {
            t.store(k, i as i32, Bound::Exact, None, 1);
        }
        assert_eq!(t.fill(), keys.len() as f64 / slots, "{bits} bits");
        assert!(keys.iter().all(|&k| t.probe(k).is_some()));
        t.clear();
        assert_eq!(t.fill(), 0.0);
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
    }
}

#[test]
fn generation_wraps_and_entries_survive_it() {
    let t = Table::with_buckets(64, 20).unwrap(); // 512 slots: all sampled by `fill`
    t.store(42u64, 3, Bound::Exact, Some(2), 5);
    for _ in 0..GENERATIONS + 3 {
        t.new_generation();
    }
    assert_eq!(t.generation() as u32, 3);
    assert_eq!(t.probe(42u64).unwrap().value, 3);
    assert!(t.fill() > 0.0);
    t.clear();
    assert_eq!(t.fill(), 0.0);
    assert!(t.probe(42u64).is_none());
}

/// `for_each_entry` on a two-word table gives back every stored key of a bucket with
/// exactly what a probe of it reads (two keys sharing one bucket, on one bucket and on
/// many, on keys of 100 and 64 bits).
#[test]
fn for_each_entry_yields_each_two_word_entry_under_its_own_key() {
    for (buckets, bits) in [(1usize, 100u32), (1 << 14, 100), (1 << 14, 64)] {
        let t = Table::with_buckets(buckets, bits).unwrap();
        assert_eq!(t.layout(), Layout::TwoWord);
        let a = 5u128 << (bits - 10) | 3;
        // A second key of the same bucket.
        let b = (1..)
            .map(|i: u128| a + (i << 40))
            .find(|&k| t.locate_wide(k).0 == t.locate_wide(a).0)
            .unwrap();
        t.store(a, 1, Bound::Exact, Some(1), 1);
        let mut all = Vec::new();
        t.for_each_entry(0, |k, e| all.push((k, e.value)));
        assert_eq!(all, vec![(a, 1)]);
        t.store(b, 2, Bound::Upper, Some(2), 1);
        let mut all = Vec::new();
        t.for_each_entry(0, |k, e| all.push((k, e)));
        all.sort_by_key(|(k, _)| *k);
        let mut want = vec![(a, t.probe(a).unwrap()), (b, t.probe(b).unwrap())];
        want.sort_by_key(|(k, _)| *k);
        assert_eq!(all, want, "{buckets} {bits}");
    }
}

/// `for_each_entry` reads every slot of a full table, each at its own index, in both
/// layouts: it yields as many entries as `fill` counts used slots, each under a distinct
/// key that a probe answers with the same entry. (Reading two-word slots at twice their
/// index, as it once did, skips every other bucket and runs past the end of the table,
/// where the checked slot access panics.)
#[test]
fn for_each_entry_reads_every_slot_of_a_full_table() {
    // 64 buckets: 512 words, all sampled by `fill`; one word up to 46 key bits, two
    // words at 64 (the `k <= 64` rebuild) and 100.
    for bits in [40u32, 64, 100] {
        let t = Table::with_buckets(64, bits).unwrap();
        let slots = if bits <= 40 { 512 } else { 256 };
        assert_eq!(t.layout() == Layout::OneWord, bits <= 40);
        let mut state = 0x9E37_79B9_7F4A_7C15 ^ bits as u64;
        for i in 0..8 * slots {
            let key =
                ((rng(&mut state) as u128) << 64 | rng(&mut state) as u128) & key_mask_wide(bits);
            t.store(key, (i % 20) as i32, Bound::Lower, Some(1), 1 + i as u64);
        }
        let used = (t.fill() * slots as f64).round() as usize;
        assert!(used > slots * 9 / 10, "{bits} bits: {used} of {slots} used");
        let mut all = Vec::new();
        t.for_each_entry(0, |k, e| all.push((k, e)));
        assert_eq!(all.len(), used, "{bits} bits");
        for &(k, e) in &all {
            assert_eq!(t.probe(k), Some(e), "{bits} bits: key {k:#x}");
        }
        all.sort_by_key(|&(k, _)| k);
        all.dedup_by_key(|&mut (k, _)| k);
        assert_eq!(all.len(), used, "{bits} bits: a key yielded twice");
    }
}

/// A table written out slot by slot from the module docs' rules, for
/// `table_agrees_with_a_model_of_its_rules`: each bucket's slots in order, each empty or
/// `(key, entry)`.
struct Model {
    slots: Vec<Vec<Option<(u128, Entry)>>>,
    bits: u32,
    two_word: bool,
    generation: u32,
}

impl Model {
    /// The bucket of `key`: `floor(h * n / 2^bits)` of the mixed key `h` (`mix` for
    /// one-word tables, `mix128` for two-word ones), from its top 64 bits when `h` is
    /// wider.
    fn bucket(&self, key: u128) -> usize {
        self.bucket_of_mixed(self.mix(key))
    }

    fn mix(&self, key: u128) -> u128 {
        if self.two_word {
            mix128(key, self.bits)
        } else {
            mix(key as u64, self.bits) as u128
        }
    }

    fn unmix(&self, h: u128) -> u128 {
        if self.two_word {
            unmix128(h, self.bits)
        } else {
            unmix(h as u64, self.bits) as u128
        }
    }

    fn bucket_of_mixed(&self, h: u128) -> usize {
        let (k, n) = (self.bits, self.slots.len() as u128);
        if k <= 64 {
            ((h * n) >> k) as usize
        } else {
            (((h >> (k - 64)) * n) >> 64) as usize
        }
    }

    /// The keys at the ends of the buckets' intervals of mixed keys (the first and
    /// last bucket, and either side of the first three boundaries, found by bisection).
    fn edge_keys(&self) -> Vec<u128> {
        let top = key_mask_wide(self.bits);
        let mut keys = vec![self.unmix(0), self.unmix(top)];
        for b in 1..self.slots.len().min(4) {
            // The first mixed key of bucket `b`.
            let (mut lo, mut hi) = (0u128, top);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if self.bucket_of_mixed(mid) >= b {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            assert_eq!(self.bucket_of_mixed(lo), b);
            keys.extend([self.unmix(lo - 1), self.unmix(lo)]);
        }
        keys
    }

    /// A store: the slot holding `key`, else the first empty slot, else the first of
    /// least worth (an older generation before the current one, then less work). A
    /// store through `Table::store` keeps the old best move when it has none;
    /// `store_at` does not.
    fn store(
        &mut self,
        key: u128,
        value: i32,
        bound: Bound,
        mv: Option<u8>,
        nodes: u64,
        keep: bool,
    ) {
        let generation = (self.generation % GENERATIONS) as u8;
        let work = if nodes <= 1 {
            0
        } else {
            (63 - nodes.leading_zeros()).min(MAX_WORK) as u8
        };
        let b = self.bucket(key);
        let bucket = &mut self.slots[b];
        let j = if let Some(j) = bucket.iter().position(|s| s.is_some_and(|(k, _)| k == key)) {
            j
        } else if let Some(j) = bucket.iter().position(|s| s.is_none()) {
            j
        } else {
            let worth = |s: &Option<(u128, Entry)>| {
                let e = s.unwrap().1;
                (e.generation == generation) as u32 * 64 + e.work as u32
            };
            let least = bucket.iter().map(worth).min().unwrap();
            bucket.iter().position(|s| worth(s) == least).unwrap()
        };
        let old_move = bucket[j]
            .filter(|(k, _)| *k == key)
            .and_then(|(_, e)| e.best_move);
        let best_move = if keep { mv.or(old_move) } else { mv };
        bucket[j] = Some((
            key,
            Entry {
                value,
                bound,
                best_move,
                work,
                generation,
            },
        ));
    }

    fn probe(&self, key: u128) -> Option<Entry> {
        self.slots[self.bucket(key)]
            .iter()
            .flatten()
            .find(|(k, _)| *k == key)
            .map(|&(_, e)| e)
    }

    fn entries(&self, min_work: u8) -> Vec<(u128, Entry)> {
        self.slots
            .iter()
            .flatten()
            .flatten()
            .copied()
            .filter(|(_, e)| e.work >= min_work)
            .collect()
    }
}

/// Random stores (`store`, `probe_slot` + `store_at`, `insert`), generation bumps (and
/// wraps) and clears on tables of both layouts, from one bucket to 100, at key widths
/// where the check bits are exactly enough (46 bits on 64 buckets, 110 on 64, 41 and 105
/// on 3) and below: every probe answers as the model of the module docs' rules does
/// (which slot a store takes, what it keeps), `for_each_entry` yields the model's
/// entries in bucket and slot order, and `fill` counts them.
#[test]
fn table_agrees_with_a_model_of_its_rules() {
    let sizes = [
        (1usize, 20u32),
        (3, 20),
        (3, 41),
        (64, 46),
        (100, 46),
        (1, 100),
        (3, 64),
        (3, 105),
        (64, 110),
    ];
    let mut s = 0x05ee_d0f7_ab1e;
    let (mut evictions, mut old_evictions, mut kept_moves) = (0, 0, 0);
    for (buckets, bits) in sizes {
        let t = Table::with_buckets(buckets, bits).unwrap();
        let two_word = t.layout() == Layout::TwoWord;
        let per_bucket = if two_word {
            WIDE_SLOTS_PER_BUCKET
        } else {
            SLOTS_PER_BUCKET
        };
        assert_eq!(two_word, bits > 46, "{buckets} {bits}");
        let mut m = Model {
            slots: vec![vec![None; per_bucket]; buckets],
            bits,
            two_word,
            generation: 0,
        };
        let mask = key_mask_wide(bits);
        let mut pool: Vec<u128> = (0..3 * buckets * per_bucket)
            .map(|_| ((rng(&mut s) as u128) << 64 | rng(&mut s) as u128) & mask)
            .collect();
        pool.extend(m.edge_keys());
        let check_all = |t: &Table, m: &Model, s: &mut u64| {
            for &k in &pool {
                assert_eq!(t.probe(k), m.probe(k), "{buckets} {bits}: key {k:#x}");
                assert_eq!(t.probe_slot(k).0, m.probe(k));
            }
            let min_work = (rng(s) % 8) as u8;
            let mut all = Vec::new();
            t.for_each_entry(min_work, |k, e| all.push((k, e)));
            assert_eq!(
                all,
                m.entries(min_work),
                "{buckets} {bits} min_work {min_work}"
            );
            let used = m.entries(0).len() as f64 / (buckets * per_bucket) as f64;
            assert_eq!(t.fill(), used, "{buckets} {bits}");
        };
        for step in 0..4000 {
            let key = pool[rng(&mut s) as usize % pool.len()];
            let value = (rng(&mut s) % 128) as i32 - 64;
            let bound = [Bound::Upper, Bound::Lower, Bound::Exact][rng(&mut s) as usize % 3];
            let mv = (rng(&mut s) % 3 != 0).then(|| (rng(&mut s) % 15) as u8);
            // Few work values, so that ties come up; sometimes 0 or 1 node, sometimes huge.
            let nodes = match rng(&mut s) % 8 {
                0 => rng(&mut s) % 2,
                1 => rng(&mut s) >> (rng(&mut s) % 64),
                r => (1 << (r - 2)) + rng(&mut s) % (1 << (r - 2)),
            };
            let before = m.probe(key);
            let full = m.slots[m.bucket(key)].iter().all(Option::is_some);
            match rng(&mut s) % 10 {
                0..=4 => {
                    t.store(key, value, bound, mv, nodes);
                    m.store(key, value, bound, mv, nodes, true);
                }
                5..=7 => {
                    let (hit, slot) = t.probe_slot(key);
                    assert_eq!(hit, before);
                    t.store_at(slot, value, bound, mv, nodes);
                    m.store(key, value, bound, mv, nodes, false);
                }
                8 => {
                    let work = (rng(&mut s) % 64) as u8;
                    let e = Entry {
                        value,
                        bound,
                        best_move: mv,
                        work,
                        generation: 7,
                    };
                    t.insert(key, &e);
                    m.store(key, value, bound, mv, 1 << work, true);
                    assert_eq!(t.probe(key).map(|e| e.work), Some(work));
                }
                _ => {
                    let bumps = if rng(&mut s) % 8 == 0 { GENERATIONS } else { 1 };
                    for _ in 0..bumps {
                        t.new_generation();
                        m.generation += 1;
                    }
                    assert_eq!(t.generation() as u32, m.generation % GENERATIONS);
                }
            }
            if before.is_none() && full {
                evictions += 1;
                let g = (m.generation % GENERATIONS) as u8;
                old_evictions += m.slots[m.bucket(key)]
                    .iter()
                    .flatten()
                    .any(|(_, e)| e.generation != g) as u32;
            }
            kept_moves +=
                (mv.is_none() && m.probe(key).is_some_and(|e| e.best_move.is_some())) as u32;
            assert_eq!(t.probe(key), m.probe(key), "{buckets} {bits}: step {step}");
            if step % 100 == 99 {
                check_all(&t, &m, &mut s);
            }
            if step == 2000 {
                t.clear();
                m.slots.iter_mut().flatten().for_each(|slot| *slot = None);
                check_all(&t, &m, &mut s);
            }
        }
        check_all(&t, &m, &mut s);
    }
    assert!(
        evictions > 1000 && old_evictions > 300 && kept_moves > 300,
        "{evictions} {old_evictions} {kept_moves}"
    );
}

/// `InProgress` is a direct-mapped set of marks: a key entered into a free slot is busy
/// until it leaves; a key whose slot another key holds is refused and not busy; leaving
/// with a key that is not the slot's mark removes nothing; and the marks spread over the
/// slots (2000 random keys in 2^14 slots: about 120 collisions expected, `2000^2 / 2^15`).
#[test]
fn in_progress_marks_a_direct_mapped_set() {
    let marks = InProgress::new();
    let mut s = 0xC0FF_EE12_3456_789B;
    let keys: Vec<u64> = (0..2000).map(|_| rng(&mut s) | 1).collect();
    assert!(keys.iter().all(|&k| !marks.is_busy(k)));
    let (entered, refused): (Vec<u64>, Vec<u64>) = keys.iter().partition(|&&k| marks.enter(k));
    assert!(entered.len() > 1800, "{} of 2000 entered", entered.len());
    assert!(!refused.is_empty());
    assert!(entered.iter().all(|&k| marks.is_busy(k) && !marks.enter(k)));
    assert!(refused.iter().all(|&k| !marks.is_busy(k)));
    // A refused key shares its slot with an entered one: leaving with it changes nothing.
    for &k in &refused {
        marks.leave(k);
    }
    assert!(entered.iter().all(|&k| marks.is_busy(k)));
    for &k in &entered {
        marks.leave(k);
    }
    assert!(keys.iter().all(|&k| !marks.is_busy(k)));
    // Every slot is free again: each refused key now enters (and leaves, as two of them
    // may share a slot).
    for &k in &refused {
        assert!(marks.enter(k) && marks.is_busy(k));
        marks.leave(k);
        assert!(!marks.is_busy(k));
    }
}

/// `store_at` clamps a slot's index to the table. A slot comes from a probe of the same
/// table, so in use the clamp never binds; a slot made up with an index past the end
/// (one past the last slot, then the largest index) writes the last slot, one word or
/// one pair, and nothing else of the table. The key's bucket is the first one, so the
/// entry in the last slot is no key's: a probe of the key misses it, and
/// `for_each_entry` (which yields only what a probe would return) yields nothing.
#[test]
fn a_slot_past_the_end_writes_the_last_slot() {
    for bits in [20u32, 100] {
        let t = Table::with_buckets(2, bits).unwrap();
        let two_word = t.layout() == Layout::TwoWord;
        let slots = if two_word {
            2 * WIDE_SLOTS_PER_BUCKET
        } else {
            2 * SLOTS_PER_BUCKET
        };
        let key = (0u64..)
            .find(|&k| t.probe_slot(k).1.index < slots / 2)
            .unwrap();
        let (_, slot) = t.probe_slot(key);
        for index in [slots, usize::MAX] {
            t.clear();
            t.store_at(Slot { index, ..slot }, 7, Bound::Exact, Some(3), 1);
            let last = if two_word {
                (t.slots.get_pair(slots - 1).load(Ordering::Relaxed) >> 64) as u64
            } else {
                t.slots.get(slots - 1).load(Ordering::Relaxed)
            };
            let e = unpack(last).expect("the last slot holds the entry");
            assert_eq!((e.value, e.best_move), (7, Some(3)), "{bits} bits, {index}");
            assert_eq!(t.fill(), 1.0 / slots as f64, "{bits} bits, {index}");
            assert_eq!(t.probe(key), None, "{bits} bits, {index}");
            let mut yielded = Vec::new();
            t.for_each_entry(0, |k, e| yielded.push((k, e)));
            assert!(yielded.is_empty(), "{bits} bits, {index}: {yielded:?}");
        }
    }
}

/// `pair_matches` is true exactly when the pair holds an entry (a bound in word 1:
/// `unpack` reads one) whose word 0 is the key's low mixed bits and whose check bits are
/// the key's high ones. An empty pair (all zero) matches no key, not even the key whose
/// mixed bits are all zero; the entry whose word 1 is the bound alone (check 0, value
/// -64, no move, work and generation 0) matches that key.
#[test]
fn pair_matches_only_an_entry_of_the_key() {
    let holds =
        |w0: u64, w1: u64, lo: u64, hi: u64| unpack(w1).is_some() && w0 == lo && check_of(w1) == hi;
    assert!(!Table::pair_matches(0, 0, 0, 0));
    let bare = Entry {
        value: -VALUE_OFFSET,
        bound: Bound::Exact,
        best_move: None,
        work: 0,
        generation: 0,
    };
    assert!(Table::pair_matches(0, pack(0, &bare), 0, 0));
    let mut s = 0x9a1f_5eed_0bad_cafe;
    let (mut empty, mut matched) = (0, 0);
    for _ in 0..100_000 {
        let (w0, w1) = (rng(&mut s), rng(&mut s));
        let r = rng(&mut s);
        // The key's bits: the pair's own, or one bit off in either word.
        let lo = if r & 1 == 0 {
            w0
        } else {
            w0 ^ (1 << ((r >> 8) & 63))
        };
        let hi = if r & 2 == 0 {
            check_of(w1)
        } else {
            check_of(w1) ^ (1 << ((r >> 16) % u64::from(CHECK_BITS)))
        };
        let want = holds(w0, w1, lo, hi);
        assert_eq!(
            Table::pair_matches(w0, w1, lo, hi),
            want,
            "{w0:x} {w1:x} {lo:x} {hi:x}"
        );
        empty += usize::from(unpack(w1).is_none() && w0 == lo && check_of(w1) == hi);
        matched += usize::from(want);
    }
    assert!(empty > 1000 && matched > 1000, "{empty} {matched}");
}

/// The unchecked slot access is reached only through slots a probe of the same table
/// chose; a slot of another table's probe (a larger one, or of the other layout) stores
/// nothing, where its check bits could have passed for another key's.
#[test]
fn a_slot_of_another_table_stores_nothing() {
    let big = Table::with_buckets(1 << 10, 40).unwrap();
    let key = (0u64..).find(|&k| big.locate(k).0 >= 1000 * 8).unwrap();
    let slot = big.probe_slot(key).1;
    for bits in [20u32, 100] {
        let small = Table::with_buckets(1, bits).unwrap();
        small.store_at(slot, 3, Bound::Exact, None, 1);
        assert_eq!(small.fill(), 0.0, "{bits} bits");
        // The table's own slots still store.
        small.store_at(small.probe_slot(key).1, 3, Bound::Exact, None, 1);
        assert_eq!(small.probe(key).map(|e| e.value), Some(3), "{bits} bits");
    }
}

/// The two-word layout's lock-freedom is the CPU's `cx16` on x86-64 (what the refusal's
/// message names), and a table that has two-word slots was built only where it holds.
#[test]
fn two_word_tables_exist_only_where_16_byte_atomics_are_lock_free() {
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        crate::sync::AtomicU128::is_lock_free(),
        std::arch::is_x86_feature_detected!("cmpxchg16b"),
        "portable-atomic's lock-freedom is the cx16 flag"
    );
    let built = Table::with_buckets(1 << 10, 100);
    assert_eq!(built.is_ok(), crate::sync::AtomicU128::is_lock_free());
    if let Ok(t) = built {
        assert_eq!(t.layout(), Layout::TwoWord);
    }
}
