//! The compiler side of per-load L1 bypassing (seed 001, Liang et al., "An Efficient Compiler
//! Framework for Cache Bypassing on GPUs", TCAD 2015; spec `locality_bypass_paws.md` §2.1.2-
//! §2.1.4, §2.3 P-AL1..P-AL7, §2.4 and the revisions of §2.6, which win where they differ).
//!
//! The framework profiles each global load alone and each pair together, estimates how much
//! L2 traffic caching each load (and each pair) saves, and picks the loads to cache (`ld.ca`);
//! the rest bypass L1 (`ld.cg`). This module is that model in pure software:
//!
//! * [`efficiency`](mod@efficiency): Table II's load efficiencies E_on / E_off and the
//!   recognition of its three access patterns from one warp instruction's lane addresses.
//! * [`graph`]: the traffic reduction graph built from per-load and pairwise profiles.
//! * [`select`](mod@select): Algorithm 1 (the heuristic), the exact optimum of Problem 1 by
//!   exhaustive Gray-code search, and the cache-all / bypass-all baselines. The paper's ILP
//!   (MOSEK) has the same optimum; we search instead of adding an ILP solver crate, which keeps
//!   the dependency tree lean and makes ties deterministic (B-R5).
//!
//! * [`profile`]: the profiling runs on the GPU model (B-R2's access and hit counts, B-R1's
//!   measured efficiencies for loads no pattern fits), and the plan they lead to per kernel.
//! * [`empirical`](mod@empirical): B-R5's `ORACLE_EMPIRICAL`, the fastest combination of each
//!   kernel's most accessed loads found by simulating all of them.

pub mod efficiency;
pub mod empirical;
pub mod graph;
pub mod profile;
pub mod select;
pub mod split;
#[cfg(test)]
mod tests;

pub use efficiency::{
    classify, efficiency, AccessPattern, Efficiency, L1_BLOCK_BYTES, L2_BLOCK_BYTES, WARP_SIZE,
};
pub use graph::{
    edge_weight, gain, node_weight, traffic_off, traffic_on, GraphError, LoadProfile, TrafficGraph,
};
pub use select::{
    exact, heuristic, heuristic_trace, select, tie_tolerance, HeuristicStep, Method, Selection,
    EXACT_MAX_LOADS, TIE_RELATIVE_TOLERANCE,
};
