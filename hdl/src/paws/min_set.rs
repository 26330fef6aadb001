//! The set of the valid inputs whose key is the smallest (every one of them on equal keys).

use crate::consts::{constant, onehot_table};
use rust_hdl::prelude::*;

/// Of `N` `W`-bit keys, the valid ones no valid key is smaller than. Combinational and flat: a
/// `W`-bit comparator per ordered pair (`N * N`, all in parallel), then per input an AND-OR
/// over its row, so the depth is one comparator and two reductions of `N` bits whatever `N`
/// (a comparison tree would chain log2 `N` comparators, too deep for 16-bit keys in one cycle).
#[derive(LogicBlock)]
pub struct MinSet<const N: usize, const W: usize> {
    /// Which inputs take part.
    pub valid: Signal<In, Bits<N>>,
    /// The keys.
    pub key: [Signal<In, Bits<W>>; N],
    /// The valid inputs of the smallest key (0 when none is valid).
    pub min: Signal<Out, Bits<N>>,
    /// Per input `i`, bit `j`: key `j` is smaller than key `i`.
    smaller: [Signal<Local, Bits<N>>; N],
    onehot: [Constant<Bits<N>>; N],
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const W: usize> Default for MinSet<N, W> {
    fn default() -> Self {
        assert!((1..=64).contains(&N));
        Self {
            valid: Default::default(),
            key: array_init::array_init(|_| Default::default()),
            min: Default::default(),
            smaller: array_init::array_init(|_| Default::default()),
            onehot: onehot_table(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const W: usize> Logic for MinSet<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.min.next = self.zero.val();
        for i in 0..N {
            self.smaller[i].next = self.zero.val();
            for j in 0..N {
                if self.key[j].val() < self.key[i].val() {
                    self.smaller[i].next = self.smaller[i].val() | self.onehot[j].val();
                }
            }
            if self.valid.val().get_bit(i) & !(self.smaller[i].val() & self.valid.val()).any() {
                self.min.next = self.min.val() | self.onehot[i].val();
            }
        }
    }
}

/// Golden: the valid inputs of the smallest key, as a mask.
pub fn min_set_golden(valid: u64, key: &[u64]) -> u64 {
    let on = |i: &usize| valid >> i & 1 == 1;
    let Some(best) = (0..key.len()).filter(on).map(|i| key[i]).min() else {
        return 0;
    };
    (0..key.len())
        .filter(|i| on(i) && key[*i] == best)
        .fold(0, |m, i| m | 1 << i)
}
