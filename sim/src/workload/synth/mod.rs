//! Synthetic kernels: a small static program per kernel, interpreted per warp into the same
//! instruction streams a trace gives (PC, active mask, registers, per-lane addresses).
//!
//! * [`ir`]: the program: instructions with PCs in 8-byte steps, opcode classes, registers,
//!   loads and stores whose per-thread addresses are expressions of `blockIdx`, `threadIdx`,
//!   loop counters and array bases/pitches, loops with per-thread trip counts, `if` regions,
//!   barriers and exit.
//! * [`interp`]: the interpreter (a SIMT reconvergence stack per warp), deterministic.
//! * [`suite`]: the kernels that mirror the papers' benchmarks, in three sizes.
//! * [`paper`]: the papers' benchmarks at their inputs (sizes `paper`, seed 000's, and `elf`,
//!   seed 003 ch. III's): every launch of the benchmark's host code.

pub mod interp;
pub mod ir;
pub mod paper;
pub mod suite;

pub use interp::SynthKernel;
pub use ir::{Addr, CmpOp, Cond, Expr, Inst, Op, Program, Space, SynthDef, Var};

use crate::workload::kernel::{KernelSource, SingleKernel, WorkloadError, WorkloadSource};
use serde::Serialize;

/// Suite workload `name` at size `size` (`small`, `medium`, `large`).
pub fn build(name: &str, size: &str) -> Result<SynthDef, WorkloadError> {
    Ok((entry(name)?.build)(size_index(size)?))
}

fn entry(name: &str) -> Result<&'static suite::Entry, WorkloadError> {
    suite::find(name).ok_or_else(|| {
        WorkloadError::Invalid(format!(
            "unknown workload `{name}`; workloads: {}",
            crate::workload::names().join(", ")
        ))
    })
}

/// The launches of suite workload `name` at `size`: one kernel at `small`, `medium` and
/// `large`; the benchmark's whole launch sequence at a paper's inputs (`paper`, `elf`, `paver`:
/// [`paper::SIZES`]).
pub fn kernels(name: &str, size: &str) -> Result<Vec<SynthDef>, WorkloadError> {
    let Some(table) = paper::size(size) else {
        return Ok(vec![build(name, size)?]);
    };
    entry(name)?;
    let e = table.find(name).ok_or_else(|| {
        WorkloadError::Invalid(format!(
            "workload `{name}` has no `{size}` size; the workloads with one: {}",
            table.names().join(", ")
        ))
    })?;
    Ok((e.build)())
}

/// Every size a suite workload may have (the papers' sizes only for their benchmarks).
pub fn sizes() -> Vec<&'static str> {
    let papers = paper::SIZES.iter().map(|s| s.name);
    suite::SIZES.iter().copied().chain(papers).collect()
}

/// The index of `size` in [`suite::SIZES`].
pub fn size_index(size: &str) -> Result<usize, WorkloadError> {
    suite::SIZES.iter().position(|x| *x == size).ok_or_else(|| {
        WorkloadError::Invalid(match paper::size(size) {
            Some(_) => format!(
                "size `{size}` is a sequence of launches; here one kernel is needed: {}",
                suite::SIZES.join(", ")
            ),
            None => format!("unknown size `{size}`; sizes: {}", sizes().join(", ")),
        })
    })
}

/// One synthetic kernel as a workload.
pub fn workload(def: SynthDef) -> SingleKernel {
    SingleKernel::new(Box::new(SynthKernel::new(def)))
}

/// Synthetic kernels launched one after the other on one stream (a benchmark's host loop).
pub struct Sequence {
    name: String,
    defs: std::vec::IntoIter<SynthDef>,
}

impl Sequence {
    /// The workload `name` running `defs` in order.
    pub fn new(name: String, defs: Vec<SynthDef>) -> Self {
        Self {
            name,
            defs: defs.into_iter(),
        }
    }
}

impl WorkloadSource for Sequence {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        Ok(self
            .defs
            .next()
            .map(|d| Box::new(SynthKernel::new(d)) as Box<dyn KernelSource>))
    }
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
