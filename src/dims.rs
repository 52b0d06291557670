//! Board dimensions: constants of the compiled sizes, or values given at run time.
//!
//! Every board-generic type (`Position<W, H, B>`, the solver, the search) takes the width and
//! height as const parameters, so that on a compiled size the masks, shifts and loop bounds
//! are constants the compiler folds. One pair of parameters is reserved for the boards that
//! are not compiled: `W = RUN_W` (12, the widest board, so that arrays of `W` entries hold
//! any board's columns) with `H = RUN_H` (0, no board's height) is the *run-time-sized*
//! instance, one per word type. Its width and height, and the masks derived from them, are
//! read from the thread's current [`Dims`], which the engine sets ([`Dims::enter`]) around
//! every call on such a board and the solver sets in each thread it starts.
//!
//! Code generic over `W` and `H` reads the dimensions only through [`width`] and
//! [`height`] (and `Position`'s masks): on a compiled size they are `W` and `H` and cost
//! nothing; on the run-time-sized instance they are a thread-local load.

use std::cell::Cell;

/// The width parameter of the run-time-sized instance: the widest board, so that arrays of
/// `W` entries have room for every board's columns.
pub(crate) const RUN_W: usize = 12;
/// The height parameter of the run-time-sized instance: no board's height.
pub(crate) const RUN_H: usize = 0;

/// True for the run-time-sized instance (`H == RUN_H`).
#[inline(always)]
pub(crate) const fn is_run_time<const H: usize>() -> bool {
    H == RUN_H
}

/// The board's width: `W`, or the current [`Dims`]' on the run-time-sized instance.
#[inline(always)]
pub(crate) fn width<const W: usize, const H: usize>() -> usize {
    if is_run_time::<H>() {
        current().width
    } else {
        W
    }
}

/// The board's height: `H`, or the current [`Dims`]' on the run-time-sized instance.
#[inline(always)]
pub(crate) fn height<const W: usize, const H: usize>() -> usize {
    if is_run_time::<H>() {
        current().height
    } else {
        H
    }
}

/// The board's size as text (`7x6`).
pub(crate) fn name<const W: usize, const H: usize>() -> String {
    format!("{}x{}", width::<W, H>(), height::<W, H>())
}

/// A board's width and height, and the masks of its layout (see `crate::position`), as
/// 128-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dims {
    /// Columns.
    pub(crate) width: usize,
    /// Rows.
    pub(crate) height: usize,
    /// One bit at the bottom of every column.
    pub(crate) bottom: u128,
    /// Every playable cell.
    pub(crate) board: u128,
    /// The cells of even rows (0, 2, ...).
    pub(crate) even_rows: u128,
    /// `ceil(2^16 / (height + 1))`: the column of bit `i` (below 128) is
    /// `i * column_magic >> 16`, a multiplication where a division by a run-time value
    /// took tens of cycles ([`Dims::column_of_bit`]; a test checks every bit and size).
    pub(crate) column_magic: u32,
    /// The cells of the rows below row `n` (rows `0..n`), for `n` in `0..=13`.
    pub(crate) rows_below: [u128; 14],
}

thread_local! {
    /// The dimensions of the run-time-sized boards this thread works on now: a pointer
    /// into [`ALL`], one word to load (a copy of the whole [`Dims`] at each read was an
    /// eighth of a profile).
    static CURRENT: Cell<&'static Dims> = const { Cell::new(&Dims::NONE) };
}

/// The dimensions of every board of 1 to 12 columns and 1 to 13 rows, by width and height
/// (`None` where the layout passes 128 bits): what [`Dims::enter`] points the thread at.
static ALL: [[Option<Dims>; 14]; RUN_W + 1] = {
    let mut all = [[None; 14]; RUN_W + 1];
    let mut w = 1;
    while w <= RUN_W {
        let mut h = 1;
        while h < 14 {
            all[w][h] = Dims::new(w, h);
            h += 1;
        }
        w += 1;
    }
    all
};

/// The current thread's [`Dims`] ([`Dims::NONE`] outside every [`Dims::enter`]).
#[inline(always)]
pub(crate) fn current() -> &'static Dims {
    CURRENT.with(|d| d.get())
}

impl Dims {
    /// No board: what a thread holds before [`Dims::enter`].
    pub(crate) const NONE: Dims = Dims {
        width: 0,
        height: 0,
        bottom: 0,
        board: 0,
        even_rows: 0,
        column_magic: 0,
        rows_below: [0; 14],
    };

    /// The dimensions of a `width` x `height` board; `None` unless its layout fits 128 bits
    /// (`width * (height + 1) <= 128`) with 1 to 12 columns and at least one row.
    pub(crate) const fn new(width: usize, height: usize) -> Option<Dims> {
        if width == 0 || width > RUN_W || height == 0 || width * (height + 1) > 128 {
            return None;
        }
        let mut bottom = 0u128;
        let mut c = 0;
        while c < width {
            bottom |= 1 << (c * (height + 1));
            c += 1;
        }
        let mut even_rows = 0u128;
        let mut r = 0;
        while r < height {
            even_rows |= bottom << r;
            r += 2;
        }
        let mut rows_below = [0u128; 14];
        let mut n = 0;
        while n < 14 {
            let rows = if n < height { n } else { height };
            rows_below[n] = bottom * ((1 << rows) - 1);
            n += 1;
        }
        Some(Dims {
            rows_below,
            width,
            height,
            bottom,
            board: bottom * ((1 << height) - 1),
            even_rows,
            column_magic: (1u32 << 16).div_ceil(height as u32 + 1),
        })
    }

    /// The column of bit `i` of the layout (`i / (height + 1)`), for `i` below 128.
    #[inline(always)]
    pub(crate) fn column_of_bit(&self, i: u32) -> usize {
        debug_assert!(i < 128);
        ((i * self.column_magic) >> 16) as usize
    }

    /// Makes these the current thread's dimensions until the returned guard is dropped
    /// (which restores the ones before).
    #[must_use = "the dimensions hold only while the guard lives"]
    pub(crate) fn enter(self) -> Entered {
        let this = match ALL.get(self.width).and_then(|r| r.get(self.height)) {
            Some(Some(d)) => d,
            _ => &Dims::NONE,
        };
        Entered {
            before: CURRENT.with(|d| d.replace(this)),
        }
    }

    /// [`Dims::enter`] on the run-time-sized instance (`H == RUN_H`); nothing on a compiled
    /// size, whose code never reads them.
    #[inline]
    pub(crate) fn enter_for<const H: usize>(self) -> Option<Entered> {
        is_run_time::<H>().then(|| self.enter())
    }
}

/// The guard of [`Dims::enter`].
pub(crate) struct Entered {
    before: &'static Dims,
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|d| d.set(self.before));
    }
}

/// The centre-first column orders of every width up to [`RUN_W`] (`crate::ordering`),
/// computed at compile time: the run-time-sized instance's [`crate::ordering::column_order`].
static ORDERS: [[usize; RUN_W]; RUN_W + 1] = {
    let mut all = [[0; RUN_W]; RUN_W + 1];
    let mut w = 1;
    while w <= RUN_W {
        let mut i = 0;
        while i < w {
            all[w][i] = crate::ordering::centre_column(i, w);
            i += 1;
        }
        w += 1;
    }
    all
};

/// The centre-first column order of a `width`-wide board (at most [`RUN_W`]).
#[inline(always)]
pub(crate) fn order(width: usize) -> &'static [usize] {
    &ORDERS[width][..width]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entered_dimensions_hold_in_their_scope_and_nest() {
        assert_eq!(*current(), Dims::NONE);
        let a = Dims::new(9, 5).unwrap();
        let b = Dims::new(10, 6).unwrap();
        {
            let _a = a.enter();
            assert_eq!((width::<RUN_W, RUN_H>(), height::<RUN_W, RUN_H>()), (9, 5));
            assert_eq!((width::<7, 6>(), height::<7, 6>()), (7, 6));
            {
                let _b = b.enter();
                assert_eq!(*current(), b);
            }
            assert_eq!(*current(), a);
            assert!(a.enter_for::<6>().is_none());
        }
        assert_eq!(*current(), Dims::NONE);
    }

    #[test]
    fn the_column_of_a_bit_is_the_quotient_on_every_size() {
        for w in 1..=RUN_W {
            for h in 1..=13 {
                let Some(d) = Dims::new(w, h) else { continue };
                for i in 0..128 {
                    assert_eq!(d.column_of_bit(i), i as usize / (h + 1), "{w}x{h} bit {i}");
                }
            }
        }
    }

    #[test]
    fn only_layouts_of_at_most_128_bits_are_dimensions() {
        assert!(Dims::new(12, 9).is_some());
        assert!(Dims::new(12, 10).is_none());
        assert!(Dims::new(13, 4).is_none());
        assert!(Dims::new(4, 0).is_none());
        let d = Dims::new(7, 6).unwrap();
        assert_eq!(d.bottom.count_ones(), 7);
        assert_eq!(d.board.count_ones(), 42);
        assert_eq!(d.even_rows.count_ones(), 21);
        assert_eq!(order(7), crate::ordering::column_order::<7>());
    }
}
