//! The warp-issue site's protocol (one unit per SM): what the SM's issue stage hands the unit
//! every cycle and what it takes back. A warp-issue policy ([`crate::policy`]) builds the unit
//! from its blocks (one warp arbiter per scheduler, one ELF block per SM...); the SM knows the
//! unit only through [`IssueUnit`].
//!
//! Warps are numbered as the SM numbers them: global warp `w` of an SM with `n` schedulers is
//! local warp `w / n` of scheduler `w % n` (bit `w / n` of that scheduler's masks).

use crate::gpu::kernel::KernelCtx;
use crate::gpu::SimError;
use crate::workload::kernel::WarpInst;
use crate::workload::sass::OpClass;

/// Most warp schedulers per SM (the configuration's limit).
pub const MAX_SCHEDULERS: usize = crate::config::MAX_SCHEDULERS as usize;

/// How the SM presents its warps to the unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssueMode {
    /// One [`IssueUnit::select`] per scheduler, scheduler by scheduler from the leading one;
    /// later schedulers see the units the earlier ones took (GPGPU-Sim's order).
    Sequential,
    /// One [`IssueUnit::select`] per scheduler, every scheduler's warps scanned before any
    /// grant; each scheduler takes a unit slot only for the warp it grants.
    Paired,
    /// One [`IssueUnit::select_all`] for every scheduler at once (paired), which may also
    /// choose the warp the fetch stage serves.
    SmWide,
}

impl IssueMode {
    /// `sequential` or `paired` (reports).
    pub fn name(self) -> &'static str {
        match self {
            IssueMode::Sequential => "sequential",
            IssueMode::Paired | IssueMode::SmWide => "paired",
        }
    }
}

/// Which source registers put a warp on a long stall (the `long_stall` a select sees).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongOpRule {
    /// GPGPU-Sim's rule: a source carries the long-op mark (`shader.cc`'s `order_warps` tests
    /// `islongop` on `in[]`), whether or not its value has arrived; the instructions that set
    /// the mark as [`Marked`] says.
    Mark(Marked),
    /// A source waits on a load in flight.
    InFlight,
}

/// The instructions whose destinations get the long-op mark under [`LongOpRule::Mark`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marked {
    /// GPGPU-Sim's: global and local loads and global atomics (`reserveRegisters`).
    GpgpuSim,
    /// Global and local loads: the PAWS report's long-latency loads (P-R4's default), so that
    /// two-level PAWS demotes on the loads its phase analysis ends phases at.
    Loads,
    /// Every load: global, local, shared and constant (P-R4's `ALL_LD`).
    AllLoads,
}

impl Marked {
    /// Whether an instruction of `class` marks its destinations.
    pub fn marks(self, class: OpClass) -> bool {
        use OpClass::*;
        match self {
            Marked::GpgpuSim => matches!(class, LoadGlobal | LoadLocal | AtomicGlobal),
            Marked::Loads => matches!(class, LoadGlobal | LoadLocal),
            Marked::AllLoads => matches!(class, LoadGlobal | LoadLocal | LoadShared | LoadConst),
        }
    }
}

/// One scheduler's warps for one cycle (local warp ids).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedIn {
    /// Warps that can issue (instruction decoded, scoreboard clear, a free unit).
    pub ready: u64,
    /// Warps launched since the last select (every block of the cycle).
    pub launch: u64,
    /// Of those, the warps of the cycle's second block.
    pub launch2: u64,
    /// Thread blocks launched on the SM since the last select.
    pub tbs_launched: u8,
    /// Warps that left since the last select.
    pub exit: u64,
    /// Warps at a barrier, finished, or whose sources put them on a long stall.
    pub long_stall: u64,
    /// Kernel-aware units only ([`IssueUnit::wants_marks`]; 0 for the others): the warps of
    /// the SM's second kernel (the high end's under a 2-way allocator, else the later launch).
    pub kernel: u64,
    /// Kernel-aware units: the warps of their kernel's boundary block (under a 2-way allocator
    /// the block on its end's highest slot, whose leaving gives the other end room; 0 under a
    /// counting allocator).
    pub boundary: u64,
    /// Kernel-aware units: the warps of blocks being drained.
    pub drain: u64,
    /// Kernel-aware units: bit `k` = kernel `k` (0 first, 1 second) has no blocks left to
    /// dispatch while another kernel has some.
    pub tail: u8,
}

/// Every scheduler's warps for one cycle, for a [`IssueMode::SmWide`] unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmIn {
    /// Schedulers.
    pub schedulers: usize,
    /// Per scheduler: its ready warps (units free at the start of the cycle counted).
    pub ready: [u64; MAX_SCHEDULERS],
    /// Per scheduler: 2 bits per local warp, the unit its instruction needs (1 SP, 2 SFU, 3
    /// LSU; 0 none).
    pub unit: [u64; MAX_SCHEDULERS],
    /// Free slots of SP, SFU and LSU (saturated at the scheduler count).
    pub free: [u8; 3],
    /// The scheduler that issues first.
    pub issue_lead: usize,
    /// The scheduler that leads the fetch interleave.
    pub fetch_lead: usize,
    /// Warps launched since the last select (global ids).
    pub launch: u64,
    /// Warps that left since the last select (global ids).
    pub exit: u64,
    /// When the unit orders fetch ([`IssueUnit::orders_fetch`]): warps that want a fetch, and
    /// the ready warps that will want one if they issue now (their i-buffer head is its last
    /// instruction and more are to be fetched); 0 otherwise.
    pub fetch_elig: u64,
    /// See `fetch_elig`.
    pub fetch_on_grant: u64,
}

/// What a [`IssueMode::SmWide`] unit decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmOut {
    /// Per scheduler, the granted local warp.
    pub grants: [Option<usize>; MAX_SCHEDULERS],
    /// With fetch ordering: the warp to fetch for this cycle (`None`: no fetch).
    pub fetch: Option<usize>,
}

/// A warp that launches this cycle.
#[derive(Clone, Copy)]
pub struct LaunchedWarp<'k> {
    /// Its scheduler and local id.
    pub sched: usize,
    /// Local id within the scheduler.
    pub local: usize,
    /// The kernel of its block.
    pub kernel: &'k KernelCtx,
    /// Its block's linear id in the grid.
    pub block: u64,
    /// Its index in the block.
    pub index: usize,
    /// The PC of its first instruction.
    pub pc: u32,
}

/// The unit at an SM's warp-issue site.
pub trait IssueUnit<'a> {
    /// How the SM presents its warps.
    fn mode(&self) -> IssueMode;
    /// Which sources put a warp on a long stall.
    fn long_op_rule(&self) -> LongOpRule {
        LongOpRule::Mark(Marked::GpgpuSim)
    }
    /// What the unit is, for protocol errors (`arbiter`, `ELF block`).
    fn what(&self) -> &'static str;
    /// Whether the unit wants [`IssueUnit::prepare`] called (a unit with per-kernel state);
    /// asked once, when the SM is built.
    fn needs_prepare(&self) -> bool {
        false
    }
    /// Blocks of `kernel` are offered to the SM this cycle (`empty`: it holds no block):
    /// whether they may launch now. A unit that keeps per-kernel state (a program table) loads
    /// it here and says no until it is loaded. Called every cycle the kernel is offered, before
    /// any launch.
    fn prepare(&mut self, kernel: &KernelCtx, empty: bool) -> bool {
        let _ = (kernel, empty);
        true
    }
    /// With [`IssueUnit::needs_prepare`]: whether the SM may still sleep
    /// ([`crate::gpu::sm`]'s sleep, which goes on calling `prepare`): `prepare` never holds a
    /// kernel off, and nothing it changes can make a quiet select ([`IssueUnit::quiet`]) grant
    /// or change anything.
    fn sleeps_through_prepare(&self) -> bool {
        false
    }
    /// Whether the unit wants the marks of [`SchedIn`] (`kernel`, `boundary`, `drain`,
    /// `tail`); asked once, when the SM is built. They describe the SM at this cycle's issue
    /// stage: blocks launched this cycle counted, blocks that left before it not.
    fn wants_marks(&self) -> bool {
        false
    }
    /// Warp `w` launches this cycle (before the issue stage).
    fn launched(&mut self, w: &LaunchedWarp) {
        let _ = w;
    }
    /// [`IssueMode::Sequential`] and [`IssueMode::Paired`]: scheduler `s`'s select, the
    /// granted local warp.
    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        let _ = (s, inp);
        unreachable!("a per-scheduler select of an SM-wide unit")
    }
    /// Whether [`IssueUnit::quiet`] can say yes often enough to be asked (the SM then may
    /// sleep); asked once, when the SM is built.
    fn can_be_quiet(&self) -> bool {
        false
    }
    /// [`IssueMode::Sequential`] and [`IssueMode::Paired`]: whether scheduler `s`'s next
    /// select with `inp` grants nothing and changes nothing in the unit (the SM may then skip
    /// cycles whose input repeats `inp`; [`crate::gpu::sm`]'s sleep). `false` unless the unit
    /// knows. It may prepare that select's answer (as a held slot's), but must not change
    /// what it answers.
    fn quiet(&mut self, s: usize, inp: &SchedIn) -> bool {
        let _ = (s, inp);
        false
    }
    /// [`IssueMode::SmWide`]: every scheduler's select.
    fn select_all(&mut self, inp: &SmIn) -> Result<SmOut, SimError> {
        let _ = inp;
        unreachable!("an SM-wide select of a per-scheduler unit")
    }
    /// Whether the unit wants [`IssueUnit::issued`] after each grant is issued (SM-wide units
    /// do; a per-scheduler unit that keys its order on the warps' PCs may); asked once, when
    /// the SM is built.
    fn tracks_pcs(&self) -> bool {
        self.mode() == IssueMode::SmWide
    }
    /// With [`IssueUnit::tracks_pcs`]: scheduler `s` issued `inst`, of the warp it granted
    /// last; the warp continues at `next_pc`. Called right after the grant is issued, before
    /// the next scheduler's select.
    fn issued(&mut self, s: usize, inst: &WarpInst, next_pc: u32) {
        let _ = (s, inst, next_pc);
    }
    /// Whether the unit chooses the warp the fetch stage serves ([`SmOut::fetch`]); else the
    /// fetch stage goes round robin.
    fn orders_fetch(&self) -> bool {
        false
    }
}
