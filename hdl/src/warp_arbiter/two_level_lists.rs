//! The lists of every two-level scheduler (TL-RR, TL-GTO, two-level PAWS), as
//! `gpusim::blocks::warp_arbiter::two_level` specifies them.

use crate::consts::{constant, index_table, offset_table, onehot_table, upto_table};
use crate::prim::{FindFirst, OneHotIndex, OneHotMux, PopCount};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

use crate::paws::MinSet;

/// The active list (`K` entries) and pending FIFO (`P = N - K`) of a two-level scheduler for
/// `N` warps with `B`-bit ids, with `W`-bit sort keys (smaller first; a caller that orders
/// waiting warps last puts the waiting flag in the key's top bit).
///
/// State: `act[0..K]` (B each), the active list in priority order, with the key each entry
/// had when it was last promoted or rotated (`act_key`, W each) and the list as a warp mask
/// (N); `pend[0..P]` (B each), the pending FIFO from its front, always full: the `d` warps
/// promoted in a cycle are its first `d` entries, the rest move up by `d` and the `d` demoted
/// fill the back (a mux of `K + 1` shifts per entry); `sorting` (1): this cycle sorts.
///
/// A cycle either demotes and promotes (the waiting entries leave in order, the kept ones move
/// up: one-hot prefix counts and AND-OR muxes; the FIFO's first entries fill the tail), or,
/// when `sorting`, sorts the list instead on the keys recorded in the cycle before (a
/// comparator per ordered pair of entries: smaller key, or equal key and older by `older`, each
/// entry's age row an AND-OR mux over the warps), each entry's position the [`PopCount`] of
/// the entries before it. `sorting` is set by a cycle that promoted a warp when `sort` is
/// high. Then the first eligible entry is granted
/// ([`FindFirst`], [`OneHotMux`]) and the list rotated past it (inner LRR); or, with `inner`,
/// the eligible active warp of the smallest key, the oldest on equal keys ([`MinSet`], then the
/// age rows' oldest, [`OneHotIndex`]), and no rotation.
///
/// Reset: active list `0..K`, pending FIFO `K..N`, not sorting.
#[derive(LogicBlock)]
pub struct TwoLevelLists<const N: usize, const B: usize, const K: usize, const P: usize, const W: usize>
{
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps that could issue (ready and live).
    pub eligible: Signal<In, Bits<N>>,
    /// Warps demoted from the active list (on a long stall, or not live).
    pub waiting: Signal<In, Bits<N>>,
    /// Each warp's key (smaller first).
    pub key: [Signal<In, Bits<W>>; N],
    /// Per warp `i`: the warps older than it.
    pub older: [Signal<In, Bits<N>>; N],
    /// Sort the list in the cycle after a promotion (TL-GTO, `PAWS_TL_FAITHFUL`).
    pub sort: Signal<In, Bit>,
    /// Grant the eligible active warp of the smallest key, never rotate (`PAWS_TL_INNER`).
    pub inner: Signal<In, Bit>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The active list of this cycle (after demotion and promotion), as a warp mask.
    pub active: Signal<Out, Bits<N>>,
    act: [DFF<Bits<B>>; K],
    /// The keys the entries had when they were promoted (recorded for the sort).
    act_key: [DFF<Bits<W>>; K],
    /// The warps of the active list, as a mask.
    act_mask: DFF<Bits<N>>,
    pend: [DFF<Bits<B>>; P],
    sorting: DFF<Bit>,
    kept: [Signal<Local, Bit>; K],
    /// Per entry: the kept / demoted entries before it, as a one-hot count (bit `c`: `c`
    /// of them); the running counts (after the last entry: the totals).
    kept_before: [Signal<Local, Bits<K>>; K],
    demoted_before: [Signal<Local, Bits<K>>; K],
    kept_run: Signal<Local, Bits<N>>,
    demoted_run: Signal<Local, Bits<N>>,
    /// The number of kept entries, in binary.
    kept_count: Signal<Local, Bits<B>>,
    /// Per `o`: the `o`-th demoted entry, and whether there is one (`o` below the number
    /// demoted).
    demoted: [Signal<Local, Bits<B>>; K],
    moves: [Signal<Local, Bit>; K],
    /// The list after demotion and promotion, and its entries' keys.
    compact: [Signal<Local, Bits<B>>; K],
    compact_key: [Signal<Local, Bits<W>>; K],
    /// The warps promoted this cycle.
    promoted: Signal<Local, Bits<N>>,
    /// The sort: per entry its age row and eligibility; per entry `b`, bit `a`: entry `a` goes
    /// before `b`; positions.
    entry_row: [Signal<Local, Bits<N>>; K],
    entry_eligible: Signal<Local, Bits<K>>,
    before: [Signal<Local, Bits<K>>; K],
    rank: [PopCount<K, 3>; K],
    /// The list of this cycle and which of its entries are eligible.
    list: [Signal<Local, Bits<B>>; K],
    list_eligible: Signal<Local, Bits<K>>,
    list_mask: Signal<Local, Bits<N>>,
    first: FindFirst<K, B>,
    pick: OneHotMux<K, B>,
    /// `inner`: the eligible active warps of the smallest key, the oldest of them.
    closest: MinSet<N, W>,
    oldest: Signal<Local, Bits<N>>,
    encode: OneHotIndex<N, B>,
    /// Reused per list entry: its value and key after the rotation.
    rotated: Signal<Local, Bits<B>>,
    rotated_key: Signal<Local, Bits<W>>,
    zero_k: Constant<Bits<K>>,
    /// Warps `0..K`: the active list after reset.
    low_k: Constant<Bits<N>>,
    onehot_k: [Constant<Bits<K>>; K],
    onehot_n: [Constant<Bits<N>>; N],
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    zero_w: Constant<Bits<W>>,
    /// Per `i < K`: bits `0..=i`.
    upto_n: [Constant<Bits<N>>; K],
    one_id: Constant<Bits<B>>,
    zero_id: Constant<Bits<B>>,
    k_const: Constant<Bits<B>>,
    /// `0..N`: warp ids.
    ids: [Constant<Bits<B>>; N],
    /// `0..K` as positions.
    pos: [Constant<Bits<3>>; K],
    pend_init: [Constant<Bits<B>>; P],
}

impl<const N: usize, const B: usize, const K: usize, const P: usize, const W: usize> Default
    for TwoLevelLists<N, B, K, P, W>
{
    fn default() -> Self {
        assert!(N <= 64 && (1usize << B) >= N, "B must be clog2(N), N <= 64");
        assert!(K >= 1 && K + P == N && K <= P, "need 1 <= K <= P = N - K");
        assert!(K < 8, "positions are 3 bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            eligible: Default::default(),
            waiting: Default::default(),
            key: array_init::array_init(|_| Default::default()),
            older: array_init::array_init(|_| Default::default()),
            sort: Default::default(),
            inner: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            active: Default::default(),
            act: array_init::array_init(|_| Default::default()),
            act_key: array_init::array_init(|_| Default::default()),
            act_mask: Default::default(),
            pend: array_init::array_init(|_| Default::default()),
            sorting: Default::default(),
            kept: array_init::array_init(|_| Default::default()),
            kept_before: array_init::array_init(|_| Default::default()),
            demoted_before: array_init::array_init(|_| Default::default()),
            kept_run: Default::default(),
            demoted_run: Default::default(),
            kept_count: Default::default(),
            demoted: array_init::array_init(|_| Default::default()),
            moves: array_init::array_init(|_| Default::default()),
            compact: array_init::array_init(|_| Default::default()),
            compact_key: array_init::array_init(|_| Default::default()),
            promoted: Default::default(),
            entry_row: array_init::array_init(|_| Default::default()),
            entry_eligible: Default::default(),
            before: array_init::array_init(|_| Default::default()),
            rank: array_init::array_init(|_| Default::default()),
            list: array_init::array_init(|_| Default::default()),
            list_eligible: Default::default(),
            list_mask: Default::default(),
            first: Default::default(),
            pick: Default::default(),
            closest: Default::default(),
            oldest: Default::default(),
            encode: Default::default(),
            rotated: Default::default(),
            rotated_key: Default::default(),
            zero_k: constant(0),
            low_k: constant((1u64 << K) - 1),
            onehot_k: onehot_table(),
            onehot_n: onehot_table(),
            one_n: constant(1),
            zero_n: constant(0),
            zero_w: constant(0),
            upto_n: upto_table(),
            one_id: constant(1),
            zero_id: constant(0),
            k_const: constant(K as u64),
            ids: index_table(),
            pos: index_table(),
            pend_init: offset_table(K),
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize, const W: usize> Logic
    for TwoLevelLists<N, B, K, P, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sorting, act_mask);
        for s in 0..K {
            self.act[s].clock.next = self.clock.val();
            self.act[s].d.next = self.act[s].q.val();
            self.act_key[s].clock.next = self.clock.val();
            self.act_key[s].d.next = self.act_key[s].q.val();
        }
        for j in 0..P {
            self.pend[j].clock.next = self.clock.val();
            self.pend[j].d.next = self.pend[j].q.val();
        }
        // 1. Which active entries stay (all of them in a sorting cycle); per entry, how many
        // kept / demoted entries come before it, as one-hot counts (a chain of 2:1 muxes per
        // bit, no adder); the kept count in binary.
        self.kept_run.next = self.one_n.val();
        self.demoted_run.next = self.one_n.val();
        self.kept_count.next = self.zero_id.val();
        for s in 0..K {
            self.kept[s].next = !self.waiting.val().get_bit(self.act[s].q.val().index())
                | self.sorting.q.val();
            self.kept_before[s].next = self.kept_run.val().get_bits::<K>(0);
            self.demoted_before[s].next = self.demoted_run.val().get_bits::<K>(0);
            if self.kept[s].val() {
                self.kept_run.next = self.kept_run.val() << self.one_id.val();
                self.kept_count.next = self.kept_count.val() + self.one_id.val();
            } else {
                self.demoted_run.next = self.demoted_run.val() << self.one_id.val();
            }
        }
        self.sorting.d.next =
            self.sort.val() & !self.sorting.q.val() & (self.kept_count.val() != self.k_const.val());
        // rust-hdl evaluates indices from loop variables only: `m` is K.
        for m in K..(K + 1) {
            // The o-th demoted entry, and whether there is one (o below the number demoted).
            for o in 0..K {
                self.demoted[o].next = self.zero_id.val();
                for s in 0..K {
                    if !self.kept[s].val() & self.demoted_before[s].val().get_bit(o) {
                        self.demoted[o].next = self.demoted[o].val() | self.act[s].q.val();
                    }
                }
                self.moves[o].next = (self.kept_run.val() & self.upto_n[m - 1 - o].val()).any();
            }
            self.promoted.next = self.zero_n.val();
            for o in 0..K {
                if self.moves[o].val() {
                    self.promoted.next =
                        self.promoted.val() | (self.one_n.val() << self.pend[o].q.val());
                }
            }
            // The FIFO with `n = K - c` promoted (c kept): entry j takes entry j + n, and the
            // last n entries, from P - n, take the demoted warps in order.
            for pp in P..(P + 1) {
                for c in 0..(K + 1) {
                    if self.kept_run.val().get_bit(c) {
                        for j in 0..P {
                            self.pend[j].d.next = self.pend[(j + m - c) % pp].q.val();
                        }
                        for o in 0..K {
                            if self.moves[o].val() {
                                self.pend[(pp - m + c + o) % pp].d.next = self.demoted[o].val();
                            }
                        }
                    }
                }
            }
            // 2. Entry d after demotion and promotion: the kept entry with d kept before it,
            // or, past the kept ones (kept count c <= d), the promoted FIFO entry d - c.
            // Exactly one source matches: AND-OR muxes.
            for d in 0..K {
                self.compact[d].next = self.zero_id.val();
                for s in 0..K {
                    if self.kept[s].val() & self.kept_before[s].val().get_bit(d) {
                        self.compact[d].next = self.compact[d].val() | self.act[s].q.val();
                    }
                }
                for c in 0..K {
                    if self.kept_run.val().get_bit(c) & self.upto_n[d].val().get_bit(c) {
                        self.compact[d].next =
                            self.compact[d].val() | self.pend[(d + m - c) % m].q.val();
                    }
                }
            }
        }
        // Each entry's key, recorded for the next cycle's sort (AND-OR muxes over the warps).
        for d in 0..K {
            self.compact_key[d].next = self.zero_w.val();
            for i in 0..N {
                if self.compact[d].val() == self.ids[i].val() {
                    self.compact_key[d].next = self.compact_key[d].val() | self.key[i].val();
                }
            }
        }
        // 3. The sort of the registered list on its recorded keys: per entry its age row and
        // eligibility; the order of every ordered pair; each entry's position.
        self.entry_eligible.next = self.zero_k.val();
        for s in 0..K {
            self.entry_row[s].next = self.zero_n.val();
            for i in 0..N {
                if self.act[s].q.val() == self.ids[i].val() {
                    self.entry_row[s].next = self.entry_row[s].val() | self.older[i].val();
                }
            }
            if self.eligible.val().get_bit(self.act[s].q.val().index()) {
                self.entry_eligible.next = self.entry_eligible.val() | self.onehot_k[s].val();
            }
        }
        for b in 0..K {
            self.before[b].next = self.zero_k.val();
            for a in 0..K {
                if (self.act_key[a].q.val() < self.act_key[b].q.val())
                    | ((self.act_key[a].q.val() == self.act_key[b].q.val())
                        & self.entry_row[b].val().get_bit(self.act[a].q.val().index()))
                {
                    self.before[b].next = self.before[b].val() | self.onehot_k[a].val();
                }
            }
            self.rank[b].bits.next = self.before[b].val();
        }
        // 4. This cycle's list: sorted, or after demotion and promotion; its eligible entries.
        self.list_eligible.next = self.zero_k.val();
        self.list_mask.next = (self.act_mask.q.val() & !self.waiting.val()) | self.promoted.val();
        if self.sorting.q.val() {
            self.list_mask.next = self.act_mask.q.val();
        }
        self.act_mask.d.next = self.list_mask.val();
        for d in 0..K {
            self.list[d].next = self.compact[d].val();
            if self.eligible.val().get_bit(self.compact[d].val().index()) {
                self.list_eligible.next = self.list_eligible.val() | self.onehot_k[d].val();
            }
        }
        if self.sorting.q.val() {
            self.list_eligible.next = self.zero_k.val();
            for d in 0..K {
                self.list[d].next = self.zero_id.val();
                for s in 0..K {
                    if self.rank[s].count.val() == self.pos[d].val() {
                        self.list[d].next = self.list[d].val() | self.act[s].q.val();
                        if self.entry_eligible.val().get_bit(s) {
                            self.list_eligible.next =
                                self.list_eligible.val() | self.onehot_k[d].val();
                        }
                    }
                }
            }
        }
        // 5. Select: the first eligible entry; with `inner`, the smallest key (the oldest of
        // equal keys).
        for d in 0..K {
            self.pick.data[d].next = self.list[d].val();
        }
        self.first.req.next = self.list_eligible.val();
        self.pick.sel.next = self.first.onehot.val();
        self.closest.valid.next = self.eligible.val() & self.list_mask.val();
        self.oldest.next = self.zero_n.val();
        for i in 0..N {
            self.closest.key[i].next = self.key[i].val();
            if self.closest.min.val().get_bit(i)
                & !(self.older[i].val() & self.closest.min.val()).any()
            {
                self.oldest.next = self.oldest.val() | self.onehot_n[i].val();
            }
        }
        self.encode.onehot.next = self.oldest.val();
        self.grant_valid.next = self.first.valid.val();
        self.grant_warp.next = self.pick.out.val();
        if self.inner.val() {
            self.grant_valid.next = (self.eligible.val() & self.list_mask.val()).any();
            self.grant_warp.next = self.encode.index.val();
        }
        self.active.next = self.list_mask.val();
        // 6. Rotate past the grant (not `inner`): entry s becomes list[(sel + 1 + s) mod K],
        // an AND-OR mux over the one-hot position (no adder).
        for m in K..(K + 1) {
            for s in 0..K {
                self.rotated.next = self.zero_id.val();
                self.rotated_key.next = self.zero_w.val();
                for p in 0..K {
                    if self.first.onehot.val().get_bit(p) {
                        self.rotated.next = self.rotated.val() | self.list[(p + 1 + s) % m].val();
                        self.rotated_key.next =
                            self.rotated_key.val() | self.compact_key[(p + 1 + s) % m].val();
                    }
                }
                self.act[s].d.next = self.list[s].val();
                self.act_key[s].d.next = self.compact_key[s].val();
                if self.first.valid.val() & !self.inner.val() {
                    self.act[s].d.next = self.rotated.val();
                    self.act_key[s].d.next = self.rotated_key.val();
                }
            }
        }
        if self.reset.val() {
            self.sorting.d.next = false;
            self.act_mask.d.next = self.low_k.val();
            for s in 0..K {
                self.act[s].d.next = self.ids[s].val();
            }
            for j in 0..P {
                self.pend[j].d.next = self.pend_init[j].val();
            }
        }
    }
}

impl<const N: usize, const B: usize, const K: usize, const P: usize, const W: usize> Clocked
    for TwoLevelLists<N, B, K, P, W>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
