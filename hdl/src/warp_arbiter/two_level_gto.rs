//! Two-level GTO (TL-GTO): two-level active scheduling whose active list is sorted oldest first
//! when a warp is promoted, inner LRR (the PAWS report's `sort_with_gto`).

use crate::consts::constant;
use crate::prim::AgeRows;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

use super::TwoLevelLists;

/// TL-GTO arbiter for `N` warps with `B`-bit ids, `K` active, `P = N - K` pending.
///
/// State: `live` (N), an [`AgeRows`] matrix of the warps' launch order (N x N) and the
/// [`TwoLevelLists`], sorting after a promotion, whose key is the waiting flag alone, so a sort
/// orders the list not waiting first, then oldest first.
#[derive(LogicBlock)]
pub struct ArbiterTwoLevelGto<
    const N: usize,
    const B: usize,
    const K: usize,
    const P: usize,
> {
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
    /// list (never blocks a grant).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The active list of this cycle (after demotion and promotion), as a warp mask.
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    age: AgeRows<N>,
    lists: TwoLevelLists<N, B, K, P, 1>,
    zero_n: Constant<Bits<N>>,
    yes: Constant<Bit>,
    no: Constant<Bit>,
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Default
    for ArbiterTwoLevelGto<N, B, K, P>
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
            age: Default::default(),
            lists: Default::default(),
            zero_n: constant(0),
            yes: Constant::new(true),
            no: Constant::new(false),
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Logic
    for ArbiterTwoLevelGto<N, B, K, P>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live);
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.lists.clock.next = self.clock.val();
        self.lists.reset.next = self.reset.val();
        self.lists.eligible.next = self.ready.val() & self.live.q.val();
        self.lists.waiting.next = self.long_stall.val() | !self.live.q.val();
        self.lists.sort.next = self.yes.val();
        self.lists.inner.next = self.no.val();
        for i in 0..N {
            self.lists.key[i].next = self.lists.waiting.val().get_bits::<1>(i);
            self.lists.older[i].next = self.age.rows[i].val();
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
    for ArbiterTwoLevelGto<N, B, K, P>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
