//! Two-level active scheduling (GPGPU-Sim `two_level_active:<K>:lrr:srr`).

use crate::consts::{constant, index_table, offset_table, onehot_table};
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
/// ([`FindFirst`], [`OneHotMux`]) -> rotation.
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
    /// Warps waiting on a long-latency operation: demoted from the active list.
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
    kept_before: [Signal<Local, Bits<B>>; K],
    kept_count: Signal<Local, Bits<B>>,
    write_pos: [Signal<Local, Bits<B>>; K],
    read_pos: [Signal<Local, Bits<B>>; K],
    list: [Signal<Local, Bits<B>>; K],
    list_eligible: Signal<Local, Bits<K>>,
    first: FindFirst<K, B>,
    pick: OneHotMux<K, B>,
    found: Signal<Local, Bit>,
    sel_pos: Signal<Local, Bits<B>>,
    sel_warp: Signal<Local, Bits<B>>,
    rot_src: [Signal<Local, Bits<B>>; K],
    list_mask: Signal<Local, Bits<N>>,
    next_head: Signal<Local, Bits<B>>,
    zero_k: Constant<Bits<K>>,
    onehot_k: [Constant<Bits<K>>; K],
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
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
            kept_count: Default::default(),
            write_pos: array_init::array_init(|_| Default::default()),
            read_pos: array_init::array_init(|_| Default::default()),
            list: array_init::array_init(|_| Default::default()),
            list_eligible: Default::default(),
            first: Default::default(),
            pick: Default::default(),
            found: Default::default(),
            sel_pos: Default::default(),
            sel_warp: Default::default(),
            rot_src: array_init::array_init(|_| Default::default()),
            list_mask: Default::default(),
            next_head: Default::default(),
            zero_k: constant(0),
            onehot_k: onehot_table(),
            one_n: constant(1),
            zero_n: constant(0),
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
        self.eligible.next = self.ready.val() & self.live.q.val() & !self.long_stall.val();
        self.waiting.next = self.long_stall.val() | !self.live.q.val();
        // 1. Demote: which active entries stay, and where demoted ones go in the ring.
        self.kept_count.next = self.zero_id.val();
        for s in 0..K {
            self.kept[s].next = !self.waiting.val().get_bit(self.act[s].q.val().index());
            self.kept_before[s].next = self.kept_count.val();
            self.write_pos[s].next =
                self.head.q.val() + (self.ids[s].val() - self.kept_count.val());
            if self.write_pos[s].val() >= self.p_const.val() {
                self.write_pos[s].next = self.write_pos[s].val() - self.p_const.val();
            }
            if self.kept[s].val() {
                self.kept_count.next = self.kept_count.val() + self.one_id.val();
            }
        }
        for j in 0..P {
            for s in 0..K {
                if !self.kept[s].val() & (self.write_pos[s].val() == self.ids[j].val()) {
                    self.pend[j].d.next = self.act[s].q.val();
                }
            }
        }
        self.next_head.next = self.head.q.val() + (self.k_const.val() - self.kept_count.val());
        if self.next_head.val() >= self.p_const.val() {
            self.next_head.next = self.next_head.val() - self.p_const.val();
        }
        self.head.d.next = self.next_head.val();
        // 2. Compact the kept entries and append the promoted ones (FIFO front first).
        for d in 0..K {
            self.list[d].next = self.zero_id.val();
            for s in 0..K {
                if self.kept[s].val() & (self.kept_before[s].val() == self.ids[d].val()) {
                    self.list[d].next = self.act[s].q.val();
                }
            }
            self.read_pos[d].next = self.head.q.val() + (self.ids[d].val() - self.kept_count.val());
            if self.read_pos[d].val() >= self.p_const.val() {
                self.read_pos[d].next = self.read_pos[d].val() - self.p_const.val();
            }
            if self.ids[d].val() >= self.kept_count.val() {
                for j in 0..P {
                    if self.read_pos[d].val() == self.ids[j].val() {
                        self.list[d].next = self.pend[j].q.val();
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
        self.sel_pos.next = self.first.index.val();
        self.sel_warp.next = self.pick.out.val();
        self.grant_valid.next = self.found.val();
        self.grant_warp.next = self.sel_warp.val();
        self.active.next = self.list_mask.val();
        // 4. Rotate: entry s of the new list is list[(sel_pos + 1 + s) mod K].
        for s in 0..K {
            self.act[s].d.next = self.list[s].val();
            self.rot_src[s].next = self.sel_pos.val() + self.ids[s].val() + self.one_id.val();
            if self.rot_src[s].val() >= self.k_const.val() {
                self.rot_src[s].next = self.rot_src[s].val() - self.k_const.val();
            }
            if self.found.val() {
                for d in 0..K {
                    if self.rot_src[s].val() == self.ids[d].val() {
                        self.act[s].d.next = self.list[d].val();
                    }
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
