//! Golden models of the hardware blocks, one module per block, and the catalog of block,
//! policy and preset names shared by the CLI, the Verilog generator and the testbench.

pub mod elf;
pub mod newcar;
pub mod tb_dispatch;
pub mod warp_arbiter;

use thiserror::Error;

/// One hardware block as the tools know it: its name, its policies and its parameter presets.
#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    /// Block name (`warp_arbiter`), the prefix of every module emitted for it.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Policies (one Verilog module each); a block with a single behaviour lists `["base"]`.
    pub policies: &'static [&'static str],
    /// Parameter presets (one Verilog module each per policy).
    pub presets: &'static [&'static str],
}

impl BlockInfo {
    /// Verilog module name of one policy x preset: `<block>_<policy>_<preset>`.
    pub fn module_name(&self, policy: &str, preset: &str) -> String {
        format!("{}_{}_{}", self.name, policy, preset)
    }
}

/// Every block gpusched emits, in generation order.
pub const CATALOG: &[BlockInfo] = &[
    BlockInfo {
        name: "warp_arbiter",
        summary: "warp-issue arbiter of one warp scheduler (GPGPU-Sim LRR, GTO, two-level active)",
        policies: warp_arbiter::Policy::NAMES,
        presets: warp_arbiter::Preset::NAMES,
    },
    BlockInfo {
        name: "elf",
        summary: "ELF program-point table, priority calculators, warp priority table and issue select (seed 003 ch. III)",
        policies: &["base"],
        presets: &["fermi", "proto"],
    },
    BlockInfo {
        name: "newcar",
        summary: "NewCAR re-execution queue of the load/store unit (ELF, seed 003 ch. III)",
        policies: &["base"],
        presets: &["fermi", "proto"],
    },
];

/// A name given on the command line or in a config that is not in the catalog.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum CatalogError {
    /// Unknown block name.
    #[error("unknown block `{got}`; valid blocks: {}", .valid.join(", "))]
    UnknownBlock { got: String, valid: Vec<String> },
    /// Unknown policy for a block.
    #[error("unknown policy `{got}` for block `{block}`; valid policies: {}", .valid.join(", "))]
    UnknownPolicy {
        block: String,
        got: String,
        valid: Vec<String>,
    },
    /// Unknown preset for a block.
    #[error("unknown preset `{got}` for block `{block}`; valid presets: {}", .valid.join(", "))]
    UnknownPreset {
        block: String,
        got: String,
        valid: Vec<String>,
    },
}

/// Looks a block up by name.
pub fn find_block(name: &str) -> Result<&'static BlockInfo, CatalogError> {
    CATALOG
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| CatalogError::UnknownBlock {
            got: name.to_string(),
            valid: CATALOG.iter().map(|b| b.name.to_string()).collect(),
        })
}

/// Checks that `policy` and `preset` exist for `block`.
pub fn check_variant(block: &BlockInfo, policy: &str, preset: &str) -> Result<(), CatalogError> {
    if !block.policies.contains(&policy) {
        return Err(CatalogError::UnknownPolicy {
            block: block.name.into(),
            got: policy.into(),
            valid: block.policies.iter().map(|s| s.to_string()).collect(),
        });
    }
    if !block.presets.contains(&preset) {
        return Err(CatalogError::UnknownPreset {
            block: block.name.into(),
            got: preset.into(),
            valid: block.presets.iter().map(|s| s.to_string()).collect(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = find_block("elfo").unwrap_err().to_string();
        assert!(e.contains("warp_arbiter"), "{e}");
        let b = find_block("warp_arbiter").unwrap();
        let e = check_variant(b, "fifo", "fermi").unwrap_err().to_string();
        assert!(e.contains("lrr, gto, two_level"), "{e}");
        let e = check_variant(b, "gto", "kepler").unwrap_err().to_string();
        assert!(e.contains("fermi, proto"), "{e}");
        assert!(check_variant(b, "gto", "proto").is_ok());
        assert_eq!(b.module_name("gto", "fermi"), "warp_arbiter_gto_fermi");
    }
}
