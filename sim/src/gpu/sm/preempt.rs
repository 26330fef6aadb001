//! Preemption, the SM's operations that take a resident thread block off it (and put a
//! switched-out one back), each paying what it costs in the model:
//!
//! * **Context switch** ([`Technique::Switch`]): the block's warps stop issuing and fetching;
//!   once everything they issued has completed (loads back, stores acknowledged, the LSU and the
//!   operand collector empty of them, no fetch miss outstanding), the block's context — its
//!   allocated registers (4 bytes each) and its shared memory — is written to global memory as
//!   128-byte stores through the LSU, the L1D, the crossbar, the L2 and DRAM (a save area per
//!   kernel and block at [`CONTEXT_BASE`]); when the last store is acknowledged the block's
//!   slot, warps and resources are free and the GPU queues it for its kernel. Restored on any
//!   SM with room ([`Sm::restore`]), its warps are live but stopped while the context is read
//!   back as 128-byte loads the same way; then each resumes at the instruction it had reached
//!   (i-buffers refill from the L1I, every register ready, barrier arrivals kept). With
//!   `--free-switch` no context moves: the block leaves once quiet and resumes once placed.
//! * **Drain** ([`Technique::Drain`]): nothing changes in the SM; the block finishes while its
//!   kernel is offered no new SM (the kernel scheduler's part).
//! * **Flush** ([`Technique::Flush`]), only while the block is idempotent (no instruction that
//!   overwrites the kernel's input has issued; else it is drained): its warps stop at once,
//!   their instructions not yet sent to the L1D are dropped from the LSU, and the slot is free
//!   once the replies still in flight have come back (absorbed: nothing is lost or answered
//!   twice, and the lost-request audit holds); the block restarts later from its first
//!   instruction. The warp instructions it had issued are counted as re-executed. A block
//!   flushed [`MAX_FLUSHES`] times is drained instead (a policy that keeps flushing it, as
//!   time slices shorter than the block would, cannot starve its kernel).
//!
//! A block being preempted that completes meanwhile (its last warps had nothing left but to
//! retire) leaves as a completed block.

use super::lsu::{LsuKind, LsuOp, PendingLoad};
use super::warps::{TbSlot, WarpStart};
use super::Sm;
use crate::gpu::kernel::KernelCtx;
use crate::gpu::sites::issue::LaunchedWarp;
use crate::gpu::sites::kernel_sched::Technique;
use crate::gpu::SimError;
use crate::mem::coalescer::Transaction;
use crate::workload::kernel::WarpInst;
use crate::workload::sass::OpClass;
use crate::workload::stream::RunBlock;
use std::sync::Arc;

/// Start of the context save area in the address space: kernel `k`'s block `b` saves at
/// `CONTEXT_BASE + (k << 36) + b * context bytes rounded up to 128` (see `context_lines` for a
/// grid or a launch index too large for that).
pub const CONTEXT_BASE: u64 = 0xC000_0000_0000;

/// Bytes a context store or load moves (one L1D line).
const CONTEXT_LINE: u64 = 128;

/// Flushes a block may take: a block flushed this many times is drained instead, so a policy
/// that keeps flushing (time slices shorter than a block) cannot keep a kernel from finishing.
pub const MAX_FLUSHES: u32 = 3;

/// A preemption bug planted by a test, to show the checks catch it.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PreemptFault {
    /// A restored warp resumes one instruction after the one it had reached.
    ResumeLate,
    /// A flushed block's slot is freed at once, while replies to it are still in flight (they
    /// then reach whatever takes its warps and pending loads).
    ReleaseFlushEarly,
    /// A block taken off its SM keeps its allocator place (it is not given back).
    KeepPlace,
}

/// A block's preemption in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Preemption {
    /// How.
    pub technique: Technique,
    /// The cycle it was asked for.
    pub since: u64,
    /// Where it stands.
    pub phase: Phase,
}

/// Where a preemption stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Drain: the block runs to its end.
    Draining,
    /// Switch: waiting for what the stopped warps issued to complete.
    Stopping,
    /// Switch: the context stores are in (or waiting for) the LSU.
    Saving {
        /// The store instruction entered the LSU.
        sent: bool,
    },
    /// Flush: waiting for the replies in flight.
    Flushing,
    /// A restored block: the context loads are in (or waiting for) the LSU.
    Restoring {
        /// The load instruction entered the LSU.
        sent: bool,
    },
}

/// One warp of a switched-out block, as it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedWarp {
    /// Instructions it has issued (where it resumes).
    pub next_issue: u32,
    /// Its instructions in all.
    pub len: u32,
    /// It waits at the block's barrier.
    pub at_barrier: bool,
    /// It had issued its last instruction (it retires when restored).
    pub finished: bool,
    /// It had already retired (its slot stays empty).
    pub retired: bool,
}

/// A switched-out block's state as the GPU keeps it while its context is in memory.
pub struct SavedBlock {
    /// Its id.
    pub id: u32,
    /// Its instructions (a streamed block keeps its windows).
    pub insts: RunBlock,
    /// Per warp of the block.
    pub warps: Vec<SavedWarp>,
    /// Warps waiting at the barrier.
    pub arrived: usize,
    /// Warp instructions it had issued.
    pub issued: u64,
    /// It had issued an instruction that ends its idempotence.
    pub non_idempotent: bool,
    /// Cycles it had been resident since it started.
    pub cycles: u64,
}

/// A block taken off its SM, waiting in its kernel's queue to be placed again.
pub enum Preempted {
    /// Flushed: it restarts from its first instruction.
    Restart {
        /// Its id.
        id: u32,
        /// Times it has been flushed.
        flushes: u32,
    },
    /// Switched out: it resumes where it stopped.
    Saved(Box<SavedBlock>),
}

/// A block an SM switched out or flushed.
pub struct Released {
    /// Its kernel's launch index.
    pub kernel: u32,
    /// Its block slot on the SM, and whether its dispatcher placed it (so it is told the slot
    /// is free).
    pub slot: usize,
    /// See `slot`.
    pub dispatched: bool,
    /// How it left.
    pub technique: Technique,
    /// The cycle its preemption was asked for.
    pub since: u64,
    /// Context bytes saved.
    pub bytes: u64,
    /// Warp instructions it had issued since it started (on every SM it ran on).
    pub issued: u64,
    /// What its kernel keeps of it.
    pub block: Preempted,
}

/// Bytes of one kernel's context save area (`1 << 36`, 64 GiB).
const SAVE_AREA: u64 = 1 << 36;

/// The 128-byte lines of kernel `k`'s block `id`'s context save area. A kernel's area holds
/// `64 GiB / context` block slots: a grid with more blocks than that (over a million blocks of
/// 64 KB) reuses them, block `id` taking slot `id mod slots`, and kernel launches 65,536 apart
/// share an area: two blocks that could be saved at the same time never share one (far fewer
/// blocks are ever resident at once). The model carries addresses, not data: only the caches
/// and DRAM see the addresses.
fn context_lines(kernel: &KernelCtx, id: u32) -> Vec<Transaction> {
    let bytes = kernel.context_bytes().div_ceil(CONTEXT_LINE) * CONTEXT_LINE;
    let slot = id as u64 % (SAVE_AREA / bytes.max(CONTEXT_LINE));
    let area = (kernel.launch as u64 % (1 << 16)) * SAVE_AREA;
    let base = CONTEXT_BASE + area + slot * bytes;
    (0..bytes / CONTEXT_LINE)
        .map(|i| Transaction::whole(base + i * CONTEXT_LINE, CONTEXT_LINE as u32))
        .collect()
}

/// The context load's instruction: a global load without destinations.
fn context_inst() -> WarpInst {
    WarpInst {
        pc: 0,
        mask: u32::MAX,
        class: OpClass::LoadGlobal,
        cache: crate::workload::cache_op::CacheOp::Default,
        width: 4,
        ndst: 0,
        nsrc: 0,
        reg_start: 0,
        addr_start: 0,
        strided: false,
    }
}

impl Sm<'_> {
    /// Starts preempting the blocks of kernel `launch` that are not being preempted yet (with
    /// `only`, just the block in that block slot), by `technique` (a flush of a block that is no longer idempotent, or that was flushed
    /// [`MAX_FLUSHES`] times, drains it); returns how many started.
    pub fn preempt(
        &mut self,
        launch: usize,
        technique: Technique,
        only: Option<usize>,
        now: u64,
    ) -> u32 {
        self.wake(now);
        let mut started = 0;
        for tb in 0..self.tbs.len() {
            let slot = &self.tbs[tb];
            let mine = only.is_none_or(|o| o == tb)
                && slot.active
                && slot.preempt.is_none()
                && slot.kernel.as_ref().is_some_and(|k| k.launch == launch);
            if !mine {
                continue;
            }
            let technique = match technique {
                Technique::Flush if slot.flushes >= MAX_FLUSHES || self.overwrote(tb) => {
                    Technique::Drain
                }
                t => t,
            };
            let phase = match technique {
                Technique::Drain => Phase::Draining,
                Technique::Switch => Phase::Stopping,
                Technique::Flush => Phase::Flushing,
            };
            self.tbs[tb].preempt = Some(Preemption {
                technique,
                since: now,
                phase,
            });
            self.preempting += 1;
            if technique != Technique::Drain {
                self.stop_block(tb, technique == Technique::Flush);
            }
            started += 1;
        }
        started
    }

    /// Kills kernel `launch`'s blocks on the SM: each that runs or drains is flushed now,
    /// whatever its idempotence (its kernel is dropped, nothing of it restarts); one being
    /// switched out, flushed or restored keeps on (called again, a restored one is then
    /// flushed). Returns the blocks whose preemption this started (a drained one had).
    pub fn kill_kernel(&mut self, launch: usize, now: u64) -> u32 {
        self.wake(now);
        let mut started = 0;
        for tb in 0..self.tbs.len() {
            let slot = &self.tbs[tb];
            let mine = slot.active && slot.kernel.as_ref().is_some_and(|k| k.launch == launch);
            let phase = slot.preempt.as_ref().map(|p| p.phase);
            if !mine || !matches!(phase, None | Some(Phase::Draining)) {
                continue;
            }
            if phase.is_none() {
                self.preempting += 1;
                started += 1;
            }
            self.tbs[tb].preempt = Some(Preemption {
                technique: Technique::Flush,
                since: now,
                phase: Phase::Flushing,
            });
            self.stop_block(tb, true);
        }
        started
    }

    /// Stops block slot `tb`'s live warps (`flush`: their i-buffers and their instructions
    /// not yet sent to the L1D are dropped too).
    fn stop_block(&mut self, tb: usize, flush: bool) {
        let (first, n) = (self.tbs[tb].first_warp, self.tbs[tb].warps);
        for w in first..first + n {
            if !self.warps[w].live {
                continue;
            }
            let warp = &mut self.warps[w];
            warp.stopped = true;
            if flush {
                warp.head = None;
                warp.ahead = None;
            }
            self.update_fetchable(w);
            self.sync_masks(w);
        }
        if flush {
            self.drop_unsent(tb);
        }
    }

    /// Drops the LSU's instructions of block slot `tb`'s warps (flush): their transactions
    /// already sent stay in flight, their loads complete when those come back.
    fn drop_unsent(&mut self, tb: usize) {
        let (first, n) = (self.tbs[tb].first_warp, self.tbs[tb].warps);
        let mut tokens = vec![];
        self.lsu.retain(|op| {
            let theirs = (first..first + n).contains(&op.warp);
            if theirs {
                tokens.extend(op.token);
            }
            !theirs
        });
        for t in tokens {
            self.pending[t as usize].all_sent = true;
            self.try_complete(t);
        }
    }

    /// Whether everything block slot `tb`'s warps issued has completed: loads back, stores
    /// acknowledged, nothing of theirs in the LSU, the operand collector or a fetch.
    fn quiet(&self, tb: usize) -> bool {
        let (first, n) = (self.tbs[tb].first_warp, self.tbs[tb].warps);
        (first..first + n).all(|w| {
            let warp = &self.warps[w];
            warp.loads == 0
                && warp.stores == 0
                && !warp.imiss
                && !self.ifill.contains(&w)
                && self.collector.as_ref().is_none_or(|c| c.per_warp[w] == 0)
                && !self.lsu.iter().any(|op| op.warp == w)
        })
    }

    /// The first live warp of block slot `tb` (the one the context traffic is issued for).
    fn carrier(&self, tb: usize) -> Option<usize> {
        let (first, n) = (self.tbs[tb].first_warp, self.tbs[tb].warps);
        (first..first + n).find(|&w| self.warps[w].live)
    }

    /// Moves every preemption on: a switch whose block is quiet sends its context stores,
    /// one whose stores are acknowledged releases the block; a flush whose replies are back
    /// releases it; a restore sends its context loads.
    pub(super) fn preempt_stage(&mut self, now: u64) {
        for tb in 0..self.tbs.len() {
            let Some(p) = self.tbs[tb].preempt else {
                continue;
            };
            match p.phase {
                Phase::Draining => {}
                Phase::Stopping if self.quiet(tb) && self.free_switch => self.release(tb, now),
                Phase::Stopping if self.quiet(tb) => {
                    self.set_phase(tb, Phase::Saving { sent: false })
                }
                Phase::Stopping => {}
                Phase::Saving { sent: false } => {
                    if self.send_context(tb, LsuKind::Store) {
                        self.set_phase(tb, Phase::Saving { sent: true });
                    }
                }
                Phase::Saving { sent: true } if self.quiet(tb) => self.release(tb, now),
                Phase::Saving { sent: true } => {}
                Phase::Flushing => {
                    // Instructions the operand collector hands the LSU later are dropped too.
                    self.drop_unsent(tb);
                    #[cfg(test)]
                    let early = self.fault == Some(PreemptFault::ReleaseFlushEarly);
                    #[cfg(not(test))]
                    let early = false;
                    if early || self.quiet(tb) {
                        self.release(tb, now);
                    }
                }
                Phase::Restoring { sent: false } if self.free_switch => self.restored(tb),
                Phase::Restoring { sent: false } => {
                    if self.send_context(tb, LsuKind::Load) {
                        self.set_phase(tb, Phase::Restoring { sent: true });
                    }
                }
                Phase::Restoring { sent: true } => {}
            }
        }
    }

    fn set_phase(&mut self, tb: usize, phase: Phase) {
        if let Some(p) = &mut self.tbs[tb].preempt {
            p.phase = phase;
        }
    }

    /// Puts block slot `tb`'s context stores or loads into the LSU if it has room; whether
    /// it did.
    fn send_context(&mut self, tb: usize, kind: LsuKind) -> bool {
        if self.lsu.len() >= self.timing.lsu_queue {
            return false;
        }
        let Some(w) = self.carrier(tb) else {
            return false;
        };
        let slot = &self.tbs[tb];
        let kernel = slot.kernel.as_ref().expect("an active block");
        let txns = context_lines(kernel, slot.id);
        let token = (kind == LsuKind::Load).then(|| {
            self.warps[w].loads += 1;
            self.new_pending(PendingLoad {
                warp: w,
                tb,
                inst: context_inst(),
                index: 0,
                outstanding: 0,
                ready_at: 0,
                all_sent: false,
                context: true,
            })
        });
        self.lsu.push_back(LsuOp {
            warp: w,
            token,
            kind,
            txns,
            next: 0,
            failed_at: None,
        });
        true
    }

    /// Takes block slot `tb` off the SM (switched out or flushed): its warps leave (their exit
    /// bits go to the warp-issue site), its resources and warp range are free, and the GPU
    /// gets what its kernel keeps of it.
    fn release(&mut self, tb: usize, now: u64) {
        let cycles = now - self.tbs[tb].started;
        let (issued, overwrote) = (self.issued_since_start(tb), self.overwrote(tb));
        let slot = std::mem::replace(&mut self.tbs[tb], TbSlot::free());
        self.count_instructions(&slot);
        self.leaves(&slot);
        let p = slot.preempt.expect("a block being preempted");
        let kernel = slot.kernel.clone().expect("an active block");
        let id = slot.id;
        let mut warps = vec![];
        for i in 0..slot.warps {
            let w = slot.first_warp + i;
            let warp = &self.warps[w];
            warps.push(SavedWarp {
                next_issue: warp.next_issue,
                len: warp.len,
                at_barrier: warp.at_barrier,
                finished: warp.exit_issued,
                retired: !warp.live,
            });
            if warp.live {
                self.kill(w);
            }
        }
        self.hold(slot.first_warp, kernel.warps_per_tb, false);
        super::warps::add(&mut self.alloc_req.released, slot.takes);
        #[cfg(test)]
        let slot = TbSlot {
            place: slot
                .place
                .filter(|_| self.fault != Some(PreemptFault::KeepPlace)),
            ..slot
        };
        self.give_back(slot.place);
        self.resident -= 1;
        let (block, bytes) = match p.technique {
            Technique::Flush => (
                Preempted::Restart {
                    id,
                    flushes: slot.flushes + 1,
                },
                0,
            ),
            _ => (
                Preempted::Saved(Box::new(SavedBlock {
                    id,
                    insts: slot.insts,
                    warps,
                    arrived: slot.arrived,
                    issued,
                    non_idempotent: overwrote,
                    cycles,
                })),
                if self.free_switch {
                    0
                } else {
                    kernel.context_bytes()
                },
            ),
        };
        self.taken_off.push(Released {
            kernel: kernel.launch as u32,
            slot: tb,
            dispatched: slot.dispatched,
            technique: p.technique,
            since: p.since,
            bytes,
            issued,
            block,
        });
    }

    /// Warp `w` leaves the SM without retiring (its block was taken off).
    fn kill(&mut self, w: usize) {
        self.exiting.retain(|&x| x != w);
        let warp = &mut self.warps[w];
        warp.live = false;
        warp.stopped = false;
        warp.head = None;
        warp.ahead = None;
        self.update_fetchable(w);
        self.sync_masks(w);
        self.exit[w % self.schedulers] |= 1 << (w / self.schedulers);
    }

    /// Puts switched-out block `saved` of `kernel` back on this SM: its warps are live but
    /// stopped until its context is read back, then resume where they stopped. Returns its
    /// block slot.
    pub fn restore(
        &mut self,
        kernel: &Arc<KernelCtx>,
        saved: SavedBlock,
        now: u64,
    ) -> Result<usize, SimError> {
        self.wake(now);
        let slot = self
            .tbs
            .iter()
            .position(|t| !t.active)
            .expect("the SM's room left a block slot");
        let wpt = kernel.warps_per_tb;
        let first = self
            .free_warp_range(wpt)
            .expect("the SM's room left a free warp range");
        let SavedBlock {
            id,
            mut insts,
            warps,
            arrived,
            issued: _,
            non_idempotent,
            cycles,
        } = saved;
        let mut left = 0;
        for (i, sw) in warps.iter().enumerate() {
            if !sw.retired && sw.next_issue < sw.len {
                insts.ensure(i, sw.next_issue + 1)?;
            }
        }
        self.hold(first, wpt, true);
        for (i, sw) in warps.iter().enumerate() {
            let w = first + i;
            if sw.retired {
                // Its slot stays empty; what it issued was counted where it ran.
                let warp = &mut self.warps[w];
                (warp.issued_here, warp.threads, warp.overwrote) = (0, 0, false);
                warp.next_issue = sw.next_issue;
                continue;
            }
            left += 1;
            let pc = insts.get(i, sw.next_issue).map_or(0, |x| x.pc);
            self.revive(w, slot, i, kernel, sw);
            if sw.finished {
                self.exiting.push(w);
            }
            let (s, local) = (w % self.schedulers, w / self.schedulers);
            self.launch[s] |= 1 << local;
            if self.tbs_launched > 0 {
                self.launch2[s] |= 1 << local;
            }
            self.issue.launched(&LaunchedWarp {
                sched: s,
                local,
                kernel,
                block: id as u64,
                index: i,
                pc,
            });
        }
        self.tbs_launched = self.tbs_launched.saturating_add(1);
        self.tbs[slot] = TbSlot {
            active: true,
            id,
            insts,
            first_warp: first,
            warps: warps.len(),
            left,
            arrived,
            takes: kernel.need,
            kernel: Some(kernel.clone()),
            non_idempotent,
            dispatched: false,
            flushes: 0,
            preempt: Some(Preemption {
                technique: Technique::Switch,
                since: now,
                phase: Phase::Restoring { sent: false },
            }),
            started: now - cycles,
            place: self.take_place(),
        };
        self.resident += 1;
        self.preempting += 1;
        self.arrives(kernel.launch);
        super::warps::add(&mut self.alloc_req.allocated, kernel.need);
        if left == 0 {
            self.complete(slot);
        }
        Ok(slot)
    }

    /// Warp slot `w` takes warp `index` of block slot `tb` (of `kernel`) as it stopped:
    /// live, stopped until the context is back, its i-buffer empty, every register ready.
    fn revive(&mut self, w: usize, tb: usize, index: usize, kernel: &KernelCtx, sw: &SavedWarp) {
        #[cfg(test)]
        let sw = &match self.fault {
            Some(PreemptFault::ResumeLate) if sw.next_issue + 1 < sw.len => SavedWarp {
                next_issue: sw.next_issue + 1,
                ..*sw
            },
            _ => *sw,
        };
        self.warps[w].start(
            kernel,
            WarpStart {
                tb,
                index,
                len: sw.len,
                next: sw.next_issue,
                at_barrier: sw.at_barrier,
                exit_issued: sw.finished,
                stopped: true,
            },
        );
        self.update_fetchable(w);
        self.sync_masks(w);
    }

    /// Block slot `tb` (just launched) restarts after `flushes` flushes.
    pub fn restarted(&mut self, tb: usize, flushes: u32) {
        self.tbs[tb].flushes = flushes;
    }

    /// Block slot `tb`'s context is back: its warps resume.
    pub(super) fn restored(&mut self, tb: usize) {
        self.tbs[tb].preempt = None;
        self.preempting -= 1;
        let (first, n) = (self.tbs[tb].first_warp, self.tbs[tb].warps);
        for w in first..first + n {
            if self.warps[w].live {
                self.warps[w].stopped = false;
                self.update_fetchable(w);
                self.sync_masks(w);
            }
        }
        self.check_barrier(tb);
    }
}

#[cfg(test)]
mod save_area_tests {
    use super::*;
    use crate::config::GpuConfig;

    fn kernel(launch: usize) -> KernelCtx {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let mut src = crate::workload::open_named("mm", "small").unwrap();
        let info = src.launches().unwrap().remove(0).info;
        KernelCtx::new(&cfg, &info, launch, 0).unwrap()
    }

    #[test]
    fn save_areas_stay_inside_their_kernel_s_64_gib_whatever_the_grid_and_launch() {
        let k = kernel(3);
        let bytes = k.context_bytes().div_ceil(CONTEXT_LINE) * CONTEXT_LINE;
        let lines = context_lines(&k, 0);
        assert_eq!(lines.len() as u64, bytes / CONTEXT_LINE);
        assert_eq!(lines[0].addr, CONTEXT_BASE + 3 * SAVE_AREA);
        // Block ids past the area's slots wrap inside it (a grid of 2^32 blocks).
        for id in [1, 1 << 20, u32::MAX] {
            let l = context_lines(&k, id);
            let (first, last) = (l[0].addr, l.last().unwrap().addr + CONTEXT_LINE);
            assert!(first >= CONTEXT_BASE + 3 * SAVE_AREA && last <= CONTEXT_BASE + 4 * SAVE_AREA);
        }
        // A launch index far past the slots of a GPU shares an area, without overflow.
        let far = kernel(usize::MAX);
        let l = context_lines(&far, u32::MAX);
        assert!(
            l[0].addr >= CONTEXT_BASE
                && l.last().unwrap().addr < CONTEXT_BASE + (1 << 16) * SAVE_AREA
        );
    }
}
