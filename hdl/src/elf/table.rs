//! ELF's program-point table with `K` priority calculators (spec §1.6): the `P` slots
//! (valid, branch, PC, score) behind one write port, and `K` lookup ports, each a comparator
//! per slot, the first valid slot at or after the PC found by a prefix OR (no priority chain),
//! every slot's priority computed in parallel as if it were that slot (distance from the PC
//! clipped to 9 bits, score added or subtracted, saturated at 255), and the first hit's taken
//! by an AND-OR mux, so the find-first and the arithmetic run side by side. Lookups read the
//! table as it is during the cycle (writes land at the edge); they are combinational.

use crate::consts::{below_table, constant, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The table and its calculators: `P` slots (`PB` = log2 `P` bits of slot index), `K` lookups.
#[derive(LogicBlock)]
pub struct PpTable<const P: usize, const PB: usize, const K: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: every slot invalid.
    pub reset: Signal<In, Bit>,
    /// Invalidate every slot (before this cycle's write).
    pub tw_clear: Signal<In, Bit>,
    /// Write slot `tw_slot` at the edge.
    pub tw_en: Signal<In, Bit>,
    /// Slot written.
    pub tw_slot: Signal<In, Bits<PB>>,
    /// Written valid bit.
    pub tw_valid: Signal<In, Bit>,
    /// Written branch bit.
    pub tw_branch: Signal<In, Bit>,
    /// Written PC (bytes).
    pub tw_pc: Signal<In, Bits<32>>,
    /// Written score.
    pub tw_score: Signal<In, Bits<8>>,
    /// Merged-load boundary (spec A-6): subtract a load's score when `d >= score` (1) or, as
    /// the thesis states it, `d > score` (0).
    pub merge_ge: Signal<In, Bit>,
    /// Per lookup: the warp's next PC (bytes).
    pub pc: [Signal<In, Bits<32>>; K],
    /// Per lookup: its result is used this cycle. When low, `prio` is 255 and the lookup's
    /// logic is skipped in simulation (an `if` around it in the Verilog; in hardware one
    /// gate on the output).
    pub en: [Signal<In, Bit>; K],
    /// Per lookup: its priority, 0..=255, in the same cycle.
    pub prio: [Signal<Out, Bits<8>>; K],
    valid: DFF<Bits<P>>,
    branch: DFF<Bits<P>>,
    slot_pc: [DFF<Bits<32>>; P],
    slot_score: [DFF<Bits<8>>; P],
    valid_new: Signal<Local, Bits<P>>,
    branch_new: Signal<Local, Bits<P>>,
    /// Per lookup, reused: the valid slots at or after the PC, and the first of them.
    hit: Signal<Local, Bits<P>>,
    first: Signal<Local, Bits<P>>,
    /// Per lookup and slot, reused: the distance from the PC to the slot in instructions,
    /// `(pc_slot - pc) >> 3`; the same clipped at 511 in 10 bits (enough for `d + score`
    /// and `d - score` to saturate exactly as the unclipped value does, scores being at most
    /// 255, and for the sum not to overflow); the clipped distance with the score added or
    /// subtracted.
    distance: Signal<Local, Bits<32>>,
    near: Signal<Local, Bits<10>>,
    value: Signal<Local, Bits<10>>,
    /// Per slot: its score, zero-extended to 10 bits.
    score: [Signal<Local, Bits<10>>; P],
    /// Per lookup, reused: the first hit's clipped distance, score and branch bit.
    sel_near: Signal<Local, Bits<10>>,
    sel_score: Signal<Local, Bits<10>>,
    sel_branch: Signal<Local, Bit>,
    zero_p: Constant<Bits<P>>,
    zero32: Constant<Bits<32>>,
    shift: Constant<Bits<32>>,
    clip: Constant<Bits<10>>,
    /// The bits above 511 (a distance to clip) and above 255 (a value to saturate).
    above_clip: Constant<Bits<32>>,
    above_max8: Constant<Bits<10>>,
    zero10: Constant<Bits<10>>,
    max8: Constant<Bits<8>>,
    slot_ids: [Constant<Bits<PB>>; P],
    slot_onehot: [Constant<Bits<P>>; P],
    slot_below: [Constant<Bits<P>>; P],
}

impl<const P: usize, const PB: usize, const K: usize> Default for PpTable<P, PB, K> {
    fn default() -> Self {
        assert!((1usize << PB) == P && P <= 64 && K >= 1);
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
            pc: array_init::array_init(|_| Default::default()),
            en: array_init::array_init(|_| Default::default()),
            prio: array_init::array_init(|_| Default::default()),
            valid: Default::default(),
            branch: Default::default(),
            slot_pc: array_init::array_init(|_| Default::default()),
            slot_score: array_init::array_init(|_| Default::default()),
            valid_new: Default::default(),
            branch_new: Default::default(),
            hit: Default::default(),
            first: Default::default(),
            distance: Default::default(),
            near: Default::default(),
            score: array_init::array_init(|_| Default::default()),
            value: Default::default(),
            sel_near: Default::default(),
            sel_score: Default::default(),
            sel_branch: Default::default(),
            zero_p: constant(0),
            zero32: constant(0),
            shift: constant(3),
            clip: constant(511),
            above_clip: constant(!511u32 as u64),
            above_max8: constant(0x300),
            zero10: constant(0),
            max8: constant(255),
            slot_ids: crate::consts::index_table(),
            slot_onehot: onehot_table(),
            slot_below: below_table(),
        }
    }
}

impl<const P: usize, const PB: usize, const K: usize> Logic for PpTable<P, PB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, branch);
        for i in 0..P {
            self.slot_pc[i].clock.next = self.clock.val();
            self.slot_pc[i].d.next = self.slot_pc[i].q.val();
            self.slot_score[i].clock.next = self.clock.val();
            self.slot_score[i].d.next = self.slot_score[i].q.val();
        }
        // Every slot's score, zero-extended for the distance arithmetic.
        for i in 0..P {
            self.score[i].next = self.zero10.val();
            for b in 0..8 {
                self.score[i].next = self.score[i]
                    .val()
                    .replace_bit(b, self.slot_score[i].q.val().get_bit(b));
            }
        }
        // The lookups' scratch values start at zero (no latch when every lookup is off).
        self.hit.next = self.zero_p.val();
        self.first.next = self.zero_p.val();
        self.distance.next = self.zero32.val();
        self.near.next = self.zero10.val();
        self.value.next = self.zero10.val();
        self.sel_near.next = self.zero10.val();
        self.sel_score.next = self.zero10.val();
        self.sel_branch.next = false;
        for c in 0..K {
            self.prio[c].next = self.max8.val();
            if self.en[c].val() {
                // The valid slots at or after the PC; the first of them (none lower is a hit).
                self.hit.next = self.zero_p.val();
                self.first.next = self.zero_p.val();
                for i in 0..P {
                    self.hit.next = self.hit.val().replace_bit(
                        i,
                        self.valid.q.val().get_bit(i) & (self.slot_pc[i].q.val() >= self.pc[c].val()),
                    );
                }
                for i in 0..P {
                    self.first.next = self.first.val().replace_bit(
                        i,
                        self.hit.val().get_bit(i) & !(self.hit.val() & self.slot_below[i].val()).any(),
                    );
                }
                // Every slot's distance from the PC, clipped (in parallel with the find-first);
                // the first hit's distance, score and branch bit by AND-OR muxes; then the
                // arithmetic once, saturated at 255.
                self.sel_near.next = self.zero10.val();
                self.sel_score.next = self.zero10.val();
                self.sel_branch.next = false;
                for i in 0..P {
                    self.distance.next =
                        (self.slot_pc[i].q.val() - self.pc[c].val()) >> self.shift.val();
                    self.near.next = self.distance.val().get_bits::<10>(0);
                    if (self.distance.val() & self.above_clip.val()).any() {
                        self.near.next = self.clip.val();
                    }
                    if self.first.val().get_bit(i) {
                        self.sel_near.next = self.sel_near.val() | self.near.val();
                        self.sel_score.next = self.sel_score.val() | self.score[i].val();
                        self.sel_branch.next = self.sel_branch.val() | self.branch.q.val().get_bit(i);
                    }
                }
                if self.sel_branch.val() {
                    self.value.next = self.sel_near.val() + self.sel_score.val();
                } else if (self.sel_near.val() > self.sel_score.val())
                    | (self.merge_ge.val() & (self.sel_near.val() == self.sel_score.val()))
                {
                    self.value.next = self.sel_near.val() - self.sel_score.val();
                } else {
                    self.value.next = self.sel_near.val();
                }
                self.prio[c].next = self.value.val().get_bits::<8>(0);
                if (self.value.val() & self.above_max8.val()).any() {
                    self.prio[c].next = self.max8.val();
                }
                if !self.hit.val().any() {
                    self.prio[c].next = self.max8.val();
                }
            }
        }
        // Write port: clear, then write one slot.
        self.valid_new.next = self.valid.q.val();
        self.branch_new.next = self.branch.q.val();
        if self.tw_clear.val() {
            self.valid_new.next = self.zero_p.val();
            self.branch_new.next = self.zero_p.val();
        }
        // (The slot loop under `tw_en`: the same logic, skipped by Verilator when nothing is
        // written.)
        if self.tw_en.val() {
            for i in 0..P {
                if self.tw_slot.val() == self.slot_ids[i].val() {
                    self.valid_new.next = self.valid_new.val() & !self.slot_onehot[i].val();
                    self.branch_new.next = self.branch_new.val() & !self.slot_onehot[i].val();
                    if self.tw_valid.val() {
                        self.valid_new.next = self.valid_new.val() | self.slot_onehot[i].val();
                    }
                    if self.tw_branch.val() {
                        self.branch_new.next = self.branch_new.val() | self.slot_onehot[i].val();
                    }
                    self.slot_pc[i].d.next = self.tw_pc.val();
                    self.slot_score[i].d.next = self.tw_score.val();
                }
            }
        }
        self.valid.d.next = self.valid_new.val();
        self.branch.d.next = self.branch_new.val();
        if self.reset.val() {
            self.valid.d.next = self.zero_p.val();
            self.branch.d.next = self.zero_p.val();
        }
    }
}

impl<const P: usize, const PB: usize, const K: usize> Clocked for PpTable<P, PB, K> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
