//! The one list of gpusched's hardware blocks.
//!
//! Every block `x` is a set of its own files, found by convention:
//! * `sim/src/blocks/x/`: `gpusim::blocks::x::Kind`, the golden model and its ports
//!   (`gpusim::block::BlockKind`);
//! * `hdl/src/x/`: `gpusched_hdl::x::Rtl`, its rust-hdl modules per policy and preset
//!   (`gpusched_hdl::RtlKind`).
//!
//! [`blocks!`] hands the list to a macro of the caller, which declares the modules and walks
//! the kinds (`gpusim::blocks`, `gpusched_hdl`, `gpusched_gen`). Adding a block is adding its
//! name here; everything else (`gpusched blocks`, `gen`, `lint`, `REPORT.md`, `cosim`,
//! `regress`, the Verilator build, `--rtl`/`--lockstep`) follows from the kinds.
#![no_std]

/// Calls `$m! { warp_arbiter elf newcar tb_dispatch sm_alloc locality_degree la_tb_dispatch chimera_tb twoway_alloc kernel_lrr paver_tb paws }`: every block, in generation order.
#[macro_export]
macro_rules! blocks {
    ($m:ident) => {
        $m! { warp_arbiter elf newcar tb_dispatch sm_alloc locality_degree la_tb_dispatch chimera_tb twoway_alloc kernel_lrr paver_tb paws }
    };
}
