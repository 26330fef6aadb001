//! PAWS's distances: the phase-distance table and each warp's distance, as the selects see them.

use crate::consts::{constant, index_table};
use crate::prim::Ram;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The table of `2^A` 16-bit distances in a [`Ram`] (block RAM; read at the update's edge,
/// its word out in the next cycle) and `N` warps' distances (N x 16 flip-flops), with the
/// entry distance (16) and the update read in flight (valid, warp, far: 2 + `B`).
///
/// `dist[i]` is warp `i`'s distance for this cycle's select: its register, or, for the warp
/// updated last cycle, the word just read (the largest distance when `far`), a 2:1 mux per
/// warp. At the edge that value is registered; a launched warp takes the entry distance
/// instead; a table write to entry 0 also sets the entry distance. Reset: every distance and
/// the entry distance the largest, no update in flight (the table is not cleared).
#[derive(LogicBlock)]
pub struct Distances<const N: usize, const B: usize, const A: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps launched this cycle.
    pub launch: Signal<In, Bits<N>>,
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
    /// Each warp's distance as this cycle's select sees it.
    pub dist: [Signal<Out, Bits<16>>; N],
    ram: Ram<16, A>,
    held: [DFF<Bits<16>>; N],
    entry: DFF<Bits<16>>,
    q_valid: DFF<Bit>,
    q_warp: DFF<Bits<B>>,
    q_far: DFF<Bit>,
    /// The word read for last cycle's update (the largest distance when `far`).
    landing: Signal<Local, Bits<16>>,
    /// Reused per warp: its distance this cycle.
    eff: Signal<Local, Bits<16>>,
    ids: [Constant<Bits<B>>; N],
    far: Constant<Bits<16>>,
    idx0: Constant<Bits<A>>,
}

impl<const N: usize, const B: usize, const A: usize> Default for Distances<N, B, A> {
    fn default() -> Self {
        assert!((2..=64).contains(&N) && (1usize << B) >= N, "B = clog2(N), N <= 64");
        assert!((1..=16).contains(&A), "1..=16 index bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            launch: Default::default(),
            upd_valid: Default::default(),
            upd_warp: Default::default(),
            upd_idx: Default::default(),
            upd_far: Default::default(),
            tw_en: Default::default(),
            tw_idx: Default::default(),
            tw_dist: Default::default(),
            dist: array_init::array_init(|_| Default::default()),
            ram: Default::default(),
            held: array_init::array_init(|_| Default::default()),
            entry: Default::default(),
            q_valid: Default::default(),
            q_warp: Default::default(),
            q_far: Default::default(),
            landing: Default::default(),
            eff: Default::default(),
            ids: index_table(),
            far: constant(0xffff),
            idx0: constant(0),
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Logic for Distances<N, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, entry, q_valid, q_warp, q_far);
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
        // Each warp's distance, and its next value: the update lands, a launch takes the
        // entry distance.
        for i in 0..N {
            self.held[i].clock.next = self.clock.val();
            self.eff.next = self.held[i].q.val();
            if self.q_valid.q.val() & (self.q_warp.q.val() == self.ids[i].val()) {
                self.eff.next = self.landing.val();
            }
            self.dist[i].next = self.eff.val();
            self.held[i].d.next = self.eff.val();
            if self.launch.val().get_bit(i) {
                self.held[i].d.next = self.entry.q.val();
            }
            if self.reset.val() {
                self.held[i].d.next = self.far.val();
            }
        }
        self.q_valid.d.next = self.upd_valid.val();
        self.q_warp.d.next = self.upd_warp.val();
        self.q_far.d.next = self.upd_far.val();
        if self.tw_en.val() & (self.tw_idx.val() == self.idx0.val()) {
            self.entry.d.next = self.tw_dist.val();
        }
        if self.reset.val() {
            self.entry.d.next = self.far.val();
            self.q_valid.d.next = false;
        }
    }
}

impl<const N: usize, const B: usize, const A: usize> Clocked for Distances<N, B, A> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
