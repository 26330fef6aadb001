//! Workloads: what the GPU model runs.
//!
//! * [`accelsim`]: the Accel-Sim trace format (`kernelslist.g` + `kernel-N.traceg`, tracer
//!   versions 3 and 4), read as a stream of thread blocks so a multi-gigabyte trace never has
//!   to fit in memory; [`compressed`]: xz traces (`kernel-N.traceg.xz`).
//! * [`kernel`]: the decoded instruction streams the GPU model runs ([`kernel::KernelSource`],
//!   [`kernel::WorkloadSource`]); [`trace_kernel`]: the Accel-Sim adapter, which reads a trace
//!   on a second thread ahead of the simulation.
//! * [`builtin`]: built-in synthetic kernels (memory-bound `stream`, compute-bound `compute`).
//! * [`export`]: any workload written as an Accel-Sim trace directory.
//! * [`mix`]: mix files, kernels launched on streams with arrivals, priorities, periods and
//!   deadlines.
//! * [`synth`]: synthetic kernels (IR, interpreter) and the suite that mirrors the papers'
//!   benchmarks.
//! * [`sass`], [`cache_op`], [`static_code`], [`summary`]: opcode classes, loads' and stores'
//!   L1D cache operators, static code, trace summaries.

pub mod accelsim;
pub mod builtin;
pub mod cache_op;
pub mod compressed;
pub mod export;
pub mod kernel;
pub mod mix;
mod read_ahead;
pub mod sass;
pub mod static_code;
pub mod stream;
pub mod summary;
pub mod synth;
pub mod trace_kernel;

use serde::{Deserialize, Serialize};

/// Every workload name `--workload` accepts: the built-in kernels, then the suite.
pub fn names() -> Vec<&'static str> {
    builtin::NAMES
        .iter()
        .copied()
        .chain(synth::suite::SUITE.iter().map(|e| e.name))
        .collect()
}

/// The workload `name` (built-in or suite) at size `size`.
pub fn open_named(
    name: &str,
    size: &str,
) -> Result<Box<dyn kernel::WorkloadSource>, kernel::WorkloadError> {
    if builtin::NAMES.contains(&name) {
        return Ok(Box::new(builtin::workload(name, size)?));
    }
    let mut defs = synth::kernels(name, size)?;
    if defs.len() == 1 {
        return Ok(Box::new(synth::workload(defs.remove(0))));
    }
    Ok(Box::new(synth::Sequence::new(
        format!("{name}_{size}"),
        defs,
    )))
}

/// Threads per warp.
pub const WARP_SIZE: usize = 32;

/// A CUDA grid or block dimension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dim3 {
    /// x extent (or index).
    pub x: u32,
    /// y extent (or index).
    pub y: u32,
    /// z extent (or index).
    pub z: u32,
}

impl Dim3 {
    /// The linear index of `id` in a grid of these dimensions (x fastest).
    pub fn linear(&self, id: Dim3) -> u64 {
        id.x as u64 + self.x as u64 * (id.y as u64 + self.y as u64 * id.z as u64)
    }

    /// The index whose [`Dim3::linear`] is `n`.
    pub fn unlinear(&self, n: u64) -> Dim3 {
        let (x, y) = (self.x.max(1) as u64, self.y.max(1) as u64);
        Dim3 {
            x: (n % x) as u32,
            y: (n / x % y) as u32,
            z: (n / x / y) as u32,
        }
    }

    /// Number of elements `x * y * z` (extents).
    pub fn volume(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

#[cfg(test)]
pub(crate) use crate::testing::shared_trace;
