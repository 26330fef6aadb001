//! RTL in the GPU loop: the warp arbiter of every scheduler of every SM as golden model,
//! Verilated RTL (`gpusched sim --rtl warp_arbiter`) or a lockstep pair of both
//! (`--lockstep warp_arbiter`).
//!
//! A lockstep run stops at the first cycle where any pair disagrees. The GPU model is
//! deterministic, so [`run`] then replays the whole simulation with that one pair traced
//! ([`Lockstep::replay`]) to write `<site>.golden.vcd` and `<site>.rtl.vcd` (site
//! `sm<i>_sched<j>`) around the mismatch; a replay that diverges elsewhere is
//! [`TbError::NotReproduced`].

use crate::lockstep::{Lockstep, LockstepConfig, Mismatch, StepError};
use crate::rtl::RtlBlock;
use crate::TbError;
use gpusim::block::Block;
use gpusim::blocks::warp_arbiter::{self as wa, ArbiterIn, ArbiterOut, Params, Preset};
use gpusim::config::GpuConfig;
use gpusim::gpu::arbiter::{ArbiterFactory, ArbiterPort, ArbiterSite, BlockFault};
use gpusim::gpu::{Gpu, Progress, Report, SimError, SimOptions};
use gpusim::workload::kernel::WorkloadSource;

/// Which implementation of the warp arbiter the GPU uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbiterMode {
    /// The golden model (no Verilator needed).
    Golden,
    /// The Verilated RTL alone.
    Rtl,
    /// Golden and RTL in lockstep, compared every cycle.
    Lockstep,
}

/// The Verilated module whose parameters equal `params` (a preset of `rtl-out/`).
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

struct RtlArbiter(RtlBlock<ArbiterIn, ArbiterOut>);

impl ArbiterPort for RtlArbiter {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        Ok(self.0.step(inp))
    }
}

struct LockstepArbiter(Lockstep<wa::Golden>);

impl ArbiterPort for LockstepArbiter {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        self.0.step(inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

/// A factory of arbiters in `mode`. With `replay = Some((site, cycle))` the pair at `site` is
/// built for replaying a mismatch at `cycle` (traced, waveforms into `cfg.mismatch_dir`).
pub fn factory<'a>(
    mode: ArbiterMode,
    cfg: &'a LockstepConfig,
    replay: Option<(String, u64)>,
) -> Box<ArbiterFactory<'a>> {
    Box::new(
        move |site: ArbiterSite,
              params: &Params|
              -> Result<Box<dyn ArbiterPort + 'a>, BlockFault> {
            let golden = wa::Golden::new(*params);
            if mode == ArbiterMode::Golden {
                return Ok(Box::new(golden));
            }
            let module = module_for(params)?;
            let name = site.to_string();
            Ok(match (mode, &replay) {
                (ArbiterMode::Rtl, _) => Box::new(RtlArbiter(RtlBlock::new(&module, params)?)),
                (_, Some((s, cycle))) if *s == name => Box::new(LockstepArbiter(Lockstep::replay(
                    &name, golden, &module, params, cfg, *cycle,
                )?)),
                _ => Box::new(LockstepArbiter(Lockstep::new(
                    &name, golden, &module, params, cfg,
                )?)),
            })
        },
    )
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
    factory: &mut ArbiterFactory<'_>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let mut gpu = Gpu::new(cfg, opts.clone(), factory).map_err(classify)?;
    gpu.run(workload, progress).map_err(classify)
}

/// Builds the arbiter factory of a run; `Some((site, cycle))` asks for the replay of a
/// mismatch at `site` and `cycle` (see [`factory`]).
pub type MakeFactory<'a> = dyn Fn(Option<(String, u64)>) -> Box<ArbiterFactory<'a>> + 'a;

/// Runs `workload()` on the GPU with the warp arbiters in `mode`. On a lockstep mismatch with
/// `lockstep.window > 0`, a second, identical run writes the mismatch waveforms; the
/// returned mismatch names them.
pub fn run(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    mode: ArbiterMode,
    lockstep: &LockstepConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let make = |replay| factory(mode, lockstep, replay);
    run_with(cfg, opts, workload, &make, lockstep.window > 0, progress)
}

/// [`run`] with the arbiters from `make` (tests plant bugs this way); `replay_on_mismatch`
/// enables the second run that writes waveforms.
pub fn run_with<'a>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    make: &MakeFactory<'a>,
    replay_on_mismatch: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, GpuRunError> {
    let mut w = workload().map_err(GpuRunError::Sim)?;
    let first = {
        let mut f = make(None);
        run_once(cfg, opts, w.as_mut(), &mut *f, progress)
    };
    let m = match first {
        Err(GpuRunError::Mismatch(m)) if replay_on_mismatch && m.golden_vcd.is_none() => m,
        other => return other,
    };
    let mut w = workload().map_err(GpuRunError::Sim)?;
    let mut f = make(Some((m.name.clone(), m.cycle)));
    match run_once(cfg, opts, w.as_mut(), &mut *f, &mut |_| {}) {
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
