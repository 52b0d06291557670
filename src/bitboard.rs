//! Bitboard words: the integer types a position's cells live in (`u64` and `u128`).
//!
//! This module owns the [`Bitboard`] trait and nothing else: the handful of integer operations
//! the position, the move ordering, the search and the table use, so that one generic body
//! serves every word width. It knows nothing of boards.
//!
//! # Why a trait over the word, and not a run-time width
//!
//! The 7 x 6 key fits 49 bits, so `u64` holds every board up to `W * (H + 1) <= 64` bits and
//! stays the default: with `B = u64` every generic function compiles to the very code it
//! compiled to before the trait existed (each operation is a primitive integer operation
//! behind an `#[inline(always)]` call, each board constant a `u128` literal cast to `u64`,
//! folded at compile time). Boards up to `W * (H + 1) <= 128` bits (9 x 7, 8 x 8, 10 x 6,
//! ...) use `u128`, which LLVM lowers to pairs of 64-bit instructions. BENCHMARKS.md
//! ("Bitboard trait") records that the 7 x 6 node counts are unchanged and its speed within
//! noise.

use std::fmt::{Debug, LowerHex};
use std::hash::Hash;
use std::ops::{
    Add, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr, Sub,
};

/// An unsigned integer word holding one bit per cell (see the module docs).
///
/// Implemented by `u64` and `u128`. Arithmetic (`+`, `-`) is the integer's own: the position
/// code never overflows it (keys are below `2^(W * (H + 1))`).
pub trait Bitboard:
    Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + LowerHex
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// Width of the word in bits.
    const BITS: u32;
    /// All bits clear.
    const ZERO: Self;
    /// The lowest bit set.
    const ONE: Self;

    /// Number of set bits.
    fn count_ones(self) -> u32;
    /// Index of the lowest set bit (`BITS` for zero).
    fn trailing_zeros(self) -> u32;
    /// Two's complement negation (`x & x.wrapping_neg()` is the lowest set bit).
    fn wrapping_neg(self) -> Self;
    /// Subtraction modulo `2^BITS`.
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// The word from the low bits of a `u128` (higher bits dropped).
    fn from_u128(x: u128) -> Self;
    /// The word widened to `u128`.
    fn to_u128(self) -> u128;
    /// The low 64 bits of the word.
    fn low_u64(self) -> u64;
    /// A 64-bit digest for hints (the table's "being searched" marks): the word itself when
    /// it is a `u64`, else a non-zero fold of its halves. Never used to identify a position.
    fn fold64(self) -> u64;
}

impl Bitboard for u64 {
    const BITS: u32 = 64;
    const ZERO: Self = 0;
    const ONE: Self = 1;

    #[inline(always)]
    fn count_ones(self) -> u32 {
        u64::count_ones(self)
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        u64::trailing_zeros(self)
    }
    #[inline(always)]
    fn wrapping_neg(self) -> Self {
        u64::wrapping_neg(self)
    }
    #[inline(always)]
    fn wrapping_sub(self, rhs: Self) -> Self {
        u64::wrapping_sub(self, rhs)
    }
    #[inline(always)]
    fn from_u128(x: u128) -> Self {
        x as u64
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self as u128
    }
    #[inline(always)]
    fn low_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn fold64(self) -> u64 {
        self
    }
}

impl Bitboard for u128 {
    const BITS: u32 = 128;
    const ZERO: Self = 0;
    const ONE: Self = 1;

    #[inline(always)]
    fn count_ones(self) -> u32 {
        u128::count_ones(self)
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        u128::trailing_zeros(self)
    }
    #[inline(always)]
    fn wrapping_neg(self) -> Self {
        u128::wrapping_neg(self)
    }
    #[inline(always)]
    fn wrapping_sub(self, rhs: Self) -> Self {
        u128::wrapping_sub(self, rhs)
    }
    #[inline(always)]
    fn from_u128(x: u128) -> Self {
        x
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self
    }
    #[inline(always)]
    fn low_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn fold64(self) -> u64 {
        (self as u64 ^ ((self >> 64) as u64).rotate_left(29)) | 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops<B: Bitboard>() {
        let x = B::from_u128(0b1011_0000);
        assert_eq!(x.count_ones(), 3);
        assert_eq!(x.trailing_zeros(), 4);
        assert_eq!(x & x.wrapping_neg(), B::from_u128(0b1_0000));
        assert_eq!(B::ZERO.trailing_zeros(), B::BITS);
        assert_eq!(
            (B::ONE << (B::BITS as usize - 1)) >> (B::BITS as usize - 1),
            B::ONE
        );
        assert_eq!(B::ZERO.wrapping_sub(B::ONE), !B::ZERO);
        assert_eq!(x.to_u128(), 0b1011_0000);
        assert_ne!(x.fold64(), 0);
    }

    #[test]
    fn both_words_agree() {
        ops::<u64>();
        ops::<u128>();
        assert_eq!(u64::from_u128(1 << 70 | 5), 5);
        assert_eq!(5u64.fold64(), 5);
    }
}
