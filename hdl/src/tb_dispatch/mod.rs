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
//! * `before_s`: how many wanting SMs come before SM `s` in visit order, from one
//!   [`PrefixCount`] over `2N` positions laid out in visit order (position `s`: SM `s` wanting
//!   and in `after`; position `N + s`: wanting and not), so `before_s` is position `s` or
//!   `N + s`'s count (a mux, no adder) and the prefix's total is `W`, the wanting SMs;
//! * from registers only, beside the prefix: `left = total - next_id` saturated to `C` bits
//!   (`lsat`), and the quota `q` of grants in this cycle's visit: `lsat` blocks (LRR) or
//!   `lsat / 2` pairs (BCS); SM `s` takes when `before_s < q`; BCS's odd last block goes to the
//!   first SM in visit order with room and `before_s == q`: the one whose nearest SM with room
//!   before it in visit order wants (or has none), from a scan beside the prefix count;
//! * `id_s = next_id + before_s` (pairs: `+ 2 before_s`) and the new `next_id` add a `C`-bit
//!   count to the 32-bit register in two parts: a `C + 1`-bit sum of the low bits, whose carry
//!   picks the high part or the high part plus one (both from registers);
//! * `idle` = every block granted = the blocks granted now (`min(W, q)`, doubled for pairs,
//!   plus the odd block) are at least `left`: `W >= q`, and the odd block when one is due;
//! * the new `after`, the SMs above the last grant in visit order, without waiting for the
//!   grants: the last grant is the `r`-th wanting SM in visit order (`r = min(W, q)`), so the
//!   SMs after it in visit order are those with `before_s >= r` (`!take`, or `before_s >= W`
//!   when every wanting SM takes, beside it), and by index, the SMs of `after` among them if
//!   it is in `after` (at least `r` wanting SMs there), else all of `after` and them; BCS's odd
//!   block, when there is one, is last, and the SMs after it come from the same scan.

use crate::consts::constant;
use crate::prim::PrefixCount;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The dispatcher for `N` SMs (`B = clog2(N)` bits of SM index; `C` bits of block counts with
/// `2^C >= 2N + 3`; `M = 2N` prefix positions; `C1 = C + 1`); `BCS` = 1 for BCS, 0 for LRR.
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
    /// Wanting SMs counted in visit order (positions `0..N` in `after`, `N..2N` not).
    prefix: PrefixCount<M, C>,
    lanes: Signal<Local, Bits<M>>,
    want: Signal<Local, Bits<N>>,
    /// Per SM: wanting SMs before it in visit order.
    before: [Signal<Local, Bits<C>>; N],
    left: Signal<Local, Bits<32>>,
    left_big: Signal<Local, Bit>,
    lsat: Signal<Local, Bits<C>>,
    /// This visit's quota of grants (blocks, or pairs).
    quota: Signal<Local, Bits<C>>,
    /// Every wanting SM takes (`W <= quota`).
    all: Signal<Local, Bit>,
    take: Signal<Local, Bits<N>>,
    /// Per SM: `before_s == quota`.
    odd: Signal<Local, Bits<N>>,
    /// SMs with room in visit order (positions as `lanes`).
    lanes_room: Signal<Local, Bits<M>>,
    /// Exclusive scan in visit order: some position before has room (`scan_v`); the nearest
    /// such position wants (`scan_w`). Kogge-Stone, `log2(2N)` levels of a 2:1 mux.
    scan_v: Signal<Local, Bits<M>>,
    scan_w: Signal<Local, Bits<M>>,
    /// Per SM: some SM before it in visit order has room; the nearest one wants.
    prev_v: Signal<Local, Bits<N>>,
    prev_w: Signal<Local, Bits<N>>,
    /// BCS's odd block: the SM receiving it (one-hot or none), whether it is in `after`, and
    /// the SMs after it in visit order.
    single: Signal<Local, Bits<N>>,
    odd_any: Signal<Local, Bit>,
    odd_in_after: Signal<Local, Bit>,
    /// Some SM has room; the last one in visit order wants; the last one in `after` does not.
    last_v: Signal<Local, Bit>,
    last_w: Signal<Local, Bit>,
    after_last_nw: Signal<Local, Bit>,
    past_odd: Signal<Local, Bits<N>>,
    /// The SMs after the last wanting one in visit order (`before_s >= W`).
    past_all: Signal<Local, Bits<N>>,
    /// The SMs after the last grant in visit order; the last grant is in `after`.
    past: Signal<Local, Bits<N>>,
    in_after: Signal<Local, Bit>,
    /// Wanting SMs in `after`.
    after_wanting: Signal<Local, Bits<C>>,
    /// Grants (blocks, or pairs) in this visit, `min(W, quota)`; the blocks they grant (the
    /// odd block not counted: it is the kernel's last).
    cnt_base: Signal<Local, Bits<C>>,
    cnt: Signal<Local, Bits<C>>,
    /// `next_id` split: low `C` bits (as `C + 1` bits), high part, high part + `2^C`.
    base_lo: Signal<Local, Bits<C1>>,
    base_hi: Signal<Local, Bits<32>>,
    base_hi1: Signal<Local, Bits<32>>,
    /// Per SM: its first block's offset from `next_id` (`before`, doubled in pairs) as `C + 1`
    /// bits, the second's, and `base_lo` plus them.
    ext: [Signal<Local, Bits<C1>>; N],
    ext2: [Signal<Local, Bits<C1>>; N],
    lo: [Signal<Local, Bits<C1>>; N],
    lo2: [Signal<Local, Bits<C1>>; N],
    cnt_ext: Signal<Local, Bits<C1>>,
    next_lo: Signal<Local, Bits<C1>>,
    /// `next_id` plus the blocks granted now.
    next_val: Signal<Local, Bits<32>>,
    bcs: Constant<Bit>,
    zero32: Constant<Bits<32>>,
    max_c: Constant<Bits<C>>,
    max_c32: Constant<Bits<32>>,
    low_mask32: Constant<Bits<32>>,
    low_mask1: Constant<Bits<C1>>,
    /// Bit `C` of a `C + 1`-bit sum: its carry.
    carry: Constant<Bits<C1>>,
    step_hi: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    zero_n: Constant<Bits<N>>,
    zero_m: Constant<Bits<M>>,
    zero_c: Constant<Bits<C>>,
    zero_c1: Constant<Bits<C1>>,
    one_c1: Constant<Bits<C1>>,
    sh: [Constant<Bits<8>>; 8],
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
        assert!((1usize << C) > 2 * N + 2 && C < 32 && M == 2 * N && C1 == C + 1);
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
            prefix: Default::default(),
            lanes: Default::default(),
            want: Default::default(),
            before: array_init::array_init(|_| Default::default()),
            left: Default::default(),
            left_big: Default::default(),
            lsat: Default::default(),
            quota: Default::default(),
            all: Default::default(),
            take: Default::default(),
            odd: Default::default(),
            lanes_room: Default::default(),
            scan_v: Default::default(),
            scan_w: Default::default(),
            prev_v: Default::default(),
            prev_w: Default::default(),
            single: Default::default(),
            odd_any: Default::default(),
            odd_in_after: Default::default(),
            last_v: Default::default(),
            last_w: Default::default(),
            after_last_nw: Default::default(),
            past_odd: Default::default(),
            past_all: Default::default(),
            past: Default::default(),
            in_after: Default::default(),
            after_wanting: Default::default(),
            cnt_base: Default::default(),
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
            bcs: Constant::new(BCS == 1),
            zero32: constant(0),
            max_c: constant((1 << C) - 1),
            max_c32: constant((1 << C) - 1),
            low_mask32: constant((1 << C) - 1),
            low_mask1: constant((1 << C) - 1),
            carry: constant(1 << C),
            step_hi: constant(1 << C),
            one8: constant(1),
            zero_n: constant(0),
            zero_m: constant(0),
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
        // The wanting SMs in visit order: position s for SMs in `after`, N + s for the others.
        self.lanes.next = self.zero_m.val();
        self.lanes_room.next = self.zero_m.val();
        for n in N..(N + 1) {
            for s in 0..N {
                self.lanes.next = self.lanes.val().replace_bit(
                    s,
                    self.want.val().get_bit(s) & self.after.q.val().get_bit(s),
                );
                self.lanes.next = self.lanes.val().replace_bit(
                    n + s,
                    self.want.val().get_bit(s) & !self.after.q.val().get_bit(s),
                );
                self.lanes_room.next = self.lanes_room.val().replace_bit(
                    s,
                    self.room.val().get_bit(s) & self.after.q.val().get_bit(s),
                );
                self.lanes_room.next = self.lanes_room.val().replace_bit(
                    n + s,
                    self.room.val().get_bit(s) & !self.after.q.val().get_bit(s),
                );
            }
        }
        self.prefix.bits.next = self.lanes.val();
        for n in N..(N + 1) {
            for s in 0..N {
                self.before[s].next = self.prefix.before[n + s].val();
                if self.after.q.val().get_bit(s) {
                    self.before[s].next = self.prefix.before[s].val();
                }
            }
        }
        // Blocks left, saturated; this visit's quota: from registers only, beside the prefix.
        self.left.next = self.total_q.q.val() - self.next_id.q.val();
        self.left_big.next = self.left.val() > self.max_c32.val();
        self.lsat.next = self.left.val().get_bits::<C>(0);
        if self.left_big.val() {
            self.lsat.next = self.max_c.val();
        }
        self.quota.next = self.lsat.val();
        if self.pairs.q.val() {
            self.quota.next = self.lsat.val() >> self.sh[0].val();
        }
        self.all.next = self.prefix.total.val() <= self.quota.val();
        self.take.next = self.zero_n.val();
        self.odd.next = self.zero_n.val();
        self.past_all.next = self.zero_n.val();
        for n in N..(N + 1) {
            self.after_wanting.next = self.prefix.before[n].val();
        }
        for s in 0..N {
            self.take.next = self
                .take
                .val()
                .replace_bit(s, self.before[s].val() < self.quota.val());
            self.odd.next = self
                .odd
                .val()
                .replace_bit(s, self.before[s].val() == self.quota.val());
            self.past_all.next = self
                .past_all
                .val()
                .replace_bit(s, self.before[s].val() >= self.prefix.total.val());
        }
        // BCS's odd last block (an odd number left): the first SM in visit order with room
        // once every pair of the quota is granted. The wanting SMs have room, so it is the
        // first SM with room after the `quota`-th wanting one: the SM with room, `before_s ==
        // quota`, and, as the nearest SM with room before it in visit order, a wanting SM (the
        // `quota`-th) or none (`quota == 0`). That neighbour comes from a scan of `room` and
        // `want` beside the prefix count, so no prefix OR follows the count.
        self.scan_v.next = self.lanes_room.val() << self.sh[0].val();
        self.scan_w.next = self.lanes.val() << self.sh[0].val();
        for k in 0..8 {
            self.scan_w.next = (self.scan_v.val() & self.scan_w.val())
                | (!self.scan_v.val() & (self.scan_w.val() << self.sh[k].val()));
            self.scan_v.next = self.scan_v.val() | (self.scan_v.val() << self.sh[k].val());
        }
        self.prev_v.next = self.zero_n.val();
        self.prev_w.next = self.zero_n.val();
        for n in N..(N + 1) {
            for s in 0..N {
                self.prev_v.next = self
                    .prev_v
                    .val()
                    .replace_bit(s, self.scan_v.val().get_bit(n + s));
                self.prev_w.next = self
                    .prev_w
                    .val()
                    .replace_bit(s, self.scan_w.val().get_bit(n + s));
                if self.after.q.val().get_bit(s) {
                    self.prev_v.next = self.prev_v.val().replace_bit(s, self.scan_v.val().get_bit(s));
                    self.prev_w.next = self.prev_w.val().replace_bit(s, self.scan_w.val().get_bit(s));
                }
            }
        }
        self.single.next = self.zero_n.val();
        if self.pairs.q.val() & self.lsat.val().get_bit(0) {
            self.single.next =
                self.room.val() & self.odd.val() & (!self.prev_v.val() | self.prev_w.val());
        }
        // Whether there is one and whether it is in `after`, by count instead of by an OR over
        // `single`: with `W > quota` the `quota + 1`-th wanting SM qualifies; with `W ==
        // quota`, an SM with room after the last wanting one, i.e. the last SM with room in
        // visit order does not want. It is in `after` when more than `quota` wanting SMs are
        // there, or exactly `quota` and the last SM with room in `after` does not want.
        for n in N..(N + 1) {
            for m in M..(M + 1) {
                self.last_v.next = self.scan_v.val().get_bit(m - 1);
                self.last_w.next = self.scan_w.val().get_bit(m - 1);
                if self.lanes_room.val().get_bit(m - 1) {
                    self.last_v.next = true;
                    self.last_w.next = self.lanes.val().get_bit(m - 1);
                }
            }
            self.after_last_nw.next = self.scan_v.val().get_bit(n) & !self.scan_w.val().get_bit(n);
        }
        self.odd_any.next = false;
        if self.pairs.q.val() & self.lsat.val().get_bit(0) {
            self.odd_any.next = (self.prefix.total.val() > self.quota.val())
                | ((self.prefix.total.val() == self.quota.val())
                    & self.last_v.val()
                    & !self.last_w.val());
        }
        self.odd_in_after.next = (self.after_wanting.val() > self.quota.val())
            | ((self.after_wanting.val() == self.quota.val()) & self.after_last_nw.val());
        // After the odd block in visit order: `before_s > quota`, or `before_s == quota` with
        // an SM with room before it that does not want (the odd block's SM or one after it).
        self.past_odd.next = (!self.take.val() & !self.odd.val())
            | (self.odd.val() & self.prev_v.val() & !self.prev_w.val());
        self.cnt_base.next = self.quota.val();
        if self.all.val() {
            self.cnt_base.next = self.prefix.total.val();
        }
        self.cnt.next = self.cnt_base.val();
        if self.pairs.q.val() {
            self.grant.next = (self.want.val() & self.take.val()) | self.single.val();
            self.grant2.next = self.want.val() & self.take.val();
            self.cnt.next = self.cnt.val() << self.sh[0].val();
            // The odd block is not counted: it is the last (`next_id` becomes `total`).
        } else {
            self.grant.next = self.want.val() & self.take.val();
            self.grant2.next = self.zero_n.val();
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
            // In pairs the first block is `2 before` (even): the second is `2 before | 1`.
            if self.pairs.q.val() {
                self.ext[s].next = self.ext[s].val() << self.sh[0].val();
            }
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
        // (`cnt >= lsat` without waiting for `cnt`: at least `quota` grants, and in pairs with
        // an odd number left the odd block too.)
        self.idle.next = !self.left_big.val() & (self.prefix.total.val() >= self.quota.val());
        if self.pairs.q.val() & self.lsat.val().get_bit(0) & !self.odd_any.val() {
            self.idle.next = false;
        }
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
        // BCS's odd block is the kernel's last: then every block is granted.
        if self.odd_any.val() {
            self.next_val.next = self.total_q.q.val();
        }
        self.next_id.d.next = self.next_val.val();
        // The SMs above the last grant: the `r`-th wanting SM in visit order, `r` = `min(W,
        // quota)` grants (pairs). In visit order the SMs after it are those with `before_s >=
        // r`. By index: when it is in `after` (at least `r` wanting SMs there), the SMs above
        // it are those of `after` with `before_s >= r`; otherwise every SM of `after` and the
        // others with `before_s >= r`. `before_s >= r` is `!take` or, when every wanting SM
        // takes, `before_s >= W`, computed beside it. BCS's odd block, when there is one, is
        // the last grant: above it is `above_a` (or `above_b`).
        self.past.next = !self.take.val();
        self.in_after.next = self.after_wanting.val() >= self.quota.val();
        if self.all.val() {
            self.past.next = self.past_all.val();
            self.in_after.next = self.after_wanting.val() == self.prefix.total.val();
        }
        self.after.d.next = self.after.q.val() | self.past.val();
        if self.in_after.val() {
            self.after.d.next = self.after.q.val() & self.past.val();
        }
        if self.cnt_base.val() == self.zero_c.val() {
            self.after.d.next = self.after.q.val();
        }
        if self.odd_any.val() {
            self.after.d.next = self.after.q.val() | self.past_odd.val();
            if self.odd_in_after.val() {
                self.after.d.next = self.after.q.val() & self.past_odd.val();
            }
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
pub type LrrFermi = TbDispatch<15, 4, 6, 0, 30, 7>;
/// BCS, `fermi`.
pub type BcsFermi = TbDispatch<15, 4, 6, 1, 30, 7>;
/// LRR over the 80 SMs of a Titan V (`titanv`).
pub type LrrTitanv = TbDispatch<80, 7, 8, 0, 160, 9>;
/// BCS, `titanv`.
pub type BcsTitanv = TbDispatch<80, 7, 8, 1, 160, 9>;
/// LRR over 4 SMs (`proto`).
pub type LrrProto = TbDispatch<4, 2, 4, 0, 8, 5>;
/// BCS, `proto`.
pub type BcsProto = TbDispatch<4, 2, 4, 1, 8, 5>;

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
