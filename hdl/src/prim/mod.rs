//! Log-depth RTL primitives the blocks are composed of (DESIGN.md §5.1), in the style of
//! Vortex's `VX_find_first` / `VX_lzc` / `VX_rr_arbiter`: binary trees and parallel prefixes,
//! never a chain that walks the N inputs one after another.
//!
//! Each primitive is a rust-hdl `LogicBlock` with const-generic sizes and a golden function
//! (plain Rust on `u64` words) in its own file; `tests.rs` checks the rust-hdl simulation
//! against the golden function on random inputs (proptest) for several sizes, and gen's lint
//! test runs Verilator `-Wall` and Yosys on the Verilog of every instance of [`samples`].
//!
//! | primitive | does | depth (levels of logic) |
//! |---|---|---|
//! | [`FindFirst`] | lowest set bit: valid, one-hot, index | prefix OR, log2 N; OR tree per index bit |
//! | [`OneHotIndex`] | one-hot to index | OR tree per index bit |
//! | [`OneHotMux`] | AND-OR mux of N words by a one-hot select | AND, then OR tree per bit |
//! | [`OneHotMuxTree`] | the same a word at a time (for Verilator and wide words) | AND, then OR tree of words |
//! | [`PopCount`] | number of set bits | adder tree, log2 N adders |
//! | [`PrefixCount`] | per position, set bits below it | Kogge-Stone, log2 N adders |
//! | [`ArgMin`] | smallest key among valid inputs, lowest index on ties | comparison tree, log2 N |
//! | [`RrArbiter`] | round robin: first request after the last grant | two [`FindFirst`]s and a mux |
//! | [`AgeMatrix`] | oldest requesting entry | N x N matrix, AND-OR per row |
//! | [`AgeRows`] | the same matrix, every row out (pairwise ages for a sort) | none: flip-flops |
//! | [`Fifo`] | first in, first out, `D` entries | one-hot pointers, [`OneHotMux`] read |
//! | [`Ram`] | a table in block RAM: one read port (one cycle of latency), one write port | none: the RAM's own |
//! | [`SerialDivider`] | its register divided in place, a quotient bit a cycle (restoring) | one `R`-bit subtract and compare |
//! | [`Deal`] / [`Gather`] | a word as interleaved lanes (per-warp bits by scheduler) and back | wiring |
//! | [`Decode2`] | 2-bit codes to one mask per value | one gate |

mod age_matrix;
mod age_rows;
mod arg_min;
mod fifo;
mod find_first;
mod onehot;
mod popcount;
mod prefix_count;
mod ram;
mod rr_arbiter;
mod serial_div;
mod stride;

pub use age_matrix::{age_matrix_golden, AgeMatrix, AgeMatrixGolden};
pub use age_rows::AgeRows;
pub use arg_min::{arg_min_golden, ArgMin};
pub use fifo::{Fifo, FifoGolden};
pub use find_first::{find_first_golden, FindFirst};
pub use onehot::{onehot_index_golden, onehot_mux_golden, OneHotIndex, OneHotMux, OneHotMuxTree};
pub use popcount::{popcount_golden, PopCount};
pub use prefix_count::{prefix_count_golden, PrefixCount};
pub use ram::{Ram, RamGolden};
pub use rr_arbiter::{RrArbiter, RrArbiterGolden};
pub use serial_div::{serial_div_golden, SerialDivider};
pub use stride::{deal_golden, decode2_golden, gather_golden, Deal, Decode2, Gather};

/// The Verilog of one instance of every primitive at a few sizes: (module name, Verilog).
pub fn samples() -> Vec<(String, Result<String, String>)> {
    use crate::verilog_of;
    let v = |name: &str, r| (name.to_string(), r);
    vec![
        v(
            "prim_find_first_24",
            verilog_of::<FindFirst<24, 5>>("prim_find_first_24"),
        ),
        v(
            "prim_find_first_64",
            verilog_of::<FindFirst<64, 6>>("prim_find_first_64"),
        ),
        v(
            "prim_onehot_index_48",
            verilog_of::<OneHotIndex<48, 6>>("prim_onehot_index_48"),
        ),
        v(
            "prim_onehot_mux_12x9",
            verilog_of::<OneHotMux<12, 9>>("prim_onehot_mux_12x9"),
        ),
        v(
            "prim_onehot_mux_tree_24x55",
            verilog_of::<OneHotMuxTree<24, 55, 32>>("prim_onehot_mux_tree_24x55"),
        ),
        v(
            "prim_popcount_32",
            verilog_of::<PopCount<32, 6>>("prim_popcount_32"),
        ),
        v(
            "prim_prefix_count_30",
            verilog_of::<PrefixCount<30, 6>>("prim_prefix_count_30"),
        ),
        v(
            "prim_arg_min_32x8",
            verilog_of::<ArgMin<32, 5, 8>>("prim_arg_min_32x8"),
        ),
        v(
            "prim_rr_arbiter_24",
            verilog_of::<RrArbiter<24, 5>>("prim_rr_arbiter_24"),
        ),
        v(
            "prim_age_matrix_16",
            verilog_of::<AgeMatrix<16>>("prim_age_matrix_16"),
        ),
        v(
            "prim_age_rows_8",
            verilog_of::<AgeRows<8>>("prim_age_rows_8"),
        ),
        v(
            "prim_fifo_8x12",
            verilog_of::<Fifo<12, 8, 4>>("prim_fifo_8x12"),
        ),
        v(
            "prim_deal_48x2",
            verilog_of::<Deal<48, 24, 2>>("prim_deal_48x2"),
        ),
        v(
            "prim_gather_48x2",
            verilog_of::<Gather<48, 24, 2>>("prim_gather_48x2"),
        ),
        v(
            "prim_decode2_24",
            verilog_of::<Decode2<48, 24>>("prim_decode2_24"),
        ),
        v(
            "prim_deal_12x4",
            verilog_of::<Deal<12, 3, 4>>("prim_deal_12x4"),
        ),
        // PAVER's stealer: a 16-bit sum over 80 SMs.
        v(
            "prim_serial_div_16x8",
            verilog_of::<SerialDivider<16, 8>>("prim_serial_div_16x8"),
        ),
        // The locality dispatcher's rectangle table: 152 entries of 5 x 57 bits.
        v(
            "prim_ram_256x285",
            verilog_of::<Ram<285, 8>>("prim_ram_256x285"),
        ),
    ]
}

#[cfg(test)]
mod tests;
