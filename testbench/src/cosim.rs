//! Constrained-random co-simulation runs of one block: stimulus from the block's generator,
//! golden and Verilated RTL in lockstep, throughput measured.

use crate::lockstep::{LockstepConfig, Lockstep, Mismatch, StepError};
use crate::TbError;
use gpusim::block::{Block, Inspect};
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
    let mut pair = Lockstep::new(module, golden, module, &params, opts.lockstep.clone())?;
    let mut stim = Stimulus::new(params, opts.seed);
    let mut prev: Option<wa::ArbiterOut> = None;
    let start = Instant::now();
    let mut mismatch = None;
    for c in 0..opts.cycles {
        let inp = stim.next(prev.as_ref());
        match pair.step(&inp) {
            Ok(o) => prev = Some(o),
            Err(StepError::Mismatch(m)) => {
                mismatch = Some(*m);
                break;
            }
            Err(StepError::Tb(e)) => return Err(e),
        }
        if (c + 1) % PROGRESS_EVERY == 0 {
            progress(c + 1);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let cycles = pair.cycle();
    let waveforms = pair.finish()?;
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
