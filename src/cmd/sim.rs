//! `gpusched sim`: run a workload (an Accel-Sim trace or a built-in kernel) on the golden GPU
//! model under a scheduling configuration (baseline warp arbiters, ELF, NewCAR, I-prefetch),
//! optionally with Verilated blocks in place of their golden models (`--rtl`) or in lockstep
//! with them (`--lockstep`).

use super::policy_args::PolicyArgs;
use anyhow::{bail, Result};
use clap::Args;
use gpusched_tb::bridge::{run_on_board, BoardSite, Target};
use gpusched_tb::gpu::{self as tbgpu, BlockMode, GpuRunError, Modes};
use gpusched_tb::lockstep::{LockstepConfig, SNAPSHOT_INTERVAL};
use gpusim::analysis::bypass::profile::{select_golden, Plan};
use gpusim::config::GpuConfig;
use gpusim::gpu::caching::Bypass;
use gpusim::gpu::{Progress, Report, SimError, SimOptions, DEFAULT_WATCHDOG};
use gpusim::policy::SiteKind;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use gpusim::workload::mix::Mix;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `gpusched sim`.
#[derive(Args)]
pub struct SimArgs {
    /// Accel-Sim trace directory (with kernelslist.g; each kernel on its `-cuda stream id`).
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["workload", "mix"],
        required_unless_present_any = ["workload", "mix"]
    )]
    trace: Option<PathBuf>,
    /// Workload: a built-in kernel (stream, compute) or a suite kernel (`gpusched workloads`).
    #[arg(long, value_name = "NAME", conflicts_with = "mix")]
    workload: Option<String>,
    /// A mix file (TOML): kernel launches with their streams, arrivals, priorities, periods and
    /// deadlines (`mixes/two_streams.toml`; run them together with `--kernel-sched`).
    #[arg(long, value_name = "FILE")]
    mix: Option<PathBuf>,
    /// With --mix: also run each of its kernels alone (same GPU and policies, cached in DIR by
    /// the sweep engine) and report each kernel's normalized turnaround, ANTT and STP.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "isolated-runs")]
    isolated: Option<PathBuf>,
    /// Size of a named workload: small, medium, large; `paper` (seed 000's benchmarks at the
    /// thesis's inputs, every launch: `gpusched workloads --size paper`); `elf` (seed 003 ch.
    /// III's benchmarks at their suites' default inputs: `gpusched workloads --size elf`);
    /// `paver` (seed 004's Table 2 benchmarks at its thread blocks per kernel).
    #[arg(long, default_value = "small")]
    size: String,
    #[command(flatten)]
    run: RunArgs,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
}

/// Options shared by `sim` and `bench`.
#[derive(Args, Clone)]
pub struct RunArgs {
    /// GPU configuration: a preset (gtx480, gtx480-3.2.2, titanx, titanv, gtx980, gtx980-3.2.2,
    /// gtx680), a TOML/JSON file, a GPGPU-Sim gpgpusim.config file, or a comma-separated list of one of
    /// these and GPGPU-Sim option files read over it in order (gpgpusim.config,trace.config, as
    /// Accel-Sim's two -config files).
    #[arg(long, default_value = "gtx480")]
    pub config: String,
    /// The scheduling policies at the GPU's sites and their options (`gpusched policies`).
    #[command(flatten)]
    pub policies: PolicyArgs,
    /// Stop after N cycles, N >= 1 (the report is marked truncated).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_cycles: Option<u64>,
    /// Fail as deadlocked after N cycles without any instruction issued (N >= 1).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WATCHDOG,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub watchdog: u64,
    /// Also check every N cycles that every request in flight can still complete (a model
    /// self-check, for debugging the simulator; 0: only when the watchdog fires).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub audit_every: u64,
    /// Step every SM in every cycle: no SM sleeps through cycles in which it can only count
    /// stalls (the statistics are the same, the run slower; for checking the model).
    #[arg(long)]
    pub no_sm_sleep: bool,
    /// Run these blocks as Verilated RTL in place of their golden models (comma-separated
    /// names of `gpusched blocks`, e.g. `warp_arbiter,twoway_alloc`).
    #[arg(long, value_name = "BLOCKS", value_delimiter = ',')]
    pub rtl: Vec<String>,
    /// Run these blocks' golden models and RTL in lockstep, stopping at the first mismatch
    /// (comma-separated names of `gpusched blocks`).
    #[arg(long, value_name = "BLOCKS", value_delimiter = ',')]
    pub lockstep: Vec<String>,
    /// Cycles of history in the waveforms written on a mismatch (0: none; at most 2^20).
    #[arg(long, default_value_t = 64, requires = "lockstep",
          value_parser = clap::value_parser!(u64).range(0..=1 << 20))]
    pub window: u64,
    /// Where the waveforms of a mismatch go.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "mismatch",
        requires = "lockstep"
    )]
    pub mismatch_dir: PathBuf,
    /// Cycles between two lockstep snapshots of a block: a mismatch's waveforms replay at most
    /// this many cycles plus the window (memory per block: two snapshots and the inputs since
    /// the older one).
    #[arg(long, value_name = "CYCLES", default_value_t = SNAPSHOT_INTERVAL, requires = "lockstep",
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    pub snapshot_interval: u64,
    /// X randomisation of the lockstep's RTL: its registers that the reset does not set start
    /// at random values of this seed instead of 0 (the default, 0).
    #[arg(long, value_name = "SEED", default_value_t = 0, requires = "lockstep")]
    pub x_seed: u64,
    /// Threads that run the Verilated blocks of `--lockstep` (0: one per core); the golden
    /// GPU runs on its own thread.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "lockstep",
          value_parser = gpusched_tb::batch::parse_rtl_threads)]
    pub rtl_threads: usize,
    /// Where the `--lockstep` block's RTL runs: `verilator` (every instance, Verilated), or
    /// one instance (`--target-site`) on its FPGA host bridge: `uart-sim` (the Verilated
    /// bridge, driven through its serial pins) or `uart:DEVICE[@BAUD]` (a board), the block's
    /// other instances golden. A bridge target takes exactly one `--lockstep` block.
    #[arg(
        long,
        value_name = "TARGET",
        default_value = "verilator",
        requires = "lockstep"
    )]
    pub target: String,
    /// The instance a bridge target checks: a site of the `--lockstep` block (sm0_sched0,
    /// sm2_elf, tb_dispatch ...) [default: the block's first site].
    #[arg(long, value_name = "SITE", requires = "lockstep")]
    pub target_site: Option<String>,
    /// Directory of the generated RTL whose manifest names the Verilog hash a bridge must
    /// report [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR", requires = "lockstep")]
    pub rtl_dir: Option<PathBuf>,
}

impl RunArgs {
    /// The configuration, the options and the block modes these arguments ask for.
    pub fn resolve(&self) -> Result<(GpuConfig, SimOptions, Modes)> {
        let cfg = load_config(&self.config)?;
        let mut values = self.policies.values.clone();
        if values.given(SiteKind::WarpIssue.flag()).is_none() {
            values.set(SiteKind::WarpIssue.flag(), &cfg.sm.warp_scheduler);
        }
        let opts = SimOptions {
            max_cycles: self.max_cycles,
            watchdog: self.watchdog,
            audit_interval: self.audit_every,
            sm_sleep: !self.no_sm_sleep,
            ..SimOptions::from_values(&values)?
        };
        let mut modes = Modes::default();
        for (list, mode) in [
            (&self.rtl, BlockMode::Rtl),
            (&self.lockstep, BlockMode::Lockstep),
        ] {
            for b in list {
                if self.rtl.contains(b) && self.lockstep.contains(b) {
                    bail!("block `{b}` is given to both --rtl and --lockstep");
                }
                modes.set(b, mode)?;
            }
        }
        // A block given to --rtl/--lockstep must sit somewhere in this run.
        let used = opts.plan.blocks();
        for (name, _) in modes.non_golden() {
            if !used.contains(&name) {
                let users: Vec<String> = gpusim::policy::registry()
                    .into_iter()
                    .filter(|e| e.blocks.contains(&name))
                    .map(|e| format!("--{} {}", e.site.flag(), e.name))
                    .collect();
                bail!(
                    "--rtl/--lockstep {name}: this run has no {name} block ({})",
                    if users.is_empty() {
                        "no policy uses it".to_string()
                    } else {
                        format!("policies that use it: {}", users.join(", "))
                    }
                );
            }
        }
        Ok((cfg, opts, modes))
    }

    /// How each block runs, for reports: `golden`, or e.g. `elf:lockstep,newcar:rtl`.
    pub fn modes_label(&self) -> String {
        let mut v: Vec<String> = self.rtl.iter().map(|b| format!("{b}:rtl")).collect();
        v.extend(self.lockstep.iter().map(|b| format!("{b}:lockstep")));
        if v.is_empty() {
            "golden".into()
        } else {
            v.join(",")
        }
    }

    /// The lockstep waveform options.
    pub fn lockstep_config(&self) -> LockstepConfig {
        LockstepConfig {
            window: self.window as usize,
            mismatch_dir: self.mismatch_dir.clone(),
            vcd_dir: None,
            snapshot_interval: self.snapshot_interval,
            rtl_threads: self.rtl_threads,
            x_seed: self.x_seed,
        }
    }
}

/// Loads a preset, a TOML/JSON file or a GPGPU-Sim config file; what a GPGPU-Sim file sets
/// that changes nothing in the model is summed up in one note on stderr
/// (`gpusched config check` lists it).
pub fn load_config(name: &str) -> Result<GpuConfig> {
    let (cfg, notes) = GpuConfig::load_with_notes(name)?;
    if let Some(summary) = notes.summary() {
        eprintln!("note: {name}: {summary} (`gpusched config check {name}` lists them)");
    }
    Ok(cfg)
}

/// A spinner on stderr that appears once a run has taken more than a second.
pub struct RunProgress {
    start: Instant,
    bar: Option<ProgressBar>,
    label: String,
}

impl RunProgress {
    /// A progress display for a run named `label`.
    pub fn new(label: &str) -> Self {
        Self {
            start: Instant::now(),
            bar: None,
            label: label.into(),
        }
    }

    /// Updates the display.
    pub fn update(&mut self, p: &Progress) {
        if self.bar.is_none() && self.start.elapsed() > Duration::from_secs(1) {
            let bar = ProgressBar::new(p.blocks_total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {pos}/{len} blocks of kernel {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix(self.label.clone());
            self.bar = Some(bar);
        }
        if let Some(b) = &self.bar {
            b.set_length(p.blocks_total);
            b.set_position(p.blocks_done);
            b.set_message(format!(
                "{}, {} cycles, {:.1} M thread instructions",
                p.kernel + 1,
                p.cycle,
                p.thread_instructions as f64 / 1e6
            ));
        }
    }

    /// Removes the display.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Opens the workload the arguments name.
pub fn open_workload(
    trace: Option<&PathBuf>,
    name: Option<&str>,
    size: &str,
) -> Result<Box<dyn WorkloadSource>, SimError> {
    Ok(match (trace, name) {
        (Some(dir), _) => Box::new(TraceWorkload::open(dir)?),
        (None, Some(n)) => gpusim::workload::open_named(n, size)?,
        (None, None) => {
            return Err(SimError::Config(format!(
                "give --trace DIR or --workload NAME ({})",
                gpusim::workload::names().join(", ")
            )))
        }
    })
}

/// Runs the workload with the options of `run`; `Ok(Err(code))` is a failed check (exit 1).
pub fn simulate(
    run: &RunArgs,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    label: &str,
) -> Result<std::result::Result<Report, ExitCode>> {
    let (cfg, mut opts, modes) = run.resolve()?;
    let bypass_plan = select_loads(&cfg, &mut opts, workload, false)?;
    let lockstep = run.lockstep_config();
    let target = Target::parse(&run.target)?;
    if target == Target::Verilator && run.target_site.is_some() {
        bail!("--target-site needs a bridge --target (uart-sim or uart:DEVICE)");
    }
    let board_block = match (&target, run.lockstep.as_slice()) {
        (Target::Verilator, _) => None,
        (_, [b]) => Some(b.clone()),
        _ => bail!(
            "--target {} takes exactly one --lockstep block (the one whose instance runs on \
             the bridge); got {}",
            run.target,
            run.lockstep.len()
        ),
    };
    let mut progress = RunProgress::new(label);
    let result = match board_block {
        None => tbgpu::run(&cfg, &opts, workload, modes, &lockstep, &mut |p| {
            progress.update(p)
        }),
        Some(block) => {
            let rtl = run.rtl_dir.clone().unwrap_or_else(super::default_rtl_dir);
            let hash_of = |module: &str| super::cosim::manifest_hash(&rtl, module);
            let board = BoardSite {
                target,
                block,
                site: run.target_site.clone(),
                hash_of: &hash_of,
            };
            run_on_board(&cfg, &opts, workload, modes, &lockstep, &board, &mut |p| {
                progress.update(p)
            })
            .map(|(report, on_board)| {
                eprintln!(
                    "{} ({}) checked on {}: {} cycles, 0 mismatches",
                    on_board.site, on_board.module, on_board.link, on_board.cycles
                );
                report
            })
        }
    };
    progress.finish();
    match result {
        Ok(mut r) => {
            r.bypass_plan = bypass_plan;
            Ok(Ok(r))
        }
        Err(GpuRunError::Mismatch(m)) => {
            eprint!("{m}");
            Ok(Err(ExitCode::from(1)))
        }
        Err(GpuRunError::Sim(e @ SimError::Deadlock { .. })) => {
            eprintln!("error: {e}");
            Ok(Err(ExitCode::from(1)))
        }
        Err(e) => Err(e.into()),
    }
}

/// The bypass framework's choice per kernel: each global load, cached or bypassed, with
/// its profile and weight.
fn print_bypass_plan(p: &Plan) -> Result<()> {
    outln!("  bypass plan ({} runs before this one):", p.runs);
    for k in &p.kernels {
        outln!(
            "    kernel {}: {:?}, T(G') {:.0} B{}",
            k.kernel,
            k.method,
            k.objective,
            k.note
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        );
        for l in &k.loads {
            outln!(
                "      pc {:#06x} {:<8} access {:>8} hit {:>8}  E_on {:.3} E_off {:.3}  W {:>10.0} B",
                l.pc,
                if l.cached { "cached" } else { "bypassed" },
                l.access,
                l.hit,
                l.eff.on,
                l.eff.off,
                l.weight
            );
        }
    }
    Ok(())
}

/// With `--bypass exact|heuristic|empirical`: the bypass framework's profiling runs (golden, with a
/// progress bar unless `quiet`), whose plan then replaces the selection in `opts`.
pub fn select_loads(
    cfg: &GpuConfig,
    opts: &mut SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    quiet: bool,
) -> Result<Option<Plan>> {
    let Bypass::Select(by, source) = opts.bypass else {
        return Ok(None);
    };
    let bar = match quiet {
        true => ProgressBar::hidden(),
        false => ProgressBar::new(0),
    }
    .with_style(
        ProgressStyle::with_template("bypass profiling {bar:30} {pos}/{len} runs")
            .expect("a valid template"),
    );
    let mut tick = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let plan = select_golden(cfg, opts, workload, (by, source), &mut tick)?;
    bar.finish_and_clear();
    opts.bypass = plan.bypass();
    Ok(Some(plan))
}

/// Runs `sim`.
pub fn run(a: SimArgs) -> Result<ExitCode> {
    if a.isolated.is_some() && a.mix.is_none() {
        bail!("--isolated needs --mix (the kernels of a mix run alone)");
    }
    let label = a
        .trace
        .as_ref()
        .or(a.mix.as_ref())
        .map(|t| t.display().to_string())
        .or(a.workload.clone())
        .unwrap_or_default();
    let (trace, name, size) = (a.trace.clone(), a.workload.clone(), a.size.clone());
    let mix = a.mix.clone();
    let mut open = || -> Result<Box<dyn WorkloadSource>, SimError> {
        match &mix {
            Some(m) => Ok(Box::new(Mix::open(m)?)),
            None => open_workload(trace.as_ref(), name.as_deref(), &size),
        }
    };
    let r = match simulate(&a.run, &mut open, &label)? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let mode = a.run.modes_label();
    let isolated = match (&a.mix, &a.isolated) {
        (Some(mix), Some(cache)) => {
            let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
            Some(super::isolated::measure(mix, &a.run, &r, cache, jobs)?)
        }
        _ => None,
    };
    if a.json {
        let mut v = serde_json::to_value(&r)?;
        v["blocks"] = mode.clone().into();
        if let Some(i) = &isolated {
            v["isolated"] = serde_json::to_value(i)?;
        }
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_report(&r, &mode)?;
        if let Some(i) = &isolated {
            outln!(
                "  against each kernel alone (cached in {}): ANTT {:.3}, STP {:.3}",
                i.cache.display(),
                i.antt,
                i.stp
            );
            for k in &i.kernels {
                outln!(
                    "    {:<3} {:<28} {:>10} cycles alone, turnaround {:>10}, NTT {:.3}",
                    k.launch,
                    k.name.chars().take(28).collect::<String>(),
                    k.isolated_cycles,
                    k.turnaround,
                    k.ntt
                );
            }
        }
    }
    if r.truncated {
        eprintln!(
            "warning: stopped at --max-cycles {} before the workload finished",
            r.counters.cycles
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// Prints the report as tables.
pub fn print_report(r: &Report, mode: &str) -> anyhow::Result<()> {
    let c = &r.counters;
    outln!(
        "{} on {}: {} ({} issue, {} fetch; blocks {mode}), thread-block dispatch {}, kernel scheduler {}{}",
        r.workload,
        r.config,
        r.policy,
        r.issue,
        r.fetch.replace('_', "-"),
        r.tb_sched,
        r.kernel_sched,
        if r.truncated { " [TRUNCATED]" } else { "" }
    );
    outln!("  cycles               {:>14}", c.cycles);
    outln!("  warp instructions    {:>14}", c.warp_instructions);
    outln!("  thread instructions  {:>14}", c.thread_instructions);
    outln!("  IPC (thread/cycle)   {:>14.2}", r.ipc);
    outln!("  thread blocks        {:>14}", c.blocks);
    outln!(
        "  {:<5} {:>12} {:>12} {:>12} {:>10} {:>12} {:>10}",
        "cache",
        "accesses",
        "hits",
        "misses",
        "miss rate",
        "mshr merges",
        "fails"
    );
    for (name, k) in [("L1I", &c.l1i), ("L1D", &c.l1d), ("L2", &c.l2)] {
        let reads = k.hits + k.hit_reserved + k.misses;
        outln!(
            "  {name:<5} {:>12} {:>12} {:>12} {:>10} {:>12} {:>10}",
            k.accesses,
            k.hits,
            k.misses,
            pct(k.misses, reads),
            k.hit_reserved,
            k.fails
        );
    }
    for (name, k) in [("L1D", &c.l1d), ("L2", &c.l2)]
        .into_iter()
        .filter(|(_, k)| k.fails > 0)
    {
        let f = &k.fail_causes;
        outln!(
            "  {name} refusals: {} miss queue full, {} MSHR full, {} merge limit, {} all ways reserved",
            f.miss_queue_full,
            f.mshr_full,
            f.merge_limit,
            f.all_ways_reserved
        );
    }
    let d = &c.dram;
    outln!(
        "  DRAM bursts: {} reads, {} writes, {} row hits ({}), {} bytes",
        d.reads,
        d.writes,
        d.row_hits,
        pct(d.row_hits, d.reads + d.writes),
        d.bytes
    );
    let s = &c.stalls;
    let all = s.issued + s.idle + s.raw + s.structural + s.preempted;
    outln!(
        "  scheduler cycles: issued {}{}, idle/control {}, RAW {}, structural {}{}; LSU blocked {} cycles",
        pct(s.issued, all),
        if s.multi_issued > 0 {
            format!(" ({} of them two or more instructions)", s.multi_issued)
        } else {
            String::new()
        },
        pct(s.idle, all),
        pct(s.raw, all),
        pct(s.structural, all),
        if s.preempted > 0 {
            format!(", preempted {}", pct(s.preempted, all))
        } else {
            String::new()
        },
        s.lsu_blocked
    );
    if r.lsu_queue != SiteKind::LsuQueue.default_policy() || c.l1i.prefetches > 0 {
        outln!(
            "  LSU queue ({}): {} transactions queued; I-prefetch: {} lines",
            r.lsu_queue,
            c.lsu_queue_enqueued,
            c.l1i.prefetches
        );
    }
    if r.kernels.len() > 1
        || r.kernels
            .first()
            .is_some_and(|k| k.counters.cycles != c.cycles)
    {
        outln!(
            "  {:<3} {:<24} {:>6} {:>9} {:>9} {:>9} {:>9} {:>12} {:>8} {:>4}",
            "#",
            "kernel",
            "stream",
            "arrival",
            "start",
            "end",
            "cycles",
            "thread insts",
            "IPC",
            "occ"
        );
        for k in &r.kernels {
            outln!(
                "  {:<3} {:<24} {:>6} {:>9} {:>9} {:>9} {:>9} {:>12} {:>8.2} {:>4}{}",
                k.launch,
                k.name.chars().take(24).collect::<String>(),
                k.stream,
                k.arrival,
                k.start_cycle,
                k.end_cycle,
                k.counters.cycles,
                k.counters.thread_instructions,
                k.ipc,
                k.occupancy.blocks,
                match k.deadline_met {
                    Some(true) => "  deadline met",
                    Some(false) => "  deadline MISSED",
                    None => "",
                }
            );
            let p = &k.preemptions;
            let moved = [
                ("switch", &p.switch),
                ("drain", &p.drain),
                ("flush", &p.flush),
            ]
            .iter()
            .filter(|(_, t)| t.blocks > 0)
            .map(|(n, t)| {
                format!(
                    "{n} {} blocks, {} cycles, {} bytes",
                    t.blocks, t.cycles, t.bytes
                )
            })
            .collect::<Vec<_>>();
            if !moved.is_empty() {
                outln!(
                    "      preempted: {}; {} restored, {} warp instructions re-executed",
                    moved.join("; "),
                    p.restored,
                    p.reexecuted_warp_instructions
                );
            }
        }
    } else if let Some(k) = r.kernels.first() {
        outln!(
            "  kernel {}: grid {} block {}, {} blocks/SM ({:?}-limited)",
            k.name,
            k.grid,
            k.block,
            k.occupancy.blocks,
            k.occupancy.limiter
        );
    }
    if let Some(p) = &r.bypass_plan {
        print_bypass_plan(p)?;
    }
    if !r.unknown_opcodes.is_empty() {
        eprintln!(
            "warning: opcodes not in the SASS table, run as integer ALU: {}",
            r.unknown_opcodes.join(", ")
        );
    }
    for note in &r.unknown_modifiers {
        eprintln!("warning: {note}");
    }
    Ok(())
}
