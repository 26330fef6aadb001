//! Population count: how many bits of an `N`-bit vector are set.

use crate::consts::constant;
use rust_hdl::prelude::*;

/// The number of set bits of `bits`, combinational, as a binary adder tree: the `N` bits are
/// `B`-bit numbers, added in pairs level by level (log2 `N` levels of `B`-bit adders, in place:
/// level `k` writes `sum[i] = sum[2i] + sum[2i+1]` for `i < N >> k`). `N` is a power of two up
/// to 64 (pad a narrower vector with zeros); `B` = log2(`N`) + 1.
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
        assert!(N.is_power_of_two() && N <= 64, "N a power of two <= 64");
        assert!(1usize << (B - 1) == N, "B = log2(N) + 1");
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
        // Six levels cover N <= 64; a level over zero pairs is empty.
        for i in 0..(N / 2) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in 0..(N / 4) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in 0..(N / 8) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in 0..(N / 16) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in 0..(N / 32) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        for i in 0..(N / 64) {
            self.sum[i].next = self.sum[2 * i].val() + self.sum[2 * i + 1].val();
        }
        self.count.next = self.sum[0].val();
    }
}

/// Golden: the number of set bits.
pub fn popcount_golden(bits: u64) -> u32 {
    bits.count_ones()
}
