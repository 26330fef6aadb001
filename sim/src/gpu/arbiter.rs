//! How the GPU model reaches its warp arbiters: through the block's ports only, behind
//! [`ArbiterPort`], so the golden model, the Verilated RTL, or a lockstep pair of both can sit
//! in every warp scheduler of every SM (`gpusched sim --rtl` / `--lockstep`).

use crate::block::Block;
use crate::blocks::warp_arbiter::{ArbiterIn, ArbiterOut, Golden, Params};

/// An error raised by a block implementation (a lockstep mismatch, a Verilator failure).
pub type BlockFault = Box<dyn std::error::Error + Send + Sync>;

/// One warp scheduler's arbiter, stepped once per core cycle (the block contract's Mealy step).
pub trait ArbiterPort {
    /// One clock cycle; an error stops the simulation.
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault>;
}

impl ArbiterPort for Golden {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        Ok(Block::step(self, inp))
    }
}

/// Where an arbiter sits: SM `sm`, warp scheduler `scheduler` of that SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArbiterSite {
    /// SM index.
    pub sm: usize,
    /// Scheduler index within the SM.
    pub scheduler: usize,
}

impl std::fmt::Display for ArbiterSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm{}_sched{}", self.sm, self.scheduler)
    }
}

/// Builds the arbiter of one site (called once per scheduler when the GPU is built).
pub type ArbiterFactory<'a> =
    dyn FnMut(ArbiterSite, &Params) -> Result<Box<dyn ArbiterPort + 'a>, BlockFault> + 'a;

/// The golden arbiter for every site.
pub fn golden_factory<'a>() -> Box<ArbiterFactory<'a>> {
    Box::new(|_site, params| Ok(Box::new(Golden::new(*params)) as Box<dyn ArbiterPort>))
}
