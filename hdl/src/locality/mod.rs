//! Units of the locality-aware blocks' RTL (seed 000; golden models in
//! `gpusim::blocks::locality_degree` and `gpusim::blocks::la_tb_dispatch`), each a
//! combinational `LogicBlock` checked against the golden function it implements. The blocks
//! themselves come next (issue 19).
//!
//! * [`WarpLocality`]: the locality degree of two warps' access-range vectors
//!   (`gpusim::analysis::locality::warp_locality`): per array, the subregions both touch when
//!   both are valid in the same region, summed over the five arrays. Depth: a 10-bit equality
//!   and a 16-bit population count side by side, then a three-level adder tree (Yosys
//!   `synth_xilinx`: 324 LUTs, 12 CARRY4, 7-series depth 15, LUT6 depth 9; the lint gate
//!   checks the bound of 30).

#[cfg(test)]
mod tests;

/// The Verilog of every unit (module name, Verilog), for the lint and synthesis gates.
pub fn samples() -> Vec<(String, Result<String, String>)> {
    vec![(
        "la_warp_locality".to_string(),
        crate::verilog_of::<WarpLocality>("la_warp_locality"),
    )]
}

use crate::consts::constant;
use crate::prim::PopCount;
use rust_hdl::prelude::*;

/// Arrays per vector (the thesis's budget, `gpusim::analysis::locality::MAX_ARRAYS`).
pub const ARRAYS: usize = 5;

/// The locality degree of warps `a` and `b` (0..=80), from their packed vectors (the
/// `locality_degree` block's `region`/`sub` ports: array `k`'s valid bit at `11k + 10` and
/// region index at `11k..11k+10`; its subregion mask at `16k..16k+16`).
#[derive(LogicBlock)]
pub struct WarpLocality {
    /// Warp `a`'s region indices and valid bits.
    pub region_a: Signal<In, Bits<55>>,
    /// Warp `b`'s.
    pub region_b: Signal<In, Bits<55>>,
    /// Warp `a`'s subregion masks.
    pub sub_a: Signal<In, Bits<80>>,
    /// Warp `b`'s.
    pub sub_b: Signal<In, Bits<80>>,
    /// The degree.
    pub degree: Signal<Out, Bits<7>>,
    /// Per array: the subregions both touch, and their count.
    pop: [PopCount<16, 5>; ARRAYS],
    /// Per array: both valid in the same region.
    same: [Signal<Local, Bit>; ARRAYS],
    /// Per array: its count (0 unless `same`), widened to 7 bits.
    part: [Signal<Local, Bits<7>>; ARRAYS],
    sum01: Signal<Local, Bits<7>>,
    sum23: Signal<Local, Bits<7>>,
    zero7: Constant<Bits<7>>,
}

impl Default for WarpLocality {
    fn default() -> Self {
        Self {
            region_a: Default::default(),
            region_b: Default::default(),
            sub_a: Default::default(),
            sub_b: Default::default(),
            degree: Default::default(),
            pop: array_init::array_init(|_| Default::default()),
            same: array_init::array_init(|_| Default::default()),
            part: array_init::array_init(|_| Default::default()),
            sum01: Default::default(),
            sum23: Default::default(),
            zero7: constant(0),
        }
    }
}

impl Logic for WarpLocality {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..ARRAYS {
            self.pop[k].bits.next =
                self.sub_a.val().get_bits::<16>(16 * k) & self.sub_b.val().get_bits::<16>(16 * k);
            self.same[k].next = self.region_a.val().get_bit(11 * k + 10)
                & self.region_b.val().get_bit(11 * k + 10)
                & (self.region_a.val().get_bits::<10>(11 * k)
                    == self.region_b.val().get_bits::<10>(11 * k));
            self.part[k].next = self.zero7.val();
            if self.same[k].val() {
                for b in 0..5 {
                    self.part[k].next = self.part[k]
                        .val()
                        .replace_bit(b, self.pop[k].count.val().get_bit(b));
                }
            }
        }
        self.sum01.next = self.part[0].val() + self.part[1].val();
        self.sum23.next = self.part[2].val() + self.part[3].val();
        self.degree.next = self.sum01.val() + self.sum23.val() + self.part[4].val();
    }
}
