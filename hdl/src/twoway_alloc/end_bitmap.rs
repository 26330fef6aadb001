//! One end of the 2-way allocator: its `T`-bit slot bitmap (a register), the cycle's reports
//! applied to it, and what the allocator reads of the result.
//!
//! Everything the parent reads comes out of this block, and everything it feeds in comes from
//! its own registers or ports: the parent's logic then never drives a sub-block's input from a
//! value it computes itself, so Verilator's scheduler sees no loop through the sub-blocks (a
//! single combinational process that both feeds a popcount and reads its count is circular to
//! Verilator, `UNOPTFLAT`).

use crate::consts::{constant, shift_table};
use crate::prim::{FindFirst, OneHotIndex, PopCount};
use rust_hdl::prelude::*;

/// One end's slots: `T` of them, `SB` = clog2 `T` bits index one, `PB` bits hold `T`.
///
/// Combinational from the register and this cycle's `placed`/`freed` (the bitmap after the
/// reports, [`Reported`]): `empty`, `live` (its blocks), `hwm` (one above its highest block, 0
/// when none), `free0` (its lowest clear slot: the lowest hole below `hwm`, else `hwm`) and
/// `free1` (the next clear slot), each with a valid flag (false when no slot is clear) and a
/// hole flag (below `hwm`). At the edge the register takes the bitmap; reset clears it.
#[derive(LogicBlock)]
pub struct EndBitmap<const T: usize, const SB: usize, const PB: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A kernel holds the end (placed reports count only then).
    pub valid: Signal<In, Bit>,
    /// Slots made resident last cycle.
    pub placed: Signal<In, Bits<T>>,
    /// Slots released last cycle.
    pub freed: Signal<In, Bits<T>>,
    /// It has no block.
    pub empty: Signal<Out, Bit>,
    /// Its blocks (`PB` bits, zero-extended).
    pub live: Signal<Out, Bits<16>>,
    /// One above its highest block; 0 when none.
    pub hwm: Signal<Out, Bits<16>>,
    /// Some slot is clear.
    pub free0_valid: Signal<Out, Bit>,
    /// The lowest clear slot.
    pub free0: Signal<Out, Bits<16>>,
    /// `free0` is a hole: below `hwm`.
    pub hole0: Signal<Out, Bit>,
    /// A second slot is clear.
    pub free1_valid: Signal<Out, Bit>,
    /// The next clear slot above `free0`.
    pub free1: Signal<Out, Bits<16>>,
    /// `free1` is a hole.
    pub hole1: Signal<Out, Bit>,
    slots_reg: Reported<T>,
    scan: Signal<Local, Bits<T>>,
    blocks: PopCount<T, PB>,
    mark: OneHotIndex<T, SB>,
    mark16: Signal<Local, Bits<16>>,
    clear0: FindFirst<T, SB>,
    clear1: FindFirst<T, SB>,
    shift: [Constant<Bits<8>>; SB],
    bit16: [Constant<Bits<16>>; PB],
    zero16: Constant<Bits<16>>,
    slots: Constant<Bits<16>>,
    bit_t0: Constant<Bits<T>>,
    bit_last: Constant<Bits<T>>,
}

impl<const T: usize, const SB: usize, const PB: usize> Default for EndBitmap<T, SB, PB> {
    fn default() -> Self {
        assert!((2..=64).contains(&T) && T <= 1 << SB && T < 1 << PB && SB < PB && PB <= 8);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            placed: Default::default(),
            freed: Default::default(),
            empty: Default::default(),
            live: Default::default(),
            hwm: Default::default(),
            free0_valid: Default::default(),
            hole0: Default::default(),
            free0: Default::default(),
            free1_valid: Default::default(),
            free1: Default::default(),
            hole1: Default::default(),
            slots_reg: Default::default(),
            scan: Default::default(),
            blocks: Default::default(),
            mark: Default::default(),
            mark16: Default::default(),
            clear0: Default::default(),
            clear1: Default::default(),
            shift: shift_table(),
            bit16: array_init::array_init(|k| constant(1 << k)),
            zero16: constant(0),
            slots: constant(T as u64),
            bit_t0: constant(1),
            bit_last: constant(1 << (T - 1)),
        }
    }
}

impl<const T: usize, const SB: usize, const PB: usize> Logic for EndBitmap<T, SB, PB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.slots_reg.clock.next = self.clock.val();
        self.slots_reg.reset.next = self.reset.val();
        self.slots_reg.valid.next = self.valid.val();
        self.slots_reg.placed.next = self.placed.val();
        self.slots_reg.freed.next = self.freed.val();
        // A downward prefix OR marks the slots at or below the highest block (a thermometer
        // code): its lowest clear bit is the mark (`T` when none is clear), and a clear slot
        // inside it is a hole.
        self.scan.next = self.slots_reg.now.val();
        for k in 0..SB {
            self.scan.next = self.scan.val() | (self.scan.val() >> self.shift[k].val());
        }
        self.mark.onehot.next =
            !self.scan.val() & ((self.scan.val() << self.shift[0].val()) | self.bit_t0.val());
        self.blocks.bits.next = self.slots_reg.now.val();
        self.clear0.req.next = !self.slots_reg.now.val();
        self.clear1.req.next = !self.slots_reg.now.val() & !self.clear0.onehot.val();
        self.empty.next = !self.slots_reg.now.val().any();
        self.hole0.next = (self.clear0.onehot.val() & self.scan.val()).any();
        self.hole1.next = (self.clear1.onehot.val() & self.scan.val()).any();
        self.free0_valid.next = self.clear0.valid.val();
        self.free1_valid.next = self.clear1.valid.val();
        // Counts and indices widened to 16 bits.
        self.live.next = self.zero16.val();
        self.free0.next = self.zero16.val();
        self.free1.next = self.zero16.val();
        for k in 0..PB {
            if self.blocks.count.val().get_bit(k) {
                self.live.next = self.live.val() | self.bit16[k].val();
            }
        }
        self.mark16.next = self.zero16.val();
        for k in 0..SB {
            if self.mark.index.val().get_bit(k) {
                self.mark16.next = self.mark16.val() | self.bit16[k].val();
            }
            if self.clear0.index.val().get_bit(k) {
                self.free0.next = self.free0.val() | self.bit16[k].val();
            }
            if self.clear1.index.val().get_bit(k) {
                self.free1.next = self.free1.val() | self.bit16[k].val();
            }
        }
        self.hwm.next = self.mark16.val();
        if (self.slots_reg.now.val() & self.bit_last.val()).any() {
            self.hwm.next = self.slots.val();
        }
    }
}

/// The slot bitmap register with the cycle's reports applied: `now` = (`q` | `placed` while
/// `valid`) & !`freed`, combinational; the register takes `now` at the edge, 0 on reset.
///
/// A block of its own so that every reader of `now` in [`EndBitmap`] reads a sub-block's
/// output (see the module comment).
#[derive(LogicBlock)]
pub struct Reported<const T: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Placed reports count.
    pub valid: Signal<In, Bit>,
    /// Slots made resident last cycle.
    pub placed: Signal<In, Bits<T>>,
    /// Slots released last cycle.
    pub freed: Signal<In, Bits<T>>,
    /// The bitmap after the reports.
    pub now: Signal<Out, Bits<T>>,
    occ: DFF<Bits<T>>,
    zero_t: Constant<Bits<T>>,
}

impl<const T: usize> Default for Reported<T> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            placed: Default::default(),
            freed: Default::default(),
            now: Default::default(),
            occ: Default::default(),
            zero_t: constant(0),
        }
    }
}

impl<const T: usize> Logic for Reported<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, occ);
        self.now.next = self.occ.q.val() & !self.freed.val();
        if self.valid.val() {
            self.now.next = (self.occ.q.val() | self.placed.val()) & !self.freed.val();
        }
        self.occ.d.next = self.now.val();
        if self.reset.val() {
            self.occ.d.next = self.zero_t.val();
        }
    }
}
