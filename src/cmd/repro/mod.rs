//! `gpusched repro elf`: the thesis's ELF experiment (seed 003 ch. III, spec §3.5) on our
//! golden GPU model: GTO, two-level, GTO + NewCAR, GTO + I-prefetch, ELF and ELF++ (with the
//! thesis's recalculation rule and merge boundary, and ELF++ with the spec's consistent rule
//! and with the spec's `>=` boundary beside it), every
//! one with ELF's paired issue so ELF changes only the priority order (L391, L512), and GTO
//! with GPGPU-Sim's sequential issue for reference, over the workload suite and the real
//! traces; a table of IPC speedups over GTO with geometric means, L1D/L1I miss rates and L1D
//! reservation failures, written as Markdown, JSON and an SVG bar chart with the thesis's
//! figures beside ours.

mod bypass;
pub(crate) mod chart;
mod chimera;
mod elf;
mod files;
mod locality;
mod maestro;
mod mixes;
pub mod paver;
mod paws;
mod pool;
#[cfg(test)]
pub(crate) mod rendered;
mod side_by_side;
mod table;

use super::sweep::spec::Spec;
use super::sweep::{results as sweep_results, run_spec};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use gpusim::gpu::SimOptions;
use serde::Serialize;
use side_by_side::ATTRIBUTION;
use std::path::PathBuf;
use std::process::ExitCode;

/// Experiments `repro` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Experiment {
    /// ELF, NewCAR and I-prefetch vs GTO and two-level (seed 003, chapter III).
    Elf,
    /// Locality-aware thread-block dispatch and warp scheduling vs RR and BCS (seed 000).
    Locality,
    /// Chimera's preemption vs switch-only, drain-only and flush-only under a periodic
    /// high-priority task, and over pairs of kernels (seed 003, chapter IV).
    Chimera,
    /// GPU Maestro's partitioning, 2-way allocation and kernel-aware warp scheduling vs the
    /// Spatial and SMK baselines over pairs of kernels, and fragmentation over time (seed 003,
    /// chapter V).
    Maestro,
    /// PAVER's MST-TS, kway-TS and RB-TS, with and without task stealing, vs LRR and BCS over
    /// the suite's mirrors of the paper's benchmarks (seed 004; `--config titanx|titanv` for
    /// its Pascal and Volta figures).
    Paver,
    /// Per-load L1D bypassing: bypass-all, cache-all, the heuristic's and the exact optimum's
    /// loads at 16, 32 and 48 kB of L1D (seed 001, on the `gtx680` preset).
    Bypass,
    /// Phase-Aware Warp Scheduling vs LRR and GTO over the report's benchmarks and two
    /// phase-structured kernels (seed 002), on gtx480-3.2.2 and gtx480.
    Paws,
}

/// Arguments of `gpusched repro`.
#[derive(Args)]
pub struct ReproArgs {
    /// The experiment.
    #[arg(value_enum)]
    experiment: Experiment,
    /// Size of the suite kernels: small, medium, large (default: medium for elf; large for
    /// locality, maestro and paver, whose effects need several waves of thread blocks; small
    /// for chimera); locality also `paper`: the thesis's inputs, every launch (the benchmarks
    /// with a `paper` size: `gpusched workloads --size paper`); elf also `elf`: the ELF paper's
    /// benchmarks at their run scripts' inputs (`gpusched workloads --size elf`); paver also
    /// `paver`: PAVER's Table 2 benchmarks at its thread blocks per kernel (`gpusched workloads
    /// --size paver`); paws also `elf` (Rodinia's run-script inputs: the report names its
    /// benchmarks but no inputs). Workloads without the size are left out and named on the
    /// page.
    #[arg(long)]
    size: Option<String>,
    /// GPU configuration, preset or file (default: elf, locality, chimera and paws run on two
    /// presets side by side, gtx480-3.2.2, the GPGPU-Sim release their papers ran on (PAWS's
    /// report: 3.x), and gtx480, the Accel-Sim-calibrated one; maestro on gtx980-3.2.2 and
    /// gtx980, the thesis's GPU; bypass on gtx680, its paper's GPU; paver on gtx480, as its
    /// paper on GPGPU-Sim 4.x; ELF serves at most 4 schedulers per SM).
    #[arg(long)]
    config: Option<String>,
    /// elf, locality, chimera, maestro, paws: also run the headline configurations on the
    /// paper's preset with each mechanism in which it differs from the calibrated preset
    /// switched to the calibrated one's, one at a time, and say per headline figure what moves
    /// it (on the two default presets: not with --config).
    #[arg(long)]
    attribute: bool,
    /// With --attribute: switch only these mechanisms (comma-separated names of
    /// `sim/src/config/mechanisms.rs`, e.g. `l1d-set-index,l2-sectors`; default: every one in
    /// which the presets differ), to attribute one figure at the papers' sizes for a fraction of
    /// the runs.
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        requires = "attribute"
    )]
    mechanisms: Vec<String>,
    /// elf, locality: only the columns the paper gives a figure for (the headline
    /// comparisons), without the variants and sensitivity runs: about half the time, for the
    /// papers' sizes above all.
    #[arg(long)]
    headline: bool,
    /// Directory for <experiment>.md, .json and .svg (default: repro-<experiment>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Real traces to add (each subdirectory with a kernelslist.g; skipped when absent).
    #[arg(long, value_name = "DIR", default_value_os_t = crate::cmd::default_traces())]
    traces: PathBuf,
    /// Only these workloads (comma-separated; default: the whole suite).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    only: Vec<String>,
    /// Parallel simulations (default: the machine's cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Print the JSON document instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// Chimera: the periodic task's preemption latency limit, cycles (default 21000, the
    /// thesis's 15 us at 1.4 GHz; the pairs take twice it, the thesis's 30 us).
    #[arg(long, value_name = "CYCLES", value_parser = clap::value_parser!(u32).range(1..))]
    lat_limit: Option<u32>,
    /// Chimera: where the preemption plans come from (`--selector` of Chimera's schedulers:
    /// block, each SM's chimera_tb a pass after the request; software, at once).
    #[arg(long, value_name = "FROM", value_parser = ["block", "software"], default_value = "block")]
    selector: String,
    /// Chimera: a drained block's estimated overhead (`--drain-overhead` of Chimera's
    /// schedulers: literal, I_max - I_t; slot-idle, I_t - I_min).
    #[arg(long, value_name = "FORMULA", value_parser = ["literal", "slot-idle"], default_value = "literal")]
    drain_overhead: String,
}

impl ReproArgs {
    /// The GPU configuration named (the experiment's default when none is).
    fn config(&self) -> &str {
        match (&self.config, self.experiment) {
            (Some(c), _) => c,
            (None, Experiment::Maestro) => "gtx980",
            (None, _) => "gtx480",
        }
    }

    /// The GPU configurations the experiment runs on, the paper's simulator first: the one
    /// named, or the experiment's presets.
    fn configs(&self) -> Vec<&str> {
        match (&self.config, self.experiment) {
            (
                None,
                Experiment::Elf | Experiment::Locality | Experiment::Chimera | Experiment::Paws,
            ) => {
                vec!["gtx480-3.2.2", "gtx480"]
            }
            (None, Experiment::Maestro) => vec!["gtx980-3.2.2", "gtx980"],
            _ => vec![self.config()],
        }
    }
}

/// Runs an experiment through `measure` on the configurations `a` names: one configuration's
/// outputs as `<name>.{md,json,svg}`, or several side by side ([`side_by_side::run`]; the
/// first, the paper's, described by `simulator`).
fn run_configs(
    a: &ReproArgs,
    (name, simulator): (&'static str, &'static str),
    (title, size): (&str, &str),
    out: &std::path::Path,
    measure: &side_by_side::Measure<'_>,
) -> Result<ExitCode> {
    let configs = a.configs();
    if configs.len() == 1 {
        let m = measure(&configs, false, name)?.remove(0);
        m.write(out, name)?;
        let (md, json, _) = m.outputs.as_ref().expect("a full run has outputs");
        match a.json {
            true => outln!("{json}"),
            false => {
                out!("{md}");
                outln!(
                    "\nwrote {}/{name}.md, {name}.json, {name}.svg",
                    out.display()
                );
            }
        }
    } else {
        let attribute = a.attribute.then_some(&a.mechanisms[..]);
        let doc = side_by_side::run(
            (name, simulator),
            (title, size),
            &configs,
            attribute,
            out,
            measure,
        )?;
        let md = side_by_side::markdown(&doc, title);
        match a.json {
            true => outln!("{}", serde_json::to_string_pretty(&doc)?),
            false => outln!(
                "{md}\nwrote {}/{name}.md, .json, .svg and {name}-<config>.md, .json, .svg per configuration",
                out.display()
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One scheduling configuration of the experiment.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// Short name (`gto`, `elf++`, ...).
    pub name: &'static str,
    /// What it is.
    pub label: &'static str,
    /// The thesis's speedup over GTO (geometric mean, spec §3.5), when it reports one.
    pub thesis: Option<f64>,
    /// Issue mode: `sequential` (scheduler by scheduler) or `paired` (every ready mask first).
    pub issue: &'static str,
    /// Fetch order: `round_robin` or `elf`.
    pub fetch: &'static str,
    /// ELF's recalculation rule (`-` without ELF).
    pub recalc: &'static str,
    /// ELF's merged-load boundary: `>` (the thesis's) or `>=` (spec A-6); `-` without ELF.
    pub merge: &'static str,
    /// The `gpusched sim` options of the column (the sweep's policy; in `elf.sweep.toml`, not
    /// in the JSON, which stays as it was before the sweep engine ran the experiment).
    #[serde(skip)]
    pub args: &'static str,
}

/// The experiment's configurations, baseline (GTO) first.
pub fn columns() -> Vec<Column> {
    // Every column issues paired (ELF's mode: the schedulers' warps scanned before any grant,
    // unit slots taken in grant order), so ELF is compared like for like; GTO with GPGPU-Sim's
    // sequential issue is the last column, for reference. `recalc` and `merge` name ELF's
    // compiler rule and merge boundary (`-` without ELF).
    let col = |name, label, thesis, args, recalc, merge| {
        let opts = SimOptions::parse(args).expect("the columns' options parse");
        Column {
            name,
            label,
            thesis,
            args,
            issue: opts.plan.warp_issue.mode().name(),
            fetch: opts.plan.warp_issue.fetch_order(),
            recalc,
            merge,
        }
    };
    vec![
        col(
            "gto",
            "GTO (baseline)",
            Some(0.0),
            "--warp-sched gto --paired-issue",
            "-",
            "-",
        ),
        col(
            "two_level",
            "2-LV",
            Some(-3.2),
            "--warp-sched two-level --paired-issue",
            "-",
            "-",
        ),
        col(
            "newcar",
            "NewCAR",
            Some(2.5),
            "--warp-sched gto --paired-issue --newcar",
            "-",
            "-",
        ),
        col(
            "iprefetch",
            "I-prefetch",
            Some(4.9),
            "--warp-sched gto --paired-issue --iprefetch 16",
            "-",
            "-",
        ),
        col("elf", "ELF", Some(4.1), "--warp-sched elf", "literal", ">"),
        col(
            "elf++",
            "ELF++",
            Some(11.9),
            "--warp-sched elf++",
            "literal",
            ">",
        ),
        col(
            "elf++_consistent",
            "ELF++, consistent recalc (spec A-2)",
            None,
            "--warp-sched elf++ --elf-recalc consistent",
            "consistent",
            ">",
        ),
        col(
            "elf++_merge_ge",
            "ELF++, merge boundary >= (spec A-6)",
            None,
            "--warp-sched elf++ --elf-merge ge",
            "literal",
            ">=",
        ),
        col(
            "gto_sequential",
            "GTO, sequential issue (GPGPU-Sim's)",
            None,
            "--warp-sched gto",
            "-",
            "-",
        ),
    ]
}

/// One simulation's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Core cycles.
    pub cycles: u64,
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// IPC over GTO's on the same workload.
    pub speedup: f64,
    /// L1D read miss rate (misses / reads).
    pub l1d_miss_rate: f64,
    /// L1I miss rate (misses / reads).
    pub l1i_miss_rate: f64,
    /// L1D reservation failures (MSHR, miss queue, merge limit, reserved set), each retry
    /// counted.
    pub l1d_fails: u64,
    /// Cycles the LSU could not hand a transaction on (L1D refused, or NewCAR full).
    pub lsu_blocked: u64,
    /// DRAM bytes per core cycle (data the run used: a 32 B sector read counts 32 B).
    pub dram_bytes_per_cycle: f64,
    /// DRAM column bursts (reads and writes) per core cycle: the data bus's load.
    pub dram_bursts_per_cycle: f64,
}

/// One workload's row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Workload name (suite kernel, or trace directory).
    pub workload: String,
    /// Memory-intensive: under GTO its bursts take at least a quarter of the DRAM peak (the
    /// data bus busy a quarter of the time, whether a burst's bytes are all used or not).
    pub memory_intensive: bool,
    /// Waves of thread blocks under GTO ([`waves`]); below [`MIN_WAVES`] flagged.
    pub waves: f64,
    /// One cell per column, in [`columns`] order.
    pub cells: Vec<Cell>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Experiment name.
    pub experiment: &'static str,
    /// GPU configuration.
    pub config: String,
    /// Suite size.
    pub size: String,
    /// DRAM peak, bytes per core cycle (the memory-intensive threshold is a quarter of it).
    pub dram_peak_bytes_per_cycle: f64,
    /// The configurations.
    pub columns: Vec<Column>,
    /// Per workload.
    pub rows: Vec<Row>,
    /// Geometric-mean speedup over GTO per column, over all workloads.
    pub geomean: Vec<f64>,
    /// The same over the memory-intensive workloads.
    pub geomean_memory: Vec<f64>,
    /// Workloads on which some configuration gains more than [`OUTLIER_GAIN`] or loses more
    /// than [`OUTLIER_LOSS`], each with the geometric means without it.
    pub outliers: Vec<Outlier>,
    /// Geometric means over all workloads but the outliers.
    pub geomean_without_outliers: Vec<f64>,
    /// Workloads left out because they have no workload at this size (at a paper's size, those
    /// the paper did not run or the suite does not mirror yet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

/// At a paper's size (`paper`, `elf`, `paver`), removes the workloads without it from
/// `workloads` (real traces included) and returns their names; an error when none is left.
pub fn without_size(
    workloads: &mut Vec<(String, Option<PathBuf>)>,
    size: &str,
) -> Result<Vec<String>> {
    let out = without_size_where(workloads, size, |w, table| {
        w.1.is_none() && table.find(&w.0).is_some()
    })?;
    Ok(out.into_iter().map(|w| w.0).collect())
}

/// [`without_size`] for any list: at a paper's size, removes from `workloads` those `keeps`
/// does not keep (given the size's table) and returns them; an error when none is left.
pub fn without_size_where<T>(
    workloads: &mut Vec<T>,
    size: &str,
    keeps: impl Fn(&T, &gpusim::workload::synth::paper::PaperSize) -> bool,
) -> Result<Vec<T>> {
    let Some(table) = gpusim::workload::synth::paper::size(size) else {
        return Ok(vec![]);
    };
    let (keep, out): (Vec<_>, Vec<_>) = std::mem::take(workloads)
        .into_iter()
        .partition(|w| keeps(w, table));
    if keep.is_empty() {
        anyhow::bail!(
            "none of these workloads has a `{size}` size; those with one: {}",
            table.names().join(", ")
        );
    }
    *workloads = keep;
    Ok(out)
}

/// A speedup above this makes a workload an outlier (+50%).
pub const OUTLIER_GAIN: f64 = 1.5;
/// A speedup below this makes a workload an outlier (-30%).
pub const OUTLIER_LOSS: f64 = 0.7;

/// A workload that carries the geometric means.
#[derive(Clone, Debug, Serialize)]
pub struct Outlier {
    /// Workload name.
    pub workload: String,
    /// Geometric-mean speedup per column over all workloads but this one.
    pub geomean_without: Vec<f64>,
}

fn rate(misses: u64, reads: u64) -> f64 {
    if reads == 0 {
        0.0
    } else {
        misses as f64 / reads as f64
    }
}

/// The figures of one run from its report (`gpusched sim --json`).
/// Counter `path` (`l1d.misses`) of a run's report (`gpusched sim --json`).
fn counter(r: &serde_json::Value, path: &str) -> Result<u64> {
    path.split('.')
        .try_fold(r, |v, k| v.get(k))
        .and_then(|v| v.as_u64())
        .ok_or_else(|| anyhow::anyhow!("a report without `{path}`"))
}

/// Reads of cache `k` (`l1d`, `l1i`) in a run's report: hits, hits on reserved lines, misses.
fn reads(r: &serde_json::Value, k: &str) -> Result<u64> {
    Ok(counter(r, &format!("{k}.hits"))?
        + counter(r, &format!("{k}.hit_reserved"))?
        + counter(r, &format!("{k}.misses"))?)
}

fn cell(r: &serde_json::Value) -> Result<Cell> {
    let n = |path: &str| counter(r, path);
    let cycles = n("cycles")?;
    Ok(Cell {
        cycles,
        ipc: r["ipc"]
            .as_f64()
            .ok_or_else(|| anyhow::anyhow!("a report without `ipc`"))?,
        speedup: 0.0,
        l1d_miss_rate: rate(n("l1d.misses")?, reads(r, "l1d")?),
        l1i_miss_rate: rate(n("l1i.misses")?, reads(r, "l1i")?),
        l1d_fails: n("l1d.fails")?,
        lsu_blocked: n("stalls.lsu_blocked")?,
        dram_bytes_per_cycle: n("dram.bytes")? as f64 / cycles.max(1) as f64,
        dram_bursts_per_cycle: (n("dram.reads")? + n("dram.writes")?) as f64 / cycles.max(1) as f64,
    })
}

/// Waves of thread blocks a dispatch experiment needs at least for the order to matter (the
/// locality spec's "at least 4 waves", §1.5).
pub const MIN_WAVES: f64 = 4.0;

/// `*` when `waves` is below [`MIN_WAVES`], else nothing.
fn waves_flag(waves: f64) -> &'static str {
    if waves < MIN_WAVES {
        "*"
    } else {
        ""
    }
}

/// A table cell for `waves`: one decimal, `*` when below [`MIN_WAVES`].
pub fn waves_cell(waves: f64) -> String {
    format!("{waves:.1}{}", waves_flag(waves))
}

/// A chart's label for a workload of `waves`: ` *` appended when below [`MIN_WAVES`].
pub fn waves_label(label: String, waves: f64) -> String {
    match waves_flag(waves) {
        "" => label,
        flag => format!("{label} {flag}"),
    }
}

/// The footnote to a table of [`waves_cell`]s: the workloads (name, waves) below [`MIN_WAVES`]
/// and `why` that matters; `None` when there are none.
pub fn few_waves_note<'a>(rows: impl Iterator<Item = (&'a str, f64)>, why: &str) -> Option<String> {
    let few: Vec<&str> = rows
        .filter(|(_, w)| *w < MIN_WAVES)
        .map(|(n, _)| n)
        .collect();
    (!few.is_empty()).then(|| {
        format!(
            "\\* Fewer than {MIN_WAVES} waves of thread blocks ({why}): {}.",
            few.join(", ")
        )
    })
}

/// Waves of thread blocks in a run (its report, `gpusched sim --json`): per kernel, its blocks
/// over what the GPU holds at once (blocks per SM at its occupancy times the SMs); over several
/// kernels, their mean weighted by blocks (a launch sequence of one-wave kernels is one wave:
/// each launch's dispatch order is all that can matter).
pub fn waves(r: &serde_json::Value) -> Result<f64> {
    let sms = r["sms"].as_array().map_or(0, Vec::len).max(1) as f64;
    let kernels = r["kernels"]
        .as_array()
        .ok_or_else(|| anyhow::anyhow!("a report without `kernels`"))?;
    let (mut weighted, mut blocks) = (0.0, 0.0);
    for k in kernels {
        let held = k["occupancy"]["blocks"].as_u64().unwrap_or(1).max(1) as f64 * sms;
        let b = k["blocks"].as_u64().unwrap_or(0) as f64;
        weighted += b * b / held;
        blocks += b;
    }
    Ok(if blocks > 0.0 { weighted / blocks } else { 0.0 })
}

/// Geometric mean of `xs` (1.0 when empty).
pub fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for x in xs {
        sum += x.ln();
        n += 1;
    }
    if n == 0 {
        1.0
    } else {
        (sum / n as f64).exp()
    }
}

/// The experiment `name` as a sweep spec: every workload (suite names, trace directories made
/// absolute) under every policy `(name, gpusched sim options)` on `config` (a file made
/// absolute), at `size`.
fn spec_text(
    name: &str,
    policies: &[(&str, &str)],
    configs: &[&str],
    workloads: &[(String, Option<PathBuf>)],
    size: &str,
) -> Result<String> {
    let mut resolved = vec![];
    for &config in configs {
        resolved.push(if gpusim::config::GpuConfig::preset(config).is_ok() {
            config.to_string()
        } else {
            std::fs::canonicalize(config)
                .with_context(|| format!("--config {config}"))?
                .display()
                .to_string()
        });
    }
    let mut names = vec![];
    for (n, dir) in workloads {
        names.push(match dir {
            Some(d) => format!(
                "trace:{}",
                std::fs::canonicalize(d)
                    .with_context(|| format!("{}", d.display()))?
                    .display()
            ),
            None => n.clone(),
        });
    }
    // TOML strings (paths may hold any character).
    let q = |x: &str| toml::Value::String(x.to_string()).to_string();
    let quoted = |xs: &[String]| xs.iter().map(|x| q(x)).collect::<Vec<_>>().join(", ");
    let mut t = format!(
        "# gpusched repro {name} as a sweep (`gpusched sweep run` runs it too)\n[sweep]\nname = \"repro-{name}\"\nworkloads = [{}]\nsizes = [{}]\nconfigs = [{}]\nmetrics = [\"cycles\", \"ipc\"]\n",
        quoted(&names),
        q(size),
        quoted(&resolved)
    );
    for (n, args) in policies {
        t.push_str(&format!(
            "\n[[policy]]\nname = {}\nargs = {}\n",
            q(n),
            q(args)
        ));
    }
    Ok(t)
}

/// Runs experiment `name` through the sweep engine (results cached in `out/sweep`, so a second
/// run simulates nothing), `jobs` simulations at a time: per workload, one report
/// (`gpusched sim --json`) per policy. Deterministic: the same inputs give the same results
/// whatever `jobs` is.
pub(crate) fn run_reports(
    name: &str,
    policies: &[(&str, &str)],
    config: &str,
    workloads: &[(String, Option<PathBuf>)],
    size: &str,
    jobs: usize,
    out: &std::path::Path,
) -> Result<Vec<Vec<serde_json::Value>>> {
    let mut tables = run_reports_on(name, policies, &[config], workloads, size, jobs, out)?;
    Ok(tables.remove(0))
}

/// [`run_reports`] on each of `configs` in one sweep (`out/<name>.sweep.toml`, results in
/// `out/sweep`, or `out/sweep-attribution` for a `name` ending in [`ATTRIBUTION`]): per
/// configuration, per workload, one report per policy.
pub(crate) fn run_reports_on(
    name: &str,
    policies: &[(&str, &str)],
    configs: &[&str],
    workloads: &[(String, Option<PathBuf>)],
    size: &str,
    jobs: usize,
    out: &std::path::Path,
) -> Result<Vec<Vec<Vec<serde_json::Value>>>> {
    let text = spec_text(name, policies, configs, workloads, size)?;
    let spec_path = out.join(format!("{name}.sweep.toml"));
    std::fs::write(&spec_path, &text)
        .with_context(|| format!("writing {}", spec_path.display()))?;
    let spec = Spec::parse(&text, &spec_path)?;
    let dir = match name.ends_with(ATTRIBUTION) {
        true => out.join(format!("sweep{ATTRIBUTION}")),
        false => out.join("sweep"),
    };
    // The directory is this experiment's own: a different size or workload list replaces the
    // manifest (results are keyed by content, so none is taken for another's).
    let how = super::sweep::Policy {
        force: true,
        retry_failed: false,
    };
    run_spec(&spec, &dir, jobs, (0, 1), how)?;
    let (_, results) = sweep_results(&dir)?;
    // Points run workload by workload, each on every configuration under every policy.
    let (ncols, ncfg) = (policies.len(), configs.len());
    let mut tables = vec![vec![vec![]; workloads.len()]; ncfg];
    for (p, r) in spec.points.iter().zip(results) {
        let r = r.ok_or_else(|| anyhow::anyhow!("point {} has no result", p.index))?;
        let (w, c) = (p.index / (ncols * ncfg), p.index / ncols % ncfg);
        match (&r.report, &r.error) {
            (Some(rep), _) => tables[c][w].push(rep.clone()),
            (None, e) => bail!(
                "{} under {}: {}",
                p.workload.name(),
                p.policy.name,
                e.clone().unwrap_or_default()
            ),
        }
    }
    Ok(tables)
}

/// Keeps the items of `items` whose name (`name_of`) `--only` names (all when `only` is
/// empty), in their order; an unknown name is an error naming `what` it should be (`workload`,
/// `benchmark`) and listing the known ones.
pub(crate) fn keep_only<T>(
    items: &mut Vec<T>,
    name_of: fn(&T) -> &str,
    only: &[String],
    what: &str,
) -> Result<()> {
    if only.is_empty() {
        return Ok(());
    }
    for o in only {
        if !items.iter().any(|i| name_of(i) == o) {
            let known: Vec<&str> = items.iter().map(name_of).collect();
            bail!("--only: unknown {what} `{o}`; known: {}", known.join(", "));
        }
    }
    items.retain(|i| only.iter().any(|o| o == name_of(i)));
    Ok(())
}

/// Runs `repro`.
pub fn run(a: ReproArgs) -> Result<ExitCode> {
    let size = a.size.clone().unwrap_or_else(|| {
        match a.experiment {
            Experiment::Elf => "medium",
            Experiment::Locality => "large",
            Experiment::Chimera => "small",
            Experiment::Maestro => "large",
            Experiment::Paver => "large",
            Experiment::Bypass => "medium",
            Experiment::Paws => "medium",
        }
        .to_string()
    });
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from(match a.experiment {
            Experiment::Elf => "repro-elf",
            Experiment::Locality => "repro-locality",
            Experiment::Chimera => "repro-chimera",
            Experiment::Maestro => "repro-maestro",
            Experiment::Paver => "repro-paver",
            Experiment::Bypass => "repro-bypass",
            Experiment::Paws => "repro-paws",
        })
    });
    if out.exists() && !out.is_dir() {
        bail!(
            "{}: exists and is not a directory (--out names a directory)",
            out.display()
        );
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if a.headline && !matches!(a.experiment, Experiment::Elf | Experiment::Locality) {
        bail!("--headline: only elf and locality have columns beside their headline ones");
    }
    // Attribution switches mechanisms between the two presets an experiment runs side by side.
    if a.attribute && a.configs().len() < 2 {
        bail!(
            "--attribute switches mechanisms between an experiment's two presets: only elf, \
             locality, chimera, maestro and paws run on two, and only without --config"
        );
    }
    match a.experiment {
        Experiment::Locality => return locality::run(&a, &size, &out, jobs),
        Experiment::Chimera => return chimera::run(&a, &size, &out, jobs),
        Experiment::Maestro => return maestro::run(&a, &size, &out, jobs),
        Experiment::Paver => return paver::run(&a, &size, &out, jobs),
        Experiment::Bypass => return bypass::run(&a, &size, &out, jobs),
        Experiment::Paws => return paws::run(&a, &size, &out, jobs),
        Experiment::Elf => {}
    }
    elf::run(&a, &size, &out, jobs)
}

/// Writes `name`'s Markdown, JSON and SVG into `out` (`<name>.md`, `.json`, `.svg`).
pub(crate) fn write_files(
    out: &std::path::Path,
    name: &str,
    (md, json, svg): (&str, &str, &str),
) -> Result<()> {
    for (ext, text) in [("md", md), ("json", json), ("svg", svg)] {
        let p = out.join(format!("{name}.{ext}"));
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

/// The options a column's `gpusched sim` arguments resolve to on `gtx480`, as the sweep engine
/// resolves them (tests).
#[cfg(test)]
fn resolve_column(name: &str, args: &str) -> SimOptions {
    let policy = crate::cmd::sweep::spec::Policy {
        name: name.into(),
        args: args.into(),
    };
    let run = crate::cmd::sweep::spec::policy_args(&policy, "gtx480").unwrap();
    run.resolve().unwrap().1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column's sweep options resolve (through the sweep engine's parser) to the
    /// configuration the column names: its label, issue mode, fetch order, ELF rule and merge
    /// boundary.
    #[test]
    fn each_column_args_resolve_to_its_options() {
        for c in columns() {
            let opts = resolve_column(c.name, c.args);
            let label = opts.label();
            assert_eq!(
                label,
                SimOptions::parse(c.args).unwrap().label(),
                "{}",
                c.name
            );
            assert_eq!(opts.plan.warp_issue.mode().name(), c.issue, "{}", c.name);
            assert_eq!(opts.plan.warp_issue.fetch_order(), c.fetch, "{}", c.name);
            let elf = label.starts_with("elf");
            assert_eq!(elf, c.recalc != "-" && c.merge != "-", "{}", c.name);
            assert_eq!(
                label.contains("recalc="),
                elf && c.recalc != "literal",
                "{}",
                c.name
            );
            assert_eq!(label.contains("merge=ge"), c.merge == ">=", "{}", c.name);
        }
    }

    /// Waves: each kernel's blocks over its occupancy times the SMs, weighted by blocks.
    #[test]
    fn waves_count_blocks_over_what_the_gpu_holds() {
        let r = serde_json::json!({
            "sms": [{}, {}],
            "kernels": [
                {"blocks": 36, "occupancy": {"blocks": 6}},
                {"blocks": 3, "occupancy": {"blocks": 1}}
            ]
        });
        // 36 blocks in 3 waves, 3 in 1.5: (36 x 3 + 3 x 1.5) / 39.
        assert_eq!(waves(&r).unwrap(), (36.0 * 3.0 + 3.0 * 1.5) / 39.0);
        let one = serde_json::json!({"sms": [{}], "kernels": [{"blocks": 8, "occupancy": {"blocks": 2}}]});
        assert_eq!(waves(&one).unwrap(), 4.0);
        assert!(waves(&serde_json::json!({})).is_err());
    }

    /// Exactly the rows below [`MIN_WAVES`] are starred and named in the footnote.
    #[test]
    fn rows_under_four_waves_are_starred_and_named() {
        assert_eq!(waves_cell(3.96), "4.0*");
        assert_eq!(waves_cell(4.0), "4.0");
        let rows = [("a", 0.9), ("b", 4.0), ("c", 3.99), ("d", 12.5)];
        assert_eq!(
            few_waves_note(rows.into_iter(), "why").as_deref(),
            Some("\\* Fewer than 4 waves of thread blocks (why): a, c.")
        );
        assert_eq!(few_waves_note(rows[1..2].iter().copied(), "why"), None);
        assert_eq!(waves_label("a".into(), 0.9), "a *");
        assert_eq!(waves_label("b".into(), 4.0), "b");
    }
}
