//! Age rows: the relative age of every pair of entries, for logic that compares ages of
//! entries it picks itself (a sort), not only the oldest of a request set.

use crate::consts::{below_table, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Relative age of `N` entries as an `N x N` matrix of flip-flops, every row an output:
/// `rows[i]` has bit `j` set when entry `j` is older than entry `i`. The entries of `insert`
/// become the youngest at the rising edge, younger than every other entry and, among
/// themselves, the lower index older. Reset: index order (entry 0 oldest). The same matrix and
/// update as [`super::AgeMatrix`], without its oldest-of-a-request reduction.
#[derive(LogicBlock)]
pub struct AgeRows<const N: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Entries (re)inserted this cycle: the youngest from the next cycle on.
    pub insert: Signal<In, Bits<N>>,
    /// Per entry `i`: the entries older than it.
    pub rows: [Signal<Out, Bits<N>>; N],
    older: [DFF<Bits<N>>; N],
    below: [Constant<Bits<N>>; N],
    onehot: [Constant<Bits<N>>; N],
}

impl<const N: usize> Default for AgeRows<N> {
    fn default() -> Self {
        assert!((1..=64).contains(&N));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            insert: Default::default(),
            rows: array_init::array_init(|_| Default::default()),
            older: array_init::array_init(|_| Default::default()),
            below: below_table(),
            onehot: onehot_table(),
        }
    }
}

impl<const N: usize> Logic for AgeRows<N> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.older[i].clock.next = self.clock.val();
            self.rows[i].next = self.older[i].q.val();
            self.older[i].d.next = self.older[i].q.val() & !self.insert.val();
            if self.insert.val().get_bit(i) {
                self.older[i].d.next = (!self.insert.val() & !self.onehot[i].val())
                    | (self.insert.val() & self.below[i].val());
            }
            if self.reset.val() {
                self.older[i].d.next = self.below[i].val();
            }
        }
    }
}

impl<const N: usize> Clocked for AgeRows<N> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
