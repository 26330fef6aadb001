//! Greedy then oldest: the last granted warp if eligible, else the oldest eligible warp.

use crate::consts::constant;
use crate::prim::{AgeMatrix, OneHotIndex};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// GTO arbiter for `N` warps with `B`-bit warp ids.
///
/// State: `live` (N), `last` (N, one-hot; empty after reset) for the greedy warp, and an
/// [`AgeMatrix`] of the warps (N*N flip-flops; reset: index order) into which launched warps
/// are inserted: each becomes younger than every warp not launched with it and than the warps
/// launched with it of lower index. The grant is the last granted warp if eligible, else the
/// oldest eligible warp (the age matrix's row test), encoded by a [`OneHotIndex`].
#[derive(LogicBlock)]
pub struct ArbiterGto<const N: usize, const B: usize> {
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
    /// Live warps (GTO chooses among all of them).
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    last: DFF<Bits<N>>,
    age: AgeMatrix<N>,
    encode: OneHotIndex<N, B>,
    eligible: Signal<Local, Bits<N>>,
    sel: Signal<Local, Bits<N>>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize> Default for ArbiterGto<N, B> {
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
            last: Default::default(),
            age: Default::default(),
            encode: Default::default(),
            eligible: Default::default(),
            sel: Default::default(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for ArbiterGto<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, last);
        self.eligible.next = self.ready.val() & self.live.q.val();
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.age.req.next = self.eligible.val();
        self.sel.next = self.age.oldest.val();
        if (self.last.q.val() & self.eligible.val()).any() {
            self.sel.next = self.last.q.val();
        }
        self.encode.onehot.next = self.sel.val();
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.encode.index.val();
        if self.eligible.val().any() {
            self.last.d.next = self.sel.val();
        }
        self.active.next = self.live.q.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
            self.last.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize> Clocked for ArbiterGto<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
