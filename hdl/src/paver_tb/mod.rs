//! RTL of PAVER's thread-block scheduler. Behaviour, ports and cycle timing are specified in
//! `gpusim::blocks::paver_tb`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `start` | in | 1 | a kernel starts (with `groups`, `steal_mode`, `recipient_idle`) |
//! | `groups` | in | 16 | its groups (`G`) |
//! | `steal_mode` | in | 2 | 0 off, 1 literal, 2 clamp |
//! | `recipient_idle` | in | 1 | a recipient must hold no block |
//! | `room`, `empty` | in | N | SMs with room for a block; SMs holding none |
//! | `rsp_valid`, `rsp_data_s` | in | N, 32 | answers to the SMs' table reads |
//! | `grant`, `id_s` | out | N, 16 | SMs granted block `id_s` |
//! | `req_valid`, `req_group`, `req_addr_s` | out | N, N, 16 | the SMs' table reads |
//! | `assigned` | out | N | SMs assigned a group |
//! | `steal`, `steal_donor`, `steal_to`, `steal_count` | out | 1, 8, 8, 16 | a committed steal |
//! | `idle` | out | 1 | every block granted |
//!
//! Per SM the paper's registers: `next`, `tail`, `ntb` (16 bits each; PTR_W = 16, V-R7) and
//! three flags (`ntb_valid`, `pend`, `pend_group`). Each SM's logic is its own: the responses,
//! the issue, the order read; nothing walks the SMs one after another.
//! * Assignment is the thread-block dispatcher's LRR over groups: a [`TbDispatch`] whose
//!   "blocks" are the group indices and whose `room` is the exhausted SMs (`G` groups, one
//!   per SM per cycle, round robin from the last SM served: V-R5), so the queue head is its
//!   `next_id`. `qempty` registers its `idle`: the queue is empty at the start of the cycle.
//! * The stealer is the paper's serial one (L289-L291): a one-hot `scan` register selects one
//!   SM a cycle; the selected SM's `tail` and `next` are read per bit as an OR tree over the
//!   SMs' masked bits and one subtractor gives its `W` (in the block: a [`crate::prim::OneHotMux`] sub-block fed
//!   from this block's own logic made Verilator see a combinational loop through it); a
//!   16-bit adder accumulates `sum` and
//!   one comparator keeps `max` and the donor (one-hot). Then a [`SerialDivider`] (restoring)
//!   turns `sum` into `sum / N` in place, one quotient bit a cycle for 16 cycles (remainder:
//!   `B + 1` bits).
//!   At the commit the same selects read the donor's `W` and `tail`, an [`RrArbiter`] (reset
//!   with `start`) picks the recipient, and one subtractor gives `tail - S`.

use crate::consts::{constant, onehot_table};
use crate::prim::{OneHotIndex, RrArbiter, SerialDivider};
use crate::sim::Clocked;
use crate::tb_dispatch::TbDispatch;
use rust_hdl::prelude::*;

/// Serial divider cycles (a 16-bit quotient; the golden model's `DIV_CYCLES`).
pub const DIV_CYCLES: usize = 16;

/// The scheduler for `N` SMs (`B = clog2(N)`; the group dispatcher's `C`, `M = 2N`, `C1 = C +
/// 1` as [`TbDispatch`]'s; `RB = B + 1` bits of divider remainder).
#[derive(LogicBlock)]
pub struct PaverTb<
    const N: usize,
    const B: usize,
    const C: usize,
    const M: usize,
    const C1: usize,
    const RB: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A kernel starts.
    pub start: Signal<In, Bit>,
    /// Its groups.
    pub groups: Signal<In, Bits<16>>,
    /// Its stealer mode.
    pub steal_mode: Signal<In, Bits<2>>,
    /// Its recipients must be idle.
    pub recipient_idle: Signal<In, Bit>,
    /// SMs with room for a block.
    pub room: Signal<In, Bits<N>>,
    /// SMs holding no block.
    pub empty: Signal<In, Bits<N>>,
    /// SMs whose read is answered.
    pub rsp_valid: Signal<In, Bits<N>>,
    /// Per SM: the answer.
    pub rsp_data: [Signal<In, Bits<32>>; N],
    /// SMs granted a block.
    pub grant: Signal<Out, Bits<N>>,
    /// Per SM: the block granted.
    pub id: [Signal<Out, Bits<16>>; N],
    /// SMs reading the tables.
    pub req_valid: Signal<Out, Bits<N>>,
    /// SMs reading a group descriptor.
    pub req_group: Signal<Out, Bits<N>>,
    /// Per SM: the address read.
    pub req_addr: [Signal<Out, Bits<16>>; N],
    /// SMs assigned a group.
    pub assigned: Signal<Out, Bits<N>>,
    /// A steal committed.
    pub steal: Signal<Out, Bit>,
    /// Its donor.
    pub steal_donor: Signal<Out, Bits<8>>,
    /// Its recipient.
    pub steal_to: Signal<Out, Bits<8>>,
    /// Its block count.
    pub steal_count: Signal<Out, Bits<16>>,
    /// Every block granted.
    pub idle: Signal<Out, Bit>,
    next: [DFF<Bits<16>>; N],
    tail: [DFF<Bits<16>>; N],
    ntb: [DFF<Bits<16>>; N],
    ntb_valid: DFF<Bits<N>>,
    pend: DFF<Bits<N>>,
    pend_group: DFF<Bits<N>>,
    /// The kernel's stealer mode and recipient rule.
    mode: DFF<Bits<2>>,
    ridle: DFF<Bit>,
    /// The group queue was empty at the end of the last cycle.
    qempty: DFF<Bit>,
    /// Per SM, at the start of the cycle: exhausted with no read outstanding (can take a
    /// group or stolen blocks); exhausted with no group read outstanding.
    free: DFF<Bits<N>>,
    done: DFF<Bits<N>>,
    /// The stolen count and what the donor must still hold, registered a cycle before the
    /// commit.
    s_reg: DFF<Bits<16>>,
    need_reg: DFF<Bits<16>>,
    /// The SM the stealer reads (one-hot; 0 once the scan is over).
    scan: DFF<Bits<N>>,
    /// Divider cycles done.
    div: DFF<Bits<5>>,
    /// `sum`, then its quotient by `N` (the divider's register).
    sum: SerialDivider<16, RB>,
    max: DFF<Bits<16>>,
    donor: DFF<Bits<N>>,
    /// The group queue: LRR of group indices over the exhausted SMs.
    queue: TbDispatch<N, B, C, 0, M, C1>,
    recipient: RrArbiter<N, B>,
    donor_index: OneHotIndex<N, B>,
    /// `groups`, 32 bits wide.
    groups32: Signal<Local, Bits<32>>,
    /// The state after the cycle's responses.
    v_next: [Signal<Local, Bits<16>>; N],
    v_tail: [Signal<Local, Bits<16>>; N],
    v_ntb: [Signal<Local, Bits<16>>; N],
    v_ntb_valid: Signal<Local, Bits<N>>,
    v_pend: Signal<Local, Bits<N>>,
    v_pend_group: Signal<Local, Bits<N>>,
    issue: Signal<Local, Bits<N>>,
    /// The stealer's phases and figures.
    scanning: Signal<Local, Bit>,
    prep: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    running: Signal<Local, Bit>,
    sel: Signal<Local, Bits<N>>,
    /// The selected SM's `W = tail - next`, `tail` and `next` after the responses (0 with no
    /// SM selected).
    w_sel: Signal<Local, Bits<16>>,
    tail_sel: Signal<Local, Bits<16>>,
    next_sel: Signal<Local, Bits<16>>,
    /// One bit of every SM's `next` / `tail`, masked by the select (reused per bit).
    col_n: Signal<Local, Bits<N>>,
    col_t: Signal<Local, Bits<N>>,
    s_raw: Signal<Local, Bits<16>>,
    s_cnt: Signal<Local, Bits<16>>,
    need: Signal<Local, Bits<16>>,
    can_give: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    cut: Signal<Local, Bits<16>>,
    /// The donor's range is empty after the steal (its `W` equals the count).
    donor_empties: Signal<Local, Bit>,
    /// Per SM: `next == tail` after the cycle's issue, and after its steal too.
    eq_plain: Signal<Local, Bits<N>>,
    eq1: Signal<Local, Bits<N>>,
    /// The state after the cycle's updates.
    n1: [Signal<Local, Bits<16>>; N],
    t1: [Signal<Local, Bits<16>>; N],
    ntbv1: Signal<Local, Bits<N>>,
    pend1: Signal<Local, Bits<N>>,
    pg1: Signal<Local, Bits<N>>,
    read: Signal<Local, Bits<N>>,
    done_next: Signal<Local, Bits<N>>,
    onehot: [Constant<Bits<N>>; N],
    zero_n: Constant<Bits<N>>,
    one_n: Constant<Bits<N>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    zero8: Constant<Bits<8>>,
    sh1: Constant<Bits<8>>,
    zero2: Constant<Bits<2>>,
    clamp: Constant<Bits<2>>,
    zero5: Constant<Bits<5>>,
    one5: Constant<Bits<5>>,
    div_end: Constant<Bits<5>>,
    div_prep: Constant<Bits<5>>,
}

impl<const N: usize, const B: usize, const C: usize, const M: usize, const C1: usize, const RB: usize>
    Default for PaverTb<N, B, C, M, C1, RB>
{
    fn default() -> Self {
        assert!((1..=127).contains(&N) && (1usize << B) >= N && RB == B + 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            groups: Default::default(),
            steal_mode: Default::default(),
            recipient_idle: Default::default(),
            room: Default::default(),
            empty: Default::default(),
            rsp_valid: Default::default(),
            rsp_data: array_init::array_init(|_| Default::default()),
            grant: Default::default(),
            id: array_init::array_init(|_| Default::default()),
            req_valid: Default::default(),
            req_group: Default::default(),
            req_addr: array_init::array_init(|_| Default::default()),
            assigned: Default::default(),
            steal: Default::default(),
            steal_donor: Default::default(),
            steal_to: Default::default(),
            steal_count: Default::default(),
            idle: Default::default(),
            next: array_init::array_init(|_| Default::default()),
            tail: array_init::array_init(|_| Default::default()),
            ntb: array_init::array_init(|_| Default::default()),
            ntb_valid: Default::default(),
            pend: Default::default(),
            pend_group: Default::default(),
            mode: Default::default(),
            ridle: Default::default(),
            qempty: Default::default(),
            free: Default::default(),
            done: Default::default(),
            s_reg: Default::default(),
            need_reg: Default::default(),
            scan: Default::default(),
            div: Default::default(),
            sum: SerialDivider::dividing_by(N as u64),
            max: Default::default(),
            donor: Default::default(),
            queue: Default::default(),
            recipient: Default::default(),
            donor_index: Default::default(),
            groups32: Default::default(),
            v_next: array_init::array_init(|_| Default::default()),
            v_tail: array_init::array_init(|_| Default::default()),
            v_ntb: array_init::array_init(|_| Default::default()),
            v_ntb_valid: Default::default(),
            v_pend: Default::default(),
            v_pend_group: Default::default(),
            issue: Default::default(),
            scanning: Default::default(),
            prep: Default::default(),
            commit: Default::default(),
            running: Default::default(),
            sel: Default::default(),
            w_sel: Default::default(),
            tail_sel: Default::default(),
            next_sel: Default::default(),
            col_n: Default::default(),
            col_t: Default::default(),
            s_raw: Default::default(),
            s_cnt: Default::default(),
            need: Default::default(),
            can_give: Default::default(),
            fire: Default::default(),
            cut: Default::default(),
            donor_empties: Default::default(),
            eq_plain: Default::default(),
            eq1: Default::default(),
            n1: array_init::array_init(|_| Default::default()),
            t1: array_init::array_init(|_| Default::default()),
            ntbv1: Default::default(),
            pend1: Default::default(),
            pg1: Default::default(),
            read: Default::default(),
            done_next: Default::default(),
            onehot: onehot_table(),
            zero_n: constant(0),
            one_n: constant(1),
            zero16: constant(0),
            one16: constant(1),
            zero32: constant(0),
            one8: constant(1),
            zero8: constant(0),
            sh1: constant(1),
            zero2: constant(0),
            clamp: constant(2),
            zero5: constant(0),
            one5: constant(1),
            div_end: constant(DIV_CYCLES as u64 + 1),
            div_prep: constant(DIV_CYCLES as u64),
        }
    }
}

impl<const N: usize, const B: usize, const C: usize, const M: usize, const C1: usize, const RB: usize>
    Logic for PaverTb<N, B, C, M, C1, RB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ntb_valid, pend, pend_group, mode, ridle, qempty, free, done, s_reg,
            need_reg, scan, div, max, donor
        );
        self.sum.clock.next = self.clock.val();
        self.sum.clear.next = false;
        self.sum.load.next = false;
        self.sum.step.next = false;
        for s in 0..N {
            self.next[s].clock.next = self.clock.val();
            self.next[s].d.next = self.next[s].q.val();
            self.tail[s].clock.next = self.clock.val();
            self.tail[s].d.next = self.tail[s].q.val();
            self.ntb[s].clock.next = self.clock.val();
            self.ntb[s].d.next = self.ntb[s].q.val();
        }
        // 1. The cycle's responses.
        self.v_ntb_valid.next = self.ntb_valid.q.val();
        self.v_pend.next = self.pend.q.val() & !(self.rsp_valid.val() & self.pend.q.val());
        self.v_pend_group.next = self.pend_group.q.val() & !(self.rsp_valid.val() & self.pend.q.val());
        for s in 0..N {
            self.v_next[s].next = self.next[s].q.val();
            self.v_tail[s].next = self.tail[s].q.val();
            self.v_ntb[s].next = self.ntb[s].q.val();
            if self.rsp_valid.val().get_bit(s) & self.pend.q.val().get_bit(s) {
                if self.pend_group.q.val().get_bit(s) {
                    self.v_next[s].next = self.rsp_data[s].val().get_bits::<16>(0);
                    self.v_tail[s].next = self.rsp_data[s].val().get_bits::<16>(16);
                } else if self.next[s].q.val() != self.tail[s].q.val() {
                    self.v_ntb[s].next = self.rsp_data[s].val().get_bits::<16>(0);
                    self.v_ntb_valid.next = self.v_ntb_valid.val() | self.onehot[s].val();
                }
            }
        }
        // 2. Issue.
        self.issue.next = self.v_ntb_valid.val() & self.room.val();
        self.grant.next = self.issue.val();
        for s in 0..N {
            self.id[s].next = self.zero16.val();
            if self.issue.val().get_bit(s) {
                self.id[s].next = self.v_ntb[s].val();
            }
        }
        // 3. Assignment: LRR of the group indices over the exhausted SMs.
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.queue.start.next = self.start.val();
        self.groups32.next = self.zero32.val();
        for k in 0..16 {
            self.groups32.next = self.groups32.val().replace_bit(k, self.groups.val().get_bit(k));
        }
        self.queue.total.next = self.groups32.val();
        self.queue.max_per_sm.next = self.one8.val();
        self.queue.room.next = self.free.q.val();
        self.queue.room2.next = self.zero_n.val();
        self.assigned.next = self.queue.grant.val();
        // 4. The stealer: scan, divide, commit.
        // Modes 1 (literal) and 2 (clamp) steal; 0 and 3 do not.
        self.running.next =
            self.qempty.q.val() & (self.mode.q.val().get_bit(0) ^ self.mode.q.val().get_bit(1));
        self.scanning.next = self.running.val() & (self.scan.q.val() != self.zero_n.val());
        self.prep.next = self.running.val()
            & (self.scan.q.val() == self.zero_n.val())
            & (self.div.q.val() == self.div_prep.val());
        self.commit.next = self.running.val()
            & (self.scan.q.val() == self.zero_n.val())
            & (self.div.q.val() == self.div_end.val());
        self.sel.next = self.scan.q.val();
        if self.commit.val() {
            self.sel.next = self.donor.q.val();
        }
        // The selected SM's `tail` and `next`: per bit, the column of the selected SMs' bits
        // (each set once) reduced by an OR tree, as `OneHotMux` does; then one subtractor for
        // its `W`.
        self.next_sel.next = self.zero16.val();
        self.tail_sel.next = self.zero16.val();
        for b in 0..16 {
            self.col_n.next = self.zero_n.val();
            self.col_t.next = self.zero_n.val();
            for s in 0..N {
                self.col_n.next = self
                    .col_n
                    .val()
                    .replace_bit(s, self.sel.val().get_bit(s) & self.v_next[s].val().get_bit(b));
                self.col_t.next = self
                    .col_t
                    .val()
                    .replace_bit(s, self.sel.val().get_bit(s) & self.v_tail[s].val().get_bit(b));
            }
            self.next_sel.next = self.next_sel.val().replace_bit(b, self.col_n.val().any());
            self.tail_sel.next = self.tail_sel.val().replace_bit(b, self.col_t.val().any());
        }
        self.w_sel.next = self.tail_sel.val() - self.next_sel.val();
        self.sum.load_value.next = self.sum.value.val() + self.w_sel.val();
        // The count: max - avg (0 when avg >= max); the clamp keeps the donor's head.
        self.s_raw.next = self.zero16.val();
        if self.max.q.val() > self.sum.value.val() {
            self.s_raw.next = self.max.q.val() - self.sum.value.val();
        }
        self.s_cnt.next = self.s_raw.val();
        self.need.next = self.s_raw.val();
        if self.mode.q.val() == self.clamp.val() {
            if (self.s_raw.val() == self.max.q.val()) & (self.max.q.val() != self.zero16.val()) {
                self.s_cnt.next = self.s_raw.val() - self.one16.val();
            }
            self.need.next = self.s_cnt.val() + self.one16.val();
        }
        self.recipient.clock.next = self.clock.val();
        self.recipient.reset.next = self.reset.val() | self.start.val();
        self.recipient.req.next = self.free.q.val() & self.room.val();
        if self.ridle.q.val() {
            self.recipient.req.next = self.free.q.val() & self.empty.val();
        }
        if self.prep.val() {
            self.s_reg.d.next = self.s_cnt.val();
            self.need_reg.d.next = self.need.val();
        }
        // The donor can give (the arbiter moves only when it grants, so its `advance` need not
        // wait for its `valid`: no combinational loop through it).
        self.can_give.next = self.commit.val()
            & (self.s_reg.q.val() != self.zero16.val())
            & !(self.room.val() & self.donor.q.val()).any()
            & (self.w_sel.val() >= self.need_reg.q.val());
        self.fire.next = self.can_give.val() & self.recipient.valid.val();
        self.recipient.advance.next = self.can_give.val();
        self.cut.next = self.tail_sel.val() - self.s_reg.q.val();
        self.donor_index.onehot.next = self.donor.q.val();
        self.steal.next = self.fire.val();
        self.steal_donor.next = self.zero8.val();
        self.steal_to.next = self.zero8.val();
        self.steal_count.next = self.zero16.val();
        if self.fire.val() {
            for k in 0..B {
                self.steal_donor.next = self
                    .steal_donor
                    .val()
                    .replace_bit(k, self.donor_index.index.val().get_bit(k));
                self.steal_to.next = self
                    .steal_to
                    .val()
                    .replace_bit(k, self.recipient.index.val().get_bit(k));
            }
            self.steal_count.next = self.s_reg.q.val();
        }
        if self.scanning.val() {
            self.sum.load.next = true;
            if !(self.room.val() & self.scan.q.val()).any() & (self.w_sel.val() > self.max.q.val()) {
                self.max.d.next = self.w_sel.val();
                self.donor.d.next = self.scan.q.val();
            }
            self.scan.d.next = self.scan.q.val() << self.sh1.val();
        }
        if self.running.val() & !self.scanning.val() & !self.prep.val() & !self.commit.val() {
            self.div.d.next = self.div.q.val() + self.one5.val();
            self.sum.step.next = true;
        }
        if self.prep.val() {
            self.div.d.next = self.div.q.val() + self.one5.val();
        }
        if self.commit.val() {
            self.scan.d.next = self.one_n.val();
            self.div.d.next = self.zero5.val();
            self.sum.clear.next = true;
            self.max.d.next = self.zero16.val();
            self.donor.d.next = self.zero_n.val();
        }
        // The state after the cycle: issue, steal, assignment; then 5. the order reads.
        self.ntbv1.next = self.v_ntb_valid.val() & !self.issue.val();
        self.pend1.next = self.v_pend.val() | self.queue.grant.val();
        self.pg1.next = self.v_pend_group.val() | self.queue.grant.val();
        // Whether an SM's range is empty after the cycle, computed beside the steal rather than
        // after it: without a steal from the issue alone; the donor's from its `W` and the count
        // (`next == tail - S` is `W == S`; a busy donor does not issue); a recipient's never
        // (`S >= 1`). `fire` then only selects.
        self.donor_empties.next = self.w_sel.val() == self.s_reg.q.val();
        self.eq_plain.next = self.zero_n.val();
        for s in 0..N {
            self.n1[s].next = self.v_next[s].val();
            if self.issue.val().get_bit(s) {
                self.n1[s].next = self.v_next[s].val() + self.one16.val();
            }
            if self.n1[s].val() == self.v_tail[s].val() {
                self.eq_plain.next = self.eq_plain.val() | self.onehot[s].val();
            }
        }
        self.eq1.next = self.eq_plain.val();
        if self.fire.val() {
            self.eq1.next = self.eq_plain.val() & !(self.donor.q.val() | self.recipient.onehot.val());
            if self.donor_empties.val() {
                self.eq1.next = self.eq1.val() | self.donor.q.val();
                self.ntbv1.next = self.ntbv1.val() & !self.donor.q.val();
            }
        }
        self.read.next = !self.eq1.val() & !self.ntbv1.val() & !self.pend1.val();
        self.done_next.next = self.eq1.val();
        for s in 0..N {
            self.t1[s].next = self.v_tail[s].val();
            if self.fire.val() & self.donor.q.val().get_bit(s) {
                self.t1[s].next = self.cut.val();
            }
            if self.fire.val() & self.recipient.onehot.val().get_bit(s) {
                self.n1[s].next = self.cut.val();
                self.t1[s].next = self.tail_sel.val();
            }
            self.req_addr[s].next = self.zero16.val();
            if self.read.val().get_bit(s) {
                self.req_addr[s].next = self.n1[s].val();
            }
            // A group index is below `groups` (16 bits): the id's high half is zero, folded in
            // so that every bit of the dispatcher's id is read.
            if self.queue.grant.val().get_bit(s) {
                self.req_addr[s].next = self.queue.id[s].val().get_bits::<16>(0)
                    | self.queue.id[s].val().get_bits::<16>(16);
            }
            self.next[s].d.next = self.n1[s].val();
            self.tail[s].d.next = self.t1[s].val();
            self.ntb[s].d.next = self.v_ntb[s].val();
        }
        self.req_valid.next = self.queue.grant.val() | self.read.val();
        self.req_group.next = self.queue.grant.val();
        self.ntb_valid.d.next = self.ntbv1.val();
        self.pend.d.next = self.pend1.val() | self.read.val();
        self.pend_group.d.next = self.pg1.val();
        self.free.d.next = self.done_next.val() & !(self.pend1.val() | self.read.val());
        self.done.d.next = self.done_next.val() & !self.pg1.val();
        // 6. Idle: at the start of the cycle the queue was empty and every SM exhausted.
        self.idle.next = self.qempty.q.val() & ((!self.done.q.val()) == self.zero_n.val());
        self.qempty.d.next = self.queue.idle.val();
        if self.start.val() | self.reset.val() {
            for s in 0..N {
                self.next[s].d.next = self.zero16.val();
                self.tail[s].d.next = self.zero16.val();
                self.ntb[s].d.next = self.zero16.val();
            }
            self.ntb_valid.d.next = self.zero_n.val();
            self.pend.d.next = self.zero_n.val();
            self.pend_group.d.next = self.zero_n.val();
            self.scan.d.next = self.one_n.val();
            self.div.d.next = self.zero5.val();
            self.sum.clear.next = true;
            self.max.d.next = self.zero16.val();
            self.donor.d.next = self.zero_n.val();
            self.mode.d.next = self.zero2.val();
            self.ridle.d.next = false;
            self.qempty.d.next = true;
            self.free.d.next = !self.zero_n.val();
            self.done.d.next = !self.zero_n.val();
        }
        if self.start.val() & !self.reset.val() {
            self.mode.d.next = self.steal_mode.val();
            self.ridle.d.next = self.recipient_idle.val();
            self.qempty.d.next = self.groups.val() == self.zero16.val();
        }
    }
}

impl<const N: usize, const B: usize, const C: usize, const M: usize, const C1: usize, const RB: usize>
    Clocked for PaverTb<N, B, C, M, C1, RB>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// The 15 SMs of a GTX 480 (`fermi`).
pub type PaverFermi = PaverTb<15, 4, 6, 30, 7, 5>;
/// The 28 SMs of a Titan X Pascal (`titanx`).
pub type PaverTitanx = PaverTb<28, 5, 6, 56, 7, 6>;
/// The 80 SMs of a Titan V (`titanv`).
pub type PaverTitanv = PaverTb<80, 7, 8, 160, 9, 8>;
/// 4 SMs (`proto`).
pub type PaverProto = PaverTb<4, 2, 4, 8, 5, 3>;

/// The scheduler's RTL per preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "paver_tb";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<PaverFermi>(module),
            ("base", "titanx") => verilog_of::<PaverTitanx>(module),
            ("base", "titanv") => verilog_of::<PaverTitanv>(module),
            ("base", "proto") => verilog_of::<PaverProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

#[cfg(test)]
mod tests;
