//! RTL of the warp-issue arbiter, one `LogicBlock` per policy. Behaviour, ports and cycle
//! timing are specified in `gpusim::blocks::warp_arbiter`; all three share these ports:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous reset, active high |
//! | `ready` | in | N | warps that could issue this cycle |
//! | `launch` | in | N | warps launched this cycle |
//! | `exit` | in | N | warps exiting this cycle |
//! | `long_stall` | in | N | warps waiting on a long-latency op or barrier |
//! | `grant_valid` | out | 1 | a warp is granted (combinational) |
//! | `grant_warp` | out | B | granted warp, 0 if none (combinational) |
//! | `active` | out | N | the set the policy chooses from this cycle |
//!
//! `N` is the warp count and `B = clog2(N)` the warp-id width (const generics, because
//! rust-hdl cannot compute one from the other).

mod gto;
mod lrr;
mod two_level;

pub use gto::ArbiterGto;
pub use lrr::ArbiterLrr;
pub use two_level::ArbiterTwoLevel;

#[cfg(test)]
mod tests;
