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

pub mod kernel;
pub mod memory;
pub mod sites;
pub mod sm;
pub mod stats;

use crate::config::GpuConfig;
use crate::core::occupancy::{DoesNotFit, Occupancy};
use crate::policy::{OptError, OptValues, Plan};
use crate::workload::kernel::{BlockIdSet, KernelSource, WorkloadError, WorkloadSource};
use crate::workload::Dim3;
use kernel::KernelCtx;
use memory::MemorySystem;
use serde::Serialize;
use sites::dispatch::{DispatchIn, DispatchUnit};
use sites::{BlockFault, Provider};
use sm::{Sm, SmBlocks};
use stats::{Counters, SmCounts};
use std::collections::BTreeMap;
use std::sync::Arc;
use thiserror::Error;

/// Default deadlock watchdog: cycles without any issue before a run is declared stuck.
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
    /// Stop after this many cycles (the report says it was cut short).
    pub max_cycles: Option<u64>,
    /// Cycles without any instruction issued anywhere before the run fails as deadlocked.
    pub watchdog: u64,
    /// Cycles between audits that every request in flight can still complete (0: only when
    /// the watchdog fires). A failed audit ends the run with [`SimError::Lost`], a model
    /// error; tests audit often to show the audit holds on healthy runs.
    pub audit_interval: u64,
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
            max_cycles: None,
            watchdog: DEFAULT_WATCHDOG,
            audit_interval: 0,
        })
    }

    /// The options of the command-line style `args` (`--warp-sched elf++ --iprefetch 8`):
    /// sites' policies, their options and the core options.
    pub fn parse(args: &str) -> Result<Self, OptError> {
        Self::from_values(&OptValues::parse_args(args, &crate::policy::option_spec)?)
    }

    /// Short name of the scheduling configuration: `gto`, `two_level+newcar`, `elf`, `elf++`,
    /// `elf(rr-fetch)+iprefetch16`, `elf++(recalc=consistent)`, `gto(paired)`...
    pub fn label(&self) -> String {
        self.plan.label(self.iprefetch)
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
    #[error("deadlock: no instruction issued for {idle} cycles (cycle {cycle}); stuck warps:\n  {}", warps.join("\n  "))]
    Deadlock {
        /// Cycle of detection.
        cycle: u64,
        /// Cycles without issue.
        idle: u64,
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
    /// Kernel running (0-based).
    pub kernel: usize,
    /// Blocks of that kernel completed, and its total.
    pub blocks_done: u64,
    /// Blocks of the kernel.
    pub blocks_total: u64,
}

/// One kernel's part of a run.
#[derive(Clone, Debug, Serialize)]
pub struct KernelReport {
    /// Kernel name.
    pub name: String,
    /// Grid dimensions.
    pub grid: Dim3,
    /// Block dimensions.
    pub block: Dim3,
    /// Resident blocks per SM and what limits them.
    pub occupancy: Occupancy,
    /// Cycle the kernel started.
    pub start_cycle: u64,
    /// Thread instructions per cycle over the kernel.
    pub ipc: f64,
    /// What the policies report of their preparation (`elf_points`: ELF's program points
    /// found by Algorithm 1 and loaded after Algorithm 2's merges; `locality_notes`: what the
    /// address pre-computation did not track, and why).
    #[serde(flatten)]
    pub prepared: BTreeMap<String, serde_json::Value>,
    /// Counters over the kernel.
    #[serde(flatten)]
    pub counters: Counters,
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
    /// The run stopped at `--max-cycles` before the workload finished.
    pub truncated: bool,
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// Counters over the whole run.
    #[serde(flatten)]
    pub counters: Counters,
    /// Per kernel, in launch order.
    pub kernels: Vec<KernelReport>,
    /// Per SM.
    pub sms: Vec<SmCounts>,
    /// Opcodes the SASS table did not know (run as integer ALU).
    pub unknown_opcodes: Vec<String>,
}

/// The GPU.
pub struct Gpu<'a> {
    cfg: GpuConfig,
    opts: SimOptions,
    sms: Vec<Sm<'a>>,
    mem: MemorySystem,
    dispatcher: Box<dyn DispatchUnit<'a> + 'a>,
    now: u64,
    last_issue: u64,
}

impl<'a> Gpu<'a> {
    /// A GPU of `cfg` running `opts`, every block its golden model.
    pub fn golden(cfg: &GpuConfig, opts: SimOptions) -> Result<Self, SimError> {
        Self::new(cfg, opts, &mut sites::GoldenBlocks)
    }

    /// A GPU of `cfg` running `opts`, whose blocks come from `blocks` (each policy asks for the
    /// blocks of its units: per SM, the warp issue's, the LSU queue's and the allocator's, then
    /// the dispatcher's).
    pub fn new<P: Provider<'a>>(
        cfg: &GpuConfig,
        opts: SimOptions,
        blocks: &mut P,
    ) -> Result<Self, SimError> {
        cfg.validate()
            .map_err(|e| SimError::Config(e.to_string()))?;
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
        let dispatcher = plan.tb_dispatch.build(cfg, provider)?;
        Ok(Self {
            dispatcher,
            mem: MemorySystem::new(cfg),
            cfg: cfg.clone(),
            opts,
            sms,
            now: 0,
            last_issue: 0,
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
        }
        c
    }

    /// Runs every kernel of `workload` to completion (or to `max_cycles`), calling `progress`
    /// about every 16k cycles.
    pub fn run(
        &mut self,
        workload: &mut dyn WorkloadSource,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Report, SimError> {
        let mut kernels = vec![];
        let mut unknown: Vec<String> = vec![];
        let mut truncated = false;
        let mut index = 0;
        while let Some(mut kernel) = workload.next_kernel()? {
            let (report, cut) = self.run_kernel(kernel.as_mut(), index, progress)?;
            for op in kernel.unknown_opcodes() {
                if !unknown.contains(&op) {
                    unknown.push(op);
                }
            }
            kernels.push(report);
            index += 1;
            if cut {
                truncated = true;
                break;
            }
        }
        let counters = self.counters();
        let plan = &self.opts.plan;
        Ok(Report {
            workload: workload.name().to_string(),
            config: self.cfg.name.clone(),
            warp_sched: plan.warp_issue.report_name().into(),
            tb_sched: plan.tb_dispatch.entry().name.into(),
            policy: self.opts.label(),
            issue: plan.warp_issue.mode().name().into(),
            fetch: plan.warp_issue.fetch_order().into(),
            lsu_queue: plan.lsu_queue.entry().name.into(),
            sm_alloc: plan.sm_alloc.entry().name.into(),
            iprefetch: self.opts.iprefetch,
            truncated,
            ipc: counters.ipc(),
            counters,
            kernels,
            sms: self.sms.iter().map(|s| s.counts).collect(),
            unknown_opcodes: unknown,
        })
    }

    fn run_kernel(
        &mut self,
        kernel: &mut dyn KernelSource,
        index: usize,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(KernelReport, bool), SimError> {
        let mut ctx = KernelCtx::new(&self.cfg, kernel.info(), index)?;
        self.opts.plan.prepare(kernel, &mut ctx.prepared)?;
        let ctx = Arc::new(ctx);
        let total = ctx.total() as u64;
        self.dispatcher.start_kernel(&ctx);
        let start = self.counters();
        let start_blocks = start.blocks;
        let mut issued_blocks: u64 = 0;
        let mut granted = BlockIdSet::default();
        let mut grants = Vec::new();
        let mut finished: Vec<Vec<usize>> = vec![vec![]; self.sms.len()];
        let mut first = true;
        let mut cut = false;
        self.last_issue = self.now;
        loop {
            let now = self.now;
            for sm in &mut self.sms {
                sm.receive(&mut self.mem, now);
            }
            let (mut room, mut room2) = (0u128, 0u128);
            for (i, sm) in self.sms.iter_mut().enumerate() {
                let (one, two) = sm.room(&ctx)?;
                room |= (one as u128) << i;
                room2 |= (two as u128) << i;
            }
            for (f, sm) in finished.iter_mut().zip(&mut self.sms) {
                f.clear();
                f.append(&mut sm.finished);
            }
            self.dispatcher.step(
                &DispatchIn {
                    start: first,
                    total: total as u32,
                    max_per_sm: ctx.occupancy.blocks.min(255) as u8,
                    room,
                    room2,
                    finished: &finished,
                },
                &mut grants,
            )?;
            first = false;
            // Blocks are taken in id order (a trace streams when they come in order).
            grants.sort_by_key(|g| g.id);
            let (mut taken, mut taken2) = (0u128, 0u128);
            for g in &grants {
                let (s, id) = (g.sm, g.id);
                if id as u64 >= total || !granted.insert(id as u64) {
                    return Err(SimError::Protocol(format!(
                        "tb_dispatch: granted thread block {id} {} at cycle {now}",
                        if id as u64 >= total {
                            format!("of a kernel of {total}")
                        } else {
                            "a second time".into()
                        }
                    )));
                }
                // The first grant to an SM needs `room`, a second one `room2`.
                let fits = if taken >> s & 1 == 0 {
                    room
                } else {
                    room2 & !taken2
                };
                if fits >> s & 1 == 0 {
                    return Err(SimError::Protocol(format!(
                        "tb_dispatch: granted thread block {id} to SM {s}, which has no room for it, at cycle {now}"
                    )));
                }
                taken2 |= taken & 1 << s;
                taken |= 1 << s;
                let block = kernel.run_block(id as u64)?;
                let sm_slot = self.sms[s].launch(&ctx, id as u64, block)?;
                self.dispatcher.launched(g, sm_slot);
                issued_blocks += 1;
            }
            let mut issued = false;
            for sm in &mut self.sms {
                sm.cycle(now, &mut self.mem, &mut issued)?;
            }
            self.mem.cycle();
            self.now += 1;
            if issued {
                self.last_issue = self.now;
            }
            let done_blocks = self.sms.iter().map(|s| s.counts.blocks).sum::<u64>() - start_blocks;
            if issued_blocks == total && done_blocks == total {
                break;
            }
            let watchdog = self.now - self.last_issue > self.opts.watchdog;
            let interval = self.opts.audit_interval;
            if watchdog || (interval > 0 && self.now.is_multiple_of(interval)) {
                self.audit()?;
            }
            if watchdog {
                let mut warps = vec![];
                for sm in &self.sms {
                    sm.describe_stuck(self.now, &mut warps);
                }
                return Err(SimError::Deadlock {
                    cycle: self.now,
                    idle: self.now - self.last_issue,
                    warps,
                });
            }
            if self.now & 0x3fff == 0 {
                progress(&Progress {
                    cycle: self.now,
                    thread_instructions: self
                        .sms
                        .iter()
                        .map(|s| s.counts.thread_instructions)
                        .sum(),
                    kernel: index,
                    blocks_done: done_blocks,
                    blocks_total: total,
                });
            }
            if self.opts.max_cycles.is_some_and(|m| self.now >= m) {
                cut = true;
                break;
            }
        }
        let counters = self.counters().since(&start);
        Ok((
            KernelReport {
                name: ctx.info.name.clone(),
                grid: ctx.info.grid,
                block: ctx.info.block,
                occupancy: ctx.occupancy,
                start_cycle: start.cycles,
                ipc: counters.ipc(),
                prepared: ctx.prepared.reported().clone(),
                counters,
            },
            cut,
        ))
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
mod tests;
