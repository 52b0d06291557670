#!/usr/bin/env bash
# Installs the C library under PREFIX: the header, the shared library (libfourfold.so),
# the static library (libfourfold.a) and a pkg-config file (fourfold.pc).
#
#   bash capi/install.sh PREFIX        # e.g. /usr/local or $HOME/.local
#
# Then: cc prog.c $(pkg-config --cflags --libs fourfold)   (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
# when PREFIX is not a system one). The .pc file's Libs carries -Wl,-rpath,PREFIX/lib, so the
# program finds libfourfold.so without LD_LIBRARY_PATH; `pkg-config --static` adds the
# system libraries the static library needs.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: bash capi/install.sh PREFIX" >&2
    exit 2
fi
mkdir -p "$1"
prefix="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
cargo build --release --quiet -p fourfold-capi
version="$(sed -n 's/^version = "\(.*\)"/\1/p' capi/Cargo.toml | head -1)"
install -d "$prefix/include" "$prefix/lib/pkgconfig"
install -m 644 include/fourfold.h "$prefix/include/"
install -m 755 target/release/libfourfold.so "$prefix/lib/"
install -m 644 target/release/libfourfold.a "$prefix/lib/"
# The system libraries a static Rust library needs on Linux (rustc --print
# native-static-libs).
cat > "$prefix/lib/pkgconfig/fourfold.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: fourfold
Description: C bindings of fourfold, the Connect-4 solver
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lfourfold
Libs.private: -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
PC
echo "installed fourfold $version under $prefix (pkg-config: $prefix/lib/pkgconfig/fourfold.pc)"
