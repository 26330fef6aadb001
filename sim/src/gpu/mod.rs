//! The golden GPU model: SMs ([`sm`]), the memory system ([`memory`]), the thread-block
//! dispatcher block, and the run loop with statistics ([`stats`]) and a deadlock watchdog.
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

mod dispatch;
pub mod memory;
pub mod sites;
pub mod sm;
pub mod stats;

use crate::analysis::elf::RecalcPolicy;
use crate::analysis::locality::RectMode;
use crate::block::BlockKind;
use crate::blocks::warp_arbiter;
use crate::blocks::{elf as elf_block, newcar as newcar_block, sm_alloc};
use crate::config::GpuConfig;
use crate::core::occupancy::{occupancy, DoesNotFit, Footprint, Occupancy};
use crate::policy::{Plan, TbSched, WarpIssue, ELF_SLOTS};
use crate::workload::kernel::{
    BlockIdSet, KernelInfo, KernelSource, WorkloadError, WorkloadSource,
};
use crate::workload::Dim3;
use memory::MemorySystem;
use serde::Serialize;
use sites::{BlockFault, Provider, Site, Slot};
use sm::elf::ElfProgram;
use sm::{Sm, SmBlocks, CODE_BASE, CODE_STRIDE};
use stats::{Counters, SmCounts};
use std::sync::Arc;
use thiserror::Error;

/// The thesis's I-prefetch threshold (spec §1.10: 16 occupied L1I + L1D MSHRs).
pub const IPREFETCH_THRESHOLD: u32 = 16;

/// Default deadlock watchdog: cycles without any issue before a run is declared stuck.
pub const DEFAULT_WATCHDOG: u64 = 100_000;

/// How a run is configured beyond the GPU itself.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Warp-scheduler policy of every scheduler.
    pub warp_sched: warp_arbiter::Policy,
    /// Thread-block dispatch policy.
    pub tb_sched: TbSched,
    /// LAWS issues: one `locality_degree` block per scheduler replaces the warp arbiter
    /// (`warp_sched` is then unused).
    pub laws: bool,
    /// LAWS: active group size (0: the configuration's two-level active count).
    pub la_active: usize,
    /// Locality-aware dispatch: candidate window, blocks (0: the whole queue, the thesis).
    pub la_window: usize,
    /// Locality-aware dispatch: how blocks' rectangles are found.
    pub la_rect: RectMode,
    /// Stop after this many cycles (the report says it was cut short).
    pub max_cycles: Option<u64>,
    /// Cycles without any instruction issued anywhere before the run fails as deadlocked.
    pub watchdog: u64,
    /// Every instruction fetch hits.
    pub perfect_l1i: bool,
    /// ELF issues: one `elf` block per SM replaces the warp arbiters (`warp_sched` is then
    /// unused; at most four schedulers per SM).
    pub elf: bool,
    /// With ELF: fetch in ELF's priority order (spec §1.9); else round robin.
    pub elf_fetch: bool,
    /// With ELF: how the compiler sets branches' recalculation bits (spec A-2).
    pub elf_recalc: RecalcPolicy,
    /// With ELF: the calculator subtracts a merged load's score when `d >= score` (spec A-6)
    /// instead of the thesis's `d > score` (the default).
    pub elf_merge_ge: bool,
    /// With ELF: when a grant's WPT update reaches the selects (the spec's bypass, or
    /// registered: one cycle later, as a pipelined RTL would).
    pub elf_wpt: elf_block::WptUpdate,
    /// A NewCAR queue (`newcar` block) between every LSU and its L1D.
    pub newcar: bool,
    /// I-prefetch threshold on occupied L1I + L1D MSHRs (spec §1.10; 0: no prefetch).
    pub iprefetch: u32,
    /// Paired issue with warp arbiters (see [`sm`]): every scheduler's warps scanned before any
    /// grant, unit slots taken in grant order from the leading scheduler; ELF always issues
    /// paired, warp arbiters by default sequentially (later schedulers see the earlier ones'
    /// issues, GPGPU-Sim's order).
    pub paired_issue: bool,
    /// Cycles between audits that every request in flight can still complete (0: only when
    /// the watchdog fires). A failed audit ends the run with [`SimError::Lost`], a model
    /// error; tests audit often to show the audit holds on healthy runs.
    pub audit_interval: u64,
}

impl SimOptions {
    /// The thesis's ELF++: ELF issue and fetch, NewCAR and I-prefetch at threshold 16.
    pub fn elf_plus_plus() -> Self {
        Self {
            elf: true,
            newcar: true,
            iprefetch: IPREFETCH_THRESHOLD,
            ..Self::default()
        }
    }

    /// Short name of the scheduling configuration: `gto`, `two_level+newcar`, `elf`, `elf++`,
    /// `elf(rr-fetch)+iprefetch16`, `elf++(recalc=consistent)`, `elf++(merge=ge)`,
    /// `elf++(wpt=registered)`,
    /// `gto(paired)`...
    pub fn label(&self) -> String {
        let mut l = if self.elf {
            let mut notes = vec![];
            if !self.elf_fetch {
                notes.push("rr-fetch".to_string());
            }
            if self.elf_recalc != RecalcPolicy::default() {
                notes.push(format!("recalc={}", self.elf_recalc.name()));
            }
            if self.elf_merge_ge {
                notes.push("merge=ge".to_string());
            }
            if self.elf_wpt != elf_block::WptUpdate::default() {
                notes.push(format!("wpt={}", self.elf_wpt.name()));
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!("({})", notes.join(","))
            };
            if self.elf_fetch && self.newcar && self.iprefetch == IPREFETCH_THRESHOLD {
                return format!("elf++{notes}");
            }
            format!("elf{notes}")
        } else if self.laws {
            if self.paired_issue {
                "laws(paired)".to_string()
            } else {
                "laws".to_string()
            }
        } else if self.paired_issue {
            format!("{}(paired)", self.warp_sched.name())
        } else {
            self.warp_sched.name().to_string()
        };
        if self.newcar {
            l.push_str("+newcar");
        }
        if self.iprefetch > 0 {
            l.push_str(&format!("+iprefetch{}", self.iprefetch));
        }
        l
    }
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            warp_sched: warp_arbiter::Policy::Gto,
            tb_sched: TbSched::LRR,
            laws: false,
            la_active: 0,
            la_window: 0,
            la_rect: RectMode::FirstLast,
            max_cycles: None,
            watchdog: DEFAULT_WATCHDOG,
            perfect_l1i: false,
            elf: false,
            elf_fetch: true,
            elf_recalc: RecalcPolicy::Literal,
            elf_merge_ge: false,
            elf_wpt: elf_block::WptUpdate::Bypass,
            newcar: false,
            iprefetch: 0,
            paired_issue: false,
            audit_interval: 0,
        }
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
    /// With ELF: program points found (Algorithm 1) and loaded into the table (after
    /// Algorithm 2's merges).
    pub elf_points: Option<(usize, usize)>,
    /// With locality-aware dispatch: what the address pre-computation did not track, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locality_notes: Vec<String>,
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
    /// Warp-scheduler policy (`elf` when ELF issues).
    pub warp_sched: String,
    /// The whole scheduling configuration ([`SimOptions::label`]).
    pub policy: String,
    /// Issue mode: `sequential` or `paired`.
    pub issue: String,
    /// Fetch order: `round_robin` or `elf`.
    pub fetch: String,
    /// NewCAR queues in the LSUs.
    pub newcar: bool,
    /// I-prefetch threshold (0: off).
    pub iprefetch: u32,
    /// Thread-block dispatch policy.
    pub tb_sched: String,
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
    dispatcher: dispatch::Dispatcher<'a>,
    now: u64,
    last_issue: u64,
}

impl<'a> Gpu<'a> {
    /// A GPU of `cfg` running `opts`, every block its golden model.
    pub fn golden(cfg: &GpuConfig, opts: SimOptions) -> Result<Self, SimError> {
        Self::new(cfg, opts, &mut sites::GoldenBlocks)
    }

    /// A GPU of `cfg` running `opts`, whose blocks come from `blocks` (one call per site:
    /// per scheduler for the warp arbiters, per SM for ELF and NewCAR, one dispatcher).
    pub fn new<P: Provider<'a>>(
        cfg: &GpuConfig,
        opts: SimOptions,
        blocks: &mut P,
    ) -> Result<Self, SimError> {
        cfg.validate()
            .map_err(|e| SimError::Config(e.to_string()))?;
        let plan = Plan::new(cfg, &opts)?;
        let mut sms = Vec::with_capacity(cfg.sm.count as usize);
        for id in 0..cfg.sm.count as usize {
            let mut arbiters = Vec::with_capacity(cfg.sm.schedulers as usize);
            let mut laws = vec![];
            let mut elf = None;
            match &plan.warp_issue {
                WarpIssue::Arbiters(p) => {
                    for scheduler in 0..cfg.sm.schedulers as usize {
                        let site = Site::Scheduler { sm: id, scheduler };
                        arbiters.push(Slot::new(blocks, site, p)?);
                    }
                }
                WarpIssue::Laws(p) => {
                    for scheduler in 0..cfg.sm.schedulers as usize {
                        let site = Site::Scheduler { sm: id, scheduler };
                        laws.push(Slot::new(blocks, site, p)?);
                    }
                }
                WarpIssue::Elf(p) => {
                    let site = Site::Sm {
                        sm: id,
                        block: elf_block::Kind::NAME,
                    };
                    elf = Some(Slot::new(blocks, site, p)?);
                }
            }
            let site = Site::Sm {
                sm: id,
                block: newcar_block::Kind::NAME,
            };
            let newcar = plan
                .lsu_queue
                .as_ref()
                .map(|p| Slot::new(blocks, site, p))
                .transpose()?;
            let site = Site::Sm {
                sm: id,
                block: sm_alloc::Kind::NAME,
            };
            let alloc = Slot::new(blocks, site, &plan.sm_alloc)?;
            let blocks = SmBlocks {
                arbiters,
                laws,
                elf,
                newcar,
                alloc,
            };
            sms.push(Sm::new(id, cfg, blocks, &opts));
        }
        let dispatcher =
            dispatch::Dispatcher::new(blocks, &plan.tb_dispatch, cfg.sm.max_blocks as usize)?;
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
            c.newcar_enqueued += sm.counts.newcar_enqueued;
            let s = &sm.stalls;
            c.stalls.issued += s.issued;
            c.stalls.idle += s.idle;
            c.stalls.raw += s.raw;
            c.stalls.structural += s.structural;
            c.stalls.lsu_blocked += s.lsu_blocked;
        }
        c
    }

    fn policy_names(&self) -> (String, String) {
        let tb = self.opts.tb_sched.name();
        let warp = if self.opts.elf {
            "elf"
        } else if self.opts.laws {
            "laws"
        } else {
            self.opts.warp_sched.name()
        };
        (warp.to_string(), tb.to_string())
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
        let (warp_sched, tb_sched) = self.policy_names();
        Ok(Report {
            workload: workload.name().to_string(),
            config: self.cfg.name.clone(),
            warp_sched,
            tb_sched,
            policy: self.opts.label(),
            issue: if self.opts.elf || self.opts.paired_issue {
                "paired"
            } else {
                "sequential"
            }
            .into(),
            fetch: if self.opts.elf && self.opts.elf_fetch {
                "elf"
            } else {
                "round_robin"
            }
            .into(),
            newcar: self.opts.newcar,
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
        let info: KernelInfo = kernel.info().clone();
        let fp = Footprint {
            threads: info.block_threads(),
            regs_per_thread: info.regs_per_thread,
            shmem_bytes: info.shmem_bytes,
        };
        let occ = occupancy(&self.cfg.sm, &fp).map_err(|source| SimError::DoesNotFit {
            kernel: info.name.clone(),
            source,
        })?;
        let total = info.blocks();
        if total > u32::MAX as u64 {
            return Err(SimError::Config(format!(
                "kernel `{}`: {total} thread blocks exceed the dispatcher's 32-bit block id",
                info.name
            )));
        }
        let warps_per_tb = info.block_threads().div_ceil(self.cfg.sm.warp_size) as usize;
        let code_base = CODE_BASE + index as u64 * CODE_STRIDE;
        let program = if self.opts.elf {
            let code = kernel.static_code()?.unwrap_or_default();
            Some(Arc::new(ElfProgram::compile(
                &code,
                ELF_SLOTS,
                self.opts.elf_recalc,
                self.opts.elf_merge_ge,
            )))
        } else {
            None
        };
        let elf_points = program.as_ref().map(|p| (p.points_found, p.table.len()));
        let locality = self.opts.tb_sched == TbSched::Locality || self.opts.laws;
        if locality && total > crate::analysis::locality::MAX_BLOCKS {
            return Err(SimError::Config(format!(
                "kernel `{}`: locality-aware scheduling pre-computes every thread block's \
                 rectangles and holds them while the kernel runs; this kernel has {total} \
                 blocks, at most {} are supported",
                info.name,
                crate::analysis::locality::MAX_BLOCKS
            )));
        }
        let (footprints, locality_notes) = if locality {
            let (f, notes) = dispatch::precompute(kernel, self.opts.la_rect)?;
            (Some(f), notes)
        } else {
            (None, vec![])
        };
        self.dispatcher
            .start_kernel(total as u32, footprints.clone());
        let demand = fp.demand(self.cfg.sm.warp_size);
        for sm in &mut self.sms {
            sm.start_kernel(
                &demand,
                warps_per_tb,
                code_base,
                program.clone(),
                footprints.clone(),
                occ.blocks,
            );
        }
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
                let (one, two) = sm.room()?;
                room |= (one as u128) << i;
                room2 |= (two as u128) << i;
            }
            for (f, sm) in finished.iter_mut().zip(&mut self.sms) {
                f.clear();
                f.append(&mut sm.finished);
            }
            self.dispatcher.step(
                first,
                total as u32,
                occ.blocks.min(255) as u8,
                (room, room2),
                &finished,
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
                let sm_slot = self.sms[s].launch(id as u64, block)?;
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
                name: info.name.clone(),
                grid: info.grid,
                block: info.block,
                occupancy: occ,
                start_cycle: start.cycles,
                ipc: counters.ipc(),
                elf_points,
                locality_notes,
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
