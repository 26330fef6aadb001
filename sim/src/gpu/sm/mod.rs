//! One streaming multiprocessor: resident thread blocks and their warps, fetch through the
//! L1I into per-warp i-buffers, a scoreboard, the warp schedulers (each choosing through its
//! warp arbiter's ports), SP/SFU pipelines, the load/store unit with the coalescer, L1D and
//! shared memory, barriers and warp/block completion.
//!
//! # One core cycle ([`Sm::cycle`]), in order
//! 1. **LSU**: the instruction in the load/store unit sends at most one coalesced transaction
//!    to the L1D (GPGPU-Sim's one access per cycle); a refused access is retried next cycle.
//!    With NewCAR ([`newcar`]) the transaction goes through the re-execution queue instead.
//! 2. **Issue**. *Sequential* (the default with warp arbiters): scheduler by scheduler (0
//!    first; later schedulers see the units the earlier ones took), the SM presents `ready`
//!    (decoded instruction in the i-buffer, operands and destinations clear on the scoreboard,
//!    a free unit for its class), `long_stall` (at a barrier, exited, or an operand waits on a
//!    load), `launch` and `exit` to the arbiter and issues the granted warp's instruction.
//!    *Paired* (ELF, whose one block grants for both schedulers at once, or `paired_issue`):
//!    every scheduler's ready mask is formed before any grant, so units are shared out first:
//!    the leading scheduler (`cycle % schedulers`, rotating like GPGPU-Sim's `Issue_Prio`)
//!    may use every free unit; a unit with one free slot left that a scheduler has a ready warp
//!    for is not offered to the schedulers after it (a conservative reservation: the grant may
//!    go to another warp). Grants are then issued leading scheduler first ([`elf`]).
//! 3. **Fetch**: one warp whose i-buffer is empty reads the L1I (round robin after the last
//!    fetched; with ELF fetch, the warp the ELF block chose from its priorities); on a hit up
//!    to `min(fetch_width, ibuffer_entries)` instructions are decoded and usable
//!    `l1i.latency` cycles later; a miss parks the warp until the line returns. With
//!    I-prefetch, every demand access to line `X` also prefetches line `X + 1` when it is
//!    neither resident nor pending and fewer than `iprefetch` L1I + L1D MSHRs are occupied
//!    (spec §1.10).
//! 4. **Retire**: a warp that issued its last instruction and has no load in flight and no
//!    unacknowledged store (GPGPU-Sim's `stores_done`) leaves (its `exit` bit
//!    goes to the arbiter next cycle); the last warp of a block frees the block's resources.
//! 5. **Memory requests**: the L1I, then the L1D miss queue, then atomics, into the crossbar.
//!
//! # Scoreboard
//! Each warp register has the cycle from which it can be read (`reg_ready`); an ALU result
//! is ready `latency` cycles after issue, a load's destinations when its last transaction
//! returns (fill at cycle `t`: ready at `t + 1`; L1D hit: `l1d.latency` after the access).
//! `R255` (RZ) is never tracked.

pub mod elf;
pub mod newcar;

use super::memory::{MemRequest, MemorySystem, ReqKind};
use super::sites::Slot;
use super::stats::{SmCounts, StallCounts};
use super::{SimError, SimOptions};
use crate::block::low_bits;
use crate::blocks::warp_arbiter::{self, ArbiterIn};
use crate::blocks::{elf as elf_block, newcar as newcar_block};
use crate::config::GpuConfig;
use crate::mem::cache::SetIndex;
use crate::mem::coalescer::coalesce;
use crate::mem::data_cache::{DataCache, Outcome};
use crate::mem::shared_mem::conflict_cycles;
use crate::workload::kernel::{BlockInsts, WarpInst};
use crate::workload::sass::OpClass;
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

const UNIT_NONE: u8 = 1;
const UNIT_SP: u8 = 2;
const UNIT_SFU: u8 = 4;
const UNIT_LSU: u8 = 8;

/// The unit an instruction class needs (`UNIT_NONE`: none: barriers, exits, no-ops).
fn unit_bit(class: OpClass) -> u8 {
    match class {
        OpClass::IntAlu | OpClass::IntMul | OpClass::Fp | OpClass::Dp | OpClass::Branch => UNIT_SP,
        OpClass::Sfu => UNIT_SFU,
        c if c.is_memory() => UNIT_LSU,
        _ => UNIT_NONE,
    }
}

/// A warp slot.
///
/// `repr(C)` with the fields the scheduler reads every cycle first, so they share one cache
/// line.
#[repr(C)]
struct Warp {
    /// Instruction `next_issue` when it is in the i-buffer (a copy, for the scheduler).
    head: Option<WarpInst>,
    /// The i-buffer's instructions are decoded from this cycle on.
    ibuf_ready_at: u64,
    /// When `sb_valid`: the first cycle the head passes the scoreboard (`u64::MAX`: when a
    /// load of the warp completes). A cache of [`Sm::operands`]: the warp's registers change
    /// only when it issues (which replaces the head) or one of its loads completes.
    sb_until: u64,
    /// The head waits on a load (valid with `sb_until`).
    sb_load: bool,
    /// `sb_until` and `sb_load` hold for the current head.
    sb_valid: bool,
    live: bool,
    imiss: bool,
    at_barrier: bool,
    exit_issued: bool,
    len: u32,
    /// Instructions `next_issue..next_fetch` are in the i-buffer.
    next_issue: u32,
    next_fetch: u32,
    /// Load instructions in flight.
    loads: u32,
    /// Store transactions not yet acknowledged by the L2.
    stores: u32,
    /// Thread-block slot and warp index within the block.
    tb: usize,
    index: usize,
    reg_ready: Box<[u64; REGS]>,
}

impl Warp {
    fn new() -> Self {
        Self {
            live: false,
            tb: 0,
            index: 0,
            len: 0,
            next_issue: 0,
            next_fetch: 0,
            ibuf_ready_at: 0,
            imiss: false,
            at_barrier: false,
            exit_issued: false,
            loads: 0,
            stores: 0,
            head: None,
            sb_until: 0,
            sb_load: false,
            sb_valid: false,
            reg_ready: Box::new([0; REGS]),
        }
    }
}

/// A thread-block slot.
struct TbSlot {
    active: bool,
    insts: BlockInsts,
    first_warp: usize,
    warps: usize,
    /// Warps not yet retired.
    left: usize,
    /// Warps waiting at the barrier.
    arrived: usize,
}

/// A load (or atomic) in flight.
#[derive(Clone, Copy)]
struct PendingLoad {
    warp: usize,
    tb: usize,
    inst: WarpInst,
    outstanding: u32,
    ready_at: u64,
    all_sent: bool,
}

/// What one scheduler's warps can do this cycle.
#[derive(Clone, Copy, Default)]
struct Scan {
    /// Per unit (index `unit_bit(..).trailing_zeros()`: none, SP, SFU, LSU): the warps (local
    /// ids) whose next instruction passes the scoreboard and needs that unit.
    by_unit: [u64; 4],
    /// Warps at a barrier, exited, or waiting on a load.
    long_stall: u64,
    /// Some warp has a decoded instruction.
    any_inst: bool,
}

impl Scan {
    /// The warps whose unit is in `units` (a mask over [`unit_bit`]).
    fn ready(&self, units: u8) -> u64 {
        (0..4)
            .filter(|u| units >> u & 1 == 1)
            .fold(0, |m, u| m | self.by_unit[u])
    }

    /// Some warp passes the scoreboard.
    fn any_operands(&self) -> bool {
        self.by_unit.iter().any(|&m| m != 0)
    }
}

/// The hardware blocks of one SM, at their sites.
pub struct SmBlocks<'a> {
    /// One warp arbiter per scheduler (empty when ELF issues).
    pub arbiters: Vec<Slot<'a, warp_arbiter::Kind>>,
    /// The ELF block (`--warp-sched elf`).
    pub elf: Option<Slot<'a, elf_block::Kind>>,
    /// The NewCAR queue (`--newcar`).
    pub newcar: Option<Slot<'a, newcar_block::Kind>>,
}

/// What the load/store unit is doing.
struct LsuOp {
    warp: usize,
    /// The pending load this instruction completes (loads and atomics).
    token: Option<u32>,
    kind: LsuKind,
    /// Transactions (address, bytes) and the next one to send.
    txns: Vec<(u64, u32)>,
    next: usize,
    /// The L1D version at which transaction `next` last failed (it fails again, identically,
    /// until the cache changes).
    failed_at: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LsuKind {
    Load,
    Store,
    Atomic,
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
}

/// One SM.
pub struct Sm<'a> {
    id: usize,
    warps: Vec<Warp>,
    tbs: Vec<TbSlot>,
    schedulers: usize,
    per_sched: usize,
    arbiters: Vec<Slot<'a, warp_arbiter::Kind>>,
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
    exit: Vec<u64>,
    sp_busy: Vec<u64>,
    sfu_busy: Vec<u64>,
    lsu: Option<LsuOp>,
    lsu_busy_until: u64,
    pending: Vec<PendingLoad>,
    free_pending: Vec<u32>,
    l1d: DataCache<u32>,
    l1i: DataCache<u16>,
    perfect_l1i: bool,
    atomics: std::collections::VecDeque<MemRequest>,
    exiting: Vec<usize>,
    fetch_last: usize,
    /// Bit `w`: warp `w` wants a fetch.
    fetchable: u64,
    /// Per scheduler, bit `local` (warp `s + local * schedulers`): the warp is live.
    live_mask: Vec<u64>,
    /// Per scheduler: the warp is at a barrier or has issued its last instruction.
    stalled_mask: Vec<u64>,
    /// Per scheduler: the warp has an instruction in its i-buffer.
    head_mask: Vec<u64>,
    timing: Timing,
    /// Resident blocks of the running kernel, and how many may be.
    resident: u32,
    occupancy: u32,
    warps_per_tb: usize,
    code_base: u64,
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
        let u = &cfg.units;
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
                    insts: BlockInsts::default(),
                    first_warp: 0,
                    warps: 0,
                    left: 0,
                    arrived: 0,
                })
                .collect(),
            schedulers,
            per_sched: sm.max_warps as usize / schedulers,
            arbiters: blocks.arbiters,
            paired: opts.paired_issue || blocks.elf.is_some(),
            elf: blocks.elf.map(|b| elf::ElfUnit::new(b, opts.elf_fetch)),
            newcar: blocks
                .newcar
                .map(|b| newcar::NewcarUnit::new(b, crate::policy::NEWCAR_ENTRIES)),
            iprefetch: opts.iprefetch,
            launch: vec![0; schedulers],
            exit: vec![0; schedulers],
            sp_busy: vec![0; u.sp_units as usize],
            sfu_busy: vec![0; u.sfu_units as usize],
            lsu: None,
            lsu_busy_until: 0,
            pending: vec![],
            free_pending: vec![],
            l1d: DataCache::new(&cfg.l1d, l1d_index),
            l1i: DataCache::new(&cfg.l1i, SetIndex::Linear),
            perfect_l1i: opts.perfect_l1i,
            atomics: Default::default(),
            exiting: vec![],
            fetch_last: sm.max_warps as usize - 1,
            fetchable: 0,
            live_mask: vec![0; schedulers],
            stalled_mask: vec![0; schedulers],
            head_mask: vec![0; schedulers],
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
            },
            resident: 0,
            occupancy: 0,
            warps_per_tb: 1,
            code_base: CODE_BASE,
            counts: SmCounts::default(),
            stalls: StallCounts::default(),
        }
    }

    /// Prepares for a kernel: at most `occupancy` resident blocks of `warps_per_tb` warps, code
    /// at `code_base`; with ELF, `program` is written into the program-point table first (one
    /// slot per cycle; no block launches meanwhile).
    pub fn start_kernel(
        &mut self,
        occupancy: u32,
        warps_per_tb: usize,
        code_base: u64,
        program: Option<Arc<elf::ElfProgram>>,
    ) {
        self.occupancy = occupancy;
        self.warps_per_tb = warps_per_tb.max(1);
        self.code_base = code_base;
        if let (Some(e), Some(p)) = (&mut self.elf, program) {
            e.load(p);
        }
    }

    /// Room for `n` more blocks of the running kernel.
    pub fn has_room(&self, n: u32) -> bool {
        self.resident + n <= self.occupancy && self.elf.as_ref().is_none_or(|e| e.loaded())
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

    /// Makes block `insts` resident; its warps are launched this cycle.
    pub fn launch(&mut self, insts: BlockInsts) {
        let slot = self
            .tbs
            .iter()
            .position(|t| !t.active)
            .expect("the dispatcher only issues to SMs with room");
        let wpt = self.warps_per_tb;
        let first = (0..self.warps.len() / wpt)
            .map(|k| k * wpt)
            .find(|&f| self.warps[f..f + wpt].iter().all(|w| !w.live))
            .expect("occupancy leaves a free warp range");
        let n = insts.warps.len().min(wpt);
        for i in 0..n {
            let w = first + i;
            let warp = &mut self.warps[w];
            warp.live = true;
            warp.tb = slot;
            warp.index = i;
            warp.len = insts.warps[i].len() as u32;
            warp.next_issue = 0;
            warp.next_fetch = 0;
            warp.ibuf_ready_at = 0;
            warp.imiss = false;
            warp.at_barrier = false;
            warp.exit_issued = warp.len == 0;
            warp.loads = 0;
            warp.stores = 0;
            warp.head = None;
            warp.sb_valid = false;
            warp.reg_ready.fill(0);
            if warp.exit_issued {
                self.exiting.push(w);
            }
            self.update_fetchable(w);
            self.sync_masks(w);
            self.launch[w % self.schedulers] |= 1 << (w / self.schedulers);
            if let Some(e) = &mut self.elf {
                e.set_launch_pc(insts.warps[i].first().map_or(0, |x| x.pc));
            }
        }
        self.tbs[slot] = TbSlot {
            active: true,
            insts,
            first_warp: first,
            warps: n,
            left: n,
            arrived: 0,
        };
        self.resident += 1;
        if n == 0 {
            self.tbs[slot].active = false;
            self.resident -= 1;
            self.counts.blocks += 1;
        }
    }

    /// Handles the replies that reached this SM.
    pub fn receive(&mut self, mem: &mut MemorySystem, now: u64) {
        while let Some(r) = mem.receive(self.id) {
            match r.kind {
                ReqKind::Read => {
                    for t in self.l1d.fill(r.addr) {
                        self.load_part_done(t, now + 1);
                    }
                }
                ReqKind::Atomic => self.load_part_done(r.tag, now + 1),
                ReqKind::InstFetch => {
                    for w in self.l1i.fill(r.addr) {
                        if w == PREFETCH {
                            continue;
                        }
                        self.warps[w as usize].imiss = false;
                        self.update_fetchable(w as usize);
                    }
                }
                ReqKind::Write => self.warps[r.tag as usize].stores -= 1,
            }
        }
    }

    fn load_part_done(&mut self, token: u32, ready: u64) {
        let p = &mut self.pending[token as usize];
        p.outstanding -= 1;
        p.ready_at = p.ready_at.max(ready);
        self.try_complete(token);
    }

    fn try_complete(&mut self, token: u32) {
        let p = self.pending[token as usize];
        if !p.all_sent || p.outstanding > 0 {
            return;
        }
        let warp = &mut self.warps[p.warp];
        for &r in self.tbs[p.tb].insts.dsts(&p.inst) {
            if r != RZ {
                warp.reg_ready[r as usize] = p.ready_at;
            }
        }
        warp.loads -= 1;
        warp.sb_valid = false;
        self.free_pending.push(token);
    }

    fn new_pending(&mut self, p: PendingLoad) -> u32 {
        match self.free_pending.pop() {
            Some(t) => {
                self.pending[t as usize] = p;
                t
            }
            None => {
                self.pending.push(p);
                (self.pending.len() - 1) as u32
            }
        }
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
        if self.newcar.is_some() {
            self.newcar_cycle(now)?;
        } else {
            self.lsu_cycle(now);
        }
        if self.paired {
            self.issue_paired(now, issued)?;
        } else {
            for s in 0..self.schedulers {
                let scan = self.scan(s, now);
                let ready = scan.ready(self.free_units(now));
                let grant = self.step_arbiter(s, ready, scan.long_stall)?;
                self.take_grant(s, grant, ready, &scan, now, issued)?;
            }
        }
        self.fetch(now);
        self.retire();
        self.send(mem);
        Ok(())
    }

    fn lsu_cycle(&mut self, now: u64) {
        let Some(op) = &self.lsu else { return };
        if op.next < op.txns.len() && op.failed_at == Some(self.l1d.version()) {
            self.l1d.repeat_fail();
            self.stalls.lsu_blocked += 1;
        } else if op.next < op.txns.len() {
            let (warp, kind, token) = (op.warp, op.kind, op.token.unwrap_or(u32::MAX));
            let (addr, bytes) = op.txns[op.next];
            let sent = self.access_txn(warp, kind, token, addr, bytes, false, now);
            let version = self.l1d.version();
            let op = self.lsu.as_mut().expect("present");
            if sent {
                op.next += 1;
                op.failed_at = None;
            } else {
                op.failed_at = Some(version);
                self.stalls.lsu_blocked += 1;
            }
        }
        self.lsu_finish();
    }

    /// Releases the LSU once every transaction of its instruction has left it.
    fn lsu_finish(&mut self) {
        if self.lsu.as_ref().is_some_and(|op| op.next == op.txns.len()) {
            let op = self.lsu.take().expect("present");
            if let Some(t) = op.token {
                self.pending[t as usize].all_sent = true;
                self.try_complete(t);
            }
        }
    }

    /// One transaction of warp `warp` to the L1D (loads and stores) or the atomics queue;
    /// returns whether it was taken. `queued`: it comes out of the NewCAR queue, which counted
    /// it as outstanding (loads, atomics) or unacknowledged (stores) when it went in.
    #[allow(clippy::too_many_arguments)]
    fn access_txn(
        &mut self,
        warp: usize,
        kind: LsuKind,
        token: u32,
        addr: u64,
        bytes: u32,
        queued: bool,
        now: u64,
    ) -> bool {
        match kind {
            LsuKind::Atomic => {
                self.atomics.push_back(MemRequest {
                    sm: self.id as u16,
                    kind: ReqKind::Atomic,
                    addr,
                    bytes,
                    tag: token,
                });
                if !queued {
                    self.pending[token as usize].outstanding += 1;
                }
                true
            }
            LsuKind::Store => {
                let taken = !matches!(
                    self.l1d.access_sized(addr, bytes, true, warp as u32),
                    Outcome::Fail(_)
                );
                if !queued {
                    self.warps[warp].stores += taken as u32;
                }
                taken
            }
            LsuKind::Load => match self.l1d.access_sized(addr, bytes, false, token) {
                Outcome::Hit if queued => {
                    self.load_part_done(token, now + self.timing.l1d_hit);
                    true
                }
                Outcome::Hit => {
                    let p = &mut self.pending[token as usize];
                    p.ready_at = p.ready_at.max(now + self.timing.l1d_hit);
                    true
                }
                Outcome::Fail(_) => false,
                _ => {
                    if !queued {
                        self.pending[token as usize].outstanding += 1;
                    }
                    true
                }
            },
        }
    }

    fn lsu_free(&self, now: u64) -> bool {
        self.lsu.is_none() && self.lsu_busy_until <= now
    }

    /// Which units can take an instruction this cycle, as a mask over [`unit_bit`].
    fn free_units(&self, now: u64) -> u8 {
        self.free_unit_counts(now)
            .iter()
            .enumerate()
            .fold(0, |m, (u, &free)| if free > 0 { m | 1 << u } else { m })
    }

    /// The instruction at the head of warp `w`'s i-buffer, if decoded by `now`.
    fn head(&self, w: usize, now: u64) -> Option<WarpInst> {
        let warp = &self.warps[w];
        if !warp.live || warp.at_barrier || warp.ibuf_ready_at > now {
            return None;
        }
        warp.head
    }

    /// Reloads the cached head of warp `w` after its i-buffer changed.
    fn refresh_head(&mut self, w: usize) {
        let warp = &mut self.warps[w];
        warp.head = (warp.next_issue < warp.next_fetch)
            .then(|| self.tbs[warp.tb].insts.warps[warp.index][warp.next_issue as usize]);
        warp.sb_valid = false;
        self.update_fetchable(w);
        self.sync_masks(w);
    }

    /// Mirrors warp `w`'s live, stalled and has-instruction flags in the scheduler masks.
    fn sync_masks(&mut self, w: usize) {
        let warp = &self.warps[w];
        let (s, bit) = (w % self.schedulers, 1u64 << (w / self.schedulers));
        let set = |m: &mut u64, on: bool| {
            if on {
                *m |= bit
            } else {
                *m &= !bit
            }
        };
        set(&mut self.live_mask[s], warp.live);
        set(
            &mut self.stalled_mask[s],
            warp.at_barrier || warp.exit_issued,
        );
        set(&mut self.head_mask[s], warp.head.is_some());
    }

    /// Recomputes whether warp `w` wants a fetch (live, no fetch miss pending, empty i-buffer,
    /// more instructions to fetch) into bit `w` of `fetchable`.
    fn update_fetchable(&mut self, w: usize) {
        let warp = &self.warps[w];
        let wants = warp.live
            && !warp.imiss
            && !warp.exit_issued
            && warp.next_issue == warp.next_fetch
            && warp.next_fetch < warp.len;
        let bit = 1u64 << w;
        if wants {
            self.fetchable |= bit;
        } else {
            self.fetchable &= !bit;
        }
    }

    /// Scoreboard: the first cycle at which every operand and destination of `inst` is ready
    /// (`u64::MAX` while one waits on a load), and whether one waits on a load.
    fn operands(&self, w: usize, inst: &WarpInst) -> (u64, bool) {
        let warp = &self.warps[w];
        let tb = &self.tbs[warp.tb].insts;
        let mut until = 0;
        let s = inst.reg_start as usize;
        for &r in &tb.regs[s..s + inst.ndst as usize + inst.nsrc as usize] {
            if r != RZ {
                until = until.max(warp.reg_ready[r as usize]);
            }
        }
        (until, until == u64::MAX)
    }

    /// Free slots per unit this cycle (index as in [`Scan::by_unit`]; "none" is unlimited).
    fn free_unit_counts(&self, now: u64) -> [u32; 4] {
        [
            u32::MAX,
            self.sp_busy.iter().filter(|&&b| b <= now).count() as u32,
            self.sfu_busy.iter().filter(|&&b| b <= now).count() as u32,
            self.lsu_free(now) as u32,
        ]
    }

    /// Scheduler `s`'s warps this cycle: which pass the scoreboard, for which unit.
    fn scan(&mut self, s: usize, now: u64) -> Scan {
        let mut scan = Scan {
            long_stall: self.live_mask[s] & self.stalled_mask[s],
            ..Default::default()
        };
        let mut cand = self.live_mask[s] & !self.stalled_mask[s] & self.head_mask[s];
        while cand != 0 {
            let local = cand.trailing_zeros() as usize;
            cand &= cand - 1;
            let w = s + local * self.schedulers;
            let warp = &self.warps[w];
            let Some(inst) = warp.head.filter(|_| warp.ibuf_ready_at <= now) else {
                continue;
            };
            scan.any_inst = true;
            let (until, on_load) = if warp.sb_valid {
                (warp.sb_until, warp.sb_load)
            } else {
                let (until, on_load) = self.operands(w, &inst);
                let warp = &mut self.warps[w];
                (warp.sb_until, warp.sb_load, warp.sb_valid) = (until, on_load, true);
                (until, on_load)
            };
            if until > now {
                scan.long_stall |= (on_load as u64) << local;
                continue;
            }
            scan.by_unit[unit_bit(inst.class).trailing_zeros() as usize] |= 1 << local;
        }
        scan
    }

    /// Steps scheduler `s`'s warp arbiter; returns the granted local warp.
    fn step_arbiter(
        &mut self,
        s: usize,
        ready: u64,
        long_stall: u64,
    ) -> Result<Option<usize>, SimError> {
        let inp = ArbiterIn {
            ready,
            launch: self.launch[s],
            exit: self.exit[s],
            long_stall,
        };
        self.launch[s] = 0;
        self.exit[s] = 0;
        let out = self.arbiters[s].step(&inp)?;
        Ok(out.grant_valid.then_some(out.grant_warp as usize))
    }

    /// Issues scheduler `s`'s grant (checked against the `ready` mask it was given) or counts
    /// why it issued nothing. Returns the issued warp (global id).
    fn take_grant(
        &mut self,
        s: usize,
        grant: Option<usize>,
        ready: u64,
        scan: &Scan,
        now: u64,
        issued: &mut bool,
    ) -> Result<Option<usize>, SimError> {
        if let Some(local) = grant {
            if local >= self.per_sched || ready >> local & 1 == 0 {
                return Err(SimError::Protocol(format!(
                    "sm{}_sched{s}: the {} granted warp {local}, which is not ready (ready mask {ready:#x}) at cycle {now}",
                    self.id,
                    if self.elf.is_some() { "ELF block" } else { "arbiter" }
                )));
            }
            let w = s + local * self.schedulers;
            self.issue(w, now);
            self.stalls.issued += 1;
            *issued = true;
            return Ok(Some(w));
        }
        if scan.any_operands() {
            self.stalls.structural += 1;
        } else if scan.any_inst {
            self.stalls.raw += 1;
        } else {
            self.stalls.idle += 1;
        }
        Ok(None)
    }

    /// Paired issue (module documentation): every scheduler's ready mask from one sharing-out
    /// of the free units, then one step of every arbiter (or of the ELF block), then the
    /// grants, leading scheduler first.
    fn issue_paired(&mut self, now: u64, issued: &mut bool) -> Result<(), SimError> {
        // Per-scheduler arrays on the stack (this runs every cycle of every SM).
        let n = self.schedulers;
        let lead = (now % n as u64) as usize;
        let mut scans = [Scan::default(); MAX_SCHEDULERS];
        for (s, scan) in scans.iter_mut().enumerate().take(n) {
            *scan = self.scan(s, now);
        }
        let mut avail = self.free_unit_counts(now);
        let mut ready = [0u64; MAX_SCHEDULERS];
        for k in 0..n {
            let s = (lead + k) % n;
            for (u, free) in avail.iter_mut().enumerate() {
                if *free > 0 && scans[s].by_unit[u] != 0 {
                    ready[s] |= scans[s].by_unit[u];
                    *free -= 1;
                }
            }
        }
        let mut grants = [None; MAX_SCHEDULERS];
        if self.elf.is_some() {
            grants[..2].copy_from_slice(&self.step_elf(&ready[..2], lead)?);
        } else {
            for (s, g) in grants.iter_mut().enumerate().take(n) {
                *g = self.step_arbiter(s, ready[s], scans[s].long_stall)?;
            }
        }
        for k in 0..n {
            let s = (lead + k) % n;
            let w = self.take_grant(s, grants[s], ready[s], &scans[s], now, issued)?;
            if let Some(w) = w {
                self.elf_issued(s, w);
            }
        }
        Ok(())
    }

    fn take_pipe(busy: &mut [u64], now: u64, initiation: u64) {
        if let Some(b) = busy.iter_mut().find(|b| **b <= now) {
            *b = now + initiation;
        }
    }

    fn write_dsts(&mut self, w: usize, inst: &WarpInst, at: u64) {
        let warp = &mut self.warps[w];
        for &r in self.tbs[warp.tb].insts.dsts(inst) {
            if r != RZ {
                warp.reg_ready[r as usize] = at;
            }
        }
    }

    fn issue(&mut self, w: usize, now: u64) {
        let inst = self.head(w, now).expect("ready warps have an instruction");
        let (tb, active) = (self.warps[w].tb, inst.active() as u64);
        self.warps[w].next_issue += 1;
        self.refresh_head(w);
        let t = &self.timing;
        self.counts.warp_instructions += 1;
        self.counts.thread_instructions += active;
        match inst.class {
            OpClass::IntAlu | OpClass::Branch | OpClass::IntMul | OpClass::Fp | OpClass::Dp => {
                let (l, ii) = match inst.class {
                    OpClass::IntMul => t.int_mul,
                    OpClass::Fp => t.fp,
                    OpClass::Dp => t.dp,
                    _ => t.int_alu,
                };
                Self::take_pipe(&mut self.sp_busy, now, ii);
                self.write_dsts(w, &inst, now + l);
            }
            OpClass::Sfu => {
                let (l, ii) = t.sfu;
                Self::take_pipe(&mut self.sfu_busy, now, ii);
                self.write_dsts(w, &inst, now + l);
            }
            OpClass::LoadShared | OpClass::StoreShared | OpClass::AtomicShared => {
                let addrs = self.tbs[tb].insts.addrs(&inst);
                let c = conflict_cycles(addrs.iter().copied(), inst.width as u32, t.banks) as u64;
                self.lsu_busy_until = now + c;
                let ready = now + c + t.shared;
                self.write_dsts(w, &inst, ready);
            }
            OpClass::LoadConst => {
                self.lsu_busy_until = now + 1;
                let ready = now + t.l1d_hit;
                self.write_dsts(w, &inst, ready);
            }
            OpClass::LoadGlobal
            | OpClass::LoadLocal
            | OpClass::StoreGlobal
            | OpClass::StoreLocal
            | OpClass::AtomicGlobal => {
                let kind = match inst.class {
                    OpClass::StoreGlobal | OpClass::StoreLocal => LsuKind::Store,
                    OpClass::AtomicGlobal => LsuKind::Atomic,
                    _ => LsuKind::Load,
                };
                let txns = self.transactions(tb, &inst);
                let token = (kind != LsuKind::Store).then(|| {
                    self.warps[w].loads += 1;
                    self.write_dsts(w, &inst, u64::MAX);
                    self.new_pending(PendingLoad {
                        warp: w,
                        tb,
                        inst,
                        outstanding: 0,
                        ready_at: now + 1,
                        all_sent: false,
                    })
                });
                self.lsu = Some(LsuOp {
                    warp: w,
                    token,
                    kind,
                    txns,
                    next: 0,
                    failed_at: None,
                });
            }
            OpClass::Barrier => {
                self.warps[w].at_barrier = true;
                self.sync_masks(w);
                self.tbs[tb].arrived += 1;
                self.check_barrier(tb);
            }
            // A trace lists an `EXIT` for every group of lanes that leaves; the warp is done
            // when its last instruction issues (below), whatever that instruction is.
            OpClass::Exit | OpClass::MemBarrier | OpClass::Nop => {}
        }
        let warp = &mut self.warps[w];
        if warp.next_issue == warp.len {
            warp.exit_issued = true;
            self.sync_masks(w);
            self.exiting.push(w);
            self.check_barrier(tb);
        }
    }

    fn transactions(&self, tb: usize, inst: &WarpInst) -> Vec<(u64, u32)> {
        let addrs = self.tbs[tb].insts.addrs(inst);
        let mut lanes = Vec::with_capacity(addrs.len());
        let mut m = inst.mask;
        for &a in addrs {
            let lane = m.trailing_zeros();
            m &= m.wrapping_sub(1);
            lanes.push((lane, a));
        }
        coalesce(lanes, inst.width.max(1) as u32, false)
            .into_iter()
            .map(|t| (t.addr, t.size))
            .collect()
    }

    /// Releases the barrier of block slot `tb` when every warp that has not exited arrived.
    fn check_barrier(&mut self, tb: usize) {
        let slot = &self.tbs[tb];
        if slot.arrived == 0 {
            return;
        }
        let range = slot.first_warp..slot.first_warp + slot.warps;
        let waiting_for = self.warps[range.clone()]
            .iter()
            .filter(|w| w.live && !w.exit_issued)
            .count();
        if slot.arrived >= waiting_for {
            for w in range {
                self.warps[w].at_barrier = false;
                self.sync_masks(w);
            }
            self.tbs[tb].arrived = 0;
        }
    }

    fn fetch(&mut self, now: u64) {
        let elf_choice = self.elf.as_mut().and_then(|e| e.take_fetch());
        if self.fetchable == 0 {
            return;
        }
        let w = match elf_choice {
            Some(choice) => match choice {
                Some(w) if self.fetchable >> w & 1 == 1 => w,
                _ => return,
            },
            None => {
                // Round robin: the first fetchable warp after the last one fetched.
                let n = self.warps.len();
                let start = (self.fetch_last + 1) % n;
                let after = self.fetchable & !low_bits(start);
                if after != 0 { after } else { self.fetchable }.trailing_zeros() as usize
            }
        };
        let warp = &self.warps[w];
        let pc = self.tbs[warp.tb].insts.warps[warp.index][warp.next_fetch as usize].pc;
        let addr = self.code_base + pc as u64;
        let outcome = if self.perfect_l1i {
            Outcome::Hit
        } else {
            self.l1i.access(addr, false, w as u16)
        };
        if self.iprefetch > 0 && !self.perfect_l1i && !matches!(outcome, Outcome::Fail(_)) {
            let occupied = self.l1i.mshrs_occupied() + self.l1d.mshrs_occupied();
            if occupied < self.iprefetch as usize {
                let next = self.l1i.line(addr) + self.l1i.line_bytes() as u64;
                self.l1i.prefetch(next, PREFETCH);
            }
        }
        match outcome {
            Outcome::Hit => {
                let warp = &mut self.warps[w];
                warp.next_fetch = (warp.next_fetch + self.timing.fetch).min(warp.len);
                warp.ibuf_ready_at = now + self.timing.l1i_hit;
                self.refresh_head(w);
            }
            Outcome::Fail(_) => return,
            _ => {
                self.warps[w].imiss = true;
                self.update_fetchable(w);
            }
        }
        self.fetch_last = w;
    }

    fn retire(&mut self) {
        let mut i = 0;
        while i < self.exiting.len() {
            let w = self.exiting[i];
            let in_lsu = self.lsu.as_ref().is_some_and(|op| op.warp == w);
            if self.warps[w].loads > 0 || self.warps[w].stores > 0 || in_lsu {
                i += 1;
                continue;
            }
            self.exiting.swap_remove(i);
            self.warps[w].live = false;
            self.sync_masks(w);
            self.exit[w % self.schedulers] |= 1 << (w / self.schedulers);
            let tb = self.warps[w].tb;
            let slot = &mut self.tbs[tb];
            slot.left -= 1;
            if slot.left == 0 {
                slot.active = false;
                slot.insts = BlockInsts::default();
                self.resident -= 1;
                self.counts.blocks += 1;
            } else {
                self.check_barrier(tb);
            }
        }
    }

    fn send(&mut self, mem: &mut MemorySystem) {
        if let Some(f) = self.l1i.peek_fetch() {
            if mem.can_send(self.id) {
                self.l1i.pop_fetch();
                mem.send(MemRequest {
                    sm: self.id as u16,
                    kind: ReqKind::InstFetch,
                    addr: f.line,
                    bytes: f.bytes,
                    tag: 0,
                });
            }
        }
        if let Some(f) = self.l1d.peek_fetch() {
            if mem.can_send(self.id) {
                self.l1d.pop_fetch();
                mem.send(MemRequest {
                    sm: self.id as u16,
                    kind: if f.write {
                        ReqKind::Write
                    } else {
                        ReqKind::Read
                    },
                    addr: f.line,
                    bytes: f.bytes,
                    tag: f.req.unwrap_or(0),
                });
            }
        }
        if let Some(&a) = self.atomics.front() {
            if mem.send(a) {
                self.atomics.pop_front();
            }
        }
    }

    /// Describes every live warp that has not finished, with what it waits on (deadlock
    /// reports).
    pub fn describe_stuck(&self, now: u64, out: &mut Vec<String>) {
        for (w, warp) in self.warps.iter().enumerate() {
            if !warp.live {
                continue;
            }
            let tb = &self.tbs[warp.tb];
            let stream = &tb.insts.warps[warp.index];
            let pc = stream
                .get(warp.next_issue as usize)
                .map(|i| format!("{:#06x}", i.pc))
                .unwrap_or_else(|| "end".into());
            let why = if warp.exit_issued {
                format!(
                    "exit: {} load(s) and {} store(s) still in flight",
                    warp.loads, warp.stores
                )
            } else if warp.at_barrier {
                format!("barrier: {} of {} warps arrived", tb.arrived, tb.warps)
            } else if warp.imiss {
                "instruction-cache miss in flight".into()
            } else if let Some(inst) = self.head(w, now) {
                let regs: Vec<String> = tb.insts.regs[inst.reg_start as usize
                    ..inst.reg_start as usize + inst.ndst as usize + inst.nsrc as usize]
                    .iter()
                    .filter(|&&r| r != RZ && warp.reg_ready[r as usize] > now)
                    .map(|r| {
                        if warp.reg_ready[*r as usize] == u64::MAX {
                            format!("R{r} (load in flight)")
                        } else {
                            format!("R{r}")
                        }
                    })
                    .collect();
                if !regs.is_empty() {
                    format!("scoreboard: {}", regs.join(", "))
                } else if self.free_units(now) & unit_bit(inst.class) == 0 {
                    format!("{:?} unit busy", inst.class)
                } else {
                    "nothing: ready, but the warp arbiter does not grant it".into()
                }
            } else {
                "empty instruction buffer".into()
            };
            out.push(format!(
                "sm {} warp {w} (block {}, warp {} of it): pc {pc}, waits on {why}",
                self.id, tb.insts.id, warp.index
            ));
        }
    }
}
