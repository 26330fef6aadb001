//! `rtl-out/manifest.json`: what was emitted, with ports and checksums. The testbench's build
//! script generates its C++ shims and FFI tables from this file alone.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Port direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PortDir {
    /// Input port.
    Input,
    /// Output port.
    Output,
}

/// One port of an emitted top module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortDecl {
    /// Port name (Verilog identifier).
    pub name: String,
    /// Direction.
    pub dir: PortDir,
    /// Width in bits.
    pub width: u32,
}

/// One emitted module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleEntry {
    /// Top module name, `<block>_<policy>_<preset>`.
    pub module: String,
    /// File name inside `rtl-out/`.
    pub file: String,
    /// Block name in the catalog.
    pub block: String,
    /// Policy name.
    pub policy: String,
    /// Preset name.
    pub preset: String,
    /// Parameters the module was generated with.
    pub params: BTreeMap<String, u64>,
    /// Ports in declaration order, including `clock` and `reset`.
    pub ports: Vec<PortDecl>,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
}

/// The manifest of `rtl-out/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Tool that wrote it.
    pub generator: String,
    /// Emitted modules in generation order.
    pub modules: Vec<ModuleEntry>,
}

impl Manifest {
    /// Pretty JSON with a trailing newline (the exact bytes written to disk).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("manifest serializes");
        s.push('\n');
        s
    }
}
