//! One streaming multiprocessor: resident thread blocks and their warps, fetch through the
//! L1I into per-warp i-buffers, a scoreboard, the warp schedulers (each choosing through its
//! warp arbiter's ports), SP/SFU pipelines, the load/store unit with the coalescer, L1D and
//! shared memory, barriers and warp/block completion.
//!
//! The SM is split by stage, one file each (and `audit.rs`, the check that what it waits for
//! from memory is in flight): `lsu.rs` (the LSU, loads in flight, replies and
//! requests), `issue.rs` (scoreboard, the warp-issue site, execution), `collector.rs` (GPGPU-Sim's operand
//! collector, pipelines and writeback, when enabled), `fetch.rs` and
//! `warps.rs` (launch, barriers, retirement), `lsu_queue.rs` (the SM's side of the LSU-queue
//! site). The units at the SM's sites come from the run's policies ([`crate::policy`]); the
//! stages talk to them through the sites' protocols ([`crate::gpu::sites`]). This file holds the
//! SM's state and the cycle.
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
//!    With a queue at the LSU-queue site (NewCAR) the transaction goes through it instead.
//! 2. **Issue**. *Sequential* (the default with warp arbiters): scheduler by scheduler, from
//!    scheduler `active cycles % schedulers` (GPGPU-Sim's `Issue_Prio`, rotating in every cycle
//!    the SM has a block; later schedulers see the units the earlier ones took), the SM
//!    presents `ready`
//!    (decoded instruction in the i-buffer, operands and destinations clear on the scoreboard,
//!    a free unit for its class), `long_stall` (at a barrier, exited, or a source operand
//!    carries the long-op mark, as GPGPU-Sim's `islongop` test; for the locality-aware
//!    scheduler, a source waits on a load in flight), `launch` and `exit` to the arbiter and
//!    issues the granted warp's instruction.
//!    *Paired* (an SM-wide unit such as ELF's, which grants for every scheduler at once, or
//!    `--paired-issue`):
//!    every scheduler's warps are scanned at the start of the cycle, before any grant (a
//!    barrier released by one scheduler's issue frees the other's warps next cycle); then,
//!    from the leading scheduler (`active cycles % schedulers`, rotating like GPGPU-Sim's
//!    `Issue_Prio`), each scheduler is offered its warps whose unit still has a free slot and
//!    takes a slot only for the warp it grants. Grants are issued in that order.
//! 3. **Fetch** (`pipeline.fetch_throughput` times a cycle, each followed by its retire
//!    step, as GPGPU-Sim's decode + fetch loop): a returned L1I line first fills the
//!    i-buffers of the warps that missed on it, one per fetch in the order they missed;
//!    otherwise one warp whose i-buffer is empty
//!    reads the L1I (round robin after the last fetched, from warp 1 at the start, moving on
//!    past a refused access as GPGPU-Sim's `RESERVATION_FAIL`; with a warp-issue unit that
//!    orders fetch, such as ELF's, the warp it chose); on a hit up
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
//! 5. **Memory requests**: the L1I, then the L1D miss queue, then atomics and bypassed
//!    loads' sector reads, into the crossbar.
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
mod fetch;
mod issue;
mod lsu;
mod lsu_queue;
mod marks;
mod preempt;
mod sleep;
mod warps;

#[cfg(test)]
pub(crate) use preempt::PreemptFault;
pub use preempt::{Preempted, Released, SavedBlock, SavedWarp, CONTEXT_BASE, MAX_FLUSHES};
#[cfg(test)]
pub(crate) use sleep::SleepFault;
pub use warps::Finished;

use issue::unit_bit;
use lsu::{LsuKind, LsuOp, PendingLoad};
use warps::{TbSlot, Warp};

use super::kernel::KernelCtx;
use super::memory::{MemRequest, MemorySystem, ReqKind};
use super::sites::alloc::{AllocRequest, AllocUnit, Place};
use super::sites::issue::{IssueMode, IssueUnit, LaunchedWarp, LongOpRule, MAX_SCHEDULERS};
use super::sites::lsu_queue::LsuQueueUnit;
use super::stats::{LoadCounts, SmCounts, StallCounts};
use super::{SimError, SimOptions};
use crate::block::low_bits;
use crate::config::GpuConfig;
use crate::mem::cache::SetIndex;
use crate::mem::coalescer::{coalesce, Transaction};
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
/// L1I request id of a prefetch (no warp waits on it).
const PREFETCH: u16 = u16::MAX;

/// One thread's global store or atomic, as it issued: what a run's stores are compared by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreEvent {
    /// The kernel's launch index.
    pub kernel: u32,
    /// The block's linear id.
    pub block: u32,
    /// The warp's index in its block.
    pub warp: u16,
    /// The thread's lane.
    pub lane: u8,
    /// The byte address.
    pub addr: u64,
    /// An atomic (else a store).
    pub atomic: bool,
    /// It ends its block's idempotence (an atomic, or a store into what the kernel reads).
    pub overwrite: bool,
}

/// The units at one SM's sites, built by the run's policies.
pub struct SmBlocks<'a> {
    /// Warp issue.
    pub issue: Box<dyn IssueUnit<'a> + 'a>,
    /// The queue between the LSU and the L1D, if any.
    pub lsu_queue: Option<Box<dyn LsuQueueUnit<'a> + 'a>>,
    /// The resource allocator.
    pub alloc: Box<dyn AllocUnit<'a> + 'a>,
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
    /// Slots of the L1D latency queue in front of the tag lookup, per bank (0: none).
    l1d_pipe: usize,
    /// log2 of `pipeline.l1d_bank_bytes`.
    l1d_bank_log2: u32,
    /// `pipeline.fetch_throughput`: fetch stages per cycle.
    fetches: u32,
    /// `pipeline.issue_per_warp`: instructions a granted warp may issue in one cycle.
    issue_per_warp: u32,
    /// `pipeline.dual_issue_diff_units`: those instructions go to different units.
    diff_units: bool,
}

/// One SM, laid out in declaration order (`repr(C)`): the state every cycle touches first,
/// so that it shares few cache lines; the caches, the operand collector and the state used
/// rarely after it.
#[repr(C)]
pub struct Sm<'a> {
    /// The unit at the warp-issue site.
    issue: Box<dyn IssueUnit<'a> + 'a>,
    /// The resource allocator (room for more blocks).
    alloc: Box<dyn AllocUnit<'a> + 'a>,
    warps: Vec<Warp>,
    tbs: Vec<TbSlot>,
    /// Per scheduler: its warps' masks and what [`Sm::scan`] keeps between cycles.
    scan_state: Vec<issue::ScanState>,
    /// Per warp: the cycle at which its scan class changes by time alone.
    change_at: Vec<u64>,
    /// Memory instructions in the LSU, the one it works on first (at most `lsu_queue`).
    lsu: std::collections::VecDeque<LsuOp>,
    pending: Vec<PendingLoad>,
    free_pending: Vec<u32>,
    exiting: Vec<usize>,
    /// Arbiter inputs accumulated for this cycle (launch and exit bits).
    launch: Vec<u64>,
    /// Of `launch`, the warps of a second block launched in the same cycle.
    launch2: Vec<u64>,
    exit: Vec<u64>,
    sp_busy: Vec<u64>,
    sfu_busy: Vec<u64>,
    /// Blocks that completed since the GPU last took them (the locality-aware dispatcher's
    /// `done`).
    pub finished: Vec<Finished>,
    /// Blocks switched out or flushed since the GPU last took them.
    pub taken_off: Vec<Released>,
    /// Warps whose missed L1I line returned, in the order they missed: served before any
    /// new fetch, one per cycle.
    ifill: std::collections::VecDeque<usize>,
    schedulers: usize,
    per_sched: usize,
    /// The last warp fetched (round robin; GPGPU-Sim starts at 0, so warp 1 fetches first).
    fetch_last: usize,
    /// Bit `w`: warp `w` wants a fetch.
    fetchable: u64,
    lsu_busy_until: u64,
    /// Cycles before this one in which the SM had a block (the issue priority's rotation).
    active_cycles: u64,
    /// The warps the fetch stage's round robin passed this cycle, `from..=to` cyclically
    /// (`None`: none): only those of them that finished retire, as GPGPU-Sim reclaims a
    /// finished warp when its fetch loop passes it.
    reclaim: Option<(usize, usize)>,
    /// This cycle's fetch choice of such a unit (set by the issue stage, taken by the fetch
    /// stage): `None` when fetch goes round robin.
    fetch_choice: Option<Option<usize>>,
    /// The allocator's request: the offered kernel's need, the resources of the blocks made
    /// resident and released since its last step.
    alloc_req: AllocRequest,
    /// The allocator's last request and answer while it holds ([`AllocUnit::holds`]): a step
    /// with the same request is answered without asking the unit.
    alloc_held: Option<(AllocRequest, (bool, bool))>,
    /// Blocks given a place since the allocator's last step (the next one takes place `n`).
    placed_now: u8,
    /// Resident blocks.
    resident: u32,
    /// Blocks being preempted or restored.
    preempting: u32,
    /// I-prefetch threshold on occupied L1I + L1D MSHRs (0: off).
    iprefetch: u32,
    /// Blocks launched on the SM this cycle (before its issue stage).
    tbs_launched: u8,
    /// How the SM presents its warps to it (the unit's [`IssueUnit::mode`]).
    mode: IssueMode,
    /// Which sources put a warp on a long stall (the unit's rule).
    long_ops: LongOpRule,
    /// The unit chooses the warp to fetch for ([`IssueUnit::orders_fetch`]).
    orders_fetch: bool,
    /// The unit is told each issued instruction ([`IssueUnit::tracks_pcs`]).
    tracks_pcs: bool,
    /// The warp-issue unit wants [`IssueUnit::prepare`] every cycle a kernel is offered.
    prepares: bool,
    /// The warps' kernel, boundary and drain marks, for a unit that wants them.
    marks: Option<marks::Marks>,
    perfect_l1i: bool,
    /// Every global access coalesces into 32 B sectors (`pipeline.sector_coalescing`).
    sector_coalescing: bool,
    /// Global stores skip the L1D (`pipeline.gmem_skip_l1d`).
    stores_skip_l1d: bool,
    /// A context switch moves no data (`--free-switch`).
    free_switch: bool,
    /// Counters of this SM.
    pub counts: SmCounts,
    /// A preemption bug planted by a test.
    #[cfg(test)]
    pub(crate) fault: Option<preempt::PreemptFault>,
    /// A sleep bug planted by a test.
    #[cfg(test)]
    pub(crate) sleep_fault: Option<sleep::SleepFault>,
    /// Scheduler outcomes of this SM.
    pub stalls: StallCounts,
    /// The SM may sleep through quiet cycles (`sleep.rs`).
    sleep_allowed: bool,
    /// The first cycle it is stepped again (0: awake).
    sleep_until: u64,
    /// The first cycle it slept through.
    slept_from: u64,
    /// What each cycle it sleeps through counts.
    quiet: sleep::Quiet,
    /// Cycles it slept through (not stepped), counted when it wakes.
    pub slept_cycles: u64,
    timing: Timing,
    id: usize,
    /// The queue between the LSU and the L1D, with its slots' payloads.
    lsu_queue: Option<lsu_queue::QueueState<'a>>,
    /// GPGPU-Sim's operand collector and pipelines (`pipeline.operand_collector`); without
    /// it, `sp_busy` and `sfu_busy` hold each pipeline's next free cycle.
    collector: Option<collector::Collector>,
    /// The collector's results of this cycle (kept to reuse its allocation).
    wb_buffer: Vec<collector::Id>,
    l1d: DataCache<u32>,
    l1i: DataCache<u16>,
    /// Requests that go to the L2 without the L1D, in order: atomics, and the sector reads of
    /// loads that bypass it (a bypassed read waits here for the crossbar, at most
    /// [`lsu::UNCACHED_READS`] of them).
    uncached: std::collections::VecDeque<MemRequest>,
    /// Per (kernel launch, PC) of a global load: its counters ([`LoadCounts`]).
    load_counts: std::collections::HashMap<(u32, u32), LoadCounts>,
    /// L1D misses and stores in the L1D latency queue, with the cycle each leaves
    /// (`pipeline.l1d_latency_queue`).
    l1d_queue: std::collections::VecDeque<(u64, MemRequest)>,
    /// Transactions in the L1D latency queue in front of the tag lookup, head first.
    /// The L1D latency queue of each L1D bank (`pipeline.l1d_banks` of them).
    l1d_pipe: Vec<std::collections::VecDeque<lsu::PipeTxn>>,
    /// The kernels with resident blocks here, with their block counts.
    kernels_here: Vec<(usize, u32)>,
    /// Per kernel (launch index): the warp and thread instructions its blocks issued here,
    /// counted when they leave ([`Sm::kernel_instructions`] adds the resident ones).
    by_kernel: Vec<(u64, u64)>,
    /// Every global store and atomic issued here, when recorded
    /// ([`crate::gpu::SimOptions::record_stores`]).
    pub stores: Option<Vec<StoreEvent>>,
}

fn lat(l: crate::config::Latency) -> (u64, u64) {
    (l.latency as u64, l.initiation.max(1) as u64)
}

impl<'a> Sm<'a> {
    /// The rule its issue unit put warps on a long stall by.
    #[cfg(test)]
    pub(crate) fn long_op_rule(&self) -> LongOpRule {
        self.long_ops
    }

    /// SM `id` of `cfg` with the units `blocks` and the SM options of `opts` (`perfect_l1i`,
    /// `iprefetch`).
    pub fn new(id: usize, cfg: &GpuConfig, blocks: SmBlocks<'a>, opts: &SimOptions) -> Self {
        let sm = &cfg.sm;
        let schedulers = sm.schedulers as usize;
        let u = &cfg.units;
        // With the operand collector (and no LSU queue in front of the L1D), the L1D
        // latency queue sits in front of the tag lookup, as GPGPU-Sim's.
        let oc = Some(&cfg.pipeline.operand_collector).filter(|oc| oc.enabled);
        let pipe = oc.is_some() && blocks.lsu_queue.is_none();
        let l1d_index = cfg.l1d.l1d_index();
        let mut new = Self {
            id,
            warps: (0..sm.max_warps).map(|_| Warp::new()).collect(),
            tbs: (0..sm.max_blocks).map(|_| TbSlot::free()).collect(),
            schedulers,
            per_sched: sm.max_warps as usize / schedulers,
            mode: blocks.issue.mode(),
            prepares: blocks.issue.needs_prepare(),
            marks: blocks.issue.wants_marks().then(|| marks::Marks {
                per_sched: vec![[0; 3]; schedulers],
                ..Default::default()
            }),
            long_ops: blocks.issue.long_op_rule(),
            orders_fetch: blocks.issue.orders_fetch(),
            tracks_pcs: blocks.issue.tracks_pcs(),
            fetch_choice: None,
            issue: blocks.issue,
            lsu_queue: blocks.lsu_queue.map(lsu_queue::QueueState::new),
            iprefetch: opts.iprefetch,
            launch: vec![0; schedulers],
            launch2: vec![0; schedulers],
            tbs_launched: 0,
            exit: vec![0; schedulers],
            collector: oc.map(|oc| {
                let pipes = (u.sp_units as usize, u.sfu_units as usize);
                collector::Collector::new(oc, pipes, sm.max_warps as usize, schedulers)
            }),
            wb_buffer: vec![],
            sp_busy: vec![0; u.sp_units as usize],
            sfu_busy: vec![0; u.sfu_units as usize],
            lsu: Default::default(),
            lsu_busy_until: 0,
            pending: vec![],
            free_pending: vec![],
            l1d: match cfg.l1d_carveout.max_ways(&cfg.l1d) {
                Some(max) => DataCache::new(&cfg.l1d, l1d_index).with_max_ways(max),
                None => DataCache::new(&cfg.l1d, l1d_index),
            }
            .sectored(cfg.l1d.sector_bytes),
            l1i: DataCache::new(&cfg.l1i, SetIndex::Linear),
            perfect_l1i: opts.perfect_l1i || cfg.pipeline.perfect_inst_cache,
            sector_coalescing: cfg.pipeline.sector_coalescing,
            stores_skip_l1d: cfg.pipeline.gmem_skip_l1d,
            free_switch: opts.free_switch,
            uncached: Default::default(),
            load_counts: Default::default(),
            l1d_queue: Default::default(),
            l1d_pipe: vec![Default::default(); cfg.pipeline.l1d_banks.max(1) as usize],
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
                l1d_bank_log2: cfg.pipeline.l1d_bank_bytes.max(1).trailing_zeros(),
                fetches: cfg.pipeline.fetch_throughput.max(1),
                issue_per_warp: cfg.pipeline.issue_per_warp.max(1),
                diff_units: cfg.pipeline.dual_issue_diff_units,
            },
            alloc: blocks.alloc,
            alloc_req: AllocRequest::default(),
            alloc_held: None,
            placed_now: 0,
            finished: vec![],
            taken_off: vec![],
            resident: 0,
            kernels_here: vec![],
            preempting: 0,
            active_cycles: 0,
            counts: SmCounts::default(),
            by_kernel: vec![],
            stores: opts.record_stores.then(Vec::new),
            #[cfg(test)]
            fault: None,
            #[cfg(test)]
            sleep_fault: None,
            stalls: StallCounts::default(),
            sleep_allowed: false,
            sleep_until: 0,
            slept_from: 0,
            quiet: Default::default(),
            slept_cycles: 0,
        };
        new.sleep_allowed = opts.sm_sleep && new.can_sleep();
        new
    }

    /// Gives the L1D `ways` ways per set (the unified L1D / shared-memory split of a newly
    /// admitted kernel: [`crate::config::L1dCarveout`]).
    pub fn set_l1d_ways(&mut self, ways: u32, now: u64) {
        self.wake(now);
        self.l1d.set_ways(ways);
    }

    /// Offers the SM blocks of `kernel` this cycle: steps the resource allocator with what one
    /// of them takes, the kernel scheduler's `quota` of its blocks on the SM and the blocks made
    /// resident and released since its last step (once per core cycle, before the
    /// dispatcher); returns whether one more block fits, and two, within the quota. The
    /// unit at the warp-issue site may hold the kernel off (ELF, while it loads the kernel's
    /// program table).
    pub fn room(
        &mut self,
        kernel: &KernelCtx,
        quota: Option<u32>,
    ) -> Result<(bool, bool), SimError> {
        let ready = !self.prepares || self.issue.prepare(kernel, self.resident == 0);
        self.alloc_req.quota = quota;
        let (one, two) = self.step_alloc(Some(kernel.launch as u32), kernel.need)?;
        let (one, two) = match quota {
            Some(q) => {
                let here = self.blocks_of(kernel.launch);
                (one && here < q, two && here + 1 < q)
            }
            None => (one, two),
        };
        // Blocks of another kernel may leave fewer aligned ranges of warp slots for this one's
        // than its resources promise (GPGPU-Sim's `find_available_hwtid`); one kernel's blocks
        // always find theirs. Room for two needs two ranges: the second grant takes one.
        let ranges = if one && self.holds_other_kernel(kernel.launch) {
            self.free_warp_ranges(kernel.warps_per_tb, 2)
        } else {
            2
        };
        Ok((one && ready && ranges >= 1, two && ready && ranges >= 2))
    }

    /// Steps the resource allocator in a cycle no kernel is offered to the SM (the need of a
    /// block slot alone; the answer is not used).
    pub fn step_alloc_idle(&mut self) -> Result<(), SimError> {
        self.alloc_req.quota = None;
        self.step_alloc(None, [0, 0, 0, 1]).map(|_| ())
    }

    #[inline]
    fn step_alloc(
        &mut self,
        kernel: Option<u32>,
        need: [u32; 4],
    ) -> Result<(bool, bool), SimError> {
        self.alloc_req.kernel = kernel;
        self.alloc_req.need = need;
        let room = match self.alloc_held {
            Some((held, room)) if held == self.alloc_req => Ok(room),
            _ => {
                let room = self.alloc.step(&self.alloc_req);
                self.alloc_held = match room {
                    Ok(room) if self.alloc.holds() => Some((self.alloc_req, room)),
                    _ => None,
                };
                room
            }
        };
        let req = &mut self.alloc_req;
        (req.allocated, req.released) = ([0; 4], [0; 4]);
        (req.placed, req.freed) = ([0; 2], [0; 2]);
        self.placed_now = 0;
        room
    }

    /// The place the allocator gives the block made resident now (`None` from a counting
    /// allocator); reported to it at its next step.
    pub(super) fn take_place(&mut self) -> Option<Place> {
        let place = self.alloc.place(self.placed_now as usize)?;
        self.placed_now += 1;
        self.alloc_req.placed[place.end as usize] |= 1 << place.slot;
        Some(place)
    }

    /// Gives the place of a block leaving the SM back to the allocator (at its next step).
    pub(super) fn give_back(&mut self, place: Option<Place>) {
        if let Some(p) = place {
            self.alloc_req.freed[p.end as usize] |= 1 << p.slot;
        }
    }

    /// Resident blocks of launch `launch` (being preempted included).
    fn blocks_of(&self, launch: usize) -> u32 {
        self.kernels_here
            .iter()
            .find(|&&(l, _)| l == launch)
            .map_or(0, |&(_, n)| n)
    }

    /// The resource allocator's counters ([`AllocUnit::report`]).
    pub fn alloc_report(&self) -> std::collections::BTreeMap<&'static str, u64> {
        self.alloc.report()
    }

    /// Some resident block belongs to a kernel other than launch `launch`.
    fn holds_other_kernel(&self, launch: usize) -> bool {
        self.kernels_here.iter().any(|&(l, _)| l != launch)
    }

    /// No resident block.
    pub fn is_empty(&self) -> bool {
        self.resident == 0
    }

    /// Kernel `k`'s L1 counters (instruction, data).
    pub fn l1_stats_of(
        &self,
        k: u32,
    ) -> (
        crate::mem::data_cache::CacheStats,
        crate::mem::data_cache::CacheStats,
    ) {
        (self.l1i.stats_of(k), self.l1d.stats_of(k))
    }

    /// The L1D, serving warp `w`'s kernel.
    fn l1d_for(&mut self, w: usize) -> &mut DataCache<u32> {
        self.l1d.set_owner(self.warps[w].kernel);
        &mut self.l1d
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
    /// Ends with the SM asleep when its next cycles are quiet (`sleep.rs`).
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
        let mut issued_here = false;
        self.issue_stage(now, &mut issued_here)?;
        *issued |= issued_here;
        for round in 1..=self.timing.fetches {
            // GPGPU-Sim's decode + fetch loop decodes a fetch in the next round, so every
            // fetch but the last round's is decoded in this cycle.
            self.fetch(now, round < self.timing.fetches)?;
            self.retire();
        }
        if self.preempting > 0 {
            self.preempt_stage(now);
        }
        self.send(mem, now);
        if self.resident > 0 {
            self.active_cycles += 1;
        }
        self.try_sleep(now, issued_here);
        Ok(())
    }
}
