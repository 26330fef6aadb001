//! RTL of the ELF block: program-point table, three priority calculators ([`PrioCalc`]: two
//! WPT update ports and the launch port), the warp priority table and the issue select of the
//! two warp schedulers. Behaviour, ports and cycle timing are specified in
//! `gpusim::blocks::elf`.
//!
//! `N` warps (global ids of `NB` bits; two schedulers of `S = N / 2`, local ids of `SB`
//! bits), `P` program-point slots (`PB` bits). Warp `w` is local warp `w / 2` of scheduler `w % 2`; the WPT and the age
//! matrices are kept per scheduler. Issue select compares every pair of eligible warps by
//! `(WPT, not greedy, age)`: `S x S` comparators per scheduler, as the GTO arbiter's age
//! matrix does for age alone.
//!
//! The per-scheduler ports are arrays (`ready_0`, `ready_1`, ... in the Verilog) as in the
//! golden model, whose `schedulers` parameter sizes them; this RTL serves the presets' two
//! schedulers (its internals are written per scheduler), and a preset with another count
//! needs the RTL generalized first (the primitives rebuild).

mod calc;

pub use calc::PrioCalc;

use crate::consts::{below_table, constant, index_table, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The ELF block.
#[derive(LogicBlock)]
pub struct Elf<
    const N: usize,
    const S: usize,
    const SB: usize,
    const P: usize,
    const PB: usize,
    const NB: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Invalidate every table slot.
    pub tw_clear: Signal<In, Bit>,
    /// Write a table slot.
    pub tw_en: Signal<In, Bit>,
    /// Slot written.
    pub tw_slot: Signal<In, Bits<PB>>,
    /// Written valid bit.
    pub tw_valid: Signal<In, Bit>,
    /// Written branch bit.
    pub tw_branch: Signal<In, Bit>,
    /// Written PC.
    pub tw_pc: Signal<In, Bits<32>>,
    /// Written score.
    pub tw_score: Signal<In, Bits<8>>,
    /// Warps launched this cycle.
    pub launch: Signal<In, Bits<N>>,
    /// Their start PC.
    pub launch_pc: Signal<In, Bits<32>>,
    /// Warps exiting this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Per scheduler: its issuable warps (`ready_0`, `ready_1` in the Verilog).
    pub ready: [Signal<In, Bits<S>>; 2],
    /// Per scheduler: update the WPT entry of its previous grant.
    pub upd_valid: [Signal<In, Bit>; 2],
    /// Per scheduler: recalculate it (else decrement).
    pub upd_trig: [Signal<In, Bit>; 2],
    /// Per scheduler: its next PC.
    pub upd_pc: [Signal<In, Bits<32>>; 2],
    /// Warps that want a fetch.
    pub fetch_elig: Signal<In, Bits<N>>,
    /// Warps that want one once granted this cycle.
    pub fetch_on_grant: Signal<In, Bits<N>>,
    /// The scheduler leading the fetch interleave.
    pub fetch_lead: Signal<In, Bit>,
    /// Per scheduler: it grants a warp.
    pub grant_valid: [Signal<Out, Bit>; 2],
    /// Per scheduler: the granted warp (local id).
    pub grant_warp: [Signal<Out, Bits<SB>>; 2],
    /// Per scheduler: its WPT value.
    pub prio: [Signal<Out, Bits<8>>; 2],
    /// A warp is fetched.
    pub fetch_valid: Signal<Out, Bit>,
    /// The fetched warp (global id).
    pub fetch_warp: Signal<Out, Bits<NB>>,
    calc_u0: PrioCalc<P>,
    calc_u1: PrioCalc<P>,
    calc_l: PrioCalc<P>,
    tv: DFF<Bits<P>>,
    tb: DFF<Bits<P>>,
    tpc: [DFF<Bits<32>>; P],
    tsc: [DFF<Bits<8>>; P],
    wpt0: [DFF<Bits<8>>; S],
    wpt1: [DFF<Bits<8>>; S],
    live0: DFF<Bits<S>>,
    live1: DFF<Bits<S>>,
    last0: DFF<Bits<SB>>,
    last1: DFF<Bits<SB>>,
    last0_valid: DFF<Bit>,
    last1_valid: DFF<Bit>,
    pend0: DFF<Bits<SB>>,
    pend1: DFF<Bits<SB>>,
    pend0_valid: DFF<Bit>,
    pend1_valid: DFF<Bit>,
    older0: [DFF<Bits<S>>; S],
    older1: [DFF<Bits<S>>; S],
    launch0: Signal<Local, Bits<S>>,
    launch1: Signal<Local, Bits<S>>,
    exit0: Signal<Local, Bits<S>>,
    exit1: Signal<Local, Bits<S>>,
    elig0: Signal<Local, Bits<S>>,
    elig1: Signal<Local, Bits<S>>,
    /// Per scheduler: the WPT as this cycle's selects see it (last cycle's grants updated).
    wcur0: [Signal<Local, Bits<8>>; S],
    wcur1: [Signal<Local, Bits<8>>; S],
    /// Per scheduler: eligible warps launching now (not yet live); their lowest (global order)
    /// is fetched when no live warp is eligible.
    fresh0: Signal<Local, Bits<S>>,
    fresh1: Signal<Local, Bits<S>>,
    fresh_any: Signal<Local, Bits<S>>,
    fresh_low: Signal<Local, Bits<S>>,
    fresh_sel: Signal<Local, Bits<NB>>,
    greedy0: Signal<Local, Bits<S>>,
    greedy1: Signal<Local, Bits<S>>,
    beats0: [Signal<Local, Bits<S>>; S],
    beats1: [Signal<Local, Bits<S>>; S],
    win0: Signal<Local, Bits<S>>,
    win1: Signal<Local, Bits<S>>,
    sel0: Signal<Local, Bits<SB>>,
    sel1: Signal<Local, Bits<SB>>,
    selp0: Signal<Local, Bits<8>>,
    selp1: Signal<Local, Bits<8>>,
    felig0: Signal<Local, Bits<S>>,
    felig1: Signal<Local, Bits<S>>,
    fwin0: Signal<Local, Bits<S>>,
    fwin1: Signal<Local, Bits<S>>,
    frank0: Signal<Local, Bits<8>>,
    frank1: Signal<Local, Bits<8>>,
    fsel0: Signal<Local, Bits<NB>>,
    fsel1: Signal<Local, Bits<NB>>,
    fpick0: Signal<Local, Bit>,
    tv_new: Signal<Local, Bits<P>>,
    tb_new: Signal<Local, Bits<P>>,
    zero_s: Constant<Bits<S>>,
    one_s: Constant<Bits<S>>,
    ones_s: Constant<Bits<S>>,
    zero_nb: Constant<Bits<NB>>,
    zero_p: Constant<Bits<P>>,
    zero_sb: Constant<Bits<SB>>,
    zero8: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    max8: Constant<Bits<8>>,
    ids: [Constant<Bits<SB>>; S],
    gids: [Constant<Bits<NB>>; N],
    slots: [Constant<Bits<PB>>; P],
    onehots: [Constant<Bits<S>>; S],
    slot_onehots: [Constant<Bits<P>>; P],
    below: [Constant<Bits<S>>; S],
}

impl<
        const N: usize,
        const S: usize,
        const SB: usize,
        const P: usize,
        const PB: usize,
        const NB: usize,
    > Default for Elf<N, S, SB, P, PB, NB>
{
    fn default() -> Self {
        assert!(N == 2 * S && S <= 32 && (1usize << SB) >= S && (1usize << PB) == P);
        assert!((1usize << NB) >= N);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tw_clear: Default::default(),
            tw_en: Default::default(),
            tw_slot: Default::default(),
            tw_valid: Default::default(),
            tw_branch: Default::default(),
            tw_pc: Default::default(),
            tw_score: Default::default(),
            launch: Default::default(),
            launch_pc: Default::default(),
            exit: Default::default(),
            ready: array_init::array_init(|_| Default::default()),
            upd_valid: array_init::array_init(|_| Default::default()),
            upd_trig: array_init::array_init(|_| Default::default()),
            upd_pc: array_init::array_init(|_| Default::default()),
            fetch_elig: Default::default(),
            fetch_on_grant: Default::default(),
            fetch_lead: Default::default(),
            grant_valid: array_init::array_init(|_| Default::default()),
            grant_warp: array_init::array_init(|_| Default::default()),
            prio: array_init::array_init(|_| Default::default()),
            fetch_valid: Default::default(),
            fetch_warp: Default::default(),
            calc_u0: Default::default(),
            calc_u1: Default::default(),
            calc_l: Default::default(),
            tv: Default::default(),
            tb: Default::default(),
            tpc: array_init::array_init(|_| Default::default()),
            tsc: array_init::array_init(|_| Default::default()),
            wpt0: array_init::array_init(|_| Default::default()),
            wpt1: array_init::array_init(|_| Default::default()),
            live0: Default::default(),
            live1: Default::default(),
            last0: Default::default(),
            last1: Default::default(),
            last0_valid: Default::default(),
            last1_valid: Default::default(),
            pend0: Default::default(),
            pend1: Default::default(),
            pend0_valid: Default::default(),
            pend1_valid: Default::default(),
            older0: array_init::array_init(|_| Default::default()),
            older1: array_init::array_init(|_| Default::default()),
            launch0: Default::default(),
            launch1: Default::default(),
            exit0: Default::default(),
            exit1: Default::default(),
            elig0: Default::default(),
            elig1: Default::default(),
            wcur0: array_init::array_init(|_| Default::default()),
            wcur1: array_init::array_init(|_| Default::default()),
            fresh0: Default::default(),
            fresh1: Default::default(),
            fresh_any: Default::default(),
            fresh_low: Default::default(),
            fresh_sel: Default::default(),
            greedy0: Default::default(),
            greedy1: Default::default(),
            beats0: array_init::array_init(|_| Default::default()),
            beats1: array_init::array_init(|_| Default::default()),
            win0: Default::default(),
            win1: Default::default(),
            sel0: Default::default(),
            sel1: Default::default(),
            selp0: Default::default(),
            selp1: Default::default(),
            felig0: Default::default(),
            felig1: Default::default(),
            fwin0: Default::default(),
            fwin1: Default::default(),
            frank0: Default::default(),
            frank1: Default::default(),
            fsel0: Default::default(),
            fsel1: Default::default(),
            fpick0: Default::default(),
            tv_new: Default::default(),
            tb_new: Default::default(),
            zero_s: constant(0),
            one_s: constant(1),
            zero_nb: constant(0),
            ones_s: constant(if S == 64 { u64::MAX } else { (1u64 << S) - 1 }),
            zero_p: constant(0),
            zero_sb: constant(0),
            zero8: constant(0),
            one8: constant(1),
            max8: constant(255),
            ids: index_table(),
            gids: index_table(),
            slots: index_table(),
            onehots: onehot_table(),
            slot_onehots: onehot_table(),
            below: below_table(),
        }
    }
}

impl<
        const N: usize,
        const S: usize,
        const SB: usize,
        const P: usize,
        const PB: usize,
        const NB: usize,
    > Logic for Elf<N, S, SB, P, PB, NB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tv,
            tb,
            live0,
            live1,
            last0,
            last1,
            last0_valid,
            last1_valid,
            pend0,
            pend1,
            pend0_valid,
            pend1_valid
        );
        for i in 0..P {
            self.tpc[i].clock.next = self.clock.val();
            self.tpc[i].d.next = self.tpc[i].q.val();
            self.tsc[i].clock.next = self.clock.val();
            self.tsc[i].d.next = self.tsc[i].q.val();
        }
        for i in 0..S {
            self.wpt0[i].clock.next = self.clock.val();
            self.wpt0[i].d.next = self.wpt0[i].q.val();
            self.wpt1[i].clock.next = self.clock.val();
            self.wpt1[i].d.next = self.wpt1[i].q.val();
            self.older0[i].clock.next = self.clock.val();
            self.older0[i].d.next = self.older0[i].q.val();
            self.older1[i].clock.next = self.clock.val();
            self.older1[i].d.next = self.older1[i].q.val();
        }
        // The calculators read the table as it is during the cycle.
        self.calc_u0.pc.next = self.upd_pc[0].val();
        self.calc_u1.pc.next = self.upd_pc[1].val();
        self.calc_l.pc.next = self.launch_pc.val();
        self.calc_u0.tv.next = self.tv.q.val();
        self.calc_u1.tv.next = self.tv.q.val();
        self.calc_l.tv.next = self.tv.q.val();
        self.calc_u0.tb.next = self.tb.q.val();
        self.calc_u1.tb.next = self.tb.q.val();
        self.calc_l.tb.next = self.tb.q.val();
        for i in 0..P {
            self.calc_u0.tpc[i].next = self.tpc[i].q.val();
            self.calc_u1.tpc[i].next = self.tpc[i].q.val();
            self.calc_l.tpc[i].next = self.tpc[i].q.val();
            self.calc_u0.tsc[i].next = self.tsc[i].q.val();
            self.calc_u1.tsc[i].next = self.tsc[i].q.val();
            self.calc_l.tsc[i].next = self.tsc[i].q.val();
        }
        // Per-scheduler launch and exit masks.
        self.launch0.next = self.zero_s.val();
        self.launch1.next = self.zero_s.val();
        self.exit0.next = self.zero_s.val();
        self.exit1.next = self.zero_s.val();
        for l in 0..S {
            if self.launch.val().get_bit(2 * l) {
                self.launch0.next = self.launch0.val() | self.onehots[l].val();
            }
            if self.launch.val().get_bit(2 * l + 1) {
                self.launch1.next = self.launch1.val() | self.onehots[l].val();
            }
            if self.exit.val().get_bit(2 * l) {
                self.exit0.next = self.exit0.val() | self.onehots[l].val();
            }
            if self.exit.val().get_bit(2 * l + 1) {
                self.exit1.next = self.exit1.val() | self.onehots[l].val();
            }
        }
        // Last cycle's grants report back: the WPT as this cycle's selects see it.
        for i in 0..S {
            self.wcur0[i].next = self.wpt0[i].q.val();
            self.wcur1[i].next = self.wpt1[i].q.val();
            if self.upd_valid[0].val()
                & self.pend0_valid.q.val()
                & (self.pend0.q.val() == self.ids[i].val())
            {
                if self.upd_trig[0].val() {
                    self.wcur0[i].next = self.calc_u0.prio.val();
                } else if (self.wpt0[i].q.val() != self.max8.val())
                    & (self.wpt0[i].q.val() != self.zero8.val())
                {
                    self.wcur0[i].next = self.wpt0[i].q.val() - self.one8.val();
                }
            }
            if self.upd_valid[1].val()
                & self.pend1_valid.q.val()
                & (self.pend1.q.val() == self.ids[i].val())
            {
                if self.upd_trig[1].val() {
                    self.wcur1[i].next = self.calc_u1.prio.val();
                } else if (self.wpt1[i].q.val() != self.max8.val())
                    & (self.wpt1[i].q.val() != self.zero8.val())
                {
                    self.wcur1[i].next = self.wpt1[i].q.val() - self.one8.val();
                }
            }
        }
        // Issue select: warp i wins when it beats every other eligible warp.
        self.elig0.next = self.ready[0].val() & self.live0.q.val();
        self.elig1.next = self.ready[1].val() & self.live1.q.val();
        self.greedy0.next = self.zero_s.val();
        self.greedy1.next = self.zero_s.val();
        for i in 0..S {
            if self.last0_valid.q.val() & (self.last0.q.val() == self.ids[i].val()) {
                self.greedy0.next = self.onehots[i].val();
            }
            if self.last1_valid.q.val() & (self.last1.q.val() == self.ids[i].val()) {
                self.greedy1.next = self.onehots[i].val();
            }
        }
        for i in 0..S {
            self.beats0[i].next = self.zero_s.val();
            self.beats1[i].next = self.zero_s.val();
            for j in 0..S {
                if (self.wcur0[i].val() < self.wcur0[j].val())
                    | ((self.wcur0[i].val() == self.wcur0[j].val())
                        & ((self.greedy0.val().get_bit(i) & !self.greedy0.val().get_bit(j))
                            | ((self.greedy0.val().get_bit(i) == self.greedy0.val().get_bit(j))
                                & self.older0[j].q.val().get_bit(i))))
                {
                    self.beats0[i].next = self.beats0[i].val() | self.onehots[j].val();
                }
                if (self.wcur1[i].val() < self.wcur1[j].val())
                    | ((self.wcur1[i].val() == self.wcur1[j].val())
                        & ((self.greedy1.val().get_bit(i) & !self.greedy1.val().get_bit(j))
                            | ((self.greedy1.val().get_bit(i) == self.greedy1.val().get_bit(j))
                                & self.older1[j].q.val().get_bit(i))))
                {
                    self.beats1[i].next = self.beats1[i].val() | self.onehots[j].val();
                }
            }
        }
        self.win0.next = self.zero_s.val();
        self.win1.next = self.zero_s.val();
        for i in 0..S {
            if self.elig0.val().get_bit(i)
                & ((self.beats0[i].val() | !self.elig0.val() | self.onehots[i].val())
                    == self.ones_s.val())
            {
                self.win0.next = self.win0.val() | self.onehots[i].val();
            }
            if self.elig1.val().get_bit(i)
                & ((self.beats1[i].val() | !self.elig1.val() | self.onehots[i].val())
                    == self.ones_s.val())
            {
                self.win1.next = self.win1.val() | self.onehots[i].val();
            }
        }
        self.sel0.next = self.zero_sb.val();
        self.sel1.next = self.zero_sb.val();
        self.selp0.next = self.zero8.val();
        self.selp1.next = self.zero8.val();
        for i in 0..S {
            if self.win0.val().get_bit(i) {
                self.sel0.next = self.ids[i].val();
                self.selp0.next = self.wcur0[i].val();
            }
            if self.win1.val().get_bit(i) {
                self.sel1.next = self.ids[i].val();
                self.selp1.next = self.wcur1[i].val();
            }
        }
        // Fetch select: each scheduler's best eligible warp (the issue comparators), its rank
        // (live warps that beat it), and the leading scheduler's warp on a rank tie.
        self.felig0.next = self.zero_s.val();
        self.felig1.next = self.zero_s.val();
        for l in 0..S {
            if self.fetch_elig.val().get_bit(2 * l) {
                self.felig0.next = self.felig0.val() | self.onehots[l].val();
            }
            if self.fetch_elig.val().get_bit(2 * l + 1) {
                self.felig1.next = self.felig1.val() | self.onehots[l].val();
            }
        }
        // Launching warps (not yet live) that want a fetch.
        self.fresh0.next = self.felig0.val() & self.launch0.val() & !self.live0.q.val();
        self.fresh1.next = self.felig1.val() & self.launch1.val() & !self.live1.q.val();
        // Granted warps whose grant empties their i-buffer.
        for l in 0..S {
            if self.fetch_on_grant.val().get_bit(2 * l) & self.win0.val().get_bit(l) {
                self.felig0.next = self.felig0.val() | self.onehots[l].val();
            }
            if self.fetch_on_grant.val().get_bit(2 * l + 1) & self.win1.val().get_bit(l) {
                self.felig1.next = self.felig1.val() | self.onehots[l].val();
            }
        }
        self.felig0.next = self.felig0.val() & self.live0.q.val();
        self.felig1.next = self.felig1.val() & self.live1.q.val();
        self.fwin0.next = self.zero_s.val();
        self.fwin1.next = self.zero_s.val();
        for i in 0..S {
            if self.felig0.val().get_bit(i)
                & ((self.beats0[i].val() | !self.felig0.val() | self.onehots[i].val())
                    == self.ones_s.val())
            {
                self.fwin0.next = self.fwin0.val() | self.onehots[i].val();
            }
            if self.felig1.val().get_bit(i)
                & ((self.beats1[i].val() | !self.felig1.val() | self.onehots[i].val())
                    == self.ones_s.val())
            {
                self.fwin1.next = self.fwin1.val() | self.onehots[i].val();
            }
        }
        self.frank0.next = self.zero8.val();
        self.frank1.next = self.zero8.val();
        self.fsel0.next = self.gids[0].val();
        self.fsel1.next = self.gids[0].val();
        for j in 0..S {
            if self.live0.q.val().get_bit(j) & (self.beats0[j].val() & self.fwin0.val()).any() {
                self.frank0.next = self.frank0.val() + self.one8.val();
            }
            if self.live1.q.val().get_bit(j) & (self.beats1[j].val() & self.fwin1.val()).any() {
                self.frank1.next = self.frank1.val() + self.one8.val();
            }
            if self.fwin0.val().get_bit(j) {
                self.fsel0.next = self.gids[2 * j].val();
            }
            if self.fwin1.val().get_bit(j) {
                self.fsel1.next = self.gids[2 * j + 1].val();
            }
        }
        self.fpick0.next = self.fwin0.val().any()
            & (!self.fwin1.val().any()
                | (!self.fetch_lead.val() & (self.frank0.val() <= self.frank1.val()))
                | (self.fetch_lead.val() & (self.frank0.val() < self.frank1.val())));
        // The lowest launching warp: the lowest local index of either scheduler (isolated as
        // `x & (!x + 1)`), scheduler 0's first (global id 2l before 2l + 1).
        self.fresh_any.next = self.fresh0.val() | self.fresh1.val();
        self.fresh_low.next =
            self.fresh_any.val() & (!self.fresh_any.val() + self.one_s.val());
        self.fresh_sel.next = self.zero_nb.val();
        for l in 0..S {
            if self.fresh_low.val().get_bit(l) & self.fresh0.val().get_bit(l) {
                self.fresh_sel.next = self.fresh_sel.val() | self.gids[2 * l].val();
            }
            if self.fresh_low.val().get_bit(l) & !self.fresh0.val().get_bit(l) {
                self.fresh_sel.next = self.fresh_sel.val() | self.gids[2 * l + 1].val();
            }
        }
        self.fetch_valid.next = self.fwin0.val().any()
            | self.fwin1.val().any()
            | self.fresh_any.val().any();
        if self.fpick0.val() {
            self.fetch_warp.next = self.fsel0.val();
        } else {
            self.fetch_warp.next = self.fsel1.val();
        }
        if !(self.fwin0.val().any() | self.fwin1.val().any()) {
            self.fetch_warp.next = self.fresh_sel.val();
        }
        self.grant_valid[0].next = self.win0.val().any();
        self.grant_warp[0].next = self.sel0.val();
        self.prio[0].next = self.selp0.val();
        self.grant_valid[1].next = self.win1.val().any();
        self.grant_warp[1].next = self.sel1.val();
        self.prio[1].next = self.selp1.val();
        // The WPT takes this cycle's values, then launches.
        for i in 0..S {
            self.wpt0[i].d.next = self.wcur0[i].val();
            self.wpt1[i].d.next = self.wcur1[i].val();
            if self.launch0.val().get_bit(i) {
                self.wpt0[i].d.next = self.calc_l.prio.val();
                self.older0[i].d.next =
                    !self.launch0.val() | (self.launch0.val() & self.below[i].val());
            } else {
                self.older0[i].d.next = self.older0[i].q.val() & !self.launch0.val();
            }
            if self.launch1.val().get_bit(i) {
                self.wpt1[i].d.next = self.calc_l.prio.val();
                self.older1[i].d.next =
                    !self.launch1.val() | (self.launch1.val() & self.below[i].val());
            } else {
                self.older1[i].d.next = self.older1[i].q.val() & !self.launch1.val();
            }
        }
        self.live0.d.next = (self.live0.q.val() & !self.exit0.val()) | self.launch0.val();
        self.live1.d.next = (self.live1.q.val() & !self.exit1.val()) | self.launch1.val();
        if self.win0.val().any() {
            self.last0.d.next = self.sel0.val();
            self.last0_valid.d.next = true;
        }
        if self.win1.val().any() {
            self.last1.d.next = self.sel1.val();
            self.last1_valid.d.next = true;
        }
        self.pend0.d.next = self.sel0.val();
        self.pend0_valid.d.next = self.win0.val().any();
        self.pend1.d.next = self.sel1.val();
        self.pend1_valid.d.next = self.win1.val().any();
        // Table write port: clear, then write one slot.
        self.tv_new.next = self.tv.q.val();
        self.tb_new.next = self.tb.q.val();
        if self.tw_clear.val() {
            self.tv_new.next = self.zero_p.val();
            self.tb_new.next = self.zero_p.val();
        }
        for i in 0..P {
            if self.tw_en.val() & (self.tw_slot.val() == self.slots[i].val()) {
                self.tv_new.next = self.tv_new.val() & !self.slot_onehots[i].val();
                self.tb_new.next = self.tb_new.val() & !self.slot_onehots[i].val();
                if self.tw_valid.val() {
                    self.tv_new.next = self.tv_new.val() | self.slot_onehots[i].val();
                }
                if self.tw_branch.val() {
                    self.tb_new.next = self.tb_new.val() | self.slot_onehots[i].val();
                }
                self.tpc[i].d.next = self.tw_pc.val();
                self.tsc[i].d.next = self.tw_score.val();
            }
        }
        self.tv.d.next = self.tv_new.val();
        self.tb.d.next = self.tb_new.val();
        if self.reset.val() {
            self.tv.d.next = self.zero_p.val();
            self.tb.d.next = self.zero_p.val();
            self.live0.d.next = self.zero_s.val();
            self.live1.d.next = self.zero_s.val();
            self.last0_valid.d.next = false;
            self.last1_valid.d.next = false;
            self.pend0_valid.d.next = false;
            self.pend1_valid.d.next = false;
            for i in 0..S {
                self.wpt0[i].d.next = self.max8.val();
                self.wpt1[i].d.next = self.max8.val();
                self.older0[i].d.next = self.below[i].val();
                self.older1[i].d.next = self.below[i].val();
            }
        }
    }
}

impl<
        const N: usize,
        const S: usize,
        const SB: usize,
        const P: usize,
        const PB: usize,
        const NB: usize,
    > Clocked for Elf<N, S, SB, P, PB, NB>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

#[cfg(test)]
mod tests;

/// `fermi` preset: 48 warps (two schedulers of 24), 32 program points.
pub type ElfFermi = Elf<48, 24, 5, 32, 5, 6>;
/// `proto` preset: 8 warps, 8 program points.
pub type ElfProto = Elf<8, 4, 2, 8, 3, 3>;

/// The ELF block's RTL per preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "elf";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        match (policy, preset) {
            ("base", "fermi") => crate::verilog_of::<ElfFermi>(module),
            ("base", "proto") => crate::verilog_of::<ElfProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
