//! RTL of the ELF block with pipelined WPT updates (policy `pipelined`,
//! `gpusim::blocks::elf::WptUpdate::Pipelined`): the same ports and parts as [`super::Elf`]
//! (the program-point table with its calculators, the WPT, the issue selects and the fetch
//! select), timed so that no table lookup and no population count is on a select's path. A
//! lookup's result (an update port's or the launch's) is registered at the edge of the cycle
//! the port reports it (`stage_*`) and written into the WPT at the next edge, so a grant at
//! `t` takes effect in the select of `t + 3`; a decrement reads the in-flight value; a warp
//! launched at `t` is live from its edge with WPT 255 until its lookup's value lands. The
//! selects read the WPT and the warps' positions from the registers.
//!
//! Sizes as [`super::Elf`]'s (`N`, `NB`, `SC`, `SCB`, `K = SC + 1`, `L`, `LB`,
//! `U = 2 * L`, `FB`, `P`, `PB`, `WP = 8 * SC`), and `RB` bits a position (`L < 2^RB`), for
//! two schedulers (`SC = 2`, the presets' SM). Storage: the paper's two tables (program
//! points, WPT), the age rows, and `RB` bits a warp for its position; no relation matrix.
//! Structure, every stage a tree (logic depth in `rtl-out/REPORT.md`):
//! * the table is a [`super::PpTableSlotwise`]: every slot's priority is computed beside the
//!   find-first, from one subtraction per slot and lookup (its borrow the hit, its bits
//!   3..12 the distance) and one adder for the score;
//! * per warp its *position* `pos` (how many live warps of its scheduler come before it on
//!   `(WPT, not greedy, age)`; distinct among the live warps), registered at the edge by a
//!   [`super::WarpPosition`] from next cycle's values (the warp's compared with its
//!   scheduler's, a plane at a time), ages and live warps, the grant selecting last;
//! * the positions decoded (`at_pos[p]`: the warp at position `p`; `pos_below[w]`: the
//!   positions before warp `w`): a select takes the candidate before which no candidate holds
//!   a position (the positions held an OR per position, per unit class for the issue), and its
//!   position is its rank;
//! * issue: the lead scheduler issues into the units with a free slot, the other into those
//!   the lead left: one of four *choices* (the lead took no slot, or one of SP / SFU / LSU),
//!   each known from the `free` inputs alone. Per scheduler and choice, in parallel: the warp
//!   granted and what the fetch and the outputs need of it (unit, fetch candidate, rank, local
//!   id, WPT value); the lead's unit then selects the other scheduler's choice;
//! * fetch: the best fetch-eligible warp `A` of each scheduler before the grants; the grants
//!   `G` join at the tail, every order between `A`s and `G`s a comparison of ranks.
//!
//! rust-hdl evaluates array indices from loop variables only, so loops that index by
//! `l * SC + s` bind `n = SC` with a one-iteration loop (`for n in SC..SC + 1`).

use super::{PpTableSlotwise, WarpPosition};
use crate::consts::{
    below_table, constant, index_bit_masks, index_table, onehot_table, shift_table,
};
use crate::prim::{Deal, Decode2, FindFirst, Gather};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The ELF block (module documentation for the const generics).
#[derive(LogicBlock)]
pub struct ElfPipelined<
    const N: usize,
    const NB: usize,
    const SC: usize,
    const SCB: usize,
    const K: usize,
    const L: usize,
    const LB: usize,
    const U: usize,
    const FB: usize,
    const P: usize,
    const PB: usize,
    const WP: usize,
    const RB: usize,
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
    /// Merged-load boundary: subtract a load's score when `d >= score` (1) or `d > score` (0).
    pub merge_ge: Signal<In, Bit>,
    /// Warps launched this cycle (global ids).
    pub launch: Signal<In, Bits<N>>,
    /// Their start PC.
    pub launch_pc: Signal<In, Bits<32>>,
    /// Warps exiting this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Per scheduler: its issuable warps (local ids; `ready_0`, `ready_1`, ... in the Verilog).
    pub ready: [Signal<In, Bits<L>>; SC],
    /// Per scheduler: each local warp's unit, 2 bits (0 none, 1 SP, 2 SFU, 3 LSU).
    pub unit: [Signal<In, Bits<U>>; SC],
    /// Free SP, SFU and LSU slots at the start of the cycle (saturated at `SC`).
    pub free: [Signal<In, Bits<FB>>; 3],
    /// The scheduler that issues first.
    pub issue_lead: Signal<In, Bits<SCB>>,
    /// Per scheduler: update the WPT entry of its previous grant.
    pub upd_valid: [Signal<In, Bit>; SC],
    /// Per scheduler: recalculate it (else decrement).
    pub upd_trig: [Signal<In, Bit>; SC],
    /// Per scheduler: its next PC.
    pub upd_pc: [Signal<In, Bits<32>>; SC],
    /// Warps that want a fetch.
    pub fetch_elig: Signal<In, Bits<N>>,
    /// Warps that want one once granted this cycle.
    pub fetch_on_grant: Signal<In, Bits<N>>,
    /// The scheduler leading the fetch interleave.
    pub fetch_lead: Signal<In, Bits<SCB>>,
    /// Per scheduler: it grants a warp.
    pub grant_valid: [Signal<Out, Bit>; SC],
    /// Per scheduler: the granted warp (local id).
    pub grant_warp: [Signal<Out, Bits<LB>>; SC],
    /// Per scheduler: its WPT value.
    pub prio: [Signal<Out, Bits<8>>; SC],
    /// A warp is fetched.
    pub fetch_valid: Signal<Out, Bit>,
    /// The fetched warp (global id).
    pub fetch_warp: Signal<Out, Bits<NB>>,
    /// The program-point table; lookups `0..SC` serve the update ports, `SC` launches.
    pp_table: PpTableSlotwise<P, PB, K>,
    /// Warp priority table as bit planes: `wpt[s * 8 + b]` holds bit `b` of the WPT value of
    /// every local warp of scheduler `s` (so a value is compared with all of a scheduler's
    /// warps, or read by a one-hot select, a plane at a time).
    wpt: [DFF<Bits<L>>; WP],
    /// Age rows, by global warp id: bit `j` set when local warp `j` of the same scheduler
    /// is older.
    older: [DFF<Bits<L>>; N],
    /// By global warp id: its position this cycle, the live warps of its scheduler that come
    /// before it on `(WPT, not greedy, age)` (distinct among a scheduler's live warps),
    /// registered at the edge from next cycle's WPT, ages, live and greedy warps.
    pos: [DFF<Bits<RB>>; N],
    /// By global warp id: its next position.
    position: [WarpPosition<L, RB>; N],
    /// By global warp id: its WPT value next cycle (the position's input).
    next_value: [Signal<Local, Bits<8>>; N],
    /// Reused per warp: its next value compared with its scheduler's next values, per bit
    /// then by a tree over the bits (level by level in place; entry 0 ends as the whole
    /// compare): the warps whose value is below (`cmp_lower`) or above (`cmp_upper`) it.
    cmp_lower: [Signal<Local, Bits<L>>; 8],
    cmp_upper: [Signal<Local, Bits<L>>; 8],
    /// Per scheduler: the choice its grant takes (one-hot over the four choices) and whether
    /// it grants (the choice has a candidate: known before the winner).
    choice: [Signal<Local, Bits<4>>; SC],
    g_any: [Signal<Local, Bit>; SC],
    /// Per (scheduler `s`, choice `x`), at `s * 4 + x`: the choice has a candidate.
    cand_any: [Signal<Local, Bit>; 8],
    /// Reused per warp: its live equal-valued younger warps next cycle; per choice, whether
    /// the choice's winner is one of them.
    younger_equal: Signal<Local, Bits<L>>,
    greedy_after: Signal<Local, Bits<4>>,
    /// Per scheduler: live warps.
    live: [DFF<Bits<L>>; SC],
    /// Per scheduler: the last granted warp (one-hot; zero before any grant): the greedy one.
    last: [DFF<Bits<L>>; SC],
    /// Per scheduler: this cycle's grant, whose update port reports next cycle (one-hot).
    pend: [DFF<Bits<L>>; SC],
    /// The stage registers: per scheduler what the update port and the launch computed in the
    /// previous cycle: the warp updated
    /// (one-hot, zero for none) and its new value, the warps launched (local ids) and their
    /// value (the launch lookup's, kept per scheduler).
    stage_mask: [DFF<Bits<L>>; SC],
    stage_val: [DFF<Bits<8>>; SC],
    stage_launch: [DFF<Bits<L>>; SC],
    stage_lval: [DFF<Bits<8>>; SC],
    /// What the WPT and its relations take at this edge (the stage registers' values): per
    /// scheduler the warp updated (one-hot) and its value, the warps launched (local ids) and
    /// their value.
    st_mask: [Signal<Local, Bits<L>>; SC],
    st_new: [Signal<Local, Bits<8>>; SC],
    st_launch: [Signal<Local, Bits<L>>; SC],
    st_lval: [Signal<Local, Bits<8>>; SC],
    /// The WPT planes the registers take (before reset).
    wnew: [Signal<Local, Bits<L>>; WP],
    /// Launch, exit and fetch masks split by scheduler (global ids to local ones).
    launch_deal: Deal<N, L, SC>,
    exit_deal: Deal<N, L, SC>,
    elig_deal: Deal<N, L, SC>,
    on_grant_deal: Deal<N, L, SC>,
    /// Per scheduler: its unit codes decoded, one mask per unit.
    unit_codes: [Decode2<U, L>; SC],
    /// Live warps by scheduler joined into global ids.
    live_gather: Gather<N, L, SC>,
    /// The lowest launching warp that wants a fetch.
    fresh_first: FindFirst<N, NB>,
    /// Per scheduler: launch and exit masks (local ids).
    launch_s: [Signal<Local, Bits<L>>; SC],
    exit_s: [Signal<Local, Bits<L>>; SC],
    /// Per scheduler: warps by unit code.
    unit_none: [Signal<Local, Bits<L>>; SC],
    unit_sp: [Signal<Local, Bits<L>>; SC],
    unit_sfu: [Signal<Local, Bits<L>>; SC],
    unit_lsu: [Signal<Local, Bits<L>>; SC],
    /// The WPT planes as this cycle's selects see them (last cycle's grants updated).
    wcur: [Signal<Local, Bits<L>>; WP],
    /// Per scheduler: the pending grant (one-hot) if its update port reports this cycle, its
    /// stored and new WPT value.
    pend_mask: [Signal<Local, Bits<L>>; SC],
    pend_old: [Signal<Local, Bits<8>>; SC],
    pend_new: [Signal<Local, Bits<8>>; SC],
    /// By global id: the positions before the warp's (bit `p` set for `p < pos`).
    pos_below: [Signal<Local, Bits<L>>; N],
    /// By position `p` and scheduler (`p * SC + s`): the warps whose registered position is
    /// `p` (at most one live one; the selects mask by live), so a set of warps' positions is a
    /// word operation per position.
    at_pos: [Signal<Local, Bits<L>>; N],
    /// Reused per scheduler: the positions its ready warps hold, per unit class (none, SP,
    /// SFU, LSU); per choice, those of its candidates; the positions its fetch-eligible live
    /// warps hold.
    held_class: [Signal<Local, Bits<L>>; 4],
    held: Signal<Local, Bits<L>>,
    /// Reused per (scheduler, choice): the eligible warps.
    cand_elig: Signal<Local, Bits<L>>,
    /// Per choice `x` (see the issue picks): an SP, SFU, LSU slot is left.
    room_sp: [Signal<Local, Bit>; 4],
    room_sfu: [Signal<Local, Bit>; 4],
    room_lsu: [Signal<Local, Bit>; 4],
    /// Per scheduler: the unit its lead choice takes (SP, SFU, LSU bits; zero for none).
    lead_unit: [Signal<Local, Bits<3>>; SC],
    /// Per (scheduler `s`, choice `x`), at `s * 4 + x`: the warp granted (one-hot) and its
    /// fetch candidacy, rank (its position), local id and WPT value.
    cand_win: [Signal<Local, Bits<L>>; 8],
    cand_fc: [Signal<Local, Bit>; 8],
    cand_rank: [Signal<Local, Bits<RB>>; 8],
    /// Per (scheduler, choice): the first of the positions its candidates hold (one-hot);
    /// reused: the prefix OR that finds it.
    first_held: [Signal<Local, Bits<L>>; 8],
    held_scan: Signal<Local, Bits<L>>,
    cand_id: [Signal<Local, Bits<LB>>; 8],
    cand_prio: [Signal<Local, Bits<8>>; 8],
    /// Per scheduler: its grant this cycle (one-hot), its local id and WPT value.
    grant: [Signal<Local, Bits<L>>; SC],
    grant_id: [Signal<Local, Bits<LB>>; SC],
    grant_prio: [Signal<Local, Bits<8>>; SC],
    fetch_any: Signal<Local, Bit>,
    /// Reused per scheduler: its fetch-eligible live warps.
    a_elig: Signal<Local, Bits<L>>,
    /// Per scheduler: the best of them (`A`, one-hot), its rank, its global id.
    a_win: [Signal<Local, Bits<L>>; SC],
    a_rank: [Signal<Local, Bits<RB>>; SC],
    a_id: [Signal<Local, Bits<NB>>; SC],
    /// Next cycle's age rows and live warps.
    nold: [Signal<Local, Bits<L>>; N],
    nlive: [Signal<Local, Bits<L>>; SC],
    /// Reused per scheduler: bit `b` of every local warp's position.
    pos_plane: [Signal<Local, Bits<L>>; RB],
    /// Per scheduler: position after the fetch lead.
    fpos: [Signal<Local, Bits<SCB>>; SC],
    /// Per scheduler: its grant's rank and global id; `A` and the grant are fetch candidates;
    /// reused: the one being checked comes first.
    g_rank: [Signal<Local, Bits<RB>>; SC],
    g_fc: [Signal<Local, Bit>; SC],
    g_id: [Signal<Local, Bits<NB>>; SC],
    a_ok: [Signal<Local, Bit>; SC],
    g_ok: [Signal<Local, Bit>; SC],
    a_first: Signal<Local, Bit>,
    g_first: Signal<Local, Bit>,
    /// The fetched live warp (global id; zero for none).
    fetch_pick: Signal<Local, Bits<NB>>,
    /// The launching warp fetched (zero when a live one is).
    fresh_pick: Signal<Local, Bits<NB>>,
    /// Warps launching now (not yet live) that want a fetch; the lowest of them.
    live_all: Signal<Local, Bits<N>>,
    fresh: Signal<Local, Bits<N>>,
    zero_l: Constant<Bits<L>>,
    zero_lb: Constant<Bits<LB>>,
    zero_fb: Constant<Bits<FB>>,
    zero3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    zero_rb: Constant<Bits<RB>>,
    /// `[0, 1, ..., L-1]` as positions.
    pos_ids: [Constant<Bits<RB>>; L],
    /// Per position bit `b`: the positions that have it.
    pos_bit: [Constant<Bits<L>>; RB],
    /// Shifts by 1, 2, 4, ... for the prefix OR.
    shift: [Constant<Bits<8>>; RB],
    /// Choice `x` one-hot.
    choice_bit: [Constant<Bits<4>>; 4],
    /// Per choice `x`: the unit the lead took (bit `x - 1`; none for `x = 0`).
    taken: [Constant<Bits<3>>; 4],
    zero_nb: Constant<Bits<NB>>,
    one_fb: Constant<Bits<FB>>,
    zero8: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    max8: Constant<Bits<8>>,
    /// Bit `b` of a local id placed in a global id (bit `b + SCB`).
    bit_hi: [Constant<Bits<NB>>; LB],
    /// Per id bit: the local ids / global ids that have it.
    local_id_bit: [Constant<Bits<L>>; LB],
    sched_ids: [Constant<Bits<SCB>>; SC],
    /// Scheduler `s` as the low bits of a global id.
    sched_gid: [Constant<Bits<NB>>; SC],
    below_l: [Constant<Bits<L>>; L],
}

impl<
        const N: usize,
        const NB: usize,
        const SC: usize,
        const SCB: usize,
            const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
        const RB: usize,
    > Default for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP, RB>
{
    fn default() -> Self {
        // Two schedulers (the presets' SM): the issue picks are written for a lead and one
        // scheduler after it.
        assert!(SC == 2 && SCB == 1);
        assert!(N == SC * L && L <= 32 && (1usize << LB) >= L && NB == LB + SCB);
        assert!(K == SC + 1 && U == 2 * L && WP == 8 * SC && L < (1usize << RB));
        assert!((1usize << FB) > SC && (1usize << (FB - 1)) <= SC);
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
            merge_ge: Default::default(),
            launch: Default::default(),
            launch_pc: Default::default(),
            exit: Default::default(),
            ready: array_init::array_init(|_| Default::default()),
            unit: array_init::array_init(|_| Default::default()),
            free: array_init::array_init(|_| Default::default()),
            issue_lead: Default::default(),
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
            pp_table: Default::default(),
            wpt: array_init::array_init(|_| Default::default()),
            older: array_init::array_init(|_| Default::default()),
            live: array_init::array_init(|_| Default::default()),
            pos: array_init::array_init(|_| Default::default()),
            position: array_init::array_init(|_| Default::default()),
            next_value: array_init::array_init(|_| Default::default()),
            cmp_lower: array_init::array_init(|_| Default::default()),
            cmp_upper: array_init::array_init(|_| Default::default()),
            choice: array_init::array_init(|_| Default::default()),
            g_any: array_init::array_init(|_| Default::default()),
            cand_any: array_init::array_init(|_| Default::default()),
            younger_equal: Default::default(),
            greedy_after: Default::default(),
            pos_below: array_init::array_init(|_| Default::default()),
            at_pos: array_init::array_init(|_| Default::default()),
            held_class: array_init::array_init(|_| Default::default()),
            held: Default::default(),
            last: array_init::array_init(|_| Default::default()),
            pend: array_init::array_init(|_| Default::default()),
            stage_mask: array_init::array_init(|_| Default::default()),
            stage_val: array_init::array_init(|_| Default::default()),
            stage_launch: array_init::array_init(|_| Default::default()),
            stage_lval: array_init::array_init(|_| Default::default()),
            st_mask: array_init::array_init(|_| Default::default()),
            st_new: array_init::array_init(|_| Default::default()),
            st_launch: array_init::array_init(|_| Default::default()),
            st_lval: array_init::array_init(|_| Default::default()),
            wnew: array_init::array_init(|_| Default::default()),
            launch_deal: Default::default(),
            exit_deal: Default::default(),
            elig_deal: Default::default(),
            on_grant_deal: Default::default(),
            unit_codes: array_init::array_init(|_| Default::default()),
            live_gather: Default::default(),
            fresh_first: Default::default(),
            launch_s: array_init::array_init(|_| Default::default()),
            exit_s: array_init::array_init(|_| Default::default()),
            unit_none: array_init::array_init(|_| Default::default()),
            unit_sp: array_init::array_init(|_| Default::default()),
            unit_sfu: array_init::array_init(|_| Default::default()),
            unit_lsu: array_init::array_init(|_| Default::default()),
            wcur: array_init::array_init(|_| Default::default()),
            pend_mask: array_init::array_init(|_| Default::default()),
            pend_old: array_init::array_init(|_| Default::default()),
            pend_new: array_init::array_init(|_| Default::default()),
            cand_elig: Default::default(),
            room_sp: array_init::array_init(|_| Default::default()),
            room_sfu: array_init::array_init(|_| Default::default()),
            room_lsu: array_init::array_init(|_| Default::default()),
            cand_win: array_init::array_init(|_| Default::default()),
            lead_unit: array_init::array_init(|_| Default::default()),
            cand_fc: array_init::array_init(|_| Default::default()),
            cand_rank: array_init::array_init(|_| Default::default()),
            first_held: array_init::array_init(|_| Default::default()),
            held_scan: Default::default(),
            cand_id: array_init::array_init(|_| Default::default()),
            cand_prio: array_init::array_init(|_| Default::default()),
            grant: array_init::array_init(|_| Default::default()),
            grant_id: array_init::array_init(|_| Default::default()),
            grant_prio: array_init::array_init(|_| Default::default()),
            fetch_any: Default::default(),
            a_elig: Default::default(),
            a_win: array_init::array_init(|_| Default::default()),
            a_rank: array_init::array_init(|_| Default::default()),
            a_id: array_init::array_init(|_| Default::default()),
            nold: array_init::array_init(|_| Default::default()),
            nlive: array_init::array_init(|_| Default::default()),
            pos_plane: array_init::array_init(|_| Default::default()),
            fpos: array_init::array_init(|_| Default::default()),
            g_rank: array_init::array_init(|_| Default::default()),
            g_fc: array_init::array_init(|_| Default::default()),
            g_id: array_init::array_init(|_| Default::default()),
            a_ok: array_init::array_init(|_| Default::default()),
            g_ok: array_init::array_init(|_| Default::default()),
            a_first: Default::default(),
            g_first: Default::default(),
            fetch_pick: Default::default(),
            fresh_pick: Default::default(),
            live_all: Default::default(),
            fresh: Default::default(),
            zero_l: constant(0),
            zero_lb: constant(0),
            zero_fb: constant(0),
            zero3: constant(0),
            zero4: constant(0),
            zero_rb: constant(0),
            pos_ids: index_table(),
            pos_bit: index_bit_masks(),
            shift: shift_table(),
            choice_bit: onehot_table(),
            taken: array_init::array_init(|x| constant(if x == 0 { 0 } else { 1 << (x - 1) })),
            zero_nb: constant(0),
            one_fb: constant(1),
            zero8: constant(0),
            one8: constant(1),
            max8: constant(255),
            bit_hi: array_init::array_init(|b| constant(1 << (b + SCB))),
            local_id_bit: array_init::array_init(|b| {
                constant((0..L).filter(|l| l >> b & 1 == 1).fold(0, |m, l| m | 1 << l))
            }),
            sched_ids: index_table(),
            sched_gid: index_table(),
            below_l: below_table(),
        }
    }
}

impl<
        const N: usize,
        const NB: usize,
        const SC: usize,
        const SCB: usize,
            const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
        const RB: usize,
    > Logic for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP, RB>
{
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..WP {
            self.wpt[p].clock.next = self.clock.val();
        }
        for w in 0..N {
            self.older[w].clock.next = self.clock.val();
            self.older[w].d.next = self.older[w].q.val();
            self.pos[w].clock.next = self.clock.val();
        }
        for s in 0..SC {
            self.live[s].clock.next = self.clock.val();
            self.last[s].clock.next = self.clock.val();
            self.last[s].d.next = self.last[s].q.val();
            self.pend[s].clock.next = self.clock.val();
        }
        // The table: write port and lookups (updates 0..SC, launch SC).
        self.pp_table.clock.next = self.clock.val();
        self.pp_table.reset.next = self.reset.val();
        self.pp_table.tw_clear.next = self.tw_clear.val();
        self.pp_table.tw_en.next = self.tw_en.val();
        self.pp_table.tw_slot.next = self.tw_slot.val();
        self.pp_table.tw_valid.next = self.tw_valid.val();
        self.pp_table.tw_branch.next = self.tw_branch.val();
        self.pp_table.tw_pc.next = self.tw_pc.val();
        self.pp_table.tw_score.next = self.tw_score.val();
        self.pp_table.merge_ge.next = self.merge_ge.val();
        for s in 0..SC {
            self.pp_table.pc[s].next = self.upd_pc[s].val();
            self.pp_table.en[s].next = self.upd_valid[s].val() & self.upd_trig[s].val();
        }
        for n in SC..(SC + 1) {
            self.pp_table.pc[n].next = self.launch_pc.val();
            self.pp_table.en[n].next = self.launch.val().any();
            // Per scheduler: launch, exit and unit masks over its local warps.
            self.launch_deal.word.next = self.launch.val();
            self.exit_deal.word.next = self.exit.val();
            for s in 0..SC {
                self.launch_s[s].next = self.launch_deal.lanes[s].val();
                self.st_launch[s].next = self.stage_launch[s].q.val();
                self.st_lval[s].next = self.stage_lval[s].q.val();
                self.stage_launch[s].clock.next = self.clock.val();
                self.stage_mask[s].clock.next = self.clock.val();
                self.stage_val[s].clock.next = self.clock.val();
                self.stage_lval[s].clock.next = self.clock.val();
                self.stage_launch[s].d.next = self.launch_s[s].val();
                self.stage_lval[s].d.next = self.pp_table.prio[n].val();
                if self.reset.val() {
                    self.stage_launch[s].d.next = self.zero_l.val();
                }
                self.exit_s[s].next = self.exit_deal.lanes[s].val();
                self.unit_codes[s].word.next = self.unit[s].val();
                self.unit_none[s].next = self.unit_codes[s].is0.val();
                self.unit_sp[s].next = self.unit_codes[s].is1.val();
                self.unit_sfu[s].next = self.unit_codes[s].is2.val();
                self.unit_lsu[s].next = self.unit_codes[s].is3.val();
            }
            // The pending grant's new WPT value (its table lookup, or the decrement), and
            // how it compares with every other warp's stored value.
            for s in 0..SC {
                self.pend_mask[s].next = self.zero_l.val();
                if self.upd_valid[s].val() {
                    self.pend_mask[s].next = self.pend[s].q.val();
                }
                self.pend_old[s].next = self.zero8.val();
                for b in 0..8 {
                    self.pend_old[s].next = self.pend_old[s]
                        .val()
                        .replace_bit(b, (self.wpt[s * 8 + b].q.val() & self.pend[s].q.val()).any());
                }
                // Pipelined: the warp's value in the stage register is its latest (a launch
                // landing with an update lands after it).
                if (self.stage_mask[s].q.val() & self.pend[s].q.val()).any() {
                    self.pend_old[s].next = self.stage_val[s].q.val();
                }
                if (self.stage_launch[s].q.val() & self.pend[s].q.val()).any() {
                    self.pend_old[s].next = self.stage_lval[s].q.val();
                }
                self.pend_new[s].next = self.pend_old[s].val();
                if self.upd_trig[s].val() {
                    self.pend_new[s].next = self.pp_table.prio[s].val();
                } else if (self.pend_old[s].val() != self.max8.val())
                    & (self.pend_old[s].val() != self.zero8.val())
                {
                    self.pend_new[s].next = self.pend_old[s].val() - self.one8.val();
                }
                // What the WPT takes at this edge: this update, or (pipelined) the previous
                // cycle's, this one going into the stage register.
                self.st_mask[s].next = self.stage_mask[s].q.val();
                self.st_new[s].next = self.stage_val[s].q.val();
                self.stage_mask[s].d.next = self.pend_mask[s].val();
                self.stage_val[s].d.next = self.pend_new[s].val();
                if self.reset.val() {
                    self.stage_mask[s].d.next = self.zero_l.val();
                }
            }
            // Last cycle's grants report back: the WPT as this cycle's selects see it.
            for s in 0..SC {
                for b in 0..8 {
                    self.wcur[s * 8 + b].next = self.wpt[s * 8 + b].q.val() & !self.st_mask[s].val();
                    if self.st_new[s].val().get_bit(b) {
                        self.wcur[s * 8 + b].next = self.wcur[s * 8 + b].val() | self.st_mask[s].val();
                    }
                }
            }
            // Every warp's registered position decoded: the positions before it, and per
            // position the warp there; bit `b` of every warp's position as a word.
            for s in 0..SC {
                for i in 0..L {
                    self.pos_below[i * n + s].next = self.zero_l.val();
                    self.at_pos[i * n + s].next = self.zero_l.val();
                }
                for i in 0..L {
                    for p in 0..L {
                        self.pos_below[i * n + s].next = self.pos_below[i * n + s]
                            .val()
                            .replace_bit(p, self.pos_ids[p].val() < self.pos[i * n + s].q.val());
                        self.at_pos[p * n + s].next = self.at_pos[p * n + s]
                            .val()
                            .replace_bit(i, self.pos_ids[p].val() == self.pos[i * n + s].q.val());
                    }
                }
            }
            // Fetch, before the grants: each scheduler's best fetch-eligible live warp (`A`:
            // the one no other holds a position before), its rank (its position), global id
            // and place from the fetch lead.
            self.elig_deal.word.next = self.fetch_elig.val();
            self.on_grant_deal.word.next = self.fetch_on_grant.val();
            for s in 0..SC {
                for b in 0..RB {
                    self.pos_plane[b].next = self.zero_l.val();
                    for i in 0..L {
                        self.pos_plane[b].next = self.pos_plane[b]
                            .val()
                            .replace_bit(i, self.pos[i * n + s].q.val().get_bit(b));
                    }
                }
                self.a_elig.next = self.elig_deal.lanes[s].val() & self.live[s].q.val();
                // `A` exists when an eligible warp does (before the select).
                self.a_ok[s].next = self.a_elig.val().any();
                self.held.next = self.zero_l.val();
                for p in 0..L {
                    self.held.next = self.held.val().replace_bit(
                        p,
                        (self.at_pos[p * n + s].val() & self.a_elig.val()).any(),
                    );
                }
                self.a_win[s].next = self.zero_l.val();
                for i in 0..L {
                    self.a_win[s].next = self.a_win[s].val().replace_bit(
                        i,
                        self.a_elig.val().get_bit(i)
                            & !(self.held.val() & self.pos_below[i * n + s].val()).any(),
                    );
                }
                self.a_rank[s].next = self.zero_rb.val();
                for b in 0..RB {
                    self.a_rank[s].next = self.a_rank[s]
                        .val()
                        .replace_bit(b, (self.pos_plane[b].val() & self.a_win[s].val()).any());
                }
                self.fpos[s].next = self.sched_ids[s].val() - self.fetch_lead.val();
                self.a_id[s].next = self.sched_gid[s].val();
                for b in 0..LB {
                    if (self.a_win[s].val() & self.local_id_bit[b].val()).any() {
                        self.a_id[s].next = self.a_id[s].val() | self.bit_hi[b].val();
                    }
                }
            }
            // Issue picks (two schedulers): the lead issues into the units with a free slot;
            // the other into those the lead left, one of four choices `x` (`x = 0`: the lead
            // took no slot; `x = 1 + u`: it took one of unit `u`, SP, SFU, LSU), which units
            // have room in each being known from the `free` inputs alone. Per scheduler and
            // choice, in parallel: the warp granted (the eligible warp no eligible warp beats)
            // and what the fetch and the outputs need of it: its unit (same bits), it is a
            // fetch candidate (granting it empties its i-buffer), its rank, local id, WPT value.
            for x in 0..4 {
                self.room_sp[x].next = self.free[0].val() > self.zero_fb.val();
                self.room_sfu[x].next = self.free[1].val() > self.zero_fb.val();
                self.room_lsu[x].next = self.free[2].val() > self.zero_fb.val();
                if self.taken[x].val().get_bit(0) {
                    self.room_sp[x].next = self.free[0].val() > self.one_fb.val();
                }
                if self.taken[x].val().get_bit(1) {
                    self.room_sfu[x].next = self.free[1].val() > self.one_fb.val();
                }
                if self.taken[x].val().get_bit(2) {
                    self.room_lsu[x].next = self.free[2].val() > self.one_fb.val();
                }
            }
            for s in 0..SC {
                // The positions the ready live warps of each unit class hold.
                for c in 0..4 {
                    self.held_class[c].next = self.zero_l.val();
                }
                for p in 0..L {
                    self.held_class[0].next = self.held_class[0].val().replace_bit(
                        p,
                        (self.at_pos[p * n + s].val()
                            & self.unit_none[s].val()
                            & self.ready[s].val()
                            & self.live[s].q.val())
                        .any(),
                    );
                    self.held_class[1].next = self.held_class[1].val().replace_bit(
                        p,
                        (self.at_pos[p * n + s].val()
                            & self.unit_sp[s].val()
                            & self.ready[s].val()
                            & self.live[s].q.val())
                        .any(),
                    );
                    self.held_class[2].next = self.held_class[2].val().replace_bit(
                        p,
                        (self.at_pos[p * n + s].val()
                            & self.unit_sfu[s].val()
                            & self.ready[s].val()
                            & self.live[s].q.val())
                        .any(),
                    );
                    self.held_class[3].next = self.held_class[3].val().replace_bit(
                        p,
                        (self.at_pos[p * n + s].val()
                            & self.unit_lsu[s].val()
                            & self.ready[s].val()
                            & self.live[s].q.val())
                        .any(),
                    );
                }
                for x in 0..4 {
                    self.cand_elig.next = self.unit_none[s].val();
                    if self.room_sp[x].val() {
                        self.cand_elig.next = self.cand_elig.val() | self.unit_sp[s].val();
                    }
                    if self.room_sfu[x].val() {
                        self.cand_elig.next = self.cand_elig.val() | self.unit_sfu[s].val();
                    }
                    if self.room_lsu[x].val() {
                        self.cand_elig.next = self.cand_elig.val() | self.unit_lsu[s].val();
                    }
                    self.cand_elig.next =
                        self.cand_elig.val() & self.ready[s].val() & self.live[s].q.val();
                    self.held.next = self.held_class[0].val();
                    if self.room_sp[x].val() {
                        self.held.next = self.held.val() | self.held_class[1].val();
                    }
                    if self.room_sfu[x].val() {
                        self.held.next = self.held.val() | self.held_class[2].val();
                    }
                    if self.room_lsu[x].val() {
                        self.held.next = self.held.val() | self.held_class[3].val();
                    }
                    self.cand_win[s * 4 + x].next = self.zero_l.val();
                    for i in 0..L {
                        self.cand_win[s * 4 + x].next = self.cand_win[s * 4 + x].val().replace_bit(
                            i,
                            self.cand_elig.val().get_bit(i)
                                & !(self.held.val() & self.pos_below[i * n + s].val()).any(),
                        );
                    }
                    self.cand_any[s * 4 + x].next = self.cand_elig.val().any();
                    self.cand_fc[s * 4 + x].next =
                        (self.cand_win[s * 4 + x].val() & self.on_grant_deal.lanes[s].val()).any();
                    // The winner's rank is the first position held, found beside the winner:
                    // a prefix OR marks the positions at or after it.
                    self.held_scan.next = self.held.val();
                    for k in 0..RB {
                        self.held_scan.next =
                            self.held_scan.val() | (self.held_scan.val() << self.shift[k].val());
                    }
                    self.first_held[s * 4 + x].next =
                        self.held.val() & !(self.held_scan.val() << self.shift[0].val());
                    self.cand_rank[s * 4 + x].next = self.zero_rb.val();
                    for b in 0..RB {
                        self.cand_rank[s * 4 + x].next = self.cand_rank[s * 4 + x].val().replace_bit(
                            b,
                            (self.first_held[s * 4 + x].val() & self.pos_bit[b].val()).any(),
                        );
                    }
                    self.cand_id[s * 4 + x].next = self.zero_lb.val();
                    for b in 0..LB {
                        self.cand_id[s * 4 + x].next = self.cand_id[s * 4 + x]
                            .val()
                            .replace_bit(b, (self.cand_win[s * 4 + x].val() & self.local_id_bit[b].val()).any());
                    }
                    self.cand_prio[s * 4 + x].next = self.zero8.val();
                    for b in 0..8 {
                        self.cand_prio[s * 4 + x].next = self.cand_prio[s * 4 + x]
                            .val()
                            .replace_bit(b, (self.cand_win[s * 4 + x].val() & self.wpt[s * 8 + b].q.val()).any());
                    }
                }
                // The unit its lead choice takes: the class holding the first position held.
                self.lead_unit[s].next = self.zero3.val();
                for u in 0..3 {
                    self.lead_unit[s].next = self.lead_unit[s].val().replace_bit(
                        u,
                        (self.first_held[s * 4].val() & self.held_class[1 + u].val()).any(),
                    );
                }
            }
            // Each scheduler's grant: its lead choice, or second after the other's.
            for s in 0..SC {
                self.grant[s].next = self.cand_win[s * 4].val();
                self.grant_id[s].next = self.cand_id[s * 4].val();
                self.grant_prio[s].next = self.cand_prio[s * 4].val();
                self.g_fc[s].next = self.cand_fc[s * 4].val();
                self.g_rank[s].next = self.cand_rank[s * 4].val();
                self.g_any[s].next = self.cand_any[s * 4].val();
                self.choice[s].next = self.choice_bit[0].val();
                if self.issue_lead.val() != self.sched_ids[s].val() {
                    for t in 0..SC {
                        if self.sched_ids[t].val() != self.sched_ids[s].val() {
                            for u in 0..3 {
                                if self.lead_unit[t].val().get_bit(u) {
                                    self.grant[s].next = self.cand_win[s * 4 + 1 + u].val();
                                    self.grant_id[s].next = self.cand_id[s * 4 + 1 + u].val();
                                    self.grant_prio[s].next = self.cand_prio[s * 4 + 1 + u].val();
                                    self.g_fc[s].next = self.cand_fc[s * 4 + 1 + u].val();
                                    self.g_rank[s].next = self.cand_rank[s * 4 + 1 + u].val();
                                    self.g_any[s].next = self.cand_any[s * 4 + 1 + u].val();
                                    self.choice[s].next = self.choice_bit[1 + u].val();
                                }
                            }
                        }
                    }
                }
                self.g_id[s].next = self.sched_gid[s].val();
                for b in 0..LB {
                    if self.grant_id[s].val().get_bit(b) {
                        self.g_id[s].next = self.g_id[s].val() | self.bit_hi[b].val();
                    }
                }
            }
        }
        // Live warps (global ids); warps launching now that want a fetch, the lowest.
        for s in 0..SC {
            self.live_gather.lanes[s].next = self.live[s].q.val();
        }
        self.live_all.next = self.live_gather.word.val();
        // The fetch: among every scheduler's `A` and its grant `G` when the grant empties its
        // i-buffer, the one no other comes before in (rank, position from the fetch lead).
        // Ranks (positions) order a scheduler's live warps on (WPT, not greedy, age), no two
        // equal, so every comparison is one of ranks: `A`s against each other before the
        // grants, the `G`s against the `A`s and each other once the grants' ranks are muxed;
        // `A_s` and `G_s` with equal ranks are the same warp (both name it).
        self.fetch_any.next = false;
        self.fetch_pick.next = self.zero_nb.val();
        for s in 0..SC {
            self.g_ok[s].next = self.g_fc[s].val();
            self.fetch_any.next = self.fetch_any.val() | self.a_ok[s].val() | self.g_ok[s].val();
        }
        for s in 0..SC {
            self.a_first.next = self.a_ok[s].val();
            self.g_first.next = self.g_ok[s].val();
            // `G_s` before `A_s`; `A_s` before `G_s`.
            if self.g_ok[s].val() & (self.g_rank[s].val() < self.a_rank[s].val()) {
                self.a_first.next = false;
            }
            if self.a_ok[s].val() & (self.a_rank[s].val() < self.g_rank[s].val()) {
                self.g_first.next = false;
            }
            for t in 0..SC {
                if self.sched_ids[t].val() != self.sched_ids[s].val() {
                    // `G_t` before `A_s`; `A_t` before `A_s`; `A_t` before `G_s`; `G_t`
                    // before `G_s`.
                    if self.g_ok[t].val()
                        & ((self.g_rank[t].val() < self.a_rank[s].val())
                            | ((self.g_rank[t].val() == self.a_rank[s].val())
                                & (self.fpos[t].val() < self.fpos[s].val())))
                    {
                        self.a_first.next = false;
                    }
                    if self.a_ok[t].val()
                        & ((self.a_rank[t].val() < self.a_rank[s].val())
                            | ((self.a_rank[t].val() == self.a_rank[s].val())
                                & (self.fpos[t].val() < self.fpos[s].val())))
                    {
                        self.a_first.next = false;
                    }
                    if self.a_ok[t].val()
                        & ((self.a_rank[t].val() < self.g_rank[s].val())
                            | ((self.a_rank[t].val() == self.g_rank[s].val())
                                & (self.fpos[t].val() < self.fpos[s].val())))
                    {
                        self.g_first.next = false;
                    }
                    if self.g_ok[t].val()
                        & ((self.g_rank[t].val() < self.g_rank[s].val())
                            | ((self.g_rank[t].val() == self.g_rank[s].val())
                                & (self.fpos[t].val() < self.fpos[s].val())))
                    {
                        self.g_first.next = false;
                    }
                }
            }
            if self.a_first.val() {
                self.fetch_pick.next = self.fetch_pick.val() | self.a_id[s].val();
            }
            if self.g_first.val() {
                self.fetch_pick.next = self.fetch_pick.val() | self.g_id[s].val();
            }
        }
        self.fresh.next = self.fetch_elig.val() & self.launch.val() & !self.live_all.val();
        self.fresh_first.req.next = self.fresh.val();
        self.fetch_valid.next = self.fetch_any.val() | self.fresh_first.valid.val();
        // The pick is zero when no live warp is fetched: OR it with the launching one (no
        // mux after the pick's comparisons).
        self.fresh_pick.next = self.fresh_first.index.val();
        if self.fetch_any.val() {
            self.fresh_pick.next = self.zero_nb.val();
        }
        self.fetch_warp.next = self.fetch_pick.val() | self.fresh_pick.val();
        for s in 0..SC {
            self.grant_valid[s].next = self.g_any[s].val();
            self.grant_warp[s].next = self.grant_id[s].val();
            self.prio[s].next = self.grant_prio[s].val();
        }
        // Edge: the WPT takes this cycle's values, then launches (the table as it is now).
        for n in SC..(SC + 1) {
            for s in 0..SC {
                // Launched warps all take the launch lookup's value.
                for b in 0..8 {
                    if self.st_lval[s].val().get_bit(b) {
                        self.wnew[s * 8 + b].next =
                            self.wcur[s * 8 + b].val() | self.st_launch[s].val();
                    } else {
                        self.wnew[s * 8 + b].next =
                            self.wcur[s * 8 + b].val() & !self.st_launch[s].val();
                    }
                }
                // Pipelined: the warps launched now, at 255 until their lookup lands.
                for b in 0..8 {
                    self.wnew[s * 8 + b].next = self.wnew[s * 8 + b].val() | self.launch_s[s].val();
                }
                for b in 0..8 {
                    self.wpt[s * 8 + b].d.next = self.wnew[s * 8 + b].val();
                    if self.reset.val() {
                        self.wpt[s * 8 + b].d.next = !self.zero_l.val();
                    }
                }
                for l in 0..L {
                    if self.launch_s[s].val().get_bit(l) {
                        self.nold[l * n + s].next = !self.launch_s[s].val()
                            | (self.launch_s[s].val() & self.below_l[l].val());
                    } else {
                        self.nold[l * n + s].next =
                            self.older[l * n + s].q.val() & !self.launch_s[s].val();
                    }
                    self.older[l * n + s].d.next = self.nold[l * n + s].val();
                    if self.reset.val() {
                        self.older[l * n + s].d.next = self.below_l[l].val();
                    }
                }
                self.nlive[s].next =
                    (self.live[s].q.val() & !self.exit_s[s].val()) | self.launch_s[s].val();
                if self.reset.val() {
                    self.nlive[s].next = self.zero_l.val();
                }
                // Next cycle's positions, from next cycle's values, ages, live warps and
                // greedy warp (this cycle's grant, else the last one). The grant comes late:
                // each choice's winner is checked against the warp beside the choice, and
                // the choice, then whether there is a grant, select last.
                for i in 0..L {
                    self.next_value[i * n + s].next = self.zero8.val();
                    for b in 0..8 {
                        self.next_value[i * n + s].next = self.next_value[i * n + s]
                            .val()
                            .replace_bit(b, self.wnew[s * 8 + b].val().get_bit(i));
                    }
                    // The value compared with every warp's a plane at a time: per bit, the
                    // warps below / above it there; then a tree from the top bit down.
                    for b in 0..8 {
                        self.cmp_lower[b].next = self.zero_l.val();
                        self.cmp_upper[b].next = self.wnew[s * 8 + b].val();
                        if self.next_value[i * n + s].val().get_bit(b) {
                            self.cmp_lower[b].next = !self.wnew[s * 8 + b].val();
                            self.cmp_upper[b].next = self.zero_l.val();
                        }
                    }
                    for k in 0..4 {
                        self.cmp_lower[k].next = self.cmp_lower[2 * k + 1].val()
                            | (!self.cmp_upper[2 * k + 1].val() & self.cmp_lower[2 * k].val());
                        self.cmp_upper[k].next = self.cmp_upper[2 * k + 1].val()
                            | (!self.cmp_lower[2 * k + 1].val() & self.cmp_upper[2 * k].val());
                    }
                    for k in 0..2 {
                        self.cmp_lower[k].next = self.cmp_lower[2 * k + 1].val()
                            | (!self.cmp_upper[2 * k + 1].val() & self.cmp_lower[2 * k].val());
                        self.cmp_upper[k].next = self.cmp_upper[2 * k + 1].val()
                            | (!self.cmp_lower[2 * k + 1].val() & self.cmp_upper[2 * k].val());
                    }
                    for k in 0..1 {
                        self.cmp_lower[k].next = self.cmp_lower[2 * k + 1].val()
                            | (!self.cmp_upper[2 * k + 1].val() & self.cmp_lower[2 * k].val());
                        self.cmp_upper[k].next = self.cmp_upper[2 * k + 1].val()
                            | (!self.cmp_lower[2 * k + 1].val() & self.cmp_upper[2 * k].val());
                    }
                    self.position[i * n + s].lower.next = self.cmp_lower[0].val();
                    self.position[i * n + s].equal.next =
                        !(self.cmp_lower[0].val() | self.cmp_upper[0].val());
                    self.position[i * n + s].live.next = self.nlive[s].val();
                    self.position[i * n + s].older.next = self.nold[i * n + s].val();
                    self.younger_equal.next = !(self.cmp_lower[0].val() | self.cmp_upper[0].val())
                        & self.nlive[s].val()
                        & !self.nold[i * n + s].val();
                    self.greedy_after.next = self.zero4.val();
                    for x in 0..4 {
                        self.greedy_after.next = self.greedy_after.val().replace_bit(
                            x,
                            (self.cand_win[s * 4 + x].val() & self.younger_equal.val()).any(),
                        );
                    }
                    self.position[i * n + s].after_greedy.next =
                        (self.last[s].q.val() & self.younger_equal.val()).any();
                    self.position[i * n + s].is_greedy.next = self.last[s].q.val().get_bit(i);
                    if self.g_any[s].val() {
                        self.position[i * n + s].after_greedy.next =
                            (self.greedy_after.val() & self.choice[s].val()).any();
                        self.position[i * n + s].is_greedy.next = self.grant[s].val().get_bit(i);
                    }
                    self.pos[i * n + s].d.next = self.position[i * n + s].pos.val();
                    if self.reset.val() {
                        self.pos[i * n + s].d.next = self.zero_rb.val();
                    }
                }
            }
        }
        for s in 0..SC {
            self.live[s].d.next = self.nlive[s].val();
            if self.g_any[s].val() {
                self.last[s].d.next = self.grant[s].val();
            }
            self.pend[s].d.next = self.grant[s].val();
            if self.reset.val() {
                self.live[s].d.next = self.zero_l.val();
                self.last[s].d.next = self.zero_l.val();
                self.pend[s].d.next = self.zero_l.val();
            }
        }
    }
}

impl<
        const N: usize,
        const NB: usize,
        const SC: usize,
        const SCB: usize,
            const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
        const RB: usize,
    > Clocked for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP, RB>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi` preset, pipelined WPT updates: 48 warps (two schedulers of 24), 32 program points.
pub type ElfPipelinedFermi = ElfPipelined<48, 6, 2, 1, 3, 24, 5, 48, 2, 32, 5, 16, 5>;
/// `proto` preset, pipelined WPT updates: 8 warps (two schedulers of 4), 8 program points.
pub type ElfPipelinedProto = ElfPipelined<8, 3, 2, 1, 3, 4, 2, 8, 2, 8, 3, 16, 3>;
