//! The kernels of a run ([`Kernels`]): launches waiting to arrive, arrived launches waiting for
//! a kernel slot, and the kernels in the slots with what the GPU tracks of each (blocks
//! dispatched, resident, completed; its preempted blocks; its report).
//!
//! A launch arrives when its arrival cycle has come and every launch before it in its stream
//! has finished; arrived launches take free slots in arrival order (ties: launch order) when
//! the kernel scheduler admits them. A periodic launch releases an instance every period
//! (each its own launch index) while its count lasts, or, without a count, while another
//! launch of the workload has not finished.

use super::kernel::KernelCtx;
use super::sites::kernel_sched::KernelView;
use super::sm::Preempted;
use super::stats::PreemptionCounts;
use crate::workload::kernel::{Arrival, BlockIdSet, KernelSource, Launch};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// A launch (one instance of a periodic one) not yet in a slot.
pub(super) struct Pending {
    /// Its launch index in the run.
    pub launch: usize,
    /// The workload launch it instantiates.
    pub spec: usize,
    /// Its nominal arrival.
    pub arrival: Arrival,
}

/// A kernel in a slot.
pub(super) struct Resident {
    /// What the GPU knows of it.
    pub ctx: Arc<KernelCtx>,
    /// Its blocks.
    pub source: Box<dyn KernelSource>,
    /// Its launch parameters.
    pub stream: u32,
    /// See [`Launch::priority`].
    pub priority: u8,
    /// The cycle it arrived and the cycle it took its slot.
    pub arrival: u64,
    /// See `arrival`.
    pub start: u64,
    /// See [`Launch::deadline`].
    pub deadline: Option<u64>,
    /// Its dispatcher has not been stepped since it started.
    pub first: bool,
    /// Block ids its dispatcher granted.
    pub granted: BlockIdSet,
    /// Blocks granted (each id once).
    pub dispatched: u64,
    /// Blocks resident on SMs.
    pub resident: u64,
    /// Blocks completed.
    pub done: u64,
    /// Of the completed blocks: warp instructions and cycles resident since each last started
    /// ([`KernelView::done_issued`]).
    pub done_issued: u64,
    /// See `done_issued`.
    pub done_cycles: u64,
    /// Blocks taken off SMs, dispatched again before any new one.
    pub queue: VecDeque<Preempted>,
    /// Its preemptions.
    pub preemptions: PreemptionCounts,
    /// The kernel scheduler killed it.
    pub killed: bool,
}

impl Resident {
    /// Blocks waiting to be dispatched.
    pub fn waiting(&self) -> u64 {
        match self.killed {
            true => 0,
            false => self.ctx.total() as u64 - self.dispatched + self.queue.len() as u64,
        }
    }

    /// Every block has completed.
    pub fn finished(&self) -> bool {
        self.done == self.ctx.total() as u64
    }

    /// What the kernel scheduler sees of it.
    pub fn view(&self) -> KernelView {
        KernelView {
            launch: self.ctx.launch,
            stream: self.stream,
            priority: self.priority,
            arrival: self.arrival,
            admitted: self.start,
            waiting: self.waiting(),
            resident: self.resident,
            done: self.done,
            done_issued: self.done_issued,
            done_cycles: self.done_cycles,
            context_bytes: self.ctx.context_bytes(),
            blocks_per_sm: self.ctx.occupancy.blocks,
            need: self.ctx.need,
            idempotent: self.ctx.strictly_idempotent(),
            deadline: self.deadline,
        }
    }
}

/// A kernel that left its slot (finished, or cut short by the run's end).
pub(super) struct Left {
    /// What it was.
    pub resident: Resident,
    /// The cycle it finished (or the run ended).
    pub end: u64,
    /// It had not finished.
    pub cut: bool,
    /// What its dispatcher reported of it ([`DispatchUnit::kernel_report`]).
    ///
    /// [`DispatchUnit::kernel_report`]: super::sites::dispatch::DispatchUnit::kernel_report
    pub dispatch: BTreeMap<String, serde_json::Value>,
}

/// A periodic launch's next release.
struct Periodic {
    spec: usize,
    /// The cycle of the next instance, and how many remain (`None`: while others run).
    next: u64,
    left: Option<u32>,
    period: u64,
}

/// The kernels of a run.
pub(super) struct Kernels {
    /// The workload's launches, in launch order.
    pub specs: Vec<Launch>,
    /// Per stream: its launches not yet in a slot, in order.
    streams: BTreeMap<u32, VecDeque<Pending>>,
    /// Per stream: the cycle its last launch finished, and whether one is in a slot.
    stream_state: BTreeMap<u32, (u64, bool)>,
    periodic: Vec<Periodic>,
    /// Launches in the stream queues.
    queued: usize,
    next_launch: usize,
    /// Non-periodic launches not finished.
    pub open_work: usize,
    /// The kernel slots.
    pub slots: Vec<Option<Resident>>,
    /// Kernels that left their slots.
    pub left: Vec<Left>,
    /// Per launch index: the workload launch it instantiates.
    pub spec_of: Vec<usize>,
}

impl Kernels {
    /// The kernels of `specs` for a GPU of `slots` kernel slots.
    pub fn new(specs: Vec<Launch>, slots: usize) -> Self {
        let mut k = Self {
            streams: BTreeMap::new(),
            stream_state: BTreeMap::new(),
            periodic: vec![],
            queued: 0,
            next_launch: 0,
            open_work: 0,
            slots: (0..slots).map(|_| None).collect(),
            left: vec![],
            spec_of: vec![],
            specs: vec![],
        };
        for (i, l) in specs.iter().enumerate() {
            match l.period {
                Some(period) => k.periodic.push(Periodic {
                    spec: i,
                    next: match l.arrival {
                        Arrival::At(c) => c,
                        Arrival::AfterPrevious => 0,
                    },
                    left: l.count,
                    period,
                }),
                None => {
                    k.open_work += 1;
                    k.push(i, l.stream, l.arrival);
                }
            }
        }
        k.specs = specs;
        k
    }

    fn push(&mut self, spec: usize, stream: u32, arrival: Arrival) {
        let launch = self.next_launch;
        self.next_launch += 1;
        self.queued += 1;
        self.spec_of.push(spec);
        self.streams.entry(stream).or_default().push_back(Pending {
            launch,
            spec,
            arrival,
        });
    }

    /// Releases the periodic instances due at `now`.
    pub fn release(&mut self, now: u64) {
        for i in 0..self.periodic.len() {
            let p = &self.periodic[i];
            let more = match p.left {
                Some(n) => n > 0,
                None => self.open_work > 0,
            };
            if p.next > now || !more {
                continue;
            }
            let (spec, at) = (p.spec, p.next);
            let p = &mut self.periodic[i];
            p.next += p.period;
            if let Some(n) = &mut p.left {
                *n -= 1;
            }
            let stream = self.specs[spec].stream;
            self.push(spec, stream, Arrival::At(at));
        }
    }

    /// The launches that have arrived by `now` and wait for a slot: (arrival cycle, launch,
    /// stream), in admission order.
    pub fn arrived(&self, now: u64) -> Vec<(u64, usize, u32)> {
        let mut v = vec![];
        for (&stream, q) in &self.streams {
            let (end, busy) = self
                .stream_state
                .get(&stream)
                .copied()
                .unwrap_or((0, false));
            let Some(head) = q.front() else { continue };
            if busy {
                continue;
            }
            let at = match head.arrival {
                Arrival::At(c) => c.max(end),
                Arrival::AfterPrevious => end,
            };
            if at <= now {
                v.push((at, head.launch, stream));
            }
        }
        v.sort();
        v
    }

    /// Takes the head launch of `stream` for a slot.
    pub fn take(&mut self, stream: u32) -> Pending {
        self.stream_state.entry(stream).or_default().1 = true;
        self.queued -= 1;
        self.streams
            .get_mut(&stream)
            .and_then(VecDeque::pop_front)
            .expect("an arrived launch")
    }

    /// The kernel in slot `slot` left at `end` (`cut`: the run ended first).
    pub fn leave(
        &mut self,
        slot: usize,
        end: u64,
        cut: bool,
        dispatch: BTreeMap<String, serde_json::Value>,
    ) {
        let r = self.slots[slot].take().expect("a kernel in the slot");
        let st = self.stream_state.entry(r.stream).or_default();
        *st = (end, false);
        if self.specs[self.spec_of[r.ctx.launch]].period.is_none() {
            self.open_work -= 1;
        }
        self.left.push(Left {
            resident: r,
            end,
            cut,
            dispatch,
        });
    }

    /// Some launch waits to arrive or to take a slot, or a periodic one will release an
    /// instance.
    pub fn waiting(&self) -> bool {
        self.queued > 0 || !self.periodic.is_empty()
    }

    /// Every launch has finished and none will be released.
    pub fn all_done(&self) -> bool {
        self.slots.iter().all(Option::is_none)
            && self.streams.values().all(VecDeque::is_empty)
            && self.periodic.iter().all(|p| match p.left {
                Some(n) => n == 0,
                None => self.open_work == 0,
            })
    }

    /// The kernels in the slots as the kernel scheduler sees them.
    pub fn views(&self, out: &mut Vec<Option<KernelView>>) {
        out.clear();
        out.extend(self.slots.iter().map(|s| s.as_ref().map(Resident::view)));
    }
}
