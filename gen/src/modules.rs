//! The table from (block, policy, preset) to a concrete rust-hdl type, and the parameters
//! recorded for it. This is the only place that knows which const generics a preset means.

use gpusched_hdl::elf::Elf;
use gpusched_hdl::newcar::NewCar;
use gpusched_hdl::warp_arbiter::{ArbiterGto, ArbiterLrr, ArbiterTwoLevel};
use gpusim::block::PortBundle;
use gpusim::blocks::elf;
use gpusim::blocks::newcar as nc;
use gpusim::blocks::warp_arbiter::{self as wa, Params, Policy, Preset};
use rust_hdl::prelude::{Block, ModuleDefines};
use std::collections::BTreeMap;

/// What the generator needs of one module variant.
pub(crate) struct Variant {
    /// Verilog text of the top module (named `name`) and its submodules.
    pub verilog: String,
    /// Parameters to record in the manifest.
    pub params: BTreeMap<String, u64>,
    /// Ports the golden model declares: inputs then outputs (without clock and reset).
    pub golden_inputs: Vec<gpusim::block::PortSpec>,
    pub golden_outputs: Vec<gpusim::block::PortSpec>,
}

fn verilog_of<U: Block + Default>(name: &str) -> Result<String, String> {
    let mut uut = U::default();
    uut.connect_all();
    rust_hdl::core::check_error::check_all(&uut).map_err(|e| format!("{e:?}"))?;
    let mut defines = ModuleDefines::default();
    uut.accept(name, &mut defines);
    Ok(defines.defines())
}

/// Builds the variant, or an error message (unknown combination, rust-hdl check failure).
pub(crate) fn variant(
    block: &str,
    policy: &str,
    preset: &str,
    name: &str,
) -> Result<Variant, String> {
    match block {
        "warp_arbiter" => {
            let pol = Policy::from_name(policy).ok_or("unknown policy")?;
            let pre = Preset::from_name(preset).ok_or("unknown preset")?;
            let p = Params::preset(pol, pre);
            let verilog = match (pol, pre) {
                (Policy::Lrr, Preset::Fermi) => verilog_of::<ArbiterLrr<24, 5>>(name),
                (Policy::Gto, Preset::Fermi) => verilog_of::<ArbiterGto<24, 5>>(name),
                (Policy::TwoLevel, Preset::Fermi) => {
                    verilog_of::<ArbiterTwoLevel<24, 5, 6, 18>>(name)
                }
                (Policy::Lrr, Preset::Proto) => verilog_of::<ArbiterLrr<8, 3>>(name),
                (Policy::Gto, Preset::Proto) => verilog_of::<ArbiterGto<8, 3>>(name),
                (Policy::TwoLevel, Preset::Proto) => {
                    verilog_of::<ArbiterTwoLevel<8, 3, 4, 4>>(name)
                }
            }?;
            let mut params = BTreeMap::from([
                ("warps".to_string(), p.warps as u64),
                ("id_bits".to_string(), p.id_bits() as u64),
            ]);
            if pol == Policy::TwoLevel {
                params.insert("max_active".into(), p.max_active as u64);
            }
            Ok(Variant {
                verilog,
                params,
                golden_inputs: wa::ArbiterIn::specs(&p),
                golden_outputs: wa::ArbiterOut::specs(&p),
            })
        }
        "elf" => {
            let pre = match preset {
                "fermi" => elf::Preset::Fermi,
                "proto" => elf::Preset::Proto,
                _ => return Err("unknown preset".into()),
            };
            if policy != "base" {
                return Err("unknown policy".into());
            }
            let p = elf::Params::preset(pre);
            let verilog = match pre {
                elf::Preset::Fermi => verilog_of::<Elf<48, 24, 5, 32, 5, 6>>(name),
                elf::Preset::Proto => verilog_of::<Elf<8, 4, 2, 8, 3, 3>>(name),
            }?;
            Ok(Variant {
                verilog,
                params: BTreeMap::from([
                    ("warps".to_string(), p.warps as u64),
                    ("slots".to_string(), p.slots as u64),
                    ("inst_shift".to_string(), p.inst_shift as u64),
                ]),
                golden_inputs: elf::ElfIn::specs(&p),
                golden_outputs: elf::ElfOut::specs(&p),
            })
        }
        "newcar" => {
            let pre = match preset {
                "fermi" => nc::Preset::Fermi,
                "proto" => nc::Preset::Proto,
                _ => return Err("unknown preset".into()),
            };
            if policy != "base" {
                return Err("unknown policy".into());
            }
            let p = nc::Params::preset(pre);
            let verilog = match pre {
                nc::Preset::Fermi => verilog_of::<NewCar<32, 5, 6, 6>>(name),
                nc::Preset::Proto => verilog_of::<NewCar<8, 3, 4, 3>>(name),
            }?;
            Ok(Variant {
                verilog,
                params: BTreeMap::from([
                    ("entries".to_string(), p.entries as u64),
                    ("warps".to_string(), p.warps as u64),
                ]),
                golden_inputs: nc::NewcarIn::specs(&p),
                golden_outputs: nc::NewcarOut::specs(&p),
            })
        }
        other => Err(format!("no RTL for block `{other}`")),
    }
}
