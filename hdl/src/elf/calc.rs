//! ELF's priority calculator (spec §1.6): comparators against every valid program point, a
//! priority encoder for the first one at or after the PC (the table is sorted by PC), and the
//! distance/score arithmetic with saturation at 255. Purely combinational; the ELF block
//! instantiates three (two WPT update ports and the launch port).

use crate::consts::constant;
use rust_hdl::prelude::*;

/// Calculator over a `P`-slot table.
#[derive(LogicBlock)]
pub struct PrioCalc<const P: usize> {
    /// The warp's next PC (bytes).
    pub pc: Signal<In, Bits<32>>,
    /// Slot valid bits.
    pub tv: Signal<In, Bits<P>>,
    /// Slot branch bits.
    pub tb: Signal<In, Bits<P>>,
    /// Slot PCs.
    pub tpc: [Signal<In, Bits<32>>; P],
    /// Slot scores.
    pub tsc: [Signal<In, Bits<8>>; P],
    /// The priority, 0..=255.
    pub prio: Signal<Out, Bits<8>>,
    found: Signal<Local, Bit>,
    sel_pc: Signal<Local, Bits<32>>,
    sel_sc: Signal<Local, Bits<8>>,
    sel_br: Signal<Local, Bit>,
    d: Signal<Local, Bits<32>>,
    s: Signal<Local, Bits<32>>,
    v: Signal<Local, Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero8: Constant<Bits<8>>,
    shift: Constant<Bits<32>>,
    max32: Constant<Bits<32>>,
    max8: Constant<Bits<8>>,
    bit32: [Constant<Bits<32>>; 8],
}

impl<const P: usize> Default for PrioCalc<P> {
    fn default() -> Self {
        Self {
            pc: Default::default(),
            tv: Default::default(),
            tb: Default::default(),
            tpc: array_init::array_init(|_| Default::default()),
            tsc: array_init::array_init(|_| Default::default()),
            prio: Default::default(),
            found: Default::default(),
            sel_pc: Default::default(),
            sel_sc: Default::default(),
            sel_br: Default::default(),
            d: Default::default(),
            s: Default::default(),
            v: Default::default(),
            zero32: constant(0),
            zero8: constant(0),
            shift: constant(3),
            max32: constant(255),
            max8: constant(255),
            bit32: array_init::array_init(|k| constant(1 << k)),
        }
    }
}

impl<const P: usize> Logic for PrioCalc<P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.found.next = false;
        self.sel_pc.next = self.zero32.val();
        self.sel_sc.next = self.zero8.val();
        self.sel_br.next = false;
        for i in 0..P {
            if self.tv.val().get_bit(i) & (self.tpc[i].val() >= self.pc.val()) & !self.found.val() {
                self.found.next = true;
                self.sel_pc.next = self.tpc[i].val();
                self.sel_sc.next = self.tsc[i].val();
                self.sel_br.next = self.tb.val().get_bit(i);
            }
        }
        self.d.next = (self.sel_pc.val() - self.pc.val()) >> self.shift.val();
        // The score zero-extended to 32 bits.
        self.s.next = self.zero32.val();
        for k in 0..8 {
            if self.sel_sc.val().get_bit(k) {
                self.s.next = self.s.val() | self.bit32[k].val();
            }
        }
        if self.sel_br.val() {
            self.v.next = self.d.val() + self.s.val();
        } else if self.d.val() >= self.s.val() {
            self.v.next = self.d.val() - self.s.val();
        } else {
            self.v.next = self.d.val();
        }
        if !self.found.val() | (self.v.val() > self.max32.val()) {
            self.prio.next = self.max8.val();
        } else {
            self.prio.next = self.v.val().get_bits::<8>(0);
        }
    }
}
