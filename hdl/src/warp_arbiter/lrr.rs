//! Loose round robin: the first eligible warp after the last granted one.

use crate::consts::constant;
use crate::prim::RrArbiter;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// LRR arbiter for `N` warps with `B`-bit warp ids: a [`RrArbiter`] over the eligible warps.
///
/// State: `live` (N) and the round robin's mask of the warps strictly after the last granted
/// one (a thermometer form of the golden model's `last` pointer; reset: empty, i.e. last =
/// N-1). Selection: lowest eligible warp after the last grant, else lowest eligible warp.
#[derive(LogicBlock)]
pub struct ArbiterLrr<const N: usize, const B: usize> {
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
    /// Warps on a long stall: not used by this policy (the port keeps the arbiter contract;
    /// GPGPU-Sim's LRR and GTO never test `islongop`).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// Live warps (LRR chooses among all of them).
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    round_robin: RrArbiter<N, B>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize> Default for ArbiterLrr<N, B> {
    fn default() -> Self {
        assert!(N <= 64 && (1usize << B) >= N, "B must be clog2(N), N <= 64");
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
            round_robin: Default::default(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for ArbiterLrr<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live);
        self.round_robin.clock.next = self.clock.val();
        self.round_robin.reset.next = self.reset.val();
        self.round_robin.req.next = self.ready.val() & self.live.q.val();
        self.round_robin.advance.next = true;
        self.grant_valid.next = self.round_robin.valid.val();
        self.grant_warp.next = self.round_robin.index.val();
        self.active.next = self.live.q.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize> Clocked for ArbiterLrr<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
