//! RTL of the thread-block dispatcher. Behaviour, ports and cycle timing are specified in
//! `gpusim::blocks::tb_dispatch`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `start` | in | 1 | a kernel starts (with `total`, `max_per_sm`) |
//! | `total` | in | 32 | its thread blocks |
//! | `max_per_sm` | in | 8 | its resident blocks per SM |
//! | `room`, `room2` | in | N | SMs with room for one / two more blocks |
//! | `grant`, `grant2` | out | N | SMs receiving block `id_s` / also `id2_s` |
//! | `id_0..id_{N-1}`, `id2_0..` | out | 32 | the granted block ids per SM (0 without a grant) |
//! | `idle` | out | 1 | every block granted |
//!
//! State: `next_id`, `total`, `max_per_sm`, `last` (the last SM that received a block). The
//! grants walk the SMs in visit order `last+1, ..., N-1, 0, ..., last` as two passes over the SM
//! index (the SMs after `last`, a thermometer mask, then the others), each SM taking one block (LRR; BCS with one
//! block left) or a pair (BCS) while blocks are left.

use crate::consts::{constant, index_table, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The dispatcher for `N` SMs (`B = clog2(N)` bits of SM index); `BCS` = 1 for BCS, 0 for
/// LRR.
#[derive(LogicBlock)]
pub struct TbDispatch<const N: usize, const B: usize, const BCS: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A kernel starts.
    pub start: Signal<In, Bit>,
    /// Its thread blocks.
    pub total: Signal<In, Bits<32>>,
    /// Its resident blocks per SM.
    pub max_per_sm: Signal<In, Bits<8>>,
    /// SMs with room for one more block.
    pub room: Signal<In, Bits<N>>,
    /// SMs with room for two more blocks.
    pub room2: Signal<In, Bits<N>>,
    /// SMs receiving block `id_s`.
    pub grant: Signal<Out, Bits<N>>,
    /// SMs receiving block `id2_s` too.
    pub grant2: Signal<Out, Bits<N>>,
    /// Per SM: the block granted by `grant`.
    pub id: [Signal<Out, Bits<32>>; N],
    /// Per SM: the block granted by `grant2`.
    pub id2: [Signal<Out, Bits<32>>; N],
    /// Every block granted.
    pub idle: Signal<Out, Bit>,
    next_id: DFF<Bits<32>>,
    total_q: DFF<Bits<32>>,
    maxp: DFF<Bits<8>>,
    last: DFF<Bits<B>>,
    both: Signal<Local, Bits<N>>,
    pairs: Signal<Local, Bit>,
    last_oh: Signal<Local, Bits<N>>,
    after: Signal<Local, Bits<N>>,
    left: Signal<Local, Bits<32>>,
    cnt: Signal<Local, Bits<32>>,
    rem: Signal<Local, Bits<32>>,
    new_last: Signal<Local, Bits<B>>,
    bcs: Constant<Bit>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    zero_n: Constant<Bits<N>>,
    one_n: Constant<Bits<N>>,
    last_sm: Constant<Bits<B>>,
    ids: [Constant<Bits<B>>; N],
    onehots: [Constant<Bits<N>>; N],
}

impl<const N: usize, const B: usize, const BCS: usize> Default for TbDispatch<N, B, BCS> {
    fn default() -> Self {
        assert!((1..=128).contains(&N) && (1usize << B) >= N && BCS <= 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            total: Default::default(),
            max_per_sm: Default::default(),
            room: Default::default(),
            room2: Default::default(),
            grant: Default::default(),
            grant2: Default::default(),
            id: array_init::array_init(|_| Default::default()),
            id2: array_init::array_init(|_| Default::default()),
            idle: Default::default(),
            next_id: Default::default(),
            total_q: Default::default(),
            maxp: Default::default(),
            last: Default::default(),
            both: Default::default(),
            pairs: Default::default(),
            last_oh: Default::default(),
            after: Default::default(),
            left: Default::default(),
            cnt: Default::default(),
            rem: Default::default(),
            new_last: Default::default(),
            bcs: Constant::new(BCS == 1),
            zero32: constant(0),
            one32: constant(1),
            two32: constant(2),
            one8: constant(1),
            zero_n: constant(0),
            one_n: constant(1),
            last_sm: constant(N as u64 - 1),
            ids: index_table(),
            onehots: onehot_table(),
        }
    }
}

impl<const N: usize, const B: usize, const BCS: usize> Logic for TbDispatch<N, B, BCS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, next_id, total_q, maxp, last);
        self.both.next = self.room2.val() & self.room.val();
        self.pairs.next = self.bcs.val() & (self.maxp.q.val() > self.one8.val());
        // Visit order: the SMs after `last` (none when `last` is the last SM), then the rest.
        self.last_oh.next = self.zero_n.val();
        for s in 0..N {
            if self.last.q.val() == self.ids[s].val() {
                self.last_oh.next = self.onehots[s].val();
            }
        }
        self.after.next = !(self.last_oh.val() | (self.last_oh.val() - self.one_n.val()));
        self.rem.next = self.zero32.val();
        self.left.next = self.total_q.q.val() - self.next_id.q.val();
        self.cnt.next = self.zero32.val();
        self.new_last.next = self.last.q.val();
        self.grant.next = self.zero_n.val();
        self.grant2.next = self.zero_n.val();
        for s in 0..N {
            self.id[s].next = self.zero32.val();
            self.id2[s].next = self.zero32.val();
        }
        // Pass 1: SMs after `last`.
        for s in 0..N {
            if self.after.val().get_bit(s) {
                self.rem.next = self.left.val() - self.cnt.val();
                if self.rem.val().any() {
                    if self.pairs.val() & (self.rem.val() != self.one32.val()) {
                        if self.both.val().get_bit(s) {
                            self.grant.next = self.grant.val() | self.onehots[s].val();
                            self.grant2.next = self.grant2.val() | self.onehots[s].val();
                            self.id[s].next = self.next_id.q.val() + self.cnt.val();
                            self.id2[s].next =
                                self.next_id.q.val() + self.cnt.val() + self.one32.val();
                            self.cnt.next = self.cnt.val() + self.two32.val();
                            self.new_last.next = self.ids[s].val();
                        }
                    } else if self.room.val().get_bit(s) {
                        self.grant.next = self.grant.val() | self.onehots[s].val();
                        self.id[s].next = self.next_id.q.val() + self.cnt.val();
                        self.cnt.next = self.cnt.val() + self.one32.val();
                        self.new_last.next = self.ids[s].val();
                    }
                }
            }
        }
        // Pass 2: SMs up to `last` (the same step).
        for s in 0..N {
            if !self.after.val().get_bit(s) {
                self.rem.next = self.left.val() - self.cnt.val();
                if self.rem.val().any() {
                    if self.pairs.val() & (self.rem.val() != self.one32.val()) {
                        if self.both.val().get_bit(s) {
                            self.grant.next = self.grant.val() | self.onehots[s].val();
                            self.grant2.next = self.grant2.val() | self.onehots[s].val();
                            self.id[s].next = self.next_id.q.val() + self.cnt.val();
                            self.id2[s].next =
                                self.next_id.q.val() + self.cnt.val() + self.one32.val();
                            self.cnt.next = self.cnt.val() + self.two32.val();
                            self.new_last.next = self.ids[s].val();
                        }
                    } else if self.room.val().get_bit(s) {
                        self.grant.next = self.grant.val() | self.onehots[s].val();
                        self.id[s].next = self.next_id.q.val() + self.cnt.val();
                        self.cnt.next = self.cnt.val() + self.one32.val();
                        self.new_last.next = self.ids[s].val();
                    }
                }
            }
        }
        self.idle.next = (self.next_id.q.val() + self.cnt.val()) >= self.total_q.q.val();
        self.next_id.d.next = self.next_id.q.val() + self.cnt.val();
        self.last.d.next = self.new_last.val();
        if self.start.val() {
            self.next_id.d.next = self.zero32.val();
            self.total_q.d.next = self.total.val();
            self.maxp.d.next = self.max_per_sm.val();
            self.last.d.next = self.last_sm.val();
        }
        if self.reset.val() {
            self.next_id.d.next = self.zero32.val();
            self.total_q.d.next = self.zero32.val();
            self.maxp.d.next = self.zero32.val().get_bits::<8>(0);
            self.last.d.next = self.last_sm.val();
        }
    }
}

impl<const N: usize, const B: usize, const BCS: usize> Clocked for TbDispatch<N, B, BCS> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// LRR over the 15 SMs of a GTX 480 (`fermi`).
pub type LrrFermi = TbDispatch<15, 4, 0>;
/// BCS, `fermi`.
pub type BcsFermi = TbDispatch<15, 4, 1>;
/// LRR over the 80 SMs of a Titan V (`titanv`).
pub type LrrTitanv = TbDispatch<80, 7, 0>;
/// BCS, `titanv`.
pub type BcsTitanv = TbDispatch<80, 7, 1>;
/// LRR over 4 SMs (`proto`).
pub type LrrProto = TbDispatch<4, 2, 0>;
/// BCS, `proto`.
pub type BcsProto = TbDispatch<4, 2, 1>;

/// The dispatcher's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "tb_dispatch";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("lrr", "fermi") => verilog_of::<LrrFermi>(module),
            ("bcs", "fermi") => verilog_of::<BcsFermi>(module),
            ("lrr", "titanv") => verilog_of::<LrrTitanv>(module),
            ("bcs", "titanv") => verilog_of::<BcsTitanv>(module),
            ("lrr", "proto") => verilog_of::<LrrProto>(module),
            ("bcs", "proto") => verilog_of::<BcsProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

#[cfg(test)]
mod tests;
