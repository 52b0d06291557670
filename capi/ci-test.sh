#!/usr/bin/env bash
# CI for the C library: builds libfourfold.so, compiles the C test against
# include/fourfold.h with warnings as errors, and runs it on a test set. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p fourfold-capi
gcc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude capi/tests/check.c \
    -Ltarget/release -lfourfold -o target/capi-check
LD_LIBRARY_PATH=target/release target/capi-check tests/data/Test_L2_R1 20
