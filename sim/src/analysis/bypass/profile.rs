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
use super::select::{select, Method};
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
    /// Profiling runs made.
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

/// The cache-all and bypass-all runs' counters of one kernel's loads.
struct Baselines<'a> {
    cached: &'a BTreeMap<u32, LoadCounts>,
    bypassed: &'a BTreeMap<u32, LoadCounts>,
}

impl Baselines<'_> {
    /// The efficiencies of load `pc` (`sample`: its lanes) under `source`.
    fn efficiency(&self, pc: u32, sample: Option<&LaneSample>, source: EffSource) -> Efficiency {
        let pattern = sample.and_then(|s| classify(&s.lanes, s.width));
        if let (EffSource::Global, Some(p), Some(s)) = (source, pattern, sample) {
            return Efficiency::of_pattern(p, s.width, s.width);
        }
        let pick = |m: &BTreeMap<u32, LoadCounts>| -> Vec<LoadCounts> {
            match source {
                EffSource::Oracle => m.get(&pc).copied().into_iter().collect(),
                EffSource::Global => m.values().copied().collect(),
            }
        };
        let (on, off) = (pick(self.cached), pick(self.bypassed));
        let sum = |v: &[LoadCounts], f: fn(&LoadCounts) -> u64| v.iter().map(f).sum::<u64>();
        Efficiency::measured(
            sum(&on, |l| l.useful_bytes),
            sum(&on, |l| l.accesses * L1_BLOCK_BYTES as u64),
            sum(&off, |l| l.useful_bytes),
            sum(&off, |l| l.l2_bytes),
        )
        .unwrap_or(Efficiency { on: 1.0, off: 1.0 })
    }
}

/// The plan of `by` for every kernel of the workload `run` runs (`run(bypass)`: one
/// profiling run with the loads' operators rewritten), with efficiencies from `source` and
/// the loads' lanes `samples`; `progress(done, total)` after each run.
pub fn plan(
    by: SelectBy,
    source: EffSource,
    samples: &Samples,
    run: &mut dyn FnMut(&Bypass) -> Result<Report, SimError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Plan, SimError> {
    let all = loads_by_kernel(&run(&Bypass::All)?);
    let none = loads_by_kernel(&run(&Bypass::None)?);
    let total = 2 + all
        .values()
        .map(|m| m.len() + m.len() * m.len().saturating_sub(1) / 2)
        .sum::<usize>();
    let mut runs = 2;
    progress(runs, total);
    let mut kernels = vec![];
    for (name, bypassed) in &all {
        let pcs: Vec<u32> = bypassed.keys().copied().collect();
        let mut cached_run = |cached: &[u32]| -> Result<BTreeMap<u32, LoadCounts>, SimError> {
            let set: BTreeSet<u32> = cached.iter().copied().collect();
            let b = Bypass::Cached(Arc::new(BTreeMap::from([(name.clone(), set)])));
            let r = loads_by_kernel(&run(&b)?);
            runs += 1;
            progress(runs, total);
            Ok(r.get(name).cloned().unwrap_or_default())
        };
        let (alone, pair_hits) = profile_kernel(&pcs, &mut cached_run)?;
        let base = Baselines {
            cached: none.get(name).unwrap_or(bypassed),
            bypassed,
        };
        let sample = samples.get(name);
        kernels.push(kernel_plan(
            name, &pcs, &alone, pair_hits, &base, sample, source, by,
        )?);
    }
    Ok(Plan { kernels, runs })
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

/// The graph and the selection of one kernel.
#[allow(clippy::too_many_arguments)]
fn kernel_plan(
    name: &str,
    pcs: &[u32],
    alone: &[LoadCounts],
    pair_hits: Vec<Vec<u64>>,
    base: &Baselines,
    sample: Option<&BTreeMap<u32, LaneSample>>,
    source: EffSource,
    by: SelectBy,
) -> Result<KernelPlan, SimError> {
    let profiles: Vec<LoadProfile> = pcs
        .iter()
        .zip(alone)
        .map(|(&pc, c)| LoadProfile {
            pc,
            access: c.accesses,
            hit: c.l1_hits().min(c.accesses),
            eff: base.efficiency(pc, sample.and_then(|s| s.get(&pc)), source),
        })
        .collect();
    let g = TrafficGraph::build(&profiles, &pair_hits)
        .map_err(|e| SimError::Config(format!("kernel `{name}`: {e}")))?;
    let method = match by {
        SelectBy::Exact => Method::Exact,
        SelectBy::Heuristic => Method::Heuristic,
    };
    let s = select(&g, method);
    let loads = profiles
        .iter()
        .enumerate()
        .map(|(i, p)| LoadPlan {
            pc: p.pc,
            access: p.access,
            hit: p.hit,
            pattern: sample
                .and_then(|m| m.get(&p.pc))
                .and_then(|s| classify(&s.lanes, s.width)),
            eff: p.eff,
            weight: g.node(i),
            cached: s.cached[i],
        })
        .collect();
    Ok(KernelPlan {
        kernel: name.to_string(),
        loads,
        pair_hits,
        method: s.method_used,
        objective: s.objective,
        note: s.note,
    })
}

/// [`plan`] with golden runs of the workload `open` opens on `cfg`, under `opts` (its
/// `bypass` rewritten for each profiling run).
pub fn plan_golden(
    cfg: &crate::config::GpuConfig,
    opts: &crate::gpu::SimOptions,
    (by, source): (SelectBy, EffSource),
    open: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Plan, SimError> {
    let samples = sample_loads(open()?.as_mut())?;
    let mut run = |bypass: &Bypass| -> Result<Report, SimError> {
        let o = crate::gpu::SimOptions {
            bypass: bypass.clone(),
            ..opts.clone()
        };
        let mut gpu = crate::gpu::Gpu::golden(cfg, o)?;
        gpu.run(open()?.as_mut(), &mut |_| {})
    };
    plan(by, source, &samples, &mut run, progress)
}
