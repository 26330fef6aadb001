//! The SM side of the golden GPU model.
//!
//! * [`occupancy`]: how many thread blocks of a kernel fit on one SM, and what limits them.
//! * [`twoway`]: GPU Maestro's 2-way layout of an SM's registers and shared memory for two
//!   kernels, and a first-fit layout beside it.

pub mod occupancy;
pub mod twoway;
