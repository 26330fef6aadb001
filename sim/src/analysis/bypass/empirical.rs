//! B-R5 `ORACLE_EMPIRICAL` (spec §2.6, seed 001 L96): the cached loads found by simulation
//! rather than on the traffic model, the bar the heuristic and the model's exact optimum are
//! measured against (`--bypass empirical`, the `empirical` column of `repro bypass`).
//!
//! Per kernel, its [`EMPIRICAL_MAX_LOADS`] global loads of the most accesses in the cache-all
//! run (ties: the lower PC) are its candidates, tried in all 2^k cached/bypassed combinations;
//! its other loads keep the heuristic's choice. One run per combination serves every kernel of
//! the workload (bit i of the mask is each kernel's i-th candidate in PC order; a kernel of
//! fewer candidates ignores the higher bits), and each kernel is timed by its own launches
//! (start to end cycle, summed), so a workload takes 2^k runs, k its largest candidate count.
//! Each kernel keeps the combination of its fewest cycles; ties go to fewer cached loads, then
//! the lower mask (B-R5).

use super::profile::{EffSource, Plan, Profiled};
use super::select::Method;
use crate::gpu::caching::Bypass;
use crate::gpu::{Report, SimError};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The most loads per kernel whose combinations are simulated (L96's "six").
pub const EMPIRICAL_MAX_LOADS: usize = 6;

/// One kernel's candidates: the indices (PC order) of its most accessed loads, in PC order.
fn candidates(loads: &[(u32, u64)]) -> Vec<usize> {
    let mut by_accesses: Vec<usize> = (0..loads.len()).collect();
    by_accesses.sort_by_key(|&i| (std::cmp::Reverse(loads[i].1), loads[i].0));
    by_accesses.truncate(EMPIRICAL_MAX_LOADS);
    by_accesses.sort_unstable();
    by_accesses
}

/// Kernel `name`'s cycles in `r`: the start-to-end cycles of its launches, summed.
fn kernel_cycles(r: &Report, name: &str) -> u64 {
    r.kernels
        .iter()
        .filter(|k| k.name == name)
        .map(|k| k.end_cycle - k.start_cycle)
        .sum()
}

/// Kernel `name`'s mask under combination `m`: its candidates by `m`'s bits, the rest as `base`.
fn mask_of(base: &[bool], cand: &[usize], m: usize) -> Vec<bool> {
    let mut mask = base.to_vec();
    for (bit, &i) in cand.iter().enumerate() {
        mask[i] = m >> bit & 1 == 1;
    }
    mask
}

/// One kernel as the search sees it.
struct Searched {
    /// Kernel name.
    name: String,
    /// Its global loads' PCs, in order.
    pcs: Vec<u32>,
    /// The heuristic's mask (kept for the loads beyond the candidates).
    base: Vec<bool>,
    /// The candidates' indices into `pcs`.
    cand: Vec<usize>,
}

/// The empirical plan of the profiled workload: `run(bypass)` runs it with the loads'
/// operators rewritten; the loads beyond the candidates keep the heuristic's choice under
/// `source`; `progress(done, total)` after each run. The plan's `runs` counts the profiling
/// runs and these.
pub fn empirical(
    p: &Profiled,
    source: EffSource,
    run: &mut dyn FnMut(&Bypass) -> Result<Report, SimError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Plan, SimError> {
    let heuristic = p.plan(crate::gpu::caching::SelectBy::Heuristic, source)?;
    let loads = p.load_accesses();
    let kernels: Vec<Searched> = heuristic
        .kernels
        .iter()
        .map(|k| Searched {
            name: k.kernel.clone(),
            pcs: k.loads.iter().map(|l| l.pc).collect(),
            base: k.loads.iter().map(|l| l.cached).collect(),
            cand: candidates(loads.get(&k.kernel).map_or(&[][..], Vec::as_slice)),
        })
        .collect();
    let width = kernels.iter().map(|k| k.cand.len()).max().unwrap_or(0);
    let total = 1usize << width;
    // Per kernel: (cycles, cached loads, mask) of the best combination so far.
    let mut best: Vec<Option<(u64, usize, usize)>> = vec![None; kernels.len()];
    for m in 0..total {
        let map: BTreeMap<String, BTreeSet<u32>> = kernels
            .iter()
            .map(|k| {
                let mask = mask_of(&k.base, &k.cand, m);
                let cached = k
                    .pcs
                    .iter()
                    .zip(&mask)
                    .filter(|(_, &c)| c)
                    .map(|(pc, _)| *pc);
                (k.name.clone(), cached.collect())
            })
            .collect();
        let r = run(&Bypass::Cached(Arc::new(map)))?;
        progress(m + 1, total);
        for (b, k) in best.iter_mut().zip(&kernels) {
            if m >> k.cand.len() != 0 {
                continue;
            }
            let key = (kernel_cycles(&r, &k.name), m.count_ones() as usize, m);
            if b.is_none_or(|old| key < old) {
                *b = Some(key);
            }
        }
    }
    let masks: BTreeMap<String, Vec<bool>> = kernels
        .iter()
        .zip(&best)
        .map(|(k, b)| {
            let m = b.map_or(0, |(_, _, m)| m);
            (k.name.clone(), mask_of(&k.base, &k.cand, m))
        })
        .collect();
    let mut plan = p.plan_masks(source, Method::Empirical, &masks)?;
    plan.runs += total;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates are the six most accessed loads (ties to the lower PC), in PC order.
    #[test]
    fn candidates_are_the_most_accessed_six_in_pc_order() {
        let loads: Vec<(u32, u64)> = [5, 9, 1, 9, 7, 3, 8, 2]
            .iter()
            .enumerate()
            .map(|(i, &a)| (8 * i as u32, a))
            .collect();
        // Accesses 9, 9, 8, 7, 5, 3 at indices 1, 3, 6, 4, 0, 5.
        assert_eq!(candidates(&loads), vec![0, 1, 3, 4, 5, 6]);
        // A tie at the cut goes to the lower PC.
        let tied: Vec<(u32, u64)> = (0..8).map(|i| (8 * i, 1)).collect();
        assert_eq!(candidates(&tied), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(candidates(&loads[..2]), vec![0, 1]);
    }

    /// On `bypass_mix` (three loads, all candidates) the search makes 2^3 runs after the 8
    /// profiling runs, and the combination it keeps is no slower than any of the eight, each
    /// re-run here on its own (so the kept one is the fastest, ties to fewer cached loads).
    #[test]
    fn the_kept_combination_is_the_fastest_of_all() {
        use crate::gpu::{Gpu, SimOptions};
        let cfg = crate::config::GpuConfig::preset("gtx680").unwrap();
        let opts = SimOptions::parse("--warp-sched gto").unwrap();
        let mut open = || Ok(crate::workload::open_named("bypass_mix", "small")?);
        let by = (crate::gpu::caching::SelectBy::Empirical, EffSource::Global);
        let mut seen = vec![];
        let plan = super::super::profile::select_golden(&cfg, &opts, &mut open, by, &mut |d, t| {
            seen.push((d, t))
        })
        .unwrap();
        assert_eq!(plan.runs, 16);
        assert_eq!(seen.last(), Some(&(8, 8)));
        let k = &plan.kernels[0];
        assert_eq!(k.method, Method::Empirical);
        let cycles = |cached: &[u32]| {
            let map = BTreeMap::from([(k.kernel.clone(), cached.iter().copied().collect())]);
            let o = SimOptions {
                bypass: Bypass::Cached(Arc::new(map)),
                ..opts.clone()
            };
            let mut gpu = Gpu::golden(&cfg, o).unwrap();
            gpu.run(open().unwrap().as_mut(), &mut |_| {})
                .unwrap()
                .counters
                .cycles
        };
        let kept: Vec<u32> = k.loads.iter().filter(|l| l.cached).map(|l| l.pc).collect();
        let best = cycles(&kept);
        let pcs: Vec<u32> = k.loads.iter().map(|l| l.pc).collect();
        for m in 0..8usize {
            let cached: Vec<u32> = (0..3).filter(|b| m >> b & 1 == 1).map(|b| pcs[b]).collect();
            let c = cycles(&cached);
            assert!(
                best < c || (best == c && kept.len() <= cached.len()),
                "kept {kept:x?} ({best} cycles) but {cached:x?} takes {c}"
            );
        }
    }

    /// A combination sets the candidates by its bits and leaves the rest as given.
    #[test]
    fn a_mask_sets_only_the_candidates() {
        let base = [true, false, true, false];
        assert_eq!(mask_of(&base, &[1, 2], 0b01), [true, true, false, false]);
        assert_eq!(mask_of(&base, &[1, 2], 0b10), [true, false, true, false]);
        assert_eq!(mask_of(&base, &[], 0), base);
    }
}
