//! RTL of the ELF block with pipelined WPT updates (policy `pipelined`,
//! `gpusim::blocks::elf::WptUpdate::Pipelined`): the same ports and parts as [`super::Elf`]
//! (the program-point table with its calculators, the WPT, the issue selects and the fetch
//! select), timed so that no table lookup and no population count is on a select's path. A
//! lookup's result (an update port's or the launch's) is registered at the edge of the cycle
//! the port reports it (`stage_*`) and written into the WPT at the next edge, so a grant at
//! `t` takes effect in the select of `t + 3`; a decrement reads the in-flight value; a warp
//! launched at `t` is live from its edge with WPT 255 until its lookup's value lands. The
//! selects read the WPT and its relations from the registers.
//!
//! Sizes as [`super::Elf`]'s (`N`, `NB`, `SC`, `SCB`, `K = SC + 1`, `L`, `LB`,
//! `U = 2 * L`, `FB`, `P`, `PB`, `WP = 8 * SC`), for two schedulers (`SC = 2`, the presets'
//! SM). Structure, every stage a tree (logic depth 25 at `proto`, 29 at `fermi` in
//! `rtl-out/REPORT.md`):
//! * the table is a [`super::PpTableSlotwise`]: every slot's priority is computed beside the
//!   find-first, from one subtraction per slot and lookup (its borrow the hit, its bits
//!   3..12 the distance) and one adder for the score;
//! * WPT relations `rel_lt[w]` / `rel_eq[w]` (which warps of its scheduler warp `w`'s value is
//!   below / equal to), updated in the rows and columns of the values landing at the edge;
//! * per-warp rank parts registered from next cycle's relations, ages and live warps (the live
//!   warps with a lower value; those plus the older equal ones): the rank of a warp in the
//!   cycle is one of them, corrected for the greedy warp, with no adder tree on the path;
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

use super::PpTableSlotwise;
use crate::consts::{below_table, constant, index_table, onehot_table};
use crate::prim::{Deal, Decode2, FindFirst, Gather, PopCount};
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
    /// WPT relations, by global warp id: bit `j` set when the warp's WPT value is below
    /// (`rel_lt`) or equal to (`rel_eq`, the warp itself included) local warp `j`'s of the
    /// same scheduler. They follow the WPT register for register, updated only in the rows
    /// and columns of the warps whose value changes, so no cycle compares every pair.
    rel_lt: [DFF<Bits<L>>; N],
    rel_eq: [DFF<Bits<L>>; N],
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
    /// By global id: the relation rows the registers take (before reset).
    nlt: [Signal<Local, Bits<L>>; N],
    neq: [Signal<Local, Bits<L>>; N],
    /// The WPT planes the registers take (before reset).
    wnew: [Signal<Local, Bits<L>>; WP],
    /// Reused per scheduler (pipelined): the warps at 255 after this edge's landings.
    at255: Signal<Local, Bits<L>>,
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
    /// stored and new WPT value, and the warps whose stored value the new one is below,
    /// above, equal to (the pending warp itself left out of the first two).
    pend_mask: [Signal<Local, Bits<L>>; SC],
    pend_old: [Signal<Local, Bits<8>>; SC],
    pend_new: [Signal<Local, Bits<8>>; SC],
    pend_lt: [Signal<Local, Bits<L>>; SC],
    pend_gt: [Signal<Local, Bits<L>>; SC],
    pend_eq: [Signal<Local, Bits<L>>; SC],
    /// Reused: a value compared with a scheduler's WPT planes, per bit then by a tree over the
    /// bits (level by level in place; entry 0 ends as the whole compare): the warps whose
    /// value it is below (`cmp_lt`) or above (`cmp_gt`).
    cmp_lt: [Signal<Local, Bits<L>>; 8],
    cmp_gt: [Signal<Local, Bits<L>>; 8],
    /// By global id: this cycle's relations (the pending grant's row and column updated).
    cur_lt: [Signal<Local, Bits<L>>; N],
    cur_eq: [Signal<Local, Bits<L>>; N],
    /// By global id: the warps it beats on a tie.
    tie: [Signal<Local, Bits<L>>; N],
    /// By global id: the warps of its scheduler it beats.
    beats: [Signal<Local, Bits<L>>; N],
    /// Per scheduler: the warps whose value (after this cycle's update) the launch lookup's
    /// is below, above, equal to.
    launch_lt: [Signal<Local, Bits<L>>; SC],
    launch_gt: [Signal<Local, Bits<L>>; SC],
    launch_eq: [Signal<Local, Bits<L>>; SC],
    /// Reused per (scheduler, choice): the eligible warps.
    cand_elig: Signal<Local, Bits<L>>,
    /// Reused per scheduler: its SP, SFU and LSU warps.
    umask: [Signal<Local, Bits<L>>; 3],
    /// Per choice `x` (see the issue picks): an SP, SFU, LSU slot is left.
    room_sp: [Signal<Local, Bit>; 4],
    room_sfu: [Signal<Local, Bit>; 4],
    room_lsu: [Signal<Local, Bit>; 4],
    /// Per scheduler: the unit its lead choice takes (SP, SFU, LSU bits; zero for none).
    lead_unit: [Signal<Local, Bits<3>>; SC],
    /// Per (scheduler `s`, choice `x`), at `s * 4 + x`: the warp granted (one-hot) and its
    /// fetch candidacy, rank, local id and WPT value.
    cand_win: [Signal<Local, Bits<L>>; 8],
    cand_fc: [Signal<Local, Bit>; 8],
    cand_rank: [Signal<Local, Bits<6>>; 8],
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
    a_rank: [Signal<Local, Bits<6>>; SC],
    a_id: [Signal<Local, Bits<NB>>; SC],
    /// Per warp: its rank as the selects use it, from the registered rank parts.
    wcount: [Signal<Local, Bits<6>>; N],
    /// Pipelined, per warp: registered rank parts (the live warps with a lower WPT value;
    /// those plus the older ones with an equal value), and their counters.
    rk_lt: [DFF<Bits<6>>; N],
    rk_lteo: [DFF<Bits<6>>; N],
    plt: [PopCount<L, 6>; N],
    peo: [PopCount<L, 6>; N],
    /// Next cycle's age rows and live warps.
    nold: [Signal<Local, Bits<L>>; N],
    nlive: [Signal<Local, Bits<L>>; SC],
    /// Reused per scheduler: bit `b` of every local warp's rank.
    rank_plane: [Signal<Local, Bits<L>>; 6],
    /// Per scheduler: position after the fetch lead.
    fpos: [Signal<Local, Bits<SCB>>; SC],
    /// Per scheduler: its grant's rank and global id; `A` and the grant are fetch candidates;
    /// reused: the one being checked comes first.
    g_rank: [Signal<Local, Bits<6>>; SC],
    g_fc: [Signal<Local, Bit>; SC],
    g_id: [Signal<Local, Bits<NB>>; SC],
    a_ok: [Signal<Local, Bit>; SC],
    g_ok: [Signal<Local, Bit>; SC],
    a_first: Signal<Local, Bit>,
    g_first: Signal<Local, Bit>,
    /// The fetched live warp (global id).
    fetch_pick: Signal<Local, Bits<NB>>,
    /// Warps launching now (not yet live) that want a fetch; the lowest of them.
    live_all: Signal<Local, Bits<N>>,
    fresh: Signal<Local, Bits<N>>,
    zero_l: Constant<Bits<L>>,
    zero_lb: Constant<Bits<LB>>,
    zero_fb: Constant<Bits<FB>>,
    zero3: Constant<Bits<3>>,
    zero6: Constant<Bits<6>>,
    one6: Constant<Bits<6>>,
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
    onehot_l: [Constant<Bits<L>>; L],
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
    > Default for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP>
{
    fn default() -> Self {
        // Two schedulers (the presets' SM): the issue picks are written for a lead and one
        // scheduler after it.
        assert!(SC == 2 && SCB == 1);
        assert!(N == SC * L && L <= 32 && (1usize << LB) >= L && NB == LB + SCB);
        assert!(K == SC + 1 && U == 2 * L && WP == 8 * SC);
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
            rel_lt: array_init::array_init(|_| Default::default()),
            rel_eq: array_init::array_init(|_| Default::default()),
            live: array_init::array_init(|_| Default::default()),
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
            nlt: array_init::array_init(|_| Default::default()),
            neq: array_init::array_init(|_| Default::default()),
            wnew: array_init::array_init(|_| Default::default()),
            at255: Default::default(),
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
            pend_lt: array_init::array_init(|_| Default::default()),
            pend_gt: array_init::array_init(|_| Default::default()),
            pend_eq: array_init::array_init(|_| Default::default()),
            cmp_lt: array_init::array_init(|_| Default::default()),
            cmp_gt: array_init::array_init(|_| Default::default()),
            cur_lt: array_init::array_init(|_| Default::default()),
            cur_eq: array_init::array_init(|_| Default::default()),
            tie: array_init::array_init(|_| Default::default()),
            beats: array_init::array_init(|_| Default::default()),
            launch_lt: array_init::array_init(|_| Default::default()),
            launch_gt: array_init::array_init(|_| Default::default()),
            launch_eq: array_init::array_init(|_| Default::default()),
            umask: array_init::array_init(|_| Default::default()),
            cand_elig: Default::default(),
            room_sp: array_init::array_init(|_| Default::default()),
            room_sfu: array_init::array_init(|_| Default::default()),
            room_lsu: array_init::array_init(|_| Default::default()),
            cand_win: array_init::array_init(|_| Default::default()),
            lead_unit: array_init::array_init(|_| Default::default()),
            cand_fc: array_init::array_init(|_| Default::default()),
            cand_rank: array_init::array_init(|_| Default::default()),
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
            wcount: array_init::array_init(|_| Default::default()),
            rk_lt: array_init::array_init(|_| Default::default()),
            rk_lteo: array_init::array_init(|_| Default::default()),
            plt: array_init::array_init(|_| Default::default()),
            peo: array_init::array_init(|_| Default::default()),
            nold: array_init::array_init(|_| Default::default()),
            nlive: array_init::array_init(|_| Default::default()),
            rank_plane: array_init::array_init(|_| Default::default()),
            fpos: array_init::array_init(|_| Default::default()),
            g_rank: array_init::array_init(|_| Default::default()),
            g_fc: array_init::array_init(|_| Default::default()),
            g_id: array_init::array_init(|_| Default::default()),
            a_ok: array_init::array_init(|_| Default::default()),
            g_ok: array_init::array_init(|_| Default::default()),
            a_first: Default::default(),
            g_first: Default::default(),
            fetch_pick: Default::default(),
            live_all: Default::default(),
            fresh: Default::default(),
            zero_l: constant(0),
            zero_lb: constant(0),
            zero_fb: constant(0),
            zero3: constant(0),
            zero6: constant(0),
            one6: constant(1),
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
            onehot_l: onehot_table(),
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
    > Logic for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP>
{
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..WP {
            self.wpt[p].clock.next = self.clock.val();
        }
        for w in 0..N {
            self.older[w].clock.next = self.clock.val();
            self.older[w].d.next = self.older[w].q.val();
            self.rel_lt[w].clock.next = self.clock.val();
            self.rel_eq[w].clock.next = self.clock.val();
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
                // Compared with every stored value a plane at a time: per bit, where the value
                // is below / above; then a tree from the top bit down (`cmp_lt`, `cmp_gt`).
                for b in 0..8 {
                    self.cmp_lt[b].next = self.zero_l.val();
                    self.cmp_gt[b].next = !self.wpt[s * 8 + b].q.val();
                    if !self.st_new[s].val().get_bit(b) {
                        self.cmp_lt[b].next = self.wpt[s * 8 + b].q.val();
                        self.cmp_gt[b].next = self.zero_l.val();
                    }
                }
                for i in 0..4 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                for i in 0..2 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                for i in 0..1 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                self.pend_lt[s].next = self.cmp_lt[0].val() & !self.st_mask[s].val();
                self.pend_gt[s].next = self.cmp_gt[0].val() & !self.st_mask[s].val();
                self.pend_eq[s].next = !(self.pend_lt[s].val() | self.pend_gt[s].val());
            }
            // This cycle's WPT relations: the stored ones with the pending grant's row and
            // column replaced; warp i beats warp j on (WPT, not greedy, age).
            for s in 0..SC {
                for i in 0..L {
                    if self.st_mask[s].val().get_bit(i) {
                        self.cur_lt[i * n + s].next = self.pend_lt[s].val();
                        self.cur_eq[i * n + s].next = self.pend_eq[s].val();
                    } else {
                        self.cur_lt[i * n + s].next =
                            self.rel_lt[i * n + s].q.val() & !self.st_mask[s].val();
                        if self.pend_gt[s].val().get_bit(i) {
                            self.cur_lt[i * n + s].next =
                                self.cur_lt[i * n + s].val() | self.st_mask[s].val();
                        }
                        self.cur_eq[i * n + s].next =
                            self.rel_eq[i * n + s].q.val() & !self.st_mask[s].val();
                        if self.pend_eq[s].val().get_bit(i) {
                            self.cur_eq[i * n + s].next =
                                self.cur_eq[i * n + s].val() | self.st_mask[s].val();
                        }
                    }
                    // Ties: the greedy warp beats every other; else the older one wins,
                    // never the greedy one.
                    if self.last[s].q.val().get_bit(i) {
                        self.tie[i * n + s].next = !self.last[s].q.val();
                    } else {
                        self.tie[i * n + s].next = !self.last[s].q.val()
                            & !self.older[i * n + s].q.val()
                            & !self.onehot_l[i].val();
                    }
                    // Bypass: this cycle's relations; registered: the stored ones.
                    self.beats[i * n + s].next = self.rel_lt[i * n + s].q.val()
                        | (self.rel_eq[i * n + s].q.val() & self.tie[i * n + s].val());
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
            // Fetch, before the grants: each scheduler's best fetch-eligible live warp (`A`),
            // every live warp's rank (the live warps of its scheduler that beat it: a
            // population count per warp, the keys being a total order), as bit planes; `A`'s
            // rank, global id and position from the fetch lead.
            self.elig_deal.word.next = self.fetch_elig.val();
            self.on_grant_deal.word.next = self.fetch_on_grant.val();
            for s in 0..SC {
                for i in 0..L {
                    // Pipelined: from the registered counts; the greedy warp is beaten only by
                    // lower values, any other also by the older equal ones and by a younger
                    // equal greedy one.
                    self.wcount[i * n + s].next = self.rk_lteo[i * n + s].q.val();
                    if (self.rel_eq[i * n + s].q.val()
                        & self.last[s].q.val()
                        & self.live[s].q.val()
                        & !self.older[i * n + s].q.val()
                        & !self.onehot_l[i].val())
                    .any()
                    {
                        self.wcount[i * n + s].next =
                            self.rk_lteo[i * n + s].q.val() + self.one6.val();
                    }
                    if self.last[s].q.val().get_bit(i) {
                        self.wcount[i * n + s].next = self.rk_lt[i * n + s].q.val();
                    }
                }
            }
            for s in 0..SC {
                self.a_elig.next = self.elig_deal.lanes[s].val() & self.live[s].q.val();
                self.a_win[s].next = self.zero_l.val();
                for i in 0..L {
                    self.a_win[s].next = self.a_win[s].val().replace_bit(
                        i,
                        self.a_elig.val().get_bit(i)
                            & (self.beats[i * n + s].val()
                                | !self.a_elig.val()
                                | self.onehot_l[i].val())
                            .all(),
                    );
                }
                self.a_rank[s].next = self.zero6.val();
                for b in 0..6 {
                    self.rank_plane[b].next = self.zero_l.val();
                    for i in 0..L {
                        self.rank_plane[b].next = self.rank_plane[b]
                            .val()
                            .replace_bit(i, self.wcount[i * n + s].val().get_bit(b));
                    }
                    self.a_rank[s].next = self.a_rank[s]
                        .val()
                        .replace_bit(b, (self.rank_plane[b].val() & self.a_win[s].val()).any());
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
                self.umask[0].next = self.unit_sp[s].val();
                self.umask[1].next = self.unit_sfu[s].val();
                self.umask[2].next = self.unit_lsu[s].val();
                for b in 0..6 {
                    self.rank_plane[b].next = self.zero_l.val();
                    for i in 0..L {
                        self.rank_plane[b].next = self.rank_plane[b]
                            .val()
                            .replace_bit(i, self.wcount[i * n + s].val().get_bit(b));
                    }
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
                    self.cand_win[s * 4 + x].next = self.zero_l.val();
                    for i in 0..L {
                        self.cand_win[s * 4 + x].next = self.cand_win[s * 4 + x].val().replace_bit(
                            i,
                            self.cand_elig.val().get_bit(i)
                                & (self.beats[i * n + s].val()
                                    | !self.cand_elig.val()
                                    | self.onehot_l[i].val())
                                .all(),
                        );
                    }
                    self.cand_fc[s * 4 + x].next =
                        (self.cand_win[s * 4 + x].val() & self.on_grant_deal.lanes[s].val()).any();
                    self.cand_rank[s * 4 + x].next = self.zero6.val();
                    for b in 0..6 {
                        self.cand_rank[s * 4 + x].next = self.cand_rank[s * 4 + x]
                            .val()
                            .replace_bit(b, (self.cand_win[s * 4 + x].val() & self.rank_plane[b].val()).any());
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
                // The unit its lead choice takes.
                self.lead_unit[s].next = self.zero3.val();
                for u in 0..3 {
                    self.lead_unit[s].next = self.lead_unit[s]
                        .val()
                        .replace_bit(u, (self.cand_win[s * 4].val() & self.umask[u].val()).any());
                }
            }
            // Each scheduler's grant: its lead choice, or second after the other's.
            for s in 0..SC {
                self.grant[s].next = self.cand_win[s * 4].val();
                self.grant_id[s].next = self.cand_id[s * 4].val();
                self.grant_prio[s].next = self.cand_prio[s * 4].val();
                self.g_fc[s].next = self.cand_fc[s * 4].val();
                self.g_rank[s].next = self.cand_rank[s * 4].val();
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
        // Ranks order a scheduler's live warps as `beats` does (no two are equal), so every
        // comparison is one of ranks: `A`s against each other before the grants, the `G`s
        // against the `A`s and each other once the grants' ranks are muxed; `A_s` and `G_s`
        // with equal ranks are the same warp (both name it).
        self.fetch_any.next = false;
        self.fetch_pick.next = self.zero_nb.val();
        for s in 0..SC {
            self.a_ok[s].next = self.a_win[s].val().any();
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
        self.fetch_warp.next = self.fresh_first.index.val();
        if self.fetch_any.val() {
            self.fetch_warp.next = self.fetch_pick.val();
        }
        for s in 0..SC {
            self.grant_valid[s].next = self.grant[s].val().any();
            self.grant_warp[s].next = self.grant_id[s].val();
            self.prio[s].next = self.grant_prio[s].val();
        }
        // Edge: the WPT takes this cycle's values, then launches (the table as it is now).
        for n in SC..(SC + 1) {
            // Launched warps all take the launch lookup's value: compare it with every
            // warp's value after this cycle's update.
            for s in 0..SC {
                for b in 0..8 {
                    self.cmp_lt[b].next = self.zero_l.val();
                    self.cmp_gt[b].next = !self.wcur[s * 8 + b].val();
                    if !self.st_lval[s].val().get_bit(b) {
                        self.cmp_lt[b].next = self.wcur[s * 8 + b].val();
                        self.cmp_gt[b].next = self.zero_l.val();
                    }
                }
                for i in 0..4 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                for i in 0..2 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                for i in 0..1 {
                    self.cmp_lt[i].next = self.cmp_lt[2 * i + 1].val()
                        | (!self.cmp_gt[2 * i + 1].val() & self.cmp_lt[2 * i].val());
                    self.cmp_gt[i].next = self.cmp_gt[2 * i + 1].val()
                        | (!self.cmp_lt[2 * i + 1].val() & self.cmp_gt[2 * i].val());
                }
                self.launch_lt[s].next = self.cmp_lt[0].val();
                self.launch_gt[s].next = self.cmp_gt[0].val();
                self.launch_eq[s].next = !(self.launch_lt[s].val() | self.launch_gt[s].val());
                for i in 0..L {
                    if self.st_launch[s].val().get_bit(i) {
                        self.nlt[i * n + s].next =
                            self.launch_lt[s].val() & !self.st_launch[s].val();
                        self.neq[i * n + s].next =
                            self.launch_eq[s].val() | self.st_launch[s].val();
                    } else {
                        self.nlt[i * n + s].next =
                            self.cur_lt[i * n + s].val() & !self.st_launch[s].val();
                        if self.launch_gt[s].val().get_bit(i) {
                            self.nlt[i * n + s].next =
                                self.cur_lt[i * n + s].val() | self.st_launch[s].val();
                        }
                        self.neq[i * n + s].next =
                            self.cur_eq[i * n + s].val() & !self.st_launch[s].val();
                        if self.launch_eq[s].val().get_bit(i) {
                            self.neq[i * n + s].next =
                                self.cur_eq[i * n + s].val() | self.st_launch[s].val();
                        }
                    }
                }
            }
            for s in 0..SC {
                for b in 0..8 {
                    if self.st_lval[s].val().get_bit(b) {
                        self.wnew[s * 8 + b].next =
                            self.wcur[s * 8 + b].val() | self.st_launch[s].val();
                    } else {
                        self.wnew[s * 8 + b].next =
                            self.wcur[s * 8 + b].val() & !self.st_launch[s].val();
                    }
                }
                // Pipelined: the warps launched now, at 255 until their lookup lands (after
                // the values landing now): equal to the warps at 255, below no one.
                self.at255.next = !self.zero_l.val();
                for b in 0..8 {
                    self.at255.next = self.at255.val() & self.wnew[s * 8 + b].val();
                }
                for i in 0..L {
                    if self.launch_s[s].val().get_bit(i) {
                        self.nlt[i * n + s].next = self.zero_l.val();
                        self.neq[i * n + s].next = self.at255.val() | self.launch_s[s].val();
                    } else {
                        self.nlt[i * n + s].next =
                            self.nlt[i * n + s].val() & !self.launch_s[s].val();
                        self.neq[i * n + s].next =
                            self.neq[i * n + s].val() & !self.launch_s[s].val();
                        if self.at255.val().get_bit(i) {
                            self.neq[i * n + s].next =
                                self.neq[i * n + s].val() | self.launch_s[s].val();
                        } else {
                            self.nlt[i * n + s].next =
                                self.nlt[i * n + s].val() | self.launch_s[s].val();
                        }
                    }
                }
                for b in 0..8 {
                    self.wnew[s * 8 + b].next = self.wnew[s * 8 + b].val() | self.launch_s[s].val();
                }
                for b in 0..8 {
                    self.wpt[s * 8 + b].d.next = self.wnew[s * 8 + b].val();
                    if self.reset.val() {
                        self.wpt[s * 8 + b].d.next = !self.zero_l.val();
                    }
                }
                for i in 0..L {
                    self.rel_lt[i * n + s].d.next = self.nlt[i * n + s].val();
                    self.rel_eq[i * n + s].d.next = self.neq[i * n + s].val();
                    if self.reset.val() {
                        self.rel_lt[i * n + s].d.next = self.zero_l.val();
                        self.rel_eq[i * n + s].d.next = !self.zero_l.val();
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
                // Pipelined: next cycle's rank parts, from next cycle's relations, ages and
                // live warps: the live warps with a lower value; with it, the older ones with
                // an equal value.
                for i in 0..L {
                    self.plt[i * n + s].bits.next = self.nlive[s].val()
                        & !self.nlt[i * n + s].val()
                        & !self.neq[i * n + s].val();
                    self.peo[i * n + s].bits.next =
                        self.nlive[s].val() & self.neq[i * n + s].val() & self.nold[i * n + s].val();
                    self.rk_lt[i * n + s].clock.next = self.clock.val();
                    self.rk_lteo[i * n + s].clock.next = self.clock.val();
                    self.rk_lt[i * n + s].d.next = self.plt[i * n + s].count.val();
                    self.rk_lteo[i * n + s].d.next =
                        self.plt[i * n + s].count.val() + self.peo[i * n + s].count.val();
                }
            }
        }
        for s in 0..SC {
            self.live[s].d.next = self.nlive[s].val();
            if self.grant[s].val().any() {
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
    > Clocked for ElfPipelined<N, NB, SC, SCB, K, L, LB, U, FB, P, PB, WP>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `fermi` preset, pipelined WPT updates: 48 warps (two schedulers of 24), 32 program points.
pub type ElfPipelinedFermi = ElfPipelined<48, 6, 2, 1, 3, 24, 5, 48, 2, 32, 5, 16>;
/// `proto` preset, pipelined WPT updates: 8 warps (two schedulers of 4), 8 program points.
pub type ElfPipelinedProto = ElfPipelined<8, 3, 2, 1, 3, 4, 2, 8, 2, 8, 3, 16>;
