//! PAVER's software half (seed 004 §3-§4; spec `paver.md` §1.1-§1.8, §6): what its JIT pass
//! computes before a kernel launches, from the addresses the kernel's thread blocks load.
//!
//! * [`graph`]: the locality graph, thread blocks joined by the global elements they both read,
//!   built by streaming the kernel's loads (a synthetic kernel's address expressions, or every
//!   load address of an Accel-Sim trace, data-dependent ones included: V-R4).
//! * [`partition`]: MST-TS, kway-TS (METIS k-way) and RB-TS (METIS recursive bisection), each
//!   giving the flat `order[]` + `gstart[]` group tables of §1.8 that the `paver_tb` dispatcher
//!   reads.
//! * [`format`]: the graph as Graphviz, METIS or JSON text.
//! * [`paper`]: Table 2's graph statistics, for comparison with the suite kernels that mirror
//!   the paper's benchmarks.

pub mod format;
pub mod graph;
mod index;
pub mod paper;
pub mod partition;
#[cfg(test)]
mod tests;

pub use graph::{build, BuildSummary, Granularity, GraphError, GraphStats, LocalityGraph, MAX_TBS};
pub use partition::{partition, prim_order, Groups, LeafRule, PartitionParams, Scheme};

use crate::config::GpuConfig;
use crate::core::occupancy::{occupancy, DoesNotFit, Footprint};
use crate::workload::kernel::{KernelInfo, KernelSource};
use serde::Serialize;

/// METIS's seed in every run (spec A12: reproducible partitions).
pub const METIS_SEED: i32 = 1;

/// The partitioners' parameters for `info` on `cfg`: N = the SMs, x = the blocks of this
/// kernel an SM holds at once (its occupancy, spec A11).
pub fn params_for(
    cfg: &GpuConfig,
    info: &KernelInfo,
    leaf: LeafRule,
) -> Result<PartitionParams, DoesNotFit> {
    Ok(PartitionParams {
        sms: cfg.sm.count,
        per_sm: occupancy(&cfg.sm, &Footprint::of_kernel(info))?.blocks,
        leaf,
        seed: METIS_SEED,
    })
}

/// A kernel's PAVER schedule: its groups and what the JIT pass found on the way.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Schedule {
    /// The groups in dispatch order.
    pub groups: Groups,
    /// The graph's statistics (`None`: no graph, the kernel could not be visited).
    pub stats: Option<GraphStats>,
    /// Sum of the edge weights kept inside groups (L355).
    pub intra_weight: u64,
    /// Host wall time of graph building and partitioning, seconds (V-R3's T_JIT).
    pub jit_seconds: f64,
    /// What a reader of the run should know (fallbacks, scaled weights).
    pub notes: Vec<String>,
}

/// `scheme`'s schedule of `kernel` with `params`: the graph at `granularity`, then the
/// groups. A kernel that cannot be visited for its addresses gets one block a group in id order
/// (the LRR order), and a kernel without shared data gets the schemes' id-order splits; the
/// notes say so.
pub fn schedule(
    kernel: &dyn KernelSource,
    scheme: Scheme,
    granularity: Granularity,
    params: &PartitionParams,
) -> Result<Schedule, GraphError> {
    let start = std::time::Instant::now();
    let name = &kernel.info().name;
    if kernel.info().blocks() > MAX_TBS {
        return Err(GraphError::TooManyBlocks {
            kernel: name.clone(),
            blocks: kernel.info().blocks(),
            most: MAX_TBS,
            why: "PAVER's group tables and nextTB register (16-bit block ids, paper L251)",
        });
    }
    let mut s = Schedule::default();
    match build(kernel, granularity)? {
        None => {
            let n = kernel.info().blocks() as u32;
            s.groups = partition(
                &LocalityGraph::edgeless(n),
                Scheme::Mst,
                &PartitionParams {
                    per_sm: 1,
                    ..*params
                },
            );
            s.notes.push(format!(
                "kernel `{name}` cannot be visited for its load addresses: no locality graph, \
                 blocks go out one a group in id order (LRR order)"
            ));
        }
        Some((g, _)) => {
            s.groups = partition(&g, scheme, params);
            let stats = g.stats();
            if stats.edges == 0 && stats.vertices > 1 {
                s.notes.push(format!(
                    "kernel `{name}`: no two blocks load the same data (SpScore 1): groups in \
                     block-id order"
                ));
            }
            s.intra_weight = s.groups.intra_weight(&g);
            s.stats = Some(stats);
        }
    }
    s.notes.extend(s.groups.notes.iter().cloned());
    s.jit_seconds = start.elapsed().as_secs_f64();
    Ok(s)
}
