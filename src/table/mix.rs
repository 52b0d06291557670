//! The key mix: a bijection on the keys of a width, so that the bucket index and the check
//! bits together name one key.

/// The key mix of one word width, written once for `u64` ([`mix`], [`unmix`]) and `u128`
/// ([`mix128`], [`unmix128`]): the two mixes, the width's key mask and the inverse of an
/// odd multiplier.
macro_rules! key_mix {
    (
        $word:ty, ($mul1:expr, $mul2:expr), $key_mask:ident, $inverse_odd:ident,
        $(#[$mix_attr:meta])* $mix:ident,
        $(#[$unmix_attr:meta])* $unmix:ident $(,)?
    ) => {
        /// The keys of `key_bits` bits: `2^key_bits - 1`.
        #[inline]
        pub(super) const fn $key_mask(key_bits: u32) -> $word {
            if key_bits >= <$word>::BITS {
                <$word>::MAX
            } else {
                (1 << key_bits) - 1
            }
        }

        /// The multiplicative inverse of an odd number modulo `2^BITS` (Newton's iteration:
        /// each step doubles the low bits that are right, from 3; seven reach 384).
        const fn $inverse_odd(a: $word) -> $word {
            let mut x = a;
            let mut i = 0;
            while i < 7 {
                x = x.wrapping_mul(<$word>::wrapping_sub(2, a.wrapping_mul(x)));
                i += 1;
            }
            x
        }

        $(#[$mix_attr])*
        #[inline]
        pub fn $mix(key: $word, key_bits: u32) -> $word {
            let m = $key_mask(key_bits);
            let s1 = key_bits.div_ceil(2);
            let s2 = key_bits.div_ceil(3);
            let mut x = key & m;
            x ^= x >> s1;
            x = x.wrapping_mul($mul1) & m;
            x ^= x >> s2;
            x = x.wrapping_mul($mul2) & m;
            x ^= x >> s1;
            x
        }

        $(#[$unmix_attr])*
        pub fn $unmix(h: $word, key_bits: u32) -> $word {
            let m = $key_mask(key_bits);
            let s1 = key_bits.div_ceil(2);
            let s2 = key_bits.div_ceil(3);
            let unxorshift = |mut y: $word, s: u32| {
                // x ^= x >> s is undone by applying it until the shifted part runs out.
                let mut x = y;
                while s > 0 && y != 0 {
                    y >>= s;
                    x ^= y;
                }
                x
            };
            let mut x = h & m;
            x = unxorshift(x, s1);
            x = x.wrapping_mul($inverse_odd($mul2)) & m;
            x = unxorshift(x, s2);
            x = x.wrapping_mul($inverse_odd($mul1)) & m;
            unxorshift(x, s1)
        }
    };
}

pub(super) const MUL1: u64 = 0x9E37_79B9_7F4A_7C15;
pub(super) const MUL2: u64 = 0xBF58_476D_1CE4_E5B9;

key_mix!(
    u64,
    (MUL1, MUL2),
    key_mask,
    inverse_odd,
    /// Mixes a key of `key_bits` bits by a bijection on `[0, 2^key_bits)`.
    ///
    /// Each step is invertible on `key_bits`-bit words: `x ^= x >> s` (with `s >= 1`) and
    /// `x = x * odd mod 2^key_bits`; [`unmix`] undoes the chain, and a test checks it does.
    mix,
    /// The inverse of [`mix`]: `unmix(mix(k, b), b) == k` for every `k < 2^b`.
    unmix,
);

pub(super) const MUL1_WIDE: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835;
pub(super) const MUL2_WIDE: u128 = 0xBF58_476D_1CE4_E5B9_94D0_49BB_1331_11EB;

key_mix!(
    u128,
    (MUL1_WIDE, MUL2_WIDE),
    key_mask_wide,
    inverse_odd_wide,
    /// [`mix`] for keys of up to 128 bits: the same chain of invertible steps on
    /// `[0, 2^key_bits)`, on `u128` words with 128-bit odd multipliers (the two-word layout).
    mix128,
    /// The inverse of [`mix128`].
    unmix128,
);
