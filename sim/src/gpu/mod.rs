//! The golden GPU model: SMs ([`sm`]), the memory system ([`memory`]), the thread-block
//! dispatcher block, and the run loop with statistics ([`stats`]) and a deadlock watchdog.
//!
//! # One GPU cycle (core clock)
//! 1. replies that reached the SMs are handled (L1D/L1I fills wake loads and fetches);
//! 2. the thread-block dispatcher (`blocks::tb_dispatch`, a port-level block) sees which SMs
//!    have room for one or two more blocks and issues blocks, which launch at once;
//! 3. every SM runs its cycle (LSU, issue through its warp arbiters, fetch, retire, requests);
//! 4. the memory system runs its cycle.
//!
//! Kernels of a workload run one after the other; a kernel ends when all its blocks have been
//! issued and have completed. Everything is deterministic: same inputs, same statistics.

pub mod arbiter;
pub mod memory;
pub mod sm;
pub mod stats;

use crate::block::Block;
use crate::blocks::tb_dispatch::{self, assignments, DispatchIn};
use crate::blocks::warp_arbiter::{self, Params as ArbiterParams};
use crate::config::GpuConfig;
use crate::core::occupancy::{occupancy, DoesNotFit, Footprint, Occupancy};
use crate::workload::kernel::{KernelInfo, KernelSource, WorkloadError, WorkloadSource};
use crate::workload::Dim3;
use arbiter::{ArbiterFactory, ArbiterSite, BlockFault};
use memory::MemorySystem;
use serde::Serialize;
use sm::{Sm, CODE_BASE, CODE_STRIDE};
use stats::{Counters, SmCounts};
use thiserror::Error;

/// Default deadlock watchdog: cycles without any issue before a run is declared stuck.
pub const DEFAULT_WATCHDOG: u64 = 100_000;

/// How a run is configured beyond the GPU itself.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Warp-scheduler policy of every scheduler.
    pub warp_sched: warp_arbiter::Policy,
    /// Thread-block dispatch policy.
    pub tb_sched: tb_dispatch::Policy,
    /// Stop after this many cycles (the report says it was cut short).
    pub max_cycles: Option<u64>,
    /// Cycles without any instruction issued anywhere before the run fails as deadlocked.
    pub watchdog: u64,
    /// Every instruction fetch hits.
    pub perfect_l1i: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            warp_sched: warp_arbiter::Policy::Gto,
            tb_sched: tb_dispatch::Policy::Lrr,
            max_cycles: None,
            watchdog: DEFAULT_WATCHDOG,
            perfect_l1i: false,
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
    /// A block implementation failed (lockstep mismatch, Verilator error).
    #[error("{site}: {source}")]
    Block {
        /// Where (`sm<i>_sched<j>`).
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
    /// Warp-scheduler policy.
    pub warp_sched: String,
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
    dispatcher: tb_dispatch::Golden,
    now: u64,
    last_issue: u64,
}

impl<'a> Gpu<'a> {
    /// The warp-arbiter parameters every scheduler of `cfg` uses under `policy`.
    pub fn arbiter_params(
        cfg: &GpuConfig,
        policy: warp_arbiter::Policy,
    ) -> Result<ArbiterParams, SimError> {
        let (warps, scheds) = (cfg.sm.max_warps, cfg.sm.schedulers);
        if scheds == 0 || warps % scheds != 0 {
            return Err(SimError::Config(format!(
                "sm.max_warps ({warps}) must be a multiple of sm.schedulers ({scheds})"
            )));
        }
        ArbiterParams::new(
            policy,
            (warps / scheds) as usize,
            cfg.sm.two_level_max_active as usize,
        )
        .map_err(|e| SimError::Config(format!("warp arbiter of `{}`: {e}", cfg.name)))
    }

    /// A GPU of `cfg` whose warp arbiters come from `factory` (one call per SM and scheduler).
    pub fn new(
        cfg: &GpuConfig,
        opts: SimOptions,
        factory: &mut ArbiterFactory<'a>,
    ) -> Result<Self, SimError> {
        cfg.validate()
            .map_err(|e| SimError::Config(e.to_string()))?;
        let params = Self::arbiter_params(cfg, opts.warp_sched)?;
        let mut sms = Vec::with_capacity(cfg.sm.count as usize);
        for id in 0..cfg.sm.count as usize {
            let mut arbiters = Vec::with_capacity(cfg.sm.schedulers as usize);
            for scheduler in 0..cfg.sm.schedulers as usize {
                let site = ArbiterSite { sm: id, scheduler };
                arbiters.push(factory(site, &params).map_err(|source| SimError::Block {
                    site: site.to_string(),
                    source,
                })?);
            }
            sms.push(Sm::new(id, cfg, arbiters, opts.perfect_l1i));
        }
        Ok(Self {
            dispatcher: tb_dispatch::Golden::new(tb_dispatch::Params::new(
                opts.tb_sched,
                cfg.sm.count as usize,
            )),
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
        let tb = match self.opts.tb_sched {
            tb_dispatch::Policy::Lrr => "lrr",
            tb_dispatch::Policy::Bcs => "bcs",
        };
        (self.opts.warp_sched.name().to_string(), tb.to_string())
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
        for sm in &mut self.sms {
            sm.start_kernel(occ.blocks, warps_per_tb, code_base);
        }
        let start = self.counters();
        let start_blocks = start.blocks;
        let mut issued_blocks: u64 = 0;
        let mut first = true;
        let mut cut = false;
        self.last_issue = self.now;
        loop {
            let now = self.now;
            for sm in &mut self.sms {
                sm.receive(&mut self.mem, now);
            }
            let (mut room, mut room2) = (0u128, 0u128);
            for (i, sm) in self.sms.iter().enumerate() {
                room |= (sm.has_room(1) as u128) << i;
                room2 |= (sm.has_room(2) as u128) << i;
            }
            let out = self.dispatcher.step(&DispatchIn {
                start: first,
                total: total as u32,
                max_per_sm: occ.blocks.min(255) as u8,
                room: room as u64,
                room2: room2 as u64,
                room_hi: (room >> 64) as u64,
                room2_hi: (room2 >> 64) as u64,
            });
            first = false;
            for (s, id, n) in assignments(&out, self.sms.len()) {
                for k in 0..n as u64 {
                    debug_assert_eq!(id as u64 + k, issued_blocks);
                    let block = kernel.next_block()?.ok_or_else(|| {
                        SimError::Config(format!(
                            "kernel `{}` ended after {issued_blocks} of its {total} thread blocks",
                            info.name
                        ))
                    })?;
                    self.sms[s].launch(block);
                    issued_blocks += 1;
                }
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
            if self.now - self.last_issue > self.opts.watchdog {
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
                counters,
            },
            cut,
        ))
    }
}

#[cfg(test)]
mod tests;
