//! RTL of the `la_tb_dispatch` block: the locality-aware thread-block dispatcher (seed 000).
//! Behaviour, ports and cycle timing (the score schedule and its three-stage pipeline) are
//! specified in `gpusim::blocks::la_tb_dispatch` (the golden model).
//!
//! Sizes (const generics; the type aliases at the bottom fix them per preset): `S` SMs (`SB`
//! = clog2 `S` bits of `grant_sm`), `J` slots per SM (`JB` bits of `grant_slot`), `W` window
//! entries (`WB` = clog2 `W`), `A` arrays per footprint, `F` blocks loaded per cycle (1 or 2;
//! `FB` = clog2(`F` + 1) bits of `fill_count`), `R = S * J` running slots (`RB` = clog2 `R`),
//! `OB` bits of a candidate's total score (24 + clog2 `S`), `WA = W * A`, `WS = W * S`,
//! `RA = R * A`, `AF = A * F`, `AP` = `A` rounded up to a power of two (at most 8),
//! `WAP = W * AP`.
//!
//! State. Kernel: `total_q`, `fed`, `granted`. Window, per entry: `valid`, `waiting`,
//! `sweeping` masks (ready = valid, neither), an age matrix `older` (row `c`, bit `d`: entry
//! `d` entered before `c`: the lower block id, so it breaks ties), the block id, its `A`
//! packed rectangles, one 24-bit score per SM and their sum (`tot`). Running slots (`s * J +
//! j`): `occ`, `pend` (finished, finish event to come), `visit` (the sweep's remaining
//! slots) and the `A` rectangles of the block there. Pipeline: the events of the last two
//! cycles (`upd1`/`upd2`: a grant or finish, `vis1`: a visit); stage 2's broadcast
//! rectangles, entry mask, SM and sign; stage 3's per (entry, array) overlaps, mask, SM and
//! sign.
//!
//! Structure, each stage a tree:
//! * decision: the SM, chosen the cycle before by round robin over the SMs with room and a
//!   free slot after the edge (the lowest request above the last SM served, `rr_above` a
//!   prefix OR of its one-hot, else the lowest; each bit a request with no lower one, an OR
//!   tree per bit) and kept in `rr_pick`, so the search is off the decision's path; it must
//!   still have room; its lowest free slot;
//!   per entry its score with that SM (an AND-OR multiplexer); the winner beats every other
//!   ready entry, on (score, age) when any ready entry shares with the SM, else on (rest,
//!   age), the rest being the total minus the score with the SM. When no ready entry shares
//!   with the SM, each one's score with it is 0 and its rest is its total: that order
//!   compares the registered totals, so neither the subtraction nor the SM is on its path.
//!   Each order takes `W (W - 1) / 2` comparisons (each pair compared once, the other
//!   direction its negation) and an AND-reduction per entry;
//! * events: the lowest pending finish and the lowest slot to visit by [`FindFirst`]s, the
//!   broadcast rectangles through AND-OR multiplexers (a running slot's or the winner's);
//! * stage 2: one [`RectOverlap`] per (entry, array), registered;
//! * stage 3: per entry an adder tree over its arrays' overlaps, added to (subtracted from)
//!   its score with the event's SM and to its total;
//! * loads: the lowest free entry takes block `fed`, the highest block `fed + 1`, so the lower
//!   id sits in the lower entry, as the age matrix orders entries inserted together.
//!
//! The small lowest-set-bit searches (slots, free entries) are `x & (!x + 1)`, a carry
//! chain; the round robin's is an OR tree per bit (it feeds `rr_pick`). Both are written
//! inline: a [`FindFirst`] or round-robin sub-block whose request this block computes and
//! whose answer it reads makes a false combinational loop for Verilator (`UNOPTFLAT`) that
//! the gate rejects; the two over the running slots take registers and stay sub-blocks.
//!
//! rust-hdl evaluates array indices from loop variables only, so loops that index by `c * S +
//! s` bind `sn = S` (and `an = A`, `jn = J`, ...) with one-iteration loops.

use crate::consts::{above_table, below_table, constant, index_table, onehot_table, shift_table};
use crate::locality::RectOverlap;
use crate::prim::FindFirst;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Bits of a score with one SM.
const SCORE_BITS: usize = 24;

/// The dispatcher (module documentation for the const generics).
#[derive(LogicBlock)]
pub struct LaDispatch<
    const S: usize,
    const SB: usize,
    const J: usize,
    const JB: usize,
    const W: usize,
    const WB: usize,
    const A: usize,
    const F: usize,
    const FB: usize,
    const R: usize,
    const RB: usize,
    const OB: usize,
    const WA: usize,
    const WS: usize,
    const RA: usize,
    const AF: usize,
    const AP: usize,
    const WAP: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A kernel starts (with `total`).
    pub start: Signal<In, Bit>,
    /// Thread blocks of the starting kernel.
    pub total: Signal<In, Bits<32>>,
    /// SMs that can take one more block.
    pub room: Signal<In, Bits<S>>,
    /// Blocks of the queue presented on `fill_rect`.
    pub fill_count: Signal<In, Bits<FB>>,
    /// Their rectangles: block `i`'s array `k` at `i * A + k`.
    pub fill_rect: [Signal<In, Bits<57>>; AF],
    /// Per SM: the slots whose blocks finished this cycle.
    pub done: [Signal<In, Bits<J>>; S],
    /// Blocks of `fill_rect` taken into the window at the edge.
    pub fill_taken: Signal<Out, Bits<FB>>,
    /// A block is granted.
    pub grant: Signal<Out, Bit>,
    /// To this SM (0 without a grant).
    pub grant_sm: Signal<Out, Bits<SB>>,
    /// This block (0 without a grant).
    pub grant_id: Signal<Out, Bits<32>>,
    /// Into this slot (0 without a grant).
    pub grant_slot: Signal<Out, Bits<JB>>,
    /// Every block of the kernel has been granted.
    pub idle: Signal<Out, Bit>,
    total_q: DFF<Bits<32>>,
    fed: DFF<Bits<32>>,
    granted: DFF<Bits<32>>,
    valid: DFF<Bits<W>>,
    waiting: DFF<Bits<W>>,
    sweeping: DFF<Bits<W>>,
    older: [DFF<Bits<W>>; W],
    id: [DFF<Bits<32>>; W],
    rect: [DFF<Bits<57>>; WA],
    score: [DFF<Bits<SCORE_BITS>>; WS],
    tot: [DFF<Bits<OB>>; W],
    occ: DFF<Bits<R>>,
    pend: DFF<Bits<R>>,
    visit: DFF<Bits<R>>,
    run_rect: [DFF<Bits<57>>; RA],
    upd1: DFF<Bit>,
    upd2: DFF<Bit>,
    vis1: DFF<Bit>,
    bc_rect: [DFF<Bits<57>>; A],
    m1: DFF<Bits<W>>,
    sm1: DFF<Bits<S>>,
    sub1: DFF<Bit>,
    ov: [DFF<Bits<16>>; WA],
    m2: DFF<Bits<W>>,
    sm2: DFF<Bits<S>>,
    sub2: DFF<Bit>,
    /// The SMs above the last one served (a prefix OR of its one-hot, shifted by one).
    rr_above: DFF<Bits<S>>,
    /// The SM chosen for the next cycle (one-hot, 0 for none) from this cycle's `room`.
    rr_pick: DFF<Bits<S>>,
    rr_next: Signal<Local, Bits<S>>,
    rr_masked: Signal<Local, Bits<S>>,
    rr_req: Signal<Local, Bits<S>>,
    rr_valid: Signal<Local, Bit>,
    rr_oh: Signal<Local, Bits<S>>,
    rr_index: Signal<Local, Bits<SB>>,
    rr_scan: Signal<Local, Bits<S>>,
    slot_oh: Signal<Local, Bits<J>>,
    slot_index: Signal<Local, Bits<JB>>,
    /// The lowest pending finish, the lowest slot to visit.
    fin: FindFirst<R, RB>,
    vis: FindFirst<R, RB>,
    /// Stage 2: one overlap unit per (entry, array).
    unit: [RectOverlap; WA],
    /// SMs with a free slot; the served SM's free slots.
    has_free: Signal<Local, Bits<S>>,
    x_free: Signal<Local, Bits<J>>,
    ready: Signal<Local, Bits<W>>,
    /// Per entry: its score with the served SM.
    sx: [Signal<Local, Bits<SCORE_BITS>>; W],
    /// SMs some ready entry shares with; whether the served SM is one of them.
    nzs: Signal<Local, Bits<S>>,
    any_pos: Signal<Local, Bit>,
    /// Per entry `c`: the entries it beats on (score, age) and on (total, age).
    beats_hi: [Signal<Local, Bits<W>>; W],
    beats_lo: [Signal<Local, Bits<W>>; W],
    win_hi: Signal<Local, Bits<W>>,
    win_lo: Signal<Local, Bits<W>>,
    winner: Signal<Local, Bits<W>>,
    filling: Signal<Local, Bit>,
    may: Signal<Local, Bit>,
    ev_grant: Signal<Local, Bit>,
    ev_visit: Signal<Local, Bit>,
    ev_bound: Signal<Local, Bit>,
    /// The running slot of a finish or visit, its SM, whether the sweep still had to visit it.
    rsel: Signal<Local, Bits<R>>,
    rsm: Signal<Local, Bits<S>>,
    in_visit: Signal<Local, Bit>,
    /// The broadcast candidates: the running slot's rectangles, the winner's.
    run_bc: [Signal<Local, Bits<57>>; A],
    win_bc: [Signal<Local, Bits<57>>; A],
    /// The granted running slot; the occupied slots after the edge; `done` flattened.
    gslot: Signal<Local, Bits<R>>,
    occ_next: Signal<Local, Bits<R>>,
    pend_n: Signal<Local, Bits<R>>,
    done_flat: Signal<Local, Bits<R>>,
    /// Stage 3: per entry an in-place adder tree over `plt[c * AP..][..AP]`, the score with
    /// the event's SM, the new score and total.
    plt: [Signal<Local, Bits<SCORE_BITS>>; WAP],
    cur: [Signal<Local, Bits<SCORE_BITS>>; W],
    plw: [Signal<Local, Bits<OB>>; W],
    new_score: [Signal<Local, Bits<SCORE_BITS>>; W],
    new_tot: [Signal<Local, Bits<OB>>; W],
    /// Loads: free entries, reversed; the highest free entry; which blocks are taken; the
    /// inserted entries; the window masks after the event.
    free: Signal<Local, Bits<W>>,
    free_rev: Signal<Local, Bits<W>>,
    lo_oh: Signal<Local, Bits<W>>,
    hi_rev: Signal<Local, Bits<W>>,
    hi_oh: Signal<Local, Bits<W>>,
    take_lo: Signal<Local, Bit>,
    take_hi: Signal<Local, Bit>,
    fed1: Signal<Local, Bits<32>>,
    fed2: Signal<Local, Bits<32>>,
    insert: Signal<Local, Bits<W>>,
    valid_n: Signal<Local, Bits<W>>,
    waiting_n: Signal<Local, Bits<W>>,
    sweeping_n: Signal<Local, Bits<W>>,
    shift: [Constant<Bits<8>>; SB],
    two_fb: Constant<Bits<FB>>,
    one_w: Constant<Bits<W>>,
    below_s: [Constant<Bits<S>>; S],
    one_j: Constant<Bits<J>>,
    index_s: [Constant<Bits<SB>>; S],
    index_j: [Constant<Bits<JB>>; J],
    zero_w: Constant<Bits<W>>,
    zero_s: Constant<Bits<S>>,
    zero_j: Constant<Bits<J>>,
    zero_r: Constant<Bits<R>>,
    zero_fb: Constant<Bits<FB>>,
    one_fb: Constant<Bits<FB>>,
    zero_sb: Constant<Bits<SB>>,
    zero_jb: Constant<Bits<JB>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    zero57: Constant<Bits<57>>,
    zero_score: Constant<Bits<SCORE_BITS>>,
    zero_ob: Constant<Bits<OB>>,
    onehot_w: [Constant<Bits<W>>; W],
    onehot_s: [Constant<Bits<S>>; S],
    onehot_j: [Constant<Bits<J>>; J],
    below_w: [Constant<Bits<W>>; W],
    above_w: [Constant<Bits<W>>; W],
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const F: usize,
        const FB: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const WA: usize,
        const WS: usize,
        const RA: usize,
        const AF: usize,
        const AP: usize,
        const WAP: usize,
    > Default for LaDispatch<S, SB, J, JB, W, WB, A, F, FB, R, RB, OB, WA, WS, RA, AF, AP, WAP>
{
    fn default() -> Self {
        assert!(
            S >= 2 && S <= 1 << SB && (S - 1) >> (SB - 1) == 1,
            "SB = clog2 S"
        );
        assert!(
            J >= 2 && J <= 1 << JB && (J - 1) >> (JB - 1) == 1,
            "JB = clog2 J"
        );
        assert!(
            (2..=64).contains(&W) && W <= 1 << WB,
            "WB = clog2 W, W <= 64"
        );
        assert!((1..=2).contains(&F) && FB == if F == 1 { 1 } else { 2 });
        assert!(R == S * J && R <= 128 && R <= 1 << RB, "R = S * J <= 128");
        assert!((1..=8).contains(&A) && AP.is_power_of_two() && AP >= A && AP / 2 < A);
        assert!(1 << (OB - SCORE_BITS) >= S, "OB holds S scores");
        assert!(WA == W * A && WS == W * S && RA == R * A && AF == A * F && WAP == W * AP);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            total: Default::default(),
            room: Default::default(),
            fill_count: Default::default(),
            fill_rect: array_init::array_init(|_| Default::default()),
            done: array_init::array_init(|_| Default::default()),
            fill_taken: Default::default(),
            grant: Default::default(),
            grant_sm: Default::default(),
            grant_id: Default::default(),
            grant_slot: Default::default(),
            idle: Default::default(),
            total_q: Default::default(),
            fed: Default::default(),
            granted: Default::default(),
            valid: Default::default(),
            waiting: Default::default(),
            sweeping: Default::default(),
            older: array_init::array_init(|_| Default::default()),
            id: array_init::array_init(|_| Default::default()),
            rect: array_init::array_init(|_| Default::default()),
            score: array_init::array_init(|_| Default::default()),
            tot: array_init::array_init(|_| Default::default()),
            occ: Default::default(),
            pend: Default::default(),
            visit: Default::default(),
            run_rect: array_init::array_init(|_| Default::default()),
            upd1: Default::default(),
            upd2: Default::default(),
            vis1: Default::default(),
            bc_rect: array_init::array_init(|_| Default::default()),
            m1: Default::default(),
            sm1: Default::default(),
            sub1: Default::default(),
            ov: array_init::array_init(|_| Default::default()),
            m2: Default::default(),
            sm2: Default::default(),
            sub2: Default::default(),
            rr_above: Default::default(),
            rr_pick: Default::default(),
            rr_next: Default::default(),
            rr_masked: Default::default(),
            rr_req: Default::default(),
            rr_valid: Default::default(),
            rr_oh: Default::default(),
            rr_index: Default::default(),
            rr_scan: Default::default(),
            shift: shift_table(),
            slot_oh: Default::default(),
            slot_index: Default::default(),
            fin: Default::default(),
            vis: Default::default(),
            unit: array_init::array_init(|_| Default::default()),
            has_free: Default::default(),
            x_free: Default::default(),
            ready: Default::default(),
            sx: array_init::array_init(|_| Default::default()),
            nzs: Default::default(),
            any_pos: Default::default(),
            beats_hi: array_init::array_init(|_| Default::default()),
            beats_lo: array_init::array_init(|_| Default::default()),
            win_hi: Default::default(),
            win_lo: Default::default(),
            winner: Default::default(),
            filling: Default::default(),
            may: Default::default(),
            ev_grant: Default::default(),
            ev_visit: Default::default(),
            ev_bound: Default::default(),
            rsel: Default::default(),
            rsm: Default::default(),
            in_visit: Default::default(),
            run_bc: array_init::array_init(|_| Default::default()),
            win_bc: array_init::array_init(|_| Default::default()),
            gslot: Default::default(),
            occ_next: Default::default(),
            pend_n: Default::default(),
            done_flat: Default::default(),
            plt: array_init::array_init(|_| Default::default()),
            cur: array_init::array_init(|_| Default::default()),
            plw: array_init::array_init(|_| Default::default()),
            new_score: array_init::array_init(|_| Default::default()),
            new_tot: array_init::array_init(|_| Default::default()),
            free: Default::default(),
            free_rev: Default::default(),
            lo_oh: Default::default(),
            hi_rev: Default::default(),
            hi_oh: Default::default(),
            take_lo: Default::default(),
            take_hi: Default::default(),
            fed1: Default::default(),
            fed2: Default::default(),
            insert: Default::default(),
            valid_n: Default::default(),
            waiting_n: Default::default(),
            sweeping_n: Default::default(),
            two_fb: constant(if F == 2 { 2 } else { 0 }),
            one_w: constant(1),
            below_s: below_table(),
            one_j: constant(1),
            index_s: index_table(),
            index_j: index_table(),
            zero_w: constant(0),
            zero_s: constant(0),
            zero_j: constant(0),
            zero_r: constant(0),
            zero_fb: constant(0),
            one_fb: constant(1),
            zero_sb: constant(0),
            zero_jb: constant(0),
            zero32: constant(0),
            one32: constant(1),
            two32: constant(2),
            zero57: constant(0),
            zero_score: constant(0),
            zero_ob: constant(0),
            onehot_w: onehot_table(),
            onehot_s: onehot_table(),
            onehot_j: onehot_table(),
            below_w: below_table(),
            above_w: above_table(),
        }
    }
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const F: usize,
        const FB: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const WA: usize,
        const WS: usize,
        const RA: usize,
        const AF: usize,
        const AP: usize,
        const WAP: usize,
    > Logic for LaDispatch<S, SB, J, JB, W, WB, A, F, FB, R, RB, OB, WA, WS, RA, AF, AP, WAP>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks and holds.
        dff_setup!(
            self, clock, total_q, fed, granted, valid, waiting, sweeping, occ, pend, visit, upd1,
            upd2, vis1, m1, sm1, sub1, m2, sm2, sub2, rr_above, rr_pick
        );
        for c in 0..W {
            self.older[c].clock.next = self.clock.val();
            self.older[c].d.next = self.older[c].q.val();
            self.id[c].clock.next = self.clock.val();
            self.id[c].d.next = self.id[c].q.val();
            self.tot[c].clock.next = self.clock.val();
            self.tot[c].d.next = self.tot[c].q.val();
        }
        for e in 0..WA {
            self.rect[e].clock.next = self.clock.val();
            self.rect[e].d.next = self.rect[e].q.val();
            self.ov[e].clock.next = self.clock.val();
        }
        for e in 0..WS {
            self.score[e].clock.next = self.clock.val();
            self.score[e].d.next = self.score[e].q.val();
        }
        for e in 0..RA {
            self.run_rect[e].clock.next = self.clock.val();
            self.run_rect[e].d.next = self.run_rect[e].q.val();
        }
        for a in 0..A {
            self.bc_rect[a].clock.next = self.clock.val();
        }
        // The SM served, chosen the cycle before (it must still have room), and its lowest
        // free slot.
        self.rr_oh.next = self.rr_pick.q.val();
        self.rr_valid.next = (self.rr_pick.q.val() & self.room.val()).any();
        self.x_free.next = self.zero_j.val();
        self.rr_index.next = self.zero_sb.val();
        for s in 0..S {
            if self.rr_oh.val().get_bit(s) {
                self.rr_index.next = self.rr_index.val() | self.index_s[s].val();
            }
        }
        for jn in J..(J + 1) {
            for s in 0..S {
                for j in 0..J {
                    if self.rr_oh.val().get_bit(s) & !self.occ.q.val().get_bit(s * jn + j) {
                        self.x_free.next = self.x_free.val() | self.onehot_j[j].val();
                    }
                }
            }
        }
        self.slot_oh.next = self.x_free.val() & ((!self.x_free.val()) + self.one_j.val());
        self.slot_index.next = self.zero_jb.val();
        for j in 0..J {
            if self.slot_oh.val().get_bit(j) {
                self.slot_index.next = self.slot_index.val() | self.index_j[j].val();
            }
        }
        // Per entry: the score with the served SM.
        self.ready.next = self.valid.q.val() & !self.waiting.q.val() & !self.sweeping.q.val();
        self.nzs.next = self.zero_s.val();
        for sn in S..(S + 1) {
            for c in 0..W {
                self.sx[c].next = self.zero_score.val();
                for s in 0..S {
                    if self.rr_oh.val().get_bit(s) {
                        self.sx[c].next = self.sx[c].val() | self.score[c * sn + s].q.val();
                    }
                    if self.ready.val().get_bit(c)
                        & (self.score[c * sn + s].q.val() != self.zero_score.val())
                    {
                        self.nzs.next = self.nzs.val() | self.onehot_s[s].val();
                    }
                }
            }
        }
        self.any_pos.next = (self.nzs.val() & self.rr_oh.val()).any();
        // Each pair once: `c` before `d` on (score, age) and on (total, age) (the rest when no
        // ready entry shares with the SM).
        for c in 0..W {
            self.beats_hi[c].next = self.zero_w.val();
            self.beats_lo[c].next = self.zero_w.val();
        }
        for c in 0..W {
            for d in 0..W {
                if self.above_w[c].val().get_bit(d) {
                    self.beats_hi[c].next = self.beats_hi[c].val().replace_bit(
                        d,
                        (self.sx[c].val() > self.sx[d].val())
                            | ((self.sx[c].val() == self.sx[d].val())
                                & self.older[d].q.val().get_bit(c)),
                    );
                    self.beats_hi[d].next = self.beats_hi[d].val().replace_bit(
                        c,
                        !((self.sx[c].val() > self.sx[d].val())
                            | ((self.sx[c].val() == self.sx[d].val())
                                & self.older[d].q.val().get_bit(c))),
                    );
                    self.beats_lo[c].next = self.beats_lo[c].val().replace_bit(
                        d,
                        (self.tot[c].q.val() < self.tot[d].q.val())
                            | ((self.tot[c].q.val() == self.tot[d].q.val())
                                & self.older[d].q.val().get_bit(c)),
                    );
                    self.beats_lo[d].next = self.beats_lo[d].val().replace_bit(
                        c,
                        !((self.tot[c].q.val() < self.tot[d].q.val())
                            | ((self.tot[c].q.val() == self.tot[d].q.val())
                                & self.older[d].q.val().get_bit(c))),
                    );
                }
            }
        }
        self.win_hi.next = self.zero_w.val();
        self.win_lo.next = self.zero_w.val();
        for c in 0..W {
            self.win_hi.next = self.win_hi.val().replace_bit(
                c,
                self.ready.val().get_bit(c)
                    & !(self.ready.val() & !self.beats_hi[c].val() & !self.onehot_w[c].val()).any(),
            );
            self.win_lo.next = self.win_lo.val().replace_bit(
                c,
                self.ready.val().get_bit(c)
                    & !(self.ready.val() & !self.beats_lo[c].val() & !self.onehot_w[c].val()).any(),
            );
        }
        self.winner.next = self.win_lo.val();
        if self.any_pos.val() {
            self.winner.next = self.win_hi.val();
        }
        // This cycle's event.
        self.fin.req.next = self.pend.q.val();
        self.vis.req.next = self.visit.q.val();
        self.filling.next = (self.fed.q.val() < self.total_q.q.val()) & (!self.valid.q.val()).any();
        self.may.next =
            !self.filling.val() & !self.fin.valid.val() & !self.upd1.q.val() & !self.upd2.q.val();
        self.ev_grant.next = self.may.val() & self.rr_valid.val() & self.ready.val().any();
        self.ev_visit.next = !self.fin.valid.val() & !self.ev_grant.val() & self.vis.valid.val();
        self.ev_bound.next = !self.fin.valid.val()
            & !self.ev_grant.val()
            & !self.vis.valid.val()
            & (self.waiting.q.val() | self.sweeping.q.val()).any()
            & !self.vis1.q.val();
        // The SMs above the one served: a prefix OR of its one-hot, shifted by one.
        self.rr_scan.next = self.rr_oh.val();
        for k in 0..SB {
            self.rr_scan.next = self.rr_scan.val() | (self.rr_scan.val() << self.shift[k].val());
        }
        if self.ev_grant.val() {
            self.rr_above.d.next = self.rr_scan.val() << self.shift[0].val();
        }
        // Outputs.
        self.grant.next = self.ev_grant.val();
        self.grant_sm.next = self.zero_sb.val();
        self.grant_slot.next = self.zero_jb.val();
        self.grant_id.next = self.zero32.val();
        if self.ev_grant.val() {
            self.grant_sm.next = self.rr_index.val();
            self.grant_slot.next = self.slot_index.val();
            for c in 0..W {
                if self.winner.val().get_bit(c) {
                    self.grant_id.next = self.grant_id.val() | self.id[c].q.val();
                }
            }
        }
        self.idle.next = self.granted.q.val() >= self.total_q.q.val();
        // The broadcast: a running slot's rectangles (finish, visit) or the winner's (grant).
        self.rsel.next = self.vis.onehot.val();
        if self.fin.valid.val() {
            self.rsel.next = self.fin.onehot.val();
        }
        self.rsm.next = self.zero_s.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                for j in 0..J {
                    if self.rsel.val().get_bit(s * jn + j) {
                        self.rsm.next = self.rsm.val() | self.onehot_s[s].val();
                    }
                }
            }
        }
        self.in_visit.next = (self.visit.q.val() & self.rsel.val()).any();
        for an in A..(A + 1) {
            for a in 0..A {
                self.run_bc[a].next = self.zero57.val();
                for r in 0..R {
                    if self.rsel.val().get_bit(r) {
                        self.run_bc[a].next =
                            self.run_bc[a].val() | self.run_rect[r * an + a].q.val();
                    }
                }
                self.win_bc[a].next = self.zero57.val();
                for c in 0..W {
                    if self.winner.val().get_bit(c) {
                        self.win_bc[a].next = self.win_bc[a].val() | self.rect[c * an + a].q.val();
                    }
                }
                self.bc_rect[a].d.next = self.run_bc[a].val();
                if self.ev_grant.val() {
                    self.bc_rect[a].d.next = self.win_bc[a].val();
                }
            }
        }
        self.sm1.d.next = self.rsm.val();
        self.sub1.d.next = self.fin.valid.val();
        self.m1.d.next = self.zero_w.val();
        if self.fin.valid.val() {
            self.m1.d.next = self.ready.val();
            if !self.in_visit.val() {
                self.m1.d.next = self.ready.val() | self.sweeping.q.val();
            }
        }
        if self.ev_grant.val() {
            self.sm1.d.next = self.rr_oh.val();
            self.m1.d.next = (self.ready.val() | self.sweeping.q.val()) & !self.winner.val();
        }
        if self.ev_visit.val() {
            self.m1.d.next = self.sweeping.q.val();
        }
        self.upd1.d.next = self.fin.valid.val() | self.ev_grant.val();
        self.upd2.d.next = self.upd1.q.val();
        self.vis1.d.next = self.ev_visit.val();
        // Stage 2: the overlaps.
        for an in A..(A + 1) {
            for c in 0..W {
                for a in 0..A {
                    self.unit[c * an + a].a.next = self.rect[c * an + a].q.val();
                    self.unit[c * an + a].b.next = self.bc_rect[a].q.val();
                    self.ov[c * an + a].d.next = self.unit[c * an + a].lines.val();
                }
            }
        }
        self.m2.d.next = self.m1.q.val();
        self.sm2.d.next = self.sm1.q.val();
        self.sub2.d.next = self.sub1.q.val();
        // Stage 3: the sums.
        for an in A..(A + 1) {
            for apn in AP..(AP + 1) {
                for sn in S..(S + 1) {
                    for c in 0..W {
                        for a in 0..AP {
                            self.plt[c * apn + a].next = self.zero_score.val();
                        }
                        for a in 0..A {
                            for b in 0..16 {
                                self.plt[c * apn + a].next = self.plt[c * apn + a]
                                    .val()
                                    .replace_bit(b, self.ov[c * an + a].q.val().get_bit(b));
                            }
                        }
                        for i in 0..(AP / 2) {
                            self.plt[c * apn + i].next = self.plt[c * apn + 2 * i].val()
                                + self.plt[c * apn + 2 * i + 1].val();
                        }
                        for i in 0..(AP / 4) {
                            self.plt[c * apn + i].next = self.plt[c * apn + 2 * i].val()
                                + self.plt[c * apn + 2 * i + 1].val();
                        }
                        for i in 0..(AP / 8) {
                            self.plt[c * apn + i].next = self.plt[c * apn + 2 * i].val()
                                + self.plt[c * apn + 2 * i + 1].val();
                        }
                        self.cur[c].next = self.zero_score.val();
                        for s in 0..S {
                            if self.sm2.q.val().get_bit(s) {
                                self.cur[c].next =
                                    self.cur[c].val() | self.score[c * sn + s].q.val();
                            }
                        }
                        self.plw[c].next = self.zero_ob.val();
                        for b in 0..SCORE_BITS {
                            self.plw[c].next = self.plw[c]
                                .val()
                                .replace_bit(b, self.plt[c * apn].val().get_bit(b));
                        }
                        self.new_score[c].next = self.cur[c].val() + self.plt[c * apn].val();
                        self.new_tot[c].next = self.tot[c].q.val() + self.plw[c].val();
                        if self.sub2.q.val() {
                            self.new_score[c].next = self.cur[c].val() - self.plt[c * apn].val();
                            self.new_tot[c].next = self.tot[c].q.val() - self.plw[c].val();
                        }
                        if self.m2.q.val().get_bit(c) {
                            self.tot[c].d.next = self.new_tot[c].val();
                            for s in 0..S {
                                if self.sm2.q.val().get_bit(s) {
                                    self.score[c * sn + s].d.next = self.new_score[c].val();
                                }
                            }
                        }
                    }
                }
            }
        }
        // Edge: the running slots.
        self.gslot.next = self.zero_r.val();
        self.done_flat.next = self.zero_r.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                for j in 0..J {
                    self.gslot.next = self.gslot.val().replace_bit(
                        s * jn + j,
                        self.rr_oh.val().get_bit(s) & self.slot_oh.val().get_bit(j),
                    );
                    self.done_flat.next = self
                        .done_flat
                        .val()
                        .replace_bit(s * jn + j, self.done[s].val().get_bit(j));
                }
            }
        }
        self.occ_next.next = self.occ.q.val();
        self.pend_n.next = self.pend.q.val();
        self.visit.d.next = self.visit.q.val();
        if self.fin.valid.val() {
            self.occ_next.next = self.occ.q.val() & !self.fin.onehot.val();
            self.pend_n.next = self.pend.q.val() & !self.fin.onehot.val();
            self.visit.d.next = self.visit.q.val() & !self.fin.onehot.val();
        }
        if self.ev_grant.val() {
            self.occ_next.next = self.occ.q.val() | self.gslot.val();
        }
        if self.ev_visit.val() {
            self.visit.d.next = self.visit.q.val() & !self.vis.onehot.val();
        }
        if self.ev_bound.val() {
            self.visit.d.next = self.zero_r.val();
            if self.waiting.q.val().any() {
                self.visit.d.next = self.occ.q.val();
            }
        }
        self.occ.d.next = self.occ_next.val();
        self.pend.d.next = self.pend_n.val() | (self.done_flat.val() & self.occ_next.val());
        for an in A..(A + 1) {
            for r in 0..R {
                if self.ev_grant.val() & self.gslot.val().get_bit(r) {
                    for a in 0..A {
                        self.run_rect[r * an + a].d.next = self.win_bc[a].val();
                    }
                }
            }
        }
        // Edge: the window's phases and the grant.
        self.valid_n.next = self.valid.q.val();
        self.waiting_n.next = self.waiting.q.val();
        self.sweeping_n.next = self.sweeping.q.val();
        if self.ev_grant.val() {
            self.valid_n.next = self.valid.q.val() & !self.winner.val();
            self.granted.d.next = self.granted.q.val() + self.one32.val();
        }
        if self.ev_bound.val() {
            self.sweeping_n.next = self.waiting.q.val();
            self.waiting_n.next = self.zero_w.val();
        }
        // Edge: loads, the lowest free entry first.
        self.free.next = !self.valid.q.val();
        self.lo_oh.next = self.free.val() & ((!self.free.val()) + self.one_w.val());
        self.free_rev.next = self.zero_w.val();
        for wn in W..(W + 1) {
            for i in 0..W {
                self.free_rev.next = self
                    .free_rev
                    .val()
                    .replace_bit(i, self.free.val().get_bit(wn - 1 - i));
            }
        }
        self.hi_rev.next = self.free_rev.val() & ((!self.free_rev.val()) + self.one_w.val());
        self.hi_oh.next = self.zero_w.val();
        for wn in W..(W + 1) {
            for i in 0..W {
                self.hi_oh.next = self
                    .hi_oh
                    .val()
                    .replace_bit(i, self.hi_rev.val().get_bit(wn - 1 - i));
            }
        }
        self.fed1.next = self.fed.q.val() + self.one32.val();
        self.fed2.next = self.fed.q.val() + self.two32.val();
        self.take_lo.next = (self.fill_count.val() != self.zero_fb.val())
            & self.free.val().any()
            & (self.fed.q.val() < self.total_q.q.val());
        // Two blocks presented: `fill_count` >= 2, its top bit when `F` = 2 (`two_fb` is 0
        // when `F` = 1).
        self.take_hi.next = (self.fill_count.val() & self.two_fb.val()).any()
            & (self.free.val() & !self.lo_oh.val()).any()
            & (self.fed1.val() < self.total_q.q.val());
        self.fill_taken.next = self.zero_fb.val();
        self.insert.next = self.zero_w.val();
        if self.take_lo.val() {
            self.fill_taken.next = self.one_fb.val();
            self.insert.next = self.lo_oh.val();
            self.fed.d.next = self.fed1.val();
        }
        if self.take_hi.val() {
            self.fill_taken.next = self.one_fb.val() + self.one_fb.val();
            self.insert.next = self.lo_oh.val() | self.hi_oh.val();
            self.fed.d.next = self.fed2.val();
        }
        for an in A..(A + 1) {
            for af in AF..(AF + 1) {
                for sn in S..(S + 1) {
                    for c in 0..W {
                        if self.insert.val().get_bit(c) {
                            self.tot[c].d.next = self.zero_ob.val();
                            for s in 0..S {
                                self.score[c * sn + s].d.next = self.zero_score.val();
                            }
                        }
                        if self.take_lo.val() & self.lo_oh.val().get_bit(c) {
                            self.id[c].d.next = self.fed.q.val();
                            for a in 0..A {
                                self.rect[c * an + a].d.next = self.fill_rect[a].val();
                            }
                        }
                        if self.take_hi.val() & self.hi_oh.val().get_bit(c) {
                            self.id[c].d.next = self.fed1.val();
                            for a in 0..A {
                                self.rect[c * an + a].d.next = self.fill_rect[(an + a) % af].val();
                            }
                        }
                        self.older[c].d.next = self.older[c].q.val() & !self.insert.val();
                        if self.insert.val().get_bit(c) {
                            self.older[c].d.next = (!self.insert.val() & !self.onehot_w[c].val())
                                | (self.insert.val() & self.below_w[c].val());
                        }
                    }
                }
            }
        }
        self.valid.d.next = self.valid_n.val() | self.insert.val();
        self.waiting.d.next = self.waiting_n.val() | self.insert.val();
        self.sweeping.d.next = self.sweeping_n.val() & !self.insert.val();
        // A kernel starts.
        if self.start.val() {
            self.rr_above.d.next = self.zero_s.val();
            self.total_q.d.next = self.total.val();
            self.fed.d.next = self.zero32.val();
            self.granted.d.next = self.zero32.val();
            self.valid.d.next = self.zero_w.val();
            self.waiting.d.next = self.zero_w.val();
            self.sweeping.d.next = self.zero_w.val();
            self.visit.d.next = self.zero_r.val();
            self.m1.d.next = self.zero_w.val();
            self.m2.d.next = self.zero_w.val();
        }
        // Reset.
        if self.reset.val() {
            self.rr_above.d.next = self.zero_s.val();
            self.total_q.d.next = self.zero32.val();
            self.fed.d.next = self.zero32.val();
            self.granted.d.next = self.zero32.val();
            self.valid.d.next = self.zero_w.val();
            self.waiting.d.next = self.zero_w.val();
            self.sweeping.d.next = self.zero_w.val();
            self.occ.d.next = self.zero_r.val();
            self.pend.d.next = self.zero_r.val();
            self.visit.d.next = self.zero_r.val();
            self.upd1.d.next = false;
            self.upd2.d.next = false;
            self.vis1.d.next = false;
            self.m1.d.next = self.zero_w.val();
            self.m2.d.next = self.zero_w.val();
            for c in 0..W {
                self.older[c].d.next = self.below_w[c].val();
            }
        }
        // Next cycle's SM, from this cycle's `room` and the slots and round robin after the
        // edge: the lowest request above the last SM served, else the lowest; per SM, a
        // request with no lower one (an OR tree per bit, not a carry chain).
        self.has_free.next = self.zero_s.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                for j in 0..J {
                    if !self.occ.d.val().get_bit(s * jn + j) {
                        self.has_free.next = self.has_free.val() | self.onehot_s[s].val();
                    }
                }
            }
        }
        self.rr_req.next = self.room.val() & self.has_free.val();
        self.rr_masked.next = self.rr_req.val() & self.rr_above.d.val();
        self.rr_next.next = self.zero_s.val();
        for s in 0..S {
            self.rr_next.next = self.rr_next.val().replace_bit(
                s,
                (self.rr_masked.val().get_bit(s)
                    & !(self.rr_masked.val() & self.below_s[s].val()).any())
                    | (!self.rr_masked.val().any()
                        & self.rr_req.val().get_bit(s)
                        & !(self.rr_req.val() & self.below_s[s].val()).any()),
            );
        }
        self.rr_pick.d.next = self.rr_next.val();
        if self.reset.val() {
            self.rr_pick.d.next = self.zero_s.val();
        }
    }
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const F: usize,
        const FB: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const WA: usize,
        const WS: usize,
        const RA: usize,
        const AF: usize,
        const AP: usize,
        const WAP: usize,
    > Clocked for LaDispatch<S, SB, J, JB, W, WB, A, F, FB, R, RB, OB, WA, WS, RA, AF, AP, WAP>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi`: 15 SMs x 8 slots, a window of 32, five arrays, one block loaded per cycle.
pub type BaseFermi = LaDispatch<15, 4, 8, 3, 32, 5, 5, 1, 1, 120, 7, 28, 160, 480, 600, 5, 8, 256>;
/// `proto`: 4 SMs x 4 slots, a window of 8, two arrays, two blocks loaded per cycle.
pub type BaseProto = LaDispatch<4, 2, 4, 2, 8, 3, 2, 2, 2, 16, 4, 26, 16, 32, 32, 4, 2, 16>;

/// The dispatcher's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "la_tb_dispatch";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            ("serial", "fermi") => verilog_of::<serial::SerialFermi>(module),
            ("serial", "proto") => verilog_of::<serial::SerialProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

pub mod serial;
#[cfg(test)]
mod tests;
