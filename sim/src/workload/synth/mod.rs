//! Synthetic kernels: a small static program per kernel, interpreted per warp into the same
//! instruction streams a trace gives (PC, active mask, registers, per-lane addresses).
//!
//! * [`ir`]: the program: instructions with PCs in 8-byte steps, opcode classes, registers,
//!   loads and stores whose per-thread addresses are expressions of `blockIdx`, `threadIdx`,
//!   loop counters and array bases/pitches, loops with per-thread trip counts, `if` regions,
//!   barriers and exit.
//! * [`interp`]: the interpreter (a SIMT reconvergence stack per warp), deterministic.
//! * [`suite`]: the kernels that mirror the papers' benchmarks, in three sizes.

pub mod interp;
pub mod ir;
pub mod suite;

pub use interp::SynthKernel;
pub use ir::{Addr, CmpOp, Cond, Expr, Inst, Op, Program, Space, SynthDef, Var};

use crate::workload::kernel::{SingleKernel, WorkloadError};
use serde::Serialize;

/// Suite workload `name` at size `size` (`small`, `medium`, `large`).
pub fn build(name: &str, size: &str) -> Result<SynthDef, WorkloadError> {
    let e = suite::find(name).ok_or_else(|| {
        WorkloadError::Invalid(format!(
            "unknown workload `{name}`; workloads: {}",
            crate::workload::names().join(", ")
        ))
    })?;
    Ok((e.build)(size_index(size)?))
}

/// The index of `size` in [`suite::SIZES`].
pub fn size_index(size: &str) -> Result<usize, WorkloadError> {
    suite::SIZES.iter().position(|x| *x == size).ok_or_else(|| {
        WorkloadError::Invalid(format!(
            "unknown size `{size}`; sizes: {}",
            suite::SIZES.join(", ")
        ))
    })
}

/// One synthetic kernel as a workload.
pub fn workload(def: SynthDef) -> SingleKernel {
    SingleKernel::new(Box::new(SynthKernel::new(def)))
}

/// Whether a kernel may be re-executed from the start (Chimera's strict idempotence, checked
/// statically): it has no global atomic and no global store into an array it also loads
/// from. Arrays are told apart by their base address.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Idempotence {
    /// Strictly idempotent.
    pub idempotent: bool,
    /// For a non-idempotent kernel, the fraction of warp 0 of block 0's dynamic instructions
    /// that come before its first global overwrite or atomic (Chimera's idempotent region).
    pub region_before_overwrite: Option<f64>,
}

/// The PCs of `def`'s instructions that end a block's idempotence: global atomics, and global
/// stores into an array the kernel also loads from (arrays told apart by their base address).
pub fn overwriting_pcs(def: &SynthDef) -> Vec<u32> {
    let loaded: Vec<u64> = def
        .program
        .insts
        .iter()
        .filter_map(|i| match &i.op {
            Op::Load {
                space: Space::Global,
                addr,
                ..
            } => Some(addr.base),
            _ => None,
        })
        .collect();
    let overwrites = |i: &Inst| match &i.op {
        Op::Atomic {
            space: Space::Global,
            ..
        } => true,
        Op::Store {
            space: Space::Global,
            addr,
        } => loaded.contains(&addr.base),
        _ => false,
    };
    def.program
        .insts
        .iter()
        .enumerate()
        .filter(|(_, i)| overwrites(i))
        .map(|(k, _)| 8 * k as u32)
        .collect()
}

/// The idempotence of `def` (see [`Idempotence`]).
pub fn idempotence(def: &SynthDef) -> Result<Idempotence, WorkloadError> {
    let first = overwriting_pcs(def);
    if first.is_empty() {
        return Ok(Idempotence {
            idempotent: true,
            region_before_overwrite: None,
        });
    }
    let b = interp::run_block(def, 0)?;
    let w = &b.warps[0];
    let at = w
        .iter()
        .position(|i| first.contains(&i.pc))
        .unwrap_or(w.len());
    Ok(Idempotence {
        idempotent: false,
        region_before_overwrite: Some(at as f64 / w.len().max(1) as f64),
    })
}

#[cfg(test)]
mod tests;
