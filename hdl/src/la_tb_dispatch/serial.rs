//! RTL of the `la_tb_dispatch` block's `serial` policy: one engine performing one operation
//! at a time (Grant, Finish, Decide, Row) over tables in block RAM, `G` rectangle pairs a
//! cycle. Behaviour and cycle timing: `gpusim::blocks::la_tb_dispatch::serial`.
//!
//! Sizes (const generics; the aliases at the bottom fix them per preset): `S` SMs (`SB` =
//! clog2 `S`), `J` slots per SM (a power of two, `JB` bits), `W` window entries (`WB`), `A`
//! arrays, `R = S * J` running slots (`RB` = clog2 `R`), `OB` bits of a total score, `G` lanes
//! (a power of two from 2 dividing `W` and `J`; `GB` = log2 `G`), `NW = W / G` entry rows
//! (`NWB` = clog2, at least 1), `NR = R / G` slot rows (`NRB = SB + JB - GB`), `RW = 57 * A`
//! bits of a packed rectangle set, `GA = G * A`, `SAB = NWB + SB` bits of a
//! score address, `AP` = `A` rounded up to a power of two, `GAP = G * AP`, `GQ` = `G / 4` (at
//! least 1) survivors of a Decide's first two tournament levels.
//!
//! Tables (each a [`Ram`] per lane, entry `c` in lane `c % G` at row `c / G`, running slot
//! `q = s * J + j` in lane `q % G` at row `q / G`): the window's rectangles (`wrect`) and ids
//! (`wid`), written when a block enters; per entry its score with each SM (`score`, at row
//! `* 2^SB + s`) and their sum (`tot`); the running slots' rectangles (`rrect`), copied from
//! `wrect` the cycle after a grant. Registers: per entry `valid`, `ready`; per SM a word `sval`
//! with a bit per entry (its score word with the SM has been written since the entry's Row; a
//! clear bit reads as 0, so a Row writes only the SMs with blocks); per slot `occ` and `pend`.
//!
//! An operation started in cycle `t` reads its broadcast rectangles (a running slot's for a
//! Finish, the entry's for a Grant or Row) at `t` into `bc` at `t + 1`, issues one row a
//! cycle from `t + 1` (the lowest left in `erows` / `srows`), then drains two cycles: a row
//! issued in `u` reads its lanes' rectangles at `u`, the overlaps (`G * A` [`RectOverlap`]s)
//! are registered at `u + 1` while the scores and totals of an update are read, and at
//! `u + 2` each lane's sum updates its entry's score and total (Finish, Grant) or the row's
//! sum adds to the entry's score with the row's SM (Row). A Decide reads the scores with its
//! SM at `u`, registers each lane's keys at `u + 1`, runs two levels of the lanes' tournament
//! on each order at `u + 2` and the rest with the merge into the operation's best at `u + 3`
//! (so it drains three cycles, not two); the Grant that follows reads those registers.

use crate::consts::{below_table, constant, index_table, onehot_table, shift_table};
use crate::locality::RectOverlap;
use crate::prim::{FindFirst, Ram};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Bits of a score with one SM.
const SCORE_BITS: usize = 24;

/// The serial dispatcher (module documentation for the const generics).
#[derive(LogicBlock)]
pub struct LaDispatchSerial<
    const S: usize,
    const SB: usize,
    const J: usize,
    const JB: usize,
    const W: usize,
    const WB: usize,
    const A: usize,
    const R: usize,
    const RB: usize,
    const OB: usize,
    const G: usize,
    const GB: usize,
    const NW: usize,
    const NWB: usize,
    const NR: usize,
    const NRB: usize,
    const RW: usize,
    const GA: usize,
    const SAB: usize,
    const AP: usize,
    const GAP: usize,
    const GQ: usize,
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
    /// Blocks of the queue presented on `fill_rect` (0 or 1).
    pub fill_count: Signal<In, Bits<1>>,
    /// The block's rectangles: array `k` at `k`.
    pub fill_rect: [Signal<In, Bits<57>>; A],
    /// Per SM: the slots whose blocks finished this cycle.
    pub done: [Signal<In, Bits<J>>; S],
    /// The block of `fill_rect` is taken into the window at the edge.
    pub fill_taken: Signal<Out, Bits<1>>,
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
    ready: DFF<Bits<W>>,
    /// Per SM `s`, bit `c`: entry `c`'s score word with `s` is current.
    sval: [DFF<Bits<W>>; S],
    occ: DFF<Bits<R>>,
    pend: DFF<Bits<R>>,
    /// Tables.
    wrect: [Ram<RW, NWB>; G],
    wid: [Ram<32, NWB>; G],
    score: [Ram<SCORE_BITS, SAB>; G],
    tot: [Ram<OB, NWB>; G],
    rrect: [Ram<RW, NRB>; G],
    /// The engine: an operation in progress, the rows it has left, its drain cycles.
    active: DFF<Bit>,
    erows: DFF<Bits<NW>>,
    srows: DFF<Bits<NR>>,
    tail: DFF<Bits<3>>,
    /// The operation: Finish, Grant, Decide, Row; its SM (one-hot and index).
    k_fin: DFF<Bit>,
    k_grant: DFF<Bit>,
    k_dec: DFF<Bit>,
    k_row: DFF<Bit>,
    osm: DFF<Bits<S>>,
    osi: DFF<Bits<SB>>,
    /// A Row's entry: its row and lane.
    oc_row: DFF<Bits<NWB>>,
    oc_lane: DFF<Bits<G>>,
    /// The broadcast: read the cycle before from this lane of `rrect` (else `wrect`).
    bload: DFF<Bit>,
    bsel: DFF<Bits<G>>,
    bsrc_run: DFF<Bit>,
    bc: [DFF<Bits<57>>; A],
    /// A Grant's copy of the rectangles into its slot (row, lane) the next cycle.
    copy: DFF<Bit>,
    cq_row: DFF<Bits<NRB>>,
    cq_lane: DFF<Bits<G>>,
    /// A decision waiting for its Grant and its SM.
    held: DFF<Bit>,
    hsm: DFF<Bits<S>>,
    /// Pipeline: a row issued one / two cycles ago, its row, its lanes that take part, a
    /// Row's SM for it.
    p1_v: DFF<Bit>,
    p1_row: DFF<Bits<NWB>>,
    p1_acc: DFF<Bits<G>>,
    p1_si: DFF<Bits<SB>>,
    /// Per lane: the entry's score with the operation's SM is current (`sval`).
    p1_sv: DFF<Bits<G>>,
    p2_sv: DFF<Bits<G>>,
    p2_v: DFF<Bit>,
    p2_row: DFF<Bits<NWB>>,
    p2_acc: DFF<Bits<G>>,
    p2_si: DFF<Bits<SB>>,
    ov: [DFF<Bits<16>>; GA],
    unit: [RectOverlap; GA],
    /// A Row's running sums: the score with the SM of its last row, the total.
    racc_any: DFF<Bit>,
    racc: DFF<Bits<SCORE_BITS>>,
    racc_si: DFF<Bits<SB>>,
    rtot: DFF<Bits<OB>>,
    /// A Decide's pipeline: per lane its keys (`dk`), the survivors of two tournament levels
    /// on (score, id) and on (rest, id) (`qh`, `ql`); the operation's bests (`bh`, `bl`).
    dk_v: DFF<Bits<G>>,
    dk_sx: [DFF<Bits<SCORE_BITS>>; G],
    dk_rest: [DFF<Bits<OB>>; G],
    dk_id: [DFF<Bits<32>>; G],
    dk_row: DFF<Bits<NWB>>,
    qh_v: [DFF<Bit>; GQ],
    qh_sx: [DFF<Bits<SCORE_BITS>>; GQ],
    qh_id: [DFF<Bits<32>>; GQ],
    qh_c: [DFF<Bits<WB>>; GQ],
    ql_v: [DFF<Bit>; GQ],
    ql_rest: [DFF<Bits<OB>>; GQ],
    ql_id: [DFF<Bits<32>>; GQ],
    ql_c: [DFF<Bits<WB>>; GQ],
    bh_v: DFF<Bit>,
    bh_sx: DFF<Bits<SCORE_BITS>>,
    bh_id: DFF<Bits<32>>,
    bh_c: DFF<Bits<WB>>,
    bl_v: DFF<Bit>,
    bl_rest: DFF<Bits<OB>>,
    bl_id: DFF<Bits<32>>,
    bl_c: DFF<Bits<WB>>,
    /// Round robin over the SMs, as `base`: the SMs above the last served, the next pick.
    rr_above: DFF<Bits<S>>,
    rr_pick: DFF<Bits<S>>,
    rr_next: Signal<Local, Bits<S>>,
    rr_masked: Signal<Local, Bits<S>>,
    rr_req: Signal<Local, Bits<S>>,
    rr_scan: Signal<Local, Bits<S>>,
    has_free: Signal<Local, Bits<S>>,
    /// The lowest pending finish; the lowest waiting and the lowest free entry; the lowest
    /// entry row and slot row an operation has left.
    fin: FindFirst<R, RB>,
    first_wait: FindFirst<W, WB>,
    first_free: FindFirst<W, WB>,
    first_erow: FindFirst<NW, NWB>,
    first_srow: FindFirst<NR, NRB>,
    /// Entries valid and ready; entry rows holding one (without the winner, for a Grant).
    vr: Signal<Local, Bits<W>>,
    vr_rows: Signal<Local, Bits<NW>>,
    vrg_rows: Signal<Local, Bits<NW>>,
    /// The ready entries without the decision's (a Grant's rows).
    vr_nw: Signal<Local, Bits<W>>,
    occ_rows: Signal<Local, Bits<NR>>,
    /// The lowest waiting entry (one-hot, index, row, lane).
    wait_oh: Signal<Local, Bits<W>>,
    wait_c: Signal<Local, Bits<WB>>,
    /// The decision: from the hi order if its best score is above 0.
    win_c: Signal<Local, Bits<WB>>,
    win_id: Signal<Local, Bits<32>>,
    win_oh: Signal<Local, Bits<W>>,
    /// The SM of a decision: the pick, if it still has room; its index; its lowest free slot.
    x_ok: Signal<Local, Bit>,
    x_si: Signal<Local, Bits<SB>>,
    h_si: Signal<Local, Bits<SB>>,
    h_free: Signal<Local, Bits<J>>,
    h_slot_oh: Signal<Local, Bits<J>>,
    h_slot: Signal<Local, Bits<JB>>,
    /// Which operation starts this cycle.
    free_eng: Signal<Local, Bit>,
    filling: Signal<Local, Bit>,
    st_grant: Signal<Local, Bit>,
    st_drop: Signal<Local, Bit>,
    st_fin: Signal<Local, Bit>,
    st_dec: Signal<Local, Bit>,
    st_row: Signal<Local, Bit>,
    /// A Finish's slot: SM one-hot and index, RAM row and lane.
    f_sm: Signal<Local, Bits<S>>,
    f_si: Signal<Local, Bits<SB>>,
    /// A Grant's slot index `x * J + slot`.
    g_q: Signal<Local, Bits<RB>>,
    g_slot_oh: Signal<Local, Bits<R>>,
    /// The row issued this cycle (one-hot, index) and its lanes taking part.
    iss: Signal<Local, Bit>,
    ie_oh: Signal<Local, Bits<NW>>,
    ie_row: Signal<Local, Bits<NWB>>,
    is_oh: Signal<Local, Bits<NR>>,
    is_row: Signal<Local, Bits<NRB>>,
    i_acc: Signal<Local, Bits<G>>,
    i_sv: Signal<Local, Bits<G>>,
    i_si: Signal<Local, Bits<SB>>,
    /// Per lane: its rectangles (this cycle's RAM word), per (lane, array) one of them.
    lane_rect: [Signal<Local, Bits<RW>>; G],
    bc_word: Signal<Local, Bits<RW>>,
    /// Stage 3: per lane an in-place adder tree over its arrays, the current score and
    /// total, the new ones.
    plt: [Signal<Local, Bits<SCORE_BITS>>; GAP],
    cur: [Signal<Local, Bits<SCORE_BITS>>; G],
    plw: [Signal<Local, Bits<OB>>; G],
    new_score: [Signal<Local, Bits<SCORE_BITS>>; G],
    new_tot: [Signal<Local, Bits<OB>>; G],
    /// A Row's row sum (an in-place tree over the lanes), its new running sums.
    rsum: [Signal<Local, Bits<SCORE_BITS>>; G],
    racc_n: Signal<Local, Bits<SCORE_BITS>>,
    rtot_n: Signal<Local, Bits<OB>>,
    /// A Decide's lane keys, reduced in place over the lanes (index 0 ends with the row's
    /// best).
    th_v: [Signal<Local, Bit>; G],
    th_sx: [Signal<Local, Bits<SCORE_BITS>>; G],
    th_id: [Signal<Local, Bits<32>>; G],
    th_c: [Signal<Local, Bits<WB>>; G],
    tl_v: [Signal<Local, Bit>; G],
    tl_rest: [Signal<Local, Bits<OB>>; G],
    tl_id: [Signal<Local, Bits<32>>; G],
    tl_c: [Signal<Local, Bits<WB>>; G],
    /// Stage 3's tournament over the survivors, in place.
    uh_v: [Signal<Local, Bit>; GQ],
    uh_sx: [Signal<Local, Bits<SCORE_BITS>>; GQ],
    uh_id: [Signal<Local, Bits<32>>; GQ],
    uh_c: [Signal<Local, Bits<WB>>; GQ],
    ul_v: [Signal<Local, Bit>; GQ],
    ul_rest: [Signal<Local, Bits<OB>>; GQ],
    ul_id: [Signal<Local, Bits<32>>; GQ],
    ul_c: [Signal<Local, Bits<WB>>; GQ],
    /// Per lane its index, widened to an entry index.
    lane_c: [Constant<Bits<WB>>; G],
    hi_take: Signal<Local, Bit>,
    /// Loads: the lowest free entry.
    free_oh: Signal<Local, Bits<W>>,
    free_c: Signal<Local, Bits<WB>>,
    take: Signal<Local, Bit>,
    fill_word: Signal<Local, Bits<RW>>,
    occ_next: Signal<Local, Bits<R>>,
    /// The next `pend`, `valid`, `ready`, `sval`, `rr_above` (each assigned once to its
    /// register: rust-hdl's simulation reads a register's `d` as of the last pass).
    pend_n: Signal<Local, Bits<R>>,
    valid_n: Signal<Local, Bits<W>>,
    ready_n: Signal<Local, Bits<W>>,
    sval_n: [Signal<Local, Bits<W>>; S],
    /// The operation's SM's `sval` word; the lanes an update (`p2`) and a Row (`oc`) write,
    /// at their entry row.
    sv_sm: Signal<Local, Bits<W>>,
    upd_entries: Signal<Local, Bits<W>>,
    row_entries: Signal<Local, Bits<W>>,
    rr_above_n: Signal<Local, Bits<S>>,
    done_flat: Signal<Local, Bits<R>>,
    /// Temporaries for widening an indexed value.
    t16: Signal<Local, Bits<16>>,
    t24: Signal<Local, Bits<SCORE_BITS>>,
    t_ob: Signal<Local, Bits<OB>>,
    /// Indices split into RAM row and lane: the decision's entry, the waiting entry, the free
    /// entry, the pending finish's slot, the grant's slot.
    win_row: Signal<Local, Bits<NWB>>,
    win_lane: Signal<Local, Bits<GB>>,
    wait_row: Signal<Local, Bits<NWB>>,
    wait_lane: Signal<Local, Bits<GB>>,
    free_row: Signal<Local, Bits<NWB>>,
    free_lane: Signal<Local, Bits<GB>>,
    fin_row: Signal<Local, Bits<NRB>>,
    fin_lane: Signal<Local, Bits<GB>>,
    gq_row: Signal<Local, Bits<NRB>>,
    gq_lane: Signal<Local, Bits<GB>>,
    /// Score addresses: an update's read (`p1`) and write (`p2`), a Decide's read, a Row's
    /// write; a Decide's row as an entry index.
    sa_upd: Signal<Local, Bits<SAB>>,
    sa_dec: Signal<Local, Bits<SAB>>,
    sa_wupd: Signal<Local, Bits<SAB>>,
    sa_wrow: Signal<Local, Bits<SAB>>,
    dk_row_c: Signal<Local, Bits<WB>>,
    zero_sab: Constant<Bits<SAB>>,
    zero_rb: Constant<Bits<RB>>,
    shift: [Constant<Bits<8>>; SB],
    below_s: [Constant<Bits<S>>; S],
    index_s: [Constant<Bits<SB>>; S],
    index_j: [Constant<Bits<JB>>; J],
    index_nw: [Constant<Bits<NWB>>; NW],
    index_g: [Constant<Bits<GB>>; G],
    srow_si: [Constant<Bits<SB>>; NR],
    one_w: Constant<Bits<W>>,
    onehot_g: [Constant<Bits<G>>; G],
    one_j: Constant<Bits<J>>,
    one32: Constant<Bits<32>>,
    three3: Constant<Bits<3>>,
    seven3: Constant<Bits<3>>,
    one3: Constant<Bits<3>>,
    zero_w: Constant<Bits<W>>,
    zero_s: Constant<Bits<S>>,
    zero_j: Constant<Bits<J>>,
    zero_r: Constant<Bits<R>>,
    zero_g: Constant<Bits<G>>,
    zero_nw: Constant<Bits<NW>>,
    zero_nr: Constant<Bits<NR>>,
    zero_sb: Constant<Bits<SB>>,
    zero_jb: Constant<Bits<JB>>,
    zero_wb: Constant<Bits<WB>>,
    zero_nwb: Constant<Bits<NWB>>,
    zero_nrb: Constant<Bits<NRB>>,
    zero32: Constant<Bits<32>>,
    zero_rw: Constant<Bits<RW>>,
    zero_score: Constant<Bits<SCORE_BITS>>,
    zero_ob: Constant<Bits<OB>>,
    zero1: Constant<Bits<1>>,
    one1: Constant<Bits<1>>,
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const G: usize,
        const GB: usize,
        const NW: usize,
        const NWB: usize,
        const NR: usize,
        const NRB: usize,
        const RW: usize,
        const GA: usize,
        const SAB: usize,
        const AP: usize,
        const GAP: usize,
        const GQ: usize,
    > Default
    for LaDispatchSerial<
        S,
        SB,
        J,
        JB,
        W,
        WB,
        A,
        R,
        RB,
        OB,
        G,
        GB,
        NW,
        NWB,
        NR,
        NRB,
        RW,
        GA,
        SAB,
        AP,
        GAP,
        GQ,
    >
{
    fn default() -> Self {
        let clog = |n: usize| (usize::BITS - (n.max(2) - 1).leading_zeros()) as usize;
        assert!(S >= 2 && SB == clog(S) && J.is_power_of_two() && J >= 2 && JB == clog(J));
        assert!(R == S * J && R <= 128 && RB == clog(R) && W <= 64 && WB == clog(W));
        assert!(G.is_power_of_two() && G >= 2 && 1 << GB == G && W.is_multiple_of(G) && J.is_multiple_of(G));
        assert!(NW == W / G && NWB == clog(NW) && NR == R / G && NRB == SB + JB - GB);
        assert!(RW == 57 * A && GA == G * A && SAB == NWB + SB);
        assert!((1..=8).contains(&A) && AP.is_power_of_two() && AP >= A && AP / 2 < A);
        assert!(GAP == G * AP && 1 << (OB - SCORE_BITS) >= S && GQ == (G / 4).max(1));
        assert!(G <= 8, "a Decide's tournament has three levels");
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
            ready: Default::default(),
            sval: array_init::array_init(|_| Default::default()),
            occ: Default::default(),
            pend: Default::default(),
            wrect: array_init::array_init(|_| Default::default()),
            wid: array_init::array_init(|_| Default::default()),
            score: array_init::array_init(|_| Default::default()),
            tot: array_init::array_init(|_| Default::default()),
            rrect: array_init::array_init(|_| Default::default()),
            active: Default::default(),
            erows: Default::default(),
            srows: Default::default(),
            tail: Default::default(),
            k_fin: Default::default(),
            k_grant: Default::default(),
            k_dec: Default::default(),
            k_row: Default::default(),
            osm: Default::default(),
            osi: Default::default(),
            oc_row: Default::default(),
            oc_lane: Default::default(),
            bload: Default::default(),
            bsel: Default::default(),
            bsrc_run: Default::default(),
            bc: array_init::array_init(|_| Default::default()),
            copy: Default::default(),
            cq_row: Default::default(),
            cq_lane: Default::default(),
            held: Default::default(),
            hsm: Default::default(),
            p1_v: Default::default(),
            p1_row: Default::default(),
            p1_acc: Default::default(),
            p1_si: Default::default(),
            p1_sv: Default::default(),
            p2_sv: Default::default(),
            p2_v: Default::default(),
            p2_row: Default::default(),
            p2_acc: Default::default(),
            p2_si: Default::default(),
            ov: array_init::array_init(|_| Default::default()),
            unit: array_init::array_init(|_| Default::default()),
            racc_any: Default::default(),
            racc: Default::default(),
            racc_si: Default::default(),
            rtot: Default::default(),
            dk_v: Default::default(),
            dk_sx: array_init::array_init(|_| Default::default()),
            dk_rest: array_init::array_init(|_| Default::default()),
            dk_id: array_init::array_init(|_| Default::default()),
            dk_row: Default::default(),
            qh_v: array_init::array_init(|_| Default::default()),
            qh_sx: array_init::array_init(|_| Default::default()),
            qh_id: array_init::array_init(|_| Default::default()),
            qh_c: array_init::array_init(|_| Default::default()),
            ql_v: array_init::array_init(|_| Default::default()),
            ql_rest: array_init::array_init(|_| Default::default()),
            ql_id: array_init::array_init(|_| Default::default()),
            ql_c: array_init::array_init(|_| Default::default()),
            bh_v: Default::default(),
            bh_sx: Default::default(),
            bh_id: Default::default(),
            bh_c: Default::default(),
            bl_v: Default::default(),
            bl_rest: Default::default(),
            bl_id: Default::default(),
            bl_c: Default::default(),
            rr_above: Default::default(),
            rr_pick: Default::default(),
            rr_next: Default::default(),
            rr_masked: Default::default(),
            rr_req: Default::default(),
            rr_scan: Default::default(),
            has_free: Default::default(),
            fin: Default::default(),
            vr: Default::default(),
            vr_rows: Default::default(),
            vrg_rows: Default::default(),
            vr_nw: Default::default(),
            occ_rows: Default::default(),
            wait_oh: Default::default(),
            wait_c: Default::default(),
            first_wait: Default::default(),
            first_free: Default::default(),
            first_erow: Default::default(),
            first_srow: Default::default(),
            win_c: Default::default(),
            win_id: Default::default(),
            win_oh: Default::default(),
            x_ok: Default::default(),
            x_si: Default::default(),
            h_si: Default::default(),
            h_free: Default::default(),
            h_slot_oh: Default::default(),
            h_slot: Default::default(),
            free_eng: Default::default(),
            filling: Default::default(),
            st_grant: Default::default(),
            st_drop: Default::default(),
            st_fin: Default::default(),
            st_dec: Default::default(),
            st_row: Default::default(),
            f_sm: Default::default(),
            f_si: Default::default(),
            g_q: Default::default(),
            g_slot_oh: Default::default(),
            iss: Default::default(),
            ie_oh: Default::default(),
            ie_row: Default::default(),
            is_oh: Default::default(),
            is_row: Default::default(),
            i_acc: Default::default(),
            i_sv: Default::default(),
            i_si: Default::default(),
            lane_rect: array_init::array_init(|_| Default::default()),
            bc_word: Default::default(),
            plt: array_init::array_init(|_| Default::default()),
            cur: array_init::array_init(|_| Default::default()),
            plw: array_init::array_init(|_| Default::default()),
            new_score: array_init::array_init(|_| Default::default()),
            new_tot: array_init::array_init(|_| Default::default()),
            rsum: array_init::array_init(|_| Default::default()),
            racc_n: Default::default(),
            rtot_n: Default::default(),
            th_v: array_init::array_init(|_| Default::default()),
            th_sx: array_init::array_init(|_| Default::default()),
            th_id: array_init::array_init(|_| Default::default()),
            th_c: array_init::array_init(|_| Default::default()),
            tl_v: array_init::array_init(|_| Default::default()),
            tl_rest: array_init::array_init(|_| Default::default()),
            tl_id: array_init::array_init(|_| Default::default()),
            tl_c: array_init::array_init(|_| Default::default()),
            uh_v: array_init::array_init(|_| Default::default()),
            uh_sx: array_init::array_init(|_| Default::default()),
            uh_id: array_init::array_init(|_| Default::default()),
            uh_c: array_init::array_init(|_| Default::default()),
            ul_v: array_init::array_init(|_| Default::default()),
            ul_rest: array_init::array_init(|_| Default::default()),
            ul_id: array_init::array_init(|_| Default::default()),
            ul_c: array_init::array_init(|_| Default::default()),
            lane_c: index_table(),
            hi_take: Default::default(),
            free_oh: Default::default(),
            free_c: Default::default(),
            take: Default::default(),
            fill_word: Default::default(),
            occ_next: Default::default(),
            pend_n: Default::default(),
            valid_n: Default::default(),
            ready_n: Default::default(),
            sval_n: array_init::array_init(|_| Default::default()),
            sv_sm: Default::default(),
            upd_entries: Default::default(),
            row_entries: Default::default(),
            rr_above_n: Default::default(),
            done_flat: Default::default(),
            t16: Default::default(),
            t24: Default::default(),
            t_ob: Default::default(),
            win_row: Default::default(),
            win_lane: Default::default(),
            wait_row: Default::default(),
            wait_lane: Default::default(),
            free_row: Default::default(),
            free_lane: Default::default(),
            fin_row: Default::default(),
            fin_lane: Default::default(),
            gq_row: Default::default(),
            gq_lane: Default::default(),
            sa_upd: Default::default(),
            sa_dec: Default::default(),
            sa_wupd: Default::default(),
            sa_wrow: Default::default(),
            dk_row_c: Default::default(),
            zero_sab: constant(0),
            zero_rb: constant(0),
            shift: shift_table(),
            below_s: below_table(),
            index_s: index_table(),
            index_j: index_table(),
            index_nw: index_table(),
            index_g: index_table(),
            srow_si: array_init::array_init(|r| constant((r * G / J) as u64)),
            one_w: constant(1),
            onehot_g: onehot_table(),
            one_j: constant(1),
            one32: constant(1),
            three3: constant(3),
            seven3: constant(7),
            one3: constant(1),
            zero_w: constant(0),
            zero_s: constant(0),
            zero_j: constant(0),
            zero_r: constant(0),
            zero_g: constant(0),
            zero_nw: constant(0),
            zero_nr: constant(0),
            zero_sb: constant(0),
            zero_jb: constant(0),
            zero_wb: constant(0),
            zero_nwb: constant(0),
            zero_nrb: constant(0),
            zero32: constant(0),
            zero_rw: constant(0),
            zero_score: constant(0),
            zero_ob: constant(0),
            zero1: constant(0),
            one1: constant(1),
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
        const R: usize,
        const RB: usize,
        const OB: usize,
        const G: usize,
        const GB: usize,
        const NW: usize,
        const NWB: usize,
        const NR: usize,
        const NRB: usize,
        const RW: usize,
        const GA: usize,
        const SAB: usize,
        const AP: usize,
        const GAP: usize,
        const GQ: usize,
    > Logic
    for LaDispatchSerial<
        S,
        SB,
        J,
        JB,
        W,
        WB,
        A,
        R,
        RB,
        OB,
        G,
        GB,
        NW,
        NWB,
        NR,
        NRB,
        RW,
        GA,
        SAB,
        AP,
        GAP,
        GQ,
    >
{
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks and holds.
        dff_setup!(
            self, clock, total_q, fed, granted, valid, ready, occ, pend, active, erows,
            srows, tail, k_fin, k_grant, k_dec, k_row, osm, osi, oc_row, oc_lane, bload, bsel,
            bsrc_run, copy, cq_row, cq_lane, held, hsm, p1_v, p1_row, p1_acc, p1_si, p2_v,
            p2_row, p2_acc, p2_si, p1_sv, p2_sv, racc_any, racc, racc_si, rtot, dk_v, dk_row, bh_v, bh_sx, bh_id, bh_c, bl_v, bl_rest, bl_id, bl_c, rr_above,
            rr_pick
        );
        for a in 0..A {
            self.bc[a].clock.next = self.clock.val();
            self.bc[a].d.next = self.bc[a].q.val();
        }
        for e in 0..GA {
            self.ov[e].clock.next = self.clock.val();
            self.ov[e].d.next = self.ov[e].q.val();
        }
        for b in 0..G {
            self.wrect[b].clock.next = self.clock.val();
            self.wid[b].clock.next = self.clock.val();
            self.score[b].clock.next = self.clock.val();
            self.tot[b].clock.next = self.clock.val();
            self.rrect[b].clock.next = self.clock.val();
            self.wrect[b].write_enable.next = false;
            self.wid[b].write_enable.next = false;
            self.score[b].write_enable.next = false;
            self.tot[b].write_enable.next = false;
            self.rrect[b].write_enable.next = false;
            self.wrect[b].write_address.next = self.zero_nwb.val();
            self.wid[b].write_address.next = self.zero_nwb.val();
            self.tot[b].write_address.next = self.zero_nwb.val();
            self.rrect[b].write_address.next = self.zero_nrb.val();
            self.score[b].write_address.next = self.zero_sab.val();
            self.wrect[b].write_data.next = self.zero_rw.val();
            self.wid[b].write_data.next = self.zero32.val();
            self.tot[b].write_data.next = self.zero_ob.val();
            self.rrect[b].write_data.next = self.zero_rw.val();
            self.score[b].write_data.next = self.zero_score.val();
        }
        for s in 0..S {
            self.sval[s].clock.next = self.clock.val();
            self.sval_n[s].next = self.sval[s].q.val();
        }
        self.ready_n.next = self.ready.q.val();
        // Entries valid and ready, and the entry rows holding one; occupied slot rows.
        self.vr.next = self.valid.q.val() & self.ready.q.val();
        self.hi_take.next = self.bh_v.q.val() & (self.bh_sx.q.val() != self.zero_score.val());
        self.win_c.next = self.bl_c.q.val();
        self.win_id.next = self.bl_id.q.val();
        if self.hi_take.val() {
            self.win_c.next = self.bh_c.q.val();
            self.win_id.next = self.bh_id.q.val();
        }
        self.win_oh.next = self.one_w.val() << self.win_c.val();
        self.vr_nw.next = self.vr.val() & !self.win_oh.val();
        self.vr_rows.next = self.zero_nw.val();
        self.vrg_rows.next = self.zero_nw.val();
        self.occ_rows.next = self.zero_nr.val();
        for gn in G..(G + 1) {
            for r in 0..NW {
                self.vr_rows.next = self
                    .vr_rows
                    .val()
                    .replace_bit(r, self.vr.val().get_bits::<G>(r * gn).any());
                self.vrg_rows.next = self
                    .vrg_rows
                    .val()
                    .replace_bit(r, self.vr_nw.val().get_bits::<G>(r * gn).any());
            }
            for r in 0..NR {
                self.occ_rows.next = self
                    .occ_rows
                    .val()
                    .replace_bit(r, self.occ.q.val().get_bits::<G>(r * gn).any());
            }
        }
        // The lowest waiting entry; the lowest free entry.
        self.first_wait.req.next = self.valid.q.val() & !self.ready.q.val();
        self.wait_oh.next = self.first_wait.onehot.val();
        self.wait_c.next = self.first_wait.index.val();
        self.first_free.req.next = !self.valid.q.val();
        self.free_oh.next = self.first_free.onehot.val();
        self.free_c.next = self.first_free.index.val();
        // The decision's SM (picked the cycle before) and the held decision's SM, its lowest
        // free slot and that slot's index.
        self.x_ok.next = (self.rr_pick.q.val() & self.room.val()).any();
        self.x_si.next = self.zero_sb.val();
        self.h_si.next = self.zero_sb.val();
        for s in 0..S {
            if self.rr_pick.q.val().get_bit(s) {
                self.x_si.next = self.x_si.val() | self.index_s[s].val();
            }
            if self.hsm.q.val().get_bit(s) {
                self.h_si.next = self.h_si.val() | self.index_s[s].val();
            }
        }
        self.h_free.next = self.zero_j.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                if self.hsm.q.val().get_bit(s) {
                    self.h_free.next = self.h_free.val() | !self.occ.q.val().get_bits::<J>(s * jn);
                }
            }
        }
        self.h_slot_oh.next = self.h_free.val() & ((!self.h_free.val()) + self.one_j.val());
        self.h_slot.next = self.zero_jb.val();
        for j in 0..J {
            if self.h_slot_oh.val().get_bit(j) {
                self.h_slot.next = self.h_slot.val() | self.index_j[j].val();
            }
        }
        self.g_slot_oh.next = self.zero_r.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                if self.hsm.q.val().get_bit(s) {
                    for j in 0..J {
                        self.g_slot_oh.next = self
                            .g_slot_oh
                            .val()
                            .replace_bit(s * jn + j, self.h_slot_oh.val().get_bit(j));
                    }
                }
            }
        }
        self.g_q.next = self.zero_rb.val();
        for i in 0..JB {
            self.g_q.next = self.g_q.val().replace_bit(i, self.h_slot.val().get_bit(i));
        }
        for jbn in JB..(JB + 1) {
            for i in 0..SB {
                self.g_q.next = self.g_q.val().replace_bit(jbn + i, self.h_si.val().get_bit(i));
            }
        }
        // Entry and slot indices split into their RAM row and lane.
        for gbn in GB..(GB + 1) {
            self.win_row.next = self.win_c.val().get_bits::<NWB>(gbn);
            self.wait_row.next = self.wait_c.val().get_bits::<NWB>(gbn);
            self.free_row.next = self.free_c.val().get_bits::<NWB>(gbn);
            self.fin_row.next = self.fin.index.val().get_bits::<NRB>(gbn);
            self.gq_row.next = self.g_q.val().get_bits::<NRB>(gbn);
        }
        self.win_lane.next = self.win_c.val().get_bits::<GB>(0);
        self.wait_lane.next = self.wait_c.val().get_bits::<GB>(0);
        self.free_lane.next = self.free_c.val().get_bits::<GB>(0);
        self.fin_lane.next = self.fin.index.val().get_bits::<GB>(0);
        self.gq_lane.next = self.g_q.val().get_bits::<GB>(0);
        // The lowest pending finish: its SM.
        self.fin.req.next = self.pend.q.val();
        // Slot `s * J + j` of SM `s`: the index's upper bits, any of the SM's `J` bits.
        for jbn in JB..(JB + 1) {
            self.f_si.next = self.fin.index.val().get_bits::<SB>(jbn);
        }
        self.f_sm.next = self.zero_s.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                self.f_sm.next = self
                    .f_sm
                    .val()
                    .replace_bit(s, self.fin.onehot.val().get_bits::<J>(s * jn).any());
            }
        }
        // Which operation starts this cycle.
        self.free_eng.next = !self.active.q.val();
        self.filling.next = (self.fed.q.val() < self.total_q.q.val()) & (!self.valid.q.val()).any();
        self.st_grant.next = self.free_eng.val()
            & self.held.q.val()
            & (self.hsm.q.val() & self.room.val()).any();
        self.st_drop.next = self.free_eng.val()
            & self.held.q.val()
            & !(self.hsm.q.val() & self.room.val()).any();
        self.st_fin.next = self.free_eng.val() & !self.held.q.val() & self.fin.valid.val();
        self.st_dec.next = self.free_eng.val()
            & !self.held.q.val()
            & !self.fin.valid.val()
            & !self.filling.val()
            & self.vr.val().any()
            & self.x_ok.val();
        self.st_row.next = self.free_eng.val()
            & !self.held.q.val()
            & !self.fin.valid.val()
            & !self.st_dec.val()
            & self.wait_oh.val().any();
        // Outputs.
        self.grant.next = self.st_grant.val();
        self.grant_sm.next = self.zero_sb.val();
        self.grant_slot.next = self.zero_jb.val();
        self.grant_id.next = self.zero32.val();
        if self.st_grant.val() {
            self.grant_sm.next = self.h_si.val();
            self.grant_slot.next = self.h_slot.val();
            self.grant_id.next = self.win_id.val();
        }
        self.idle.next = self.granted.q.val() >= self.total_q.q.val();
        // The row issued this cycle: the lowest left.
        self.first_erow.req.next = self.erows.q.val();
        self.ie_oh.next = self.first_erow.onehot.val();
        self.ie_row.next = self.first_erow.index.val();
        self.first_srow.req.next = self.srows.q.val();
        self.is_oh.next = self.first_srow.onehot.val();
        self.is_row.next = self.first_srow.index.val();
        self.i_si.next = self.zero_sb.val();
        for r in 0..NR {
            if self.is_oh.val().get_bit(r) {
                self.i_si.next = self.i_si.val() | self.srow_si[r].val();
            }
        }
        self.iss.next = self.active.q.val() & (self.erows.q.val().any() | self.srows.q.val().any());
        // The issued row's lanes: its ready entries or occupied slots (a row's `G` bits), and
        // whether each entry's score with the operation's SM is current (the row's `G` bits of
        // that SM's `sval` word).
        self.i_acc.next = self.zero_g.val();
        self.i_sv.next = self.zero_g.val();
        for gn in G..(G + 1) {
            for r in 0..NW {
                if self.ie_oh.val().get_bit(r) {
                    self.i_acc.next = self.i_acc.val() | self.vr.val().get_bits::<G>(r * gn);
                }
            }
            for r in 0..NR {
                if self.is_oh.val().get_bit(r) {
                    self.i_acc.next = self.i_acc.val() | self.occ.q.val().get_bits::<G>(r * gn);
                }
            }
            self.sv_sm.next = self.zero_w.val();
            for s in 0..S {
                if self.osm.q.val().get_bit(s) {
                    self.sv_sm.next = self.sval[s].q.val();
                }
            }
            for r in 0..NW {
                if self.ie_oh.val().get_bit(r) {
                    self.i_sv.next = self.sv_sm.val().get_bits::<G>(r * gn);
                }
            }
        }
        // The engine's rows and drain.
        self.erows.d.next = self.erows.q.val() & !self.ie_oh.val();
        self.srows.d.next = self.srows.q.val() & !self.is_oh.val();
        if self.active.q.val() & !self.iss.val() {
            self.tail.d.next = self.tail.q.val() >> self.shift[0].val();
            if self.tail.q.val() == self.one3.val() {
                self.active.d.next = false;
            }
        }
        // Score addresses `row * 2^SB + sm`: an update's read and write, a Decide's read, a
        // Row's write.
        self.sa_upd.next = self.zero_sab.val();
        self.sa_dec.next = self.zero_sab.val();
        self.sa_wupd.next = self.zero_sab.val();
        self.sa_wrow.next = self.zero_sab.val();
        for i in 0..SB {
            self.sa_upd.next = self.sa_upd.val().replace_bit(i, self.osi.q.val().get_bit(i));
            self.sa_dec.next = self.sa_dec.val().replace_bit(i, self.osi.q.val().get_bit(i));
            self.sa_wupd.next = self.sa_wupd.val().replace_bit(i, self.osi.q.val().get_bit(i));
            self.sa_wrow.next = self.sa_wrow.val().replace_bit(i, self.p2_si.q.val().get_bit(i));
        }
        for sbn in SB..(SB + 1) {
            for i in 0..NWB {
                self.sa_upd.next =
                    self.sa_upd.val().replace_bit(sbn + i, self.p1_row.q.val().get_bit(i));
                self.sa_dec.next = self.sa_dec.val().replace_bit(sbn + i, self.ie_row.val().get_bit(i));
                self.sa_wupd.next =
                    self.sa_wupd.val().replace_bit(sbn + i, self.p2_row.q.val().get_bit(i));
                self.sa_wrow.next =
                    self.sa_wrow.val().replace_bit(sbn + i, self.oc_row.q.val().get_bit(i));
            }
        }
        self.dk_row_c.next = self.zero_wb.val();
        for gbn in GB..(GB + 1) {
            for i in 0..NWB {
                self.dk_row_c.next =
                    self.dk_row_c.val().replace_bit(gbn + i, self.dk_row.q.val().get_bit(i));
            }
        }
        // Table reads: the broadcast at an operation's start, else the issued row.
        for b in 0..G {
            self.wrect[b].read_address.next = self.ie_row.val();
            if self.st_grant.val() {
                self.wrect[b].read_address.next = self.win_row.val();
            }
            if self.st_row.val() {
                self.wrect[b].read_address.next = self.wait_row.val();
            }
            self.rrect[b].read_address.next = self.is_row.val();
            if self.st_fin.val() {
                self.rrect[b].read_address.next = self.fin_row.val();
            }
            self.wid[b].read_address.next = self.ie_row.val();
            self.tot[b].read_address.next = self.p1_row.q.val();
            self.score[b].read_address.next = self.sa_upd.val();
            if self.k_dec.q.val() {
                self.tot[b].read_address.next = self.ie_row.val();
                self.score[b].read_address.next = self.sa_dec.val();
            }
        }
        // Stage 1 (`u + 1`): the broadcast's word, the lanes' words, the overlaps.
        self.bc_word.next = self.zero_rw.val();
        for b in 0..G {
            self.lane_rect[b].next = self.wrect[b].read_data.val();
            if self.k_row.q.val() {
                self.lane_rect[b].next = self.rrect[b].read_data.val();
            }
            if self.bsel.q.val().get_bit(b) {
                self.bc_word.next = self.wrect[b].read_data.val();
                if self.bsrc_run.q.val() {
                    self.bc_word.next = self.rrect[b].read_data.val();
                }
            }
        }
        for rb in 57..58 {
            for a in 0..A {
                if self.bload.q.val() {
                    self.bc[a].d.next = self.bc_word.val().get_bits::<57>(a * rb);
                }
            }
        }
        for an in A..(A + 1) {
            for rb in 57..58 {
                for b in 0..G {
                    for a in 0..A {
                        self.unit[b * an + a].a.next = self.lane_rect[b].val().get_bits::<57>(a * rb);
                        self.unit[b * an + a].b.next = self.bc[a].q.val();
                        self.ov[b * an + a].d.next = self.unit[b * an + a].lines.val();
                    }
                }
            }
        }
        // A Grant's copy of its rectangles into the slot.
        for b in 0..G {
            if self.copy.q.val() & self.cq_lane.q.val().get_bit(b) {
                self.rrect[b].write_enable.next = true;
                self.rrect[b].write_address.next = self.cq_row.q.val();
                self.rrect[b].write_data.next = self.bc_word.val();
            }
        }
        self.copy.d.next = false;
        self.bload.d.next = false;
        // A Decide, stage 1 (`u + 1`): per lane its keys (its score with the SM, 0 when not
        // current; the rest of its total), registered.
        for b in 0..G {
            self.dk_sx[b].clock.next = self.clock.val();
            self.dk_rest[b].clock.next = self.clock.val();
            self.dk_id[b].clock.next = self.clock.val();
            self.t24.next = self.zero_score.val();
            if self.p1_sv.q.val().get_bit(b) {
                self.t24.next = self.score[b].read_data.val();
            }
            self.dk_sx[b].d.next = self.t24.val();
            self.t_ob.next = self.zero_ob.val();
            for i in 0..SCORE_BITS {
                self.t_ob.next = self.t_ob.val().replace_bit(i, self.t24.val().get_bit(i));
            }
            self.dk_rest[b].d.next =
                self.tot[b].read_data.val() - self.t_ob.val();
            self.dk_id[b].d.next = self.wid[b].read_data.val();
        }
        self.dk_v.d.next = self.zero_g.val();
        if self.p1_v.q.val() & self.k_dec.q.val() {
            self.dk_v.d.next = self.p1_acc.q.val();
        }
        self.dk_row.d.next = self.p1_row.q.val();
        // Stage 2 (`u + 2`): two levels of the lanes' tournament on each order, in place; the
        // survivors registered.
        for b in 0..G {
            self.th_v[b].next = self.dk_v.q.val().get_bit(b);
            self.th_sx[b].next = self.dk_sx[b].q.val();
            self.th_id[b].next = self.dk_id[b].q.val();
            self.th_c[b].next = self.dk_row_c.val() | self.lane_c[b].val();
            self.tl_v[b].next = self.dk_v.q.val().get_bit(b);
            self.tl_rest[b].next = self.dk_rest[b].q.val();
            self.tl_id[b].next = self.dk_id[b].q.val();
            self.tl_c[b].next = self.th_c[b].val();
        }
        for i in 0..(G / 2) {
            if self.th_v[2 * i + 1].val()
                & (!self.th_v[2 * i].val()
                    | (self.th_sx[2 * i + 1].val() > self.th_sx[2 * i].val())
                    | ((self.th_sx[2 * i + 1].val() == self.th_sx[2 * i].val())
                        & (self.th_id[2 * i + 1].val() < self.th_id[2 * i].val())))
            {
                self.th_v[i].next = true;
                self.th_sx[i].next = self.th_sx[2 * i + 1].val();
                self.th_id[i].next = self.th_id[2 * i + 1].val();
                self.th_c[i].next = self.th_c[2 * i + 1].val();
            } else {
                self.th_v[i].next = self.th_v[2 * i].val();
                self.th_sx[i].next = self.th_sx[2 * i].val();
                self.th_id[i].next = self.th_id[2 * i].val();
                self.th_c[i].next = self.th_c[2 * i].val();
            }
            if self.tl_v[2 * i + 1].val()
                & (!self.tl_v[2 * i].val()
                    | (self.tl_rest[2 * i + 1].val() < self.tl_rest[2 * i].val())
                    | ((self.tl_rest[2 * i + 1].val() == self.tl_rest[2 * i].val())
                        & (self.tl_id[2 * i + 1].val() < self.tl_id[2 * i].val())))
            {
                self.tl_v[i].next = true;
                self.tl_rest[i].next = self.tl_rest[2 * i + 1].val();
                self.tl_id[i].next = self.tl_id[2 * i + 1].val();
                self.tl_c[i].next = self.tl_c[2 * i + 1].val();
            } else {
                self.tl_v[i].next = self.tl_v[2 * i].val();
                self.tl_rest[i].next = self.tl_rest[2 * i].val();
                self.tl_id[i].next = self.tl_id[2 * i].val();
                self.tl_c[i].next = self.tl_c[2 * i].val();
            }
        }
        for i in 0..(G / 4) {
            if self.th_v[2 * i + 1].val()
                & (!self.th_v[2 * i].val()
                    | (self.th_sx[2 * i + 1].val() > self.th_sx[2 * i].val())
                    | ((self.th_sx[2 * i + 1].val() == self.th_sx[2 * i].val())
                        & (self.th_id[2 * i + 1].val() < self.th_id[2 * i].val())))
            {
                self.th_v[i].next = true;
                self.th_sx[i].next = self.th_sx[2 * i + 1].val();
                self.th_id[i].next = self.th_id[2 * i + 1].val();
                self.th_c[i].next = self.th_c[2 * i + 1].val();
            } else {
                self.th_v[i].next = self.th_v[2 * i].val();
                self.th_sx[i].next = self.th_sx[2 * i].val();
                self.th_id[i].next = self.th_id[2 * i].val();
                self.th_c[i].next = self.th_c[2 * i].val();
            }
            if self.tl_v[2 * i + 1].val()
                & (!self.tl_v[2 * i].val()
                    | (self.tl_rest[2 * i + 1].val() < self.tl_rest[2 * i].val())
                    | ((self.tl_rest[2 * i + 1].val() == self.tl_rest[2 * i].val())
                        & (self.tl_id[2 * i + 1].val() < self.tl_id[2 * i].val())))
            {
                self.tl_v[i].next = true;
                self.tl_rest[i].next = self.tl_rest[2 * i + 1].val();
                self.tl_id[i].next = self.tl_id[2 * i + 1].val();
                self.tl_c[i].next = self.tl_c[2 * i + 1].val();
            } else {
                self.tl_v[i].next = self.tl_v[2 * i].val();
                self.tl_rest[i].next = self.tl_rest[2 * i].val();
                self.tl_id[i].next = self.tl_id[2 * i].val();
                self.tl_c[i].next = self.tl_c[2 * i].val();
            }
        }
        for i in 0..GQ {
            self.qh_v[i].clock.next = self.clock.val();
            self.qh_sx[i].clock.next = self.clock.val();
            self.qh_id[i].clock.next = self.clock.val();
            self.qh_c[i].clock.next = self.clock.val();
            self.ql_v[i].clock.next = self.clock.val();
            self.ql_rest[i].clock.next = self.clock.val();
            self.ql_id[i].clock.next = self.clock.val();
            self.ql_c[i].clock.next = self.clock.val();
            self.qh_v[i].d.next = self.th_v[i].val();
            self.qh_sx[i].d.next = self.th_sx[i].val();
            self.qh_id[i].d.next = self.th_id[i].val();
            self.qh_c[i].d.next = self.th_c[i].val();
            self.ql_v[i].d.next = self.tl_v[i].val();
            self.ql_rest[i].d.next = self.tl_rest[i].val();
            self.ql_id[i].d.next = self.tl_id[i].val();
            self.ql_c[i].d.next = self.tl_c[i].val();
        }
        // Stage 3 (`u + 3`): the rest of the tournament, merged into the operation's best.
        for i in 0..GQ {
            self.uh_v[i].next = self.qh_v[i].q.val();
            self.uh_sx[i].next = self.qh_sx[i].q.val();
            self.uh_id[i].next = self.qh_id[i].q.val();
            self.uh_c[i].next = self.qh_c[i].q.val();
            self.ul_v[i].next = self.ql_v[i].q.val();
            self.ul_rest[i].next = self.ql_rest[i].q.val();
            self.ul_id[i].next = self.ql_id[i].q.val();
            self.ul_c[i].next = self.ql_c[i].q.val();
        }
        for i in 0..(GQ / 2) {
            if self.uh_v[2 * i + 1].val()
                & (!self.uh_v[2 * i].val()
                    | (self.uh_sx[2 * i + 1].val() > self.uh_sx[2 * i].val())
                    | ((self.uh_sx[2 * i + 1].val() == self.uh_sx[2 * i].val())
                        & (self.uh_id[2 * i + 1].val() < self.uh_id[2 * i].val())))
            {
                self.uh_v[i].next = true;
                self.uh_sx[i].next = self.uh_sx[2 * i + 1].val();
                self.uh_id[i].next = self.uh_id[2 * i + 1].val();
                self.uh_c[i].next = self.uh_c[2 * i + 1].val();
            } else {
                self.uh_v[i].next = self.uh_v[2 * i].val();
                self.uh_sx[i].next = self.uh_sx[2 * i].val();
                self.uh_id[i].next = self.uh_id[2 * i].val();
                self.uh_c[i].next = self.uh_c[2 * i].val();
            }
            if self.ul_v[2 * i + 1].val()
                & (!self.ul_v[2 * i].val()
                    | (self.ul_rest[2 * i + 1].val() < self.ul_rest[2 * i].val())
                    | ((self.ul_rest[2 * i + 1].val() == self.ul_rest[2 * i].val())
                        & (self.ul_id[2 * i + 1].val() < self.ul_id[2 * i].val())))
            {
                self.ul_v[i].next = true;
                self.ul_rest[i].next = self.ul_rest[2 * i + 1].val();
                self.ul_id[i].next = self.ul_id[2 * i + 1].val();
                self.ul_c[i].next = self.ul_c[2 * i + 1].val();
            } else {
                self.ul_v[i].next = self.ul_v[2 * i].val();
                self.ul_rest[i].next = self.ul_rest[2 * i].val();
                self.ul_id[i].next = self.ul_id[2 * i].val();
                self.ul_c[i].next = self.ul_c[2 * i].val();
            }
        }
        if self.uh_v[0].val()
            & (!self.bh_v.q.val()
                | (self.uh_sx[0].val() > self.bh_sx.q.val())
                | ((self.uh_sx[0].val() == self.bh_sx.q.val())
                    & (self.uh_id[0].val() < self.bh_id.q.val())))
        {
            self.bh_v.d.next = true;
            self.bh_sx.d.next = self.uh_sx[0].val();
            self.bh_id.d.next = self.uh_id[0].val();
            self.bh_c.d.next = self.uh_c[0].val();
        }
        if self.ul_v[0].val()
            & (!self.bl_v.q.val()
                | (self.ul_rest[0].val() < self.bl_rest.q.val())
                | ((self.ul_rest[0].val() == self.bl_rest.q.val())
                    & (self.ul_id[0].val() < self.bl_id.q.val())))
        {
            self.bl_v.d.next = true;
            self.bl_rest.d.next = self.ul_rest[0].val();
            self.bl_id.d.next = self.ul_id[0].val();
            self.bl_c.d.next = self.ul_c[0].val();
        }
        // Stage 2 of an update or Row: per lane the sum of its arrays' overlaps.
        for an in A..(A + 1) {
            for apn in AP..(AP + 1) {
                for b in 0..G {
                    for a in 0..AP {
                        self.plt[b * apn + a].next = self.zero_score.val();
                    }
                    for a in 0..A {
                        self.t16.next = self.ov[b * an + a].q.val();
                        self.t24.next = self.zero_score.val();
                        for i in 0..16 {
                            self.t24.next = self.t24.val().replace_bit(i, self.t16.val().get_bit(i));
                        }
                        self.plt[b * apn + a].next = self.t24.val();
                    }
                    for i in 0..(AP / 2) {
                        self.plt[b * apn + i].next =
                            self.plt[b * apn + 2 * i].val() + self.plt[b * apn + 2 * i + 1].val();
                    }
                    for i in 0..(AP / 4) {
                        self.plt[b * apn + i].next =
                            self.plt[b * apn + 2 * i].val() + self.plt[b * apn + 2 * i + 1].val();
                    }
                    for i in 0..(AP / 8) {
                        self.plt[b * apn + i].next =
                            self.plt[b * apn + 2 * i].val() + self.plt[b * apn + 2 * i + 1].val();
                    }
                    self.rsum[b].next = self.zero_score.val();
                    if self.p2_acc.q.val().get_bit(b) {
                        self.rsum[b].next = self.plt[b * apn].val();
                    }
                }
            }
        }
        // An update (Finish, Grant): each taking lane's score with the SM and total.
        for apn in AP..(AP + 1) {
            for b in 0..G {
                self.cur[b].next = self.zero_score.val();
                if self.p2_sv.q.val().get_bit(b) {
                    self.cur[b].next = self.score[b].read_data.val();
                }
                self.t24.next = self.plt[b * apn].val();
                self.t_ob.next = self.zero_ob.val();
                for i in 0..SCORE_BITS {
                    self.t_ob.next = self.t_ob.val().replace_bit(i, self.t24.val().get_bit(i));
                }
                self.plw[b].next = self.t_ob.val();
                self.new_score[b].next = self.cur[b].val() + self.plt[b * apn].val();
                self.new_tot[b].next = self.tot[b].read_data.val() + self.plw[b].val();
                if self.k_fin.q.val() {
                    self.new_score[b].next = self.cur[b].val() - self.plt[b * apn].val();
                    self.new_tot[b].next = self.tot[b].read_data.val() - self.plw[b].val();
                }
                if self.p2_v.q.val()
                    & (self.k_fin.q.val() | self.k_grant.q.val())
                    & self.p2_acc.q.val().get_bit(b)
                {
                    self.score[b].write_enable.next = true;
                    self.score[b].write_address.next = self.sa_wupd.val();
                    self.score[b].write_data.next = self.new_score[b].val();
                    self.tot[b].write_enable.next = true;
                    self.tot[b].write_address.next = self.p2_row.q.val();
                    self.tot[b].write_data.next = self.new_tot[b].val();
                }
            }
        }
        // The score words an update or a Row writes are current from the next cycle: the
        // lanes it writes, at its entry row, in the word of its SM.
        self.upd_entries.next = self.zero_w.val();
        self.row_entries.next = self.zero_w.val();
        for gn in G..(G + 1) {
            for r in 0..NW {
                for b in 0..G {
                    self.upd_entries.next = self.upd_entries.val().replace_bit(
                        r * gn + b,
                        (self.p2_row.q.val() == self.index_nw[r].val())
                            & self.p2_acc.q.val().get_bit(b),
                    );
                    self.row_entries.next = self.row_entries.val().replace_bit(
                        r * gn + b,
                        (self.oc_row.q.val() == self.index_nw[r].val())
                            & self.oc_lane.q.val().get_bit(b),
                    );
                }
            }
        }
        if self.p2_v.q.val() & (self.k_fin.q.val() | self.k_grant.q.val()) {
            for s in 0..S {
                if self.osm.q.val().get_bit(s) {
                    self.sval_n[s].next = self.sval_n[s].val() | self.upd_entries.val();
                }
            }
        }
        // A Row: the row's sum over its lanes (in place), added to the entry's score with the
        // row's SM (a new SM starts from 0) and to its total.
        for i in 0..(G / 2) {
            self.rsum[i].next = self.rsum[2 * i].val() + self.rsum[2 * i + 1].val();
        }
        for i in 0..(G / 4) {
            self.rsum[i].next = self.rsum[2 * i].val() + self.rsum[2 * i + 1].val();
        }
        for i in 0..(G / 8) {
            self.rsum[i].next = self.rsum[2 * i].val() + self.rsum[2 * i + 1].val();
        }
        self.racc_n.next = self.rsum[0].val();
        if self.racc_any.q.val() & (self.racc_si.q.val() == self.p2_si.q.val()) {
            self.racc_n.next = self.racc.q.val() + self.rsum[0].val();
        }
        self.t_ob.next = self.zero_ob.val();
        for i in 0..SCORE_BITS {
            self.t_ob.next = self.t_ob.val().replace_bit(i, self.rsum[0].val().get_bit(i));
        }
        self.rtot_n.next = self.rtot.q.val() + self.t_ob.val();
        if self.p2_v.q.val() & self.k_row.q.val() {
            self.racc_any.d.next = true;
            self.racc.d.next = self.racc_n.val();
            self.racc_si.d.next = self.p2_si.q.val();
            self.rtot.d.next = self.rtot_n.val();
            for b in 0..G {
                if self.oc_lane.q.val().get_bit(b) {
                    self.score[b].write_enable.next = true;
                    self.score[b].write_address.next = self.sa_wrow.val();
                    self.score[b].write_data.next = self.racc_n.val();
                    self.tot[b].write_enable.next = true;
                    self.tot[b].write_address.next = self.oc_row.q.val();
                    self.tot[b].write_data.next = self.rtot_n.val();
                }
            }
            for s in 0..S {
                if self.p2_si.q.val() == self.index_s[s].val() {
                    self.sval_n[s].next = self.sval_n[s].val() | self.row_entries.val();
                }
            }
        }
        // The pipeline advances.
        self.p1_v.d.next = self.iss.val();
        self.p1_row.d.next = self.ie_row.val();
        self.p1_acc.d.next = self.i_acc.val();
        self.p1_si.d.next = self.i_si.val();
        self.p1_sv.d.next = self.i_sv.val();
        self.p2_sv.d.next = self.p1_sv.q.val();
        self.p2_v.d.next = self.p1_v.q.val();
        self.p2_row.d.next = self.p1_row.q.val();
        self.p2_acc.d.next = self.p1_acc.q.val();
        self.p2_si.d.next = self.p1_si.q.val();
        // An operation starts: its kind, SM, rows, broadcast.
        if self.st_grant.val() | self.st_fin.val() | self.st_dec.val() | self.st_row.val() {
            self.active.d.next = true;
            self.tail.d.next = self.three3.val();
            if self.st_dec.val() {
                self.tail.d.next = self.seven3.val();
            }
            self.k_fin.d.next = self.st_fin.val();
            self.k_grant.d.next = self.st_grant.val();
            self.k_dec.d.next = self.st_dec.val();
            self.k_row.d.next = self.st_row.val();
            self.bload.d.next = true;
            self.erows.d.next = self.vr_rows.val();
            self.srows.d.next = self.zero_nr.val();
        }
        if self.st_drop.val() {
            self.held.d.next = false;
        }
        if self.st_grant.val() {
            self.held.d.next = false;
            self.osm.d.next = self.hsm.q.val();
            self.osi.d.next = self.h_si.val();
            self.erows.d.next = self.vrg_rows.val();
            self.bsrc_run.d.next = false;
            self.bsel.d.next = self.zero_g.val();
            for b in 0..G {
                if self.win_lane.val() == self.index_g[b].val() {
                    self.bsel.d.next = self.onehot_g[b].val();
                }
            }
            self.copy.d.next = true;
            self.cq_row.d.next = self.gq_row.val();
            self.cq_lane.d.next = self.zero_g.val();
            for b in 0..G {
                if self.gq_lane.val() == self.index_g[b].val() {
                    self.cq_lane.d.next = self.onehot_g[b].val();
                }
            }
            self.granted.d.next = self.granted.q.val() + self.one32.val();
        }
        if self.st_fin.val() {
            self.osm.d.next = self.f_sm.val();
            self.osi.d.next = self.f_si.val();
            self.bsrc_run.d.next = true;
            self.bsel.d.next = self.zero_g.val();
            for b in 0..G {
                if self.fin_lane.val() == self.index_g[b].val() {
                    self.bsel.d.next = self.onehot_g[b].val();
                }
            }
        }
        if self.st_dec.val() {
            self.held.d.next = true;
            self.hsm.d.next = self.rr_pick.q.val();
            self.osm.d.next = self.rr_pick.q.val();
            self.osi.d.next = self.x_si.val();
            self.bh_v.d.next = false;
            self.bl_v.d.next = false;
        }
        if self.st_row.val() {
            self.erows.d.next = self.zero_nw.val();
            self.srows.d.next = self.occ_rows.val();
            self.bsrc_run.d.next = false;
            self.bsel.d.next = self.zero_g.val();
            self.oc_lane.d.next = self.zero_g.val();
            for b in 0..G {
                if self.wait_lane.val() == self.index_g[b].val() {
                    self.bsel.d.next = self.onehot_g[b].val();
                    self.oc_lane.d.next = self.onehot_g[b].val();
                    self.tot[b].write_enable.next = true;
                    self.tot[b].write_address.next = self.wait_row.val();
                    self.tot[b].write_data.next = self.zero_ob.val();
                }
            }
            self.oc_row.d.next = self.wait_row.val();
            self.racc_any.d.next = false;
            self.rtot.d.next = self.zero_ob.val();
            self.ready_n.next = self.ready.q.val() | self.wait_oh.val();
            for s in 0..S {
                self.sval_n[s].next = self.sval_n[s].val() & !self.wait_oh.val();
            }
        }
        // The running slots: a Finish frees its slot, a Grant takes one; finished blocks wait
        // for their Finish.
        self.done_flat.next = self.zero_r.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                for j in 0..J {
                    self.done_flat.next = self
                        .done_flat
                        .val()
                        .replace_bit(s * jn + j, self.done[s].val().get_bit(j));
                }
            }
        }
        self.occ_next.next = self.occ.q.val();
        self.pend_n.next = self.pend.q.val();
        if self.st_fin.val() {
            self.occ_next.next = self.occ.q.val() & !self.fin.onehot.val();
            self.pend_n.next = self.pend.q.val() & !self.fin.onehot.val();
        }
        if self.st_grant.val() {
            self.occ_next.next = self.occ.q.val() | self.g_slot_oh.val();
        }
        self.occ.d.next = self.occ_next.val();
        self.pend.d.next = self.pend_n.val() | (self.done_flat.val() & self.occ_next.val());
        // The window: a Grant's entry leaves; the lowest free entry takes the presented block.
        self.valid_n.next = self.valid.q.val();
        if self.st_grant.val() {
            self.valid_n.next = self.valid.q.val() & !self.win_oh.val();
        }
        self.take.next = (self.fill_count.val() != self.zero1.val())
            & (!self.valid.q.val()).any()
            & (self.fed.q.val() < self.total_q.q.val());
        self.fill_taken.next = self.zero1.val();
        self.fill_word.next = self.zero_rw.val();
        for rb in 57..58 {
            for a in 0..A {
                for i in 0..57 {
                    self.fill_word.next = self
                        .fill_word
                        .val()
                        .replace_bit(a * rb + i, self.fill_rect[a].val().get_bit(i));
                }
            }
        }
        if self.take.val() {
            self.fill_taken.next = self.one1.val();
            self.fed.d.next = self.fed.q.val() + self.one32.val();
            self.valid_n.next = self.valid_n.val() | self.free_oh.val();
            self.ready_n.next = self.ready_n.val() & !self.free_oh.val();
            for b in 0..G {
                if self.free_lane.val() == self.index_g[b].val() {
                    self.wrect[b].write_enable.next = true;
                    self.wrect[b].write_address.next = self.free_row.val();
                    self.wrect[b].write_data.next = self.fill_word.val();
                    self.wid[b].write_enable.next = true;
                    self.wid[b].write_address.next = self.free_row.val();
                    self.wid[b].write_data.next = self.fed.q.val();
                }
            }
        }
        // Next cycle's SM, as `base`: from this cycle's `room`, the slots after the edge and
        // the round robin after the edge.
        self.rr_scan.next = self.hsm.q.val();
        for k in 0..SB {
            self.rr_scan.next = self.rr_scan.val() | (self.rr_scan.val() << self.shift[k].val());
        }
        self.rr_above_n.next = self.rr_above.q.val();
        if self.st_grant.val() {
            self.rr_above_n.next = self.rr_scan.val() << self.shift[0].val();
        }
        if self.start.val() | self.reset.val() {
            self.rr_above_n.next = self.zero_s.val();
        }
        self.rr_above.d.next = self.rr_above_n.val();
        self.has_free.next = self.zero_s.val();
        for jn in J..(J + 1) {
            for s in 0..S {
                self.has_free.next = self.has_free.val().replace_bit(
                    s,
                    !self.occ_next.val().get_bits::<J>(s * jn).all(),
                );
            }
        }
        self.rr_req.next = self.room.val() & self.has_free.val();
        self.rr_masked.next = self.rr_req.val() & self.rr_above_n.val();
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
        self.valid.d.next = self.valid_n.val();
        self.ready.d.next = self.ready_n.val();
        for s in 0..S {
            self.sval[s].d.next = self.sval_n[s].val();
        }
        // A kernel starts: the window empties, the engine stops (a Grant's copy completes).
        if self.start.val() {
            self.total_q.d.next = self.total.val();
            self.fed.d.next = self.zero32.val();
            self.granted.d.next = self.zero32.val();
            self.valid.d.next = self.zero_w.val();
            self.ready.d.next = self.zero_w.val();
            self.held.d.next = false;
            self.active.d.next = false;
            self.erows.d.next = self.zero_nw.val();
            self.srows.d.next = self.zero_nr.val();
            self.p1_v.d.next = false;
            self.p2_v.d.next = false;
        }
        if self.reset.val() {
            self.rr_pick.d.next = self.zero_s.val();
            self.total_q.d.next = self.zero32.val();
            self.fed.d.next = self.zero32.val();
            self.granted.d.next = self.zero32.val();
            self.valid.d.next = self.zero_w.val();
            self.ready.d.next = self.zero_w.val();
            self.occ.d.next = self.zero_r.val();
            self.pend.d.next = self.zero_r.val();
            self.held.d.next = false;
            self.active.d.next = false;
            self.erows.d.next = self.zero_nw.val();
            self.srows.d.next = self.zero_nr.val();
            self.p1_v.d.next = false;
            self.p2_v.d.next = false;
            self.copy.d.next = false;
            self.bload.d.next = false;
            self.k_fin.d.next = false;
            self.k_grant.d.next = false;
            self.k_dec.d.next = false;
            self.k_row.d.next = false;
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
        const R: usize,
        const RB: usize,
        const OB: usize,
        const G: usize,
        const GB: usize,
        const NW: usize,
        const NWB: usize,
        const NR: usize,
        const NRB: usize,
        const RW: usize,
        const GA: usize,
        const SAB: usize,
        const AP: usize,
        const GAP: usize,
        const GQ: usize,
    > Clocked
    for LaDispatchSerial<
        S,
        SB,
        J,
        JB,
        W,
        WB,
        A,
        R,
        RB,
        OB,
        G,
        GB,
        NW,
        NWB,
        NR,
        NRB,
        RW,
        GA,
        SAB,
        AP,
        GAP,
        GQ,
    >
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi`: 15 SMs x 8 slots, a window of 32, five arrays, 8 lanes.
pub type SerialFermi = LaDispatchSerial<
    15, 4, 8, 3, 32, 5, 5, 120, 7, 28, 8, 3, 4, 2, 15, 4, 285, 40, 6, 8, 64, 2,
>;
/// `proto`: 4 SMs x 4 slots, a window of 8, two arrays, 2 lanes.
pub type SerialProto = LaDispatchSerial<
    4, 2, 4, 2, 8, 3, 2, 16, 4, 26, 2, 1, 4, 2, 8, 3, 114, 4, 4, 2, 4, 1,
>;


