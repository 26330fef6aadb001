//! The framework's characterization and optimization steps run on the GPU model (seed 001
//! §III, Fig. 3; spec §2.1.6 and B-R1, B-R2): profiling runs of the workload, each with its
//! loads' cache operators rewritten (bypass-all, cache-all, each global load cached alone, each
//! pair cached together), the traffic reduction graph of each kernel, and the selection.
//!
//! A kernel is known by its name; each kernel's loads are profiled on their own (the other
//! kernels run as written meanwhile), so a workload of `K` kernels with `N_k` loads takes
//! `2 + sum_k (N_k + N_k (N_k - 1) / 2)` runs.

use super::efficiency::{classify, AccessPattern, Efficiency, L1_BLOCK_BYTES};
use super::graph::{LoadProfile, TrafficGraph};
use super::select::{select, Method, Selection};
use crate::gpu::caching::{Bypass, SelectBy};
use crate::gpu::stats::LoadCounts;
use crate::gpu::{Report, SimError};
use crate::workload::kernel::{WorkloadError, WorkloadSource};
use crate::workload::sass::OpClass;
use serde::Serialize;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where the loads' efficiencies E_on and E_off come from (B-R1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EffSource {
    /// Table II for a load whose lanes fit one of its patterns; otherwise the kernel's whole
    /// efficiency measured in the cache-all and the bypass-all runs (the paper's "global load
    /// efficiency of the program given by the profiler", L257).
    #[default]
    Global,
    /// Every load's own efficiencies, measured in the cache-all and bypass-all runs.
    Oracle,
}

/// One warp instruction's lanes of a global load, for Table II's pattern recognition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneSample {
    /// (lane, byte address) of its active lanes.
    pub lanes: Vec<(u32, u64)>,
    /// Bytes per lane.
    pub width: u32,
}

/// Per kernel name, per global-load PC: the instance with the most active lanes among the
/// first thread block's warps.
pub type Samples = BTreeMap<String, BTreeMap<u32, LaneSample>>;

/// The lanes of each global load of each kernel of `workload`, from its first thread block.
pub fn sample_loads(workload: &mut dyn WorkloadSource) -> Result<Samples, WorkloadError> {
    let mut out = Samples::new();
    for mut l in workload.launches()? {
        let mut k = (l.open)()?;
        let by_pc = out.entry(l.info.name.clone()).or_default();
        if l.info.blocks() == 0 {
            continue;
        }
        let b = k.block(0)?;
        for i in b.warps.iter().flatten() {
            if i.class != OpClass::LoadGlobal {
                continue;
            }
            let better = by_pc
                .get(&i.pc)
                .is_none_or(|s| s.lanes.len() < i.active() as usize);
            if better {
                let lanes = lanes_of(i.mask, b.addrs(i).iter());
                let width = u32::from(i.width.max(1));
                by_pc.insert(i.pc, LaneSample { lanes, width });
            }
        }
    }
    Ok(out)
}

/// Pairs the active lanes of `mask`, in lane order, with `addrs`.
fn lanes_of(mask: u32, addrs: impl Iterator<Item = u64>) -> Vec<(u32, u64)> {
    let mut m = mask;
    addrs
        .map(|a| {
            let lane = m.trailing_zeros();
            m &= m.wrapping_sub(1);
            (lane, a)
        })
        .collect()
}

/// What the framework decided for one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadPlan {
    /// Its PC.
    pub pc: u32,
    /// access_i and hit_i of the run that caches it alone (B-R2).
    pub access: u64,
    /// Accesses that sent no L2 request in that run.
    pub hit: u64,
    /// Its Table II pattern, when its lanes fit one.
    pub pattern: Option<AccessPattern>,
    /// E_on and E_off used.
    pub eff: Efficiency,
    /// W(v_i), bytes of L2 traffic caching it saves.
    pub weight: f64,
    /// It is cached (`ld.ca`); otherwise it bypasses (`ld.cg`).
    pub cached: bool,
}

/// The framework's result for one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelPlan {
    /// Kernel name.
    pub kernel: String,
    /// Its global loads in PC order.
    pub loads: Vec<LoadPlan>,
    /// hit_{i,j}: hits of loads i and j cached together (rows and columns in PC order).
    pub pair_hits: Vec<Vec<u64>>,
    /// The method that chose the mask (the heuristic when exact search fell back).
    pub method: Method,
    /// T(G') of the mask, bytes.
    pub objective: f64,
    /// Why the method differs from the one asked for.
    pub note: Option<String>,
}

/// The framework's result for a workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Per kernel, by name.
    pub kernels: Vec<KernelPlan>,
    /// Runs made to choose it: the profiling runs, plus the combinations of `--bypass empirical`
    /// (each counted, also when an earlier run of the same selection served it).
    pub runs: usize,
}

impl Plan {
    /// The run option that applies the plan: each kernel's cached loads, the rest bypassed.
    pub fn bypass(&self) -> Bypass {
        let map = self
            .kernels
            .iter()
            .map(|k| {
                let cached = k.loads.iter().filter(|l| l.cached).map(|l| l.pc);
                (k.kernel.clone(), cached.collect())
            })
            .collect();
        Bypass::Cached(Arc::new(map))
    }
}

/// Per kernel name, per PC: the loads' counters of `r` (launches of one name summed).
fn loads_by_kernel(r: &Report) -> BTreeMap<String, BTreeMap<u32, LoadCounts>> {
    let mut out: BTreeMap<String, BTreeMap<u32, LoadCounts>> = BTreeMap::new();
    for k in &r.kernels {
        let by_pc = out.entry(k.name.clone()).or_default();
        for l in &k.loads {
            match by_pc.entry(l.pc) {
                Entry::Vacant(e) => {
                    e.insert(*l);
                }
                Entry::Occupied(mut e) => e.get_mut().add(l),
            }
        }
    }
    out
}

/// What the profiling runs measured of one kernel's global loads.
#[derive(Clone, Debug, Default)]
struct KernelProfile {
    /// Its global loads' PCs, in order.
    pcs: Vec<u32>,
    /// Per load, its counters with it alone cached.
    alone: Vec<LoadCounts>,
    /// hit_{i,j}.
    pair_hits: Vec<Vec<u64>>,
    /// Per PC, the cache-all run's counters.
    cached: BTreeMap<u32, LoadCounts>,
    /// Per PC, the bypass-all run's counters.
    bypassed: BTreeMap<u32, LoadCounts>,
    /// Per PC, its lanes in the first thread block.
    samples: BTreeMap<u32, LaneSample>,
}

/// The profiling runs' measurements of a workload, from which [`Profiled::plan`] makes a plan
/// for each selection method and efficiency source.
#[derive(Clone, Debug)]
pub struct Profiled {
    kernels: BTreeMap<String, KernelProfile>,
    /// The bypass-all run.
    pub bypass_all: Report,
    /// The cache-all run.
    pub cache_all: Report,
    /// Profiling runs made, the two above included.
    pub runs: usize,
}

/// The profiling runs of the workload `run` runs (`run(bypass)`: one run with the loads'
/// operators rewritten), its loads' lanes `samples`; `progress(done, total)` after each run.
pub fn profile(
    samples: &Samples,
    run: &mut dyn FnMut(&Bypass) -> Result<Report, SimError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Profiled, SimError> {
    let bypass_all = run(&Bypass::All)?;
    let cache_all = run(&Bypass::None)?;
    let all = loads_by_kernel(&bypass_all);
    let none = loads_by_kernel(&cache_all);
    let total = 2 + all
        .values()
        .map(|m| m.len() + m.len() * m.len().saturating_sub(1) / 2)
        .sum::<usize>();
    let mut runs = 2;
    progress(runs, total);
    let mut kernels = BTreeMap::new();
    for (name, bypassed) in all {
        let pcs: Vec<u32> = bypassed.keys().copied().collect();
        let mut cached_run = |cached: &[u32]| -> Result<BTreeMap<u32, LoadCounts>, SimError> {
            let set: BTreeSet<u32> = cached.iter().copied().collect();
            let b = Bypass::Cached(Arc::new(BTreeMap::from([(name.clone(), set)])));
            let r = loads_by_kernel(&run(&b)?);
            runs += 1;
            progress(runs, total);
            Ok(r.get(&name).cloned().unwrap_or_default())
        };
        let (alone, pair_hits) = profile_kernel(&pcs, &mut cached_run)?;
        let k = KernelProfile {
            pcs,
            alone,
            pair_hits,
            cached: none.get(&name).cloned().unwrap_or_default(),
            bypassed,
            samples: samples.get(&name).cloned().unwrap_or_default(),
        };
        kernels.insert(name, k);
    }
    Ok(Profiled {
        kernels,
        bypass_all,
        cache_all,
        runs,
    })
}

impl Profiled {
    /// The plan `by` chooses with efficiencies from `source`.
    pub fn plan(&self, by: SelectBy, source: EffSource) -> Result<Plan, SimError> {
        let kernels = self
            .kernels
            .iter()
            .map(|(name, k)| k.plan(name, by, source))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            kernels,
            runs: self.runs,
        })
    }

    /// Per kernel name, its global loads in PC order with their accesses in the cache-all run.
    pub fn load_accesses(&self) -> BTreeMap<String, Vec<(u32, u64)>> {
        self.kernels
            .iter()
            .map(|(name, k)| {
                let acc = |pc: &u32| k.cached.get(pc).map_or(0, |c| c.accesses);
                (
                    name.clone(),
                    k.pcs.iter().map(|pc| (*pc, acc(pc))).collect(),
                )
            })
            .collect()
    }

    /// The plan caching, per kernel, the loads `masks` names (`masks[name][i]`: its i-th load
    /// in PC order), chosen by `method` outside the model; weights and T(G') as under
    /// `source`. A kernel `masks` does not name keeps the heuristic's choice.
    pub fn plan_masks(
        &self,
        source: EffSource,
        method: Method,
        masks: &BTreeMap<String, Vec<bool>>,
    ) -> Result<Plan, SimError> {
        let kernels = self
            .kernels
            .iter()
            .map(|(name, k)| match masks.get(name) {
                Some(m) if m.len() == k.pcs.len() => k.plan_with(name, source, &|g| Selection {
                    cached: m.clone(),
                    method_used: method,
                    objective: g.objective(m),
                    note: None,
                }),
                _ => k.plan(name, SelectBy::Heuristic, source),
            })
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            kernels,
            runs: self.runs,
        })
    }
}

/// The runs that cache each load of `pcs` alone, then each pair: per load its counters
/// alone, and the pairs' hit matrix.
#[allow(clippy::type_complexity)]
fn profile_kernel(
    pcs: &[u32],
    cached_run: &mut dyn FnMut(&[u32]) -> Result<BTreeMap<u32, LoadCounts>, SimError>,
) -> Result<(Vec<LoadCounts>, Vec<Vec<u64>>), SimError> {
    let n = pcs.len();
    let mut alone = Vec::with_capacity(n);
    for &pc in pcs {
        let r = cached_run(&[pc])?;
        alone.push(r.get(&pc).copied().unwrap_or_default());
    }
    let mut pair_hits = vec![vec![0u64; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let r = cached_run(&[pcs[i], pcs[j]])?;
            let hits = |pc: u32| r.get(&pc).map_or(0, LoadCounts::l1_hits);
            let h = hits(pcs[i]) + hits(pcs[j]);
            pair_hits[i][j] = h;
            pair_hits[j][i] = h;
        }
    }
    Ok((alone, pair_hits))
}

impl KernelProfile {
    /// The efficiencies of load `pc` under `source`; `None` when the profiling runs it reads
    /// moved no bytes for it (nothing to measure).
    fn efficiency(&self, pc: u32, source: EffSource) -> Option<Efficiency> {
        let sample = self.samples.get(&pc);
        let pattern = sample.and_then(|s| classify(&s.lanes, s.width));
        if let (EffSource::Global, Some(p), Some(s)) = (source, pattern, sample) {
            return Some(Efficiency::of_pattern(p, s.width, s.width));
        }
        let pick = |m: &BTreeMap<u32, LoadCounts>| -> Vec<LoadCounts> {
            match source {
                EffSource::Oracle => m.get(&pc).copied().into_iter().collect(),
                EffSource::Global => m.values().copied().collect(),
            }
        };
        let (on, off) = (pick(&self.cached), pick(&self.bypassed));
        let sum = |v: &[LoadCounts], f: fn(&LoadCounts) -> u64| v.iter().map(f).sum::<u64>();
        Efficiency::measured(
            sum(&on, |l| l.useful_bytes),
            sum(&on, |l| l.accesses * L1_BLOCK_BYTES as u64),
            sum(&off, |l| l.useful_bytes),
            sum(&off, |l| l.l2_bytes),
        )
    }

    /// The graph and the selection of kernel `name`.
    fn plan(&self, name: &str, by: SelectBy, source: EffSource) -> Result<KernelPlan, SimError> {
        let method = match by {
            SelectBy::Exact => Method::Exact,
            SelectBy::Heuristic => Method::Heuristic,
            SelectBy::Empirical => Method::Empirical,
        };
        self.plan_with(name, source, &|g| select(g, method))
    }

    /// Kernel `name`'s graph under `source` and the selection `choose` makes on it.
    fn plan_with(
        &self,
        name: &str,
        source: EffSource,
        choose: &dyn Fn(&TrafficGraph) -> Selection,
    ) -> Result<KernelPlan, SimError> {
        let mut unmeasured = vec![];
        let profiles: Vec<LoadProfile> = self
            .pcs
            .iter()
            .zip(&self.alone)
            .map(|(&pc, c)| LoadProfile {
                pc,
                access: c.accesses,
                hit: c.l1_hits().min(c.accesses),
                eff: self.efficiency(pc, source).unwrap_or_else(|| {
                    unmeasured.push(format!("{pc:#x}"));
                    Efficiency { on: 1.0, off: 1.0 }
                }),
            })
            .collect();
        let g = TrafficGraph::build(&profiles, &self.pair_hits)
            .map_err(|e| SimError::Config(format!("kernel `{name}`: {e}")))?;
        let s = choose(&g);
        let loads = profiles
            .iter()
            .enumerate()
            .map(|(i, p)| LoadPlan {
                pc: p.pc,
                access: p.access,
                hit: p.hit,
                pattern: self
                    .samples
                    .get(&p.pc)
                    .and_then(|s| classify(&s.lanes, s.width)),
                eff: p.eff,
                weight: g.node(i),
                cached: s.cached[i],
            })
            .collect();
        Ok(KernelPlan {
            kernel: name.to_string(),
            loads,
            pair_hits: self.pair_hits.clone(),
            method: s.method_used,
            objective: s.objective,
            note: note_unmeasured(s.note, &unmeasured),
        })
    }
}

/// The selection's note, with a sentence for the loads whose efficiencies nothing measured.
fn note_unmeasured(note: Option<String>, pcs: &[String]) -> Option<String> {
    if pcs.is_empty() {
        return note;
    }
    let s = format!(
        "load(s) {} moved no bytes in the profiling runs: efficiencies taken as 1 (they add no \
         traffic cached or bypassed)",
        pcs.join(", ")
    );
    Some(match note {
        Some(n) => format!("{n}; {s}"),
        None => s,
    })
}

/// [`profile`] with golden runs of the workload `open` opens on `cfg`, under `opts` (its
/// `bypass` rewritten for each profiling run).
pub fn profile_golden(
    cfg: &crate::config::GpuConfig,
    opts: &crate::gpu::SimOptions,
    open: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Profiled, SimError> {
    let samples = sample_loads(open()?.as_mut())?;
    profile(&samples, &mut golden_runs(cfg, opts, open), progress)
}

/// The plan `by` makes for the workload `open` opens on the golden GPU model: the profiling
/// runs, then for [`SelectBy::Empirical`] its runs of every combination ([`empirical`]; a
/// combination the profiling already ran is not run again); `progress(done, total)` after
/// each run (each stage counts from zero).
///
/// [`empirical`]: super::empirical::empirical
pub fn select_golden(
    cfg: &crate::config::GpuConfig,
    opts: &crate::gpu::SimOptions,
    open: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    (by, source): (SelectBy, EffSource),
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Plan, SimError> {
    let samples = sample_loads(open()?.as_mut())?;
    let mut run = memoized(golden_runs(cfg, opts, open));
    let p = profile(&samples, &mut run, progress)?;
    match by {
        SelectBy::Empirical => super::empirical::empirical(&p, source, &mut run, progress),
        _ => p.plan(by, source),
    }
}

/// `run(bypass)`: one golden run of the workload `open` opens with its loads rewritten.
pub fn golden_runs<'a>(
    cfg: &'a crate::config::GpuConfig,
    opts: &'a crate::gpu::SimOptions,
    open: &'a mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
) -> impl FnMut(&Bypass) -> Result<Report, SimError> + 'a {
    move |bypass: &Bypass| {
        let o = crate::gpu::SimOptions {
            bypass: bypass.clone(),
            ..opts.clone()
        };
        let mut gpu = crate::gpu::Gpu::golden(cfg, o)?;
        gpu.run(open()?.as_mut(), &mut |_| {})
    }
}

/// `run`, each distinct `Bypass` run once: a second call with an equal one returns the first
/// run's report (the runs are deterministic, so it is the report a second run would give).
pub fn memoized<'a>(
    mut run: impl FnMut(&Bypass) -> Result<Report, SimError> + 'a,
) -> impl FnMut(&Bypass) -> Result<Report, SimError> + 'a {
    let mut done: Vec<(Bypass, Report)> = vec![];
    move |bypass: &Bypass| {
        if let Some((_, r)) = done.iter().find(|(b, _)| b == bypass) {
            return Ok(r.clone());
        }
        let r = run(bypass)?;
        done.push((bypass.clone(), r.clone()));
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::SimOptions;

    /// A load's counters: `accesses` accesses, `hits` of them hits, 4 useful bytes a lane.
    fn counts(pc: u32, accesses: u64, hits: u64) -> LoadCounts {
        LoadCounts {
            pc,
            warp_instructions: accesses,
            useful_bytes: 128 * accesses,
            accesses,
            hits,
            misses: accesses - hits,
            l2_bytes: 128 * (accesses - hits),
            ..Default::default()
        }
    }

    /// Exact search over more loads than it allows falls back to the heuristic, and the plan
    /// says so (the bad input: the selection is still made, and reported).
    #[test]
    fn exact_over_too_many_loads_falls_back_and_says_so() {
        let n = super::super::EXACT_MAX_LOADS + 1;
        let pcs: Vec<u32> = (0..n as u32).map(|i| 8 * i).collect();
        let alone: Vec<LoadCounts> = pcs
            .iter()
            .map(|&pc| counts(pc, 100, u64::from(pc % 3) * 40))
            .collect();
        let by_pc = |f: &dyn Fn(&LoadCounts) -> LoadCounts| {
            alone
                .iter()
                .map(|c| (c.pc, f(c)))
                .collect::<BTreeMap<_, _>>()
        };
        let k = KernelProfile {
            pcs: pcs.clone(),
            alone: alone.clone(),
            pair_hits: vec![vec![0; n]; n],
            cached: by_pc(&|c| *c),
            bypassed: by_pc(&|c| LoadCounts {
                l2_bytes: 4 * 32 * c.accesses,
                ..*c
            }),
            samples: BTreeMap::new(),
        };
        let exact = k.plan("k", SelectBy::Exact, EffSource::Global).unwrap();
        assert_eq!(exact.method, Method::Heuristic);
        let note = exact.note.clone().expect("a note");
        assert!(note.contains(&format!("{n} loads")), "{note}");
        let heuristic = k.plan("k", SelectBy::Heuristic, EffSource::Global).unwrap();
        assert_eq!(heuristic.note, None);
        let cached = |p: &KernelPlan| p.loads.iter().map(|l| l.cached).collect::<Vec<_>>();
        assert_eq!(cached(&exact), cached(&heuristic));
    }

    /// A load that moved no bytes in the profiling runs (it never ran) gets efficiencies of 1,
    /// and the plan names it, under the oracle source (its own runs) only.
    #[test]
    fn a_load_nothing_measured_is_named_in_the_note() {
        let alone = vec![counts(0, 100, 40), counts(8, 0, 0)];
        let by_pc = |l2: u64| {
            (alone.iter())
                .map(|c| {
                    (
                        c.pc,
                        LoadCounts {
                            l2_bytes: l2 * c.accesses,
                            ..*c
                        },
                    )
                })
                .collect::<BTreeMap<_, _>>()
        };
        let k = KernelProfile {
            pcs: vec![0, 8],
            alone: alone.clone(),
            pair_hits: vec![vec![0; 2]; 2],
            cached: by_pc(128),
            bypassed: by_pc(128),
            samples: BTreeMap::new(),
        };
        let oracle = k.plan("k", SelectBy::Heuristic, EffSource::Oracle).unwrap();
        let note = oracle.note.expect("a note");
        assert!(note.contains("load(s) 0x8 moved no bytes"), "{note}");
        assert_eq!(oracle.loads[1].eff, Efficiency { on: 1.0, off: 1.0 });
        let global = k.plan("k", SelectBy::Heuristic, EffSource::Global).unwrap();
        assert_eq!(global.note, None, "the kernel's bytes measure every load");
    }

    /// On `bypass_mix` (a streaming, a scattered and a reused-table load; spec §2.5) the
    /// framework makes 2 + 3 + 3 runs, caches the table and bypasses the scattered load, the
    /// one whose caching costs traffic (W < 0), under both methods and both efficiency sources.
    #[test]
    fn the_framework_caches_the_reused_table_and_bypasses_the_scattered_load() {
        let cfg = crate::config::GpuConfig::preset("gtx680").unwrap();
        let opts = SimOptions::parse("--warp-sched gto").unwrap();
        let mut open = || Ok(crate::workload::open_named("bypass_mix", "small")?);
        let mut seen = vec![];
        let p = profile_golden(&cfg, &opts, &mut open, &mut |d, t| seen.push((d, t))).unwrap();
        assert_eq!(p.runs, 8);
        assert_eq!(seen.last(), Some(&(8, 8)));
        for by in [SelectBy::Heuristic, SelectBy::Exact] {
            for source in [EffSource::Global, EffSource::Oracle] {
                let plan = p.plan(by, source).unwrap();
                let k = &plan.kernels[0];
                let (stream, scattered, table) = (&k.loads[0], &k.loads[1], &k.loads[2]);
                assert!(!scattered.cached && scattered.weight < 0.0, "{k:?}");
                assert!(table.cached && table.weight > 0.0, "{k:?}");
                // The unit-stride stream is read once: caching it saves nothing (B-R5).
                assert!(stream.weight <= 0.0 && !stream.cached, "{k:?}");
                assert_eq!(
                    plan.bypass(),
                    Bypass::Cached(Arc::new(BTreeMap::from([(
                        k.kernel.clone(),
                        BTreeSet::from([table.pc])
                    )])))
                );
            }
        }
    }
}
