//! `chimera_tb`: Chimera's preemptive thread-block scheduling (seed 003 ch. IV, spec
//! `chimera_maestro.md` §1): per-block counters, the cost estimator of the three preemption
//! techniques ([`cost`]), the per-block technique select and the choice of victim SMs
//! ([`select`]), equal to the thesis's Algorithm 3 taken literally ([`algorithm3`]).
//!
//! The kernel scheduler that uses them (the SM partitioning and the preemption requests) is the
//! policy `--kernel-sched chimera` (`crate::policy::chimera`). Not yet in the block registry:
//! its RTL is still to come.

pub mod algorithm3;
pub mod cost;
pub mod select;

#[cfg(test)]
mod tests;
