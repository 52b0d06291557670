//! The `fourfold` command: parses arguments, calls the library, prints.
//!
//! Nothing here searches or decides a score: it reads positions, hands them to
//! [`fourfold::Engine`] (on the board of `--board`), and formats what comes back (text, JSON,
//! progress on stderr). One module per command: `solve` (solve and analyze), `bench`, `serve`
//! (JSON lines, HTTP), `book`, `experiment` (the check-bits experiment); `common` holds the options
//! and helpers they share, `checkpoint` the `--checkpoint` option of `solve` and `book build`.

// Every module is `pub(crate)`: the fuzz target `cli_args` compiles this file as a module
// and brings them all to its root with one glob (`use fourfold_main::*`), so that their
// `crate::NAME` paths resolve there too; a private module would be left out of the glob
// (a test in `tests/cli/cli.rs` checks).
pub(crate) mod bench;
pub(crate) mod book;
pub(crate) mod checkpoint;
pub(crate) mod common;
pub(crate) mod experiment;
pub(crate) mod http;
pub(crate) mod serve;
pub(crate) mod solve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fourfold",
    version,
    about = "A multi-threaded Connect-4 solver"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve positions (the empty board when none is given).
    Solve(solve::SolveArgs),
    /// Score every column of positions (same as `solve --analyze`).
    Analyze(solve::SolveArgs),
    /// Benchmark the solver on test sets, or measure thread scaling.
    Bench(bench::BenchArgs),
    /// Answer JSON requests: one per line on stdin, or over HTTP with a web page (--http).
    Serve(serve::ServeArgs),
    /// Build or inspect an opening book.
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Measurements of the solver's design (see docs/check-bits.md).
    #[command(subcommand)]
    Experiment(experiment::ExperimentCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(a) => solve::run(a),
        Command::Analyze(mut a) => {
            a.analyze = true;
            solve::run(a)
        }
        Command::Bench(b) => bench::run(b),
        Command::Serve(s) => serve::run(s),
        Command::Book(b) => book::run(b),
        Command::Experiment(e) => experiment::run(e),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("fourfold: {msg}");
            ExitCode::from(2)
        }
    }
}
