//! One streaming multiprocessor: resident thread blocks and their warps, fetch through the
//! L1I into per-warp i-buffers, a scoreboard, the warp schedulers (each choosing through its
//! warp arbiter's ports), SP/SFU pipelines, the load/store unit with the coalescer, L1D and
//! shared memory, barriers and warp/block completion.
//!
//! The SM is split by stage, one file each (and `audit.rs`, the check that what it waits for
//! from memory is in flight): `lsu.rs` (the LSU, loads in flight, replies and
//! requests), `issue.rs` (scoreboard, the warp-issue site, execution), `collector.rs` (GPGPU-Sim's operand
//! collector, pipelines and writeback, when enabled), `fetch.rs` and
//! `warps.rs` (launch, barriers, retirement); [`elf`] and [`newcar`] are the SM's side of those blocks'
//! ports, used by the stage that owns their site. This file holds the SM's state and the cycle.
//!
//! # One core cycle ([`Sm::cycle`]), in order
//! 0. With `pipeline.operand_collector.enabled`, the collector's writeback first (`collector.rs`;
//!    its execute and operand-read stages run after the LSU, before issue; the LSU then holds
//!    one instruction and its L1D latency queue sits in front of the tag lookup).
//! 1. **LSU**: the oldest instruction in the load/store unit sends at most one coalesced
//!    transaction to the L1D (GPGPU-Sim's one access per cycle); a refused access is retried
//!    next cycle. The LSU holds up to `pipeline.lsu_queue` memory instructions in issue order
//!    (GPGPU-Sim's memory operand collectors in front of the LDST unit); a shared-memory
//!    access holds it for its bank-conflict cycles.
//!    With NewCAR ([`newcar`]) the transaction goes through the re-execution queue instead.
//! 2. **Issue**. *Sequential* (the default with warp arbiters): scheduler by scheduler, from
//!    scheduler `active cycles % schedulers` (GPGPU-Sim's `Issue_Prio`, rotating in every cycle
//!    the SM has a block; later schedulers see the units the earlier ones took), the SM
//!    presents `ready`
//!    (decoded instruction in the i-buffer, operands and destinations clear on the scoreboard,
//!    a free unit for its class), `long_stall` (at a barrier, exited, or a source operand
//!    carries the long-op mark, as GPGPU-Sim's `islongop` test; for the locality-aware
//!    scheduler, a source waits on a load in flight), `launch` and `exit` to the arbiter and
//!    issues the granted warp's instruction.
//!    *Paired* (ELF, whose one block grants for every scheduler at once, or `paired_issue`):
//!    every scheduler's warps are scanned at the start of the cycle, before any grant (a
//!    barrier released by one scheduler's issue frees the other's warps next cycle); then,
//!    from the leading scheduler (`active cycles % schedulers`, rotating like GPGPU-Sim's
//!    `Issue_Prio`), each scheduler is offered its warps whose unit still has a free slot and
//!    takes a slot only for the warp it grants. Grants are issued in that order ([`elf`]).
//! 3. **Fetch**: a returned L1I line first fills the i-buffers of the warps that missed on
//!    it, one per cycle in the order they missed; otherwise one warp whose i-buffer is empty
//!    reads the L1I (round robin after the last fetched, from warp 1 at the start, moving on
//!    past a refused access as GPGPU-Sim's `RESERVATION_FAIL`; with ELF fetch, the warp the
//!    ELF block chose from its priorities); on a hit up
//!    to `min(fetch_width, ibuffer_entries)` instructions are decoded and usable
//!    `l1i.latency + pipeline.decode_cycles` cycles later; a miss parks the warp until the
//!    line returns. With I-prefetch, every demand access to line `X` also prefetches line
//!    `X + 1` when it is neither resident nor pending and fewer than `iprefetch` L1I + L1D
//!    MSHRs are occupied (spec §1.10).
//! 4. **Retire**: a warp that issued its last instruction and has no instruction in the
//!    operand collector, no load in flight and no unacknowledged store (GPGPU-Sim's
//!    `stores_done`) leaves when the fetch stage's round robin passes it this cycle
//!    (GPGPU-Sim reclaims finished warps inside its fetch loop) (its `exit` bit
//!    goes to the arbiter next cycle); the last warp of a block frees the block's resources.
//! 5. **Memory requests**: the L1I, then the L1D miss queue, then atomics, into the crossbar.
//!    With `pipeline.l1d_latency_queue`, an L1D miss or store first waits `l1d.latency`
//!    cycles in the L1D latency queue (at most that many waiting), as GPGPU-Sim's accesses
//!    wait before the tag lookup.
//!
//! # Scoreboard
//! Each warp register has the cycle from which it can be read ([`warps::Reg::ready`]) and
//! GPGPU-Sim's long-op mark ([`warps::Reg::long_op_until`]: set by a global load's issue, cleared by a
//! later non-memory writer's writeback, never by the load's completion). Every result
//! also pays the pipeline around its unit, `a = pipeline.operand_cycles +
//! pipeline.writeback_cycles` (GPGPU-Sim: 4 + 2): an ALU or SFU result is ready `latency + a`
//! cycles after issue (with `pipeline.operand_collector.enabled`, `collector.rs` times operand
//! collection, the pipelines and writeback instead, the registers wait for the writeback as
//! an event, and `a` is `writeback_cycles` alone), a shared load `conflict cycles + shared latency + a`, a load's
//! destinations `a` after its last transaction returns (fill at cycle `t`: `t + 1 + a`; L1D
//! hit: `l1d.latency + a` after the access).
//! `R255` (RZ) is never tracked.

mod audit;
mod collector;
pub mod elf;
mod fetch;
mod issue;
mod laws;
mod lsu;
pub mod newcar;
mod warps;

use issue::unit_bit;
use lsu::{LsuKind, LsuOp, PendingLoad};
use warps::{TbSlot, Warp};

use super::memory::{MemRequest, MemorySystem, ReqKind};
use super::sites::Slot;
use super::stats::{SmCounts, StallCounts};
use super::{SimError, SimOptions};
use crate::analysis::locality::Footprints;
use crate::block::low_bits;
use crate::blocks::locality_degree;
use crate::blocks::sm_alloc::{self, AllocIn};
use crate::blocks::warp_arbiter;
use crate::blocks::{elf as elf_block, newcar as newcar_block};
use crate::config::GpuConfig;
use crate::core::occupancy::Demand;
use crate::mem::cache::SetIndex;
use crate::mem::coalescer::coalesce;
use crate::mem::data_cache::{DataCache, Outcome};
use crate::mem::shared_mem::conflict_cycles;
use crate::workload::kernel::WarpInst;
use crate::workload::sass::OpClass;
use crate::workload::stream::RunBlock;
use std::sync::Arc;

/// The zero register: never tracked by the scoreboard.
pub const RZ: u16 = 255;
/// Registers tracked per warp.
const REGS: usize = 256;
/// Start of kernel code in the address space (GPGPU-Sim's `PROGRAM_MEM_START`); kernel `k`
/// of a run has its code at `CODE_BASE + k * CODE_STRIDE`.
pub const CODE_BASE: u64 = 0xF000_0000;
/// Address-space distance between the code of consecutive kernels.
pub const CODE_STRIDE: u64 = 0x0100_0000;

/// Most warp schedulers per SM (the configuration's limit).
const MAX_SCHEDULERS: usize = crate::config::MAX_SCHEDULERS as usize;

/// L1I request id of a prefetch (no warp waits on it).
const PREFETCH: u16 = u16::MAX;

/// The hardware blocks of one SM, at their sites.
pub struct SmBlocks<'a> {
    /// One warp arbiter per scheduler (empty when ELF or LAWS issues).
    pub arbiters: Vec<Slot<'a, warp_arbiter::Kind>>,
    /// One locality-aware scheduler per scheduler (`--warp-sched laws`).
    pub laws: Vec<Slot<'a, locality_degree::Kind>>,
    /// The ELF block (`--warp-sched elf`).
    pub elf: Option<Slot<'a, elf_block::Kind>>,
    /// The NewCAR queue (`--newcar`).
    pub newcar: Option<Slot<'a, newcar_block::Kind>>,
    /// The resource allocator.
    pub alloc: Slot<'a, sm_alloc::Kind>,
}

/// Latencies and widths the SM needs, from the configuration.
struct Timing {
    int_alu: (u64, u64),
    int_mul: (u64, u64),
    fp: (u64, u64),
    dp: (u64, u64),
    sfu: (u64, u64),
    shared: u64,
    l1d_hit: u64,
    l1i_hit: u64,
    fetch: u32,
    banks: u32,
    /// `pipeline.decode_cycles`.
    decode: u64,
    /// What a register result takes beyond its unit or its memory access: operand
    /// collection plus writeback, or writeback alone with the operand collector (which
    /// times the rest itself).
    around: u64,
    /// Cycles a miss or store waits in the L1D latency queue before it leaves (0: none).
    l1d_queue: u64,
    /// `pipeline.lsu_queue` (at least 1).
    lsu_queue: usize,
    /// Slots of the L1D latency queue in front of the tag lookup (0: none).
    l1d_pipe: usize,
}

/// One SM.
pub struct Sm<'a> {
    id: usize,
    warps: Vec<Warp>,
    tbs: Vec<TbSlot>,
    schedulers: usize,
    per_sched: usize,
    /// Per scheduler: its warp-issue site (empty when ELF issues).
    arbiters: Vec<laws::WarpSelect<'a>>,
    /// Which sources put a warp on a long stall: GPGPU-Sim's long-op mark for the warp
    /// arbiters, a load in flight for the locality-aware scheduler.
    long_ops: issue::LongOpRule,
    /// ELF (issue select, WPT, fetch order) when it replaces the arbiters.
    elf: Option<elf::ElfUnit<'a>>,
    /// The NewCAR queue in front of the L1D.
    newcar: Option<newcar::NewcarUnit<'a>>,
    /// Issue mode: paired (every ready mask before any grant) or sequential.
    paired: bool,
    /// I-prefetch threshold on occupied L1I + L1D MSHRs (0: off).
    iprefetch: u32,
    /// Arbiter inputs accumulated for this cycle (launch and exit bits).
    launch: Vec<u64>,
    /// Of `launch`, the warps of a second block launched in the same cycle.
    launch2: Vec<u64>,
    /// Blocks launched on the SM this cycle (before its issue stage).
    tbs_launched: u8,
    /// LAWS's starvation threshold: twice the kernel's blocks per SM (R5).
    starve_after: u8,
    /// The running kernel's access ranges (locality-aware dispatch and LAWS).
    footprints: Option<Arc<Footprints>>,
    exit: Vec<u64>,
    /// GPGPU-Sim's operand collector and pipelines (`pipeline.operand_collector`); without
    /// it, `sp_busy` and `sfu_busy` hold each pipeline's next free cycle.
    collector: Option<collector::Collector>,
    /// The collector's results of this cycle (kept to reuse its allocation).
    wb_buffer: Vec<collector::Id>,
    sp_busy: Vec<u64>,
    sfu_busy: Vec<u64>,
    /// Memory instructions in the LSU, the one it works on first (at most `lsu_queue`).
    lsu: std::collections::VecDeque<LsuOp>,
    lsu_busy_until: u64,
    pending: Vec<PendingLoad>,
    free_pending: Vec<u32>,
    l1d: DataCache<u32>,
    l1i: DataCache<u16>,
    perfect_l1i: bool,
    atomics: std::collections::VecDeque<MemRequest>,
    /// L1D misses and stores in the L1D latency queue, with the cycle each leaves
    /// (`pipeline.l1d_latency_queue`).
    l1d_queue: std::collections::VecDeque<(u64, MemRequest)>,
    /// Transactions in the L1D latency queue in front of the tag lookup, head first.
    l1d_pipe: std::collections::VecDeque<lsu::PipeTxn>,
    exiting: Vec<usize>,
    /// Warps whose missed L1I line returned, in the order they missed: served before any
    /// new fetch, one per cycle.
    ifill: std::collections::VecDeque<usize>,
    /// The warps the fetch stage's round robin passed this cycle, `from..=to` cyclically
    /// (`None`: none): only those of them that finished retire, as GPGPU-Sim reclaims a
    /// finished warp when its fetch loop passes it.
    reclaim: Option<(usize, usize)>,
    /// The last warp fetched (round robin; GPGPU-Sim starts at 0, so warp 1 fetches first).
    fetch_last: usize,
    /// Bit `w`: warp `w` wants a fetch.
    fetchable: u64,
    /// Per scheduler: its warps' masks and what [`Sm::scan`] keeps between cycles.
    scan_state: Vec<issue::ScanState>,
    /// Per warp: the cycle at which its scan class changes by time alone.
    change_at: Vec<u64>,
    timing: Timing,
    /// The resource allocator (room for more blocks).
    alloc: Slot<'a, sm_alloc::Kind>,
    /// What one block of the running kernel takes: threads, registers, shared memory, 1 slot.
    need: [u32; 4],
    /// Block slots whose blocks completed since the GPU last took them (the locality-aware
    /// dispatcher's `done`).
    pub finished: Vec<usize>,
    /// Resources of the blocks made resident and released since the allocator's last step.
    allocated: [u32; 4],
    released: [u32; 4],
    /// Resident blocks.
    resident: u32,
    warps_per_tb: usize,
    code_base: u64,
    /// Cycles before this one in which the SM had a block (the issue priority's rotation).
    active_cycles: u64,
    /// Counters of this SM.
    pub counts: SmCounts,
    /// Scheduler outcomes of this SM.
    pub stalls: StallCounts,
}

fn lat(l: crate::config::Latency) -> (u64, u64) {
    (l.latency as u64, l.initiation.max(1) as u64)
}

impl<'a> Sm<'a> {
    /// SM `id` of `cfg` with `blocks` (`arbiters[s]` serves scheduler `s`) and the SM options
    /// of `opts` (`perfect_l1i`, `paired_issue`, `iprefetch`, `elf_fetch`).
    pub fn new(id: usize, cfg: &GpuConfig, blocks: SmBlocks<'a>, opts: &SimOptions) -> Self {
        let sm = &cfg.sm;
        let schedulers = sm.schedulers as usize;
        let long_ops = match blocks.laws.is_empty() {
            true => issue::LongOpRule::Mark,
            false => issue::LongOpRule::InFlight,
        };
        let u = &cfg.units;
        // With the operand collector (and no NewCAR queue in front of the L1D), the L1D
        // latency queue sits in front of the tag lookup, as GPGPU-Sim's.
        let oc = Some(&cfg.pipeline.operand_collector).filter(|oc| oc.enabled);
        let pipe = oc.is_some() && blocks.newcar.is_none();
        let l1d_index = if cfg.l1d.line_bytes == 128 && matches!(cfg.l1d.sets(), 32 | 64) {
            SetIndex::FermiHash
        } else {
            SetIndex::Linear
        };
        Self {
            id,
            warps: (0..sm.max_warps).map(|_| Warp::new()).collect(),
            tbs: (0..sm.max_blocks)
                .map(|_| TbSlot {
                    active: false,
                    insts: RunBlock::default(),
                    first_warp: 0,
                    warps: 0,
                    left: 0,
                    arrived: 0,
                    takes: [0; 4],
                })
                .collect(),
            schedulers,
            per_sched: sm.max_warps as usize / schedulers,
            arbiters: blocks
                .arbiters
                .into_iter()
                .map(laws::WarpSelect::Arbiter)
                .chain(
                    blocks
                        .laws
                        .into_iter()
                        .map(|b| laws::WarpSelect::Laws(Box::new(laws::LawsUnit::new(b)))),
                )
                .collect(),
            long_ops,
            paired: opts.paired_issue || blocks.elf.is_some(),
            elf: blocks.elf.map(|b| elf::ElfUnit::new(b, opts.elf_fetch)),
            newcar: blocks
                .newcar
                .map(|b| newcar::NewcarUnit::new(b, crate::policy::NEWCAR_ENTRIES)),
            iprefetch: opts.iprefetch,
            launch: vec![0; schedulers],
            launch2: vec![0; schedulers],
            tbs_launched: 0,
            starve_after: 16,
            footprints: None,
            exit: vec![0; schedulers],
            collector: oc.map(|oc| {
                let (sp, sfu) = (u.sp_units as usize, u.sfu_units as usize);
                collector::Collector::new(oc, sp, sfu, sm.max_warps as usize)
            }),
            wb_buffer: vec![],
            sp_busy: vec![0; u.sp_units as usize],
            sfu_busy: vec![0; u.sfu_units as usize],
            lsu: Default::default(),
            lsu_busy_until: 0,
            pending: vec![],
            free_pending: vec![],
            l1d: DataCache::new(&cfg.l1d, l1d_index),
            l1i: DataCache::new(&cfg.l1i, SetIndex::Linear),
            perfect_l1i: opts.perfect_l1i,
            atomics: Default::default(),
            l1d_queue: Default::default(),
            l1d_pipe: Default::default(),
            exiting: vec![],
            ifill: Default::default(),
            reclaim: None,
            fetch_last: 0,
            fetchable: 0,
            scan_state: vec![issue::ScanState::default(); schedulers],
            change_at: vec![u64::MAX; sm.max_warps as usize],
            timing: Timing {
                int_alu: lat(u.int_alu),
                int_mul: lat(u.int_mul),
                fp: lat(u.fp),
                dp: lat(u.dp),
                sfu: lat(u.sfu),
                shared: u.shared_mem.latency as u64,
                l1d_hit: cfg.l1d.latency as u64,
                l1i_hit: cfg.l1i.latency.max(1) as u64,
                fetch: sm.fetch_width.min(sm.ibuffer_entries).max(1),
                banks: sm.shared_mem_banks,
                decode: cfg.pipeline.decode_cycles as u64,
                around: match oc {
                    Some(_) => cfg.pipeline.writeback_cycles as u64,
                    None => (cfg.pipeline.operand_cycles + cfg.pipeline.writeback_cycles) as u64,
                },
                lsu_queue: match oc {
                    Some(_) => 1,
                    None => cfg.pipeline.lsu_queue.max(1) as usize,
                },
                l1d_queue: match cfg.pipeline.l1d_latency_queue && !pipe {
                    true => cfg.l1d.latency as u64,
                    false => 0,
                },
                l1d_pipe: match cfg.pipeline.l1d_latency_queue && pipe {
                    true => cfg.l1d.latency.max(1) as usize,
                    false => 0,
                },
            },
            alloc: blocks.alloc,
            need: [0, 0, 0, 1],
            allocated: [0; 4],
            released: [0; 4],
            finished: vec![],
            resident: 0,
            warps_per_tb: 1,
            code_base: CODE_BASE,
            active_cycles: 0,
            counts: SmCounts::default(),
            stalls: StallCounts::default(),
        }
    }

    /// Prepares for a kernel whose blocks take `demand` each (the kernel fits: its registers
    /// are at most the SM's) and have `warps_per_tb` warps, code at `code_base`; with ELF,
    /// `program` is written into the program-point table first (one slot per cycle; no block
    /// launches meanwhile).
    pub fn start_kernel(
        &mut self,
        demand: &Demand,
        warps_per_tb: usize,
        code_base: u64,
        program: Option<Arc<elf::ElfProgram>>,
        footprints: Option<Arc<Footprints>>,
        blocks_per_sm: u32,
    ) {
        self.footprints = footprints;
        self.starve_after = (2 * blocks_per_sm).min(255) as u8;
        let registers = u32::try_from(demand.registers).expect("a kernel that fits the SM");
        self.need = [demand.threads, registers, demand.shmem_bytes, 1];
        self.warps_per_tb = warps_per_tb.max(1);
        self.code_base = code_base;
        if let (Some(e), Some(p)) = (&mut self.elf, program) {
            e.load(p);
        }
    }

    /// Steps the resource allocator with the blocks made resident and released since its
    /// last step (once per core cycle, before the dispatcher): room for one more block of the
    /// running kernel, and for two. With ELF, no room while its program table loads.
    pub fn room(&mut self) -> Result<(bool, bool), SimError> {
        let (a, r, n) = (
            std::mem::take(&mut self.allocated),
            std::mem::take(&mut self.released),
            self.need,
        );
        let out = self.alloc.step(&AllocIn {
            need_threads: n[0],
            need_regs: n[1],
            need_smem: n[2],
            alloc_threads: a[0],
            alloc_regs: a[1],
            alloc_smem: a[2],
            alloc_blocks: a[3],
            free_threads: r[0],
            free_regs: r[1],
            free_smem: r[2],
            free_blocks: r[3],
        })?;
        let ready = self.elf.as_ref().is_none_or(|e| e.loaded());
        Ok((out.room && ready, out.room2 && ready))
    }

    /// No resident block.
    pub fn is_empty(&self) -> bool {
        self.resident == 0
    }

    /// L1 counters (instruction, data).
    pub fn l1_stats(
        &self,
    ) -> (
        &crate::mem::data_cache::CacheStats,
        &crate::mem::data_cache::CacheStats,
    ) {
        (&self.l1i.stats, &self.l1d.stats)
    }

    /// One core cycle (see the module documentation). `issued` is set when any warp issued.
    pub fn cycle(
        &mut self,
        now: u64,
        mem: &mut MemorySystem,
        issued: &mut bool,
    ) -> Result<(), SimError> {
        if self.resident > 0 {
            self.counts.busy_cycles += 1;
        }
        self.collector_writeback(now);
        self.lsu_stage(now)?;
        self.collector_cycle(now);
        self.issue_stage(now, issued)?;
        self.fetch(now)?;
        self.retire();
        self.send(mem, now);
        if self.resident > 0 {
            self.active_cycles += 1;
        }
        Ok(())
    }
}
