//! Two-level active scheduling (GPGPU-Sim `two_level_active:<K>:lrr:srr`).

use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

use super::TwoLevelLists;

/// Two-level arbiter for `N` warps with `B`-bit ids, an active list of `K` entries and a
/// pending FIFO of `P = N - K` entries (`K <= P`, checked at construction): `live` (N) and the
/// [`TwoLevelLists`], never sorted (their sort and smallest-key select tied off, so synthesis
/// removes them).
#[derive(LogicBlock)]
pub struct ArbiterTwoLevel<const N: usize, const B: usize, const K: usize, const P: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps that could issue this cycle.
    pub ready: Signal<In, Bits<N>>,
    /// Warps launched this cycle.
    pub launch: Signal<In, Bits<N>>,
    /// Warps exiting this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Warps at a barrier, exited, or reading a long-op register: demoted from the active
    /// list (never blocks a grant: a warp promoted this cycle can be granted).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The active list of this cycle (after demotion and promotion), as a warp mask.
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    lists: TwoLevelLists<N, B, K, P, 1>,
    zero_n: Constant<Bits<N>>,
    zero_key: Constant<Bits<1>>,
    no: Constant<Bit>,
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Default
    for ArbiterTwoLevel<N, B, K, P>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            active: Default::default(),
            live: Default::default(),
            lists: Default::default(),
            zero_n: constant(0),
            zero_key: constant(0),
            no: Constant::new(false),
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Logic
    for ArbiterTwoLevel<N, B, K, P>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live);
        self.lists.clock.next = self.clock.val();
        self.lists.reset.next = self.reset.val();
        self.lists.eligible.next = self.ready.val() & self.live.q.val();
        self.lists.waiting.next = self.long_stall.val() | !self.live.q.val();
        self.lists.sort.next = self.no.val();
        self.lists.inner.next = self.no.val();
        for i in 0..N {
            self.lists.key[i].next = self.zero_key.val();
            self.lists.older[i].next = self.zero_n.val();
        }
        self.grant_valid.next = self.lists.grant_valid.val();
        self.grant_warp.next = self.lists.grant_warp.val();
        self.active.next = self.lists.active.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero_n.val();
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Clocked
    for ArbiterTwoLevel<N, B, K, P>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
