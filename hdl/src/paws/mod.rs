//! RTL of PAWS's issue select for one warp scheduler. Behaviour, ports and cycle timing are
//! specified in `gpusim::blocks::paws`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `ready`, `launch`, `exit`, `long_stall` | in | N | as the warp arbiter's (`long_stall` demotes from the two-level active list; unused single level) |
//! | `upd_valid`, `upd_warp`, `upd_idx`, `upd_far` | in | 1, B, A, 1 | the next instruction of the warp issued last cycle |
//! | `tw_en`, `tw_idx`, `tw_dist` | in | 1, A, 16 | table write |
//! | `grant_valid` | out | 1 | a warp is granted (combinational) |
//! | `grant_warp` | out | B | the granted warp, 0 if none |
//!
//! State: the [`Distances`] (the table, `2^A` 16-bit entries in block RAM, and each warp's
//! distance), `live` (N) and the age order (N x N).
//!
//! * Single level ([`Paws`], policy `base`): the distances into a [`MinSet`] (the eligible
//!   warps of the smallest distance, one 16-bit comparator deep), whose output is an
//!   [`AgeMatrix`]'s request: the oldest of them is granted, encoded by a [`OneHotIndex`].
//! * Two-level ([`PawsTwoLevel`], policies `tl` and `tl_inner`): the warp arbiter's
//!   [`TwoLevelLists`] keyed by (waiting, distance), ages from an [`AgeRows`] matrix.

use crate::consts::constant;
use crate::prim::{AgeMatrix, AgeRows, OneHotIndex};
use crate::sim::Clocked;
use crate::warp_arbiter::TwoLevelLists;
use rust_hdl::prelude::*;

mod distances;
mod min_set;
pub use distances::Distances;
pub use min_set::{min_set_golden, MinSet};

#[cfg(test)]
mod tests;

/// The single-level select for `N` warps with `B`-bit warp ids and a table of `2^A` entries.
#[derive(LogicBlock)]
pub struct Paws<const N: usize, const B: usize, const A: usize> {
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
    /// Warps on a long stall: unused single level (the port keeps the block's contract).
    pub long_stall: Signal<In, Bits<N>>,
    /// The next instruction of the warp issued last cycle is reported.
    pub upd_valid: Signal<In, Bit>,
    /// That warp.
    pub upd_warp: Signal<In, Bits<B>>,
    /// The table entry of its next instruction.
    pub upd_idx: Signal<In, Bits<A>>,
    /// Its next instruction is outside the table.
    pub upd_far: Signal<In, Bit>,
    /// Write a table entry at the edge.
    pub tw_en: Signal<In, Bit>,
    /// The entry written.
    pub tw_idx: Signal<In, Bits<A>>,
    /// Its distance.
    pub tw_dist: Signal<In, Bits<16>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    dists: Distances<N, B, A>,
    live: DFF<Bits<N>>,
    age: AgeMatrix<N>,
    closest: MinSet<N, 16>,
    encode: OneHotIndex<N, B>,
    eligible: Signal<Local, Bits<N>>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize, const A: usize> Default for Paws<N, B, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            upd_valid: Default::default(),
            upd_warp: Default::default(),
            upd_idx: Default::default(),
            upd_far: Default::default(),
            tw_en: Default::default(),
            tw_idx: Default::default(),
            tw_dist: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            dists: Default::default(),
            live: Default::default(),
            age: Default::default(),
            closest: Default::default(),
            encode: Default::default(),
            eligible: Default::default(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Logic for Paws<N, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live);
        self.dists.clock.next = self.clock.val();
        self.dists.reset.next = self.reset.val();
        self.dists.launch.next = self.launch.val();
        self.dists.upd_valid.next = self.upd_valid.val();
        self.dists.upd_warp.next = self.upd_warp.val();
        self.dists.upd_idx.next = self.upd_idx.val();
        self.dists.upd_far.next = self.upd_far.val();
        self.dists.tw_en.next = self.tw_en.val();
        self.dists.tw_idx.next = self.tw_idx.val();
        self.dists.tw_dist.next = self.tw_dist.val();
        // The select: the eligible warps of the smallest distance, the oldest of them.
        self.eligible.next = self.ready.val() & self.live.q.val();
        for i in 0..N {
            self.closest.key[i].next = self.dists.dist[i].val();
        }
        self.closest.valid.next = self.ready.val() & self.live.q.val();
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.age.req.next = self.closest.min.val();
        self.encode.onehot.next = self.age.oldest.val();
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.encode.index.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Clocked for Paws<N, B, A> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// The two-level select for `N` warps, `B`-bit ids, `2^A` table entries, `K` active warps,
/// `P = N - K` pending; `I` 1 grants the active warp of the smallest (waiting, distance) key
/// (`tl_inner`), 0 sorts the list by it after a promotion, inner LRR (`tl`). Same ports as
/// [`Paws`].
#[derive(LogicBlock)]
pub struct PawsTwoLevel<
    const N: usize,
    const B: usize,
    const A: usize,
    const K: usize,
    const P: usize,
    const I: usize,
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
    /// The next instruction of the warp issued last cycle is reported.
    pub upd_valid: Signal<In, Bit>,
    /// That warp.
    pub upd_warp: Signal<In, Bits<B>>,
    /// The table entry of its next instruction.
    pub upd_idx: Signal<In, Bits<A>>,
    /// Its next instruction is outside the table.
    pub upd_far: Signal<In, Bit>,
    /// Write a table entry at the edge.
    pub tw_en: Signal<In, Bit>,
    /// The entry written.
    pub tw_idx: Signal<In, Bits<A>>,
    /// Its distance.
    pub tw_dist: Signal<In, Bits<16>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    dists: Distances<N, B, A>,
    live: DFF<Bits<N>>,
    age: AgeRows<N>,
    lists: TwoLevelLists<N, B, K, P, 17>,
    inner: Constant<Bit>,
    sort: Constant<Bit>,
    zero: Constant<Bits<N>>,
    /// The key's top bit: a waiting warp sorts last.
    waiting_key: Constant<Bits<17>>,
    /// Reused per warp: its distance, and its key (rust-hdl's `bit_cast` cannot read a
    /// loop-indexed signal).
    warp_dist: Signal<Local, Bits<16>>,
    key: Signal<Local, Bits<17>>,
}

impl<
        const N: usize,
        const B: usize,
        const A: usize,
        const K: usize,
        const P: usize,
        const I: usize,
    > Default for PawsTwoLevel<N, B, A, K, P, I>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            upd_valid: Default::default(),
            upd_warp: Default::default(),
            upd_idx: Default::default(),
            upd_far: Default::default(),
            tw_en: Default::default(),
            tw_idx: Default::default(),
            tw_dist: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            dists: Default::default(),
            live: Default::default(),
            age: Default::default(),
            lists: Default::default(),
            inner: Constant::new(I == 1),
            sort: Constant::new(I == 0),
            zero: constant(0),
            waiting_key: constant(1 << 16),
            warp_dist: Default::default(),
            key: Default::default(),
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const A: usize,
        const K: usize,
        const P: usize,
        const I: usize,
    > Logic for PawsTwoLevel<N, B, A, K, P, I>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live);
        self.dists.clock.next = self.clock.val();
        self.dists.reset.next = self.reset.val();
        self.dists.launch.next = self.launch.val();
        self.dists.upd_valid.next = self.upd_valid.val();
        self.dists.upd_warp.next = self.upd_warp.val();
        self.dists.upd_idx.next = self.upd_idx.val();
        self.dists.upd_far.next = self.upd_far.val();
        self.dists.tw_en.next = self.tw_en.val();
        self.dists.tw_idx.next = self.tw_idx.val();
        self.dists.tw_dist.next = self.tw_dist.val();
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.lists.clock.next = self.clock.val();
        self.lists.reset.next = self.reset.val();
        self.lists.eligible.next = self.ready.val() & self.live.q.val();
        self.lists.waiting.next = self.long_stall.val() | !self.live.q.val();
        self.lists.inner.next = self.inner.val();
        self.lists.sort.next = self.sort.val();
        for i in 0..N {
            self.warp_dist.next = self.dists.dist[i].val();
            self.key.next = bit_cast::<17, 16>(self.warp_dist.val());
            if self.lists.waiting.val().get_bit(i) {
                self.key.next = self.key.val() | self.waiting_key.val();
            }
            self.lists.key[i].next = self.key.val();
            self.lists.older[i].next = self.age.rows[i].val();
        }
        self.grant_valid.next = self.lists.grant_valid.val();
        self.grant_warp.next = self.lists.grant_warp.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const A: usize,
        const K: usize,
        const P: usize,
        const I: usize,
    > Clocked for PawsTwoLevel<N, B, A, K, P, I>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi`: 24 warps per scheduler (the GTX 480's 48 over 2), 1024 table entries.
pub type BaseFermi = Paws<24, 5, 10>;
/// `proto`: 8 warps, 1024 entries.
pub type BaseProto = Paws<8, 3, 10>;
/// Two-level as the report built it, `fermi`: 6 active warps (the report's ready queue).
pub type TlFermi = PawsTwoLevel<24, 5, 10, 6, 18, 0>;
/// Two-level as the report built it, `proto`: 4 active warps.
pub type TlProto = PawsTwoLevel<8, 3, 10, 4, 4, 0>;
/// Two-level, the smallest distance of the active list, `fermi`.
pub type TlInnerFermi = PawsTwoLevel<24, 5, 10, 6, 18, 1>;
/// Two-level, the smallest distance of the active list, `proto`.
pub type TlInnerProto = PawsTwoLevel<8, 3, 10, 4, 4, 1>;

/// The select's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "paws";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            ("tl", "fermi") => verilog_of::<TlFermi>(module),
            ("tl", "proto") => verilog_of::<TlProto>(module),
            ("tl_inner", "fermi") => verilog_of::<TlInnerFermi>(module),
            ("tl_inner", "proto") => verilog_of::<TlInnerProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
