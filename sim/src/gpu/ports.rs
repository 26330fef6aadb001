//! How the GPU model reaches its hardware blocks: through the blocks' ports only, behind
//! [`Port`], so the golden model, the Verilated RTL, or a lockstep pair of both can sit in
//! every warp scheduler (`warp_arbiter`), every SM's ELF block and every SM's NewCAR queue
//! (`gpusched sim --rtl` / `--lockstep`).

use crate::block::Block;
use crate::blocks::elf::{self, ElfIn, ElfOut};
use crate::blocks::newcar::{self, NewcarIn, NewcarOut};
use crate::blocks::warp_arbiter::{self, ArbiterIn, ArbiterOut};

/// An error raised by a block implementation (a lockstep mismatch, a Verilator failure).
pub type BlockFault = Box<dyn std::error::Error + Send + Sync>;

/// One block instance with inputs `I` and outputs `O`, stepped once per core cycle (the block
/// contract's Mealy step).
pub trait Port<I, O> {
    /// One clock cycle; an error stops the simulation.
    fn step(&mut self, inp: &I) -> Result<O, BlockFault>;
}

impl<B: Block> Port<B::In, B::Out> for B {
    fn step(&mut self, inp: &B::In) -> Result<B::Out, BlockFault> {
        Ok(Block::step(self, inp))
    }
}

/// Where a block instance sits in the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The warp arbiter of scheduler `scheduler` of SM `sm` (`sm<i>_sched<j>`).
    Arbiter {
        /// SM index.
        sm: usize,
        /// Scheduler index within the SM.
        scheduler: usize,
    },
    /// The ELF block of SM `sm` (`sm<i>_elf`).
    Elf {
        /// SM index.
        sm: usize,
    },
    /// The NewCAR queue of SM `sm` (`sm<i>_newcar`).
    Newcar {
        /// SM index.
        sm: usize,
    },
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Site::Arbiter { sm, scheduler } => write!(f, "sm{sm}_sched{scheduler}"),
            Site::Elf { sm } => write!(f, "sm{sm}_elf"),
            Site::Newcar { sm } => write!(f, "sm{sm}_newcar"),
        }
    }
}

/// Builds the instance of one site from the block's parameters `P` (called once per site when
/// the GPU is built).
pub type Factory<'a, P, I, O> =
    dyn FnMut(Site, &P) -> Result<Box<dyn Port<I, O> + 'a>, BlockFault> + 'a;

/// A warp arbiter's port.
pub type ArbiterPort<'a> = Box<dyn Port<ArbiterIn, ArbiterOut> + 'a>;
/// An ELF block's port.
pub type ElfPort<'a> = Box<dyn Port<ElfIn, ElfOut> + 'a>;
/// A NewCAR queue's port.
pub type NewcarPort<'a> = Box<dyn Port<NewcarIn, NewcarOut> + 'a>;

/// Where every block instance of a GPU comes from.
pub struct Factories<'a> {
    /// Warp arbiters (unless ELF issues).
    pub arbiter: Box<Factory<'a, warp_arbiter::Params, ArbiterIn, ArbiterOut>>,
    /// ELF blocks (with `--warp-sched elf`).
    pub elf: Box<Factory<'a, elf::Params, ElfIn, ElfOut>>,
    /// NewCAR queues (with `--newcar`).
    pub newcar: Box<Factory<'a, newcar::Params, NewcarIn, NewcarOut>>,
}

impl<'a> Factories<'a> {
    /// The golden model at every site.
    pub fn golden() -> Self {
        Self {
            arbiter: Box::new(|_, p| Ok(Box::new(warp_arbiter::Golden::new(*p)))),
            elf: Box::new(|_, p| Ok(Box::new(elf::Golden::new(*p)))),
            newcar: Box::new(|_, p| Ok(Box::new(newcar::Golden::new(*p)))),
        }
    }
}
