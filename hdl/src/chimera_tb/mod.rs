//! RTL of `chimera_tb`, one per SM: the SM status table's per-slot counters and Chimera's
//! serial cost estimator and technique select. Behaviour, ports and cycle timing are specified
//! in `gpusim::blocks::chimera_tb::block`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `launch`, `launch_slot`, `launch_issued`, `launch_cycles`, `launch_ni` | in | 1, `TB`, 32, 32, 1 | a block starts in a slot |
//! | `issue_valid_p`, `issue_slot_p`, `issue_overwrite_p` | in | 1, `TB`, 1 | per issue port: a warp instruction of a slot |
//! | `leave`, `leave_slot` | in | 1, `TB` | a block leaves its slot |
//! | `start`, `victims` | in | 1, `T` | ask for the SM's plan over the victim slots |
//! | `avg_i`, `cpi_q`, `ipc_q`, `sw_cyc` | in | 32, 32, 32, 24 | the victim kernel's statistics |
//! | `lat_limit`, `margin`, `mode`, `scope`, `idempotent`, `dr_min` | in | 32, 32, 2, 2, 1, 1 | the request |
//! | `busy`, `done`, `ok` | out | 1 | a pass runs; it ended; the plan meets the limit |
//! | `sm_ovh`, `sm_lat`, `fallback`, `tech_t` | out | 32, 32, `T`, 2 | the plan |
//! | `leave_issued`, `leave_cycles` | out | 32 | the leaving slot's counters |
//!
//! State: per slot a 32-bit instruction counter, a 32-bit cycle counter and the valid and NI
//! bits (the SMST); the pass's snapshot of the instruction counters, its latched request, one
//! 32 x 32 shift-add multiplier (a 64-bit accumulator, one partial product per cycle), and the
//! phase register of a serial schedule: the switch overhead and latency products, a pass over
//! the slots for the most and the least advanced victims, then per slot (a one-hot pointer) the
//! drain-latency product, the 3-way choice (the three pairwise (overhead, latency) compares and the limit
//! tests in parallel) and the accumulation. Logic depth: a 64-bit add (the multiplier), or a
//! 32-bit add and compare (the limit test) beside a 32-bit compare.

use crate::consts::{constant, index_table, onehot_table};
use crate::prim::{OneHotMux, PopCount};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// `chimera_tb` with `T` block slots (`TB = clog2(T)` slot bits, `NB = clog2(T + 1)` count
/// bits) and `P` issue ports.
#[derive(LogicBlock)]
pub struct ChimeraTb<const T: usize, const TB: usize, const NB: usize, const P: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A block starts in `launch_slot`.
    pub launch: Signal<In, Bit>,
    /// Its slot.
    pub launch_slot: Signal<In, Bits<TB>>,
    /// Its warp instructions so far.
    pub launch_issued: Signal<In, Bits<32>>,
    /// Its cycles so far.
    pub launch_cycles: Signal<In, Bits<32>>,
    /// Its NI bit.
    pub launch_ni: Signal<In, Bit>,
    /// Per issue port: a warp instruction issued.
    pub issue_valid: [Signal<In, Bit>; P],
    /// Its block's slot.
    pub issue_slot: [Signal<In, Bits<TB>>; P],
    /// It ends its block's idempotence.
    pub issue_overwrite: [Signal<In, Bit>; P],
    /// The block in `leave_slot` leaves.
    pub leave: Signal<In, Bit>,
    /// Its slot.
    pub leave_slot: Signal<In, Bits<TB>>,
    /// Ask for the plan.
    pub start: Signal<In, Bit>,
    /// Victim slots.
    pub victims: Signal<In, Bits<T>>,
    /// Warp instructions per completed block of the victim kernel.
    pub avg_i: Signal<In, Bits<32>>,
    /// Its cycles per warp instruction, Q16.16.
    pub cpi_q: Signal<In, Bits<32>>,
    /// Its warp instructions per cycle on one SM, Q16.16.
    pub ipc_q: Signal<In, Bits<32>>,
    /// Cycles to save one block's context.
    pub sw_cyc: Signal<In, Bits<24>>,
    /// Latency limit, cycles.
    pub lat_limit: Signal<In, Bits<32>>,
    /// Cycles added to every estimate.
    pub margin: Signal<In, Bits<32>>,
    /// 0 Chimera, 1 switch-only, 2 drain-only, 3 flush-only.
    pub mode: Signal<In, Bits<2>>,
    /// 0 block, 1 SM, 2-3 kernel idempotence.
    pub scope: Signal<In, Bits<2>>,
    /// The victim kernel is strictly idempotent.
    pub idempotent: Signal<In, Bit>,
    /// Drain overheads from the least advanced victim (`I_t - I_min`), not the most advanced.
    pub dr_min: Signal<In, Bit>,
    /// A pass is running.
    pub busy: Signal<Out, Bit>,
    /// The pass ended.
    pub done: Signal<Out, Bit>,
    /// The plan meets the limit.
    pub ok: Signal<Out, Bit>,
    /// Sum of the chosen overheads.
    pub sm_ovh: Signal<Out, Bits<32>>,
    /// Largest chosen latency.
    pub sm_lat: Signal<Out, Bits<32>>,
    /// Victims that fell back to a switch.
    pub fallback: Signal<Out, Bits<T>>,
    /// Per slot: 0 none, 1 switch, 2 drain, 3 flush.
    pub tech: [Signal<Out, Bits<2>>; T],
    /// `leave_slot`'s instruction counter.
    pub leave_issued: Signal<Out, Bits<32>>,
    /// `leave_slot`'s cycle counter.
    pub leave_cycles: Signal<Out, Bits<32>>,
    // The SM status table.
    valid: DFF<Bits<T>>,
    ni: DFF<Bits<T>>,
    issued: [DFF<Bits<32>>; T],
    cycles: [DFF<Bits<32>>; T],
    // The pass's snapshot and request.
    snap: [DFF<Bits<32>>; T],
    cand: DFF<Bits<T>>,
    fok: DFF<Bits<T>>,
    k_avg: DFF<Bits<32>>,
    k_cpi: DFF<Bits<32>>,
    k_ipc: DFF<Bits<32>>,
    k_limit: DFF<Bits<32>>,
    k_margin: DFF<Bits<32>>,
    k_sw: DFF<Bits<24>>,
    k_mode: DFF<Bits<2>>,
    k_dr: DFF<Bit>,
    // The schedule.
    phase: DFF<Bits<4>>,
    step: DFF<Bits<6>>,
    sel: DFF<Bits<T>>,
    // The multiplier.
    mul_a: DFF<Bits<32>>,
    mul_b: DFF<Bits<64>>,
    acc: DFF<Bits<64>>,
    // Per pass and per slot values.
    ovh_sw: DFF<Bits<32>>,
    lat_sw: DFF<Bits<32>>,
    i_max: DFF<Bits<32>>,
    i_min: DFF<Bits<32>>,
    dr_ovh: DFF<Bits<32>>,
    sum: DFF<Bits<32>>,
    lat_max: DFF<Bits<32>>,
    cur_i: DFF<Bits<32>>,
    cur_c: DFF<Bit>,
    cur_f: DFF<Bit>,
    lat_dr: DFF<Bits<32>>,
    ch_t: DFF<Bits<2>>,
    ch_lat: DFF<Bits<32>>,
    ch_ovh: DFF<Bits<32>>,
    ch_fb: DFF<Bit>,
    tech_i: [DFF<Bits<2>>; T],
    fb_i: DFF<Bits<T>>,
    // The published plan.
    o_ok: DFF<Bit>,
    o_ovh: DFF<Bits<32>>,
    o_lat: DFF<Bits<32>>,
    o_fb: DFF<Bits<T>>,
    o_tech: [DFF<Bits<2>>; T],
    o_done: DFF<Bit>,
    // Sub-blocks.
    pop: PopCount<T, NB>,
    mux: OneHotMux<T, 32>,
    // Locals.
    inext: [Signal<Local, Bits<32>>; T],
    cnext: [Signal<Local, Bits<32>>; T],
    vnext: Signal<Local, Bits<T>>,
    ninext: Signal<Local, Bits<T>>,
    fl_next: Signal<Local, Bits<T>>,
    sel_c: Signal<Local, Bit>,
    sel_f: Signal<Local, Bit>,
    a_sub: Signal<Local, Bits<32>>,
    prod_q: Signal<Local, Bits<32>>,
    prod_f: Signal<Local, Bits<32>>,
    addend: Signal<Local, Bits<64>>,
    ext_a: Signal<Local, Bits<32>>,
    ext_b: Signal<Local, Bits<64>>,
    lat: [Signal<Local, Bits<32>>; 3],
    ovh: [Signal<Local, Bits<32>>; 3],
    lm: [Signal<Local, Bits<32>>; 3],
    meets: [Signal<Local, Bit>; 3],
    le01: Signal<Local, Bit>,
    le02: Signal<Local, Bit>,
    le12: Signal<Local, Bit>,
    pick: [Signal<Local, Bit>; 3],
    s_new: Signal<Local, Bits<32>>,
    fin_lm: Signal<Local, Bits<32>>,
    // Constants.
    idx_c: [Constant<Bits<TB>>; T],
    onehot: [Constant<Bits<T>>; T],
    p_idle: Constant<Bits<4>>,
    p_swo: Constant<Bits<4>>,
    p_swl: Constant<Bits<4>>,
    p_max: Constant<Bits<4>>,
    p_set: Constant<Bits<4>>,
    p_mul: Constant<Bits<4>>,
    p_r2: Constant<Bits<4>>,
    p_r3: Constant<Bits<4>>,
    p_fin: Constant<Bits<4>>,
    last_t: Constant<Bits<T>>,
    code: [Constant<Bits<2>>; 4],
    step_last: Constant<Bits<6>>,
    one_step: Constant<Bits<6>>,
    zero_step: Constant<Bits<6>>,
    zero_t: Constant<Bits<T>>,
    ones_t: Constant<Bits<T>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    max32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
    sh1_32: Constant<Bits<32>>,
    sh1_64: Constant<Bits<64>>,
    sh1_t: Constant<Bits<T>>,
    zero2: Constant<Bits<2>>,
    /// `1 << b` for the bits a 32-bit operand is built from (the switch's `2 SW`: bits 1..=24).
    bit32: [Constant<Bits<32>>; 25],
    /// `1 << b` for a zero-extended 32-bit multiplicand.
    bit64: [Constant<Bits<64>>; 32],
}

impl<const T: usize, const TB: usize, const NB: usize, const P: usize> Default
    for ChimeraTb<T, TB, NB, P>
{
    fn default() -> Self {
        assert!(T.is_power_of_two() && (2..=16).contains(&T) && (1 << TB) == T);
        assert!((1 << NB) > T && (1 << (NB - 1)) <= T, "NB = clog2(T + 1)");
        assert!((1..=4).contains(&P));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            launch: Default::default(),
            launch_slot: Default::default(),
            launch_issued: Default::default(),
            launch_cycles: Default::default(),
            launch_ni: Default::default(),
            issue_valid: array_init::array_init(|_| Default::default()),
            issue_slot: array_init::array_init(|_| Default::default()),
            issue_overwrite: array_init::array_init(|_| Default::default()),
            leave: Default::default(),
            leave_slot: Default::default(),
            start: Default::default(),
            victims: Default::default(),
            avg_i: Default::default(),
            cpi_q: Default::default(),
            ipc_q: Default::default(),
            sw_cyc: Default::default(),
            lat_limit: Default::default(),
            margin: Default::default(),
            mode: Default::default(),
            scope: Default::default(),
            idempotent: Default::default(),
            dr_min: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            ok: Default::default(),
            sm_ovh: Default::default(),
            sm_lat: Default::default(),
            fallback: Default::default(),
            tech: array_init::array_init(|_| Default::default()),
            leave_issued: Default::default(),
            leave_cycles: Default::default(),
            valid: Default::default(),
            ni: Default::default(),
            issued: array_init::array_init(|_| Default::default()),
            cycles: array_init::array_init(|_| Default::default()),
            snap: array_init::array_init(|_| Default::default()),
            cand: Default::default(),
            fok: Default::default(),
            k_avg: Default::default(),
            k_cpi: Default::default(),
            k_ipc: Default::default(),
            k_limit: Default::default(),
            k_margin: Default::default(),
            k_sw: Default::default(),
            k_mode: Default::default(),
            k_dr: Default::default(),
            phase: Default::default(),
            step: Default::default(),
            sel: Default::default(),
            mul_a: Default::default(),
            mul_b: Default::default(),
            acc: Default::default(),
            ovh_sw: Default::default(),
            lat_sw: Default::default(),
            i_max: Default::default(),
            i_min: Default::default(),
            dr_ovh: Default::default(),
            sum: Default::default(),
            lat_max: Default::default(),
            cur_i: Default::default(),
            cur_c: Default::default(),
            cur_f: Default::default(),
            lat_dr: Default::default(),
            ch_t: Default::default(),
            ch_lat: Default::default(),
            ch_ovh: Default::default(),
            ch_fb: Default::default(),
            tech_i: array_init::array_init(|_| Default::default()),
            fb_i: Default::default(),
            o_ok: Default::default(),
            o_ovh: Default::default(),
            o_lat: Default::default(),
            o_fb: Default::default(),
            o_tech: array_init::array_init(|_| Default::default()),
            o_done: Default::default(),
            pop: Default::default(),
            mux: Default::default(),
            inext: array_init::array_init(|_| Default::default()),
            cnext: array_init::array_init(|_| Default::default()),
            vnext: Default::default(),
            ninext: Default::default(),
            fl_next: Default::default(),
            sel_c: Default::default(),
            sel_f: Default::default(),
            a_sub: Default::default(),
            prod_q: Default::default(),
            prod_f: Default::default(),
            addend: Default::default(),
            ext_a: Default::default(),
            ext_b: Default::default(),
            lat: array_init::array_init(|_| Default::default()),
            ovh: array_init::array_init(|_| Default::default()),
            lm: array_init::array_init(|_| Default::default()),
            meets: array_init::array_init(|_| Default::default()),
            le01: Default::default(),
            le02: Default::default(),
            le12: Default::default(),
            pick: array_init::array_init(|_| Default::default()),
            s_new: Default::default(),
            fin_lm: Default::default(),
            idx_c: index_table(),
            onehot: onehot_table(),
            p_idle: constant(0),
            p_swo: constant(1),
            p_swl: constant(2),
            p_max: constant(3),
            p_set: constant(4),
            p_mul: constant(5),
            p_r2: constant(6),
            p_r3: constant(7),
            p_fin: constant(8),
            last_t: constant(1 << (T - 1)),
            code: index_table(),
            step_last: constant(32),
            one_step: constant(1),
            zero_step: constant(0),
            zero_t: constant(0),
            ones_t: constant((1u64 << T) - 1),
            zero32: constant(0),
            one32: constant(1),
            max32: constant(u32::MAX as u64),
            zero64: constant(0),
            sh1_32: constant(1),
            sh1_64: constant(1),
            sh1_t: constant(1),
            zero2: constant(0),
            bit32: array_init::array_init(|b| constant(1 << b)),
            bit64: array_init::array_init(|b| constant(1 << b)),
        }
    }
}

impl<const T: usize, const TB: usize, const NB: usize, const P: usize> Logic
    for ChimeraTb<T, TB, NB, P>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, valid, ni, cand, fok, k_avg, k_cpi, k_ipc, k_limit, k_margin, k_sw,
            k_mode, k_dr, phase, step, sel, mul_a, mul_b, acc, ovh_sw, lat_sw, i_max, i_min,
            dr_ovh, sum, lat_max,
            cur_i, cur_c, cur_f, lat_dr, ch_t, ch_lat, ch_ovh, ch_fb, fb_i, o_ok, o_ovh, o_lat,
            o_fb, o_done
        );
        for k in 0..T {
            self.issued[k].clock.next = self.clock.val();
            self.issued[k].d.next = self.issued[k].q.val();
            self.cycles[k].clock.next = self.clock.val();
            self.cycles[k].d.next = self.cycles[k].q.val();
            self.snap[k].clock.next = self.clock.val();
            self.snap[k].d.next = self.snap[k].q.val();
            self.tech_i[k].clock.next = self.clock.val();
            self.tech_i[k].d.next = self.tech_i[k].q.val();
            self.o_tech[k].clock.next = self.clock.val();
            self.o_tech[k].d.next = self.o_tech[k].q.val();
        }
        // The counters' next values: cycles of valid slots, issues, leave, launch.
        for k in 0..T {
            self.cnext[k].next = self.cycles[k].q.val();
            if self.valid.q.val().get_bit(k) & (self.cycles[k].q.val() != self.max32.val()) {
                self.cnext[k].next = self.cycles[k].q.val() + self.one32.val();
            }
            self.inext[k].next = self.issued[k].q.val();
        }
        self.ninext.next = self.ni.q.val();
        for p in 0..P {
            for k in 0..T {
                if self.issue_valid[p].val() & (self.issue_slot[p].val() == self.idx_c[k].val()) {
                    if self.inext[k].val() != self.max32.val() {
                        self.inext[k].next = self.inext[k].val() + self.one32.val();
                    }
                    if self.issue_overwrite[p].val() {
                        self.ninext.next = self.ninext.val() | self.onehot[k].val();
                    }
                }
            }
        }
        self.vnext.next = self.valid.q.val();
        self.leave_issued.next = self.zero32.val();
        self.leave_cycles.next = self.zero32.val();
        for k in 0..T {
            if self.leave_slot.val() == self.idx_c[k].val() {
                self.leave_issued.next = self.issued[k].q.val();
                self.leave_cycles.next = self.cycles[k].q.val();
                if self.leave.val() {
                    self.vnext.next = self.vnext.val() & !self.onehot[k].val();
                }
            }
            if self.launch.val() & (self.launch_slot.val() == self.idx_c[k].val()) {
                self.vnext.next = self.vnext.val() | self.onehot[k].val();
                self.inext[k].next = self.launch_issued.val();
                self.cnext[k].next = self.launch_cycles.val();
                self.ninext.next = self.ninext.val() & !self.onehot[k].val();
                if self.launch_ni.val() {
                    self.ninext.next = self.ninext.val() | self.onehot[k].val();
                }
            }
        }
        for k in 0..T {
            self.issued[k].d.next = self.inext[k].val();
            self.cycles[k].d.next = self.cnext[k].val();
        }
        self.valid.d.next = self.vnext.val();
        self.ni.d.next = self.ninext.val();
        // Flushable at a snapshot, by scope.
        self.fl_next.next = !self.ninext.val();
        if self.scope.val() != self.code[0].val() {
            self.fl_next.next = self.zero_t.val();
            if self.scope.val() == self.code[1].val() {
                if !(self.ninext.val() & self.vnext.val()).any() {
                    self.fl_next.next = self.ones_t.val();
                }
            } else if self.idempotent.val() {
                self.fl_next.next = self.ones_t.val();
            }
        }
        // The selected slot's snapshot, candidacy and flushability.
        self.pop.bits.next = self.cand.q.val();
        self.mux.sel.next = self.sel.q.val();
        for k in 0..T {
            self.mux.data[k].next = self.snap[k].q.val();
        }
        self.sel_c.next = (self.cand.q.val() & self.sel.q.val()).any();
        self.sel_f.next = (self.fok.q.val() & self.sel.q.val()).any();
        self.a_sub.next = self.zero32.val();
        if self.k_avg.q.val() > self.mux.out.val() {
            self.a_sub.next = self.k_avg.q.val() - self.mux.out.val();
        }
        // The multiplier's step and its two readings: Q16.16 and whole, saturated.
        self.addend.next = self.zero64.val();
        if self.mul_a.q.val().get_bit(31) {
            self.addend.next = self.mul_b.q.val();
        }
        self.prod_q.next = self.acc.q.val().get_bits::<32>(16);
        if self.acc.q.val().get_bits::<16>(48).any() {
            self.prod_q.next = self.max32.val();
        }
        self.prod_f.next = self.acc.q.val().get_bits::<32>(0);
        if self.acc.q.val().get_bits::<32>(32).any() {
            self.prod_f.next = self.max32.val();
        }
        // Operands of the next multiplication by phase: SWO -> n x SW; IDLE -> 2 SW x IPC;
        // SET -> (avgI - I)+ x CPI.
        self.ext_a.next = self.zero32.val();
        self.ext_b.next = self.zero64.val();
        if self.phase.q.val() == self.p_idle.val() {
            for b in 0..24 {
                if self.sw_cyc.val().get_bit(b) {
                    self.ext_a.next = self.ext_a.val() | self.bit32[b + 1].val();
                }
            }
            for b in 0..32 {
                if self.ipc_q.val().get_bit(b) {
                    self.ext_b.next = self.ext_b.val() | self.bit64[b].val();
                }
            }
        } else if self.phase.q.val() == self.p_swo.val() {
            for b in 0..NB {
                if self.pop.count.val().get_bit(b) {
                    self.ext_a.next = self.ext_a.val() | self.bit32[b].val();
                }
            }
            for b in 0..24 {
                if self.k_sw.q.val().get_bit(b) {
                    self.ext_b.next = self.ext_b.val() | self.bit64[b].val();
                }
            }
        } else {
            self.ext_a.next = self.a_sub.val();
            for b in 0..32 {
                if self.k_cpi.q.val().get_bit(b) {
                    self.ext_b.next = self.ext_b.val() | self.bit64[b].val();
                }
            }
        }
        // The three techniques' costs (flush, drain, switch) and the limit tests.
        self.lat[0].next = self.max32.val();
        self.ovh[0].next = self.max32.val();
        if self.cur_f.q.val() {
            self.lat[0].next = self.zero32.val();
            self.ovh[0].next = self.cur_i.q.val();
        }
        self.lat[1].next = self.lat_dr.q.val();
        self.ovh[1].next = self.dr_ovh.q.val();
        // The current victim's drain overhead, registered: `cur_i` holds still through the
        // drain-latency multiplication before it is read.
        self.dr_ovh.d.next = self.zero32.val();
        if self.k_dr.q.val() {
            if self.cur_i.q.val() > self.i_min.q.val() {
                self.dr_ovh.d.next = self.cur_i.q.val() - self.i_min.q.val();
            }
        } else if self.i_max.q.val() > self.cur_i.q.val() {
            self.dr_ovh.d.next = self.i_max.q.val() - self.cur_i.q.val();
        }
        self.lat[2].next = self.lat_sw.q.val();
        self.ovh[2].next = self.ovh_sw.q.val();
        for j in 0..3 {
            self.lm[j].next = self.lat[j].val() + self.k_margin.q.val();
            self.meets[j].next = (self.lat[j].val() != self.max32.val())
                & ((self.k_limit.q.val() == self.max32.val())
                    | ((self.lm[j].val() >= self.lat[j].val())
                        & (self.lm[j].val() <= self.k_limit.q.val())));
        }
        self.le01.next = (self.ovh[0].val() < self.ovh[1].val())
            | ((self.ovh[0].val() == self.ovh[1].val()) & (self.lat[0].val() <= self.lat[1].val()));
        self.le02.next = (self.ovh[0].val() < self.ovh[2].val())
            | ((self.ovh[0].val() == self.ovh[2].val()) & (self.lat[0].val() <= self.lat[2].val()));
        self.le12.next = (self.ovh[1].val() < self.ovh[2].val())
            | ((self.ovh[1].val() == self.ovh[2].val()) & (self.lat[1].val() <= self.lat[2].val()));
        self.pick[0].next = self.meets[0].val()
            & (!self.meets[1].val() | self.le01.val())
            & (!self.meets[2].val() | self.le02.val());
        self.pick[1].next = self.meets[1].val()
            & (!self.meets[0].val() | !self.le01.val())
            & (!self.meets[2].val() | self.le12.val());
        self.pick[2].next = self.meets[2].val()
            & (!self.meets[0].val() | !self.le02.val())
            & (!self.meets[1].val() | !self.le12.val());
        // The SM's sum with the chosen overhead (saturating), and the final limit test.
        self.s_new.next = self.sum.q.val() + self.ch_ovh.q.val();
        if self.s_new.val() < self.sum.q.val() {
            self.s_new.next = self.max32.val();
        }
        self.fin_lm.next = self.lat_max.q.val() + self.k_margin.q.val();
        // Outputs.
        self.busy.next = self.phase.q.val() != self.p_idle.val();
        self.done.next = self.o_done.q.val();
        self.ok.next = self.o_ok.q.val();
        self.sm_ovh.next = self.o_ovh.q.val();
        self.sm_lat.next = self.o_lat.q.val();
        self.fallback.next = self.o_fb.q.val();
        for k in 0..T {
            self.tech[k].next = self.o_tech[k].q.val();
        }
        self.o_done.d.next = false;
        // The schedule.
        if self.phase.q.val() == self.p_idle.val() {
            if self.start.val() {
                self.cand.d.next = self.victims.val() & self.vnext.val();
                self.fok.d.next = self.fl_next.val();
                for k in 0..T {
                    self.snap[k].d.next = self.inext[k].val();
                }
                self.k_avg.d.next = self.avg_i.val();
                self.k_cpi.d.next = self.cpi_q.val();
                self.k_ipc.d.next = self.ipc_q.val();
                self.k_limit.d.next = self.lat_limit.val();
                self.k_margin.d.next = self.margin.val();
                self.k_sw.d.next = self.sw_cyc.val();
                self.k_mode.d.next = self.mode.val();
                self.k_dr.d.next = self.dr_min.val();
                self.mul_a.d.next = self.ext_a.val();
                self.mul_b.d.next = self.ext_b.val();
                self.acc.d.next = self.zero64.val();
                self.step.d.next = self.zero_step.val();
                self.phase.d.next = self.p_swo.val();
            }
        } else if (self.phase.q.val() == self.p_swo.val())
            | (self.phase.q.val() == self.p_swl.val())
            | (self.phase.q.val() == self.p_mul.val())
        {
            if self.step.q.val() != self.step_last.val() {
                self.acc.d.next = (self.acc.q.val() << self.sh1_64.val()) + self.addend.val();
                self.mul_a.d.next = self.mul_a.q.val() << self.sh1_32.val();
                self.step.d.next = self.step.q.val() + self.one_step.val();
            } else if self.phase.q.val() == self.p_swo.val() {
                self.ovh_sw.d.next = self.prod_q.val();
                if self.k_ipc.q.val() == self.max32.val() {
                    self.ovh_sw.d.next = self.max32.val();
                }
                self.mul_a.d.next = self.ext_a.val();
                self.mul_b.d.next = self.ext_b.val();
                self.acc.d.next = self.zero64.val();
                self.step.d.next = self.zero_step.val();
                self.phase.d.next = self.p_swl.val();
            } else if self.phase.q.val() == self.p_swl.val() {
                self.lat_sw.d.next = self.prod_f.val();
                self.sel.d.next = self.onehot[0].val();
                self.i_max.d.next = self.zero32.val();
                self.i_min.d.next = self.max32.val();
                self.sum.d.next = self.zero32.val();
                self.lat_max.d.next = self.zero32.val();
                self.fb_i.d.next = self.zero_t.val();
                self.phase.d.next = self.p_max.val();
            } else {
                self.lat_dr.d.next = self.prod_q.val();
                if (self.k_avg.q.val() == self.max32.val()) | (self.k_cpi.q.val() == self.max32.val())
                {
                    self.lat_dr.d.next = self.max32.val();
                }
                self.phase.d.next = self.p_r2.val();
            }
        } else if self.phase.q.val() == self.p_max.val() {
            if self.sel_c.val() & (self.mux.out.val() > self.i_max.q.val()) {
                self.i_max.d.next = self.mux.out.val();
            }
            if self.sel_c.val() & (self.mux.out.val() < self.i_min.q.val()) {
                self.i_min.d.next = self.mux.out.val();
            }
            self.sel.d.next = self.sel.q.val() << self.sh1_t.val();
            if (self.sel.q.val() & self.last_t.val()).any() {
                self.sel.d.next = self.onehot[0].val();
                self.phase.d.next = self.p_set.val();
            }
        } else if self.phase.q.val() == self.p_set.val() {
            self.mul_a.d.next = self.ext_a.val();
            self.mul_b.d.next = self.ext_b.val();
            self.acc.d.next = self.zero64.val();
            self.step.d.next = self.zero_step.val();
            self.cur_i.d.next = self.mux.out.val();
            self.cur_c.d.next = self.sel_c.val();
            self.cur_f.d.next = self.sel_f.val();
            self.phase.d.next = self.p_mul.val();
        } else if self.phase.q.val() == self.p_r2.val() {
            // Switch with its own figures unless the mode or a pick says otherwise.
            self.ch_t.d.next = self.code[1].val();
            self.ch_lat.d.next = self.lat[2].val();
            self.ch_ovh.d.next = self.ovh[2].val();
            self.ch_fb.d.next = !self.meets[2].val();
            if self.k_mode.q.val() == self.code[0].val() {
                self.ch_fb.d.next = !(self.pick[0].val() | self.pick[1].val() | self.pick[2].val());
                if self.pick[0].val() {
                    self.ch_t.d.next = self.code[3].val();
                    self.ch_lat.d.next = self.lat[0].val();
                    self.ch_ovh.d.next = self.ovh[0].val();
                } else if self.pick[1].val() {
                    self.ch_t.d.next = self.code[2].val();
                    self.ch_lat.d.next = self.lat[1].val();
                    self.ch_ovh.d.next = self.ovh[1].val();
                }
            } else if (self.k_mode.q.val() == self.code[2].val())
                | ((self.k_mode.q.val() == self.code[3].val()) & !self.cur_f.q.val())
            {
                self.ch_t.d.next = self.code[2].val();
                self.ch_lat.d.next = self.lat[1].val();
                self.ch_ovh.d.next = self.ovh[1].val();
                self.ch_fb.d.next = !self.meets[1].val();
            } else if self.k_mode.q.val() == self.code[3].val() {
                self.ch_t.d.next = self.code[3].val();
                self.ch_lat.d.next = self.lat[0].val();
                self.ch_ovh.d.next = self.ovh[0].val();
                self.ch_fb.d.next = !self.meets[0].val();
            }
            self.phase.d.next = self.p_r3.val();
        } else if self.phase.q.val() == self.p_r3.val() {
            if self.cur_c.q.val() {
                self.sum.d.next = self.s_new.val();
                if self.ch_lat.q.val() > self.lat_max.q.val() {
                    self.lat_max.d.next = self.ch_lat.q.val();
                }
            }
            for k in 0..T {
                if self.sel.q.val().get_bit(k) {
                    self.tech_i[k].d.next = self.zero2.val();
                    self.fb_i.d.next = self.fb_i.q.val() & !self.onehot[k].val();
                    if self.cur_c.q.val() {
                        self.tech_i[k].d.next = self.ch_t.q.val();
                        if self.ch_fb.q.val() {
                            self.fb_i.d.next = self.fb_i.q.val() | self.onehot[k].val();
                        }
                    }
                }
            }
            self.sel.d.next = self.sel.q.val() << self.sh1_t.val();
            self.phase.d.next = self.p_set.val();
            if (self.sel.q.val() & self.last_t.val()).any() {
                self.phase.d.next = self.p_fin.val();
            }
        } else {
            self.o_ok.d.next = (self.lat_max.q.val() != self.max32.val())
                & ((self.k_limit.q.val() == self.max32.val())
                    | ((self.fin_lm.val() >= self.lat_max.q.val())
                        & (self.fin_lm.val() <= self.k_limit.q.val())));
            self.o_ovh.d.next = self.sum.q.val();
            self.o_lat.d.next = self.lat_max.q.val();
            self.o_fb.d.next = self.fb_i.q.val();
            for k in 0..T {
                self.o_tech[k].d.next = self.tech_i[k].q.val();
            }
            self.o_done.d.next = true;
            self.phase.d.next = self.p_idle.val();
        }
        if self.reset.val() {
            self.valid.d.next = self.zero_t.val();
            self.ni.d.next = self.zero_t.val();
            self.phase.d.next = self.p_idle.val();
            self.o_done.d.next = false;
            self.o_ok.d.next = false;
            self.o_ovh.d.next = self.zero32.val();
            self.o_lat.d.next = self.zero32.val();
            self.o_fb.d.next = self.zero_t.val();
            for k in 0..T {
                self.issued[k].d.next = self.zero32.val();
                self.cycles[k].d.next = self.zero32.val();
                self.o_tech[k].d.next = self.zero2.val();
            }
        }
    }
}

impl<const T: usize, const TB: usize, const NB: usize, const P: usize> Clocked
    for ChimeraTb<T, TB, NB, P>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

#[cfg(test)]
mod tests;

/// `fermi` preset: 8 block slots, 2 issue ports.
pub type ChimeraFermi = ChimeraTb<8, 3, 4, 2>;
/// `proto` preset: 4 block slots, 1 issue port.
pub type ChimeraProto = ChimeraTb<4, 2, 3, 1>;

/// `chimera_tb`'s RTL per preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "chimera_tb";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        match (policy, preset) {
            ("base", "fermi") => crate::verilog_of::<ChimeraFermi>(module),
            ("base", "proto") => crate::verilog_of::<ChimeraProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
