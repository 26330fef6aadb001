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
//! * [`RectOverlap`]: the lines two rectangles of one array share
//!   (`gpusim::analysis::locality::overlap`), from the packed form the `la_tb_dispatch` block's
//!   `fill_rect` port carries (0 when either is invalid). Per axis the later start's distance
//!   from the earlier one is computed both ways at once (two subtractions beside the compare
//!   that picks one); a distance of 256 or more shares nothing (widths are at most 255), so
//!   only 8-bit arithmetic follows; the two extents meet in a 16 x 16 multiplier (a DSP48 on
//!   7-series: 214 LUTs, 32 CARRY4, 7-series depth 16, LUT6 depth 15).

#[cfg(test)]
mod tests;

/// The Verilog of every unit (module name, Verilog), for the lint and synthesis gates.
pub fn samples() -> Vec<(String, Result<String, String>)> {
    vec![
        (
            "la_warp_locality".to_string(),
            crate::verilog_of::<WarpLocality>("la_warp_locality"),
        ),
        (
            "la_rect_overlap".to_string(),
            crate::verilog_of::<RectOverlap>("la_rect_overlap"),
        ),
    ]
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

/// One axis of [`RectOverlap`]: the overlap of `[s0, s0 + n0)` and `[s1, s1 + n1)` (`S`-bit
/// starts, 8-bit counts), at most 255.
#[derive(LogicBlock)]
pub struct AxisOverlap<const S: usize> {
    /// First range's start.
    pub s0: Signal<In, Bits<S>>,
    /// Its length.
    pub n0: Signal<In, Bits<8>>,
    /// Second range's start.
    pub s1: Signal<In, Bits<S>>,
    /// Its length.
    pub n1: Signal<In, Bits<8>>,
    /// The overlap.
    pub out: Signal<Out, Bits<8>>,
    /// The first range starts at or before the second.
    first: Signal<Local, Bit>,
    /// `s1 - s0` and `s0 - s1` (modulo 2^S; the right one is the distance).
    d01: Signal<Local, Bits<S>>,
    d10: Signal<Local, Bits<S>>,
    /// The distance (`gap`), the earlier range's length, the later one's (8 bits each).
    gap: Signal<Local, Bits<8>>,
    early: Signal<Local, Bits<8>>,
    late: Signal<Local, Bits<8>>,
    /// The distance is below 256 and below the earlier range's length.
    near: Signal<Local, Bit>,
    /// What is left of the earlier range after the distance.
    rest: Signal<Local, Bits<8>>,
    byte_max: Constant<Bits<S>>,
    zero8: Constant<Bits<8>>,
}

impl<const S: usize> Default for AxisOverlap<S> {
    fn default() -> Self {
        assert!(S > 8, "starts wider than the counts");
        Self {
            s0: Default::default(),
            n0: Default::default(),
            s1: Default::default(),
            n1: Default::default(),
            out: Default::default(),
            first: Default::default(),
            d01: Default::default(),
            d10: Default::default(),
            gap: Default::default(),
            early: Default::default(),
            late: Default::default(),
            near: Default::default(),
            rest: Default::default(),
            byte_max: constant(255),
            zero8: constant(0),
        }
    }
}

impl<const S: usize> Logic for AxisOverlap<S> {
    #[hdl_gen]
    fn update(&mut self) {
        self.first.next = self.s0.val() <= self.s1.val();
        self.d01.next = self.s1.val() - self.s0.val();
        self.d10.next = self.s0.val() - self.s1.val();
        self.gap.next = self.d10.val().get_bits::<8>(0);
        self.early.next = self.n1.val();
        self.late.next = self.n0.val();
        self.near.next = !(self.d10.val() & !self.byte_max.val()).any();
        if self.first.val() {
            self.gap.next = self.d01.val().get_bits::<8>(0);
            self.early.next = self.n0.val();
            self.late.next = self.n1.val();
            self.near.next = !(self.d01.val() & !self.byte_max.val()).any();
        }
        self.near.next = self.near.val() & (self.gap.val() < self.early.val());
        self.rest.next = self.early.val() - self.gap.val();
        self.out.next = self.zero8.val();
        if self.near.val() {
            self.out.next = self.rest.val();
            if self.late.val() < self.rest.val() {
                self.out.next = self.late.val();
            }
        }
    }
}

/// The lines two packed rectangles share (`la_tb_dispatch`'s 57-bit form: valid at bit 56,
/// `sx` 24 bits from 32, `sy` 16 from 16, `w` 8 from 8, `h` 8 from 0); 0 unless both valid.
#[derive(LogicBlock)]
pub struct RectOverlap {
    /// First rectangle.
    pub a: Signal<In, Bits<57>>,
    /// Second rectangle.
    pub b: Signal<In, Bits<57>>,
    /// Shared lines, at most 255 x 255.
    pub lines: Signal<Out, Bits<16>>,
    x: AxisOverlap<24>,
    y: AxisOverlap<16>,
    /// The axes' overlaps widened for the multiplier.
    wx: Signal<Local, Bits<16>>,
    wy: Signal<Local, Bits<16>>,
    product: Signal<Local, Bits<32>>,
    zero16: Constant<Bits<16>>,
}

impl Default for RectOverlap {
    fn default() -> Self {
        Self {
            a: Default::default(),
            b: Default::default(),
            lines: Default::default(),
            x: Default::default(),
            y: Default::default(),
            wx: Default::default(),
            wy: Default::default(),
            product: Default::default(),
            zero16: constant(0),
        }
    }
}

impl Logic for RectOverlap {
    #[hdl_gen]
    fn update(&mut self) {
        self.x.s0.next = self.a.val().get_bits::<24>(32);
        self.x.n0.next = self.a.val().get_bits::<8>(8);
        self.x.s1.next = self.b.val().get_bits::<24>(32);
        self.x.n1.next = self.b.val().get_bits::<8>(8);
        self.y.s0.next = self.a.val().get_bits::<16>(16);
        self.y.n0.next = self.a.val().get_bits::<8>(0);
        self.y.s1.next = self.b.val().get_bits::<16>(16);
        self.y.n1.next = self.b.val().get_bits::<8>(0);
        self.wx.next = self.zero16.val();
        self.wy.next = self.zero16.val();
        for i in 0..8 {
            self.wx.next = self.wx.val().replace_bit(i, self.x.out.val().get_bit(i));
            self.wy.next = self.wy.val().replace_bit(i, self.y.out.val().get_bit(i));
        }
        self.product.next = self.wx.val() * self.wy.val();
        self.lines.next = self.zero16.val();
        if self.a.val().get_bit(56) & self.b.val().get_bit(56) {
            self.lines.next = self.product.val().get_bits::<16>(0);
            // Two 8-bit factors fit 16 bits; the upper half saturates rather than wraps if
            // they ever did not (Yosys removes it: the factors' upper bytes are constant 0).
            if self.product.val().get_bits::<16>(16).any() {
                self.lines.next = !self.zero16.val();
            }
        }
    }
}
