//! Memory-system components of the golden GPU model.
//!
//! * [`coalescer`]: a warp's per-thread addresses to memory transactions (GPGPU-Sim's rule).
//! * [`cache`]: tag array with LRU (linear or Fermi-hash set index) and MSHR table.
//! * [`data_cache`]: a data cache's access path (Fermi L1D policies), on top of [`cache`].
//! * [`dram`]: one DRAM channel: banks, row buffers, timing constraints, FR-FCFS.
//! * [`shared_mem`]: shared-memory bank conflicts.

pub mod cache;
pub mod coalescer;
pub mod data_cache;
pub mod dram;
pub mod shared_mem;
