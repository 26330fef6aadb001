//! RTL of NewCAR, the load/store unit's re-execution queue. Behaviour, ports and cycle timing
//! are specified in `gpusim::blocks::newcar`.
//!
//! `E` entries (`EB = clog2(E)` slot bits, `CB = clog2(E + 1)` count bits), warp ids of `WB`
//! bits. State: `valid` and `store` (E bits each), the warp of each slot, the rotating
//! service pointer, and per slot the set of *blockers*: the slots of the same warp that were
//! in the queue when it was enqueued (E x E flip-flops; a slot's bit is cleared in every row
//! when the slot is reused). A slot is eligible when none of its valid blockers is a store,
//! and, if it is a store, when it has no valid blocker at all: the golden model's "older entry
//! of the same warp" rule without comparing warp ids at service time.

use crate::consts::{constant, onehot_table};
use crate::prim::{FindFirst, RrArbiter};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// NewCAR with `E` entries (a power of two) and `WB`-bit warp ids.
#[derive(LogicBlock)]
pub struct NewCar<const E: usize, const EB: usize, const CB: usize, const WB: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The LSU presents a request.
    pub lsu_valid: Signal<In, Bit>,
    /// Its warp.
    pub lsu_warp: Signal<In, Bits<WB>>,
    /// It is a store.
    pub lsu_store: Signal<In, Bit>,
    /// Its cache would accept it now.
    pub lsu_accept: Signal<In, Bit>,
    /// Per slot: the cache would accept that queued request now.
    pub q_accept: Signal<In, Bits<E>>,
    /// The queue has room.
    pub lsu_ready: Signal<Out, Bit>,
    /// The LSU's request goes to the cache.
    pub lsu_to_cache: Signal<Out, Bit>,
    /// The LSU's request enters the queue.
    pub enq_valid: Signal<Out, Bit>,
    /// Slot it enters.
    pub enq_slot: Signal<Out, Bits<EB>>,
    /// A queued request is tried at the cache.
    pub try_valid: Signal<Out, Bit>,
    /// Its slot.
    pub try_slot: Signal<Out, Bits<EB>>,
    /// The tried request leaves the queue.
    pub deq_valid: Signal<Out, Bit>,
    /// Its slot.
    pub deq_slot: Signal<Out, Bits<EB>>,
    /// Entries in the queue.
    pub count: Signal<Out, Bits<CB>>,
    valid: DFF<Bits<E>>,
    store: DFF<Bits<E>>,
    /// Occupancy, an up/down counter (registered: `full` is read straight from it).
    used: DFF<Bits<CB>>,
    warp: [DFF<Bits<WB>>; E],
    blockers: [DFF<Bits<E>>; E],
    /// The lowest free slot.
    free: FindFirst<E, EB>,
    /// Round robin over the eligible slots from the service pointer (the slot after the last
    /// one served).
    service: RrArbiter<E, EB>,
    full: Signal<Local, Bit>,
    same: Signal<Local, Bits<E>>,
    must: Signal<Local, Bit>,
    elig: Signal<Local, Bits<E>>,
    take_lsu: Signal<Local, Bit>,
    to_cache: Signal<Local, Bit>,
    enq: Signal<Local, Bit>,
    serve: Signal<Local, Bit>,
    deq: Signal<Local, Bit>,
    zero_e: Constant<Bits<E>>,
    zero_c: Constant<Bits<CB>>,
    one_c: Constant<Bits<CB>>,
    full_c: Constant<Bits<CB>>,
    zero_s: Constant<Bits<EB>>,
    zero_w: Constant<Bits<WB>>,
    onehots: [Constant<Bits<E>>; E],
}

impl<const E: usize, const EB: usize, const CB: usize, const WB: usize> Default
    for NewCar<E, EB, CB, WB>
{
    fn default() -> Self {
        assert!(E.is_power_of_two() && E <= 64 && (1usize << EB) == E);
        assert!(
            (1usize << CB) > E && (1usize << (CB - 1)) <= E,
            "CB = clog2(E + 1)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lsu_valid: Default::default(),
            lsu_warp: Default::default(),
            lsu_store: Default::default(),
            lsu_accept: Default::default(),
            q_accept: Default::default(),
            lsu_ready: Default::default(),
            lsu_to_cache: Default::default(),
            enq_valid: Default::default(),
            enq_slot: Default::default(),
            try_valid: Default::default(),
            try_slot: Default::default(),
            deq_valid: Default::default(),
            deq_slot: Default::default(),
            count: Default::default(),
            valid: Default::default(),
            store: Default::default(),
            used: Default::default(),
            warp: array_init::array_init(|_| Default::default()),
            blockers: array_init::array_init(|_| Default::default()),
            free: Default::default(),
            service: Default::default(),
            full: Default::default(),
            same: Default::default(),
            must: Default::default(),
            elig: Default::default(),
            take_lsu: Default::default(),
            to_cache: Default::default(),
            enq: Default::default(),
            serve: Default::default(),
            deq: Default::default(),
            zero_e: constant(0),
            zero_c: constant(0),
            one_c: constant(1),
            full_c: constant(E as u64),
            zero_s: constant(0),
            zero_w: constant(0),
            onehots: onehot_table(),
        }
    }
}

impl<const E: usize, const EB: usize, const CB: usize, const WB: usize> Logic
    for NewCar<E, EB, CB, WB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, store, used);
        for i in 0..E {
            self.warp[i].clock.next = self.clock.val();
            self.warp[i].d.next = self.warp[i].q.val();
            self.blockers[i].clock.next = self.clock.val();
            self.blockers[i].d.next = self.blockers[i].q.val();
        }
        self.full.next = self.used.q.val() == self.full_c.val();
        // Entries of the LSU request's warp, and must_queue.
        self.same.next = self.zero_e.val();
        for i in 0..E {
            if self.valid.q.val().get_bit(i) & (self.warp[i].q.val() == self.lsu_warp.val()) {
                self.same.next = self.same.val() | self.onehots[i].val();
            }
        }
        self.must.next = (self.same.val() & self.store.q.val()).any()
            | (self.same.val().any() & self.lsu_store.val());
        self.free.req.next = !self.valid.q.val();
        // Eligible slots: no valid store blocks a load, no valid entry blocks a store.
        self.elig.next = self.zero_e.val();
        for i in 0..E {
            if self.valid.q.val().get_bit(i) {
                if self.store.q.val().get_bit(i) {
                    if !(self.blockers[i].q.val() & self.valid.q.val()).any() {
                        self.elig.next = self.elig.val() | self.onehots[i].val();
                    }
                } else if !(self.blockers[i].q.val() & self.valid.q.val() & self.store.q.val())
                    .any()
                {
                    self.elig.next = self.elig.val() | self.onehots[i].val();
                }
            }
        }
        // Decisions: the LSU first, else the queue.
        self.take_lsu.next = self.lsu_valid.val() & !self.full.val();
        self.to_cache.next = self.take_lsu.val() & !self.must.val() & self.lsu_accept.val();
        self.enq.next = self.take_lsu.val() & !self.to_cache.val();
        self.service.clock.next = self.clock.val();
        self.service.reset.next = self.reset.val();
        self.service.req.next = self.elig.val();
        self.serve.next = !self.take_lsu.val() & self.service.valid.val();
        self.service.advance.next = self.serve.val();
        self.deq.next = self.serve.val() & (self.q_accept.val() & self.service.onehot.val()).any();
        // Outputs.
        self.lsu_ready.next = !self.full.val();
        self.lsu_to_cache.next = self.to_cache.val();
        self.enq_valid.next = self.enq.val();
        self.enq_slot.next = self.zero_s.val();
        if self.enq.val() {
            self.enq_slot.next = self.free.index.val();
        }
        self.try_valid.next = self.serve.val();
        self.try_slot.next = self.zero_s.val();
        if self.serve.val() {
            self.try_slot.next = self.service.index.val();
        }
        self.deq_valid.next = self.deq.val();
        self.deq_slot.next = self.zero_s.val();
        if self.deq.val() {
            self.deq_slot.next = self.service.index.val();
        }
        self.count.next = self.used.q.val();
        // State.
        if self.enq.val() {
            self.valid.d.next = self.valid.q.val() | self.free.onehot.val();
            if self.lsu_store.val() {
                self.store.d.next = self.store.q.val() | self.free.onehot.val();
            } else {
                self.store.d.next = self.store.q.val() & !self.free.onehot.val();
            }
            for i in 0..E {
                self.blockers[i].d.next = self.blockers[i].q.val() & !self.free.onehot.val();
                if self.free.onehot.val().get_bit(i) {
                    self.warp[i].d.next = self.lsu_warp.val();
                    self.blockers[i].d.next = self.same.val();
                }
            }
        }
        if self.deq.val() {
            self.valid.d.next = self.valid.q.val() & !self.service.onehot.val();
        }
        if self.enq.val() & !self.deq.val() {
            self.used.d.next = self.used.q.val() + self.one_c.val();
        }
        if self.deq.val() & !self.enq.val() {
            self.used.d.next = self.used.q.val() - self.one_c.val();
        }
        if self.reset.val() {
            self.valid.d.next = self.zero_e.val();
            self.store.d.next = self.zero_e.val();
            self.used.d.next = self.zero_c.val();
            for i in 0..E {
                self.warp[i].d.next = self.zero_w.val();
                self.blockers[i].d.next = self.zero_e.val();
            }
        }
    }
}

impl<const E: usize, const EB: usize, const CB: usize, const WB: usize> Clocked
    for NewCar<E, EB, CB, WB>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

#[cfg(test)]
mod tests;

/// `fermi` preset: 32 entries, 48 warps.
pub type NewcarFermi = NewCar<32, 5, 6, 6>;
/// `proto` preset: 8 entries, 8 warps.
pub type NewcarProto = NewCar<8, 3, 4, 3>;

/// NewCAR's RTL per preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "newcar";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        match (policy, preset) {
            ("base", "fermi") => crate::verilog_of::<NewcarFermi>(module),
            ("base", "proto") => crate::verilog_of::<NewcarProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
