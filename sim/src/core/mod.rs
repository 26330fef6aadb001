//! The SM side of the golden GPU model.
//!
//! * [`occupancy`]: how many thread blocks of a kernel fit on one SM, and what limits them.

pub mod occupancy;
