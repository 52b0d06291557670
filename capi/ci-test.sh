#!/usr/bin/env bash
# CI for the C library: builds libfourfold.so and libfourfold.a, compiles the C test against
# include/fourfold.h with warnings as errors, and runs it on a test set three ways: linked
# against the build tree with an rpath, against the static library, and through an install
# (capi/install.sh) and its pkg-config file -- none with LD_LIBRARY_PATH. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
unset LD_LIBRARY_PATH
cargo build --release --quiet -p fourfold-capi
cflags=(-std=c99 -Wall -Wextra -Werror -pedantic)

# 1. The build tree, with an rpath: runs as it is.
gcc "${cflags[@]}" -Iinclude capi/tests/check.c \
    -Ltarget/release -Wl,-rpath,"$PWD/target/release" -lfourfold -o target/capi-check
target/capi-check tests/data/Test_L2_R1 20

# 2. The static library: the program needs no libfourfold.so at all.
gcc "${cflags[@]}" -Iinclude capi/tests/check.c target/release/libfourfold.a \
    -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o target/capi-check-static
if readelf -d target/capi-check-static | grep -q 'libfourfold'; then
    echo "capi-check-static still needs libfourfold.so" >&2
    exit 1
fi
target/capi-check-static tests/data/Test_L2_R1 20

# 3. Installed under a prefix, compiled through pkg-config (the .pc's Libs carry the rpath).
prefix="$PWD/target/capi-prefix"
rm -rf "$prefix"
bash capi/install.sh "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's words are meant to split
gcc "${cflags[@]}" capi/tests/check.c $(pkg-config --cflags --libs fourfold) \
    -o target/capi-check-pc
target/capi-check-pc tests/data/Test_L2_R1 20
