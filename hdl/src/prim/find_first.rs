//! Find first set: the lowest set bit of an `N`-bit request vector.

use crate::consts::{constant, index_bit_masks, onehot_table, shift_table};
use rust_hdl::prelude::*;

/// The lowest set bit of `req` (bit 0 first), combinational.
///
/// A prefix OR of log2 `N` levels (`scan |= scan << 2^k`) marks every position at or above the
/// first request; the one-hot result is `req & !(scan << 1)`; each index bit is an OR tree over
/// the positions whose index has that bit. `B` = clog2(`N`) (at least 1).
#[derive(LogicBlock)]
pub struct FindFirst<const N: usize, const B: usize> {
    /// Request vector.
    pub req: Signal<In, Bits<N>>,
    /// Some bit of `req` is set.
    pub valid: Signal<Out, Bit>,
    /// The lowest set bit alone (0 when none).
    pub onehot: Signal<Out, Bits<N>>,
    /// Its index (0 when none).
    pub index: Signal<Out, Bits<B>>,
    scan: Signal<Local, Bits<N>>,
    shift: [Constant<Bits<8>>; B],
    index_bits: [Constant<Bits<N>>; B],
    bit_b: [Constant<Bits<B>>; B],
    zero_b: Constant<Bits<B>>,
}

impl<const N: usize, const B: usize> Default for FindFirst<N, B> {
    fn default() -> Self {
        assert!(
            B >= 1 && N >= 1 && N <= 1 << B && N <= 128,
            "B = clog2(N), N <= 128"
        );
        Self {
            req: Default::default(),
            valid: Default::default(),
            onehot: Default::default(),
            index: Default::default(),
            scan: Default::default(),
            shift: shift_table(),
            index_bits: index_bit_masks(),
            bit_b: onehot_table(),
            zero_b: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for FindFirst<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.scan.next = self.req.val();
        for k in 0..B {
            self.scan.next = self.scan.val() | (self.scan.val() << self.shift[k].val());
        }
        self.onehot.next = self.req.val() & !(self.scan.val() << self.shift[0].val());
        self.valid.next = self.req.val().any();
        self.index.next = self.zero_b.val();
        for k in 0..B {
            if (self.onehot.val() & self.index_bits[k].val()).any() {
                self.index.next = self.index.val() | self.bit_b[k].val();
            }
        }
    }
}

/// Golden: the index of the lowest set bit of `req`, if any.
pub fn find_first_golden(req: u128) -> Option<usize> {
    (req != 0).then(|| req.trailing_zeros() as usize)
}
