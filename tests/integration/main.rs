//! fourfold's integration tests: one binary, one module per concern.

mod cli;
mod common;
mod properties;
mod service;
mod testsets;
