//! The scheduler's choice before GTO: the candidate tier, the kernel LRR picks and its
//! candidates, combinational.
//!
//! A block of its own so that the age matrix's request is a sub-block's output: rust-hdl emits
//! one `always` process per module, and Verilator does not split [`super::KernelLrr`]'s process
//! where the request is computed in it (`UNOPTFLAT` through the age matrix).

use crate::consts::constant;
use rust_hdl::prelude::*;

/// Tiers, the LRR kernel choice and the chosen kernel's candidates for `N` warps.
#[derive(LogicBlock)]
pub struct Candidates<const N: usize> {
    /// Eligible warps (ready and live).
    pub eligible: Signal<In, Bits<N>>,
    /// Warps of the second kernel.
    pub kernel: Signal<In, Bits<N>>,
    /// Warps of blocks being drained.
    pub drain: Signal<In, Bits<N>>,
    /// Warps of boundary blocks.
    pub boundary: Signal<In, Bits<N>>,
    /// Per kernel: no more blocks to dispatch.
    pub tail: Signal<In, Bits<2>>,
    /// The kernel LRR favours (1: the second).
    pub prio: Signal<In, Bit>,
    /// The first kernel's last grant, one-hot.
    pub last0: Signal<In, Bits<N>>,
    /// The second kernel's.
    pub last1: Signal<In, Bits<N>>,
    /// The candidates' tier: 1 draining, 2 boundary, 3 all eligible, 0 none.
    pub tier: Signal<Out, Bits<2>>,
    /// The chosen kernel is the second.
    pub second: Signal<Out, Bit>,
    /// Its candidates.
    pub mine: Signal<Out, Bits<N>>,
    /// Its last grant.
    pub last: Signal<Out, Bits<N>>,
    /// The kernel LRR does not favour has an eligible warp (`prio` flips).
    pub flip: Signal<Out, Bit>,
    in_tail: Signal<Local, Bits<N>>,
    draining: Signal<Local, Bits<N>>,
    bound: Signal<Local, Bits<N>>,
    cand: Signal<Local, Bits<N>>,
    zero: Constant<Bits<N>>,
    tier_drain: Constant<Bits<2>>,
    tier_boundary: Constant<Bits<2>>,
    tier_all: Constant<Bits<2>>,
    tier_none: Constant<Bits<2>>,
}

impl<const N: usize> Default for Candidates<N> {
    fn default() -> Self {
        Self {
            eligible: Default::default(),
            kernel: Default::default(),
            drain: Default::default(),
            boundary: Default::default(),
            tail: Default::default(),
            prio: Default::default(),
            last0: Default::default(),
            last1: Default::default(),
            tier: Default::default(),
            second: Default::default(),
            mine: Default::default(),
            last: Default::default(),
            flip: Default::default(),
            in_tail: Default::default(),
            draining: Default::default(),
            bound: Default::default(),
            cand: Default::default(),
            zero: constant(0),
            tier_drain: constant(1),
            tier_boundary: constant(2),
            tier_all: constant(3),
            tier_none: constant(0),
        }
    }
}

impl<const N: usize> Logic for Candidates<N> {
    #[hdl_gen]
    fn update(&mut self) {
        // Draining warps, else boundary warps of a kernel in its tail, else every eligible one.
        self.in_tail.next = self.zero.val();
        if self.tail.val().get_bit(0) {
            self.in_tail.next = self.in_tail.val() | !self.kernel.val();
        }
        if self.tail.val().get_bit(1) {
            self.in_tail.next = self.in_tail.val() | self.kernel.val();
        }
        self.draining.next = self.eligible.val() & self.drain.val();
        self.bound.next = self.eligible.val() & self.boundary.val() & self.in_tail.val();
        self.cand.next = self.eligible.val();
        self.tier.next = self.tier_none.val();
        if self.eligible.val().any() {
            self.tier.next = self.tier_all.val();
        }
        if self.bound.val().any() {
            self.cand.next = self.bound.val();
            self.tier.next = self.tier_boundary.val();
        }
        if self.draining.val().any() {
            self.cand.next = self.draining.val();
            self.tier.next = self.tier_drain.val();
        }
        // LRR: prio's kernel when it has a candidate, else the other.
        self.second.next = !(self.cand.val() & !self.kernel.val()).any();
        if self.prio.val() {
            self.second.next = (self.cand.val() & self.kernel.val()).any();
        }
        self.mine.next = self.cand.val() & !self.kernel.val();
        self.last.next = self.last0.val();
        if self.second.val() {
            self.mine.next = self.cand.val() & self.kernel.val();
            self.last.next = self.last1.val();
        }
        self.flip.next = (self.eligible.val() & self.kernel.val()).any();
        if self.prio.val() {
            self.flip.next = (self.eligible.val() & !self.kernel.val()).any();
        }
    }
}
