//! Constrained-random co-simulation runs of one block: stimulus from the block's generator,
//! golden and Verilated RTL in lockstep, throughput measured.

use crate::lockstep::{Lockstep, LockstepConfig, Mismatch, StepError};
use crate::TbError;
use gpusim::block::PortBundle;
use gpusim::block::{Block, Inspect};
use gpusim::blocks::elf as el;
use gpusim::blocks::newcar as nc;
use gpusim::blocks::warp_arbiter::{self as wa, stimulus::Stimulus};
use std::time::Instant;

/// Options of a co-simulation run.
#[derive(Clone, Debug)]
pub struct CosimOptions {
    /// Cycles to run (after reset).
    pub cycles: u64,
    /// Stimulus seed.
    pub seed: u64,
    /// Waveform options.
    pub lockstep: LockstepConfig,
}

/// Outcome of a co-simulation run.
#[derive(Clone, Debug)]
pub struct CosimReport {
    /// Verilated module.
    pub module: String,
    /// Cycles compared (equal to the requested cycles unless a mismatch stopped the run).
    pub cycles: u64,
    /// Mismatching cycles (0 or 1: the run stops at the first).
    pub mismatches: u64,
    /// Wall time of the lockstep loop, seconds.
    pub seconds: f64,
    /// Cycles per second of wall time.
    pub cycles_per_s: f64,
    /// The mismatch, if any.
    pub mismatch: Option<Mismatch>,
    /// Whole-run waveforms (golden, rtl), with `vcd_dir`.
    pub waveforms: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

/// Cycles between two progress callbacks.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// Runs the warp arbiter `golden` against Verilated `module` on random stimulus. `golden` is
/// normally `wa::Golden::new(params)`; tests pass a deliberately broken copy. `progress` is
/// called with the cycles done every [`PROGRESS_EVERY`] cycles.
///
/// On a mismatch (and `window > 0`, no whole-run waveforms), the same run is replayed from
/// reset with the traced model to write the waveforms of the last `window` cycles; a replay
/// that does not diverge at the same cycle and port is reported as an error (nondeterminism).
pub fn warp_arbiter<G>(
    golden: G,
    params: wa::Params,
    module: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError>
where
    G: Block<In = wa::ArbiterIn, Out = wa::ArbiterOut> + Inspect + Clone,
{
    let seed = opts.seed;
    lockstep_run(golden, &params, module, opts, progress, &mut || {
        let mut s = Stimulus::new(params, seed);
        Box::new(move |prev: Option<&wa::ArbiterOut>| s.next(prev))
    })
}

/// NewCAR's lockstep run on its random stimulus (see [`warp_arbiter`]).
pub fn newcar<G>(
    golden: G,
    params: nc::Params,
    module: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError>
where
    G: Block<In = nc::NewcarIn, Out = nc::NewcarOut> + Inspect + Clone,
{
    let seed = opts.seed;
    lockstep_run(golden, &params, module, opts, progress, &mut || {
        let mut s = nc::stimulus::Stimulus::new(params, seed);
        Box::new(move |prev: Option<&nc::NewcarOut>| s.next(prev))
    })
}

/// The ELF block's lockstep run on its random stimulus (see [`warp_arbiter`]).
pub fn elf<G>(
    golden: G,
    params: el::Params,
    module: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError>
where
    G: Block<In = el::ElfIn, Out = el::ElfOut> + Inspect + Clone,
{
    let seed = opts.seed;
    lockstep_run(golden, &params, module, opts, progress, &mut || {
        let mut s = el::stimulus::Stimulus::new(params, seed);
        Box::new(move |prev: Option<&el::ElfOut>| s.next(prev))
    })
}

/// A stimulus: the inputs of the next cycle from the outputs of the previous one.
type StimFn<I, O> = Box<dyn FnMut(Option<&O>) -> I>;

/// The lockstep run of any block: `stimulus()` makes a fresh (identical) stimulus for the run
/// and for the replay that writes mismatch waveforms.
fn lockstep_run<G>(
    golden: G,
    params: &<G::In as PortBundle>::Params,
    module: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
    stimulus: &mut dyn FnMut() -> StimFn<G::In, G::Out>,
) -> Result<CosimReport, TbError>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
{
    let mut drive = |pair: &mut Lockstep<G>, cycles: u64, progress: &mut dyn FnMut(u64)| {
        let mut stim = stimulus();
        let mut prev: Option<G::Out> = None;
        for c in 0..cycles {
            match pair.step(&stim(prev.as_ref())) {
                Ok(o) => prev = Some(o),
                Err(StepError::Mismatch(m)) => return Ok(Some(*m)),
                Err(StepError::Tb(e)) => return Err(e),
            }
            if (c + 1) % PROGRESS_EVERY == 0 {
                progress(c + 1);
            }
        }
        Ok(None)
    };
    let mut pair = Lockstep::new(module, golden.clone(), module, params, &opts.lockstep)?;
    let start = Instant::now();
    let mut mismatch = drive(&mut pair, opts.cycles, progress)?;
    let seconds = start.elapsed().as_secs_f64();
    let cycles = pair.cycle();
    let waveforms = pair.finish()?;
    if let Some(m) = mismatch
        .as_mut()
        .filter(|m| m.golden_vcd.is_none() && opts.lockstep.window > 0)
    {
        let mut replay = Lockstep::replay(module, golden, module, params, &opts.lockstep, m.cycle)?;
        match drive(&mut replay, m.cycle + 1, &mut |_| {})? {
            Some(again) if again.cycle == m.cycle && again.port == m.port => {
                m.golden_vcd = again.golden_vcd;
                m.rtl_vcd = again.rtl_vcd;
            }
            other => {
                return Err(TbError::NotReproduced {
                    module: module.into(),
                    cycle: m.cycle,
                    replay: match other {
                        Some(o) => format!("mismatch at cycle {} on `{}`", o.cycle, o.port),
                        None => "no mismatch".into(),
                    },
                })
            }
        }
    }
    Ok(CosimReport {
        module: module.into(),
        cycles,
        mismatches: mismatch.is_some() as u64,
        seconds,
        cycles_per_s: cycles as f64 / seconds.max(1e-9),
        mismatch,
        waveforms,
    })
}

/// Runs the lockstep co-simulation of the catalog variant `block`/`policy`/`preset` (names
/// as in [`gpusim::blocks::CATALOG`]; `two-level` is accepted for `two_level`).
pub fn run_variant(
    block: &str,
    policy: &str,
    preset: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError> {
    let (module, params) = resolve(block, policy, preset)?;
    match params {
        VariantParams::WarpArbiter(p) => {
            warp_arbiter(wa::Golden::new(p), p, &module, opts, progress)
        }
        VariantParams::Newcar(p) => newcar(nc::Golden::new(p), p, &module, opts, progress),
        VariantParams::Elf(p) => elf(el::Golden::new(p), p, &module, opts, progress),
    }
}

/// Outcome of a golden-only run (no RTL): the stimulus and the golden model alone.
#[derive(Clone, Debug)]
pub struct GoldenReport {
    /// Cycles run.
    pub cycles: u64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Cycles per second.
    pub cycles_per_s: f64,
    /// Cycles with a grant (a sanity figure: the stimulus keeps the block busy).
    pub active_cycles: u64,
}

/// Runs the golden model of a catalog variant alone on the same random stimulus, for machines
/// without Verilator and as the baseline of the co-simulation overhead.
pub fn golden_only(
    block: &str,
    policy: &str,
    preset: &str,
    cycles: u64,
    seed: u64,
) -> Result<GoldenReport, TbError> {
    let (_, params) = resolve(block, policy, preset)?;
    let start = Instant::now();
    let active_cycles = match params {
        VariantParams::WarpArbiter(p) => {
            let mut g = wa::Golden::new(p);
            let mut stim = Stimulus::new(p, seed);
            let mut prev = None;
            let mut active = 0;
            for _ in 0..cycles {
                let o = g.step(&stim.next(prev.as_ref()));
                active += o.grant_valid as u64;
                prev = Some(o);
            }
            active
        }
        VariantParams::Elf(p) => {
            let mut g = el::Golden::new(p);
            let mut stim = el::stimulus::Stimulus::new(p, seed);
            let mut prev = None;
            let mut active = 0;
            for _ in 0..cycles {
                let o = g.step(&stim.next(prev.as_ref()));
                active += (o.grant0_valid || o.grant1_valid) as u64;
                prev = Some(o);
            }
            active
        }
        VariantParams::Newcar(p) => {
            let mut g = nc::Golden::new(p);
            let mut stim = nc::stimulus::Stimulus::new(p, seed);
            let mut prev = None;
            let mut active = 0;
            for _ in 0..cycles {
                let o = g.step(&stim.next(prev.as_ref()));
                active += (o.lsu_to_cache || o.deq_valid) as u64;
                prev = Some(o);
            }
            active
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    Ok(GoldenReport {
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds.max(1e-9),
        active_cycles,
    })
}

enum VariantParams {
    WarpArbiter(wa::Params),
    Newcar(nc::Params),
    Elf(el::Params),
}

/// Validates the names against the catalog and returns the module name and parameters.
fn resolve(block: &str, policy: &str, preset: &str) -> Result<(String, VariantParams), TbError> {
    let info = gpusim::blocks::find_block(block).map_err(|e| TbError::Config(e.to_string()))?;
    let policy = policy.replace('-', "_");
    gpusim::blocks::check_variant(info, &policy, preset)
        .map_err(|e| TbError::Config(e.to_string()))?;
    let module = info.module_name(&policy, preset);
    match info.name {
        "warp_arbiter" => {
            let pol = wa::Policy::from_name(&policy).expect("checked against the catalog");
            let pre = wa::Preset::from_name(preset).expect("checked against the catalog");
            Ok((
                module,
                VariantParams::WarpArbiter(wa::Params::preset(pol, pre)),
            ))
        }
        "elf" => {
            let pre = match preset {
                "fermi" => el::Preset::Fermi,
                _ => el::Preset::Proto,
            };
            Ok((module, VariantParams::Elf(el::Params::preset(pre))))
        }
        "newcar" => {
            let pre = match preset {
                "fermi" => nc::Preset::Fermi,
                _ => nc::Preset::Proto,
            };
            Ok((module, VariantParams::Newcar(nc::Params::preset(pre))))
        }
        other => Err(TbError::Config(format!(
            "no co-simulation driver for block `{other}`"
        ))),
    }
}
