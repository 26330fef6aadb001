//! RTL of PAWS's issue select for one warp scheduler. Behaviour, ports and cycle timing are
//! specified in `gpusim::blocks::paws`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `ready`, `launch`, `exit` | in | N | as the warp arbiter's |
//! | `upd_valid`, `upd_warp`, `upd_idx`, `upd_far` | in | 1, B, A, 1 | the next instruction of the warp issued last cycle |
//! | `tw_en`, `tw_idx`, `tw_dist` | in | 1, A, 16 | table write |
//! | `grant_valid` | out | 1 | a warp is granted (combinational) |
//! | `grant_warp` | out | B | the granted warp, 0 if none |
//!
//! State: the table, `2^A` 16-bit entries in a [`Ram`] (block RAM; read at the update's edge,
//! its word out in the next cycle); per warp its distance (N x 16 flip-flops); the entry
//! distance (16); the update read (valid, warp, far: 2 + B); `live` (N) and an [`AgeMatrix`]
//! (N x N). The select: each warp's distance, or the word just read for the warp updated last
//! cycle (a 2:1 mux per warp), into a [`MinSet`] (the eligible warps of the smallest distance,
//! one 16-bit comparator deep), whose output is the age matrix's request: the oldest of them is
//! granted, encoded by a [`OneHotIndex`].

use crate::consts::{constant, index_table};
use crate::prim::{AgeMatrix, OneHotIndex, Ram};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

mod min_set;
pub use min_set::{min_set_golden, MinSet};

#[cfg(test)]
mod tests;

/// The select for `N` warps with `B`-bit warp ids and a table of `2^A` entries.
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
    ram: Ram<16, A>,
    dist: [DFF<Bits<16>>; N],
    entry: DFF<Bits<16>>,
    q_valid: DFF<Bit>,
    q_warp: DFF<Bits<B>>,
    q_far: DFF<Bit>,
    live: DFF<Bits<N>>,
    age: AgeMatrix<N>,
    closest: MinSet<N, 16>,
    encode: OneHotIndex<N, B>,
    /// The word read for last cycle's update (the largest distance when `far`).
    landing: Signal<Local, Bits<16>>,
    /// Each warp's distance as the select sees it.
    eff: [Signal<Local, Bits<16>>; N],
    eligible: Signal<Local, Bits<N>>,
    ids: [Constant<Bits<B>>; N],
    far: Constant<Bits<16>>,
    idx0: Constant<Bits<A>>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize, const A: usize> Default for Paws<N, B, A> {
    fn default() -> Self {
        assert!((2..=64).contains(&N) && (1usize << B) >= N, "B = clog2(N), N <= 64");
        assert!((1..=16).contains(&A), "1..=16 index bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            upd_valid: Default::default(),
            upd_warp: Default::default(),
            upd_idx: Default::default(),
            upd_far: Default::default(),
            tw_en: Default::default(),
            tw_idx: Default::default(),
            tw_dist: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            ram: Default::default(),
            dist: array_init::array_init(|_| Default::default()),
            entry: Default::default(),
            q_valid: Default::default(),
            q_warp: Default::default(),
            q_far: Default::default(),
            live: Default::default(),
            age: Default::default(),
            closest: Default::default(),
            encode: Default::default(),
            landing: Default::default(),
            eff: array_init::array_init(|_| Default::default()),
            eligible: Default::default(),
            ids: index_table(),
            far: constant(0xffff),
            idx0: constant(0),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Logic for Paws<N, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, entry, q_valid, q_warp, q_far, live);
        // The table: read for this cycle's update, written at kernel launch.
        self.ram.clock.next = self.clock.val();
        self.ram.read_address.next = self.upd_idx.val();
        self.ram.write_address.next = self.tw_idx.val();
        self.ram.write_data.next = self.tw_dist.val();
        self.ram.write_enable.next = self.tw_en.val();
        self.landing.next = self.ram.read_data.val();
        if self.q_far.q.val() {
            self.landing.next = self.far.val();
        }
        // The select: the eligible warps of the smallest distance, the oldest of them.
        self.eligible.next = self.ready.val() & self.live.q.val();
        for i in 0..N {
            self.dist[i].clock.next = self.clock.val();
            self.eff[i].next = self.dist[i].q.val();
            if self.q_valid.q.val() & (self.q_warp.q.val() == self.ids[i].val()) {
                self.eff[i].next = self.landing.val();
            }
            self.closest.key[i].next = self.eff[i].val();
        }
        self.closest.valid.next = self.ready.val() & self.live.q.val();
        self.age.clock.next = self.clock.val();
        self.age.reset.next = self.reset.val();
        self.age.insert.next = self.launch.val();
        self.age.req.next = self.closest.min.val();
        self.encode.onehot.next = self.age.oldest.val();
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.encode.index.val();
        // Next state: the update lands, launched warps take the entry distance.
        for i in 0..N {
            self.dist[i].d.next = self.eff[i].val();
            if self.launch.val().get_bit(i) {
                self.dist[i].d.next = self.entry.q.val();
            }
            if self.reset.val() {
                self.dist[i].d.next = self.far.val();
            }
        }
        self.q_valid.d.next = self.upd_valid.val();
        self.q_warp.d.next = self.upd_warp.val();
        self.q_far.d.next = self.upd_far.val();
        if self.tw_en.val() & (self.tw_idx.val() == self.idx0.val()) {
            self.entry.d.next = self.tw_dist.val();
        }
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.entry.d.next = self.far.val();
            self.q_valid.d.next = false;
            self.live.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Clocked for Paws<N, B, A> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi`: 24 warps per scheduler (the GTX 480's 48 over 2), 1024 table entries.
pub type BaseFermi = Paws<24, 5, 10>;
/// `proto`: 8 warps, 1024 entries.
pub type BaseProto = Paws<8, 3, 10>;

/// The select's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "paws";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
