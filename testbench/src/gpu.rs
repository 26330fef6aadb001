//! RTL in the GPU loop: the warp arbiter of every scheduler, the ELF block and the NewCAR
//! queue of every SM as golden model, Verilated RTL (`gpusched sim --rtl warp_arbiter,elf`)
//! or a lockstep pair of both (`--lockstep elf,newcar`).
//!
//! A lockstep run stops at the first cycle where any pair disagrees. The GPU model is
//! deterministic, so [`run`] then replays the whole simulation with that one pair traced
//! ([`Lockstep::replay`]) to write `<site>.golden.vcd` and `<site>.rtl.vcd` (site
//! `sm<i>_sched<j>`, `sm<i>_elf`, `sm<i>_newcar`) around the mismatch; a replay that diverges
//! elsewhere is [`TbError::NotReproduced`].

use crate::lockstep::{Lockstep, LockstepConfig, Mismatch, StepError};
use crate::rtl::RtlBlock;
use crate::TbError;
use gpusim::block::{Block, Inspect, PortBundle};
use gpusim::blocks::elf as el;
use gpusim::blocks::newcar as nc;
use gpusim::blocks::warp_arbiter::{self as wa, Params, Preset};
use gpusim::config::GpuConfig;
use gpusim::gpu::ports::{BlockFault, Factories, Port, Site};
use gpusim::gpu::{Gpu, Progress, Report, SimError, SimOptions};
use gpusim::workload::kernel::WorkloadSource;

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

/// The mode of each kind of block in a GPU run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modes {
    /// Warp arbiters.
    pub warp_arbiter: BlockMode,
    /// ELF blocks.
    pub elf: BlockMode,
    /// NewCAR queues.
    pub newcar: BlockMode,
}

impl Modes {
    /// Every block in `mode`.
    pub fn all(mode: BlockMode) -> Self {
        Self {
            warp_arbiter: mode,
            elf: mode,
            newcar: mode,
        }
    }

    /// Names of the blocks that have RTL in the GPU loop.
    pub const BLOCKS: [&'static str; 3] = ["warp_arbiter", "elf", "newcar"];

    /// Sets the mode of block `name` (one of [`Modes::BLOCKS`]).
    pub fn set(&mut self, name: &str, mode: BlockMode) -> Result<(), TbError> {
        match name {
            "warp_arbiter" => self.warp_arbiter = mode,
            "elf" => self.elf = mode,
            "newcar" => self.newcar = mode,
            _ => {
                return Err(TbError::Config(format!(
                    "no block `{name}` in the GPU loop; blocks: {}",
                    Self::BLOCKS.join(", ")
                )))
            }
        }
        Ok(())
    }
}

/// The Verilated warp arbiter whose parameters equal `params` (a preset of `rtl-out/`).
pub fn module_for(params: &Params) -> Result<String, TbError> {
    let matches = |p: &Preset| {
        p.warps() == params.warps
            && (params.policy != wa::Policy::TwoLevel || p.max_active() == params.max_active)
    };
    match Preset::ALL.iter().find(|p| matches(p)) {
        Some(p) => Ok(format!(
            "warp_arbiter_{}_{}",
            params.policy.name(),
            p.name()
        )),
        None => Err(TbError::Config(format!(
            "no warp_arbiter RTL for {} warps per scheduler{}: rtl-out has {}",
            params.warps,
            if params.policy == wa::Policy::TwoLevel {
                format!(" with {} active", params.max_active)
            } else {
                String::new()
            },
            Preset::ALL
                .iter()
                .map(|p| format!(
                    "{} ({} warps, {} active)",
                    p.name(),
                    p.warps(),
                    p.max_active()
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The Verilated ELF block whose parameters equal `params`.
pub fn elf_module_for(params: &el::Params) -> Result<String, TbError> {
    [(el::Preset::Fermi, "fermi"), (el::Preset::Proto, "proto")]
        .into_iter()
        .find(|(p, _)| el::Params::preset(*p) == *params)
        .map(|(_, n)| format!("elf_base_{n}"))
        .ok_or_else(|| {
            TbError::Config(format!(
                "no elf RTL for {} warps and {} program points: rtl-out has fermi (48, 32) and proto (8, 8)",
                params.warps, params.slots
            ))
        })
}

/// The Verilated NewCAR queue whose parameters equal `params`.
pub fn newcar_module_for(params: &nc::Params) -> Result<String, TbError> {
    [(nc::Preset::Fermi, "fermi"), (nc::Preset::Proto, "proto")]
        .into_iter()
        .find(|(p, _)| nc::Params::preset(*p) == *params)
        .map(|(_, n)| format!("newcar_base_{n}"))
        .ok_or_else(|| {
            TbError::Config(format!(
                "no newcar RTL for {} entries and {} warps: rtl-out has fermi (32, 48) and proto (8, 8)",
                params.entries, params.warps
            ))
        })
}

/// A lockstep pair as a GPU port.
pub struct LockstepPort<G: Block + Inspect + Clone>(pub Lockstep<G>);

impl<G> Port<G::In, G::Out> for LockstepPort<G>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
{
    fn step(&mut self, inp: &G::In) -> Result<G::Out, BlockFault> {
        self.0.step(inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

/// One block instance at `site` in `mode`: `golden` itself, the Verilated `module`, or both in
/// lockstep (traced for a replay when `replay` names this site).
#[allow(clippy::too_many_arguments)]
pub fn instance<'a, G>(
    mode: BlockMode,
    golden: G,
    module: impl FnOnce() -> Result<String, TbError>,
    params: &<G::In as PortBundle>::Params,
    site: Site,
    cfg: &LockstepConfig,
    replay: &Option<(String, u64)>,
) -> Result<Box<dyn Port<G::In, G::Out> + 'a>, BlockFault>
where
    G: Block + Inspect + Clone + 'a,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
{
    if mode == BlockMode::Golden {
        return Ok(Box::new(golden));
    }
    let module = module()?;
    let name = site.to_string();
    Ok(match (mode, replay) {
        (BlockMode::Rtl, _) => Box::new(RtlBlock::<G::In, G::Out>::new(&module, params)?),
        (_, Some((s, cycle))) if *s == name => Box::new(LockstepPort(Lockstep::replay(
            &name, golden, &module, params, cfg, *cycle,
        )?)),
        _ => Box::new(LockstepPort(Lockstep::new(
            &name, golden, &module, params, cfg,
        )?)),
    })
}

/// The factories of a GPU whose blocks are in `modes`. With `replay = Some((site, cycle))`
/// the pair at `site` is built for replaying a mismatch at `cycle` (traced, waveforms into
/// `cfg.mismatch_dir`).
pub fn factories<'a>(
    modes: Modes,
    cfg: &'a LockstepConfig,
    replay: Option<(String, u64)>,
) -> Factories<'a> {
    let (r1, r2, r3) = (replay.clone(), replay.clone(), replay);
    Factories {
        arbiter: Box::new(move |site, p: &Params| {
            instance(
                modes.warp_arbiter,
                wa::Golden::new(*p),
                || module_for(p),
                p,
                site,
                cfg,
                &r1,
            )
        }),
        elf: Box::new(move |site, p: &el::Params| {
            instance(
                modes.elf,
                el::Golden::new(*p),
                || elf_module_for(p),
                p,
                site,
                cfg,
                &r2,
            )
        }),
        newcar: Box::new(move |site, p: &nc::Params| {
            instance(
                modes.newcar,
                nc::Golden::new(*p),
                || newcar_module_for(p),
                p,
                site,
                cfg,
                &r3,
            )
        }),
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

fn run_once(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn WorkloadSource,
    factories: &mut Factories<'_>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let mut gpu = Gpu::new(cfg, opts.clone(), factories).map_err(classify)?;
    gpu.run(workload, progress).map_err(classify)
}

/// Builds the block factories of a run; `Some((site, cycle))` asks for the replay of a
/// mismatch at `site` and `cycle` (see [`factories`]).
pub type MakeFactories<'a> = dyn Fn(Option<(String, u64)>) -> Factories<'a> + 'a;

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
    let make = |replay| factories(modes, lockstep, replay);
    run_with(cfg, opts, workload, &make, lockstep.window > 0, progress)
}

/// [`run`] with the blocks from `make` (tests plant bugs this way); `replay_on_mismatch`
/// enables the second run that writes waveforms.
pub fn run_with<'a>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    make: &MakeFactories<'a>,
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
