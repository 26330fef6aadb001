//! Population count: how many bits of an `N`-bit vector are set.

use crate::consts::constant;
use rust_hdl::prelude::*;

/// The number of set bits of `bits`, combinational, as a binary adder tree: the `N` bits are
/// `B`-bit numbers, added in pairs level by level (ceil(log2 `N`) levels of `B`-bit adders, in
/// place: level `k` writes `sum[i] = sum[2i] + sum[2i+1]` for the `c_k / 2` pairs of its
/// `c_k = ceil(N / 2^k)` inputs, and moves an odd last one up). `N` up to 64; `B` bits hold
/// `N` (`N < 2^B`).
#[derive(LogicBlock)]
pub struct PopCount<const N: usize, const B: usize> {
    /// Input vector.
    pub bits: Signal<In, Bits<N>>,
    /// Its number of set bits.
    pub count: Signal<Out, Bits<B>>,
    sum: [Signal<Local, Bits<B>>; N],
    one: Constant<Bits<B>>,
    zero: Constant<Bits<B>>,
}

impl<const N: usize, const B: usize> Default for PopCount<N, B> {
    fn default() -> Self {
        assert!((1..=64).contains(&N), "1 <= N <= 64");
        assert!(B <= 8 && N < (1usize << B), "B bits hold N");
        Self {
            bits: Default::default(),
            count: Default::default(),
            sum: array_init::array_init(|_| Default::default()),
            one: constant(1),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for PopCount<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.sum[i].next = self.zero.val();
            if self.bits.val().get_bit(i) {
                self.sum[i].next = self.one.val();
            }
        }
        // Six levels cover N <= 64; a level over zero pairs is empty, and so is the odd
        // element's move for an even count or a count of one (`- 1 / c`: the level's input
        // count `c` is already the total); so a power of two N has no moves at all.
        for i in 0..(N / 2) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in (N / 2)..(N.div_ceil(2) - 1 / N) {
            self.sum[i].next = self.sum[2 * i].val();
        }
        for i in 0..((N + 1) / 4) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in ((N + 1) / 4)..(N.div_ceil(4) - 1 / N.div_ceil(2)) {
            self.sum[i].next = self.sum[2 * i].val();
        }
        for i in 0..((N + 3) / 8) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in ((N + 3) / 8)..(N.div_ceil(8) - 1 / N.div_ceil(4)) {
            self.sum[i].next = self.sum[2 * i].val();
        }
        for i in 0..((N + 7) / 16) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in ((N + 7) / 16)..(N.div_ceil(16) - 1 / N.div_ceil(8)) {
            self.sum[i].next = self.sum[2 * i].val();
        }
        for i in 0..((N + 15) / 32) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in ((N + 15) / 32)..(N.div_ceil(32) - 1 / N.div_ceil(16)) {
            self.sum[i].next = self.sum[2 * i].val();
        }
        for i in 0..((N + 31) / 64) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        self.count.next = self.sum[0].val();
    }
}

/// Golden: the number of set bits.
pub fn popcount_golden(bits: u64) -> u32 {
    bits.count_ones()
}
