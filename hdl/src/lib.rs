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
pub mod locality;
pub mod prim;
pub mod sim;

macro_rules! declare_blocks {
    ($($b:ident)*) => { $(pub mod $b;)* };
}
gpusched_registry::blocks!(declare_blocks);

pub use rust_hdl;
use rust_hdl::prelude::{Block, ModuleDefines};

/// The RTL of one block (`gpusched_hdl::<name>::Rtl`): its rust-hdl module for each policy x
/// preset of the golden model's kind. The preset -> const-generic mapping is written here
/// once, as type aliases in the block's module.
pub trait RtlKind {
    /// Block name (as the golden model's kind).
    const NAME: &'static str;
    /// The Verilog of `policy` x `preset` with top module `module`, or why not.
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String>;
}

/// Stack of the thread [`verilog_of`] builds a circuit on: rust-hdl circuits are plain structs,
/// and the largest (`la_tb_dispatch` at `fermi`, about 1 MB) overflow a test thread's 2 MB.
pub const CIRCUIT_STACK: usize = 64 << 20;

/// The Verilog of rust-hdl circuit `U` with top module `name` (and its submodules), after
/// rust-hdl's own checks. Built on a thread of its own with a [`CIRCUIT_STACK`] stack.
pub fn verilog_of<U: Block + Default + 'static>(name: &str) -> Result<String, String> {
    let name = name.to_string();
    let build = move || {
        let mut uut = U::default();
        uut.connect_all();
        rust_hdl::core::check_error::check_all(&uut).map_err(|e| format!("{e:?}"))?;
        let mut defines = ModuleDefines::default();
        uut.accept(&name, &mut defines);
        Ok(defines.defines())
    };
    match std::thread::Builder::new()
        .stack_size(CIRCUIT_STACK)
        .spawn(build)
        .map_err(|e| format!("cannot start a thread to build the circuit: {e}"))?
        .join()
    {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// The error for a policy x preset a block has no RTL for.
pub fn no_variant(block: &str, policy: &str, preset: &str) -> String {
    format!("no RTL for {block} policy `{policy}` preset `{preset}`")
}
