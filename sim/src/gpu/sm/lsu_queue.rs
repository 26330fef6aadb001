//! The SM's side of the LSU-queue site ([`crate::gpu::sites::lsu_queue`]; NewCAR, spec §2):
//! the load/store unit's transactions reach the L1D (or, for atomics, the atomics queue)
//! through the queue's unit. Each cycle the SM presents the LSU's next transaction, probes
//! without side effects whether the cache would take it and each queued one
//! ([`crate::mem::data_cache::DataCache::check`]), steps the unit and makes exactly the
//! access it chose: the LSU's transaction (to the cache, or into a queue slot, whose payload
//! the SM keeps) and/or the queued transaction it tried.
//!
//! Accounting: a transaction that enters the queue counts at once as outstanding (loads,
//! atomics) or unacknowledged (stores), so its instruction and warp cannot complete or retire
//! before it has left the queue. Atomics order as stores (spec A-13) and are always taken.
//! A probe the cache refuses counts as an L1D reservation failure, as the access would, under
//! the cause the probe gives (an uncached transaction refused by the crossbar queue is not an
//! L1D failure and is not counted).

use super::lsu::Verdict;
use super::{LsuKind, Sm};
use crate::gpu::sites::lsu_queue::{LsuQueueUnit, QueueIn};
use crate::gpu::SimError;
use crate::mem::coalescer::Transaction;

/// A transaction waiting in a queue slot.
#[derive(Clone, Copy, Debug)]
struct Queued {
    warp: usize,
    kind: LsuKind,
    token: u32,
    txn: Transaction,
}

/// The SM's state around its LSU queue's unit: the payload of each slot.
pub(super) struct QueueState<'a> {
    unit: Box<dyn LsuQueueUnit<'a> + 'a>,
    slots: Vec<Option<Queued>>,
    /// Per slot: the L1D version at which its probe was made, and the verdict (a probe gives
    /// the same answer while the cache is unchanged; see `DataCache::version`).
    probes: Vec<(u64, Verdict)>,
}

impl<'a> QueueState<'a> {
    /// The state around `unit`.
    pub(super) fn new(unit: Box<dyn LsuQueueUnit<'a> + 'a>) -> Self {
        let entries = unit.entries();
        Self {
            unit,
            slots: vec![None; entries],
            probes: vec![(u64::MAX, Err(None)); entries],
        }
    }

    /// The transactions waiting in the queue: (warp, kind, token).
    pub(super) fn queued(&self) -> impl Iterator<Item = (usize, LsuKind, u32)> + '_ {
        self.slots
            .iter()
            .flatten()
            .map(|q| (q.warp, q.kind, q.token))
    }
}

impl Sm<'_> {
    /// Whether the L1D (or, for atomics and uncached transactions, the atomics or crossbar
    /// queue) would take a transaction of `kind` to `addr` now (what [`Sm::access_txn`] would
    /// return, without its effects).
    fn probe(&self, kind: LsuKind, addr: u64) -> Verdict {
        let queue = |full: bool| if full { Err(None) } else { Ok(()) };
        match kind {
            LsuKind::Atomic => Ok(()),
            LsuKind::LoadBypass => queue(self.uncached_reads_full()),
            LsuKind::StoreBypass => queue(!self.uncached.is_empty()),
            LsuKind::Store => self.l1d.check(addr, true).map(|_| ()).map_err(Some),
            LsuKind::Load => self.l1d.check(addr, false).map(|_| ()).map_err(Some),
        }
    }

    /// The LSU stage through the queue (replaces the baseline LSU stage).
    pub(super) fn lsu_queue_cycle(&mut self, now: u64) -> Result<(), SimError> {
        let req = self.lsu_head(now).and_then(|op| {
            (op.next < op.txns.len()).then(|| Queued {
                warp: op.warp,
                kind: op.kind,
                token: op.token.unwrap_or(u32::MAX),
                txn: op.txns[op.next],
            })
        });
        let unit = self.lsu_queue.as_ref().expect("a queue present");
        let full = unit.slots.iter().all(|s| s.is_some());
        let lsu_probe = req.map(|r| self.probe(r.kind, r.txn.addr));
        let lsu_accept = lsu_probe.is_some_and(|p| p.is_ok());
        let mut q_accept = 0u64;
        if req.is_none() || full {
            let version = self.l1d.version();
            let mut probes = std::mem::take(&mut self.lsu_queue.as_mut().expect("present").probes);
            let unit = self.lsu_queue.as_ref().expect("present");
            for (i, q) in unit.slots.iter().enumerate() {
                if let Some(q) = q {
                    // A kept probe holds while the L1D is unchanged; an uncached transaction's
                    // depends on the crossbar queue instead, so it is probed every cycle.
                    let kept = matches!(q.kind, LsuKind::Load | LsuKind::Store);
                    if !kept || probes[i].0 != version {
                        probes[i] = (version, self.probe(q.kind, q.txn.addr));
                    }
                    q_accept |= (probes[i].1.is_ok() as u64) << i;
                }
            }
            self.lsu_queue.as_mut().expect("present").probes = probes;
        }
        let inp = QueueIn {
            lsu_valid: req.is_some(),
            lsu_warp: req.map_or(0, |r| r.warp as u8),
            lsu_store: req.is_some_and(|r| !matches!(r.kind, LsuKind::Load | LsuKind::LoadBypass)),
            lsu_accept,
            q_accept,
        };
        let unit = self.lsu_queue.as_mut().expect("a queue present");
        let out = unit.unit.step(&inp)?;
        if let Some(r) = req {
            if out.lsu_to_cache {
                let taken = self.access_txn(r.warp, r.kind, r.token, r.txn, false, now);
                debug_assert!(taken.is_ok(), "the probe said the cache takes it");
                self.lsu.front_mut().expect("present").next += 1;
            } else if out.enq_valid {
                match r.kind {
                    LsuKind::Store | LsuKind::StoreBypass => self.warps[r.warp].stores += 1,
                    _ => self.pending[r.token as usize].outstanding += 1,
                }
                if let Some(Err(Some(why))) = lsu_probe {
                    self.l1d_for(r.warp).repeat_fail(why);
                }
                self.counts.lsu_queue_enqueued += 1;
                let unit = self.lsu_queue.as_mut().expect("present");
                unit.slots[out.enq_slot as usize] = Some(r);
                unit.probes[out.enq_slot as usize].0 = u64::MAX;
                self.lsu.front_mut().expect("present").next += 1;
            } else {
                self.stalls.lsu_blocked += 1;
            }
        }
        if out.try_valid {
            let slot = out.try_slot as usize;
            if out.deq_valid {
                let unit = self.lsu_queue.as_mut().expect("present");
                let q = unit.slots[slot]
                    .take()
                    .expect("the block dequeues a full slot");
                let taken = self.access_txn(q.warp, q.kind, q.token, q.txn, true, now);
                debug_assert!(taken.is_ok(), "the probe said the cache takes it");
            } else {
                // The queue is served only when the LSU sent nothing: the probe is this cycle's.
                let unit = self.lsu_queue.as_ref().expect("present");
                let w = unit.slots[slot].expect("the block tries a full slot").warp;
                if let Err(Some(why)) = unit.probes[slot].1 {
                    self.l1d_for(w).repeat_fail(why);
                }
            }
        }
        self.lsu_finish();
        Ok(())
    }
}
