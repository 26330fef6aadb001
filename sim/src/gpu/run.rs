//! The GPU's run loop: kernels arrive and take kernel slots, the kernel scheduler offers SMs to
//! them and preempts blocks, each slot's dispatcher grants blocks (its preempted blocks first),
//! the SMs and the memory system run, kernels finish and leave their slots.
//!
//! # One GPU cycle (core clock)
//! 1. periodic launches release their instances; arrived launches take free slots (in arrival
//!    order) when the kernel scheduler admits them: the kernel is opened, the policies prepare
//!    it, its slot's dispatcher starts it;
//! 2. replies that reached the SMs are handled (L1D/L1I fills wake loads and fetches);
//! 3. the kernel scheduler sees every slot's kernel and every SM's resident blocks per slot,
//!    and offers each SM to at most one slot's kernel; the preemptions it asks for start;
//! 4. every SM's resource allocator says whether one or two more blocks of the kernel offered
//!    to it fit; each slot's kernel first places its preempted blocks on its SMs with room
//!    (restored, or restarted), then its dispatcher sees the other SMs' room and grants
//!    `(SM, block id)` pairs, launched at once in id order (a kernel in its launch latency,
//!    [`crate::config::LaunchConfig`], sees no room);
//! 5. every SM runs its cycle (LSU, issue, fetch, retire, preemptions, requests); the blocks
//!    that completed, were switched out or flushed are collected;
//! 6. the memory system runs its cycle;
//! 7. a kernel whose blocks have all completed leaves its slot (the next launch of its stream
//!    may then arrive).
//!
//! With one kernel at a time (`--kernel-sched serial`) this is the cycle of a GPU that runs
//! the kernels one after the other: every statistic is what it was before kernels could
//! overlap.

use super::kernel::KernelCtx;
use super::kernels::{Kernels, Resident};
use super::sites::dispatch::{DispatchIn, Grant};
use super::sites::kernel_sched::{
    BlockView, KernelSchedIn, KernelSchedOut, KernelView, Preempt, Technique,
};
use super::sm::{Finished, Preempted, Released};
use super::{Gpu, KernelReport, Progress, Report, SimError, StreamReport};
use crate::workload::kernel::{BlockIdSet, WorkloadSource};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the loop keeps between cycles.
struct Loop {
    /// Per slot, per SM: block slots of that slot's kernel that completed (its dispatcher's
    /// `finished` at its next step).
    finished: Vec<Vec<Vec<usize>>>,
    /// Per slot: some entry of `finished` is not empty.
    any_finished: Vec<bool>,
    grants: Vec<Grant>,
    views: Vec<Option<KernelView>>,
    /// Per SM: its resident blocks, for a kernel scheduler that reads them.
    blocks: Vec<Vec<BlockView>>,
    out: KernelSchedOut,
    /// Per SM, per slot: warp instructions issued there (filled when the unit samples).
    issued: Vec<Vec<u64>>,
    /// Per slot: SMs that can take one more block of its kernel, and two.
    room: Vec<(u128, u128)>,
    /// Launches in their tail (none left to dispatch while another has some), for warp-issue
    /// units with marks (`None`: the unit has none).
    tails: Option<Vec<usize>>,
    unknown: Vec<String>,
    /// Loads' and stores' modifiers the trace reader did not know, one note each.
    unknown_modifiers: Vec<String>,
}

impl<'a> Gpu<'a> {
    /// Runs every kernel of `workload` to completion (or to `max_cycles`), calling `progress`
    /// about every 16k cycles.
    pub fn run(
        &mut self,
        workload: &mut dyn WorkloadSource,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Report, SimError> {
        let launches = workload.launches()?;
        // A kernel that can never run is an error before anything runs.
        for (i, l) in launches.iter().enumerate() {
            let ctx = KernelCtx::new(&self.cfg, &l.info, i, i).map_err(|e| match e {
                SimError::DoesNotFit { kernel, source } if l.origin != kernel => {
                    SimError::Config(format!("{}: kernel `{kernel}`: {source}", l.origin))
                }
                e => e,
            })?;
            self.opts.plan.sm_alloc.check_kernel(&self.cfg, &ctx)?;
        }
        let slots = self.dispatchers.len();
        let n = self.sms.len();
        let mut ks = Kernels::new(launches, slots);
        let mut lp = Loop {
            finished: vec![vec![vec![]; n]; slots],
            any_finished: vec![false; slots],
            grants: vec![],
            views: vec![],
            blocks: vec![vec![]; if self.ksched.wants_blocks() { n } else { 0 }],
            out: KernelSchedOut {
                offer: vec![None; n],
                quota: vec![vec![None; slots]; n],
                sample: false,
                preempt: vec![],
                kill: vec![],
            },
            room: vec![(0, 0); slots],
            issued: vec![],
            tails: self
                .sms
                .first()
                .filter(|sm| sm.wants_marks())
                .map(|_| vec![]),
            unknown: vec![],
            unknown_modifiers: vec![],
        };
        let mut truncated = false;
        self.last_issue = self.now;
        while !ks.all_done() {
            self.cycle(&mut ks, &mut lp)?;
            if ks.slots.iter().all(Option::is_none) {
                // Nothing to run until the next arrival: no deadlock.
                self.last_issue = self.now;
            }
            self.check_health(&ks)?;
            if self.now & 0x3fff == 0 {
                progress(&self.progress(&ks));
            }
            if self.now.is_multiple_of(super::timeline::SAMPLE) {
                self.sample_alloc();
            }
            if self.opts.max_cycles.is_some_and(|m| self.now >= m) {
                truncated = !ks.all_done();
                break;
            }
        }
        // The cycles the SMs slept through are counted.
        for sm in &mut self.sms {
            sm.wake(self.now);
        }
        for slot in 0..slots {
            if ks.slots[slot].is_some() {
                self.leave(&mut ks, &mut lp, slot, true);
            }
        }
        self.sample_alloc();
        let unknown = (lp.unknown, lp.unknown_modifiers);
        Ok(self.report(workload.name(), ks, unknown, truncated))
    }

    /// The allocators' counters, summed over the SMs.
    fn alloc_totals(&self) -> BTreeMap<String, u64> {
        self.sms.iter().fold(BTreeMap::new(), |mut m, sm| {
            for (k, v) in sm.alloc_report() {
                *m.entry(k.to_string()).or_insert(0) += v;
            }
            m
        })
    }

    /// A sample of the allocators' counters for the timeline.
    fn sample_alloc(&mut self) {
        let totals = self.alloc_totals();
        if !totals.is_empty() && self.now > 0 {
            self.alloc_timeline.sample(self.now, totals);
        }
    }

    /// One GPU cycle (module documentation).
    fn cycle(&mut self, ks: &mut Kernels, lp: &mut Loop) -> Result<(), SimError> {
        let now = self.now;
        if ks.waiting() {
            ks.release(now);
            self.admit(ks, now)?;
        }
        for sm in &mut self.sms {
            if !sm.sleeps_on(now, &self.mem) {
                sm.receive(&mut self.mem, now);
            }
        }
        ks.views(&mut lp.views);
        if !lp.blocks.is_empty() {
            self.block_views(ks, &mut lp.blocks, now);
        }
        if std::mem::take(&mut lp.out.sample) {
            self.sample_issued(ks, &mut lp.issued);
        } else {
            lp.issued.clear();
        }
        self.ksched.step(
            &KernelSchedIn {
                now,
                kernels: &lp.views,
                sms: &self.resident,
                blocks: &lp.blocks,
                issued: &lp.issued,
            },
            &mut lp.out,
        )?;
        if !lp.out.preempt.is_empty() {
            for p in std::mem::take(&mut lp.out.preempt) {
                self.preempt(ks, p, now);
            }
        }
        for slot in std::mem::take(&mut lp.out.kill) {
            if let Some(r) = ks.slots.get_mut(slot).and_then(Option::as_mut) {
                r.killed = true;
                r.queue.clear();
            }
        }
        // A killed kernel's blocks are flushed; one being saved or restored once it runs.
        for slot in 0..ks.slots.len() {
            if ks.slots[slot]
                .as_ref()
                .is_some_and(|r| r.killed && r.resident > 0)
            {
                self.flush_killed(ks, slot, now);
            }
        }
        self.offer(ks, lp)?;
        for slot in 0..ks.slots.len() {
            self.dispatch(ks, lp, slot, now)?;
        }
        if let Some(tails) = lp.tails.as_mut() {
            in_tail(ks, tails);
            for sm in &mut self.sms {
                sm.set_tails(tails);
            }
        }
        let mut issued = false;
        for sm in self.sms.iter_mut().filter(|sm| !sm.asleep(now)) {
            sm.cycle(now, &mut self.mem, &mut issued)?;
        }
        self.collect(ks, lp, now);
        self.mem.cycle();
        self.now += 1;
        if issued {
            self.last_issue = self.now;
        }
        for slot in 0..ks.slots.len() {
            let done = ks.slots[slot].as_ref().is_some_and(|r| {
                r.resident == 0 && (r.killed || (r.finished() && r.queue.is_empty()))
            });
            if done {
                self.leave(ks, lp, slot, false);
            }
        }
        Ok(())
    }

    /// Every SM's warp instructions per kernel slot (0 for an empty slot).
    fn sample_issued(&self, ks: &Kernels, out: &mut Vec<Vec<u64>>) {
        out.resize(self.sms.len(), vec![]);
        for (sm, row) in self.sms.iter().zip(out.iter_mut()) {
            row.clear();
            row.extend(ks.slots.iter().map(|r| {
                r.as_ref()
                    .map_or(0, |r| sm.kernel_instructions(r.ctx.launch as u32).0)
            }));
        }
    }

    /// Every SM's resident blocks as the kernel scheduler sees them.
    fn block_views(&self, ks: &Kernels, out: &mut [Vec<BlockView>], now: u64) {
        let slot_of = |launch: usize| {
            ks.slots
                .iter()
                .position(|r| r.as_ref().is_some_and(|r| r.ctx.launch == launch))
                .expect("a resident block's kernel holds a slot")
        };
        for (sm, v) in self.sms.iter().zip(out) {
            sm.block_views(&slot_of, now, v);
        }
    }

    /// Arrived launches take free slots, in arrival order, while the kernel scheduler admits
    /// them.
    fn admit(&mut self, ks: &mut Kernels, now: u64) -> Result<(), SimError> {
        loop {
            let Some(&(arrival, _, stream)) = ks.arrived(now).first() else {
                return Ok(());
            };
            let Some(slot) = ks.slots.iter().position(Option::is_none) else {
                return Ok(());
            };
            let mut views = vec![];
            ks.views(&mut views);
            let inp = KernelSchedIn {
                now,
                kernels: &views,
                sms: &self.resident,
                blocks: &[],
                issued: &[],
            };
            if !self.ksched.admit(&inp) {
                return Ok(());
            }
            let p = ks.take(stream);
            let spec = &mut ks.specs[p.spec];
            let source = (spec.open)()?;
            let mut ctx = KernelCtx::new(&self.cfg, source.info(), p.launch, p.spec)?;
            ctx.overwriting_pcs = source.overwriting_pcs();
            ctx.caching = self
                .opts
                .bypass
                .for_kernel(&ctx.info.name, self.cfg.pipeline.gmem_skip_l1d);
            self.opts
                .plan
                .prepare(&self.cfg, &*source, &mut ctx.prepared)?;
            let shared = ctx.occupancy.blocks as u64 * ctx.info.shmem_bytes as u64;
            if let Some(ways) = self.cfg.l1d_carveout.ways_for(&self.cfg.l1d, shared) {
                self.sms
                    .iter_mut()
                    .for_each(|sm| sm.set_l1d_ways(ways, now));
            }
            let ctx = Arc::new(ctx);
            self.dispatchers[slot].start_kernel(&ctx);
            ks.slots[slot] = Some(Resident {
                ctx,
                source,
                stream,
                priority: spec.priority,
                arrival,
                start: now,
                deadline: spec.deadline,
                first: true,
                granted: BlockIdSet::default(),
                dispatched: 0,
                resident: 0,
                done: 0,
                done_issued: 0,
                done_cycles: 0,
                queue: Default::default(),
                preemptions: Default::default(),
                killed: false,
            });
        }
    }

    /// Every SM's room for the kernel offered to it (the others' allocators step idle).
    fn offer(&mut self, ks: &Kernels, lp: &mut Loop) -> Result<(), SimError> {
        lp.room.fill((0, 0));
        // SM `i`'s bit, shifted along with `i` (a shift by a variable is dearer on a u128).
        let mut bit = 1u128;
        for (i, sm) in self.sms.iter_mut().enumerate() {
            let offered = lp.out.offer[i].and_then(|k| Some((k, ks.slots.get(k)?.as_ref()?)));
            match offered {
                Some((k, r)) => {
                    let (one, two) = sm.room(&r.ctx, lp.out.quota[i][k])?;
                    lp.room[k].0 |= if one { bit } else { 0 };
                    lp.room[k].1 |= if two { bit } else { 0 };
                }
                None => sm.step_alloc_idle()?,
            }
            bit <<= 1;
        }
        Ok(())
    }

    /// Slot `slot`'s kernel places its preempted blocks on its SMs with room, then its
    /// dispatcher grants blocks on the others.
    fn dispatch(
        &mut self,
        ks: &mut Kernels,
        lp: &mut Loop,
        slot: usize,
        now: u64,
    ) -> Result<(), SimError> {
        let Some(r) = ks.slots[slot].as_mut() else {
            return Ok(());
        };
        // A killed kernel's dispatcher still steps (it sees its slots freed), granting nothing;
        // so does one still in its launch latency.
        let launching = now < r.start + self.cfg.launch.cycles(r.ctx.total() as u64);
        let (mut room, mut room2) = if r.killed || launching {
            (0, 0)
        } else {
            lp.room[slot]
        };
        while room != 0 && !r.queue.is_empty() {
            let s = room.trailing_zeros() as usize;
            room &= !(1 << s);
            room2 &= !(1 << s);
            let block = r.queue.pop_front().expect("not empty");
            self.place(r, slot, s, block, now)?;
        }
        let total = r.ctx.total();
        self.dispatchers[slot].step(
            &DispatchIn {
                start: r.first,
                total,
                max_per_sm: r.ctx.occupancy.blocks.min(255) as u8,
                room,
                room2,
                finished: &lp.finished[slot],
            },
            &mut lp.grants,
        )?;
        r.first = false;
        if std::mem::take(&mut lp.any_finished[slot]) {
            for f in &mut lp.finished[slot] {
                f.clear();
            }
        }
        // Blocks are taken in id order (a trace streams when they come in order).
        lp.grants.sort_by_key(|g| g.id);
        let (mut taken, mut taken2) = (0u128, 0u128);
        for g in &lp.grants {
            let (s, id) = (g.sm, g.id);
            if id >= total || !r.granted.insert(id as u64) {
                return Err(SimError::Protocol(format!(
                    "tb_dispatch: granted thread block {id} {} at cycle {now}",
                    if id >= total {
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
            let block = r.source.run_block(id as u64)?;
            let sm_slot = self.sms[s].launch(&r.ctx, id as u64, block, true, now)?;
            self.dispatchers[slot].launched(g, sm_slot);
            r.dispatched += 1;
            r.resident += 1;
            self.resident[s].blocks[slot] += 1;
        }
        Ok(())
    }

    /// Puts preempted `block` of slot `slot`'s kernel `r` on SM `s`: restored where it
    /// stopped, or restarted from its first instruction.
    fn place(
        &mut self,
        r: &mut Resident,
        slot: usize,
        s: usize,
        block: Preempted,
        now: u64,
    ) -> Result<(), SimError> {
        match block {
            Preempted::Restart { id, flushes } => {
                let insts = r.source.run_block(id as u64)?;
                let tb = self.sms[s].launch(&r.ctx, id as u64, insts, false, now)?;
                self.sms[s].restarted(tb, flushes);
            }
            Preempted::Saved(saved) => {
                r.preemptions.restored += 1;
                if !self.opts.free_switch {
                    r.preemptions.switch.bytes += r.ctx.context_bytes();
                }
                self.sms[s].restore(&r.ctx, *saved, now)?;
            }
        }
        r.resident += 1;
        self.resident[s].blocks[slot] += 1;
        Ok(())
    }

    /// Starts preemption `p`: the blocks of its slot's kernel on its SM that are not being
    /// preempted yet (or its one block) leave by its technique (a flush of a block past its idempotent point
    /// drains it instead).
    fn preempt(&mut self, ks: &mut Kernels, p: Preempt, now: u64) {
        let Some(r) = ks.slots.get(p.slot).and_then(Option::as_ref) else {
            return;
        };
        let started = self.sms[p.sm].preempt(r.ctx.launch, p.technique, p.block, now);
        self.resident[p.sm].preempting[p.slot] += started;
    }

    /// Flushes the blocks of the killed kernel in `slot` that run or drain, whatever their
    /// idempotence (`collect` drops them instead of queueing them).
    fn flush_killed(&mut self, ks: &Kernels, slot: usize, now: u64) {
        let launch = ks.slots[slot].as_ref().expect("a killed kernel").ctx.launch;
        for (s, sm) in self.sms.iter_mut().enumerate() {
            self.resident[s].preempting[slot] += sm.kill_kernel(launch, now);
        }
    }

    /// Takes what the SMs did this cycle: completed blocks (for their kernels and
    /// dispatchers), and blocks switched out or flushed (into their kernels' queues).
    fn collect(&mut self, ks: &mut Kernels, lp: &mut Loop, now: u64) {
        let slot_of = |ks: &Kernels, launch: u32| {
            ks.slots
                .iter()
                .position(|r| r.as_ref().is_some_and(|r| r.ctx.launch == launch as usize))
                .expect("a block's kernel holds a slot")
        };
        for i in 0..self.sms.len() {
            if self.sms[i].finished.is_empty() && self.sms[i].taken_off.is_empty() {
                continue;
            }
            for j in 0..self.sms[i].finished.len() {
                let Finished {
                    slot: sm_slot,
                    kernel: launch,
                    dispatched,
                    preempted_since,
                    issued,
                    started,
                } = self.sms[i].finished[j];
                let k = slot_of(ks, launch);
                if dispatched {
                    lp.finished[k][i].push(sm_slot);
                    lp.any_finished[k] = true;
                }
                let r = ks.slots[k].as_mut().expect("found");
                r.done += 1;
                r.done_issued += issued;
                r.done_cycles += now + 1 - started;
                r.resident -= 1;
                self.resident[i].blocks[k] -= 1;
                if let Some(since) = preempted_since {
                    // A block being drained (or one that completed while being switched out
                    // or flushed) finished: a drain.
                    self.resident[i].preempting[k] -= 1;
                    r.preemptions.add(Technique::Drain, now + 1 - since, 0);
                }
            }
            self.sms[i].finished.clear();
            if self.sms[i].taken_off.is_empty() {
                continue;
            }
            for rel in std::mem::take(&mut self.sms[i].taken_off) {
                let Released {
                    kernel,
                    slot: sm_slot,
                    dispatched,
                    technique,
                    since,
                    bytes,
                    block,
                    issued,
                } = rel;
                let k = slot_of(ks, kernel);
                // The dispatcher that placed it sees its slot free.
                if dispatched {
                    lp.finished[k][i].push(sm_slot);
                    lp.any_finished[k] = true;
                }
                let r = ks.slots[k].as_mut().expect("found");
                r.resident -= 1;
                self.resident[i].blocks[k] -= 1;
                self.resident[i].preempting[k] -= 1;
                r.preemptions.add(technique, now + 1 - since, bytes);
                if technique == Technique::Flush {
                    r.preemptions.reexecuted_warp_instructions += issued;
                }
                if !r.killed {
                    r.queue.push_back(block);
                }
            }
        }
    }

    /// The kernel in `slot` leaves it (finished, or `cut` short by the run's end).
    fn leave(&mut self, ks: &mut Kernels, lp: &mut Loop, slot: usize, cut: bool) {
        if let Some(r) = &ks.slots[slot] {
            for op in r.source.unknown_opcodes() {
                if !lp.unknown.contains(&op) {
                    lp.unknown.push(op);
                }
            }
            for note in r.source.unknown_modifiers() {
                if !lp.unknown_modifiers.contains(&note) {
                    lp.unknown_modifiers.push(note);
                }
            }
        }
        let dispatch = self.dispatchers[slot].kernel_report();
        ks.leave(slot, self.now, cut, dispatch);
        for q in &mut lp.out.quota {
            q[slot] = None;
        }
    }

    /// The watchdog and the periodic audit.
    fn check_health(&mut self, ks: &Kernels) -> Result<(), SimError> {
        let watchdog = self.now - self.last_issue > self.opts.watchdog;
        let interval = self.opts.audit_interval;
        if watchdog || (interval > 0 && self.now.is_multiple_of(interval)) {
            self.audit()?;
        }
        if !watchdog {
            return Ok(());
        }
        let mut warps = vec![];
        for sm in &self.sms {
            sm.describe_stuck(self.now, &mut warps);
        }
        for r in ks.slots.iter().flatten() {
            if r.waiting() > 0 {
                warps.push(format!(
                    "kernel `{}` (launch {}): {} block(s) wait to be dispatched, {} resident",
                    r.ctx.info.name,
                    r.ctx.launch,
                    r.waiting(),
                    r.resident
                ));
            }
        }
        let (wait, what) = self.cfg.longest_wait();
        let note = match self.opts.watchdog <= wait {
            true => format!(
                ", but the watchdog ({} cycles) is not longer than a wait this configuration \
                 allows ({wait} cycles, {what}): raise --watchdog above it to tell a deadlock",
                self.opts.watchdog
            ),
            false => String::new(),
        };
        Err(SimError::Deadlock {
            cycle: self.now,
            idle: self.now - self.last_issue,
            note,
            warps,
        })
    }

    fn progress(&self, ks: &Kernels) -> Progress {
        let running = ks.slots.iter().flatten();
        Progress {
            cycle: self.now,
            thread_instructions: self.sms.iter().map(|s| s.counts.thread_instructions).sum(),
            kernel: running.clone().map(|r| r.ctx.launch).min().unwrap_or(0),
            kernels_done: ks.left.len(),
            blocks_done: running.clone().map(|r| r.done).sum(),
            blocks_total: running.map(|r| r.ctx.total() as u64).sum(),
        }
    }

    /// The report of a run whose kernels left `ks`.
    /// `unknown`: the opcodes and the modifiers the trace reader did not know.
    fn report(
        &self,
        workload: &str,
        ks: Kernels,
        unknown: (Vec<String>, Vec<String>),
        truncated: bool,
    ) -> Report {
        let spec_of = ks.spec_of;
        let mut left = ks.left;
        left.sort_by_key(|l| l.resident.ctx.launch);
        let kernels: Vec<KernelReport> = left
            .iter()
            .map(|l| {
                let r = &l.resident;
                let c = self.kernel_counters(r.ctx.launch, l.end - r.start, r.done);
                let turnaround = l.end - r.arrival;
                KernelReport {
                    name: r.ctx.info.name.clone(),
                    launch: r.ctx.launch,
                    spec: spec_of[r.ctx.launch],
                    stream: r.stream,
                    priority: r.priority,
                    grid: r.ctx.info.grid,
                    block: r.ctx.info.block,
                    occupancy: r.ctx.occupancy,
                    arrival: r.arrival,
                    start_cycle: r.start,
                    end_cycle: l.end,
                    turnaround,
                    deadline: r.deadline,
                    deadline_met: r.deadline.map(|d| !l.cut && !r.killed && turnaround <= d),
                    truncated: l.cut,
                    killed: r.killed,
                    ipc: c.ipc(),
                    prepared: r.ctx.prepared.reported().clone(),
                    dispatch: l.dispatch.clone(),
                    counters: c,
                    preemptions: r.preemptions,
                    loads: self.load_counts(r.ctx.launch),
                }
            })
            .collect();
        let mut streams: BTreeMap<u32, StreamReport> = BTreeMap::new();
        for k in &kernels {
            let s = streams.entry(k.stream).or_insert(StreamReport {
                stream: k.stream,
                kernels: 0,
                first_arrival: k.arrival,
                last_end: k.end_cycle,
                warp_instructions: 0,
                thread_instructions: 0,
            });
            s.kernels += 1;
            s.first_arrival = s.first_arrival.min(k.arrival);
            s.last_end = s.last_end.max(k.end_cycle);
            s.warp_instructions += k.counters.warp_instructions;
            s.thread_instructions += k.counters.thread_instructions;
        }
        let counters = self.counters();
        let plan = &self.opts.plan;
        Report {
            workload: workload.to_string(),
            config: self.cfg.name.clone(),
            warp_sched: plan.warp_issue.report_name().into(),
            tb_sched: plan.tb_dispatch.entry().name.into(),
            policy: self.opts.label(),
            issue: plan.warp_issue.mode().name().into(),
            fetch: plan.warp_issue.fetch_order().into(),
            lsu_queue: plan.lsu_queue.entry().name.into(),
            sm_alloc: plan.sm_alloc.entry().name.into(),
            kernel_sched: plan.kernel_sched.entry().name.into(),
            sm_alloc_stats: self.alloc_totals(),
            sm_alloc_timeline: self.alloc_timeline.clone(),
            kernel_sched_stats: self.ksched.report(),
            iprefetch: self.opts.iprefetch,
            truncated,
            ipc: counters.ipc(),
            counters,
            kernels,
            streams: streams.into_values().collect(),
            sms: self.sms.iter().map(|s| s.counts).collect(),
            unknown_opcodes: unknown.0,
            unknown_modifiers: unknown.1,
            bypass_plan: None,
        }
    }
}

/// The launches with no blocks left to dispatch, when another launch has some, into `out`.
fn in_tail(ks: &Kernels, out: &mut Vec<usize>) {
    out.clear();
    let resident = || ks.slots.iter().flatten();
    if resident().any(|r| r.waiting() > 0) {
        out.extend(
            resident()
                .filter(|r| r.waiting() == 0 && !r.finished())
                .map(|r| r.ctx.launch),
        );
    }
}
