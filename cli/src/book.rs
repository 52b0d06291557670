//! `book build` and `book info`, and the `--book`/`--no-book` options of `solve`, `analyze`
//! and `serve` with the default book path (the engine's shipped book, or a deeper file).

use crate::common::{all_cores, default_tt_mb, human, stop_on_ctrl_c};

/// A rate with two decimals below 100 (book builds are slow), else as `human`.
fn rate(r: f64) -> String {
    if r < 100.0 {
        format!("{r:.2}")
    } else {
        human(r)
    }
}
use clap::{Args, Subcommand};
use fourfold::book::{BuildOptions, Phase, Progress};
use fourfold::{BoardSize, Book, Engine, ErrorKind, SolverBuilder};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

#[derive(Subcommand)]
pub enum BookCommand {
    /// Build a book: solve every position with N stones (up to mirror symmetry) on all
    /// threads. Resumable: finished entries go to FILE.journal at once, and running the same
    /// command again after Ctrl-C or a crash skips them.
    Build(BuildArgs),
    /// Print a book's header and check its checksum.
    Info(InfoArgs),
}

#[derive(Args)]
pub struct BuildArgs {
    /// Depth: the number of stones of every entry.
    #[arg(long, value_name = "N")]
    plies: u32,
    /// The book file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Board size WxH.
    #[arg(long, default_value = "7x6", value_name = "WxH")]
    board: String,
    /// Threads (default: all available cores).
    #[arg(long, short = 't', value_name = "N")]
    threads: Option<usize>,
    /// Table size in MiB (default as for `solve`).
    #[arg(long = "tt-mb", value_name = "MIB")]
    tt_mb: Option<usize>,
    /// At the end, re-solve K random entries on a cleared table and compare.
    #[arg(long, value_name = "K", default_value_t = 0)]
    verify: usize,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    checkpoint: crate::checkpoint::CheckpointArgs,
}

#[derive(Args)]
pub struct InfoArgs {
    /// The book file.
    file: PathBuf,
}

/// The book options of `solve`, `analyze` and `serve`.
#[derive(Args, Clone, Default)]
pub struct BookArgs {
    /// Answer positions with fewer stones than the book's depth from this opening book
    /// instead of the engine's. Default: the book shipped inside fourfold (7x6, the first
    /// five moves), or a deeper `books/7x6-<N>.book` found next to the executable, in the
    /// directories above it, in the source tree or in the current directory.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Use no book (search every position).
    #[arg(long, conflicts_with = "book")]
    no_book: bool,
}

impl BookArgs {
    /// True when `--book FILE` was given.
    pub fn given(&self) -> bool {
        self.book.is_some()
    }
}

pub fn run(cmd: BookCommand) -> Result<ExitCode, String> {
    match cmd {
        BookCommand::Build(b) => build(b),
        BookCommand::Info(i) => info(i),
    }
}

/// Gives `engine` the book of `args`: none for `--no-book`, the file of `--book FILE`, else
/// the engine's own (the shipped book) unless a deeper default file is found (a default
/// file that does not load is skipped with a warning).
pub fn apply(args: &BookArgs, engine: &mut Engine) -> Result<(), String> {
    let board = engine.board();
    if args.no_book {
        return engine.set_book(None).map_err(|e| e.to_string());
    }
    if let Some(path) = &args.book {
        let b = Book::load(path).map_err(|e| e.to_string())?;
        return engine
            .set_book(Some(b))
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    let Some(path) = default_book(board) else {
        return Ok(());
    };
    let current = engine.book().map_or(0, |b| b.plies());
    match Book::load(&path) {
        Ok(b) if b.plies() > current && (b.width(), b.height()) == (board.width, board.height) => {
            engine.set_book(Some(b)).map_err(|e| e.to_string())
        }
        Ok(_) => Ok(()),
        Err(e) => {
            eprintln!("fourfold: warning: skipping the default book: {e}");
            Ok(())
        }
    }
}

/// The deepest `books/WxH-<N>.book` in the default places.
fn default_book(board: BoardSize) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        dirs.extend(exe.ancestors().skip(1).take(4).map(|d| d.join("books")));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../books"));
    dirs.push(PathBuf::from("books"));
    let prefix = format!("{board}-");
    let mut best: Option<(u32, PathBuf)> = None;
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let depth = name
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".book"))
                .and_then(|n| n.parse::<u32>().ok());
            if let Some(n) = depth {
                if best.as_ref().map_or(true, |b| n > b.0) {
                    best = Some((n, e.path()));
                }
            }
        }
    }
    best.map(|b| b.1)
}

/// A time left, to the second: `42s`, `7m05s`, `2h03m`.
fn eta(secs: f64) -> String {
    let s = secs.round().min(1e9) as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The build's bar: `base` positions were done before this phase's clock started (the
/// journal's), so the rate is (done - base) / elapsed and the ETA the rest at that rate; both
/// are shown once a position has been solved in this run, and redrawn every tick.
fn bar_style(base: u64) -> ProgressStyle {
    let measured = move |st: &ProgressState| {
        let n = st.pos().saturating_sub(base);
        let secs = st.elapsed().as_secs_f64();
        (n > 0 && secs > 0.0).then(|| n as f64 / secs)
    };
    ProgressStyle::with_template(
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({run_rate}, ETA {run_eta})",
    )
    .expect("template")
    .with_key(
        "run_rate",
        move |st: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = match measured(st) {
                Some(r) => write!(w, "{}/s", rate(r)),
                None => write!(w, "-/s"),
            };
        },
    )
    .with_key(
        "run_eta",
        move |st: &ProgressState, w: &mut dyn std::fmt::Write| {
            let left = st.len().unwrap_or(0).saturating_sub(st.pos()) as f64;
            let _ = match measured(st) {
                Some(r) => write!(w, "{}", eta(left / r)),
                None => write!(w, "?"),
            };
        },
    )
}

fn journal_path(out: &Path) -> PathBuf {
    let mut j = out.as_os_str().to_owned();
    j.push(".journal");
    PathBuf::from(j)
}

fn build(a: BuildArgs) -> Result<ExitCode, String> {
    let board: BoardSize = a
        .board
        .parse()
        .map_err(|e: fourfold::Error| e.to_string())?;
    let threads = a.threads.unwrap_or_else(all_cores);
    if threads == 0 {
        return Err("--threads must be at least 1, not 0".into());
    }
    if a.tt_mb == Some(0) {
        return Err("--tt-mb must be at least 1 MiB, not 0".into());
    }
    let engine = Engine::new(
        board,
        SolverBuilder::default()
            .table_mib(a.tt_mb.unwrap_or_else(default_tt_mb))
            .threads(threads),
    )
    .map_err(|e| e.to_string())?;
    let ckpt = a.checkpoint.start(&engine, a.quiet)?;
    let interrupted = stop_on_ctrl_c(engine.stop_flag());
    let journal = journal_path(&a.out);
    let opts = BuildOptions {
        plies: a.plies,
        journal: Some(journal.clone()),
        verify: a.verify,
        seed: 0x5eed_b00c,
    };
    // Hidden until the build says how many positions there are and how many the journal
    // holds (no "0/0" first); the rate and ETA count only positions solved in this run.
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
    let start = Instant::now();
    let first = std::sync::Mutex::new(None::<Progress>);
    // The positions the journal held, from the solving phase's first report (the verifying
    // phase's reports, which come later, say 0).
    let from_journal = std::sync::atomic::AtomicUsize::new(0);
    let on_progress = |p: Progress| {
        if p.phase == Phase::Verifying {
            if let Some(c) = &ckpt {
                c.pause();
            }
        }
        let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
        if f.map_or(true, |f| f.phase != p.phase) {
            *f = Some(p);
            if p.phase == Phase::Solving {
                // ORDERING: read after the build returned, on this thread or after a join.
                from_journal.store(p.resumed, Ordering::Relaxed);
            }
            if p.phase == Phase::Solving && p.resumed > 0 && !a.quiet {
                eprintln!(
                    "resuming from {}: {} of {} positions already solved, {} to go",
                    journal.display(),
                    p.resumed,
                    p.total,
                    p.total - p.done
                );
            }
            bar.set_style(bar_style(p.done as u64));
            bar.set_message(match p.phase {
                Phase::Solving => "solving",
                Phase::Verifying => "verifying",
            });
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.reset_elapsed();
            if !a.quiet {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(std::time::Duration::from_millis(500));
            }
        } else {
            bar.set_position(p.done as u64);
        }
    };
    if !a.quiet {
        eprintln!(
            "building a {board} book of depth {} on {threads} thread(s), table {} MiB (journal {})",
            a.plies,
            engine.table().bytes() >> 20,
            journal.display()
        );
    }
    let result = match &ckpt {
        Some(c) => c.during(|| engine.build_book(&opts, &on_progress)),
        None => engine.build_book(&opts, &on_progress),
    };
    bar.finish_and_clear();
    if let Some(c) = &ckpt {
        c.finish(if result.is_ok() { "built" } else { "stopped" });
    }
    let book = match result {
        Ok(b) => b,
        Err(e) => {
            if let ErrorKind::Book(fourfold::BookError::Interrupted { done, total }) = e.kind() {
                eprintln!(
                    "fourfold: stopped after {done} of {total} positions; they are kept in {}: \
                     run the same command again to resume",
                    journal.display()
                );
                return Ok(ExitCode::from(if interrupted.load(Ordering::SeqCst) {
                    130
                } else {
                    1
                }));
            }
            return Err(e.to_string());
        }
    };
    book.save(&a.out).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&journal);
    let secs = start.elapsed().as_secs_f64();
    // ORDERING: the build has returned: every report, and its store, happened before.
    let resumed = from_journal.load(Ordering::Relaxed);
    let solved = book.len() - resumed.min(book.len());
    println!(
        "wrote {}: {board}, depth {}, {} entries, {} bytes, checksum {:#018x}",
        a.out.display(),
        book.plies(),
        book.len(),
        32 + 9 * book.len(),
        book.checksum()
    );
    println!(
        "solved {solved} positions ({} from the journal) in {secs:.1} s on {threads} thread(s): {} positions/s{}",
        resumed,
        rate(solved as f64 / secs.max(1e-9)),
        if a.verify > 0 {
            format!("; {} random entries re-solved and equal", a.verify.min(book.len()))
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn info(a: InfoArgs) -> Result<ExitCode, String> {
    let book = Book::load(&a.file).map_err(|e| e.to_string())?;
    let (mut win, mut draw, mut loss) = (0, 0, 0);
    for (_, s) in book.entries() {
        match s.signum() {
            1 => win += 1,
            0 => draw += 1,
            _ => loss += 1,
        }
    }
    println!("file: {}", a.file.display());
    println!("format version: {}", fourfold::book::VERSION);
    println!("board: {}x{}", book.width(), book.height());
    println!("depth: {} plies", book.plies());
    println!(
        "entries: {} (player to move wins {win}, draws {draw}, loses {loss})",
        book.len()
    );
    println!("size: {} bytes", 32 + 9 * book.len());
    println!("checksum: {:#018x} OK", book.checksum());
    Ok(ExitCode::SUCCESS)
}
