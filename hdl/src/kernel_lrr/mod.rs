//! RTL of GPU Maestro's kernel-aware warp scheduler. Behaviour, ports and cycle timing are
//! specified in `gpusim::blocks::kernel_lrr`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `ready`, `launch`, `exit` | in | N | as the warp arbiter's |
//! | `kernel` | in | N | the warp is the SM's second kernel's |
//! | `drain` | in | N | its block is being drained |
//! | `boundary` | in | N | its block is its kernel's boundary block |
//! | `tail` | in | 2 | per kernel: no more blocks to dispatch |
//! | `grant_valid` | out | 1 | a warp is granted (combinational) |
//! | `grant_warp` | out | B | the granted warp, 0 if none |
//! | `tier` | out | 2 | the candidates: 1 draining, 2 boundary, 3 all eligible, 0 none |
//!
//! State: `live` (N), `prio` (1 bit: the thesis's whole LRR state, L1319), one one-hot last
//! warp per kernel (2 x N) and one [`AgeMatrix`] (N x N) shared by the kernels: the chosen
//! kernel's candidates are its request, so the oldest is the kernel's oldest. [`Candidates`]
//! gives the tier, the kernel choice (each kernel's "has a candidate" is one OR of N bits, the
//! choice a 2-input mux on `prio`) and that kernel's candidates and last grant.

use crate::consts::constant;
use crate::prim::{AgeMatrix, OneHotIndex};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

mod candidates;
pub use candidates::Candidates;

#[cfg(test)]
mod tests;

/// The scheduler for `N` warps with `B`-bit warp ids.
#[derive(LogicBlock)]
pub struct KernelLrr<const N: usize, const B: usize> {
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
    /// Warps of the SM's second kernel.
    pub kernel: Signal<In, Bits<N>>,
    /// Warps of blocks being drained.
    pub drain: Signal<In, Bits<N>>,
    /// Warps of their kernel's boundary block.
    pub boundary: Signal<In, Bits<N>>,
    /// Per kernel: no more blocks to dispatch.
    pub tail: Signal<In, Bits<2>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The candidates' tier.
    pub tier: Signal<Out, Bits<2>>,
    live: DFF<Bits<N>>,
    prio: DFF<Bit>,
    last0: DFF<Bits<N>>,
    last1: DFF<Bits<N>>,
    age: AgeMatrix<N>,
    encode: OneHotIndex<N, B>,
    choice: Candidates<N>,
    eligible: Signal<Local, Bits<N>>,
    sel: Signal<Local, Bits<N>>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize> Default for KernelLrr<N, B> {
    fn default() -> Self {
        assert!((2..=64).contains(&N) && (1usize << B) >= N, "B = clog2(N), N <= 64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            kernel: Default::default(),
            drain: Default::default(),
            boundary: Default::default(),
            tail: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            tier: Default::default(),
            live: Default::default(),
            prio: Default::default(),
            last0: Default::default(),
            last1: Default::default(),
            age: Default::default(),
            encode: Default::default(),
            choice: Default::default(),
            eligible: Default::default(),
            sel: Default::default(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for KernelLrr<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, prio, last0, last1);
        self.eligible.next = self.ready.val() & self.live.q.val();
        self.choice.eligible.next = self.ready.val() & self.live.q.val();
        self.choice.kernel.next = self.kernel.val();
        self.choice.drain.next = self.drain.val();
        self.choice.boundary.next = self.boundary.val();
        self.choice.tail.next = self.tail.val();
        self.choice.prio.next = self.prio.q.val();
        self.choice.last0.next = self.last0.q.val();
        self.choice.last1.next = self.last1.q.val();
        self.tier.next = self.choice.tier.val();
        // GTO within the chosen kernel: its last grant if a candidate, else its oldest.
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.age.req.next = self.choice.mine.val();
        self.sel.next = self.age.oldest.val();
        if (self.choice.last.val() & self.choice.mine.val()).any() {
            self.sel.next = self.choice.last.val();
        }
        self.encode.onehot.next = self.sel.val();
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.encode.index.val();
        // Next state: the granted kernel's last warp; prio flips when the other kernel has an
        // eligible warp; launches and exits.
        if self.eligible.val().any() & !self.choice.second.val() {
            self.last0.d.next = self.sel.val();
        }
        if self.eligible.val().any() & self.choice.second.val() {
            self.last1.d.next = self.sel.val();
        }
        if self.choice.flip.val() {
            self.prio.d.next = !self.prio.q.val();
        }
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
            self.prio.d.next = false;
            self.last0.d.next = self.zero.val();
            self.last1.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize> Clocked for KernelLrr<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi`: 24 warps per scheduler (the GTX 480's 48 over 2).
pub type BaseFermi = KernelLrr<24, 5>;
/// `gtx980`: 16 warps per scheduler (the GTX 980's 64 over 4, the thesis's GPU).
pub type BaseGtx980 = KernelLrr<16, 4>;
/// `proto`: 8 warps.
pub type BaseProto = KernelLrr<8, 3>;

/// The scheduler's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "kernel_lrr";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "gtx980") => verilog_of::<BaseGtx980>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
