//! The sites where the GPU model holds its hardware blocks, and where the blocks come from.
//!
//! A site is one place in the GPU where a block sits: the warp issue of a scheduler (warp
//! arbiter) or of an SM (ELF), the LSU queue of an SM (NewCAR), the resource allocator of an
//! SM (`sm_alloc`), the thread-block dispatch of the GPU. The GPU asks a [`Provider`] for the block of each site once, when it is built, and
//! then talks to it through its ports only ([`Port`]), every cycle. So the golden model, the
//! Verilated RTL or a lockstep pair of both can sit at any site (`gpusched sim --rtl` /
//! `--lockstep`); which block goes to which site is the policy's choice ([`crate::policy`]).
//!
//! Each site has a protocol, the trait of the unit that sits there, built by the policy from
//! its blocks: [`issue`] (per SM), [`lsu_queue`] (per SM), [`alloc`] (per SM), [`dispatch`]
//! (per kernel), [`kernel_sched`] (per GPU).

pub mod alloc;
pub mod dispatch;
pub mod issue;
pub mod kernel_sched;
pub mod lsu_queue;

use crate::block::{Block, BlockKind};
use crate::blocks::{DynProvider, Provided};
use crate::gpu::SimError;
use std::any::TypeId;

/// An error raised by a block implementation (a lockstep mismatch, a Verilator failure).
pub type BlockFault = Box<dyn std::error::Error + Send + Sync>;

/// One block instance with inputs `I` and outputs `O`, stepped once per core cycle (the block
/// contract's Mealy step).
pub trait Port<I, O> {
    /// One clock cycle; an error stops the simulation.
    fn step(&mut self, inp: &I) -> Result<O, BlockFault>;
    /// `Some(out)` only if a step with `inp` now would return `out` and change nothing, so
    /// that the caller may skip it ([`Block::holds`]). The default never answers: a port that
    /// must see every cycle (a lockstep pair, a probe) keeps it.
    fn holds(&self, inp: &I) -> Option<O> {
        let _ = inp;
        None
    }
}

impl<B: Block> Port<B::In, B::Out> for B {
    fn step(&mut self, inp: &B::In) -> Result<B::Out, BlockFault> {
        Ok(Block::step(self, inp))
    }
    fn holds(&self, inp: &B::In) -> Option<B::Out> {
        Block::holds(self, inp)
    }
}

/// Where a block instance sits in the GPU; its name prefixes the waveforms of a mismatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// The warp issue of scheduler `scheduler` of SM `sm` (`sm<i>_sched<j>`).
    Scheduler {
        /// SM index.
        sm: usize,
        /// Scheduler index within the SM.
        scheduler: usize,
    },
    /// A per-SM site (`sm<i>_<block>`): the warp issue of the whole SM (ELF), its LSU queue,
    /// its resource allocator.
    Sm {
        /// SM index.
        sm: usize,
        /// The block's name.
        block: &'static str,
    },
    /// A per-GPU site (`<block>`): the thread-block dispatcher of the first kernel slot.
    Gpu {
        /// The block's name.
        block: &'static str,
    },
    /// The site of kernel slot `slot` > 0 (`k<slot>_<block>`): its thread-block dispatcher.
    Kernel {
        /// Kernel slot.
        slot: usize,
        /// The block's name.
        block: &'static str,
    },
}

impl Site {
    /// The dispatcher site of kernel slot `slot` (slot 0 is the GPU's `<block>`).
    pub fn dispatch(slot: usize, block: &'static str) -> Self {
        match slot {
            0 => Site::Gpu { block },
            slot => Site::Kernel { slot, block },
        }
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Site::Scheduler { sm, scheduler } => write!(f, "sm{sm}_sched{scheduler}"),
            Site::Sm { sm, block } => write!(f, "sm{sm}_{block}"),
            Site::Gpu { block } => write!(f, "{block}"),
            Site::Kernel { slot, block } => write!(f, "k{slot}_{block}"),
        }
    }
}

/// The port of a block of kind `K`.
pub type SitePort<'a, K> = Box<dyn Port<<K as BlockKind>::In, <K as BlockKind>::Out> + 'a>;

/// Where the blocks of a GPU come from (called once per site when the GPU is built).
pub trait Provider<'a> {
    /// The block of kind `K` with `params` for `site`.
    fn block<K: BlockKind>(
        &mut self,
        site: Site,
        params: &K::Params,
    ) -> Result<SitePort<'a, K>, BlockFault>;
}

/// The golden model at every site.
#[derive(Clone, Copy, Debug, Default)]
pub struct GoldenBlocks;

impl<'a> Provider<'a> for GoldenBlocks {
    fn block<K: BlockKind>(
        &mut self,
        _site: Site,
        params: &K::Params,
    ) -> Result<SitePort<'a, K>, BlockFault> {
        Ok(Box::new(K::golden(params)))
    }
}

/// `base`, except that blocks of kind `O` come from `make` (tests plant faults and probes this
/// way: `Override::<_, warp_arbiter::Kind, _>::new(GoldenBlocks, |site, p| ...)`).
pub struct Override<P, O: BlockKind, F> {
    base: P,
    make: F,
    _kind: std::marker::PhantomData<O>,
}

impl<P, O: BlockKind, F> Override<P, O, F> {
    /// `base` with blocks of kind `O` from `make`.
    pub fn new<'a>(base: P, make: F) -> Self
    where
        F: FnMut(Site, &O::Params) -> Result<SitePort<'a, O>, BlockFault>,
    {
        Self {
            base,
            make,
            _kind: std::marker::PhantomData,
        }
    }
}

impl<'a, P, O, F> Provider<'a> for Override<P, O, F>
where
    P: Provider<'a>,
    O: BlockKind,
    F: FnMut(Site, &O::Params) -> Result<SitePort<'a, O>, BlockFault>,
{
    fn block<K: BlockKind>(
        &mut self,
        site: Site,
        params: &K::Params,
    ) -> Result<SitePort<'a, K>, BlockFault> {
        if TypeId::of::<K>() != TypeId::of::<O>() {
            return self.base.block::<K>(site, params);
        }
        // SAFETY: `K` and `O` are the same type (equal `TypeId`s), so `K::Params` is
        // `O::Params` and `SitePort<'a, O>` is `SitePort<'a, K>`: both casts are identities.
        let params = unsafe { &*(params as *const K::Params as *const O::Params) };
        let port = std::mem::ManuallyDrop::new((self.make)(site, params)?);
        Ok(unsafe { std::ptr::read(&*port as *const SitePort<'a, O> as *const SitePort<'a, K>) })
    }
}

/// A block at its site: steps it and names the site in its errors.
///
/// A block that declares [`BlockKind::HOLDS`] (and [`BlockKind::may_hold`] at its parameters)
/// is not stepped in a cycle whose inputs repeat the last cycle's once its port has said
/// ([`Port::holds`]) that a step with them changes nothing: the slot answers the held output
/// itself (most cycles of a waiting scheduler or an allocator with nothing to place). The port
/// is asked once per run of repeated inputs.
pub struct Slot<'a, K: BlockKind> {
    site: Site,
    port: SitePort<'a, K>,
    /// The block may hold ([`BlockKind::HOLDS`] and [`BlockKind::may_hold`]).
    holds: bool,
    /// The inputs and outputs of the last cycle (`None` before the first).
    last: Option<(K::In, K::Out)>,
    /// The port said a step with `last`'s inputs changes nothing and gives its outputs.
    held: bool,
    /// The port was asked about `last`'s inputs.
    asked: bool,
}
impl<'a, K: Provided> Slot<'a, K> {
    /// The block of kind `K` for `site`, from `provider`.
    pub fn new(
        provider: &mut dyn DynProvider<'a>,
        site: Site,
        params: &K::Params,
    ) -> Result<Self, SimError> {
        let port = crate::blocks::provide::<K>(provider, site, params).map_err(|source| {
            SimError::Block {
                site: site.to_string(),
                source,
            }
        })?;
        Ok(Self {
            site,
            port,
            holds: K::HOLDS && K::may_hold(params),
            last: None,
            held: false,
            asked: false,
        })
    }
}

impl<K: BlockKind> Slot<'_, K> {
    /// One cycle of the block.
    #[inline]
    pub fn step(&mut self, inp: &K::In) -> Result<K::Out, SimError> {
        if !self.holds {
            return self.step_port(inp);
        }
        let repeats = match &self.last {
            Some((last_in, last_out)) if K::repeats(last_in, inp) => {
                if self.held {
                    return Ok(last_out.clone());
                }
                if !std::mem::replace(&mut self.asked, true) {
                    if let Some(out) = self.port.holds(inp) {
                        self.held = true;
                        self.keep(inp, &out, true);
                        return Ok(out);
                    }
                }
                true
            }
            _ => {
                self.asked = false;
                false
            }
        };
        let out = self.step_port(inp)?;
        self.held = false;
        self.keep(inp, &out, repeats);
        Ok(out)
    }

    /// Keeps `inp` and `out` as the last cycle's (`repeats`: `inp` repeats the kept inputs).
    fn keep(&mut self, inp: &K::In, out: &K::Out, repeats: bool) {
        match &mut self.last {
            Some((last_in, last_out)) => {
                if !repeats {
                    K::remember(last_in, inp);
                }
                last_out.clone_from(out);
            }
            None => self.last = Some((inp.clone(), out.clone())),
        }
    }

    /// The output the next [`Slot::step`] with `inp` answers without stepping the block
    /// (`None`: it may step it): `inp` repeats the last cycle's inputs and the port has said,
    /// or says now, that a step with them changes nothing. Asking now is what that step
    /// would do first (the port is not stepped in between), so the step then only answers.
    pub fn settle(&mut self, inp: &K::In) -> Option<&K::Out> {
        let (last_in, _) = self.last.as_ref().filter(|_| self.holds)?;
        if !K::repeats(last_in, inp) {
            return None;
        }
        if !self.held && !std::mem::replace(&mut self.asked, true) {
            if let Some(out) = self.port.holds(inp) {
                self.held = true;
                self.keep(inp, &out, true);
            }
        }
        self.last.as_ref().filter(|_| self.held).map(|(_, out)| out)
    }

    /// The last step was answered from a hold ([`Port::holds`]): a step with the same inputs
    /// answers the same output and does not step the block.
    pub fn held(&self) -> bool {
        self.held
    }

    fn step_port(&mut self, inp: &K::In) -> Result<K::Out, SimError> {
        self.port.step(inp).map_err(|source| SimError::Block {
            site: self.site.to_string(),
            source,
        })
    }
}
