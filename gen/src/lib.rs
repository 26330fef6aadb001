//! gpusched-gen: emits the Verilog of every block x policy x preset into `rtl-out/`, writes
//! `rtl-out/manifest.json`, checks that `rtl-out/` is up to date, and runs the Verilog gates
//! (Verilator lint, Yosys synthesis).
//!
//! Each emitted file `rtl-out/<block>_<policy>_<preset>.v` holds one top module of the same
//! name plus one module per distinct sub-block (`<top>__<field>`, see [`readable`]). Before anything is written, the port
//! declarations of the emitted top module are parsed back and compared with the golden model's
//! port bundles: the RTL and the golden model cannot drift apart silently.

pub mod emit;
pub mod fpga;
pub mod lint;
pub mod manifest;
mod modules;
pub mod parallel;
pub mod readable;
pub mod report;
pub mod tables;
#[cfg(test)]
mod testing;

pub use emit::{check, generate_all, write_all, CheckReport, GenError, Generated};
pub use manifest::{Manifest, ModuleEntry, PortDecl, PortDir};
