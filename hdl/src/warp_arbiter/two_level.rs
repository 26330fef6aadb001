//! Two-level active scheduling (GPGPU-Sim `two_level_active:<K>:lrr:srr`).

use crate::consts::{constant, index_table, offset_table, onehot_table, upto_table};
use crate::prim::{FindFirst, OneHotMux};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Two-level arbiter for `N` warps with `B`-bit ids, an active list of `K` entries and a
/// pending FIFO of `P = N - K` entries (`K <= P`, checked at construction).
///
/// State: `live` (N); `act[0..K]` (B each), the active list in priority order; `pend[0..P]`
/// (B each), the pending FIFO as a ring whose front is at `head` (B). The FIFO is always full,
/// so the `d` warps demoted in a cycle are written into exactly the `d` ring slots their
/// promoted replacements are read from, and `head` advances by `d` (mod P).
///
/// Combinational path per cycle: waiting flags of the K active entries -> prefix counts of kept
/// entries -> compacted list with promoted entries appended -> first eligible entry
/// ([`FindFirst`], [`OneHotMux`]) -> rotation (an AND-OR mux over the one-hot position).
#[derive(LogicBlock)]
pub struct ArbiterTwoLevel<const N: usize, const B: usize, const K: usize, const P: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps that could issue this cycle.
    pub ready: Signal<In, Bits<N>>,
    /// Warps launched this cycle.
    pub launch: Signal<In, Bits<N>>,
    /// Warps exiting this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Warps at a barrier, exited, or reading a long-op register: demoted from the active
    /// list (never blocks a grant: a warp promoted this cycle can be granted).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The active list of this cycle (after demotion and promotion), as a warp mask.
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    act: [DFF<Bits<B>>; K],
    pend: [DFF<Bits<B>>; P],
    head: DFF<Bits<B>>,
    eligible: Signal<Local, Bits<N>>,
    waiting: Signal<Local, Bits<N>>,
    kept: [Signal<Local, Bit>; K],
    /// Per entry: the kept / demoted entries before it, as a one-hot count (bit `c`: `c`
    /// of them); the running counts (after the last entry: the totals).
    kept_before: [Signal<Local, Bits<K>>; K],
    demoted_before: [Signal<Local, Bits<K>>; K],
    kept_run: Signal<Local, Bits<N>>,
    demoted_run: Signal<Local, Bits<N>>,
    /// The number of kept entries, in binary.
    kept_count: Signal<Local, Bits<B>>,
    /// Per ring offset `o < K`: the ring slot `(head + o) mod P` and its warp.
    ring_pos: [Signal<Local, Bits<B>>; K],
    ring_at: [Signal<Local, Bits<B>>; K],
    /// Per `o`: the `o`-th demoted entry, and whether there is one (`o` below the number
    /// demoted).
    demoted: [Signal<Local, Bits<B>>; K],
    moves: [Signal<Local, Bit>; K],
    list: [Signal<Local, Bits<B>>; K],
    list_eligible: Signal<Local, Bits<K>>,
    first: FindFirst<K, B>,
    pick: OneHotMux<K, B>,
    found: Signal<Local, Bit>,
    sel_warp: Signal<Local, Bits<B>>,
    /// Reused per ring slot: the demoted entry written there, and whether one is.
    landed: Signal<Local, Bits<B>>,
    lands: Signal<Local, Bit>,
    /// Reused per list entry: its value after the rotation.
    rotated: Signal<Local, Bits<B>>,
    list_mask: Signal<Local, Bits<N>>,
    next_head: Signal<Local, Bits<B>>,
    zero_k: Constant<Bits<K>>,
    onehot_k: [Constant<Bits<K>>; K],
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    /// Per `i < K`: bits `0..=i`.
    upto_n: [Constant<Bits<N>>; K],
    one_id: Constant<Bits<B>>,
    zero_id: Constant<Bits<B>>,
    k_const: Constant<Bits<B>>,
    p_const: Constant<Bits<B>>,
    /// `0..P`: indexes of list slots (`< K`) and ring slots (`< P`), as `K <= P`.
    ids: [Constant<Bits<B>>; P],
    pend_init: [Constant<Bits<B>>; P],
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Default
    for ArbiterTwoLevel<N, B, K, P>
{
    fn default() -> Self {
        assert!(N <= 64 && (1usize << B) >= N, "B must be clog2(N), N <= 64");
        assert!(K >= 1 && K + P == N && K <= P, "need 1 <= K <= P = N - K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            active: Default::default(),
            live: Default::default(),
            act: array_init::array_init(|_| Default::default()),
            pend: array_init::array_init(|_| Default::default()),
            head: Default::default(),
            eligible: Default::default(),
            waiting: Default::default(),
            kept: array_init::array_init(|_| Default::default()),
            kept_before: array_init::array_init(|_| Default::default()),
            demoted_before: array_init::array_init(|_| Default::default()),
            kept_run: Default::default(),
            demoted_run: Default::default(),
            kept_count: Default::default(),
            ring_pos: array_init::array_init(|_| Default::default()),
            ring_at: array_init::array_init(|_| Default::default()),
            demoted: array_init::array_init(|_| Default::default()),
            moves: array_init::array_init(|_| Default::default()),
            list: array_init::array_init(|_| Default::default()),
            list_eligible: Default::default(),
            first: Default::default(),
            pick: Default::default(),
            found: Default::default(),
            sel_warp: Default::default(),
            landed: Default::default(),
            lands: Default::default(),
            rotated: Default::default(),
            list_mask: Default::default(),
            next_head: Default::default(),
            zero_k: constant(0),
            onehot_k: onehot_table(),
            one_n: constant(1),
            zero_n: constant(0),
            upto_n: upto_table(),
            one_id: constant(1),
            zero_id: constant(0),
            k_const: constant(K as u64),
            p_const: constant(P as u64),
            ids: index_table(),
            pend_init: offset_table(K),
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Logic
    for ArbiterTwoLevel<N, B, K, P>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, head);
        for s in 0..K {
            self.act[s].clock.next = self.clock.val();
            self.act[s].d.next = self.act[s].q.val();
        }
        for j in 0..P {
            self.pend[j].clock.next = self.clock.val();
            self.pend[j].d.next = self.pend[j].q.val();
        }
        self.eligible.next = self.ready.val() & self.live.q.val();
        self.waiting.next = self.long_stall.val() | !self.live.q.val();
        // 1. Which active entries stay; per entry, how many kept / demoted entries come
        // before it, as one-hot counts (a chain of 2:1 muxes per bit, no adder); the kept
        // count in binary for the new head.
        self.kept_run.next = self.one_n.val();
        self.demoted_run.next = self.one_n.val();
        self.kept_count.next = self.zero_id.val();
        for s in 0..K {
            self.kept[s].next = !self.waiting.val().get_bit(self.act[s].q.val().index());
            self.kept_before[s].next = self.kept_run.val().get_bits::<K>(0);
            self.demoted_before[s].next = self.demoted_run.val().get_bits::<K>(0);
            if self.kept[s].val() {
                self.kept_run.next = self.kept_run.val() << self.one_id.val();
                self.kept_count.next = self.kept_count.val() + self.one_id.val();
            } else {
                self.demoted_run.next = self.demoted_run.val() << self.one_id.val();
            }
        }
        self.next_head.next = self.head.q.val() + (self.k_const.val() - self.kept_count.val());
        if self.next_head.val() >= self.p_const.val() {
            self.next_head.next = self.next_head.val() - self.p_const.val();
        }
        self.head.d.next = self.next_head.val();
        // The ring from its front: slot `(head + o) mod P` (registers only, off the path
        // from the entries' waiting flags).
        for o in 0..K {
            self.ring_pos[o].next = self.head.q.val() + self.ids[o].val();
            if self.ring_pos[o].val() >= self.p_const.val() {
                self.ring_pos[o].next = self.ring_pos[o].val() - self.p_const.val();
            }
            self.ring_at[o].next = self.zero_id.val();
            for j in 0..P {
                if self.ring_pos[o].val() == self.ids[j].val() {
                    self.ring_at[o].next = self.ring_at[o].val() | self.pend[j].q.val();
                }
            }
        }
        for m in K..(K + 1) {
            // The o-th demoted entry goes to the ring slot the o-th promoted one leaves:
            // `(head + o) mod P`, for o below the number demoted (AND-OR muxes).
            for o in 0..K {
                self.demoted[o].next = self.zero_id.val();
                for s in 0..K {
                    if !self.kept[s].val() & self.demoted_before[s].val().get_bit(o) {
                        self.demoted[o].next = self.demoted[o].val() | self.act[s].q.val();
                    }
                }
                self.moves[o].next = (self.kept_run.val() & self.upto_n[m - 1 - o].val()).any();
            }
            for j in 0..P {
                self.landed.next = self.zero_id.val();
                self.lands.next = false;
                for o in 0..K {
                    if self.moves[o].val() & (self.ring_pos[o].val() == self.ids[j].val()) {
                        self.landed.next = self.landed.val() | self.demoted[o].val();
                        self.lands.next = true;
                    }
                }
                if self.lands.val() {
                    self.pend[j].d.next = self.landed.val();
                }
            }
            // 2. Entry d of the new list: the kept entry with d kept before it, or, past the
            // kept ones (kept count c <= d), the promoted ring entry d - c. Exactly one
            // source matches: AND-OR muxes.
            for d in 0..K {
                self.list[d].next = self.zero_id.val();
                for s in 0..K {
                    if self.kept[s].val() & self.kept_before[s].val().get_bit(d) {
                        self.list[d].next = self.list[d].val() | self.act[s].q.val();
                    }
                }
                for c in 0..K {
                    if self.kept_run.val().get_bit(c) & self.upto_n[d].val().get_bit(c) {
                        self.list[d].next =
                            self.list[d].val() | self.ring_at[(d + m - c) % m].val();
                    }
                }
            }
        }
        // 3. Select the first eligible entry: a find-first over the K entries' eligibility,
        // the warp taken by a one-hot mux.
        self.list_eligible.next = self.zero_k.val();
        self.list_mask.next = self.zero_n.val();
        for d in 0..K {
            if self.eligible.val().get_bit(self.list[d].val().index()) {
                self.list_eligible.next = self.list_eligible.val() | self.onehot_k[d].val();
            }
            self.list_mask.next = self.list_mask.val() | (self.one_n.val() << self.list[d].val());
            self.pick.data[d].next = self.list[d].val();
        }
        self.first.req.next = self.list_eligible.val();
        self.pick.sel.next = self.first.onehot.val();
        self.found.next = self.first.valid.val();
        self.sel_warp.next = self.pick.out.val();
        self.grant_valid.next = self.found.val();
        self.grant_warp.next = self.sel_warp.val();
        self.active.next = self.list_mask.val();
        // 4. Rotate: entry s of the new list is list[(sel_pos + 1 + s) mod K] (sel_pos the
        // first eligible entry), an AND-OR mux
        // over the one-hot position (no adder).
        // rust-hdl evaluates indices from loop variables only: `m` is K.
        for m in K..(K + 1) {
            for s in 0..K {
                self.rotated.next = self.zero_id.val();
                for p in 0..K {
                    if self.first.onehot.val().get_bit(p) {
                        self.rotated.next = self.rotated.val() | self.list[(p + 1 + s) % m].val();
                    }
                }
                self.act[s].d.next = self.list[s].val();
                if self.found.val() {
                    self.act[s].d.next = self.rotated.val();
                }
            }
        }
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero_n.val();
            self.head.d.next = self.zero_id.val();
            for s in 0..K {
                self.act[s].d.next = self.ids[s].val();
            }
            for j in 0..P {
                self.pend[j].d.next = self.pend_init[j].val();
            }
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize> Clocked
    for ArbiterTwoLevel<N, B, K, P>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
