//! The warps stage of the SM: thread-block slots and warp slots, block launch, the i-buffer
//! head and the per-scheduler masks the other stages read, barriers, retirement (a warp leaves
//! once its last instruction issued, no instruction, load or store of it is in flight, and the
//! fetch stage's round robin passes it; the last warp of a block frees the block), and the
//! watchdog's description of stuck warps.

use super::*;
use crate::gpu::sites::kernel_sched::BlockView;

/// A warp slot.
///
/// `repr(C)` with the fields the scheduler reads every cycle first, so they share one cache
/// line.
#[repr(C)]
pub(super) struct Warp {
    /// Instruction `next_issue` when it is in the i-buffer (a copy, for the scheduler).
    pub(super) head: Option<WarpInst>,
    /// Instruction `next_issue + 1` when it is in the i-buffer (a copy, the head after the
    /// next issue).
    pub(super) ahead: Option<WarpInst>,
    /// The i-buffer's instructions are decoded from this cycle on.
    pub(super) ibuf_ready_at: u64,
    pub(super) live: bool,
    /// Stopped by a preemption of its block: it issues and fetches nothing.
    pub(super) stopped: bool,
    /// Its slot belongs to a resident block (live or retired), so no other block's warp range
    /// may take it.
    pub(super) held: bool,
    pub(super) imiss: bool,
    pub(super) at_barrier: bool,
    pub(super) exit_issued: bool,
    pub(super) len: u32,
    /// Instructions `next_issue..next_fetch` are in the i-buffer.
    pub(super) next_issue: u32,
    pub(super) next_fetch: u32,
    /// Instructions it issued on this SM, and their active lanes (its kernel's counts, added
    /// when its block leaves).
    pub(super) issued_here: u32,
    /// See `issued_here`.
    pub(super) threads: u64,
    /// It issued an instruction that ends its block's idempotence.
    pub(super) overwrote: bool,
    /// Load instructions in flight.
    pub(super) loads: u32,
    /// Store transactions not yet acknowledged by the L2.
    pub(super) stores: u32,
    /// Thread-block slot and warp index within the block.
    pub(super) tb: usize,
    pub(super) index: usize,
    /// Its kernel's launch index (the kernel its cache accesses and requests count under).
    pub(super) kernel: u32,
    /// Where its kernel's code starts.
    pub(super) code_base: u64,
    /// Per register, its scoreboard entry: [`FIRST_REGS`] of them once the warp slot first
    /// launches (empty before: most slots of a small kernel never do, and their memory is then
    /// never touched), grown when a higher register is written ([`Warp::reg_mut`]); a
    /// register past the end was never written and reads as the default ([`Warp::reg`]).
    pub(super) regs: Vec<Reg>,
}

/// Where a warp (re)starts in its warp slot: a launch (from its first instruction) or a
/// restore (where it stopped).
pub(super) struct WarpStart {
    /// Its block slot, and its index in the block.
    pub(super) tb: usize,
    pub(super) index: usize,
    /// Its instruction count, the instruction it issues next.
    pub(super) len: u32,
    pub(super) next: u32,
    pub(super) at_barrier: bool,
    pub(super) exit_issued: bool,
    /// Stopped until its context is back (a restore).
    pub(super) stopped: bool,
}

impl Warp {
    /// The warp slot takes warp `s` of `kernel`: live, its i-buffer empty, its counts zero,
    /// every register ready (the long-op marks stay, see [`Reg::long_op_until`]).
    pub(super) fn start(&mut self, kernel: &KernelCtx, s: WarpStart) {
        self.live = true;
        self.stopped = s.stopped;
        self.tb = s.tb;
        self.index = s.index;
        self.kernel = kernel.launch as u32;
        self.code_base = kernel.code_base;
        self.len = s.len;
        self.next_issue = s.next;
        self.next_fetch = s.next;
        self.ibuf_ready_at = 0;
        self.imiss = false;
        self.at_barrier = s.at_barrier;
        self.exit_issued = s.exit_issued;
        self.issued_here = 0;
        self.threads = 0;
        self.overwrote = false;
        self.loads = 0;
        self.stores = 0;
        self.head = None;
        self.ahead = None;
        self.reset_regs();
    }

    /// Every register ready; the long-op marks stay.
    pub(super) fn reset_regs(&mut self) {
        if self.regs.is_empty() {
            self.regs = vec![Reg::default(); FIRST_REGS];
        } else {
            for r in &mut self.regs {
                r.ready = 0;
            }
        }
    }

    /// Register `r`'s scoreboard entry (the default for one never written).
    #[inline]
    pub(super) fn reg(&self, r: u16) -> Reg {
        self.regs.get(r as usize).copied().unwrap_or_default()
    }

    /// Register `r`'s scoreboard entry to write (the table grown to all [`REGS`] registers when
    /// `r` is past its end).
    #[inline]
    pub(super) fn reg_mut(&mut self, r: u16) -> &mut Reg {
        let i = r as usize;
        if i >= self.regs.len() {
            self.grow_regs(i);
        }
        &mut self.regs[i]
    }

    #[cold]
    fn grow_regs(&mut self, i: usize) {
        self.regs.resize(REGS.max(i + 1), Reg::default());
    }
}

/// Scoreboard entries a warp slot starts with (1 kB: four slots share a page, where
/// [`REGS`]' 4 kB took one each; kernels mostly use fewer registers; measured in the speed
/// history, 2026-12-07 night).
const FIRST_REGS: usize = 64;

/// [`Reg::ready`] of a register an instruction in the operand collector or a pipeline writes:
/// its writeback releases it (an event, not a known cycle).
pub(super) const IN_PIPELINE: u64 = u64::MAX - 1;

/// One warp register's scoreboard entry (16 bytes: both fields a scan reads share a line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Reg {
    /// The first cycle the register can be read (`u64::MAX`: a load in flight writes it;
    /// [`IN_PIPELINE`]: an instruction in the operand collector or a pipeline does).
    /// Reset to 0 when a block launches on the warp slot.
    pub(super) ready: u64,
    /// GPGPU-Sim's long-op mark (`scoreboard.cc`: `longopregs`): set while the cycle is below
    /// this one. Issuing a global or local load or a global atomic that writes the register
    /// sets it for good (`u64::MAX`; L1 hits alike: the load's completion does not clear it);
    /// a non-memory writer (ALU, SFU, constant load) clears it at its writeback cycle; shared
    /// memory instructions and stores leave it. Like GPGPU-Sim's scoreboard, which is never
    /// reset, the mark outlives the block: a block launched on the warp slot inherits it.
    pub(super) long_op_until: u64,
}

impl Warp {
    pub(super) fn new() -> Self {
        Self {
            live: false,
            stopped: false,
            held: false,
            tb: 0,
            index: 0,
            kernel: 0,
            code_base: 0,
            len: 0,
            next_issue: 0,
            next_fetch: 0,
            ibuf_ready_at: 0,
            imiss: false,
            at_barrier: false,
            exit_issued: false,
            issued_here: 0,
            threads: 0,
            overwrote: false,
            loads: 0,
            stores: 0,
            head: None,
            ahead: None,
            regs: Vec::new(),
        }
    }
}

/// A thread-block slot.
pub(super) struct TbSlot {
    pub(super) active: bool,
    /// The block's linear id in its kernel's grid.
    pub(super) id: u32,
    pub(super) insts: RunBlock,
    pub(super) first_warp: usize,
    pub(super) warps: usize,
    /// Warps not yet retired.
    pub(super) left: usize,
    /// Warps waiting at the barrier.
    pub(super) arrived: usize,
    /// Its resources (threads, registers, shared memory, 1 slot), released when it completes.
    pub(super) takes: [u32; 4],
    /// Its kernel (`None` while the slot is free).
    pub(super) kernel: Option<Arc<KernelCtx>>,
    /// It had issued an instruction that ends its idempotence (a global store into an array
    /// the kernel reads, or a global atomic) before it was switched out; its warps' marks
    /// ([`Warp::overwrote`]) tell what it issued since.
    pub(super) non_idempotent: bool,
    /// Its dispatcher placed it (its end is reported to the dispatcher); a block placed from
    /// its kernel's preempted queue was not.
    pub(super) dispatched: bool,
    /// Times it has been flushed and restarted.
    pub(super) flushes: u32,
    /// Its preemption, once started.
    pub(super) preempt: Option<super::preempt::Preemption>,
    /// The cycle it started, less the cycles it was resident elsewhere before it was switched
    /// out (its cycles resident are `now - started`).
    pub(super) started: u64,
    /// Where a positional allocator put it (`None` from a counting one).
    pub(super) place: Option<crate::gpu::sites::alloc::Place>,
}

impl TbSlot {
    /// A free slot.
    pub(super) fn free() -> Self {
        TbSlot {
            active: false,
            id: 0,
            insts: RunBlock::default(),
            first_warp: 0,
            warps: 0,
            left: 0,
            arrived: 0,
            takes: [0; 4],
            kernel: None,
            non_idempotent: false,
            dispatched: false,
            flushes: 0,
            preempt: None,
            started: 0,
            place: None,
        }
    }
}

/// A block that left its SM by completing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// Its block slot on the SM.
    pub slot: usize,
    /// Its kernel's launch index.
    pub kernel: u32,
    /// Its dispatcher placed it (so it is told of the end).
    pub dispatched: bool,
    /// Warp instructions it issued since it started ([`BlockView::issued`]).
    pub issued: u64,
    /// The cycle it started ([`BlockView::cycles`]: it was resident `now + 1 - started` cycles).
    pub started: u64,
    /// It was being preempted (drained, or it completed while being switched out or flushed)
    /// since this cycle.
    pub preempted_since: Option<u64>,
}

/// `into += what`, per resource (the allocator's ports count modulo their widths).
pub(super) fn add(into: &mut [u32; 4], what: [u32; 4]) {
    for (i, w) in into.iter_mut().zip(what) {
        *i = i.wrapping_add(w);
    }
}

impl Sm<'_> {
    /// Makes block `id` (`insts`) of `kernel` resident; its warps are launched this cycle,
    /// `now` (`dispatched`: its dispatcher placed it, and is told when it ends). Returns the block
    /// slot it takes (reported in [`Sm::finished`] when it completes). Fails if a streamed
    /// block's first instructions cannot be read.
    pub fn launch(
        &mut self,
        kernel: &Arc<KernelCtx>,
        id: u64,
        mut insts: RunBlock,
        dispatched: bool,
        now: u64,
    ) -> Result<usize, SimError> {
        self.wake(now);
        // Only a wrong answer of the SM's allocator sends a block to an SM without room.
        let no_room = |what: &str| {
            SimError::Protocol(format!(
                "sm_alloc: SM {} had room for block {id} at cycle {now}, but no free {what}",
                self.id
            ))
        };
        let slot =
            (self.tbs.iter().position(|t| !t.active)).ok_or_else(|| no_room("block slot"))?;
        let wpt = kernel.warps_per_tb;
        let first = self
            .free_warp_range(wpt)
            .ok_or_else(|| no_room("range of warp slots"))?;
        let n = insts.warps().min(wpt);
        for i in 0..n {
            insts.ensure(i, 1)?;
        }
        self.hold(first, wpt, true);
        for i in 0..n {
            let w = first + i;
            let warp = &mut self.warps[w];
            let len = insts.len(i);
            warp.start(
                kernel,
                WarpStart {
                    tb: slot,
                    index: i,
                    len,
                    next: 0,
                    at_barrier: false,
                    exit_issued: len == 0,
                    stopped: false,
                },
            );
            if warp.exit_issued {
                self.exiting.push(w);
            }
            self.update_fetchable(w);
            self.sync_masks(w);
            let (s, local) = (w % self.schedulers, w / self.schedulers);
            self.launch[s] |= 1 << local;
            if self.tbs_launched > 0 {
                self.launch2[s] |= 1 << local;
            }
            self.issue.launched(&LaunchedWarp {
                sched: s,
                local,
                kernel,
                block: id,
                index: i,
                pc: insts.get(i, 0).map_or(0, |x| x.pc),
            });
        }
        self.tbs_launched = self.tbs_launched.saturating_add(1);
        self.tbs[slot] = TbSlot {
            active: true,
            id: id as u32,
            insts,
            first_warp: first,
            warps: n,
            left: n,
            arrived: 0,
            takes: kernel.need,
            kernel: Some(kernel.clone()),
            dispatched,
            started: now,
            place: self.take_place(),
            ..TbSlot::free()
        };
        self.resident += 1;
        self.arrives(kernel.launch);
        add(&mut self.alloc_req.allocated, kernel.need);
        if n == 0 {
            self.complete(slot);
        }
        Ok(slot)
    }

    /// The first warp of a free range of `wpt` warp slots aligned to `wpt` (GPGPU-Sim's
    /// `find_available_hwtid`), if any.
    pub(super) fn free_warp_range(&self, wpt: usize) -> Option<usize> {
        (0..self.warps.len() / wpt)
            .map(|k| k * wpt)
            .find(|&f| self.range_is_free(f, wpt))
    }

    /// How many aligned ranges of `wpt` warp slots are free, counting up to `most`.
    pub(super) fn free_warp_ranges(&self, wpt: usize, most: usize) -> usize {
        (0..self.warps.len() / wpt)
            .filter(|&k| self.range_is_free(k * wpt, wpt))
            .take(most)
            .count()
    }

    /// No warp slot of `first..first + wpt` is held.
    fn range_is_free(&self, first: usize, wpt: usize) -> bool {
        self.warps[first..first + wpt].iter().all(|w| !w.held)
    }

    /// A block of kernel `launch` became resident.
    pub(super) fn arrives(&mut self, launch: usize) {
        match self.kernels_here.iter_mut().find(|(l, _)| *l == launch) {
            Some((_, n)) => *n += 1,
            None => self.kernels_here.push((launch, 1)),
        }
    }

    /// Block `slot` (just taken out of its slot) leaves the SM.
    pub(super) fn leaves(&mut self, slot: &TbSlot) {
        if slot.preempt.is_some() {
            self.preempting -= 1;
        }
        let launch = slot.kernel.as_ref().expect("an active block").launch;
        if let Some(i) = self.kernels_here.iter().position(|(l, _)| *l == launch) {
            self.kernels_here[i].1 -= 1;
            if self.kernels_here[i].1 == 0 {
                self.kernels_here.swap_remove(i);
            }
        }
    }

    /// The warp and thread instructions block `slot`'s warps issued on this SM.
    fn issued_here(&self, slot: &TbSlot) -> (u64, u64) {
        self.warps[slot.first_warp..slot.first_warp + slot.warps]
            .iter()
            .fold((0, 0), |(w, t), x| {
                (w + x.issued_here as u64, t + x.threads)
            })
    }

    /// Warp instructions block slot `tb` has issued since it started (on every SM it ran on:
    /// a restored warp resumes at its count).
    pub(super) fn issued_since_start(&self, tb: usize) -> u64 {
        let slot = &self.tbs[tb];
        self.warps[slot.first_warp..slot.first_warp + slot.warps]
            .iter()
            .map(|w| w.next_issue as u64)
            .sum()
    }

    /// Its resident blocks, in block-slot order, as the kernel scheduler sees them
    /// (`slot_of`: a kernel's slot from its launch index).
    pub fn block_views(
        &self,
        slot_of: &dyn Fn(usize) -> usize,
        now: u64,
        out: &mut Vec<BlockView>,
    ) {
        out.clear();
        for (tb, t) in self.tbs.iter().enumerate().filter(|(_, t)| t.active) {
            let kernel = t.kernel.as_ref().expect("an active block has its kernel");
            out.push(BlockView {
                tb,
                slot: slot_of(kernel.launch),
                id: t.id,
                issued: self.issued_since_start(tb),
                cycles: now - t.started,
                non_idempotent: self.overwrote(tb),
                preempting: t.preempt.is_some(),
                place: t.place,
            });
        }
    }

    /// Whether block slot `tb` has issued an instruction that ends its idempotence.
    pub(super) fn overwrote(&self, tb: usize) -> bool {
        let slot = &self.tbs[tb];
        slot.non_idempotent
            || self.warps[slot.first_warp..slot.first_warp + slot.warps]
                .iter()
                .any(|w| w.overwrote)
    }

    /// Adds block `slot`'s instructions to its kernel's (it leaves the SM).
    pub(super) fn count_instructions(&mut self, slot: &TbSlot) {
        if let Some(k) = &slot.kernel {
            let (warp, thread) = self.issued_here(slot);
            if k.launch >= self.by_kernel.len() {
                self.by_kernel.resize(k.launch + 1, (0, 0));
            }
            let mine = &mut self.by_kernel[k.launch];
            mine.0 += warp;
            mine.1 += thread;
        }
    }

    /// Kernel `k`'s warp and thread instructions issued on this SM (its blocks still resident
    /// included).
    pub fn kernel_instructions(&self, k: u32) -> (u64, u64) {
        let (mut warp, mut thread) = self.by_kernel.get(k as usize).copied().unwrap_or((0, 0));
        for t in self.tbs.iter().filter(|t| t.active) {
            if t.kernel.as_ref().is_some_and(|x| x.launch as u32 == k) {
                let (w, th) = self.issued_here(t);
                warp += w;
                thread += th;
            }
        }
        (warp, thread)
    }

    /// Marks warp slots `first..first + wpt` as held by a resident block (or free).
    pub(super) fn hold(&mut self, first: usize, wpt: usize, held: bool) {
        for w in &mut self.warps[first..first + wpt] {
            w.held = held;
        }
    }

    /// Block slot `tb` completed: its resources and warp range are free, its end is reported.
    pub(super) fn complete(&mut self, tb: usize) {
        let issued = self.issued_since_start(tb);
        let slot = std::mem::replace(&mut self.tbs[tb], TbSlot::free());
        self.count_instructions(&slot);
        self.leaves(&slot);
        let kernel = slot
            .kernel
            .as_ref()
            .expect("an active block has its kernel");
        self.hold(slot.first_warp, kernel.warps_per_tb, false);
        add(&mut self.alloc_req.released, slot.takes);
        self.give_back(slot.place);
        self.resident -= 1;
        self.counts.blocks += 1;
        self.finished.push(Finished {
            slot: tb,
            kernel: kernel.launch as u32,
            dispatched: slot.dispatched,
            issued,
            started: slot.started,
            preempted_since: slot
                .preempt
                .filter(|p| !matches!(p.phase, super::preempt::Phase::Restoring { .. }))
                .map(|p| p.since),
        });
    }

    /// The instruction at the head of warp `w`'s i-buffer, if decoded by `now`.
    pub(super) fn head(&self, w: usize, now: u64) -> Option<WarpInst> {
        let warp = &self.warps[w];
        if !warp.live || warp.at_barrier || warp.ibuf_ready_at > now {
            return None;
        }
        warp.head
    }

    /// Reloads the cached head of warp `w` after its i-buffer changed: `issued` when its head
    /// was just issued (the next one is the copy in `ahead`), otherwise after a fetch.
    pub(super) fn refresh_head(&mut self, w: usize, issued: bool) {
        let warp = &mut self.warps[w];
        let (i, f) = (warp.next_issue, warp.next_fetch);
        let insts = &self.tbs[warp.tb].insts;
        warp.head = match (i < f, issued) {
            (false, _) => None,
            (true, true) => warp.ahead,
            (true, false) => Some(insts.inst(warp.index, i)),
        };
        // Copied now, from the lines the fetch just read, so the head after the next issue
        // is in the warp.
        warp.ahead = (i + 1 < f).then(|| insts.inst(warp.index, i + 1));
        self.update_fetchable(w);
        self.sync_masks(w);
    }

    /// Mirrors warp `w`'s live, stalled and has-instruction flags in the scheduler masks, and
    /// marks the warp for its scheduler's next scan.
    pub(super) fn sync_masks(&mut self, w: usize) {
        let warp = &self.warps[w];
        let (s, bit) = (w % self.schedulers, 1u64 << (w / self.schedulers));
        let set = |m: &mut u64, on: bool| {
            if on {
                *m |= bit
            } else {
                *m &= !bit
            }
        };
        let st = &mut self.scan_state[s];
        set(&mut st.live, warp.live);
        set(
            &mut st.stalled,
            warp.at_barrier || warp.exit_issued || warp.stopped,
        );
        set(&mut st.head, warp.head.is_some());
        self.mark_for_scan(w);
    }

    /// Recomputes whether warp `w` wants a fetch (live, no fetch miss pending, empty i-buffer,
    /// more instructions to fetch) into bit `w` of `fetchable`.
    pub(super) fn update_fetchable(&mut self, w: usize) {
        let warp = &self.warps[w];
        let wants = warp.live
            && !warp.stopped
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

    /// Releases the barrier of block slot `tb` when every warp that has not exited arrived.
    pub(super) fn check_barrier(&mut self, tb: usize) {
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

    /// Retires the finished warps the fetch stage's round robin passed this cycle
    /// ([`Sm::reclaim`]).
    pub(super) fn retire(&mut self) {
        let Some((from, to)) = self.reclaim else {
            return;
        };
        let mut i = 0;
        while i < self.exiting.len() {
            let w = self.exiting[i];
            let visited = match from <= to {
                true => (from..=to).contains(&w),
                false => w >= from || w <= to,
            };
            if !visited {
                i += 1;
                continue;
            }
            // The LSU queue is looked at only when nothing else keeps the warp.
            let busy = self.warps[w].loads > 0
                || self.warps[w].stores > 0
                || self.collector.as_ref().is_some_and(|c| c.per_warp[w] > 0);
            if busy || self.lsu.iter().any(|op| op.warp == w) {
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
                self.complete(tb);
            } else {
                self.check_barrier(tb);
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
            let pc = tb
                .insts
                .get(warp.index, warp.next_issue)
                .map(|i| format!("{:#06x}", i.pc))
                .unwrap_or_else(|| "end".into());
            let why = if warp.stopped {
                "the preemption of its block (stopped)".to_string()
            } else if warp.exit_issued {
                format!(
                    "exit: {} load(s) and {} store(s) still in flight",
                    warp.loads, warp.stores
                )
            } else if warp.at_barrier {
                format!("barrier: {} of {} warps arrived", tb.arrived, tb.warps)
            } else if warp.imiss {
                "instruction-cache miss in flight".into()
            } else if let Some(inst) = self.head(w, now) {
                let regs: Vec<String> = tb
                    .insts
                    .operands(warp.index, &inst)
                    .iter()
                    .filter(|&&r| r != RZ && warp.reg(r).ready > now)
                    .map(|&r| match warp.reg(r).ready {
                        u64::MAX => format!("R{r} (load in flight)"),
                        IN_PIPELINE => format!("R{r} (in the operand collector or a pipeline)"),
                        _ => format!("R{r}"),
                    })
                    .collect();
                if !regs.is_empty() {
                    format!("scoreboard: {}", regs.join(", "))
                } else if self.free_units(now, w % self.schedulers)
                    & unit_bit(inst.class, self.collector.is_some())
                    == 0
                {
                    format!("{:?} unit busy", inst.class)
                } else {
                    "nothing: ready, but the warp arbiter does not grant it".into()
                }
            } else {
                "empty instruction buffer".into()
            };
            out.push(format!(
                "sm {} warp {w} (block {}, warp {} of it): pc {pc}, waits on {why}",
                self.id,
                tb.insts.id(),
                warp.index
            ));
        }
    }
}
