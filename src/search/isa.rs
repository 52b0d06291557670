//! Run-time CPU dispatch: the node search compiled once per instruction set, the best one
//! the CPU has chosen once per solve.
//!
//! A build for the baseline `x86_64` target (what a crate that depends on fourfold, a Python
//! wheel, a distribution's package or a `cargo install` from elsewhere gets) may use neither
//! POPCNT nor AVX2, and the search's lanes of eight (`crate::ordering`) and population
//! counts lose much of their speed there. So the recursive unit of the search,
//! `Searcher::node`, into which every stage of a node is inlined, is compiled once for each
//! level below as a function with that level's `#[target_feature]`s, and the solver picks
//! the highest level the CPU reports ([`level`]) when it builds its searchers. The node
//! calls its children through the same level ([`Isa::node`]), so a whole search runs at one
//! level. Levels only change how the same code is compiled: scores and node counts are the
//! same at every level (a test checks it).
//!
//! | level | features (x86-64 psABI) |
//! | --- | --- |
//! | [`Base`] | the build's own target features |
//! | `V3` | x86-64-v3: AVX2, BMI1, BMI2, FMA, LZCNT, MOVBE, POPCNT |
//! | `V4` | x86-64-v4: v3 and AVX-512 F, BW, CD, DQ, VL |
//!
//! Builds inside this repository (`.cargo/config.toml`: `target-cpu=native` and `--cfg
//! fourfold_native`) are for the CPU they run on and compile [`Base`] only, so that the
//! newcomer's build compiles the search once. So do builds whose target features already
//! include a level's (`-C target-cpu=x86-64-v4` compiles [`Base`] only, `x86-64-v3`
//! [`Base`] and `V4`), and every target other than x86-64.
//!
//! The environment variable `FOURFOLD_CPU` caps the level, for measurements and tests:
//! `baseline`, `x86-64-v3` or `x86-64-v4` (read once per process; an unknown value is
//! ignored).

use super::Searcher;
use crate::bitboard::Bitboard;
use crate::position::Position;
use std::sync::OnceLock;

/// An instruction-set level the node search is compiled for.
pub(crate) trait Isa: Sized + 'static {
    /// Whether this CPU has the level's features: a searcher of this level is built only
    /// where it does ([`Searcher::new`] checks it).
    fn available() -> bool;

    /// [`Searcher::node`] compiled for this level.
    fn node<const W: usize, const H: usize, B: Bitboard>(
        s: &mut Searcher<'_, W, H, B, Self>,
        pos: &Position<W, H, B>,
        opp_win: B,
        alpha: i32,
        beta: i32,
    ) -> i32;
}

/// The build's own target features: no dispatch.
pub(crate) struct Base;

impl Isa for Base {
    fn available() -> bool {
        true
    }

    #[inline(always)]
    fn node<const W: usize, const H: usize, B: Bitboard>(
        s: &mut Searcher<'_, W, H, B, Self>,
        pos: &Position<W, H, B>,
        opp_win: B,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        s.node(pos, opp_win, alpha, beta)
    }
}

/// The levels a build compiles and the solver may pick, highest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// x86-64-v4 (AVX-512).
    #[cfg(dispatch_v4)]
    V4,
    /// x86-64-v3 (AVX2).
    #[cfg(dispatch_v3)]
    V3,
    /// The build's own features.
    Base,
}

/// The level every solve of this process runs at: the highest this build compiles and the
/// CPU has, capped by `FOURFOLD_CPU`.
pub(crate) fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = std::env::var("FOURFOLD_CPU").ok();
        let allowed = |name: &str| match cap.as_deref() {
            Some("baseline") => false,
            Some("x86-64-v3") => name == "x86-64-v3",
            _ => true,
        };
        #[cfg(dispatch_v4)]
        if allowed("x86-64-v4") && V4::available() {
            return Level::V4;
        }
        #[cfg(dispatch_v3)]
        if allowed("x86-64-v3") && V3::available() {
            return Level::V3;
        }
        let _ = allowed;
        Level::Base
    })
}

/// The name of a level, as `FOURFOLD_CPU` takes it and `fourfold bench` prints it.
pub(crate) fn level_name(l: Level) -> &'static str {
    match l {
        #[cfg(dispatch_v4)]
        Level::V4 => "x86-64-v4",
        #[cfg(dispatch_v3)]
        Level::V3 => "x86-64-v3",
        Level::Base => "build's own",
    }
}

/// Runs `$body` with the type `$i` standing for the [`Isa`] of [`level`].
macro_rules! with_isa {
    ($i:ident => $body:expr) => {
        match $crate::search::isa::level() {
            #[cfg(dispatch_v4)]
            $crate::search::isa::Level::V4 => {
                type $i = $crate::search::isa::V4;
                $body
            }
            #[cfg(dispatch_v3)]
            $crate::search::isa::Level::V3 => {
                type $i = $crate::search::isa::V3;
                $body
            }
            $crate::search::isa::Level::Base => {
                type $i = $crate::search::isa::Base;
                $body
            }
        }
    };
}
pub(crate) use with_isa;

/// Declares a level: its marker type, its detection and its node function.
macro_rules! level {
    ($(#[$doc:meta])* $name:ident, $cfg:ident, $node:ident, $features:literal, [$($f:tt),*]) => {
        $(#[$doc])*
        #[cfg($cfg)]
        pub(crate) struct $name;

        #[cfg($cfg)]
        impl Isa for $name {
            fn available() -> bool {
                true $(&& std::arch::is_x86_feature_detected!($f))*
            }

            #[inline(always)]
            fn node<const W: usize, const H: usize, B: Bitboard>(
                s: &mut Searcher<'_, W, H, B, Self>,
                pos: &Position<W, H, B>,
                opp_win: B,
                alpha: i32,
                beta: i32,
            ) -> i32 {
                // SAFETY: a searcher of this level exists only where `available` said the
                // CPU has every feature `$node` is compiled with (`Searcher::new` asserts
                // it).
                unsafe { $node(s, pos, opp_win, alpha, beta) }
            }
        }

        /// The node search with this level's target features; every stage is inlined
        /// into it.
        ///
        /// # Safety
        ///
        /// The CPU must have the features (`available`).
        #[cfg($cfg)]
        #[target_feature(enable = $features)]
        unsafe fn $node<const W: usize, const H: usize, B: Bitboard>(
            s: &mut Searcher<'_, W, H, B, $name>,
            pos: &Position<W, H, B>,
            opp_win: B,
            alpha: i32,
            beta: i32,
        ) -> i32 {
            s.node(pos, opp_win, alpha, beta)
        }
    };
}

level!(
    /// x86-64-v3: AVX2 and the bit-manipulation instructions.
    V3,
    dispatch_v3,
    node_v3,
    "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt",
    ["avx2", "bmi1", "bmi2", "fma", "lzcnt", "movbe", "popcnt"]
);

level!(
    /// x86-64-v4: x86-64-v3 and AVX-512.
    V4,
    dispatch_v4,
    node_v4,
    "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl",
    [
        "avx2", "bmi1", "bmi2", "fma", "lzcnt", "movbe", "popcnt", "avx512f", "avx512bw",
        "avx512cd", "avx512dq", "avx512vl"
    ]
);
