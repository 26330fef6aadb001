//! Memory-system components of the golden GPU model.
//!
//! * [`coalescer`]: a warp's per-thread addresses to memory transactions (GPGPU-Sim's rule).
//! * [`address`]: a global address to its channel, L2 slice, DRAM bank and row (the model's
//!   own mapping or GPGPU-Sim's decoder) and the partition address L2 sets are indexed by.
//! * [`cache`]: tag array with LRU (linear or Fermi-hash set index) and MSHR table.
//! * [`crossbar`]: SM-to-memory crossbar: flits, per-port bandwidth, round robin, latency.
//! * [`data_cache`]: a data cache's access path (Fermi L1D policies), on top of [`cache`].
//! * [`dram`]: one DRAM channel: banks, row buffers, timing constraints, FR-FCFS.
//! * [`per_kernel`]: counters kept per kernel beside their totals.
//! * [`shared_mem`]: shared-memory bank conflicts.

pub mod address;
pub mod cache;
pub mod coalescer;
pub mod crossbar;
pub mod data_cache;
pub mod dram;
pub mod per_kernel;
pub mod shared_mem;
