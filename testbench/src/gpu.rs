//! RTL in the GPU loop: every block at every site of the GPU (warp arbiters, ELF, NewCAR, the
//! thread-block dispatcher) as golden model, Verilated RTL (`gpusched sim --rtl
//! warp_arbiter,elf`) or a lockstep pair of both (`--lockstep elf,newcar,tb_dispatch`), by
//! kind ([`Modes`], [`TbBlocks`]).
//!
//! In a lockstep run the golden blocks drive the GPU and the Verilated ones check them on
//! other threads ([`crate::batch`], `rtl_threads` of them); the run stops at the first cycle where any pair disagrees,
//! with `<site>.golden.vcd`, `<site>.rtl.vcd` and the pair files written from the pair's last
//! snapshot (site `sm<i>_sched<j>`, `sm<i>_elf`, `sm<i>_newcar`, `tb_dispatch`). The GPU
//! is not run again.

use crate::batch::{BatchedPair, RtlThreads};
use crate::lockstep::{LockstepConfig, Mismatch, StepError};
use crate::rtl::RtlBlock;
use crate::TbError;
use gpusim::block::{Block, BlockKind, Inspect, PortBundle};
use gpusim::blocks::{catalog, variant_of, BlockInfo};
use gpusim::config::GpuConfig;
use gpusim::gpu::sites::{BlockFault, Port, Provider, Site, SitePort};
use gpusim::gpu::{Gpu, Progress, Report, SimError, SimOptions};
use gpusim::workload::kernel::WorkloadSource;
use std::collections::BTreeMap;

/// Which implementation of a block the GPU uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockMode {
    /// The golden model (no Verilator needed).
    #[default]
    Golden,
    /// The Verilated RTL alone.
    Rtl,
    /// Golden and RTL in lockstep, compared every cycle.
    Lockstep,
}

/// The mode of each kind of block in a GPU run (kinds not named are golden).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Modes(BTreeMap<&'static str, BlockMode>);

impl Modes {
    /// Every block of the registry in `mode`.
    pub fn all(mode: BlockMode) -> Self {
        Self(catalog().iter().map(|b| (b.name, mode)).collect())
    }

    /// Sets the mode of block `name` (a block of the registry).
    pub fn set(&mut self, name: &str, mode: BlockMode) -> Result<(), TbError> {
        let info = gpusim::blocks::find_block(name).map_err(|e| TbError::Config(e.to_string()))?;
        self.0.insert(info.name, mode);
        Ok(())
    }

    /// The mode of block `name`.
    pub fn get(&self, name: &str) -> BlockMode {
        self.0.get(name).copied().unwrap_or_default()
    }

    /// The blocks not in golden mode.
    pub fn non_golden(&self) -> Vec<(&'static str, BlockMode)> {
        self.0
            .iter()
            .filter(|(_, m)| **m != BlockMode::Golden)
            .map(|(n, m)| (*n, *m))
            .collect()
    }
}

/// The Verilated module of kind `K` whose parameters equal `params` (a preset of `rtl-out/`).
pub fn module_for<K: BlockKind>(params: &K::Params) -> Result<String, TbError> {
    let info = BlockInfo::of::<K>();
    match variant_of::<K>(params) {
        Some((policy, preset)) => Ok(info.module_name(policy, preset)),
        None => Err(TbError::Config(format!(
            "no {} RTL for {}: rtl-out has {}",
            K::NAME,
            K::describe(params),
            info.variants()
                .iter()
                .map(|(pol, pre)| format!("{pre} ({})", K::describe(&K::params(pol, pre))))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl<G> Port<G::In, G::Out> for BatchedPair<G>
where
    G: Block + Inspect + Clone + Send + 'static,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone + Send + 'static,
{
    fn step(&mut self, inp: &G::In) -> Result<G::Out, BlockFault> {
        BatchedPair::step(self, inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

/// One block instance of kind `K` at `site` in `mode`: `golden` itself, the Verilated module
/// for `params`, or both in lockstep with the RTL on `threads`.
pub fn instance<'a, K, G>(
    mode: BlockMode,
    golden: G,
    params: &K::Params,
    site: Site,
    cfg: &LockstepConfig,
    threads: &RtlThreads,
) -> Result<SitePort<'a, K>, BlockFault>
where
    K: BlockKind,
    G: Block<In = K::In, Out = K::Out> + Inspect + Clone + Send + 'static,
{
    if mode == BlockMode::Golden {
        return Ok(Box::new(golden));
    }
    let module = module_for::<K>(params)?;
    Ok(match mode {
        BlockMode::Rtl => Box::new(RtlBlock::<K::In, K::Out>::new(&module, params)?),
        _ => Box::new(BatchedPair::new(
            threads,
            &site.to_string(),
            golden,
            &module,
            params,
            cfg,
        )?),
    })
}

/// The blocks of a GPU whose kinds are in `modes`; lockstep pairs run their RTL on `threads`.
pub struct TbBlocks<'a> {
    /// The mode of each kind.
    pub modes: Modes,
    /// Waveform options of the lockstep pairs.
    pub cfg: &'a LockstepConfig,
    /// The RTL threads of the lockstep pairs.
    pub threads: RtlThreads,
}

impl<'a> TbBlocks<'a> {
    /// Blocks in `modes`, lockstep pairs on `threads`.
    pub fn new(modes: Modes, cfg: &'a LockstepConfig, threads: &RtlThreads) -> Self {
        Self {
            modes,
            cfg,
            threads: threads.clone(),
        }
    }
}

impl<'a> Provider<'a> for TbBlocks<'a> {
    fn block<K: BlockKind>(
        &mut self,
        site: Site,
        params: &K::Params,
    ) -> Result<SitePort<'a, K>, BlockFault> {
        let mode = self.modes.get(K::NAME);
        instance::<K, _>(
            mode,
            K::golden(params),
            params,
            site,
            self.cfg,
            &self.threads,
        )
    }
}

/// Why a GPU run with RTL in the loop failed.
#[derive(Debug, thiserror::Error)]
pub enum GpuRunError {
    /// A golden and an RTL block disagreed (waveforms named in the mismatch when written).
    #[error("lockstep mismatch in {}", .0.name)]
    Mismatch(Box<Mismatch>),
    /// The simulation failed for another reason.
    #[error(transparent)]
    Sim(SimError),
    /// The testbench failed (Verilator missing, a mismatch not reproduced from its snapshot...).
    #[error(transparent)]
    Tb(TbError),
}

pub(crate) fn classify(e: SimError) -> GpuRunError {
    match e {
        SimError::Block { site, source } => match source.downcast::<StepError>() {
            Ok(step) => classify_step(*step),
            Err(source) => match source.downcast::<TbError>() {
                Ok(t) => GpuRunError::Tb(*t),
                Err(source) => GpuRunError::Sim(SimError::Block { site, source }),
            },
        },
        other => GpuRunError::Sim(other),
    }
}

pub(crate) fn classify_step(e: StepError) -> GpuRunError {
    match e {
        StepError::Mismatch(m) => GpuRunError::Mismatch(m),
        StepError::Tb(t) => GpuRunError::Tb(t),
    }
}

/// Runs `workload()` on the GPU with its blocks in `modes`. A lockstep mismatch names the
/// waveforms written around it (none with `lockstep.window == 0`).
pub fn run(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: Modes,
    lockstep: &LockstepConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let make = |threads: &RtlThreads| TbBlocks::new(modes.clone(), lockstep, threads);
    run_with(cfg, opts, workload, (&make, lockstep.rtl_threads), progress)
}

/// [`run`] with the blocks from `make` (tests plant bugs this way), whose lockstep pairs run
/// their RTL on the threads `make` is given (`rtl_threads` of them, 0: one per core). After the GPU run, every record still queued is
/// checked: a mismatch found then (or during the run) is the result, even when the GPU run
/// failed afterwards (a block that drifted can end in a deadlock).
pub fn run_with<'a, P: Provider<'a>>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    (make, rtl_threads): (&dyn Fn(&RtlThreads) -> P, usize),
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let threads = RtlThreads::new(rtl_threads);
    let result = (|| {
        let mut w = workload().map_err(GpuRunError::Sim)?;
        let mut blocks = make(&threads);
        let mut gpu = Gpu::new(cfg, opts.clone(), &mut blocks).map_err(classify)?;
        gpu.run(w.as_mut(), progress).map_err(classify)
    })();
    match threads.finish() {
        Err(e) => Err(classify_step(e)),
        Ok(()) => result,
    }
}
