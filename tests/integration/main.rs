//! fourfold's integration tests: one binary, one module per concern.

mod boards;
mod cli;
mod common;
mod properties;
mod testsets;
