//! fourfold's integration tests: one binary, one module per concern.

mod batch;
mod boards;
mod book;
mod check_bits;
mod checkpoint;
mod common;
mod every_size;
mod independent;
mod properties;
mod proptests;
mod run_time_sized;
mod testsets;
mod tiebreak;
mod two_word_stress;
mod wide_boards;
mod window;
