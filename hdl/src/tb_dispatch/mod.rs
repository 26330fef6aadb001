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
//! State: `next_id`, `total`, `max_per_sm`, `last` (the last SM that received a block).
//! Visit order is `last+1, ..., N-1, 0, ..., last`: the SMs after `last` (mask `after`), then
//! the others. No signal walks the SMs one after another; every step is a tree or a parallel
//! prefix of depth `log2(N)`:
//! * `after`: the SMs above `last`, a prefix OR of `last`'s one-hot;
//! * `want`: the SMs that would take a block (LRR: `room`) or a pair (BCS: `room & room2`);
//! * `before_s`: how many wanting SMs come before SM `s` in visit order: Kogge-Stone prefix
//!   sums in index order of two lanes (the wanting SMs after `last`, the others), combined as
//!   `after_s ? a_s : total_a + b_s`;
//! * with `left = total - next_id` (saturated to `C` bits), SM `s` takes a block when
//!   `before_s < left` (LRR), a pair when `2 before_s + 2 <= left` (BCS); BCS's odd last block goes to
//!   the first SM in visit order with room and `2 before_s + 1 == left` (isolated with a prefix OR);
//! * `id_s = next_id + blocks before s`, `new last` = the last granted SM in visit order (a
//!   prefix OR isolates the highest bit, an OR tree encodes it).

use crate::consts::{constant, index_table, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The dispatcher for `N` SMs (`B = clog2(N)` bits of SM index; `C` bits of block counts with
/// `2^C >= 2N + 3`); `BCS` = 1 for BCS, 0 for LRR.
#[derive(LogicBlock)]
pub struct TbDispatch<
    const N: usize,
    const B: usize,
    const C: usize,
    const BCS: usize,
> {
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
    pairs: Signal<Local, Bit>,
    last_oh: Signal<Local, Bits<N>>,
    scan: Signal<Local, Bits<N>>,
    after: Signal<Local, Bits<N>>,
    want: Signal<Local, Bits<N>>,
    /// Per SM: wanting and after `last` (lane a), wanting and not after (lane b).
    lane_a: [Signal<Local, Bits<C>>; N],
    lane_b: [Signal<Local, Bits<C>>; N],
    /// Inclusive prefix sums of the lanes (Kogge-Stone, level by level).
    sum_a: [Signal<Local, Bits<C>>; N],
    sum_b: [Signal<Local, Bits<C>>; N],
    prev_a: [Signal<Local, Bits<C>>; N],
    prev_b: [Signal<Local, Bits<C>>; N],
    total_after: Signal<Local, Bits<C>>,
    total_rest: Signal<Local, Bits<C>>,
    wanting: Signal<Local, Bits<C>>,
    /// Per SM: blocks granted before it in visit order (if every earlier wanting SM took).
    before: [Signal<Local, Bits<C>>; N],
    left: Signal<Local, Bits<32>>,
    lsat: Signal<Local, Bits<C>>,
    take: Signal<Local, Bits<N>>,
    take2: Signal<Local, Bits<N>>,
    odd: Signal<Local, Bits<N>>,
    odd_pick: Signal<Local, Bits<N>>,
    single: Signal<Local, Bits<N>>,
    cnt: Signal<Local, Bits<C>>,
    /// `before` and `cnt` zero-extended to 32 bits.
    before32: [Signal<Local, Bits<32>>; N],
    cnt32: Signal<Local, Bits<32>>,
    late: Signal<Local, Bits<N>>,
    high: Signal<Local, Bits<N>>,
    new_last: Signal<Local, Bits<B>>,
    bcs: Constant<Bit>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    one_c: Constant<Bits<C>>,
    two_c: Constant<Bits<C>>,
    max_c: Constant<Bits<C>>,
    max_c32: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    zero_n: Constant<Bits<N>>,
    zero_b: Constant<Bits<B>>,
    zero_c: Constant<Bits<C>>,
    last_sm: Constant<Bits<B>>,
    sh: [Constant<Bits<8>>; 7],
    bit32: [Constant<Bits<32>>; C],
    ids: [Constant<Bits<B>>; N],
    onehots: [Constant<Bits<N>>; N],
}

impl<const N: usize, const B: usize, const C: usize, const BCS: usize> Default
    for TbDispatch<N, B, C, BCS>
{
    fn default() -> Self {
        assert!((1..=128).contains(&N) && (1usize << B) >= N && BCS <= 1);
        assert!((1usize << C) > 2 * N + 2 && C <= 32);
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
            pairs: Default::default(),
            last_oh: Default::default(),
            scan: Default::default(),
            after: Default::default(),
            want: Default::default(),
            lane_a: array_init::array_init(|_| Default::default()),
            lane_b: array_init::array_init(|_| Default::default()),
            sum_a: array_init::array_init(|_| Default::default()),
            sum_b: array_init::array_init(|_| Default::default()),
            prev_a: array_init::array_init(|_| Default::default()),
            prev_b: array_init::array_init(|_| Default::default()),
            total_after: Default::default(),
            total_rest: Default::default(),
            wanting: Default::default(),
            before: array_init::array_init(|_| Default::default()),
            left: Default::default(),
            lsat: Default::default(),
            take: Default::default(),
            take2: Default::default(),
            odd: Default::default(),
            odd_pick: Default::default(),
            single: Default::default(),
            cnt: Default::default(),
            before32: array_init::array_init(|_| Default::default()),
            cnt32: Default::default(),
            late: Default::default(),
            high: Default::default(),
            new_last: Default::default(),
            bcs: Constant::new(BCS == 1),
            zero32: constant(0),
            one32: constant(1),
            one_c: constant(1),
            two_c: constant(2),
            max_c: constant((1 << C) - 1),
            max_c32: constant((1 << C) - 1),
            one8: constant(1),
            zero_n: constant(0),
            zero_b: constant(0),
            zero_c: constant(0),
            last_sm: constant(N as u64 - 1),
            sh: array_init::array_init(|k| constant(1 << k)),
            bit32: array_init::array_init(|k| constant(1 << k)),
            ids: index_table(),
            onehots: onehot_table(),
        }
    }
}

impl<const N: usize, const B: usize, const C: usize, const BCS: usize> Logic
    for TbDispatch<N, B, C, BCS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, next_id, total_q, maxp, last);
        self.pairs.next = self.bcs.val() & (self.maxp.q.val() > self.one8.val());
        self.want.next = self.room.val();
        if self.pairs.val() {
            self.want.next = self.room.val() & self.room2.val();
        }
        // The SMs above `last`: a prefix OR (upwards) of its one-hot, without it.
        self.last_oh.next = self.zero_n.val();
        for s in 0..N {
            if self.last.q.val() == self.ids[s].val() {
                self.last_oh.next = self.onehots[s].val();
            }
        }
        self.scan.next = self.last_oh.val();
        for k in 0..7 {
            self.scan.next = self.scan.val() | (self.scan.val() << self.sh[k].val());
        }
        self.after.next = self.scan.val() & !self.last_oh.val();
        // Two count lanes per SM and their inclusive prefix sums (Kogge-Stone, 7 levels: up to
        // 128 SMs; a level whose distance is N or more is a copy).
        for s in 0..N {
            self.lane_a[s].next = self.zero_c.val();
            self.lane_b[s].next = self.zero_c.val();
            if self.want.val().get_bit(s) & self.after.val().get_bit(s) {
                self.lane_a[s].next = self.one_c.val();
            }
            if self.want.val().get_bit(s) & !self.after.val().get_bit(s) {
                self.lane_b[s].next = self.one_c.val();
            }
            self.sum_a[s].next = self.lane_a[s].val();
            self.sum_b[s].next = self.lane_b[s].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 1..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 1].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 1].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 2..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 2].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 2].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 4..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 4].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 4].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 8..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 8].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 8].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 16..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 16].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 16].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 32..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 32].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 32].val();
        }
        for s in 0..N {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 64..N {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 64].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 64].val();
        }
        // The totals are the last SM's sums (the loop leaves `sum[N-1]`: wiring, no logic).
        for s in 0..N {
            self.total_after.next = self.sum_a[s].val();
            self.total_rest.next = self.sum_b[s].val();
        }
        self.wanting.next = self.total_after.val() + self.total_rest.val();
        // Exclusive sums: wanting SMs before s in visit order (blocks before it: x2 for pairs).
        for s in 0..N {
            if self.after.val().get_bit(s) {
                self.before[s].next = self.sum_a[s].val() - self.lane_a[s].val();
            } else {
                self.before[s].next =
                    self.total_after.val() + self.sum_b[s].val() - self.lane_b[s].val();
            }
            if self.pairs.val() {
                self.before[s].next = self.before[s].val() + self.before[s].val();
            }
            self.before32[s].next = self.zero32.val();
            for k in 0..C {
                if self.before[s].val().get_bit(k) {
                    self.before32[s].next = self.before32[s].val() | self.bit32[k].val();
                }
            }
        }
        // Blocks left, saturated: every count compared with it is below `max_c`.
        self.left.next = self.total_q.q.val() - self.next_id.q.val();
        self.lsat.next = self.left.val().get_bits::<C>(0);
        if self.left.val() > self.max_c32.val() {
            self.lsat.next = self.max_c.val();
        }
        self.take.next = self.zero_n.val();
        self.take2.next = self.zero_n.val();
        self.odd.next = self.zero_n.val();
        for s in 0..N {
            if self.before[s].val() < self.lsat.val() {
                self.take.next = self.take.val() | self.onehots[s].val();
            }
            if (self.before[s].val() + self.two_c.val()) <= self.lsat.val() {
                self.take2.next = self.take2.val() | self.onehots[s].val();
            }
            if (self.before[s].val() + self.one_c.val()) == self.lsat.val() {
                self.odd.next = self.odd.val() | self.onehots[s].val();
            }
        }
        // BCS's odd last block: the first SM in visit order with room where one block is left.
        self.odd_pick.next = self.odd.val() & self.room.val() & self.after.val();
        if !self.odd_pick.val().any() {
            self.odd_pick.next = self.odd.val() & self.room.val() & !self.after.val();
        }
        self.scan.next = self.odd_pick.val();
        for k in 0..7 {
            self.scan.next = self.scan.val() | (self.scan.val() << self.sh[k].val());
        }
        self.single.next = self.odd_pick.val() & !(self.scan.val() << self.sh[0].val());
        if self.pairs.val() {
            self.grant.next = (self.want.val() & self.take2.val()) | self.single.val();
            self.grant2.next = self.want.val() & self.take2.val();
            self.cnt.next = self.wanting.val() + self.wanting.val();
            if (self.lsat.val() >> self.sh[0].val()) < self.wanting.val() {
                self.cnt.next = (self.lsat.val() >> self.sh[0].val())
                    + (self.lsat.val() >> self.sh[0].val());
            }
            if self.single.val().any() {
                self.cnt.next = self.cnt.val() + self.one_c.val();
            }
        } else {
            self.grant.next = self.want.val() & self.take.val();
            self.grant2.next = self.zero_n.val();
            self.cnt.next = self.wanting.val();
            if self.lsat.val() < self.wanting.val() {
                self.cnt.next = self.lsat.val();
            }
        }
        for s in 0..N {
            self.id[s].next = self.zero32.val();
            self.id2[s].next = self.zero32.val();
            if self.grant.val().get_bit(s) {
                self.id[s].next = self.next_id.q.val() + self.before32[s].val();
            }
            if self.grant2.val().get_bit(s) {
                self.id2[s].next = self.id[s].val() + self.one32.val();
            }
        }
        // The last granted SM in visit order: the highest granted before `last` if any, else
        // the highest granted after it (prefix OR downwards isolates the highest bit).
        self.late.next = self.grant.val() & !self.after.val();
        if !self.late.val().any() {
            self.late.next = self.grant.val();
        }
        self.scan.next = self.late.val();
        for k in 0..7 {
            self.scan.next = self.scan.val() | (self.scan.val() >> self.sh[k].val());
        }
        self.high.next = self.late.val() & !(self.scan.val() >> self.sh[0].val());
        self.new_last.next = self.zero_b.val();
        for s in 0..N {
            if self.high.val().get_bit(s) {
                self.new_last.next = self.new_last.val() | self.ids[s].val();
            }
        }
        if !self.grant.val().any() {
            self.new_last.next = self.last.q.val();
        }
        self.cnt32.next = self.zero32.val();
        for k in 0..C {
            if self.cnt.val().get_bit(k) {
                self.cnt32.next = self.cnt32.val() | self.bit32[k].val();
            }
        }
        self.idle.next = (self.next_id.q.val() + self.cnt32.val()) >= self.total_q.q.val();
        self.next_id.d.next = self.next_id.q.val() + self.cnt32.val();
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

impl<const N: usize, const B: usize, const C: usize, const BCS: usize> Clocked
    for TbDispatch<N, B, C, BCS>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// LRR over the 15 SMs of a GTX 480 (`fermi`).
pub type LrrFermi = TbDispatch<15, 4, 6, 0>;
/// BCS, `fermi`.
pub type BcsFermi = TbDispatch<15, 4, 6, 1>;
/// LRR over the 80 SMs of a Titan V (`titanv`).
pub type LrrTitanv = TbDispatch<80, 7, 8, 0>;
/// BCS, `titanv`.
pub type BcsTitanv = TbDispatch<80, 7, 8, 1>;
/// LRR over 4 SMs (`proto`).
pub type LrrProto = TbDispatch<4, 2, 4, 0>;
/// BCS, `proto`.
pub type BcsProto = TbDispatch<4, 2, 4, 1>;

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
