//! Compiler-side analyses of a kernel's static code (golden models of what the papers'
//! compilers compute before a kernel runs).
//!
//! * [`bypass`]: per-load L1 cache bypassing, Table II efficiencies, the traffic reduction
//!   graph, Algorithm 1 and the exact optimum (seed 001 §IV-§V).
//! * [`elf`]: ELF's program points, scores and recalculation bits (seed 003 ch. III).
//! * [`locality`]: thread-block rectangles and warp access vectors for locality-aware
//!   dispatch and warp scheduling (seed 000 ch. III).
//! * [`paver`]: PAVER's locality graph and thread-block groups (seed 004 §3-§4).
//! * [`paws`]: PAWS's phases and per-instruction phase distances (seed 002 §3.1.3).

pub mod bypass;
pub mod elf;
pub mod locality;
pub mod paver;
pub mod paws;
