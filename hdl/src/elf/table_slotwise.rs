//! ELF's program-point table with `K` priority calculators, each calculator's arithmetic
//! done per slot (for the pipelined ELF, [`super::ElfPipelined`]): the same slots, write port,
//! lookup ports and results as [`super::PpTable`], but every slot's priority (distance from
//! the PC clipped to 9 bits, score added or subtracted, saturated at 255) is computed in
//! parallel with the find-first, and the first hit's 8-bit priority is taken by an AND-OR mux
//! over bit planes, so a lookup is the deeper of the two, then one mux: no arithmetic after
//! the find-first. Per slot and lookup there are two carry chains: the 32-bit `slot_pc - pc`,
//! whose borrow is the hit (the slot at or after the PC) and whose bits 3..12 are the distance,
//! and one 10-bit adder for the score (`near + score`, or `near + !score + 1` for a load).
//! Lookups read the table as it is during the cycle (writes land at the edge); they are
//! combinational.

use crate::consts::{below_table, constant, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The table and its slot-wise calculators: `P` slots (`PB` = log2 `P` bits of slot index), `K`
/// lookups.
#[derive(LogicBlock)]
pub struct PpTableSlotwise<const P: usize, const PB: usize, const K: usize> {
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
    /// Per lookup and slot, reused: the slot's PC minus the lookup's (32 bits, wrapping) and
    /// its borrow (the slot lies below the PC); the distance in instructions clipped at 511 in
    /// 10 bits (enough for `d + score` and `d - score` to saturate exactly as the unclipped
    /// value does, scores being at most 255, and for the sum not to overflow); the score or its
    /// complement and the carry into the one adder, its sum, and the priority before
    /// saturation.
    diff: Signal<Local, Bits<32>>,
    borrow: Signal<Local, Bit>,
    addend: Signal<Local, Bits<10>>,
    carry_in: Signal<Local, Bits<10>>,
    sum: Signal<Local, Bits<10>>,
    near: Signal<Local, Bits<10>>,
    value: Signal<Local, Bits<10>>,
    /// Per slot: its score, zero-extended to 10 bits.
    score: [Signal<Local, Bits<10>>; P],
    /// Per lookup, reused: bit `b` of every slot's priority (saturated at 255), set slot by
    /// slot; the first hit's priority.
    prio_plane: [Signal<Local, Bits<P>>; 8],
    sel_prio: Signal<Local, Bits<8>>,
    zero_p: Constant<Bits<P>>,
    one10: Constant<Bits<10>>,
    zero32: Constant<Bits<32>>,
    clip: Constant<Bits<10>>,
    /// Bits 3..12 of a difference once shifted down by 3; its bits 12..32.
    mask9: Constant<Bits<10>>,
    hi20: Constant<Bits<32>>,
    /// The bits above 255 (a value to saturate).
    above_max8: Constant<Bits<10>>,
    zero10: Constant<Bits<10>>,
    max8: Constant<Bits<8>>,
    slot_ids: [Constant<Bits<PB>>; P],
    slot_onehot: [Constant<Bits<P>>; P],
    slot_below: [Constant<Bits<P>>; P],
}

impl<const P: usize, const PB: usize, const K: usize> Default for PpTableSlotwise<P, PB, K> {
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
            diff: Default::default(),
            borrow: Default::default(),
            addend: Default::default(),
            carry_in: Default::default(),
            sum: Default::default(),
            near: Default::default(),
            score: array_init::array_init(|_| Default::default()),
            value: Default::default(),
            prio_plane: array_init::array_init(|_| Default::default()),
            sel_prio: Default::default(),
            zero_p: constant(0),
            one10: constant(1),
            zero32: constant(0),
            clip: constant(511),
            mask9: constant(0x1ff),
            hi20: constant(0xffff_f000),
            above_max8: constant(0x300),
            zero10: constant(0),
            max8: constant(255),
            slot_ids: crate::consts::index_table(),
            slot_onehot: onehot_table(),
            slot_below: below_table(),
        }
    }
}

impl<const P: usize, const PB: usize, const K: usize> Logic for PpTableSlotwise<P, PB, K> {
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
        self.diff.next = self.zero32.val();
        self.borrow.next = false;
        self.addend.next = self.zero10.val();
        self.carry_in.next = self.zero10.val();
        self.sum.next = self.zero10.val();
        self.near.next = self.zero10.val();
        self.value.next = self.zero10.val();
        for b in 0..8 {
            self.prio_plane[b].next = self.zero_p.val();
        }
        self.sel_prio.next = self.max8.val();
        for c in 0..K {
            self.prio[c].next = self.max8.val();
            if self.en[c].val() {
                // Per slot, one subtraction `slot_pc - pc`: its borrow says whether the slot is
                // below the PC, its bits 3..12 are the distance in instructions when bits
                // 12..32 are zero (else the distance is clipped at 511).
                self.hit.next = self.zero_p.val();
                for i in 0..P {
                    self.diff.next = self.slot_pc[i].q.val() - self.pc[c].val();
                    // The borrow out of bit 31, from the operands' and the difference's top
                    // bits (bits of signals: Verilog cannot take a bit of an expression).
                    self.borrow.next = (!self.slot_pc[i].q.val().get_bit(31) & self.pc[c].val().get_bit(31))
                        | (!(self.slot_pc[i].q.val().get_bit(31) ^ self.pc[c].val().get_bit(31))
                            & self.diff.val().get_bit(31));
                    self.hit.next = self
                        .hit
                        .val()
                        .replace_bit(i, self.valid.q.val().get_bit(i) & !self.borrow.val());
                    self.near.next = self.clip.val();
                    if !(self.diff.val() & self.hi20.val()).any() {
                        self.near.next = self.diff.val().get_bits::<10>(3) & self.mask9.val();
                    }
                    // One adder for the score: `near + score` (branch) or `near - score` (load:
                    // `near + !score + 1`, bit 9 set when it is negative, the distance kept).
                    self.addend.next = !self.score[i].val();
                    self.carry_in.next = self.one10.val();
                    if self.branch.q.val().get_bit(i) {
                        self.addend.next = self.score[i].val();
                        self.carry_in.next = self.zero10.val();
                    }
                    self.sum.next = self.near.val() + self.addend.val() + self.carry_in.val();
                    self.value.next = self.sum.val();
                    if !self.branch.q.val().get_bit(i)
                        & (self.sum.val().get_bit(9)
                            | (!self.merge_ge.val() & !self.sum.val().any()))
                    {
                        self.value.next = self.near.val();
                    }
                    for b in 0..8 {
                        self.prio_plane[b].next = self.prio_plane[b]
                            .val()
                            .replace_bit(i, self.value.val().get_bit(b) | (self.value.val() & self.above_max8.val()).any());
                    }
                }
                self.first.next = self.zero_p.val();
                for i in 0..P {
                    self.first.next = self.first.val().replace_bit(
                        i,
                        self.hit.val().get_bit(i) & !(self.hit.val() & self.slot_below[i].val()).any(),
                    );
                }
                // The first hit's priority by an AND-OR mux; 255 when no slot is a hit.
                self.sel_prio.next = self.max8.val();
                if self.hit.val().any() {
                    for b in 0..8 {
                        self.sel_prio.next = self
                            .sel_prio
                            .val()
                            .replace_bit(b, (self.prio_plane[b].val() & self.first.val()).any());
                    }
                }
                self.prio[c].next = self.sel_prio.val();
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

impl<const P: usize, const PB: usize, const K: usize> Clocked for PpTableSlotwise<P, PB, K> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
