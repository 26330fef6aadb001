//! Constrained-random co-simulation runs of one block: stimulus from the block's generator,
//! golden and Verilated RTL in lockstep, throughput measured.

use crate::batch::{BatchedPair, RtlThreads};
use crate::lockstep::{Lockstep, LockstepConfig, Mismatch, StepError};
use crate::TbError;
use gpusim::block::{Block, BlockKind, Inspect, Stimulus};
use gpusim::blocks::{check_variant, find_block, with_kind, KindFn};
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
    /// Cycles compared before the mismatch, or the requested cycles when there is none.
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

/// Runs `golden` (normally `K::golden(params)`; tests pass a deliberately broken copy) against
/// the Verilated `module` on the block's random stimulus. `progress` is called with the cycles
/// done every [`PROGRESS_EVERY`] cycles.
///
/// The RTL runs on a second thread ([`crate::batch`]); a mismatch and its waveforms (the last
/// `window` cycles) come from the pair's last snapshot. With `vcd_dir`, both models run on
/// this thread, traced for the whole run.
pub fn lockstep<K, G>(
    golden: G,
    params: &K::Params,
    module: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError>
where
    K: BlockKind,
    G: Block<In = K::In, Out = K::Out> + Inspect + Clone + Send + 'static,
{
    let mut stim = K::stimulus(params, opts.seed);
    let mut prev: Option<K::Out> = None;
    type Step<'s, K> =
        dyn FnMut(&<K as BlockKind>::In) -> Result<<K as BlockKind>::Out, StepError> + 's;
    let mut drive = |step: &mut Step<'_, K>| {
        for c in 0..opts.cycles {
            match step(&stim.next(prev.as_ref())) {
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
    let start = Instant::now();
    let (mismatch, waveforms) = if opts.lockstep.vcd_dir.is_some() {
        let mut pair = Lockstep::new(module, golden, module, params, &opts.lockstep)?;
        let m = drive(&mut |i| pair.step(i))?;
        (m, pair.finish()?)
    } else {
        let threads = RtlThreads::new(1);
        let mut pair = BatchedPair::new(&threads, module, golden, module, params, &opts.lockstep)?;
        let mut m = drive(&mut |i| pair.step(i))?;
        if m.is_none() {
            m = match threads.finish() {
                Ok(()) => None,
                Err(StepError::Mismatch(m)) => Some(*m),
                Err(StepError::Tb(e)) => return Err(e),
            };
        }
        (m, None)
    };
    let seconds = start.elapsed().as_secs_f64();
    let cycles = mismatch.as_ref().map_or(opts.cycles, |m| m.cycle);
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

/// A block variant named on the command line: its module name and canonical policy.
pub(crate) fn resolve(
    block: &str,
    policy: &str,
    preset: &str,
) -> Result<(String, String), TbError> {
    let info = find_block(block).map_err(|e| TbError::Config(e.to_string()))?;
    let policy =
        check_variant(&info, policy, preset).map_err(|e| TbError::Config(e.to_string()))?;
    Ok((info.module_name(policy, preset), policy.to_string()))
}

/// Runs the lockstep co-simulation of the catalog variant `block`/`policy`/`preset` (names
/// as in [`gpusim::blocks::catalog`]; `two-level` is accepted for `two_level`).
pub fn run_variant(
    block: &str,
    policy: &str,
    preset: &str,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError> {
    let (module, policy) = resolve(block, policy, preset)?;
    struct Run<'r> {
        module: &'r str,
        policy: &'r str,
        preset: &'r str,
        opts: &'r CosimOptions,
        progress: &'r mut dyn FnMut(u64),
    }
    impl KindFn for Run<'_> {
        type Output = Result<CosimReport, TbError>;
        fn call<K: BlockKind>(self) -> Self::Output {
            let p = K::params(self.policy, self.preset);
            lockstep::<K, _>(K::golden(&p), &p, self.module, self.opts, self.progress)
        }
    }
    let run = Run {
        module: &module,
        policy: &policy,
        preset,
        opts,
        progress,
    };
    with_kind(block, run).map_err(|e| TbError::Config(e.to_string()))?
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
    /// Cycles in which the block did something (a sanity figure: the stimulus keeps it busy).
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
    let (_, policy) = resolve(block, policy, preset)?;
    struct Run<'r> {
        policy: &'r str,
        preset: &'r str,
        cycles: u64,
        seed: u64,
    }
    impl KindFn for Run<'_> {
        type Output = u64;
        fn call<K: BlockKind>(self) -> u64 {
            let p = K::params(self.policy, self.preset);
            let mut g = K::golden(&p);
            let mut stim = K::stimulus(&p, self.seed);
            let mut prev = None;
            let mut active = 0;
            for _ in 0..self.cycles {
                let o = g.step(&stim.next(prev.as_ref()));
                active += K::busy(&o) as u64;
                prev = Some(o);
            }
            active
        }
    }
    let start = Instant::now();
    let run = Run {
        policy: &policy,
        preset,
        cycles,
        seed,
    };
    let active_cycles = with_kind(block, run).map_err(|e| TbError::Config(e.to_string()))?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(GoldenReport {
        cycles,
        seconds,
        cycles_per_s: cycles as f64 / seconds.max(1e-9),
        active_cycles,
    })
}
