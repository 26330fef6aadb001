//! Loose round robin: the first eligible warp after the last granted one.

use crate::consts::{constant, index_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// LRR arbiter for `N` warps with `B`-bit warp ids.
///
/// State: `live` (N), `above` (N): the warps strictly after the last granted one, a
/// thermometer form of the golden model's `last` pointer (reset: empty, i.e. last = N-1).
/// Selection: lowest eligible warp in `eligible & above`, else lowest eligible warp.
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
    /// Warps waiting on a long-latency operation (never granted).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// Live warps (LRR chooses among all of them).
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    above: DFF<Bits<N>>,
    eligible: Signal<Local, Bits<N>>,
    pick: Signal<Local, Bits<N>>,
    onehot: Signal<Local, Bits<N>>,
    one: Constant<Bits<N>>,
    zero: Constant<Bits<N>>,
    zero_id: Constant<Bits<B>>,
    ids: [Constant<Bits<B>>; N],
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
            above: Default::default(),
            eligible: Default::default(),
            pick: Default::default(),
            onehot: Default::default(),
            one: constant(1),
            zero: constant(0),
            zero_id: constant(0),
            ids: index_table(),
        }
    }
}

impl<const N: usize, const B: usize> Logic for ArbiterLrr<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, above);
        self.eligible.next = self.ready.val() & self.live.q.val() & !self.long_stall.val();
        self.pick.next = self.eligible.val();
        if (self.eligible.val() & self.above.q.val()).any() {
            self.pick.next = self.eligible.val() & self.above.q.val();
        }
        // Isolate the lowest set bit: x & -x.
        self.onehot.next = self.pick.val() & (!self.pick.val() + self.one.val());
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.zero_id.val();
        for i in 0..N {
            if self.onehot.val().get_bit(i) {
                self.grant_warp.next = self.ids[i].val();
            }
        }
        if self.eligible.val().any() {
            // Bits strictly above the granted one.
            self.above.d.next = !(self.onehot.val() | (self.onehot.val() - self.one.val()));
        }
        self.active.next = self.live.q.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
            self.above.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize> Clocked for ArbiterLrr<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
