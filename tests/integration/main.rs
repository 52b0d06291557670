//! fourfold's integration tests: one binary, one module per concern.

mod cli;
mod common;
mod properties;
mod testsets;
mod wide_boards;
