//! gpusched RTL: one rust-hdl `LogicBlock` per hardware block, with const-generic sizes.
//!
//! Every block has a `clock`, a synchronous active-high `reset` (one cycle of `reset` puts
//! the block in its reset state at the next rising edge) and exactly the ports of its golden
//! model in `gpusim::blocks` (same names, same widths). Outputs are combinational functions of
//! the registered state and the current inputs (Mealy), as the block contract requires.
//!
//! rust-hdl's `#[hdl_gen]` subset is small (DESIGN.md §7): no `let`, no helper calls, arrays
//! indexed only by loop variables, literals as sized `Constant`s. The blocks are written in that
//! style on purpose; [`consts`] builds the sized constant tables they compare against.

pub mod consts;
pub mod elf;
pub mod newcar;
pub mod sim;
pub mod warp_arbiter;

pub use rust_hdl;
