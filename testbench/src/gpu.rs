//! RTL in the GPU loop: every block at every site of the GPU (warp arbiters, ELF, NewCAR, the
//! thread-block dispatcher) as golden model, Verilated RTL (`gpusched sim --rtl
//! warp_arbiter,elf`) or a lockstep pair of both (`--lockstep elf,newcar,tb_dispatch`), by
//! kind ([`Modes`], [`TbBlocks`]).
//!
//! A lockstep run stops at the first cycle where any pair disagrees. The GPU model is
//! deterministic, so [`run`] then replays the whole simulation with that one pair traced
//! ([`Lockstep::replay`]) to write `<site>.golden.vcd` and `<site>.rtl.vcd` (site
//! `sm<i>_sched<j>`, `sm<i>_elf`, `sm<i>_newcar`, `tb_dispatch`) around the mismatch; a
//! replay that diverges elsewhere is [`TbError::NotReproduced`].

use crate::lockstep::{Lockstep, LockstepConfig, Mismatch, StepError};
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

/// A lockstep pair as a GPU port.
pub struct LockstepPort<G: Block + Inspect + Clone>(pub Lockstep<G>);

impl<G> Port<G::In, G::Out> for LockstepPort<G>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
{
    fn step(&mut self, inp: &G::In) -> Result<G::Out, BlockFault> {
        self.0.step(inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

/// One block instance of kind `K` at `site` in `mode`: `golden` itself, the Verilated module
/// for `params`, or both in lockstep (traced for a replay when `replay` names this site).
pub fn instance<'a, K, G>(
    mode: BlockMode,
    golden: G,
    params: &K::Params,
    site: Site,
    cfg: &LockstepConfig,
    replay: &Option<(String, u64)>,
) -> Result<SitePort<'a, K>, BlockFault>
where
    K: BlockKind,
    G: Block<In = K::In, Out = K::Out> + Inspect + Clone + 'a,
{
    if mode == BlockMode::Golden {
        return Ok(Box::new(golden));
    }
    let module = module_for::<K>(params)?;
    let name = site.to_string();
    Ok(match (mode, replay) {
        (BlockMode::Rtl, _) => Box::new(RtlBlock::<K::In, K::Out>::new(&module, params)?),
        (_, Some((s, cycle))) if *s == name => Box::new(LockstepPort(Lockstep::replay(
            &name, golden, &module, params, cfg, *cycle,
        )?)),
        _ => Box::new(LockstepPort(Lockstep::new(
            &name, golden, &module, params, cfg,
        )?)),
    })
}

/// The blocks of a GPU whose kinds are in `modes`. With `replay = Some((site, cycle))` the pair
/// at `site` is built for replaying a mismatch at `cycle` (traced, waveforms into
/// `cfg.mismatch_dir`).
pub struct TbBlocks<'a> {
    /// The mode of each kind.
    pub modes: Modes,
    /// Waveform options of the lockstep pairs.
    pub cfg: &'a LockstepConfig,
    /// The site and cycle of a mismatch being replayed.
    pub replay: Option<(String, u64)>,
}

impl<'a> TbBlocks<'a> {
    /// Blocks in `modes`, replaying `replay` if given.
    pub fn new(modes: Modes, cfg: &'a LockstepConfig, replay: Option<(String, u64)>) -> Self {
        Self { modes, cfg, replay }
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
            &self.replay,
        )
    }
}

/// Why a GPU run with RTL in the loop failed.
#[derive(Debug, thiserror::Error)]
pub enum GpuRunError {
    /// A golden and an RTL arbiter disagreed (waveforms named in the mismatch when written).
    #[error("lockstep mismatch in {}", .0.name)]
    Mismatch(Box<Mismatch>),
    /// The simulation failed for another reason.
    #[error(transparent)]
    Sim(SimError),
    /// The testbench failed (Verilator missing, replay not reproduced...).
    #[error(transparent)]
    Tb(TbError),
}

fn classify(e: SimError) -> GpuRunError {
    match e {
        SimError::Block { site, source } => match source.downcast::<StepError>() {
            Ok(step) => match *step {
                StepError::Mismatch(m) => GpuRunError::Mismatch(m),
                StepError::Tb(t) => GpuRunError::Tb(t),
            },
            Err(source) => match source.downcast::<TbError>() {
                Ok(t) => GpuRunError::Tb(*t),
                Err(source) => GpuRunError::Sim(SimError::Block { site, source }),
            },
        },
        other => GpuRunError::Sim(other),
    }
}

fn run_once<'a, P: Provider<'a>>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn WorkloadSource,
    blocks: &mut P,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let mut gpu = Gpu::new(cfg, opts.clone(), blocks).map_err(classify)?;
    gpu.run(workload, progress).map_err(classify)
}

/// Runs `workload()` on the GPU with its blocks in `modes`. On a lockstep mismatch with
/// `lockstep.window > 0`, a second, identical run writes the mismatch waveforms; the
/// returned mismatch names them.
pub fn run(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: Modes,
    lockstep: &LockstepConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let make = |replay| TbBlocks::new(modes.clone(), lockstep, replay);
    run_with(cfg, opts, workload, &make, lockstep.window > 0, progress)
}

/// [`run`] with the blocks from `make` (tests plant bugs this way): `make(None)` for the run,
/// `make(Some((site, cycle)))` for the replay of a mismatch at `site` and `cycle`;
/// `replay_on_mismatch` enables the second run that writes waveforms.
pub fn run_with<'a, P: Provider<'a>>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    make: &dyn Fn(Option<(String, u64)>) -> P,
    replay_on_mismatch: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let mut w = workload().map_err(GpuRunError::Sim)?;
    let first = {
        let mut f = make(None);
        run_once(cfg, opts, w.as_mut(), &mut f, progress)
    };
    let m = match first {
        Err(GpuRunError::Mismatch(m)) if replay_on_mismatch && m.golden_vcd.is_none() => m,
        other => return other,
    };
    let mut w = workload().map_err(GpuRunError::Sim)?;
    let mut f = make(Some((m.name.clone(), m.cycle)));
    match run_once(cfg, opts, w.as_mut(), &mut f, &mut |_| {}) {
        Err(GpuRunError::Mismatch(again))
            if again.name == m.name && again.cycle == m.cycle && again.port == m.port =>
        {
            Err(GpuRunError::Mismatch(again))
        }
        other => Err(GpuRunError::Tb(TbError::NotReproduced {
            module: m.name.clone(),
            cycle: m.cycle,
            replay: match other {
                Err(GpuRunError::Mismatch(o)) => {
                    format!(
                        "mismatch in {} at cycle {} on `{}`",
                        o.name, o.cycle, o.port
                    )
                }
                Err(e) => e.to_string(),
                Ok(_) => "no mismatch".into(),
            },
        })),
    }
}
