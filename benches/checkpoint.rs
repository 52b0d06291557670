//! The checkpoint threshold: for whole-board solves stopped halfway, the entries
//! and bytes a checkpoint keeps at each least work, and the nodes the solve resumed from it
//! takes, against a fresh solve: resumed as the engine does (entries and the root's proven
//! bounds), and from the entries alone (as before the file kept the root's bounds).
//!
//! Run: `cargo bench --bench checkpoint -- 7x5 6x6` (boards; default 7x5). One thread by
//! default, so node counts are exact and repeatable (the stop lands within a millisecond of
//! half the fresh solve's nodes, so the halfway table varies a little from run to run); a
//! 256 MiB table, the command's default on this machine. Prints a Markdown table per board.
//! `FOURFOLD_CKPT_WORK=0,4,8` picks the thresholds (default 0, 4, 8, 10, ..., 20; `none`:
//! only the table kept in memory); `FOURFOLD_CKPT_MIB=1024` the table size;
//! `FOURFOLD_CKPT_THREADS=2` runs every solve on two threads (Lazy SMP: node counts then
//! vary from run to run).

use fourfold::{BoardSize, Engine, SolverBuilder};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The table size in MiB, unless `FOURFOLD_CKPT_MIB` says otherwise.
fn mib() -> usize {
    std::env::var("FOURFOLD_CKPT_MIB").map_or(256, |m| m.parse().unwrap())
}
const THRESHOLDS: [u8; 9] = [0, 4, 8, 10, 12, 14, 16, 18, 20];

fn engine(board: BoardSize, threads: usize) -> Engine {
    let mut e = Engine::new(
        board,
        SolverBuilder::default().table_mib(mib()).threads(threads),
    )
    .unwrap();
    e.set_book(None).unwrap();
    e
}

fn main() {
    let boards: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let boards = if boards.is_empty() {
        vec!["7x5".to_string()]
    } else {
        boards
    };
    let threads: usize = std::env::var("FOURFOLD_CKPT_THREADS").map_or(1, |t| t.parse().unwrap());
    let engine = |b| engine(b, threads);
    let dir = std::env::temp_dir().join(format!("ff-ckpt-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for b in boards {
        let thresholds: Vec<u8> = match std::env::var("FOURFOLD_CKPT_WORK") {
            // `none`: only the table kept in memory.
            Ok(v) if v == "none" => Vec::new(),
            Ok(v) => v.split(',').map(|t| t.trim().parse().unwrap()).collect(),
            Err(_) => THRESHOLDS.to_vec(),
        };
        let board: BoardSize = b.parse().unwrap();
        let fresh = engine(board).solve("").unwrap();
        let a = engine(board);
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(Ordering::Relaxed) && a.live_nodes() < fresh.nodes / 2 {
                    std::thread::sleep(Duration::from_millis(1));
                }
                a.stop_flag().raise();
            });
            assert!(a.solve("").is_err(), "stopped halfway");
            done.store(true, Ordering::Relaxed);
        });
        let stopped_at = a.live_nodes();
        a.stop_flag().lower();
        let root = a.root_bounds().expect("a root");
        println!(
            "\n{board}, {threads} thread(s), {} MiB: fresh solve {} nodes (score {}); stopped at {} \
             nodes with the score proven in [{}, {}]\n",
            mib(),
            fresh.nodes,
            fresh.score,
            stopped_at,
            root.bounds.lower,
            root.bounds.upper
        );
        println!(
            "| least work | entries | bytes | save ms | resumed nodes | stopped + resumed / fresh \
             | resumed without the root's bounds | stopped + resumed / fresh |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for t in thresholds {
            let path = dir.join(format!("{b}-{t}.ckpt"));
            let clock = Instant::now();
            let saved = a.save_checkpoint_with(&path, t).unwrap();
            let ms = clock.elapsed().as_secs_f64() * 1e3;
            let e = engine(board);
            e.load_checkpoint(&path).unwrap();
            let r = e.solve("").unwrap();
            assert_eq!(r.score, fresh.score, "{board} at {t}");
            drop(e);
            // The same entries without the bounds: the library's loader stores entries only.
            let e = engine(board);
            fourfold::checkpoint::load(e.table(), board.width, board.height, &path).unwrap();
            let plain = e.solve("").unwrap();
            assert_eq!(plain.score, fresh.score, "{board} at {t}");
            drop(e);
            let of_fresh = |n: u64| (stopped_at + n) as f64 / fresh.nodes as f64;
            println!(
                "| {t} | {} | {} | {ms:.0} | {} | {:.3} | {} | {:.3} |",
                saved.entries,
                saved.bytes,
                r.nodes,
                of_fresh(r.nodes),
                plain.nodes,
                of_fresh(plain.nodes)
            );
            std::fs::remove_file(&path).unwrap();
        }
        // The same process going on with its table intact: the best a checkpoint can do.
        let r = a.solve("").unwrap();
        assert_eq!(r.score, fresh.score);
        println!(
            "| (table kept in memory) | | | | {} | {:.3} | | |",
            r.nodes,
            (stopped_at + r.nodes) as f64 / fresh.nodes as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
