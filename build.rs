//! Which instruction-set levels the node search is compiled for (`src/search/isa.rs`): on
//! x86-64 the levels above the build's own target features, unless the build is for the CPU
//! it runs on (`--cfg fourfold_native`, set by the repository's `.cargo/config.toml`) or a
//! loom model.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(dispatch_v3, dispatch_v4, fourfold_native)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |f: &str| features.split(',').any(|x| x == f);
    let native = std::env::var_os("CARGO_CFG_FOURFOLD_NATIVE").is_some();
    let loom = std::env::var_os("CARGO_CFG_LOOM").is_some();
    if arch != "x86_64" || native || loom {
        return;
    }
    if !has("avx512f") {
        println!("cargo::rustc-cfg=dispatch_v4");
    }
    if !has("avx2") {
        println!("cargo::rustc-cfg=dispatch_v3");
    }
}
