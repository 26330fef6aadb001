//! Age matrix: which of the requesting entries was inserted first.

use crate::consts::{below_table, constant};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Relative age of `N` entries as an `N x N` matrix (`N * N` flip-flops, no counters):
/// `older[i]` has bit `j` set when entry `j` is older than entry `i`. The oldest requesting
/// entry is the requesting `i` with `older[i] & req == 0` (one AND-OR per row, in parallel).
///
/// Timing: `oldest` is combinational in `req` and the matrix (Mealy). The entries of `insert`
/// become the youngest at the rising edge, younger than every other entry and, among
/// themselves, the lower index older. Reset: index order (entry 0 oldest).
#[derive(LogicBlock)]
pub struct AgeMatrix<const N: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Entries (re)inserted this cycle: the youngest from the next cycle on.
    pub insert: Signal<In, Bits<N>>,
    /// Entries competing this cycle.
    pub req: Signal<In, Bits<N>>,
    /// The oldest of them, one-hot (0 when `req` is 0).
    pub oldest: Signal<Out, Bits<N>>,
    older: [DFF<Bits<N>>; N],
    below: [Constant<Bits<N>>; N],
    onehot: [Constant<Bits<N>>; N],
    zero: Constant<Bits<N>>,
}

impl<const N: usize> Default for AgeMatrix<N> {
    fn default() -> Self {
        assert!((1..=64).contains(&N));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            insert: Default::default(),
            req: Default::default(),
            oldest: Default::default(),
            older: array_init::array_init(|_| Default::default()),
            below: below_table(),
            onehot: crate::consts::onehot_table(),
            zero: constant(0),
        }
    }
}

impl<const N: usize> Logic for AgeMatrix<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.oldest.next = self.zero.val();
        for i in 0..N {
            self.older[i].clock.next = self.clock.val();
            if self.req.val().get_bit(i) & !(self.older[i].q.val() & self.req.val()).any() {
                self.oldest.next = self.oldest.val() | self.onehot[i].val();
            }
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

impl<const N: usize> Clocked for AgeMatrix<N> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Golden age order by insertion stamps.
#[derive(Clone, Debug)]
pub struct AgeMatrixGolden {
    stamp: Vec<u64>,
    next: u64,
}

impl AgeMatrixGolden {
    /// After reset: entry `i` has stamp `i` (index order).
    pub fn new(n: usize) -> Self {
        Self {
            stamp: (0..n as u64).collect(),
            next: n as u64,
        }
    }

    /// The entries older than entry `i`, as a mask (an [`super::AgeRows`] row).
    pub fn row(&self, i: usize) -> u64 {
        (0..self.stamp.len())
            .filter(|&j| self.stamp[j] < self.stamp[i])
            .fold(0, |m, j| m | 1 << j)
    }

    /// One cycle: the oldest entry of `req`, then the entries of `insert` get new stamps in
    /// index order.
    pub fn step(&mut self, insert: u64, req: u64) -> Option<usize> {
        let oldest = age_matrix_golden(&self.stamp, req);
        for i in (0..self.stamp.len()).filter(|i| insert >> i & 1 == 1) {
            self.stamp[i] = self.next;
            self.next += 1;
        }
        oldest
    }
}

/// Golden: the entry of `req` with the smallest stamp.
pub fn age_matrix_golden(stamp: &[u64], req: u64) -> Option<usize> {
    (0..stamp.len())
        .filter(|i| req >> i & 1 == 1)
        .min_by_key(|&i| stamp[i])
}
