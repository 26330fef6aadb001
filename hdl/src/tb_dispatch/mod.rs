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
//! State: `next_id`, `total`, `pairs` (BCS with `max_per_sm > 1`, set at `start`), `after` (the
//! SMs above the last SM that received a block: the golden model's `last` as a mask). Visit order is `last+1, ..., N-1, 0, ..., last`:
//! the SMs in `after`, then the others. No signal walks the SMs one after another; every step
//! is a tree or a parallel prefix of depth `log2(N)`, and nothing 32 bits wide follows one:
//! * `want`: the SMs that would take a block (LRR: `room`) or a pair (BCS: `room & room2`);
//! * `before_s`: how many wanting SMs come before SM `s` in visit order: Kogge-Stone
//!   *exclusive* prefix sums in index order of two lanes (the wanting SMs in `after`, the
//!   others) over `N + 1` positions, so that position `N` holds each lane's total; combined as
//!   `after_s ? a_s : total_a + b_s` (one adder after the prefix);
//! * `left = total - next_id`, saturated to `C` bits (`lsat`), and `lsat - 1` come from
//!   registers only, beside the prefix: SM `s` takes a block when `before_s < lsat` (LRR), a
//!   pair when `2 before_s < lsat - 1` (BCS); BCS's odd last block goes to the first SM in
//!   visit order with room and `2 before_s == lsat - 1` (isolated with a prefix OR);
//! * `id_s = next_id + before_s` and the new `next_id` add a `C`-bit count to the 32-bit
//!   register in two parts: a `C + 1`-bit sum of the low bits, whose carry picks the high part
//!   or the high part plus one (both from registers);
//! * `idle` = every block granted = the blocks granted now are at least `left` (`C` bits);
//! * the new `after`: the SMs above the last granted one in visit order: above BCS's odd block
//!   when there is one (the upward prefix OR that isolated it, shifted by one), else a prefix OR
//!   downwards of the granted SMs not in `after`, or of all granted SMs when there are none
//!   (beside the first prefix OR, not after it).

use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The dispatcher for `N` SMs (`B = clog2(N)` bits of SM index; `C` bits of block counts with
/// `2^C >= 2N + 3`; `M = N + 1` prefix positions; `C1 = C + 1`); `BCS` = 1 for BCS, 0 for LRR.
#[derive(LogicBlock)]
pub struct TbDispatch<
    const N: usize,
    const B: usize,
    const C: usize,
    const BCS: usize,
    const M: usize,
    const C1: usize,
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
    /// BCS with more than one resident block per SM: grant in pairs (set at `start`).
    pairs: DFF<Bit>,
    /// The SMs above the last SM that received a block.
    after: DFF<Bits<N>>,
    /// Upward prefix OR of `odd_pick` (every SM at or above its lowest bit).
    scan: Signal<Local, Bits<N>>,
    /// Downward prefix OR of `late` (every SM at or below its highest bit).
    scan_down: Signal<Local, Bits<N>>,
    want: Signal<Local, Bits<N>>,
    /// Per prefix position `p`: SM `p - 1` wanting and in `after` (lane a), wanting and not
    /// (lane b); position 0 is 0.
    lane_a: [Signal<Local, Bits<C>>; M],
    lane_b: [Signal<Local, Bits<C>>; M],
    /// Their inclusive prefix sums = the lanes' exclusive sums per SM (Kogge-Stone).
    sum_a: [Signal<Local, Bits<C>>; M],
    sum_b: [Signal<Local, Bits<C>>; M],
    prev_a: [Signal<Local, Bits<C>>; M],
    prev_b: [Signal<Local, Bits<C>>; M],
    total_after: Signal<Local, Bits<C>>,
    total_rest: Signal<Local, Bits<C>>,
    wanting: Signal<Local, Bits<C>>,
    /// Per SM: blocks granted before it in visit order (if every earlier wanting SM took).
    before: [Signal<Local, Bits<C>>; N],
    left: Signal<Local, Bits<32>>,
    left_big: Signal<Local, Bit>,
    lsat: Signal<Local, Bits<C>>,
    lsat_m1: Signal<Local, Bits<C>>,
    take: Signal<Local, Bits<N>>,
    take2: Signal<Local, Bits<N>>,
    odd: Signal<Local, Bits<N>>,
    odd_pick: Signal<Local, Bits<N>>,
    single: Signal<Local, Bits<N>>,
    cnt: Signal<Local, Bits<C>>,
    /// `next_id` split: low `C` bits (as `C + 1` bits), high part, high part + `2^C`.
    base_lo: Signal<Local, Bits<C1>>,
    base_hi: Signal<Local, Bits<32>>,
    base_hi1: Signal<Local, Bits<32>>,
    /// Per SM: `before` (and `before + 1`) as `C + 1` bits, and `base_lo` plus it.
    ext: [Signal<Local, Bits<C1>>; N],
    ext2: [Signal<Local, Bits<C1>>; N],
    lo: [Signal<Local, Bits<C1>>; N],
    lo2: [Signal<Local, Bits<C1>>; N],
    cnt_ext: Signal<Local, Bits<C1>>,
    next_lo: Signal<Local, Bits<C1>>,
    /// `next_id` plus the blocks granted now.
    next_val: Signal<Local, Bits<32>>,
    late: Signal<Local, Bits<N>>,
    bcs: Constant<Bit>,
    zero32: Constant<Bits<32>>,
    one_c: Constant<Bits<C>>,
    max_c: Constant<Bits<C>>,
    max_c32: Constant<Bits<32>>,
    low_mask32: Constant<Bits<32>>,
    low_mask1: Constant<Bits<C1>>,
    /// Bit `C` of a `C + 1`-bit sum: its carry.
    carry: Constant<Bits<C1>>,
    step_hi: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    zero_n: Constant<Bits<N>>,
    zero_c: Constant<Bits<C>>,
    zero_c1: Constant<Bits<C1>>,
    one_c1: Constant<Bits<C1>>,
    sh: [Constant<Bits<8>>; 7],
}

impl<
        const N: usize,
        const B: usize,
        const C: usize,
        const BCS: usize,
        const M: usize,
        const C1: usize,
    > Default for TbDispatch<N, B, C, BCS, M, C1>
{
    fn default() -> Self {
        assert!((1..=127).contains(&N) && (1usize << B) >= N && BCS <= 1);
        assert!((1usize << C) > 2 * N + 2 && C < 32 && M == N + 1 && C1 == C + 1);
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
            pairs: Default::default(),
            after: Default::default(),
            scan: Default::default(),
            scan_down: Default::default(),
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
            left_big: Default::default(),
            lsat: Default::default(),
            lsat_m1: Default::default(),
            take: Default::default(),
            take2: Default::default(),
            odd: Default::default(),
            odd_pick: Default::default(),
            single: Default::default(),
            cnt: Default::default(),
            base_lo: Default::default(),
            base_hi: Default::default(),
            base_hi1: Default::default(),
            ext: array_init::array_init(|_| Default::default()),
            ext2: array_init::array_init(|_| Default::default()),
            lo: array_init::array_init(|_| Default::default()),
            lo2: array_init::array_init(|_| Default::default()),
            cnt_ext: Default::default(),
            next_lo: Default::default(),
            next_val: Default::default(),
            late: Default::default(),
            bcs: Constant::new(BCS == 1),
            zero32: constant(0),
            one_c: constant(1),
            max_c: constant((1 << C) - 1),
            max_c32: constant((1 << C) - 1),
            low_mask32: constant((1 << C) - 1),
            low_mask1: constant((1 << C) - 1),
            carry: constant(1 << C),
            step_hi: constant(1 << C),
            one8: constant(1),
            zero_n: constant(0),
            zero_c: constant(0),
            zero_c1: constant(0),
            one_c1: constant(1),
            sh: array_init::array_init(|k| constant(1 << k)),
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const C: usize,
        const BCS: usize,
        const M: usize,
        const C1: usize,
    > Logic for TbDispatch<N, B, C, BCS, M, C1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, next_id, total_q, pairs, after);
        self.want.next = self.room.val();
        if self.pairs.q.val() {
            self.want.next = self.room.val() & self.room2.val();
        }
        // Two count lanes, shifted one position up, and their inclusive prefix sums
        // (Kogge-Stone, 7 levels: up to 128 positions; a level whose distance is M or more is
        // a copy): per SM the exclusive sums, at position N the totals.
        self.lane_a[0].next = self.zero_c.val();
        self.lane_b[0].next = self.zero_c.val();
        for s in 1..M {
            self.lane_a[s].next = self.zero_c.val();
            self.lane_b[s].next = self.zero_c.val();
            if self.want.val().get_bit(s - 1) & self.after.q.val().get_bit(s - 1) {
                self.lane_a[s].next = self.one_c.val();
            }
            if self.want.val().get_bit(s - 1) & !self.after.q.val().get_bit(s - 1) {
                self.lane_b[s].next = self.one_c.val();
            }
        }
        for s in 0..M {
            self.sum_a[s].next = self.lane_a[s].val();
            self.sum_b[s].next = self.lane_b[s].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 1..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 1].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 1].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 2..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 2].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 2].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 4..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 4].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 4].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 8..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 8].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 8].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 16..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 16].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 16].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 32..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 32].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 32].val();
        }
        for s in 0..M {
            self.prev_a[s].next = self.sum_a[s].val();
            self.prev_b[s].next = self.sum_b[s].val();
        }
        for s in 64..M {
            self.sum_a[s].next = self.prev_a[s].val() + self.prev_a[s - 64].val();
            self.sum_b[s].next = self.prev_b[s].val() + self.prev_b[s - 64].val();
        }
        for s in N..M {
            self.total_after.next = self.sum_a[s].val();
            self.total_rest.next = self.sum_b[s].val();
        }
        self.wanting.next = self.total_after.val() + self.total_rest.val();
        for s in 0..N {
            if self.after.q.val().get_bit(s) {
                self.before[s].next = self.sum_a[s].val();
            } else {
                self.before[s].next = self.total_after.val() + self.sum_b[s].val();
            }
            if self.pairs.q.val() {
                self.before[s].next = self.before[s].val() << self.sh[0].val();
            }
        }
        // Blocks left, saturated, and one less: from registers only, beside the prefix sums.
        self.left.next = self.total_q.q.val() - self.next_id.q.val();
        self.left_big.next = self.left.val() > self.max_c32.val();
        self.lsat.next = self.left.val().get_bits::<C>(0);
        if self.left_big.val() {
            self.lsat.next = self.max_c.val();
        }
        self.lsat_m1.next = self.lsat.val() - self.one_c.val();
        self.take.next = self.zero_n.val();
        self.take2.next = self.zero_n.val();
        self.odd.next = self.zero_n.val();
        for s in 0..N {
            // before + 2 <= lsat, and before + 1 == lsat, without an adder after `before`.
            self.take.next = self
                .take
                .val()
                .replace_bit(s, self.before[s].val() < self.lsat.val());
            self.take2.next = self.take2.val().replace_bit(
                s,
                (self.lsat.val() > self.one_c.val()) & (self.before[s].val() < self.lsat_m1.val()),
            );
            self.odd.next = self.odd.val().replace_bit(
                s,
                (self.lsat.val() != self.zero_c.val())
                    & (self.before[s].val() == self.lsat_m1.val()),
            );
        }
        // BCS's odd last block: the first SM in visit order with room where one block is left.
        self.odd_pick.next = self.odd.val() & self.room.val() & self.after.q.val();
        if !self.odd_pick.val().any() {
            self.odd_pick.next = self.odd.val() & self.room.val() & !self.after.q.val();
        }
        self.scan.next = self.odd_pick.val();
        for k in 0..7 {
            self.scan.next = self.scan.val() | (self.scan.val() << self.sh[k].val());
        }
        self.single.next = self.odd_pick.val() & !(self.scan.val() << self.sh[0].val());
        if self.pairs.q.val() {
            self.grant.next = (self.want.val() & self.take2.val()) | self.single.val();
            self.grant2.next = self.want.val() & self.take2.val();
            self.cnt.next = self.wanting.val() << self.sh[0].val();
            if (self.lsat.val() >> self.sh[0].val()) < self.wanting.val() {
                self.cnt.next = (self.lsat.val() >> self.sh[0].val()) << self.sh[0].val();
            }
            // `single` has a bit exactly when `odd_pick` has (it keeps the first one).
            if self.odd_pick.val().any() {
                self.cnt.next = self.cnt.val() | self.one_c.val();
            }
        } else {
            self.grant.next = self.want.val() & self.take.val();
            self.grant2.next = self.zero_n.val();
            self.cnt.next = self.wanting.val();
            if self.lsat.val() < self.wanting.val() {
                self.cnt.next = self.lsat.val();
            }
        }
        // next_id + a C-bit count: the low C bits plus the count in C + 1 bits; their carry
        // picks the high part or the high part + 2^C (both from the register).
        self.base_lo.next = self.next_id.q.val().get_bits::<C1>(0) & self.low_mask1.val();
        self.base_hi.next = self.next_id.q.val() & !self.low_mask32.val();
        self.base_hi1.next = self.base_hi.val() + self.step_hi.val();
        for s in 0..N {
            self.ext[s].next = self.zero_c1.val();
            for k in 0..C {
                self.ext[s].next = self.ext[s].val().replace_bit(k, self.before[s].val().get_bit(k));
            }
            // In pairs `before` is even: its second block is `before | 1`.
            self.ext2[s].next = self.ext[s].val() | self.one_c1.val();
            self.lo[s].next = self.base_lo.val() + self.ext[s].val();
            self.lo2[s].next = self.base_lo.val() + self.ext2[s].val();
            self.id[s].next = self.zero32.val();
            self.id2[s].next = self.zero32.val();
            if self.grant.val().get_bit(s) {
                self.id[s].next = self.base_hi.val();
                if (self.lo[s].val() & self.carry.val()).any() {
                    self.id[s].next = self.base_hi1.val();
                }
                for k in 0..C {
                    self.id[s].next = self.id[s].val().replace_bit(k, self.lo[s].val().get_bit(k));
                }
            }
            if self.grant2.val().get_bit(s) {
                self.id2[s].next = self.base_hi.val();
                if (self.lo2[s].val() & self.carry.val()).any() {
                    self.id2[s].next = self.base_hi1.val();
                }
                for k in 0..C {
                    self.id2[s].next =
                        self.id2[s].val().replace_bit(k, self.lo2[s].val().get_bit(k));
                }
            }
        }
        // Every block granted: the blocks granted now cover what was left.
        self.idle.next = !self.left_big.val() & (self.cnt.val() >= self.lsat.val());
        self.cnt_ext.next = self.zero_c1.val();
        for k in 0..C {
            self.cnt_ext.next = self.cnt_ext.val().replace_bit(k, self.cnt.val().get_bit(k));
        }
        self.next_lo.next = self.base_lo.val() + self.cnt_ext.val();
        self.next_val.next = self.base_hi.val();
        if (self.next_lo.val() & self.carry.val()).any() {
            self.next_val.next = self.base_hi1.val();
        }
        for k in 0..C {
            self.next_val.next = self
                .next_val
                .val()
                .replace_bit(k, self.next_lo.val().get_bit(k));
        }
        self.next_id.d.next = self.next_val.val();
        // The SMs above the last granted one in visit order. BCS's odd block, when there is
        // one, is the last grant: the SMs above it are `scan << 1` (the upward prefix OR of
        // `odd_pick` already computed). Otherwise: above the highest granted SM not in `after`
        // if any, else above the highest granted SM (a downward prefix OR of the grants
        // without the odd block, beside the first one).
        self.late.next = self.grant2.val() & !self.after.q.val();
        if !self.pairs.q.val() {
            self.late.next = self.grant.val() & !self.after.q.val();
        }
        if !self.late.val().any() {
            self.late.next = self.grant2.val();
            if !self.pairs.q.val() {
                self.late.next = self.grant.val();
            }
        }
        self.scan_down.next = self.late.val();
        for k in 0..7 {
            self.scan_down.next = self.scan_down.val() | (self.scan_down.val() >> self.sh[k].val());
        }
        self.after.d.next = self.after.q.val();
        if self.late.val().any() {
            self.after.d.next = !self.scan_down.val();
        }
        if self.pairs.q.val() & self.odd_pick.val().any() {
            self.after.d.next = self.scan.val() << self.sh[0].val();
        }
        if self.start.val() {
            self.next_id.d.next = self.zero32.val();
            self.total_q.d.next = self.total.val();
            self.pairs.d.next = self.bcs.val() & (self.max_per_sm.val() > self.one8.val());
            self.after.d.next = self.zero_n.val();
        }
        if self.reset.val() {
            self.next_id.d.next = self.zero32.val();
            self.total_q.d.next = self.zero32.val();
            self.pairs.d.next = false;
            self.after.d.next = self.zero_n.val();
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const C: usize,
        const BCS: usize,
        const M: usize,
        const C1: usize,
    > Clocked for TbDispatch<N, B, C, BCS, M, C1>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// LRR over the 15 SMs of a GTX 480 (`fermi`).
pub type LrrFermi = TbDispatch<15, 4, 6, 0, 16, 7>;
/// BCS, `fermi`.
pub type BcsFermi = TbDispatch<15, 4, 6, 1, 16, 7>;
/// LRR over the 80 SMs of a Titan V (`titanv`).
pub type LrrTitanv = TbDispatch<80, 7, 8, 0, 81, 9>;
/// BCS, `titanv`.
pub type BcsTitanv = TbDispatch<80, 7, 8, 1, 81, 9>;
/// LRR over 4 SMs (`proto`).
pub type LrrProto = TbDispatch<4, 2, 4, 0, 5, 5>;
/// BCS, `proto`.
pub type BcsProto = TbDispatch<4, 2, 4, 1, 5, 5>;

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
