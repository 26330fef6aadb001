//! RTL of the warp-issue arbiter, one `LogicBlock` per policy. Behaviour, ports and cycle
//! timing are specified in `gpusim::blocks::warp_arbiter`; all four share these ports:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous reset, active high |
//! | `ready` | in | N | warps that could issue this cycle |
//! | `launch` | in | N | warps launched this cycle |
//! | `exit` | in | N | warps exiting this cycle |
//! | `long_stall` | in | N | warps at a barrier, exited, or reading a long-op register: two-level and TL-GTO demote them; LRR and GTO leave it unconnected (it never blocks a grant) |
//! | `grant_valid` | out | 1 | a warp is granted (combinational) |
//! | `grant_warp` | out | B | granted warp, 0 if none (combinational) |
//! | `active` | out | N | the set the policy chooses from this cycle |
//!
//! `N` is the warp count and `B = clog2(N)` the warp-id width (const generics, because
//! rust-hdl cannot compute one from the other).

mod gto;
mod lrr;
mod two_level;
mod two_level_gto;
mod two_level_lists;

pub use gto::ArbiterGto;
pub use lrr::ArbiterLrr;
pub use two_level::ArbiterTwoLevel;
pub use two_level_gto::ArbiterTwoLevelGto;
pub use two_level_lists::TwoLevelLists;

#[cfg(test)]
mod tests;

/// LRR, `fermi` preset: 24 warps per scheduler.
pub type LrrFermi = ArbiterLrr<24, 5>;
/// GTO, `fermi` preset.
pub type GtoFermi = ArbiterGto<24, 5>;
/// Two-level, `fermi` preset: 6 active warps.
pub type TwoLevelFermi = ArbiterTwoLevel<24, 5, 6, 18>;
/// TL-GTO, `fermi` preset: 6 active warps.
pub type TwoLevelGtoFermi = ArbiterTwoLevelGto<24, 5, 6, 18>;
/// LRR, `proto` preset: 8 warps.
pub type LrrProto = ArbiterLrr<8, 3>;
/// GTO, `proto` preset.
pub type GtoProto = ArbiterGto<8, 3>;
/// Two-level, `proto` preset: 4 active warps.
pub type TwoLevelProto = ArbiterTwoLevel<8, 3, 4, 4>;
/// TL-GTO, `proto` preset: 4 active warps.
pub type TwoLevelGtoProto = ArbiterTwoLevelGto<8, 3, 4, 4>;

/// The warp arbiter's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "warp_arbiter";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("lrr", "fermi") => verilog_of::<LrrFermi>(module),
            ("gto", "fermi") => verilog_of::<GtoFermi>(module),
            ("two_level", "fermi") => verilog_of::<TwoLevelFermi>(module),
            ("two_level_gto", "fermi") => verilog_of::<TwoLevelGtoFermi>(module),
            ("lrr", "proto") => verilog_of::<LrrProto>(module),
            ("gto", "proto") => verilog_of::<GtoProto>(module),
            ("two_level", "proto") => verilog_of::<TwoLevelProto>(module),
            ("two_level_gto", "proto") => verilog_of::<TwoLevelGtoProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}
