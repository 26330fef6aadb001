//! The golden GPU model: SMs ([`sm`]), the memory system ([`memory`]), the units at the
//! sites ([`sites`]) that the run's policies build ([`crate::policy`]), the kernels it runs
//! ([`kernel`]), and the run loop with statistics ([`stats`]) and a deadlock watchdog.
//!
//! # One GPU cycle (core clock)
//! 1. replies that reached the SMs are handled (L1D/L1I fills wake loads and fetches);
//! 2. every SM's resource allocator (the `sm_alloc` site) takes the blocks the SM made resident
//!    and released in the previous cycle and says whether one or two more fit; the
//!    thread-block dispatcher (the `tb_dispatch` site) sees those answers and grants
//!    `(SM, block id)` pairs; the granted blocks are taken from the
//!    kernel by id and launch at once;
//! 3. every SM runs its cycle (LSU, issue through its warp arbiters, fetch, retire, requests);
//! 4. the memory system runs its cycle.
//!
//! Kernels of a workload run one after the other; a kernel ends when all its blocks have been
//! issued and have completed. Everything is deterministic: same inputs, same statistics.

pub mod caching;
pub mod kernel;
mod kernels;
pub mod memory;
mod run;
pub mod sites;
pub mod sm;
pub mod stats;
pub mod timeline;

use crate::config::GpuConfig;
use crate::core::occupancy::{DoesNotFit, Occupancy};
use crate::policy::{OptError, OptValues, Plan};
use crate::workload::kernel::WorkloadError;
use crate::workload::Dim3;
use memory::MemorySystem;
use serde::Serialize;
use sites::dispatch::DispatchUnit;
use sites::kernel_sched::{KernelSchedUnit, SmView};
use sites::{BlockFault, Provider};
pub use sm::StoreEvent;
use sm::{Sm, SmBlocks};
use stats::{Counters, KernelCounters, LoadCounts, PreemptionCounts, SmCounts};
use std::collections::BTreeMap;
use thiserror::Error;

/// Default deadlock watchdog: cycles without any issue before a run is declared stuck (raised
/// to 4x the configuration's longest legal wait, [`GpuConfig::longest_wait`], when that is
/// longer).
pub const DEFAULT_WATCHDOG: u64 = 100_000;

/// How a run is configured beyond the GPU itself.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// The policy at every site.
    pub plan: Plan,
    /// I-prefetch threshold on occupied L1I + L1D MSHRs (spec §1.10; 0: no prefetch).
    pub iprefetch: u32,
    /// Every instruction fetch hits.
    pub perfect_l1i: bool,
    /// A context switch saves and restores no data ([`crate::policy::FREE_SWITCH`]).
    pub free_switch: bool,
    /// Stop after this many cycles (the report says it was cut short).
    pub max_cycles: Option<u64>,
    /// Cycles without any instruction issued anywhere before the run fails as deadlocked.
    pub watchdog: u64,
    /// Cycles between audits that every request in flight can still complete (0: only when
    /// the watchdog fires). A failed audit ends the run with [`SimError::Lost`], a model
    /// error; tests audit often to show the audit holds on healthy runs.
    pub audit_interval: u64,
    /// Record every global store and atomic as it issues ([`Gpu::stores`]): what the
    /// preemption checks compare, since the model carries addresses, not data.
    pub record_stores: bool,
    /// Which global loads use the L1D (`--bypass`).
    pub bypass: caching::Bypass,
    /// SMs sleep through cycles in which they can only count stalls (the default; the
    /// statistics are the same either way, stepping every SM every cycle is slower).
    pub sm_sleep: bool,
}

impl SimOptions {
    /// The options `values` give (policies by site and their options, `iprefetch`,
    /// `perfect-l1i`); an option no chosen policy takes is an error naming what would.
    pub fn from_values(values: &OptValues) -> Result<Self, OptError> {
        let mut values = values.clone();
        let (plan, used) = Plan::parse(&mut values)?;
        for name in values.names() {
            let core = crate::policy::CORE_OPTIONS.iter().any(|o| o.name == name);
            if core || used.contains(&name) {
                continue;
            }
            return Err(match crate::policy::option_spec(name) {
                None => OptError::Unknown(name.to_string()),
                Some(_) => OptError::Unused {
                    name: name.to_string(),
                    needs: crate::policy::needs(name),
                },
            });
        }
        Ok(Self {
            plan,
            iprefetch: values.number(&crate::policy::IPREFETCH, 0..=u32::MAX)?,
            perfect_l1i: values.flag(&crate::policy::PERFECT_L1I)?,
            free_switch: values.flag(&crate::policy::FREE_SWITCH)?,
            max_cycles: None,
            watchdog: DEFAULT_WATCHDOG,
            audit_interval: 0,
            record_stores: false,
            bypass: Self::bypass_of(&values)?,
            sm_sleep: true,
        })
    }

    /// `--bypass` with `--bypass-eff`, which only a selection takes.
    fn bypass_of(values: &OptValues) -> Result<caching::Bypass, OptError> {
        use crate::analysis::bypass::profile::EffSource;
        use crate::policy::{BYPASS, BYPASS_EFF};
        let eff = match values.raw(&BYPASS_EFF)? {
            "oracle" => EffSource::Oracle,
            _ => EffSource::Global,
        };
        let mode = values.raw(&BYPASS)?;
        let bypass = caching::Bypass::parse(mode, eff)
            .expect("`one_of` admits only the modes `Bypass::parse` reads");
        if values.names().any(|n| n == BYPASS_EFF.name)
            && !matches!(bypass, caching::Bypass::Select(..))
        {
            return Err(OptError::Invalid {
                name: BYPASS_EFF.name.into(),
                value: values.raw(&BYPASS_EFF)?.into(),
                why: "only --bypass exact, heuristic or empirical selects loads by their efficiencies".into(),
            });
        }
        Ok(bypass)
    }

    /// The options of the command-line style `args` (`--warp-sched elf++ --iprefetch 8`):
    /// sites' policies, their options and the core options.
    pub fn parse(args: &str) -> Result<Self, OptError> {
        Self::from_values(&OptValues::parse_args(args, &crate::policy::option_spec)?)
    }

    /// Short name of the scheduling configuration: `gto`, `two_level+newcar`, `elf`, `elf++`,
    /// `elf(rr-fetch)+iprefetch16`, `elf++(recalc=consistent)`, `gto(paired)`...
    pub fn label(&self) -> String {
        let mut l = self.plan.label(self.iprefetch);
        if self.free_switch {
            l.push_str("+free-switch");
        }
        l.push_str(self.bypass.label());
        l
    }
}

impl Default for SimOptions {
    fn default() -> Self {
        Self::parse("").expect("the default policies parse")
    }
}

/// Why a run failed.
#[derive(Debug, Error)]
pub enum SimError {
    /// The workload could not be read.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The configuration cannot be simulated as asked.
    #[error("{0}")]
    Config(String),
    /// A kernel's block does not fit on an SM.
    #[error("kernel `{kernel}`: {source}")]
    DoesNotFit {
        /// Kernel name.
        kernel: String,
        /// Why.
        source: DoesNotFit,
    },
    /// No instruction issued anywhere for `idle` cycles.
    #[error("deadlock: no instruction issued for {idle} cycles (cycle {cycle}){note}; stuck warps:\n  {}", warps.join("\n  "))]
    Deadlock {
        /// Cycle of detection.
        cycle: u64,
        /// Cycles without issue.
        idle: u64,
        /// Empty, or why this may be no deadlock (the watchdog is not longer than a wait the
        /// configuration allows, named).
        note: String,
        /// One line per stuck warp: where it is and what it waits on.
        warps: Vec<String>,
    },
    /// The model lost a request: something waits for a reply that nothing in flight can
    /// give (found by the audit when the watchdog fires). A bug in the model, not in the
    /// workload.
    #[error("model error at cycle {cycle}: requests were lost inside the simulator (a bug in gpusched, not in the workload; please report it):\n  {}", lost.join("\n  "))]
    Lost {
        /// Cycle of detection.
        cycle: u64,
        /// One line per wait that cannot end: where, and what is missing.
        lost: Vec<String>,
    },
    /// A block implementation failed (lockstep mismatch, Verilator error).
    #[error("{site}: {source}")]
    Block {
        /// Where (`sm<i>_sched<j>`, `sm<i>_elf`, `sm<i>_newcar`).
        site: String,
        /// The block's error.
        source: BlockFault,
    },
    /// A block broke the port protocol (granted a warp that was not ready).
    #[error("{0}")]
    Protocol(String),
}

/// Progress of a run, reported about every 16k cycles.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cycles so far.
    pub cycle: u64,
    /// Thread instructions so far.
    pub thread_instructions: u64,
    /// The oldest kernel running (its launch index, 0-based).
    pub kernel: usize,
    /// Kernels finished, and launched in all (so far, with periodic ones).
    pub kernels_done: usize,
    /// Blocks of the running kernels completed.
    pub blocks_done: u64,
    /// Blocks of the running kernels.
    pub blocks_total: u64,
}

/// One kernel's part of a run.
#[derive(Clone, Debug, Serialize)]
pub struct KernelReport {
    /// Kernel name.
    pub name: String,
    /// Its launch index in the run (periodic instances each have their own).
    pub launch: usize,
    /// The workload's launch it instantiates (its position in the mix file's or the trace's
    /// list of kernels).
    pub spec: usize,
    /// Its CUDA stream.
    pub stream: u32,
    /// Its priority (0 the lowest).
    pub priority: u8,
    /// Grid dimensions.
    pub grid: Dim3,
    /// Block dimensions.
    pub block: Dim3,
    /// Resident blocks per SM and what limits them.
    pub occupancy: Occupancy,
    /// The cycle it arrived (its arrival time had come and its stream's kernel before it had
    /// finished).
    pub arrival: u64,
    /// Cycle the kernel started (took a kernel slot).
    pub start_cycle: u64,
    /// Cycle it finished (or the run ended).
    pub end_cycle: u64,
    /// Cycles from its arrival to its end.
    pub turnaround: u64,
    /// It should have finished within this many cycles of its arrival.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    /// Whether it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_met: Option<bool>,
    /// The run ended before the kernel finished.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The kernel scheduler killed it (its blocks dropped, the rest never dispatched).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub killed: bool,
    /// Thread instructions per cycle over the kernel.
    pub ipc: f64,
    /// What the policies report of their preparation (`elf_points`: ELF's program points
    /// found by Algorithm 1 and loaded after Algorithm 2's merges; `locality_notes`: what the
    /// address pre-computation did not track, and why).
    #[serde(flatten)]
    pub prepared: BTreeMap<String, serde_json::Value>,
    /// What its thread-block dispatcher reports of it (`paver_tb`: `steals`, the steals
    /// committed, and `stolen_blocks`, the blocks they moved); absent for the others.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dispatch: BTreeMap<String, serde_json::Value>,
    /// Its counters: its instructions and blocks, and the events its requests caused.
    #[serde(flatten)]
    pub counters: KernelCounters,
    /// Its blocks taken off SMs, by technique.
    pub preemptions: PreemptionCounts,
    /// Its global loads, one per PC in PC order ([`stats::LoadCounts`]).
    pub loads: Vec<LoadCounts>,
}

/// One stream's part of a run.
#[derive(Clone, Debug, Serialize)]
pub struct StreamReport {
    /// The stream id.
    pub stream: u32,
    /// Kernels it ran.
    pub kernels: usize,
    /// The first arrival of its kernels.
    pub first_arrival: u64,
    /// The last end of its kernels.
    pub last_end: u64,
    /// Warp instructions of its kernels.
    pub warp_instructions: u64,
    /// Thread instructions of its kernels.
    pub thread_instructions: u64,
}

/// The result of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Workload name.
    pub workload: String,
    /// Configuration name.
    pub config: String,
    /// Warp-scheduler policy (`elf` for `elf++` too).
    pub warp_sched: String,
    /// The whole scheduling configuration ([`SimOptions::label`]).
    pub policy: String,
    /// Issue mode: `sequential` or `paired`.
    pub issue: String,
    /// Fetch order: `round_robin` or `elf`.
    pub fetch: String,
    /// The LSU-queue policy (`none`, `newcar`).
    pub lsu_queue: String,
    /// I-prefetch threshold (0: off).
    pub iprefetch: u32,
    /// Thread-block dispatch policy.
    pub tb_sched: String,
    /// SM resource-allocation policy.
    pub sm_alloc: String,
    /// Kernel-scheduler policy.
    pub kernel_sched: String,
    /// The resource allocators' counters, summed over the SMs (the 2-way and first-fit
    /// allocators' offers, refusals and fragmentation).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub sm_alloc_stats: BTreeMap<String, u64>,
    /// The same counters over time ([`timeline`]).
    #[serde(skip_serializing_if = "timeline::AllocTimeline::is_empty")]
    pub sm_alloc_timeline: timeline::AllocTimeline,
    /// What the kernel scheduler reports of its decisions (Chimera's preemption requests).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel_sched_stats: BTreeMap<String, serde_json::Value>,
    /// The run stopped at `--max-cycles` before the workload finished.
    pub truncated: bool,
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// Counters over the whole run.
    #[serde(flatten)]
    pub counters: Counters,
    /// Per kernel, in launch order.
    pub kernels: Vec<KernelReport>,
    /// Per stream, by id.
    pub streams: Vec<StreamReport>,
    /// Per SM.
    pub sms: Vec<SmCounts>,
    /// Opcodes the SASS table did not know (run as integer ALU).
    pub unknown_opcodes: Vec<String>,
    /// Loads' and stores' modifiers the trace reader did not know (each such opcode runs with
    /// the default cache operator), one note each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_modifiers: Vec<String>,
    /// With `--bypass exact|heuristic|empirical`: what the bypass framework's profiling runs measured
    /// and chose (set by the command that made the plan; a GPU leaves it `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bypass_plan: Option<crate::analysis::bypass::profile::Plan>,
}

/// The GPU.
pub struct Gpu<'a> {
    cfg: GpuConfig,
    opts: SimOptions,
    sms: Vec<Sm<'a>>,
    mem: MemorySystem,
    /// The kernel scheduler.
    ksched: Box<dyn KernelSchedUnit + 'a>,
    /// Per kernel slot: its thread-block dispatcher.
    dispatchers: Vec<Box<dyn DispatchUnit<'a> + 'a>>,
    /// Per SM, per kernel slot: resident blocks, and of them, those being preempted.
    resident: Vec<SmView>,
    now: u64,
    last_issue: u64,
    /// The allocators' counters over time.
    alloc_timeline: timeline::AllocTimeline,
}

impl<'a> Gpu<'a> {
    /// A GPU of `cfg` running `opts`, every block its golden model.
    pub fn golden(cfg: &GpuConfig, opts: SimOptions) -> Result<Self, SimError> {
        Self::new(cfg, opts, &mut sites::GoldenBlocks)
    }

    /// A GPU of `cfg` running `opts`, whose blocks come from `blocks` (each policy asks for the
    /// blocks of its units: per SM, the warp issue's, the LSU queue's and the allocator's, then
    /// one dispatcher per kernel slot).
    pub fn new<P: Provider<'a>>(
        cfg: &GpuConfig,
        mut opts: SimOptions,
        blocks: &mut P,
    ) -> Result<Self, SimError> {
        cfg.validate()
            .map_err(|e| SimError::Config(e.to_string()))?;
        // The default watchdog stays 4x longer than any wait the configuration allows.
        if opts.watchdog == DEFAULT_WATCHDOG {
            opts.watchdog = DEFAULT_WATCHDOG.max(4 * cfg.longest_wait().0);
        }
        if let caching::Bypass::Select(..) = opts.bypass {
            return Err(SimError::Config(
                "`--bypass exact|heuristic|empirical` selects the loads by profiling runs first: the \
                 `sim` command does that; a GPU runs a selection it is given"
                    .into(),
            ));
        }
        let plan = &opts.plan;
        plan.check(cfg)?;
        let provider: &mut dyn crate::blocks::DynProvider<'a> = blocks;
        let mut sms = Vec::with_capacity(cfg.sm.count as usize);
        for id in 0..cfg.sm.count as usize {
            let units = SmBlocks {
                issue: plan.warp_issue.build(cfg, provider, id)?,
                lsu_queue: plan.lsu_queue.build(cfg, provider, id)?,
                alloc: plan.sm_alloc.build(cfg, provider, id)?,
            };
            sms.push(Sm::new(id, cfg, units, &opts));
        }
        let ksched = plan.kernel_sched.build(cfg, provider)?;
        let slots = ksched.slots();
        let dispatchers = (0..slots)
            .map(|slot| plan.tb_dispatch.build(cfg, provider, slot))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            dispatchers,
            ksched,
            resident: vec![
                SmView {
                    blocks: vec![0; slots],
                    preempting: vec![0; slots],
                };
                cfg.sm.count as usize
            ],
            mem: MemorySystem::new(cfg),
            cfg: cfg.clone(),
            opts,
            sms,
            now: 0,
            last_issue: 0,
            alloc_timeline: timeline::AllocTimeline::new(),
        })
    }

    fn counters(&self) -> Counters {
        let mut c = Counters {
            cycles: self.now,
            l2: self.mem.l2_counts(),
            dram: self.mem.dram_counts(),
            ..Default::default()
        };
        (c.icnt_up_flits, c.icnt_down_flits) = self.mem.flits();
        for sm in &self.sms {
            c.warp_instructions += sm.counts.warp_instructions;
            c.thread_instructions += sm.counts.thread_instructions;
            c.blocks += sm.counts.blocks;
            let (l1i, l1d) = sm.l1_stats();
            c.l1i.add(l1i);
            c.l1d.add(l1d);
            c.lsu_queue_enqueued += sm.counts.lsu_queue_enqueued;
            let s = &sm.stalls;
            c.stalls.issued += s.issued;
            c.stalls.idle += s.idle;
            c.stalls.raw += s.raw;
            c.stalls.structural += s.structural;
            c.stalls.lsu_blocked += s.lsu_blocked;
            c.stalls.preempted += s.preempted;
            c.stalls.multi_issued += s.multi_issued;
        }
        c
    }

    /// Every global store and atomic issued so far, sorted (with
    /// [`SimOptions::record_stores`]; empty otherwise).
    pub fn stores(&self) -> Vec<StoreEvent> {
        let mut v: Vec<StoreEvent> = self
            .sms
            .iter()
            .flat_map(|s| s.stores.iter().flatten().copied())
            .collect();
        v.sort_unstable();
        v
    }

    /// Kernel `launch`'s global loads, summed over the SMs, in PC order.
    fn load_counts(&self, launch: usize) -> Vec<LoadCounts> {
        let mut by_pc: BTreeMap<u32, LoadCounts> = BTreeMap::new();
        for c in self
            .sms
            .iter()
            .flat_map(|sm| sm.load_counts_of(launch as u32))
        {
            by_pc
                .entry(c.pc)
                .or_insert(LoadCounts {
                    pc: c.pc,
                    ..Default::default()
                })
                .add(c);
        }
        by_pc.into_values().collect()
    }

    /// Kernel `launch`'s counters from every SM and the memory system, over `cycles`.
    fn kernel_counters(&self, launch: usize, cycles: u64, blocks: u64) -> KernelCounters {
        let k = launch as u32;
        let mut c = KernelCounters {
            cycles,
            blocks,
            l2: self.mem.l2_counts_of(k),
            dram: self.mem.dram_counts_of(k),
            ..Default::default()
        };
        for sm in &self.sms {
            let (warp, thread) = sm.kernel_instructions(k);
            c.warp_instructions += warp;
            c.thread_instructions += thread;
            let (l1i, l1d) = sm.l1_stats_of(k);
            c.l1i.add(&l1i);
            c.l1d.add(&l1d);
        }
        c
    }
}

impl Gpu<'_> {
    /// The lost-request audit ([`MemorySystem::audit`], [`Sm::audit`]): an error naming every
    /// wait that nothing in flight can end.
    fn audit(&self) -> Result<(), SimError> {
        let held = self.mem.held();
        let mut lost = vec![];
        self.mem.audit(&held, &mut lost);
        for sm in &self.sms {
            sm.audit(&held, &mut lost);
        }
        if lost.is_empty() {
            Ok(())
        } else {
            Err(SimError::Lost {
                cycle: self.now,
                lost,
            })
        }
    }
}

#[cfg(test)]
impl<'a> Gpu<'a> {
    /// The long-stall rule of SM `sm`'s issue unit.
    pub(crate) fn sm_long_op_rule(&self, sm: usize) -> sites::issue::LongOpRule {
        self.sms[sm].long_op_rule()
    }

    /// Replaces the kernel scheduler (tests drive preemptions directly; it must have as many
    /// slots).
    pub(crate) fn set_kernel_sched(&mut self, unit: Box<dyn KernelSchedUnit + 'a>) {
        assert_eq!(unit.slots(), self.dispatchers.len());
        self.ksched = unit;
    }

    /// Plants `fault` in every SM.
    pub(crate) fn plant(&mut self, fault: sm::PreemptFault) {
        for sm in &mut self.sms {
            sm.fault = Some(fault);
        }
    }

    /// Steps every SM's resource allocator once with no kernel offered (a test reads what the
    /// allocators were told in the run's last cycle).
    #[cfg(test)]
    pub(crate) fn step_allocators_idle(&mut self) -> Result<(), SimError> {
        self.sms.iter_mut().try_for_each(|sm| sm.step_alloc_idle())
    }
}

#[cfg(test)]
mod bypass_tests;
#[cfg(test)]
mod ksched_io_tests;
#[cfg(test)]
mod place_tests;
#[cfg(test)]
pub(crate) mod preempt_tests;
#[cfg(test)]
mod sleep_tests;
#[cfg(test)]
mod tests;
