//! Prefix count: for every position of an `N`-bit vector, how many set bits lie below it.

use crate::consts::constant;
use rust_hdl::prelude::*;

/// Exclusive prefix counts of `bits`, combinational: `before[i]` = set bits among `0..i`,
/// `total` = set bits among all `N`; `B`-bit results (`2^B > N`).
///
/// Kogge-Stone: inclusive sums start as the bits themselves, and level `k` adds to every
/// position the sum `2^k` positions below it (log2 `N` levels of `B`-bit adders, `N - 2^k` of
/// them at level `k`; a level whose distance is `N` or more is a copy). `N` up to 256.
#[derive(LogicBlock)]
pub struct PrefixCount<const N: usize, const B: usize> {
    /// Input vector.
    pub bits: Signal<In, Bits<N>>,
    /// Per position: the set bits below it (0 at position 0).
    pub before: [Signal<Out, Bits<B>>; N],
    /// All set bits.
    pub total: Signal<Out, Bits<B>>,
    /// Inclusive sums, level by level; the previous level's.
    sum: [Signal<Local, Bits<B>>; N],
    prev: [Signal<Local, Bits<B>>; N],
    one: Constant<Bits<B>>,
    zero: Constant<Bits<B>>,
}

impl<const N: usize, const B: usize> Default for PrefixCount<N, B> {
    fn default() -> Self {
        assert!(
            (1..=256).contains(&N) && B < 32 && (1usize << B) > N,
            "N <= 256, 2^B > N"
        );
        Self {
            bits: Default::default(),
            before: array_init::array_init(|_| Default::default()),
            total: Default::default(),
            sum: array_init::array_init(|_| Default::default()),
            prev: array_init::array_init(|_| Default::default()),
            one: constant(1),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for PrefixCount<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.sum[i].next = self.zero.val();
            if self.bits.val().get_bit(i) {
                self.sum[i].next = self.one.val();
            }
            self.prev[i].next = self.sum[i].val();
        }
        // Eight levels cover N <= 256; `prev` holds the level before (no in-place overlap).
        for i in 1..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 1].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 2..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 2].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 4..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 4].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 8..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 8].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 16..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 16].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 32..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 32].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 64..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 64].val();
        }
        for i in 0..N {
            self.prev[i].next = self.sum[i].val();
        }
        for i in 128..N {
            self.sum[i].next = self.prev[i].val() + self.prev[i - 128].val();
        }
        self.before[0].next = self.zero.val();
        for i in 1..N {
            self.before[i].next = self.sum[i - 1].val();
        }
        for i in (N - 1)..N {
            self.total.next = self.sum[i].val();
        }
    }
}

/// Golden: per position, the set bits below it; and all set bits.
pub fn prefix_count_golden(bits: &[bool]) -> (Vec<u32>, u32) {
    let mut before = Vec::with_capacity(bits.len());
    let mut n = 0;
    for &b in bits {
        before.push(n);
        n += b as u32;
    }
    (before, n)
}
