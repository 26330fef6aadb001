//! RTL of the ELF block: the program-point table with its priority calculators
//! ([`PpTable`]: one lookup per scheduler's WPT update port and one for launches), the warp
//! priority table (WPT), the issue select of every warp scheduler and the fetch select.
//! Behaviour, ports and cycle timing are specified in `gpusim::blocks::elf`.
//!
//! Sizes (const generics; the type aliases at the bottom fix them per preset): `N` warps
//! (global ids of `NB` bits), `SC` schedulers (a power of two, `SCB` = log2 `SC` bits), `L`
//! warps per scheduler (local ids of `LB` bits; `NB = LB + SCB`), `P` program-point slots
//! (`PB` bits). Derived ones, which rust-hdl cannot compute from the others: `SQ = SC * SC`
//! issue picks, `K = SC + 1` table lookups, `U = 2 * L` (the unit port's width and the rank
//! adder tree's nodes), `FB = clog2(SC + 1)` bits per free-slot count, `WP = 8 * SC` WPT bit
//! planes.
//!
//! Warp `w` is local warp `w / SC` of scheduler `w % SC`; per-warp rows (age row, relation
//! rows) are indexed by global id, per-scheduler state (live mask, last and pending grant, both
//! one-hot) by scheduler, and the WPT is stored as bit planes per scheduler (`wpt[s * 8 + b]`:
//! bit `b` of each local warp's value), so comparing one value with every warp of a scheduler,
//! reading the value of a one-hot warp or writing a value into a set of warps is 8 word
//! operations (in a Verilated model as in the netlist) rather than one per warp. The global
//! ports are split into schedulers' lanes by [`Deal`] and joined by [`Gather`] (wiring).
//! Structure, each stage a reduction tree rather than a chain:
//! * WPT relations: `rel_lt[w]` / `rel_eq[w]` hold which warps of its scheduler warp `w`'s
//!   stored WPT value is below / equal to. Only the pending grant's value (its update port)
//!   and launched warps' values change in a cycle, so only their rows and columns are
//!   recomputed: `L` comparators per scheduler for the pending grant (against the stored
//!   values, so the table lookup meets one comparator level) and `L` for launches, instead of
//!   `L x L` every cycle;
//! * `beats[w]`: which warps of its scheduler warp `w` beats on `(WPT, not greedy, age)`: this
//!   cycle's relations, ties broken by the one-hot `last` and the age row, word operations;
//! * `pick_win[s * SC + k]`: scheduler `s`'s grant if it issues `k`-th this cycle (the
//!   SM's paired issue: from `issue_lead`, each scheduler sees the unit slots the ones before
//!   it took): `SC x SC` AND-reductions over the same `beats`, the `k`-th reading the
//!   `(k-1)`-th of the scheduler before it, so no path loops; `issue_lead` then selects one
//!   per scheduler;
//! * fetch: each scheduler's best fetch-eligible warp, its rank (live warps that beat it, an
//!   adder tree), the smallest `(rank, position from fetch_lead)` wins.
//!
//! Bits gathered one per warp are written with `replace_bit` (a bit select in the Verilog, no
//! branch for Verilator to mispredict).
//!
//! rust-hdl evaluates array indices from loop variables only, so loops that index by
//! `l * SC + s` bind `n = SC` with a one-iteration loop (`for n in SC..SC + 1`).

mod pipelined;
mod position;
mod table;
mod table_slotwise;

pub use pipelined::{ElfPipelined, ElfPipelinedFermi, ElfPipelinedProto};
pub use position::WarpPosition;
pub use table::PpTable;
pub use table_slotwise::PpTableSlotwise;

use crate::consts::{below_table, constant, index_table, onehot_table};
use crate::prim::{Deal, Decode2, FindFirst, Gather};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The ELF block (module documentation for the const generics).
#[derive(LogicBlock)]
pub struct Elf<
    const N: usize,
    const NB: usize,
    const SC: usize,
    const SCB: usize,
    const SQ: usize,
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
    pp_table: PpTable<P, PB, K>,
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
    /// Reused per warp: the warps it beats on a tie.
    tie: Signal<Local, Bits<L>>,
    /// By global id: the warps of its scheduler it beats.
    beats: [Signal<Local, Bits<L>>; N],
    /// Per scheduler: the warps whose value (after this cycle's update) the launch lookup's
    /// is below, above, equal to.
    launch_lt: [Signal<Local, Bits<L>>; SC],
    launch_gt: [Signal<Local, Bits<L>>; SC],
    launch_eq: [Signal<Local, Bits<L>>; SC],
    /// Per (scheduler, position): its eligible warps, its grant (one-hot) and the grant's unit.
    pick_elig: [Signal<Local, Bits<L>>; SQ],
    pick_win: [Signal<Local, Bits<L>>; SQ],
    pick_sp: [Signal<Local, Bit>; SQ],
    pick_sfu: [Signal<Local, Bit>; SQ],
    pick_lsu: [Signal<Local, Bit>; SQ],
    /// Per scheduler, reused per position: the slots taken by the schedulers before it, and
    /// through it.
    excl_sp: [Signal<Local, Bits<FB>>; SC],
    excl_sfu: [Signal<Local, Bits<FB>>; SC],
    excl_lsu: [Signal<Local, Bits<FB>>; SC],
    run_sp: [Signal<Local, Bits<FB>>; SC],
    run_sfu: [Signal<Local, Bits<FB>>; SC],
    run_lsu: [Signal<Local, Bits<FB>>; SC],
    /// Per scheduler: its grant (one-hot) at its position this cycle, its id and WPT value.
    grant: [Signal<Local, Bits<L>>; SC],
    grant_id: [Signal<Local, Bits<LB>>; SC],
    grant_prio: [Signal<Local, Bits<8>>; SC],
    fetch_any: Signal<Local, Bit>,
    /// Per scheduler: fetch-eligible live warps, the best of them (one-hot), its rank.
    felig: [Signal<Local, Bits<L>>; SC],
    fwin: [Signal<Local, Bits<L>>; SC],
    fbeaten: Signal<Local, Bits<L>>,
    rank: [Signal<Local, Bits<8>>; SC],
    /// Rank adder tree (heap order: node `i` sums `2i` and `2i + 1`, leaves `L..2L`), reused.
    rank_node: [Signal<Local, Bits<8>>; U],
    /// Per scheduler: position after the fetch lead; it wins the fetch; its fetch warp.
    fpos: [Signal<Local, Bits<SCB>>; SC],
    fbest: [Signal<Local, Bit>; SC],
    fid: [Signal<Local, Bits<NB>>; SC],
    /// Warps launching now (not yet live) that want a fetch; the lowest of them.
    live_all: Signal<Local, Bits<N>>,
    fresh: Signal<Local, Bits<N>>,
    zero_l: Constant<Bits<L>>,
    zero_lb: Constant<Bits<LB>>,
    zero_fb: Constant<Bits<FB>>,
    one_fb: Constant<Bits<FB>>,
    zero8: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    max8: Constant<Bits<8>>,
    bit_lb: [Constant<Bits<LB>>; LB],
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
        const SQ: usize,
        const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
    > Default for Elf<N, NB, SC, SCB, SQ, K, L, LB, U, FB, P, PB, WP>
{
    fn default() -> Self {
        assert!(SC >= 2 && SC.is_power_of_two() && (1usize << SCB) == SC);
        assert!(N == SC * L && L <= 32 && (1usize << LB) >= L && NB == LB + SCB);
        assert!(SQ == SC * SC && K == SC + 1 && U == 2 * L && WP == 8 * SC);
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
            tie: Default::default(),
            beats: array_init::array_init(|_| Default::default()),
            launch_lt: array_init::array_init(|_| Default::default()),
            launch_gt: array_init::array_init(|_| Default::default()),
            launch_eq: array_init::array_init(|_| Default::default()),
            pick_elig: array_init::array_init(|_| Default::default()),
            pick_win: array_init::array_init(|_| Default::default()),
            pick_sp: array_init::array_init(|_| Default::default()),
            pick_sfu: array_init::array_init(|_| Default::default()),
            pick_lsu: array_init::array_init(|_| Default::default()),
            excl_sp: array_init::array_init(|_| Default::default()),
            excl_sfu: array_init::array_init(|_| Default::default()),
            excl_lsu: array_init::array_init(|_| Default::default()),
            run_sp: array_init::array_init(|_| Default::default()),
            run_sfu: array_init::array_init(|_| Default::default()),
            run_lsu: array_init::array_init(|_| Default::default()),
            grant: array_init::array_init(|_| Default::default()),
            grant_id: array_init::array_init(|_| Default::default()),
            grant_prio: array_init::array_init(|_| Default::default()),
            fetch_any: Default::default(),
            felig: array_init::array_init(|_| Default::default()),
            fwin: array_init::array_init(|_| Default::default()),
            fbeaten: Default::default(),
            rank: array_init::array_init(|_| Default::default()),
            rank_node: array_init::array_init(|_| Default::default()),
            fpos: array_init::array_init(|_| Default::default()),
            fbest: array_init::array_init(|_| Default::default()),
            fid: array_init::array_init(|_| Default::default()),
            live_all: Default::default(),
            fresh: Default::default(),
            zero_l: constant(0),
            zero_lb: constant(0),
            zero_fb: constant(0),
            one_fb: constant(1),
            zero8: constant(0),
            one8: constant(1),
            max8: constant(255),
            bit_lb: array_init::array_init(|b| constant(1 << b)),
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
        const SQ: usize,
        const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
    > Logic for Elf<N, NB, SC, SCB, SQ, K, L, LB, U, FB, P, PB, WP>
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
                self.pend_new[s].next = self.pend_old[s].val();
                if self.upd_trig[s].val() {
                    self.pend_new[s].next = self.pp_table.prio[s].val();
                } else if (self.pend_old[s].val() != self.max8.val())
                    & (self.pend_old[s].val() != self.zero8.val())
                {
                    self.pend_new[s].next = self.pend_old[s].val() - self.one8.val();
                }
                // Compared with every stored value a plane at a time: per bit, where the value
                // is below / above; then a tree from the top bit down (`cmp_lt`, `cmp_gt`).
                for b in 0..8 {
                    self.cmp_lt[b].next = self.zero_l.val();
                    self.cmp_gt[b].next = !self.wpt[s * 8 + b].q.val();
                    if !self.pend_new[s].val().get_bit(b) {
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
                self.pend_lt[s].next = self.cmp_lt[0].val() & !self.pend_mask[s].val();
                self.pend_gt[s].next = self.cmp_gt[0].val() & !self.pend_mask[s].val();
                self.pend_eq[s].next = !(self.pend_lt[s].val() | self.pend_gt[s].val());
            }
            // This cycle's WPT relations: the stored ones with the pending grant's row and
            // column replaced; warp i beats warp j on (WPT, not greedy, age).
            for s in 0..SC {
                for i in 0..L {
                    if self.pend_mask[s].val().get_bit(i) {
                        self.cur_lt[i * n + s].next = self.pend_lt[s].val();
                        self.cur_eq[i * n + s].next = self.pend_eq[s].val();
                    } else {
                        self.cur_lt[i * n + s].next =
                            self.rel_lt[i * n + s].q.val() & !self.pend_mask[s].val();
                        if self.pend_gt[s].val().get_bit(i) {
                            self.cur_lt[i * n + s].next =
                                self.cur_lt[i * n + s].val() | self.pend_mask[s].val();
                        }
                        self.cur_eq[i * n + s].next =
                            self.rel_eq[i * n + s].q.val() & !self.pend_mask[s].val();
                        if self.pend_eq[s].val().get_bit(i) {
                            self.cur_eq[i * n + s].next =
                                self.cur_eq[i * n + s].val() | self.pend_mask[s].val();
                        }
                    }
                    // Ties: the greedy warp beats every other; else the older one wins,
                    // never the greedy one.
                    if self.last[s].q.val().get_bit(i) {
                        self.tie.next = !self.last[s].q.val();
                    } else {
                        self.tie.next = !self.last[s].q.val()
                            & !self.older[i * n + s].q.val()
                            & !self.onehot_l[i].val();
                    }
                    self.beats[i * n + s].next = self.cur_lt[i * n + s].val()
                        | (self.cur_eq[i * n + s].val() & self.tie.val());
                }
            }
            // Last cycle's grants report back: the WPT as this cycle's selects see it.
            for s in 0..SC {
                for b in 0..8 {
                    self.wcur[s * 8 + b].next = self.wpt[s * 8 + b].q.val() & !self.pend_mask[s].val();
                    if self.pend_new[s].val().get_bit(b) {
                        self.wcur[s * 8 + b].next = self.wcur[s * 8 + b].val() | self.pend_mask[s].val();
                    }
                }
            }
            // Issue picks: scheduler s at position k (from the lead) sees the unit slots the
            // k schedulers before it took; `run` carries them from position to position.
            for s in 0..SC {
                self.run_sp[s].next = self.zero_fb.val();
                self.run_sfu[s].next = self.zero_fb.val();
                self.run_lsu[s].next = self.zero_fb.val();
            }
            for k in 0..SC {
                for s in 0..SC {
                    self.excl_sp[s].next = self.run_sp[(s + n - 1) % n].val();
                    self.excl_sfu[s].next = self.run_sfu[(s + n - 1) % n].val();
                    self.excl_lsu[s].next = self.run_lsu[(s + n - 1) % n].val();
                }
                for s in 0..SC {
                    self.pick_elig[s * n + k].next = self.unit_none[s].val();
                    if self.free[0].val() > self.excl_sp[s].val() {
                        self.pick_elig[s * n + k].next =
                            self.pick_elig[s * n + k].val() | self.unit_sp[s].val();
                    }
                    if self.free[1].val() > self.excl_sfu[s].val() {
                        self.pick_elig[s * n + k].next =
                            self.pick_elig[s * n + k].val() | self.unit_sfu[s].val();
                    }
                    if self.free[2].val() > self.excl_lsu[s].val() {
                        self.pick_elig[s * n + k].next =
                            self.pick_elig[s * n + k].val() | self.unit_lsu[s].val();
                    }
                    self.pick_elig[s * n + k].next = self.pick_elig[s * n + k].val()
                        & self.ready[s].val()
                        & self.live[s].q.val();
                    self.pick_win[s * n + k].next = self.zero_l.val();
                    for i in 0..L {
                        self.pick_win[s * n + k].next = self.pick_win[s * n + k].val().replace_bit(
                            i,
                            self.pick_elig[s * n + k].val().get_bit(i)
                                & (self.beats[i * n + s].val()
                                    | !self.pick_elig[s * n + k].val()
                                    | self.onehot_l[i].val())
                                .all(),
                        );
                    }
                    self.pick_sp[s * n + k].next =
                        (self.pick_win[s * n + k].val() & self.unit_sp[s].val()).any();
                    self.pick_sfu[s * n + k].next =
                        (self.pick_win[s * n + k].val() & self.unit_sfu[s].val()).any();
                    self.pick_lsu[s * n + k].next =
                        (self.pick_win[s * n + k].val() & self.unit_lsu[s].val()).any();
                    self.run_sp[s].next = self.excl_sp[s].val();
                    if self.pick_sp[s * n + k].val() {
                        self.run_sp[s].next = self.excl_sp[s].val() + self.one_fb.val();
                    }
                    self.run_sfu[s].next = self.excl_sfu[s].val();
                    if self.pick_sfu[s * n + k].val() {
                        self.run_sfu[s].next = self.excl_sfu[s].val() + self.one_fb.val();
                    }
                    self.run_lsu[s].next = self.excl_lsu[s].val();
                    if self.pick_lsu[s * n + k].val() {
                        self.run_lsu[s].next = self.excl_lsu[s].val() + self.one_fb.val();
                    }
                }
            }
            // Each scheduler's grant at its position; its id and WPT value (one-hot muxes).
            for s in 0..SC {
                self.grant[s].next = self.zero_l.val();
                for k in 0..SC {
                    if self.issue_lead.val() == self.sched_ids[(s + n - k) % n].val() {
                        self.grant[s].next = self.pick_win[s * n + k].val();
                    }
                }
                self.grant_id[s].next = self.zero_lb.val();
                for b in 0..LB {
                    if (self.grant[s].val() & self.local_id_bit[b].val()).any() {
                        self.grant_id[s].next = self.grant_id[s].val() | self.bit_lb[b].val();
                    }
                }
                self.grant_prio[s].next = self.zero8.val();
                for b in 0..8 {
                    self.grant_prio[s].next = self.grant_prio[s]
                        .val()
                        .replace_bit(b, (self.wcur[s * 8 + b].val() & self.grant[s].val()).any());
                }
            }
            // Fetch: each scheduler's best fetch-eligible live warp (granted warps whose
            // i-buffer the grant empties included) and its rank.
            self.elig_deal.word.next = self.fetch_elig.val();
            self.on_grant_deal.word.next = self.fetch_on_grant.val();
            for s in 0..SC {
                self.felig[s].next = (self.elig_deal.lanes[s].val()
                    | (self.on_grant_deal.lanes[s].val() & self.grant[s].val()))
                    & self.live[s].q.val();
                self.fwin[s].next = self.zero_l.val();
                for i in 0..L {
                    self.fwin[s].next = self.fwin[s].val().replace_bit(
                        i,
                        self.felig[s].val().get_bit(i)
                            & (self.beats[i * n + s].val()
                                | !self.felig[s].val()
                                | self.onehot_l[i].val())
                            .all(),
                    );
                }
                self.fbeaten.next = self.zero_l.val();
                for j in 0..L {
                    self.fbeaten.next = self.fbeaten.val().replace_bit(
                        j,
                        self.live[s].q.val().get_bit(j)
                            & (self.beats[j * n + s].val() & self.fwin[s].val()).any(),
                    );
                }
                for m in L..(L + 1) {
                    for j in 0..L {
                        if self.fbeaten.val().get_bit(j) {
                            self.rank_node[m + j].next = self.one8.val();
                        } else {
                            self.rank_node[m + j].next = self.zero8.val();
                        }
                    }
                    for k in 0..(L - 1) {
                        self.rank_node[m - 1 - k].next = self.rank_node[2 * (m - 1 - k)].val()
                            + self.rank_node[2 * (m - 1 - k) + 1].val();
                    }
                }
                self.rank_node[0].next = self.rank_node[1].val();
                self.rank[s].next = self.rank_node[0].val();
                self.fpos[s].next = self.sched_ids[s].val() - self.fetch_lead.val();
                self.fid[s].next = self.sched_gid[s].val();
                for b in 0..LB {
                    if (self.fwin[s].val() & self.local_id_bit[b].val()).any() {
                        self.fid[s].next = self.fid[s].val() | self.bit_hi[b].val();
                    }
                }
            }
        }
        // Live warps (global ids); warps launching now that want a fetch, the lowest.
        for s in 0..SC {
            self.live_gather.lanes[s].next = self.live[s].q.val();
        }
        self.live_all.next = self.live_gather.word.val();
        // The fetch: the smallest (rank, position from the fetch lead) wins.
        self.fetch_any.next = false;
        for s in 0..SC {
            self.fbest[s].next = self.fwin[s].val().any();
            self.fetch_any.next = self.fetch_any.val() | self.fwin[s].val().any();
            for t in 0..SC {
                if (self.sched_ids[t].val() != self.sched_ids[s].val())
                    & self.fwin[t].val().any()
                    & !((self.rank[s].val() < self.rank[t].val())
                        | ((self.rank[s].val() == self.rank[t].val())
                            & (self.fpos[s].val() < self.fpos[t].val())))
                {
                    self.fbest[s].next = false;
                }
            }
        }
        self.fresh.next = self.fetch_elig.val() & self.launch.val() & !self.live_all.val();
        self.fresh_first.req.next = self.fresh.val();
        self.fetch_valid.next = self.fetch_any.val() | self.fresh_first.valid.val();
        self.fetch_warp.next = self.fresh_first.index.val();
        for s in 0..SC {
            if self.fbest[s].val() {
                self.fetch_warp.next = self.fid[s].val();
            }
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
                    if !self.pp_table.prio[n].val().get_bit(b) {
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
                    if self.launch_s[s].val().get_bit(i) {
                        self.rel_lt[i * n + s].d.next =
                            self.launch_lt[s].val() & !self.launch_s[s].val();
                        self.rel_eq[i * n + s].d.next =
                            self.launch_eq[s].val() | self.launch_s[s].val();
                    } else {
                        self.rel_lt[i * n + s].d.next =
                            self.cur_lt[i * n + s].val() & !self.launch_s[s].val();
                        if self.launch_gt[s].val().get_bit(i) {
                            self.rel_lt[i * n + s].d.next =
                                self.cur_lt[i * n + s].val() | self.launch_s[s].val();
                        }
                        self.rel_eq[i * n + s].d.next =
                            self.cur_eq[i * n + s].val() & !self.launch_s[s].val();
                        if self.launch_eq[s].val().get_bit(i) {
                            self.rel_eq[i * n + s].d.next =
                                self.cur_eq[i * n + s].val() | self.launch_s[s].val();
                        }
                    }
                    if self.reset.val() {
                        self.rel_lt[i * n + s].d.next = self.zero_l.val();
                        self.rel_eq[i * n + s].d.next = !self.zero_l.val();
                    }
                }
            }
            for s in 0..SC {
                for b in 0..8 {
                    if self.pp_table.prio[n].val().get_bit(b) {
                        self.wpt[s * 8 + b].d.next =
                            self.wcur[s * 8 + b].val() | self.launch_s[s].val();
                    } else {
                        self.wpt[s * 8 + b].d.next =
                            self.wcur[s * 8 + b].val() & !self.launch_s[s].val();
                    }
                    if self.reset.val() {
                        self.wpt[s * 8 + b].d.next = !self.zero_l.val();
                    }
                }
                for l in 0..L {
                    if self.launch_s[s].val().get_bit(l) {
                        self.older[l * n + s].d.next = !self.launch_s[s].val()
                            | (self.launch_s[s].val() & self.below_l[l].val());
                    } else {
                        self.older[l * n + s].d.next =
                            self.older[l * n + s].q.val() & !self.launch_s[s].val();
                    }
                    if self.reset.val() {
                        self.older[l * n + s].d.next = self.below_l[l].val();
                    }
                }
            }
        }
        for s in 0..SC {
            self.live[s].d.next =
                (self.live[s].q.val() & !self.exit_s[s].val()) | self.launch_s[s].val();
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
        const SQ: usize,
        const K: usize,
        const L: usize,
        const LB: usize,
        const U: usize,
        const FB: usize,
        const P: usize,
        const PB: usize,
        const WP: usize,
    > Clocked for Elf<N, NB, SC, SCB, SQ, K, L, LB, U, FB, P, PB, WP>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

#[cfg(test)]
mod tests;

/// `fermi` preset: 48 warps (two schedulers of 24), 32 program points.
pub type ElfFermi = Elf<48, 6, 2, 1, 4, 3, 24, 5, 48, 2, 32, 5, 16>;
/// `proto` preset: 8 warps (two schedulers of 4), 8 program points.
pub type ElfProto = Elf<8, 3, 2, 1, 4, 3, 4, 2, 8, 2, 8, 3, 16>;
/// Four schedulers of 4 warps, 8 program points (tests the scheduler-count generics).
pub type ElfQuad = Elf<16, 4, 4, 2, 16, 5, 4, 2, 8, 3, 8, 3, 32>;

/// The ELF block's RTL per preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "elf";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        match (policy, preset) {
            ("base", "fermi") => crate::verilog_of::<ElfFermi>(module),
            ("base", "proto") => crate::verilog_of::<ElfProto>(module),
            ("pipelined", "fermi") => crate::verilog_of::<ElfPipelinedFermi>(module),
            ("pipelined", "proto") => crate::verilog_of::<ElfPipelinedProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
