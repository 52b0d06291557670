//! fourfold's integration tests: one binary, one module per concern.

mod book;
mod cli;
mod common;
mod properties;
mod testsets;
