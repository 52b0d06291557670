//! `--checkpoint FILE` and `--checkpoint-every SECS` of `solve`, `analyze` and `book build`:
//! when to load and write the engine's checkpoint, and what to say about it. The file itself
//! (format, checks, atomic writing) is the library's (`fourfold::checkpoint`).
//!
//! At the start the run takes FILE's writer lock (`FILE.lock`, held until it ends: a second
//! run writing the same FILE is refused, exit status 2, while the first runs), then an
//! existing FILE is loaded (a file of another board, corrupt or truncated,
//! is refused: exit status 2), with the bounds the interrupted solve had proven for its
//! position, which a solve of that same position starts from; while the command runs a
//! background thread writes it every SECS seconds; when the run ends (finished, Ctrl-C,
//! SIGTERM or the time limit) it is written once more and kept, so that the same command
//! run again goes on from it, or answers at once after a finished solve.

use clap::Args;
use fourfold::checkpoint::Lock;
use fourfold::Engine;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

#[derive(Args, Clone, Default)]
pub struct CheckpointArgs {
    /// Keep the table's expensive entries in FILE, to survive a crash or a stop: loaded at
    /// the start if FILE exists (the run goes on from it, saying how many entries it
    /// loaded), written every --checkpoint-every seconds, and written again when the run
    /// ends (finished, Ctrl-C, SIGTERM, time limit). FILE is kept after a finished solve,
    /// so a rerun answers at once; delete it to start afresh. Writes go through a temporary
    /// file of this run's, renamed into place: a crash leaves the previous checkpoint whole.
    /// One run at a time writes FILE (it holds FILE.lock): a second is refused.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints (with --checkpoint).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 300.0,
        requires = "checkpoint"
    )]
    pub checkpoint_every: f64,
}

/// The checkpoint of one run: its file, its period, and whether writing is paused.
pub struct Checkpointer<'a> {
    engine: &'a Engine,
    path: PathBuf,
    lock: Lock,
    every: Duration,
    quiet: bool,
    paused: AtomicBool,
}

impl CheckpointArgs {
    /// Checks the options and loads FILE when it exists, saying so on stderr (unless
    /// `quiet`); `None` without `--checkpoint`. An unreadable, corrupt, truncated or foreign
    /// file, or one another run is writing (its lock held), is an error (the caller exits
    /// with status 2).
    pub fn start<'a>(
        &self,
        engine: &'a Engine,
        quiet: bool,
    ) -> Result<Option<Checkpointer<'a>>, String> {
        let Some(path) = &self.checkpoint else {
            return Ok(None);
        };
        let every = self.checkpoint_every;
        let every = match Duration::try_from_secs_f64(every) {
            Ok(d) if every > 0.0 => d,
            _ => {
                return Err(format!(
                    "--checkpoint-every must be a positive number of seconds, not {every}"
                ))
            }
        };
        let lock = Lock::acquire(path).map_err(|e| e.to_string())?;
        if path.exists() {
            let loaded = engine
                .load_checkpoint(path)
                .map_err(|e| format!("{e}; delete the file (or name another) to start afresh"))?;
            if !quiet {
                // The bounds apply to the position they were proven for, and only to it.
                let root = loaded.root.map_or(String::new(), |r| {
                    format!(
                        ", with the score of its position of {} stones proven in [{}, {}]",
                        r.stones, r.bounds.lower, r.bounds.upper
                    )
                });
                eprintln!(
                    "loaded {} entries from checkpoint {}{root}: going on from there",
                    loaded.entries,
                    path.display()
                );
            }
        } else if !quiet {
            eprintln!(
                "checkpoint {} does not exist yet: starting afresh, writing it every {} s",
                path.display(),
                every.as_secs_f64()
            );
        }
        Ok(Some(Checkpointer {
            engine,
            path: path.clone(),
            lock,
            every,
            quiet,
            paused: AtomicBool::new(false),
        }))
    }
}

impl Checkpointer<'_> {
    /// Runs `f` while a background thread writes the checkpoint every period (a failed write
    /// is a warning; the next one tries again); the thread is stopped and joined before this
    /// returns, so no write is under way afterwards.
    pub fn during<T>(&self, f: impl FnOnce() -> T) -> T {
        let (tx, rx) = channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || loop {
                match rx.recv_timeout(self.every) {
                    Err(RecvTimeoutError::Timeout) => {
                        if let Err(e) = self.save() {
                            eprintln!("fourfold: warning: {e}");
                        }
                    }
                    // `tx` dropped: `f` is done (or unwinding).
                    _ => return,
                }
            });
            let r = f();
            drop(tx);
            r
        })
    }

    /// From now on, no write (`book build` verifies on a cleared table: its entries are
    /// not worth keeping over the build's).
    pub fn pause(&self) {
        // ORDERING: Relaxed: a flag read by the writer thread, publishing nothing else; a
        // write that misses it only saves true entries.
        self.paused.store(true, Ordering::Relaxed);
    }

    /// Writes the checkpoint unless paused; the number of entries written.
    fn save(&self) -> Result<Option<usize>, String> {
        // ORDERING: Relaxed, see `pause`.
        if self.paused.load(Ordering::Relaxed) {
            return Ok(None);
        }
        self.engine
            .save_checkpoint_locked(&self.lock)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// The last write, when the run ends (`why`: "finished", "stopped", ...), said on stderr
    /// unless quiet; a failure is a warning (the previous checkpoint stays whole).
    pub fn finish(&self, why: &str) {
        match self.save() {
            Ok(Some(n)) if !self.quiet => eprintln!(
                "{why}: wrote {n} entries to checkpoint {} (rerun the same command to use it)",
                self.path.display()
            ),
            Ok(_) => {}
            Err(e) => eprintln!("fourfold: warning: {e}"),
        }
    }
}
