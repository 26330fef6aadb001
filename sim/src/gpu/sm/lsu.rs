//! The load/store stage of the SM: the LSU's transactions to the L1D (one per cycle; a refused
//! one is retried), through the queue at the LSU-queue site when there is one ([`super::lsu_queue`]),
//! loads in flight and their completion, replies from the memory system, and the SM's requests
//! into the crossbar (L1I, then the L1D miss queue, then atomics and bypassed loads).
//!
//! A global load that bypasses the L1D ([`crate::gpu::caching`]) is coalesced into 32 B
//! sectors; each sector read goes to the crossbar as an atomic does (GPGPU-Sim's `bypassL1D`
//! path of `ldst_unit::memory_cycle`): no tag lookup, no allocation, no fill; its reply goes to
//! the load's registers. The LSU sends one while fewer than [`UNCACHED_READS`] wait for the
//! crossbar (GPGPU-Sim pushes it into the interconnect or stalls).

use super::*;
use crate::mem::data_cache::Fail;

/// Whether the L1D or the uncached requests' queue takes a transaction: `Ok`, or refused by
/// the L1D (`Err(Some(why))`) or by the crossbar queue (`Err(None)`).
pub(super) type Verdict = Result<(), Option<Fail>>;

/// A load (or atomic) in flight.
#[derive(Clone, Copy)]
pub(super) struct PendingLoad {
    pub(super) warp: usize,
    pub(super) tb: usize,
    pub(super) inst: WarpInst,
    /// Its index in the warp (a streamed block keeps the instructions from here on).
    pub(super) index: u32,
    pub(super) outstanding: u32,
    pub(super) ready_at: u64,
    pub(super) all_sent: bool,
    /// A restored block's context load (no registers: its completion lets the block run).
    pub(super) context: bool,
}

/// What the load/store unit is doing.
pub(super) struct LsuOp {
    pub(super) warp: usize,
    /// The pending load this instruction completes (loads and atomics).
    pub(super) token: Option<u32>,
    pub(super) kind: LsuKind,
    /// Transactions and the next one to send.
    pub(super) txns: Vec<Transaction>,
    pub(super) next: usize,
    /// The L1D version at which transaction `next` last failed, and why (it fails again,
    /// identically, until the cache changes).
    pub(super) failed_at: Option<(u64, Fail)>,
}

/// A transaction in the L1D latency queue in front of the tag lookup (GPGPU-Sim's
/// `l1_latency_queue` of `l1d.latency` slots: each cycle the head slot is looked up, a refused
/// lookup keeps it there, and every other entry moves one slot down while the slot below is
/// free). An entry put in at cycle `p` reaches the lookup at `p + latency` unless the entries
/// before it are still there, and the queue takes a new entry while it holds fewer than
/// `latency`: so a FIFO of entry cycles is the whole queue.
#[derive(Clone, Copy)]
pub(super) struct PipeTxn {
    /// The cycle it entered the queue.
    pub(super) entered: u64,
    pub(super) warp: usize,
    pub(super) kind: LsuKind,
    /// The pending load it belongs to (loads).
    pub(super) token: u32,
    pub(super) txn: Transaction,
    /// The L1D version at which its lookup last failed, and why.
    failed_at: Option<(u64, Fail)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LsuKind {
    Load,
    /// A global load that bypasses the L1D.
    LoadBypass,
    Store,
    /// A global store that skips the L1D (`pipeline.gmem_skip_l1d`: GPGPU-Sim's
    /// `ldst_unit::memory_cycle` sends it to the interconnect, no lookup, no eviction).
    StoreBypass,
    Atomic,
}

/// Bypassed sector reads that may wait for the crossbar at once (the LSU stalls beyond).
pub(super) const UNCACHED_READS: usize = 1;

impl Sm<'_> {
    /// The LSU stage: the LSU's next transaction goes to the L1D, or through the queue at the
    /// LSU-queue site when the SM has one.
    pub(super) fn lsu_stage(&mut self, now: u64) -> Result<(), SimError> {
        if self.lsu_queue.is_some() {
            return self.lsu_queue_cycle(now);
        }
        self.lsu_cycle(now);
        Ok(())
    }

    /// Handles the replies that reached this SM.
    pub fn receive(&mut self, mem: &mut MemorySystem, now: u64) {
        while let Some(r) = mem.receive(self.id) {
            match r.kind {
                ReqKind::Read => {
                    let ready = now + 1 + self.timing.around;
                    for t in self.l1d.fill_span(r.addr, r.bytes) {
                        self.load_part_done(t, ready);
                    }
                }
                ReqKind::Atomic | ReqKind::ReadBypass => {
                    self.load_part_done(r.tag, now + 1 + self.timing.around)
                }
                ReqKind::InstFetch => {
                    let waiting = self.l1i.fill(r.addr);
                    let waiting = waiting.into_iter().filter(|&w| w != PREFETCH);
                    self.ifill.extend(waiting.map(usize::from));
                }
                ReqKind::Write => self.warps[r.tag as usize].stores -= 1,
            }
        }
    }

    /// A part of load `token` arrived: its registers can be read from cycle `ready` (the
    /// load completes with its last part).
    pub(super) fn load_part_done(&mut self, token: u32, ready: u64) {
        let p = &mut self.pending[token as usize];
        p.outstanding -= 1;
        p.ready_at = p.ready_at.max(ready);
        self.try_complete(token);
    }

    pub(super) fn try_complete(&mut self, token: u32) {
        let p = self.pending[token as usize];
        if !p.all_sent || p.outstanding > 0 {
            return;
        }
        if p.context {
            self.warps[p.warp].loads -= 1;
            self.free_pending.push(token);
            self.restored(p.tb);
            return;
        }
        let warp = &mut self.warps[p.warp];
        let ready = p.ready_at;
        for &r in self.tbs[p.tb].insts.dsts(warp.index, &p.inst) {
            if r != RZ {
                warp.reg_mut(r).ready = ready;
            }
        }
        warp.loads -= 1;
        self.mark_for_scan(p.warp);
        self.free_pending.push(token);
    }

    pub(super) fn new_pending(&mut self, p: PendingLoad) -> u32 {
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

    /// The memory instruction whose transactions the LSU sends this cycle: the oldest, unless
    /// a shared-memory access holds the LSU (for its bank-conflict cycles).
    pub(super) fn lsu_head(&self, now: u64) -> Option<&LsuOp> {
        self.lsu.front().filter(|_| self.lsu_busy_until <= now)
    }

    pub(super) fn lsu_cycle(&mut self, now: u64) {
        if self.timing.l1d_pipe > 0 {
            self.l1d_pipe_cycle(now);
            return;
        }
        let Some(op) = self.lsu_head(now) else { return };
        let version = self.l1d.version();
        let repeat = op.failed_at.filter(|&(v, _)| v == version);
        if let (true, Some((_, why))) = (op.next < op.txns.len(), repeat) {
            let w = op.warp;
            self.l1d_for(w).repeat_fail(why);
            self.stalls.lsu_blocked += 1;
        } else if op.next < op.txns.len() {
            let (warp, kind, token) = (op.warp, op.kind, op.token.unwrap_or(u32::MAX));
            let txn = op.txns[op.next];
            let verdict = self.access_txn(warp, kind, token, txn, false, now);
            let version = self.l1d.version();
            let op = self.lsu.front_mut().expect("present");
            match verdict {
                Ok(()) => {
                    op.next += 1;
                    op.failed_at = None;
                }
                Err(why) => {
                    op.failed_at = why.map(|why| (version, why));
                    self.stalls.lsu_blocked += 1;
                }
            }
        }
        self.lsu_finish();
    }

    /// The LSU stage with the L1D latency queues in front of the tag lookup (GPGPU-Sim's
    /// `L1_latency_queue_cycle`, then `memory_cycle`; see [`PipeTxn`]): each bank's head,
    /// once it has waited `l1d.latency` cycles, is looked up in the L1D (a refused one stays
    /// and blocks its bank); then the LSU puts its next transactions in, at most one per bank
    /// and while their banks' queues have room, stopping at the first that cannot go (atomics
    /// and bypassing loads go on directly, one a cycle). An instruction leaves the LSU once
    /// its last transaction is in a queue.
    fn l1d_pipe_cycle(&mut self, now: u64) {
        for bank in 0..self.l1d_pipe.len() {
            self.l1d_bank_cycle(bank, now);
        }
        self.l1d_pipe_enter(now);
        // Also releases an instruction without transactions (no active lane).
        self.lsu_finish();
    }

    /// Looks the head of `bank`'s latency queue up in the L1D once it has waited its cycles.
    fn l1d_bank_cycle(&mut self, bank: usize, now: u64) {
        let latency = self.timing.l1d_pipe as u64;
        let Some(head) = self.l1d_pipe[bank].front().copied() else {
            return;
        };
        if head.entered + latency > now {
            // Still moving down the queue.
        } else if let Some((_, why)) = head.failed_at.filter(|&(v, _)| v == self.l1d.version()) {
            self.l1d_for(head.warp).repeat_fail(why);
            self.stalls.lsu_blocked += 1;
        } else {
            let (w, kind, token) = (head.warp, head.kind, head.token);
            match self.access_txn(w, kind, token, head.txn, true, now) {
                Ok(()) => _ = self.l1d_pipe[bank].pop_front(),
                Err(why) => {
                    let version = self.l1d.version();
                    let head = self.l1d_pipe[bank].front_mut().expect("present");
                    head.failed_at = why.map(|why| (version, why));
                    self.stalls.lsu_blocked += 1;
                }
            }
        }
    }

    /// The L1D bank of `addr` (`pipeline.l1d_bank_bytes` interleaving).
    fn l1d_bank(&self, addr: u64) -> usize {
        (addr >> self.timing.l1d_bank_log2) as usize & (self.l1d_pipe.len() - 1)
    }

    /// Moves the LSU's next transactions into the latency queues (see
    /// [`Self::l1d_pipe_cycle`]).
    fn l1d_pipe_enter(&mut self, now: u64) {
        let mut used = 0u64; // banks that took a transaction this cycle
        for _ in 0..self.l1d_pipe.len() {
            let Some(op) = self.lsu_head(now).filter(|op| op.next < op.txns.len()) else {
                return;
            };
            let (warp, kind, token) = (op.warp, op.kind, op.token.unwrap_or(u32::MAX));
            let txn = op.txns[op.next];
            let bank = self.l1d_bank(txn.addr);
            let direct = matches!(
                kind,
                LsuKind::Atomic | LsuKind::LoadBypass | LsuKind::StoreBypass
            );
            if !direct
                && (self.l1d_pipe[bank].len() >= self.timing.l1d_pipe || used >> bank & 1 == 1)
            {
                return;
            }
            let entry = PipeTxn {
                entered: now,
                warp,
                kind,
                token,
                txn,
                failed_at: None,
            };
            let taken = match kind {
                LsuKind::Atomic | LsuKind::LoadBypass | LsuKind::StoreBypass => {
                    self.access_txn(warp, kind, token, txn, false, now).is_ok()
                }
                LsuKind::Store => {
                    self.warps[warp].stores += 1;
                    self.l1d_pipe[bank].push_back(entry);
                    true
                }
                LsuKind::Load => {
                    self.pending[token as usize].outstanding += 1;
                    self.l1d_pipe[bank].push_back(entry);
                    true
                }
            };
            if !taken {
                self.stalls.lsu_blocked += 1;
                return;
            }
            self.lsu.front_mut().expect("present").next += 1;
            used |= 1 << bank;
            if direct {
                return;
            }
        }
    }

    /// Releases the LSU once every transaction of its instruction has left it.
    pub(super) fn lsu_finish(&mut self) {
        if self.lsu.front().is_some_and(|op| op.next == op.txns.len()) {
            let op = self.lsu.pop_front().expect("present");
            if let Some(t) = op.token {
                self.pending[t as usize].all_sent = true;
                self.try_complete(t);
            }
        }
    }

    /// One transaction of warp `warp` to the L1D (loads and stores) or the queue of uncached
    /// requests (atomics, bypassed loads); returns whether it was taken ([`Verdict`]). `queued`: it comes out of the LSU queue, which counted
    /// it as outstanding (loads, atomics) or unacknowledged (stores) when it went in.
    pub(super) fn access_txn(
        &mut self,
        warp: usize,
        kind: LsuKind,
        token: u32,
        txn: Transaction,
        queued: bool,
        now: u64,
    ) -> Verdict {
        let (addr, bytes) = (txn.addr, txn.size);
        self.l1d.set_owner(self.warps[warp].kernel);
        match kind {
            LsuKind::LoadBypass => {
                if self.uncached_reads_full() {
                    return Err(None);
                }
                self.send_uncached(warp, (ReqKind::ReadBypass, token), addr, bytes, queued);
                self.count_access(warp, token, |c| {
                    c.bypassed += 1;
                    c.l2_bytes += bytes as u64;
                });
                Ok(())
            }
            LsuKind::Atomic => {
                self.send_uncached(warp, (ReqKind::Atomic, token), addr, bytes, queued);
                Ok(())
            }
            LsuKind::StoreBypass => {
                // One request waits for the crossbar at most (GPGPU-Sim stalls on a full
                // interconnect input).
                if !self.uncached.is_empty() {
                    return Err(None);
                }
                self.uncached.push_back(MemRequest {
                    sm: self.id as u16,
                    kind: ReqKind::Write,
                    addr,
                    bytes,
                    tag: warp as u32,
                    kernel: self.warps[warp].kernel,
                });
                if !queued {
                    self.warps[warp].stores += 1;
                }
                Ok(())
            }
            LsuKind::Store => {
                let verdict = match self.l1d.access_write(addr, bytes, txn.bytes, warp as u32) {
                    Outcome::Fail(why) => Err(Some(why)),
                    _ => Ok(()),
                };
                if !queued {
                    self.warps[warp].stores += verdict.is_ok() as u32;
                }
                verdict
            }
            LsuKind::Load => self.load_txn(warp, token, addr, bytes, queued, now),
        }
    }

    /// Queues the uncached request `kind` of load `token` (warp `warp`) for the crossbar; one
    /// more transaction outstanding unless the LSU queue counted it (`queued`).
    fn send_uncached(
        &mut self,
        warp: usize,
        (kind, token): (ReqKind, u32),
        addr: u64,
        bytes: u32,
        queued: bool,
    ) {
        self.uncached.push_back(MemRequest {
            sm: self.id as u16,
            kind,
            addr,
            bytes,
            tag: token,
            kernel: self.warps[warp].kernel,
        });
        if !queued {
            self.pending[token as usize].outstanding += 1;
        }
    }

    /// The counters of kernel `k`'s global loads that ran here.
    pub fn load_counts_of(&self, k: u32) -> impl Iterator<Item = &LoadCounts> {
        self.load_counts
            .iter()
            .filter(move |((kernel, _), _)| *kernel == k)
            .map(|(_, c)| c)
    }

    /// Whether [`UNCACHED_READS`] bypassed reads wait for the crossbar already.
    pub(super) fn uncached_reads_full(&self) -> bool {
        let reads = self
            .uncached
            .iter()
            .filter(|r| r.kind == ReqKind::ReadBypass);
        reads.count() >= UNCACHED_READS
    }

    /// Counts one access of the load `token` (warp `warp`) in its counters (global loads;
    /// local loads and a restored block's context load are not counted).
    fn count_access(&mut self, warp: usize, token: u32, count: impl FnOnce(&mut LoadCounts)) {
        let p = &self.pending[token as usize];
        if p.context || p.inst.class != OpClass::LoadGlobal {
            return;
        }
        let pc = p.inst.pc;
        let key = (self.warps[warp].kernel, pc);
        let c = self.load_counts.entry(key).or_insert(LoadCounts {
            pc,
            ..Default::default()
        });
        c.accesses += 1;
        count(c);
    }

    /// A cached load's transaction to the L1D (see [`Self::access_txn`]).
    fn load_txn(
        &mut self,
        warp: usize,
        token: u32,
        addr: u64,
        bytes: u32,
        queued: bool,
        now: u64,
    ) -> Verdict {
        let outcome = self.l1d.access_sized(addr, bytes, false, token);
        let line = self.l1d.line_bytes() as u64;
        match outcome {
            Outcome::Fail(_) => {}
            Outcome::Hit => self.count_access(warp, token, |c| c.hits += 1),
            Outcome::HitReserved => self.count_access(warp, token, |c| c.hit_reserved += 1),
            _ => self.count_access(warp, token, |c| {
                c.misses += 1;
                c.l2_bytes += line;
            }),
        }
        match outcome {
            // Out of the L1D latency queue in front of the tag lookup, a hit has paid the
            // L1D's latency and releases its registers at once (GPGPU-Sim's
            // `L1_latency_queue_cycle`); out of the LSU queue, or straight from the
            // LSU, it pays the latency and the writeback now.
            Outcome::Hit if queued && self.timing.l1d_pipe > 0 => {
                self.load_part_done(token, now);
                Ok(())
            }
            Outcome::Hit if queued => {
                self.load_part_done(token, now + self.timing.l1d_hit + self.timing.around);
                Ok(())
            }
            Outcome::Hit => {
                let p = &mut self.pending[token as usize];
                p.ready_at = p
                    .ready_at
                    .max(now + self.timing.l1d_hit + self.timing.around);
                Ok(())
            }
            Outcome::Fail(why) => Err(Some(why)),
            _ => {
                if !queued {
                    self.pending[token as usize].outstanding += 1;
                }
                Ok(())
            }
        }
    }

    /// Whether the LSU can take a memory instruction this cycle: room in its queue
    /// (`pipeline.lsu_queue`) and no shared-memory access holding it.
    pub(super) fn lsu_free(&self, now: u64) -> bool {
        self.lsu.len() < self.timing.lsu_queue && self.lsu_busy_until <= now
    }

    /// Sends this cycle's requests into the crossbar: an L1I fetch, then the L1D's next miss
    /// or store (through the L1D latency queue when the pipeline has one), then an atomic.
    pub(super) fn send(&mut self, mem: &mut MemorySystem, now: u64) {
        if let Some(f) = self.l1i.peek_fetch() {
            if mem.can_send(self.id) {
                self.l1i.pop_fetch();
                mem.send(MemRequest {
                    sm: self.id as u16,
                    kind: ReqKind::InstFetch,
                    addr: f.line,
                    bytes: f.bytes,
                    tag: 0,
                    kernel: f.owner,
                });
            }
        }
        let delay = self.timing.l1d_queue;
        let room = delay == 0 || (self.l1d_queue.len() as u64) < delay;
        if let Some(f) = self.l1d.peek_fetch().filter(|_| room) {
            let (addr, bytes) = self.l1d.fetch_span(&f);
            let req = MemRequest {
                sm: self.id as u16,
                kind: if f.write {
                    ReqKind::Write
                } else {
                    ReqKind::Read
                },
                addr,
                bytes,
                tag: f.req.unwrap_or(0),
                kernel: f.owner,
            };
            if delay > 0 {
                self.l1d.pop_fetch();
                self.l1d_queue.push_back((now + delay, req));
            } else if mem.can_send(self.id) {
                self.l1d.pop_fetch();
                mem.send(req);
            }
        }
        if let Some(&(at, req)) = self.l1d_queue.front() {
            if at <= now && mem.can_send(self.id) {
                self.l1d_queue.pop_front();
                mem.send(req);
            }
        }
        if let Some(&a) = self.uncached.front() {
            if mem.send(a) {
                self.uncached.pop_front();
            }
        }
    }
}
