//! The kernel-scheduler site's protocol (one unit per GPU): which of the kernels the GPU holds
//! may dispatch thread blocks to which SM, and which resident blocks to preempt, and how.
//!
//! The GPU holds kernels in *kernel slots* (the hardware's kernel table, [`KernelSchedUnit::slots`]
//! entries). A launch that has arrived (its arrival cycle has come and the kernel before it in
//! its stream has finished) takes a free slot when the unit admits it, in arrival order. Every
//! cycle, before the SMs' resource allocators, the unit sees each slot's kernel and each SM's
//! resident blocks per slot, and says for every SM which slot's kernel is offered to it
//! ([`KernelSchedOut::offer`]: that kernel's dispatcher sees the SM's room) and which blocks to
//! preempt ([`Preempt`]); the GPU carries preemptions out with the SM's mechanisms (context
//! switch, drain, flush) and puts every block taken off an SM in its kernel's preempted queue,
//! which that kernel's dispatch serves first.

/// How a resident thread block is taken off its SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Technique {
    /// Stop issue, let the block's issued instructions complete, write its registers and
    /// shared memory to global memory through the memory system and free its slot; it is later
    /// restored (read back) on any SM and resumes where it stopped.
    Switch,
    /// Let the block finish; nothing new is dispatched to it meanwhile (the kernel scheduler
    /// offers the SM to another kernel).
    Drain,
    /// Drop the block's warps at once (their in-flight replies are absorbed) and restart it
    /// from its first instruction later; only while it is idempotent (no global store or
    /// atomic that overwrites its input has issued).
    Flush,
}

impl Technique {
    /// Every technique, in report order.
    pub const ALL: [Technique; 3] = [Technique::Switch, Technique::Drain, Technique::Flush];
    /// Names (`--preempt`).
    pub const NAMES: &'static [&'static str] = &["switch", "drain", "flush"];

    /// The technique's name.
    pub fn name(self) -> &'static str {
        match self {
            Technique::Switch => "switch",
            Technique::Drain => "drain",
            Technique::Flush => "flush",
        }
    }

    /// Parses a name of [`Technique::NAMES`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// A kernel in a slot, as the unit sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelView {
    /// Its launch index in the run.
    pub launch: usize,
    /// Its stream.
    pub stream: u32,
    /// Its priority (0 lowest).
    pub priority: u8,
    /// The cycle it arrived.
    pub arrival: u64,
    /// The cycle it took its slot.
    pub admitted: u64,
    /// Blocks waiting to be dispatched: never dispatched yet, or preempted and queued.
    pub waiting: u64,
    /// Blocks resident on SMs (being preempted included).
    pub resident: u64,
    /// Blocks completed.
    pub done: u64,
    /// Of the completed blocks: their warp instructions (each block's count since it last
    /// started: a flushed run's are not in it) and their cycles resident (each block's
    /// [`BlockView::cycles`] when it completed).
    pub done_issued: u64,
    /// See `done_issued`.
    pub done_cycles: u64,
    /// Bytes of one block's context (its registers, 4 bytes each, and its shared memory).
    pub context_bytes: u64,
    /// Blocks of it that fit an SM at once.
    pub blocks_per_sm: u32,
    /// What one block takes of an SM: threads (padded to warps), registers (rounded as
    /// GPGPU-Sim rounds them), shared-memory bytes, one block slot.
    pub need: [u32; 4],
    /// No instruction of it ends a block's idempotence (Chimera's strict idempotence: no
    /// global atomic, no global store into an array it reads).
    pub idempotent: bool,
    /// Cycles after its arrival it should finish within (the mix's `deadline`).
    pub deadline: Option<u64>,
}

impl KernelView {
    /// Some block of it waits to be dispatched.
    pub fn has_waiting(&self) -> bool {
        self.waiting > 0
    }
}

/// One SM, as the unit sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmView {
    /// Per kernel slot: its blocks resident on the SM (being preempted included).
    pub blocks: Vec<u32>,
    /// Of those, per slot: the blocks being preempted (switched out, drained or flushed).
    pub preempting: Vec<u32>,
}

impl SmView {
    /// No block of any kernel is resident.
    pub fn is_empty(&self) -> bool {
        self.blocks.iter().all(|&b| b == 0)
    }

    /// Blocks resident of kernels other than slot `k`.
    pub fn others(&self, k: usize) -> u32 {
        self.blocks
            .iter()
            .enumerate()
            .filter(|&(s, _)| s != k)
            .map(|(_, &b)| b)
            .sum()
    }
}

/// A resident thread block, as the unit sees it (the SM status table's entry of a block slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockView {
    /// Its block slot on the SM ([`Preempt::block`]).
    pub tb: usize,
    /// Its kernel's slot.
    pub slot: usize,
    /// Its id in its kernel's grid.
    pub id: u32,
    /// Warp instructions it has issued since it started (a restored block keeps its count;
    /// a flushed one restarts from 0).
    pub issued: u64,
    /// Cycles it has been resident since it started (a restored block keeps its count).
    pub cycles: u64,
    /// It has issued an instruction that ends its idempotence (it can no longer be flushed).
    pub non_idempotent: bool,
    /// It is being preempted (or restored).
    pub preempting: bool,
    /// Where a positional allocator put it (`None` from a counting one): the boundary block of
    /// an end is its highest slot.
    pub place: Option<super::alloc::Place>,
}

/// What the unit sees in one cycle.
#[derive(Clone, Copy, Debug)]
pub struct KernelSchedIn<'a> {
    /// The cycle.
    pub now: u64,
    /// Per slot: its kernel, if any.
    pub kernels: &'a [Option<KernelView>],
    /// Per SM.
    pub sms: &'a [SmView],
    /// Per SM: its resident blocks in block-slot order, filled for [`KernelSchedUnit::step`]
    /// of a unit whose [`KernelSchedUnit::wants_blocks`] says so (empty otherwise).
    pub blocks: &'a [Vec<BlockView>],
    /// Per SM, per slot: the warp instructions that slot's kernel has issued on the SM since it
    /// took the slot (its resident blocks' included), filled in the cycle after the unit asked
    /// with [`KernelSchedOut::sample`] (empty otherwise): per-SM performance counters read at
    /// an epoch's end.
    pub issued: &'a [Vec<u64>],
}

impl KernelSchedIn<'_> {
    /// The slot holding launch `launch`, if it holds a slot.
    pub fn slot_of(&self, launch: usize) -> Option<usize> {
        self.kernels
            .iter()
            .position(|v| v.is_some_and(|v| v.launch == launch))
    }

    /// The occupied slots, oldest admission first (ties: lower slot).
    pub fn by_admission(&self) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.kernels.len())
            .filter(|&k| self.kernels[k].is_some())
            .collect();
        v.sort_by_key(|&k| (self.kernels[k].map_or(0, |x| x.admitted), k));
        v
    }
}

/// A preemption the unit asks for: the blocks of slot `slot`'s kernel on SM `sm` (those not
/// already being preempted; with `block`, only that one) leave it by `technique`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preempt {
    /// The SM.
    pub sm: usize,
    /// The kernel slot whose blocks leave.
    pub slot: usize,
    /// How.
    pub technique: Technique,
    /// Only the block in this block slot of the SM (`None`: all of them).
    pub block: Option<usize>,
}

/// What the unit decided in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelSchedOut {
    /// Per SM: the slot whose kernel may dispatch to it this cycle.
    pub offer: Vec<Option<usize>>,
    /// Per SM, per slot: the most blocks of that slot's kernel the SM may hold (`None`: as many
    /// as fit), told to its resource allocator with the offer. Held across cycles; a slot's
    /// entries clear when its kernel leaves. Blocks above a lowered quota stay until the unit
    /// preempts them (a positional allocator's boundary blocks: [`BlockView::place`]).
    pub quota: Vec<Vec<Option<u32>>>,
    /// Preemptions to start.
    pub preempt: Vec<Preempt>,
    /// Slots whose kernels to kill: nothing more of them is dispatched, their blocks are
    /// dropped at once (flushed whatever their idempotence, not queued; one already being
    /// switched out or flushed finishes that first), and they leave their slots, reported
    /// `killed`.
    pub kill: Vec<usize>,
    /// Read every SM's per-kernel instruction counters for the next cycle's
    /// [`KernelSchedIn::issued`] (cleared when read).
    pub sample: bool,
}

/// The unit at the kernel-scheduler site.
pub trait KernelSchedUnit {
    /// Kernel slots (kernels held at once).
    fn slots(&self) -> usize;
    /// Whether the oldest arrived kernel may take a free slot now (there is one).
    fn admit(&mut self, inp: &KernelSchedIn) -> bool {
        let _ = inp;
        true
    }
    /// Whether the unit reads [`KernelSchedIn::blocks`] (building them costs a pass over every
    /// SM's blocks each cycle).
    fn wants_blocks(&self) -> bool {
        false
    }
    /// What it reports of its decisions at the run's end (the run report's
    /// `kernel_sched_stats`; nothing by default).
    fn report(&self) -> std::collections::BTreeMap<String, serde_json::Value> {
        Default::default()
    }
    /// One cycle: fills `out`: every entry of its `offer` (one per SM, holding the last
    /// cycle's), and its `preempt` (empty when it is called). Fails when one of its blocks does
    /// (a lockstep mismatch).
    fn step(
        &mut self,
        inp: &KernelSchedIn,
        out: &mut KernelSchedOut,
    ) -> Result<(), crate::gpu::SimError>;
}
