//! Memory-system components of the golden GPU model.
//!
//! * [`coalescer`]: a warp's per-thread addresses to memory transactions (GPGPU-Sim's rule).
//! * [`cache`]: tag array with LRU (linear or Fermi-hash set index) and MSHR table.

pub mod cache;
pub mod coalescer;
