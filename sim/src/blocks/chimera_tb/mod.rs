//! `chimera_tb`: Chimera's preemptive thread-block scheduling (seed 003 ch. IV, spec
//! `chimera_maestro.md` §1): the cost estimator of the three preemption techniques ([`cost`]),
//! the per-block technique select and the choice of victim SMs ([`select`]), equal to the
//! thesis's Algorithm 3 taken literally ([`algorithm3`]), and the hardware block of one SM
//! ([`block`]: the per-slot counters and the serial estimator-selector; RTL in
//! `gpusched_hdl::chimera_tb`).
//!
//! The kernel scheduler that uses them (the SM partitioning and the preemption requests) is the
//! policy `--kernel-sched chimera` (`crate::policy::chimera`).

pub mod algorithm3;
pub mod block;
pub mod cost;
pub mod select;
pub mod stimulus;

pub use block::Kind;

#[cfg(test)]
mod tests;
