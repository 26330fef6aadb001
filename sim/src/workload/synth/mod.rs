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

use crate::workload::kernel::{KernelSource, WorkloadError, WorkloadSource};

/// Suite workload `name` at size `size` (`small`, `medium`, `large`).
pub fn build(name: &str, size: &str) -> Result<SynthDef, WorkloadError> {
    let e = suite::find(name).ok_or_else(|| {
        WorkloadError::Invalid(format!(
            "unknown workload `{name}`; workloads: {}",
            crate::workload::names().join(", ")
        ))
    })?;
    let s = suite::SIZES
        .iter()
        .position(|x| *x == size)
        .ok_or_else(|| {
            WorkloadError::Invalid(format!(
                "unknown size `{size}`; sizes: {}",
                suite::SIZES.join(", ")
            ))
        })?;
    Ok((e.build)(s))
}

/// One synthetic kernel as a workload.
pub struct SynthWorkload {
    name: String,
    kernel: Option<SynthKernel>,
}

impl SynthWorkload {
    /// The workload of one kernel definition.
    pub fn new(def: SynthDef) -> Self {
        Self {
            name: def.name.clone(),
            kernel: Some(SynthKernel::new(def)),
        }
    }
}

impl WorkloadSource for SynthWorkload {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        Ok(self
            .kernel
            .take()
            .map(|k| Box::new(k) as Box<dyn KernelSource>))
    }
}

#[cfg(test)]
mod tests;
