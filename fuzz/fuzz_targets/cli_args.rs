//! The command's arguments: any argument list (split on NUL bytes, not necessarily UTF-8)
//! given to the clap parser of the real `Cli` either parses or gives an error whose message
//! renders; never a panic.
//!
//! The command's own modules are compiled in from `cli/src/` by path, so the parser
//! fuzzed is the one the command runs.
#![no_main]
#![allow(dead_code, unused_imports)]

#[path = "../../cli/src/main.rs"]
mod fourfold_main;
// The command's modules refer to each other as `crate::NAME`: every module `main.rs`
// declares (and `Cli`) is brought to this crate's root by one glob, so a module added to
// the command needs no change here. (`main.rs`'s private items and imports stay out.)
use fourfold_main::*;

use clap::{CommandFactory, FromArgMatches};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

thread_local! {
    /// The command's clap definition, built once: `Cli::try_parse_from` rebuilds it on every
    /// call, which made this target ten times slower. Parsing with a reused `Command` then
    /// `from_arg_matches_mut` is what `try_parse_from` does inside.
    static COMMAND: RefCell<clap::Command> = RefCell::new(fourfold_main::Cli::command());
}

fuzz_target!(|data: &[u8]| {
    let args = std::iter::once(OsStr::new("fourfold"))
        .chain(data.split(|&b| b == 0).map(OsStr::from_bytes));
    let parsed = COMMAND.with(|c| c.borrow_mut().try_get_matches_from_mut(args));
    let result = parsed.and_then(|mut m| fourfold_main::Cli::from_arg_matches_mut(&mut m));
    if let Err(e) = result {
        let _ = e.render().to_string();
    }
});
