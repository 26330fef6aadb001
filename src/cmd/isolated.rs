//! ANTT and STP of a mix (`gpusched sim --mix FILE --isolated [DIR]`): every kernel of the mix
//! also runs alone, on the same GPU under the same policies (through the sweep engine, so each
//! isolated run is simulated once and cached in `DIR`); beside its turnaround in the shared run
//! (arrival to end) that gives its normalized turnaround time NTT = turnaround / cycles alone,
//! the mix's average ANTT = mean NTT and its system throughput STP = sum of 1 / NTT (Eyerman
//! and Eeckhout, IEEE Micro 2008, as the Chimera and GPU Maestro chapters use them).

use super::sim::RunArgs;
use anyhow::{anyhow, Result};
use gpusim::gpu::Report;
use gpusim::policy::{self, SiteKind};
use gpusim::workload::mix::{Alone, Mix};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One kernel of the mix beside its isolated run.
#[derive(Clone, Debug, Serialize)]
pub struct IsolatedKernel {
    /// Its launch index in the shared run.
    pub launch: usize,
    /// Kernel name.
    pub name: String,
    /// Cycles it takes alone.
    pub isolated_cycles: u64,
    /// Cycles from its arrival to its end in the shared run.
    pub turnaround: u64,
    /// Normalized turnaround time: turnaround / isolated cycles.
    pub ntt: f64,
}

/// The mix's figures against its kernels' isolated runs.
#[derive(Clone, Debug, Serialize)]
pub struct Isolated {
    /// Average normalized turnaround time (1 when every kernel runs as fast as alone).
    pub antt: f64,
    /// System throughput: the sum of 1 / NTT (the number of kernels when none slows down).
    pub stp: f64,
    /// Per kernel that finished, in launch order.
    pub kernels: Vec<IsolatedKernel>,
    /// Where the isolated runs are cached.
    pub cache: PathBuf,
}

/// The `gpusched sim` options of `run` without the kernel scheduler's (an isolated run is one
/// kernel alone).
fn alone_args(run: &RunArgs) -> String {
    let sched: Vec<&str> = policy::registry()
        .into_iter()
        .filter(|e| e.site == SiteKind::KernelSched)
        .flat_map(|e| e.options.iter().map(|o| o.name))
        .chain([SiteKind::KernelSched.flag()])
        .collect();
    let v = &run.policies.values;
    let mut args = vec![];
    for name in v.names().filter(|n| !sched.contains(n)) {
        match (policy::option_spec(name), v.given(name)) {
            (Some(s), Some("true")) if s.is_flag() => args.push(format!("--{name}")),
            (_, Some(val)) => args.push(format!("--{name} {val}")),
            _ => {}
        }
    }
    args.join(" ")
}

/// Runs every kernel of the mix at `mix` alone (cached in `cache`, `jobs` at a time) and sets
/// the shared run `report` beside them.
pub fn measure(
    mix: &Path,
    run: &RunArgs,
    report: &Report,
    cache: &Path,
    jobs: usize,
) -> Result<Isolated> {
    let alone = Mix::open(mix)?.alone().to_vec();
    let args = alone_args(run);
    let policies = [("alone", args.as_str())];
    // The workloads to run alone, per size (traces with the first size).
    let mut by_size: BTreeMap<String, Vec<(String, Option<PathBuf>)>> = BTreeMap::new();
    for a in &alone {
        let (size, w) = match a {
            Alone::Named { name, size } => (size.clone(), (name.clone(), None)),
            Alone::Trace { dir, .. } => (
                "small".to_string(),
                (dir.display().to_string(), Some(dir.clone())),
            ),
        };
        let list = by_size.entry(size).or_default();
        if !list.contains(&w) {
            list.push(w);
        }
    }
    std::fs::create_dir_all(cache)?;
    // Per workload (name or trace directory): its kernels' cycles alone.
    let mut cycles: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for (size, workloads) in &by_size {
        let table = super::repro::run_reports(
            &format!("alone-{size}"),
            &policies,
            &run.config,
            workloads,
            size,
            jobs,
            cache,
        )?;
        for ((name, dir), reports) in workloads.iter().zip(table) {
            let r = &reports[0];
            let ks = r["kernels"]
                .as_array()
                .ok_or_else(|| anyhow!("{name}: an isolated run without kernels"))?;
            let c = ks
                .iter()
                .map(|k| k["cycles"].as_u64().unwrap_or(0))
                .collect();
            let key = match dir {
                Some(_) => ("trace".to_string(), name.clone()),
                None => (size.clone(), name.clone()),
            };
            cycles.insert(key, c);
        }
    }
    let mut kernels = vec![];
    for k in report.kernels.iter().filter(|k| !k.truncated) {
        let (key, idx) = match &alone[k.spec] {
            Alone::Named { name, size } => ((size.clone(), name.clone()), 0),
            Alone::Trace { dir, kernel } => {
                (("trace".to_string(), dir.display().to_string()), *kernel)
            }
        };
        let isolated_cycles = cycles
            .get(&key)
            .and_then(|c| c.get(idx).copied())
            .filter(|&c| c > 0)
            .ok_or_else(|| anyhow!("kernel {} ({}) has no isolated run", k.launch, k.name))?;
        kernels.push(IsolatedKernel {
            launch: k.launch,
            name: k.name.clone(),
            isolated_cycles,
            turnaround: k.turnaround,
            ntt: k.turnaround as f64 / isolated_cycles as f64,
        });
    }
    let n = kernels.len().max(1) as f64;
    Ok(Isolated {
        antt: kernels.iter().map(|k| k.ntt).sum::<f64>() / n,
        stp: kernels.iter().map(|k| 1.0 / k.ntt).sum(),
        kernels,
        cache: cache.to_path_buf(),
    })
}
