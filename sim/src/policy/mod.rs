//! Scheduling policies and their registry: which unit, built from which blocks, sits at each
//! site of the GPU ([`crate::gpu::sites`]) for a run's options.
//!
//! A policy is a type in its own file, registered by one line in [`declare_policies!`]'s list
//! below. Its [`PolicyEntry`] declares the site, the name, the options it takes ([`OptSpec`],
//! read into its own config by its `parse`), the blocks it uses and a summary; the command line
//! (`--warp-sched`, `--help`, `gpusched policies`), the run's label and report, and the checks
//! that `--rtl`/`--lockstep` name a block the run uses all come from these entries. Nothing
//! outside a policy's files names it.
//!
//! | site | per | selected by |
//! |---|---|---|
//! | warp issue | SM | `--warp-sched` |
//! | LSU queue | SM | `--lsu-queue` |
//! | thread-block dispatch | kernel slot | `--tb-sched` |
//! | resource allocation | SM | `--sm-alloc` |
//! | kernel scheduler | GPU | `--kernel-sched` (golden only: the OS's or the command processor's software) |
//!
//! The policies at each, their blocks and options: `gpusched policies`.

pub mod options;

use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::{KernelCtx, Prepared};
use crate::gpu::sites::alloc::AllocUnit;
use crate::gpu::sites::dispatch::DispatchUnit;
use crate::gpu::sites::issue::{IssueMode, IssueUnit};
use crate::gpu::sites::kernel_sched::KernelSchedUnit;
use crate::gpu::sites::lsu_queue::LsuQueueUnit;
use crate::gpu::SimError;
use crate::workload::kernel::KernelSource;
pub use options::{OptError, OptSpec, OptValues};
use std::fmt::Debug;
use std::sync::Arc;

macro_rules! declare_policies {
    ($($m:ident)*) => {
        $(pub mod $m;)*

        /// Every policy, in registry order.
        pub fn registry() -> Vec<&'static PolicyEntry> {
            let mut v: Vec<&'static PolicyEntry> = vec![];
            $( v.extend_from_slice($m::ENTRIES); )*
            v
        }
    };
}

// The one list of policies: a module each (its `ENTRIES`), in the order `--help` lists them.
declare_policies! {
    arbiters
    laws
    paws
    kernel_lrr
    elf
    no_lsu_queue
    newcar
    tb_round_robin
    tb_locality
    paver
    occupancy_alloc
    twoway_alloc
    serial
    fcfs
    even
    smk
    timeslice
    chimera
    maestro
}

/// The sites a policy can sit at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiteKind {
    /// Warp issue (per SM).
    WarpIssue,
    /// The queue between the load/store unit and the L1D (per SM).
    LsuQueue,
    /// Thread-block dispatch (per kernel).
    TbDispatch,
    /// SM resource allocation (per SM).
    SmAlloc,
    /// Which kernels dispatch to which SMs, and preemption (per GPU).
    KernelSched,
}

impl SiteKind {
    /// Every site, in the order reports list them.
    pub const ALL: [SiteKind; 5] = [
        SiteKind::WarpIssue,
        SiteKind::LsuQueue,
        SiteKind::TbDispatch,
        SiteKind::SmAlloc,
        SiteKind::KernelSched,
    ];

    /// The option that selects the site's policy (`warp-sched`).
    pub fn flag(self) -> &'static str {
        match self {
            SiteKind::WarpIssue => "warp-sched",
            SiteKind::LsuQueue => "lsu-queue",
            SiteKind::TbDispatch => "tb-sched",
            SiteKind::SmAlloc => "sm-alloc",
            SiteKind::KernelSched => "kernel-sched",
        }
    }

    /// What sits there, in words (`warp scheduler`).
    pub fn title(self) -> &'static str {
        match self {
            SiteKind::WarpIssue => "warp scheduler",
            SiteKind::LsuQueue => "LSU queue",
            SiteKind::TbDispatch => "thread-block scheduler",
            SiteKind::SmAlloc => "SM resource allocator",
            SiteKind::KernelSched => "kernel scheduler",
        }
    }

    /// Short name (`warp_issue`), the key of JSON listings.
    pub fn key(self) -> &'static str {
        match self {
            SiteKind::WarpIssue => "warp_issue",
            SiteKind::LsuQueue => "lsu_queue",
            SiteKind::TbDispatch => "tb_dispatch",
            SiteKind::SmAlloc => "sm_alloc",
            SiteKind::KernelSched => "kernel_sched",
        }
    }

    /// The policy when none is chosen.
    pub fn default_policy(self) -> &'static str {
        match self {
            SiteKind::WarpIssue => "gto",
            SiteKind::LsuQueue => "none",
            SiteKind::TbDispatch => "lrr",
            SiteKind::SmAlloc => "occupancy",
            SiteKind::KernelSched => "serial",
        }
    }
}

/// A policy as the registry lists it.
pub struct PolicyEntry {
    /// Its site.
    pub site: SiteKind,
    /// Its name (the value of the site's option; `-` in a name given is read as `_`).
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// The blocks its units are built from.
    pub blocks: &'static [&'static str],
    /// The options it takes.
    pub options: &'static [OptSpec],
    /// A flag that selects it at its site (`--newcar` for `--lsu-queue newcar`).
    pub flag: Option<OptSpec>,
    /// Option defaults it implies for other sites and settings when they are not given
    /// (`elf++`: `lsu-queue newcar`, `iprefetch 16`).
    pub implies: &'static [(&'static str, &'static str)],
    /// Reads its options into the policy.
    pub parse: fn(&OptValues) -> Result<SitePolicy, OptError>,
    /// The runs `gpusched regress` makes of it in the GPU model with its blocks Verilated in
    /// lockstep (none: its blocks are checked on their own only).
    pub regress: &'static [RegressRun],
}

/// What a [`RegressRun`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegressOn {
    /// The real traces and the built-in kernels.
    Kernels,
    /// The real traces only (a block whose Verilated model is too slow for the rest).
    Traces,
    /// The example mix `mixes/two_streams.toml` (a kernel scheduler's or an allocator's).
    TwoStreams,
}

/// One GPU-lockstep run of `gpusched regress`: `gpusched sim ARGS` on what `on` says, its row
/// labelled by the options' label and `suffix`.
#[derive(Clone, Copy, Debug)]
pub struct RegressRun {
    /// What the row's label adds to the options' (`+la_tb32`).
    pub suffix: &'static str,
    /// The options.
    pub args: &'static str,
    /// What it runs on.
    pub on: RegressOn,
}

impl RegressRun {
    /// `args` on the real traces and the built-in kernels.
    pub const fn kernels(args: &'static str) -> Self {
        Self::new(RegressOn::Kernels, "", args)
    }

    /// A run on `on`, labelled with `suffix`.
    pub const fn new(on: RegressOn, suffix: &'static str, args: &'static str) -> Self {
        RegressRun { suffix, args, on }
    }
}

/// Every policy's regress runs, in registry order.
pub fn regress_runs() -> Vec<RegressRun> {
    registry()
        .iter()
        .flat_map(|e| e.regress.iter().copied())
        .collect()
}

impl Debug for PolicyEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.site.flag(), self.name)
    }
}

/// A policy read from its options, at its site.
#[derive(Clone, Debug)]
pub enum SitePolicy {
    /// At the warp-issue site.
    WarpIssue(Arc<dyn WarpIssuePolicy>),
    /// At the LSU-queue site.
    LsuQueue(Arc<dyn LsuQueuePolicy>),
    /// At the thread-block dispatch site.
    TbDispatch(Arc<dyn TbDispatchPolicy>),
    /// At the resource-allocation site.
    SmAlloc(Arc<dyn SmAllocPolicy>),
    /// At the kernel-scheduler site.
    KernelSched(Arc<dyn KernelSchedPolicy>),
}

/// What the warp-issue policy's label sees of the rest of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelCtx {
    /// The LSU-queue policy's name.
    pub lsu_queue: &'static str,
    /// The LSU queue's part of the label (`+newcar`, or empty).
    pub lsu_suffix: String,
    /// The I-prefetch threshold (0: off).
    pub iprefetch: u32,
}

impl LabelCtx {
    /// What follows the warp-issue policy's own label: the LSU queue's part, `+iprefetchN`.
    pub fn suffix(&self) -> String {
        let mut s = self.lsu_suffix.clone();
        if self.iprefetch > 0 {
            s.push_str(&format!("+iprefetch{}", self.iprefetch));
        }
        s
    }
}

/// A policy at the warp-issue site.
pub trait WarpIssuePolicy: Debug + Send + Sync {
    /// Its registry entry.
    fn entry(&self) -> &'static PolicyEntry;
    /// How its units take the SM's warps.
    fn mode(&self) -> IssueMode;
    /// The run's label (`gto`, `elf++(recalc=consistent)`, `gto(paired)+newcar`...).
    fn label(&self, ctx: &LabelCtx) -> String {
        format!("{}{}", self.entry().name, ctx.suffix())
    }
    /// The name the run's report gives it (`warp_sched`).
    fn report_name(&self) -> &'static str {
        self.entry().name
    }
    /// The fetch order its units impose (`round_robin` when they do not).
    fn fetch_order(&self) -> &'static str {
        "round_robin"
    }
    /// Why its units cannot take a block that resumes where it stopped (a context switch's
    /// restore), if they cannot.
    fn resume_limit(&self) -> Option<&'static str> {
        None
    }
    /// Whether it can serve `cfg` (the parameters its blocks would get).
    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError>;
    /// What it needs of a kernel before the kernel's first block on `cfg`, into `prepared`.
    fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let _ = (cfg, kernel, prepared);
        Ok(())
    }
    /// The unit of SM `sm`, its blocks from `provider`.
    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError>;
}

/// A policy at the LSU-queue site.
pub trait LsuQueuePolicy: Debug + Send + Sync {
    /// Its registry entry.
    fn entry(&self) -> &'static PolicyEntry;
    /// Its part of the run's label (`+newcar`; empty without a queue).
    fn label_suffix(&self) -> String {
        format!("+{}", self.entry().name)
    }
    /// Whether it can serve `cfg`.
    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError>;
    /// The unit of SM `sm` (`None`: the LSU talks to the L1D directly).
    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Option<Box<dyn LsuQueueUnit<'a> + 'a>>, SimError>;
}

/// A policy at the thread-block dispatch site.
pub trait TbDispatchPolicy: Debug + Send + Sync {
    /// Its registry entry.
    fn entry(&self) -> &'static PolicyEntry;
    /// Whether it can serve `cfg`.
    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError>;
    /// What it needs of a kernel before the kernel's first block on `cfg`, into `prepared`.
    fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let _ = (cfg, kernel, prepared);
        Ok(())
    }
    /// The dispatcher of kernel slot `slot`, its blocks from `provider`.
    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        slot: usize,
    ) -> Result<Box<dyn DispatchUnit<'a> + 'a>, SimError>;
}

/// A policy at the resource-allocation site.
pub trait SmAllocPolicy: Debug + Send + Sync {
    /// Its registry entry.
    fn entry(&self) -> &'static PolicyEntry;
    /// Whether it can serve `cfg`.
    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError>;
    /// Whether it can serve `kernel` (asked for every launch before the run).
    fn check_kernel(&self, cfg: &GpuConfig, kernel: &KernelCtx) -> Result<(), SimError> {
        let _ = (cfg, kernel);
        Ok(())
    }
    /// The allocator of SM `sm`, its blocks from `provider`.
    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn AllocUnit<'a> + 'a>, SimError>;
}

/// A policy at the kernel-scheduler site (its decisions are the OS's kernel scheduler's or the
/// command processor's software, as the thesis places them; the hardware it reads, such as
/// Chimera's per-SM status tables, are blocks it takes from the provider).
pub trait KernelSchedPolicy: Debug + Send + Sync {
    /// Its registry entry.
    fn entry(&self) -> &'static PolicyEntry;
    /// Kernel slots: kernels the GPU holds at once (each with its own dispatcher).
    fn slots(&self) -> usize;
    /// Whether it can serve `cfg` with the warp-issue policy `warp` (an SM-wide unit that
    /// holds one kernel's program cannot share an SM between kernels).
    fn check(&self, cfg: &GpuConfig, plan: &Plan) -> Result<(), SimError> {
        let _ = (cfg, plan);
        Ok(())
    }
    /// Its label suffix (`+fcfs`; empty for the default).
    fn label_suffix(&self) -> String {
        format!("+{}", self.entry().name)
    }
    /// The unit, its blocks from `provider`.
    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError>;
}

/// `--kernel-slots N`, taken by every kernel scheduler that holds several kernels.
pub const KERNEL_SLOTS: OptSpec = OptSpec::value(
    "kernel-slots",
    "N",
    "16",
    "Kernels the GPU holds at once, each with its own thread-block dispatcher (Fermi's \
     hardware: 16; GPGPU-Sim's -gpgpu_max_concurrent_kernel defaults to 32)",
);

/// `--preempt TECHNIQUE`, taken by the kernel schedulers that preempt.
pub const PREEMPT: OptSpec = OptSpec::value(
    "preempt",
    "TECHNIQUE",
    "switch",
    "How blocks leave an SM given to another kernel: switch (save the context through the \
     memory system, restore it later on any SM), drain (let them finish), flush (drop them \
     and restart them later; a block past its idempotent point is drained instead), chimera \
     (per block the cheapest of the three that meets --lat-limit; maestro only, and its \
     default)",
)
.one_of(&["switch", "drain", "flush", "chimera"]);

/// The one technique `--preempt` names for a kernel scheduler that preempts every block the
/// same way (`chimera`, a per-block choice, is an error naming who takes it).
pub fn fixed_technique(
    v: &OptValues,
) -> Result<crate::gpu::sites::kernel_sched::Technique, OptError> {
    let name = v.raw(&PREEMPT)?;
    crate::gpu::sites::kernel_sched::Technique::from_name(name).ok_or_else(|| OptError::Invalid {
        name: PREEMPT.name.into(),
        value: name.into(),
        why: "a per-block choice is taken by --kernel-sched maestro (and chimera's policies \
              always choose per block); this kernel scheduler takes switch, drain or flush"
            .into(),
    })
}

/// Whether the warp-issue policy of `plan` can take blocks that resume mid-kernel, as
/// `technique` needs for a switch (an error naming why not).
pub fn check_resume(
    plan: &Plan,
    technique: crate::gpu::sites::kernel_sched::Technique,
) -> Result<(), SimError> {
    use crate::gpu::sites::kernel_sched::Technique;
    match (technique, plan.warp_issue.resume_limit()) {
        (Technique::Switch, Some(why)) => Err(SimError::Config(format!(
            "--preempt switch: --warp-sched {} cannot resume a block where it stopped ({why}); \
             use --preempt drain or flush",
            plan.warp_issue.entry().name
        ))),
        _ => Ok(()),
    }
}

/// The options every run takes besides the policies' (the SM's fetch stage).
pub const CORE_OPTIONS: &[OptSpec] = &[IPREFETCH, PERFECT_L1I, FREE_SWITCH, BYPASS, BYPASS_EFF];

/// `--bypass MODE`: which global loads use the L1D ([`crate::gpu::caching::Bypass`]).
pub const BYPASS: OptSpec = OptSpec::value(
    "bypass",
    "MODE",
    "trace",
    "Which global loads use the L1D: `trace` as each load's cache operator and the \
     configuration's `gmem_skip_l1d` say; `none` caches every one (-dlcm=ca); `all` bypasses \
     every one (-dlcm=cg); `exact` and `heuristic` cache the loads the bypass framework \
     selects from profiling runs (seed 001: the optimum of its traffic model, or its greedy \
     Algorithm 1); `empirical` simulates every cached/bypassed combination of each kernel's six \
     most accessed loads and keeps the fastest (B-R5, the rest as the heuristic chooses)",
)
.one_of(&["trace", "none", "all", "exact", "heuristic", "empirical"]);

/// `--bypass-eff FROM`: where `--bypass exact|heuristic|empirical` takes the loads' efficiencies.
pub const BYPASS_EFF: OptSpec = OptSpec::value(
    "bypass-eff",
    "FROM",
    "global",
    "Where --bypass exact|heuristic|empirical takes each load's efficiencies E_on / E_off (seed 001 \
     Table II): global, Table II where the load's lanes fit one of its patterns, otherwise the \
     kernel's whole efficiency measured (the paper's profiler figure); oracle, every load's \
     own, measured",
)
.one_of(&["global", "oracle"]);

/// `--iprefetch [N]`: next-line L1I prefetch while fewer than N L1I + L1D MSHRs are occupied.
pub const IPREFETCH: OptSpec = OptSpec::value(
    "iprefetch",
    "N",
    "0",
    "Next-line L1I prefetch while fewer than N L1I + L1D MSHRs are occupied (N defaults to \
     16, the ELF thesis's threshold; 0 turns it off)",
)
.bare("16");

/// `--perfect-l1i`: every instruction fetch hits.
pub const PERFECT_L1I: OptSpec =
    OptSpec::flag("perfect-l1i", "Every instruction fetch hits in the L1I");

/// `--free-switch`: a context switch moves no data (the ideal preemption Chimera's throughput
/// overhead is measured against).
pub const FREE_SWITCH: OptSpec = OptSpec::flag(
    "free-switch",
    "A context switch moves no data: a block leaves once what it issued has completed and \
     resumes at once where it is placed (ideal preemption, the reference of Chimera's \
     throughput overhead)",
);

/// The policy of every site of a run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Warp issue.
    pub warp_issue: Arc<dyn WarpIssuePolicy>,
    /// The LSU's queue.
    pub lsu_queue: Arc<dyn LsuQueuePolicy>,
    /// Thread-block dispatch.
    pub tb_dispatch: Arc<dyn TbDispatchPolicy>,
    /// Resource allocation.
    pub sm_alloc: Arc<dyn SmAllocPolicy>,
    /// The kernel scheduler.
    pub kernel_sched: Arc<dyn KernelSchedPolicy>,
}

/// The entry named `name` (`-` read as `_`) at `site`.
pub fn find(site: SiteKind, name: &str) -> Option<&'static PolicyEntry> {
    let canon = name.replace('-', "_");
    registry()
        .into_iter()
        .find(|e| e.site == site && e.name.replace('-', "_") == canon)
}

/// The declaration of option `name`: a site's selector, a policy's option or selecting flag,
/// or a core option.
pub fn option_spec(name: &str) -> Option<OptSpec> {
    if let Some(site) = SiteKind::ALL.into_iter().find(|s| s.flag() == name) {
        return Some(OptSpec::value(
            site.flag(),
            "POLICY",
            site.default_policy(),
            site.title(),
        ));
    }
    CORE_OPTIONS
        .iter()
        .copied()
        .chain(
            registry()
                .into_iter()
                .flat_map(|e| e.options.iter().copied().chain(e.flag)),
        )
        .find(|s| s.name == name)
}

/// Every option of the registry and the core, each once (the first declaration of a name), in
/// registry order, with the entries that take it.
pub fn all_options() -> Vec<(OptSpec, Vec<&'static PolicyEntry>)> {
    let mut v: Vec<(OptSpec, Vec<&'static PolicyEntry>)> =
        CORE_OPTIONS.iter().map(|s| (*s, vec![])).collect();
    for e in registry() {
        for s in e.options.iter().chain(e.flag.as_ref()) {
            match v.iter_mut().find(|(o, _)| o.name == s.name) {
                Some((_, takers)) => takers.push(e),
                None => v.push((*s, vec![e])),
            }
        }
    }
    v
}

impl Plan {
    /// The plan `values` ask for; returns it with the names of the options it read (site
    /// selectors, the chosen policies' options and selecting flags). A selecting flag and the
    /// values the chosen policies imply are written into `values`.
    pub fn parse(values: &mut OptValues) -> Result<(Self, Vec<&'static str>), OptError> {
        let mut used: Vec<&'static str> = vec![];
        // A policy's selecting flag stands for its site's option.
        for e in registry() {
            if let Some(f) = e.flag {
                if values.given(f.name) == Some("true") {
                    if let Some(other) = values
                        .given(e.site.flag())
                        .filter(|o| find(e.site, o).is_none_or(|x| !std::ptr::eq(x, e)))
                    {
                        return Err(OptError::Other(format!(
                            "--{} selects {} {}, but --{} {other} was given",
                            f.name,
                            e.site.flag(),
                            e.name,
                            e.site.flag()
                        )));
                    }
                    values.set(e.site.flag(), e.name);
                    used.push(f.name);
                }
            }
        }
        // A policy's implications first, latest site first, so that one may set the policy
        // of a site parsed before its own (`--kernel-sched maestro` implies `--sm-alloc
        // twoway`).
        for site in SiteKind::ALL.into_iter().rev() {
            let name = values.given(site.flag()).unwrap_or(site.default_policy());
            for (k, v) in find(site, name).map_or(&[][..], |e| e.implies) {
                if values.given(k).is_none() {
                    values.set(k, v);
                }
            }
        }
        let mut chosen: Vec<SitePolicy> = vec![];
        for site in SiteKind::ALL {
            let name = values.given(site.flag()).unwrap_or(site.default_policy());
            let entry = find(site, name).ok_or_else(|| {
                OptError::Other(format!(
                    "unknown {} `{name}`; choose {}",
                    site.title(),
                    names_at(site).join(", ")
                ))
            })?;
            for (k, v) in entry.implies {
                if values.given(k).is_none() {
                    values.set(k, v);
                }
            }
            used.push(site.flag());
            used.extend(entry.options.iter().map(|o| o.name));
            chosen.push((entry.parse)(values)?);
        }
        let (mut warp_issue, mut lsu_queue, mut tb_dispatch, mut sm_alloc, mut kernel_sched) =
            (None, None, None, None, None);
        for (site, c) in SiteKind::ALL.into_iter().zip(chosen) {
            let ok = match c {
                SitePolicy::WarpIssue(p) if site == SiteKind::WarpIssue => {
                    warp_issue.replace(p).is_none()
                }
                SitePolicy::LsuQueue(p) if site == SiteKind::LsuQueue => {
                    lsu_queue.replace(p).is_none()
                }
                SitePolicy::TbDispatch(p) if site == SiteKind::TbDispatch => {
                    tb_dispatch.replace(p).is_none()
                }
                SitePolicy::SmAlloc(p) if site == SiteKind::SmAlloc => {
                    sm_alloc.replace(p).is_none()
                }
                SitePolicy::KernelSched(p) if site == SiteKind::KernelSched => {
                    kernel_sched.replace(p).is_none()
                }
                other => panic!("a policy of {} parsed into {other:?}", site.flag()),
            };
            debug_assert!(ok);
        }
        let plan = Plan {
            warp_issue: warp_issue.expect("every site is parsed"),
            lsu_queue: lsu_queue.expect("every site is parsed"),
            tb_dispatch: tb_dispatch.expect("every site is parsed"),
            sm_alloc: sm_alloc.expect("every site is parsed"),
            kernel_sched: kernel_sched.expect("every site is parsed"),
        };
        Ok((plan, used))
    }

    /// The names of the policies, per site.
    pub fn names(&self) -> [(SiteKind, &'static str); 5] {
        [
            (SiteKind::WarpIssue, self.warp_issue.entry().name),
            (SiteKind::LsuQueue, self.lsu_queue.entry().name),
            (SiteKind::TbDispatch, self.tb_dispatch.entry().name),
            (SiteKind::SmAlloc, self.sm_alloc.entry().name),
            (SiteKind::KernelSched, self.kernel_sched.entry().name),
        ]
    }

    /// Names of the block kinds this plan uses.
    pub fn blocks(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = vec![];
        for e in [
            self.warp_issue.entry(),
            self.lsu_queue.entry(),
            self.tb_dispatch.entry(),
            self.sm_alloc.entry(),
            self.kernel_sched.entry(),
        ] {
            for b in e.blocks {
                if !v.contains(b) {
                    v.push(b);
                }
            }
        }
        v
    }

    /// Whether every policy can serve `cfg`.
    pub fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        self.warp_issue.check(cfg)?;
        self.lsu_queue.check(cfg)?;
        self.tb_dispatch.check(cfg)?;
        self.sm_alloc.check(cfg)?;
        self.kernel_sched.check(cfg, self)
    }

    /// The label of the run's scheduling configuration with I-prefetch threshold `iprefetch`
    /// (the kernel scheduler's part last, none for the default).
    pub fn label(&self, iprefetch: u32) -> String {
        let mut l = self.warp_issue.label(&LabelCtx {
            lsu_queue: self.lsu_queue.entry().name,
            lsu_suffix: self.lsu_queue.label_suffix(),
            iprefetch,
        });
        l.push_str(&self.kernel_sched.label_suffix());
        l
    }

    /// What every kernel needs before its first block: the dispatcher's preparation first (a
    /// shared analysis then takes its settings), then the warp issue's.
    pub fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        self.tb_dispatch.prepare(cfg, kernel, prepared)?;
        self.warp_issue.prepare(cfg, kernel, prepared)
    }
}

/// The names of the policies at `site`.
pub fn names_at(site: SiteKind) -> Vec<&'static str> {
    registry()
        .into_iter()
        .filter(|e| e.site == site)
        .map(|e| e.name)
        .collect()
}

/// What `--name` needs when the chosen policies do not take it: the site options and
/// policies that do (`--warp-sched elf or elf++`).
pub fn needs(name: &str) -> String {
    let takers: Vec<&PolicyEntry> = registry()
        .into_iter()
        .filter(|e| e.options.iter().any(|o| o.name == name))
        .collect();
    let mut parts = vec![];
    for site in SiteKind::ALL {
        let here: Vec<&str> = takers
            .iter()
            .filter(|e| e.site == site)
            .map(|e| e.name)
            .collect();
        if here.is_empty() {
            continue;
        }
        let list = match here.len() {
            1 => here[0].to_string(),
            n => format!("{} or {}", here[..n - 1].join(", "), here[n - 1]),
        };
        parts.push(format!("--{} {list}", site.flag()));
    }
    if parts.is_empty() {
        "a policy that takes it".into()
    } else {
        parts.join(" or ")
    }
}

#[cfg(test)]
mod tests;
