//! The `fourfold` command's integration tests: one binary, one module per concern. They run
//! the built command (`CARGO_BIN_EXE_fourfold`); the library's own tests are in the root
//! crate's `tests/integration`.

mod boards;
mod book;
mod checkpoint;
mod cli;
mod common;
mod robustness;
mod service;
