//! Phase-Aware Warp Scheduling's static phase analysis (seed 002 §"Phase calculation", spec
//! `locality_bypass_paws.md` §3.1.2-§3.1.3, C2, C3, C5, C7 and revisions P-R3, P-R4).
//!
//! A *phase* is a run of consecutive instructions none of which reads a register written by a
//! long-latency load of the same run (seed L53). Each instruction gets its phase id (the first
//! phase is 1) and its *phase distance*, the sum of the latencies from it to the last
//! instruction of its phase (L60), which the PAWS scheduler uses as its priority key.
//!
//! Two passes over the kernel's instructions in static PC order, as the report's compiler pass
//! does (Figs. 4-5):
//!
//! 1. Top-down: keep `long_op`, the destination registers of the long-latency loads of the
//!    current phase, searched linearly (Fig. 6). An instruction that reads one of them starts a
//!    new phase: the previous instruction is marked end-of-phase and `long_op` is emptied.
//! 2. Bottom-up: a running sum of latencies, reset after every end-of-phase instruction, so the
//!    first instruction of a phase holds the phase length.
//!
//! **Static linear order (C4).** Branches are ignored: the code is read as if it ran straight
//! through in PC order, loops once and both sides of an `if`. This is exact for straight-line or
//! fully unrolled code (the spec's synthetic PAWS kernels); in a loop, a load at the end of the
//! body whose value the body's start reads does not start a phase at the body's start.
//!
//! **Options.** [`PhaseOptions::long_loads`] says which loads are long-latency (C2, P-R4) and
//! [`PhaseOptions::operands`] which operands count and in which order (C3, P-R3).
//!
//! **Latencies (C7).** The caller gives each instruction's latency in core cycles; [`Latencies`]
//! is the per-class table, with loads, stores and atomics at their issue latency 1 (Fig. 1).
//!
//! **Register 255** is SASS's zero register `RZ` in traces ([`RZ`]): writing it discards the
//! value and reading it reads 0, so it never enters or matches `long_op`.

use crate::config::UnitConfig;
use crate::workload::sass::OpClass;
use crate::workload::static_code::{CodeOp, KernelCode};

#[cfg(test)]
mod tests;

/// SASS's zero register as a trace numbers it (`R255`); ignored by the analysis.
pub const RZ: u16 = crate::workload::accelsim::MAX_REG;

/// The issue latency, in core cycles, that loads, stores and atomics count with (C7; Fig. 1:
/// `GLD` and `GST` count 1, not their memory latency).
pub const MEMORY_ISSUE_LATENCY: u32 = 1;

/// Which loads are long-latency: their destinations enter `long_op` (C2, P-R4). The two-level
/// scheduler's demotion should use the same set ([`LongLoads::is_long`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LongLoads {
    /// Global, generic and texture loads ([`OpClass::LoadGlobal`]) and local loads
    /// ([`OpClass::LoadLocal`]): the loads that go to the L1D and DRAM (P-R4 default; seed L60
    /// "Memory load instructions (GLD) are long latency").
    #[default]
    Default,
    /// Every load class, shared and constant loads too: the report's code, which tests
    /// `op == LOAD_OP && memory_op == memory_load` (L137; P-R4 `ALL_LD`). Atomics are not
    /// loads in either mode (GPGPU-Sim's `memory_load` covers `ld`, `ldu` and `tex`).
    AllLoads,
}

impl LongLoads {
    /// Whether an instruction of `class` is a long-latency load.
    pub fn is_long(self, class: OpClass) -> bool {
        use OpClass::*;
        match self {
            LongLoads::Default => matches!(class, LoadGlobal | LoadLocal),
            LongLoads::AllLoads => matches!(class, LoadGlobal | LoadLocal | LoadShared | LoadConst),
        }
    }
}

/// Which register operands count, and when a load's destination enters `long_op` (C3, P-R3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Operands {
    /// The phase definition (L53; P-R3 default): every source counts, the address registers of
    /// a memory operand too; the sources are checked before the instruction's own destinations
    /// enter `long_op`, and every destination register of a long load enters it. A later
    /// non-load write to a register does not take it out of `long_op`.
    #[default]
    Faithful,
    /// The report's code (Fig. 4; P-R3 `REPORT_OPERANDS`): a long load's destination enters
    /// `long_op` *before* its sources are checked (C3), and only when it is a single register
    /// (a vector destination is no register operand there); the memory operand's registers
    /// ([`CodeOp::addr_srcs`]) are no register sources. A load whose other register source is
    /// its own destination then starts a phase by itself, and a long load that starts a phase
    /// loses its destination when `long_op` is emptied. Should that happen at the kernel's
    /// first instruction (where the report's code would mark a null previous instruction),
    /// `long_op` is emptied but no phase starts.
    ReportCode,
}

/// How [`phases`] reads the code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PhaseOptions {
    /// Which loads are long-latency.
    pub long_loads: LongLoads,
    /// Which operands count, in which order.
    pub operands: Operands,
}

/// Per-class instruction latencies for the phase distances, in core cycles (C7). Memory
/// instructions count [`MEMORY_ISSUE_LATENCY`] whatever the table says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Latencies {
    /// Integer add, logic, shift, move ([`OpClass::IntAlu`]).
    pub int_alu: u32,
    /// Integer multiply and multiply-add ([`OpClass::IntMul`]).
    pub int_mul: u32,
    /// Single precision ([`OpClass::Fp`]).
    pub fp: u32,
    /// Double precision ([`OpClass::Dp`]).
    pub dp: u32,
    /// Special functions ([`OpClass::Sfu`]).
    pub sfu: u32,
    /// Branches, barriers, fences, exits and no-ops.
    pub other: u32,
}

impl Latencies {
    /// Every non-memory class at `cycles`.
    pub fn uniform(cycles: u32) -> Self {
        Self {
            int_alu: cycles,
            int_mul: cycles,
            fp: cycles,
            dp: cycles,
            sfu: cycles,
            other: cycles,
        }
    }

    /// The golden model's pipeline latencies (`units.*.latency`); control and other classes 1.
    pub fn from_units(units: &UnitConfig) -> Self {
        Self {
            int_alu: units.int_alu.latency,
            int_mul: units.int_mul.latency,
            fp: units.fp.latency,
            dp: units.dp.latency,
            sfu: units.sfu.latency,
            other: 1,
        }
    }

    /// The latency of an instruction of `class`, core cycles.
    pub fn of(&self, class: OpClass) -> u32 {
        use OpClass::*;
        match class {
            IntAlu => self.int_alu,
            IntMul => self.int_mul,
            Fp => self.fp,
            Dp => self.dp,
            Sfu => self.sfu,
            Branch | Barrier | MemBarrier | Exit | Nop => self.other,
            LoadGlobal | StoreGlobal | LoadShared | StoreShared | LoadLocal | StoreLocal
            | LoadConst | AtomicGlobal | AtomicShared => MEMORY_ISSUE_LATENCY,
        }
    }
}

/// The phase information of one static instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhaseInfo {
    /// Byte PC from the kernel's start (the instruction's [`CodeOp::pc`]).
    pub pc: u64,
    /// Phase id, 1 for the first phase.
    pub phase: u32,
    /// Phase distance: the latencies from this instruction to the last of its phase, summed,
    /// core cycles; 16 bits, saturating at `u16::MAX` (C7).
    pub distance: u16,
    /// Whether the next instruction starts a new phase. The kernel's last instruction closes
    /// the last phase without the mark (C5; Fig. 13, PC 72).
    pub end_of_phase: bool,
}

/// The phases of a kernel, one entry per instruction of its [`KernelCode`], in the same order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Phases {
    /// Per instruction, in the code's (PC) order.
    pub per_inst: Vec<PhaseInfo>,
    /// Number of phases: the last instruction's phase id; 0 for a code with no instruction.
    pub count: u32,
}

impl Phases {
    /// The entry of the instruction at `pc`, if the code has one (binary search: the code is
    /// in PC order, as [`KernelCode`] is).
    pub fn at(&self, pc: u64) -> Option<&PhaseInfo> {
        self.per_inst
            .binary_search_by_key(&pc, |i| i.pc)
            .ok()
            .map(|k| &self.per_inst[k])
    }

    /// The phase distance of the instruction at `pc` (core cycles, saturated to 16 bits): the
    /// scheduler's key for a warp whose next instruction is at `pc`.
    pub fn distance_at(&self, pc: u64) -> Option<u16> {
        self.at(pc).map(|i| i.distance)
    }

    /// Assembles the result from pass 1's phase starts (`starts[i]`: instruction `i` starts a
    /// new phase; ignored for instruction 0) with pass 2's distances.
    fn from_starts(code: &KernelCode, starts: &[bool], latency: &dyn Fn(&CodeOp) -> u32) -> Self {
        let mut phase = 1u32;
        let mut per_inst: Vec<PhaseInfo> = Vec::with_capacity(code.insts.len());
        for (i, op) in code.insts.iter().enumerate() {
            let start = i > 0 && starts.get(i).copied().unwrap_or(false);
            if start {
                phase = phase.saturating_add(1);
                if let Some(prev) = per_inst.last_mut() {
                    prev.end_of_phase = true;
                }
            }
            per_inst.push(PhaseInfo {
                pc: op.pc,
                phase,
                distance: 0,
                end_of_phase: false,
            });
        }
        distances(&mut per_inst, code, latency);
        let count = per_inst.last().map_or(0, |i| i.phase);
        Self { per_inst, count }
    }
}

/// Pass 2 (Fig. 5): bottom-up running sums of the latencies, restarted after each
/// end-of-phase instruction, saturating at `u16::MAX`.
fn distances(per_inst: &mut [PhaseInfo], code: &KernelCode, latency: &dyn Fn(&CodeOp) -> u32) {
    let mut dist = 0u16;
    for (info, op) in per_inst.iter_mut().zip(&code.insts).rev() {
        if info.end_of_phase {
            dist = 0;
        }
        let l = u16::try_from(latency(op)).unwrap_or(u16::MAX);
        dist = dist.saturating_add(l);
        info.distance = dist;
    }
}

/// Pass 1's state (Fig. 4): `long_op`, the registers loaded by the long loads of the current
/// phase (no duplicates, searched linearly as in Fig. 6).
#[derive(Clone, Debug)]
struct Scan {
    opts: PhaseOptions,
    long_op: Vec<u16>,
    /// Whether an instruction was scanned (the first one cannot start a new phase: there is no
    /// phase to end; the report's code would mark a null `prev_instr` there).
    seen: bool,
}

impl Scan {
    fn new(opts: PhaseOptions) -> Self {
        Self {
            opts,
            long_op: Vec::new(),
            seen: false,
        }
    }

    /// Scans the next instruction: whether it starts a new phase.
    fn step(&mut self, op: &CodeOp) -> bool {
        let long = self.opts.long_loads.is_long(op.class);
        let hit = match self.opts.operands {
            Operands::Faithful => self.step_faithful(op, long),
            Operands::ReportCode => self.step_report(op, long),
        };
        let start = hit && self.seen;
        self.seen = true;
        start
    }

    /// P-R3: every source checked first, then every destination of a long load pushed.
    fn step_faithful(&mut self, op: &CodeOp, long: bool) -> bool {
        let hit = self.reads_long(&op.srcs);
        if hit {
            self.long_op.clear();
        }
        if long {
            self.push(&op.dsts);
        }
        hit
    }

    /// Fig. 4: a long load's single destination pushed first, then the sources outside the
    /// memory operand checked; a hit empties `long_op`, the just-pushed register included.
    fn step_report(&mut self, op: &CodeOp, long: bool) -> bool {
        if let ([dst], true) = (op.dsts.as_slice(), long) {
            self.push(&[*dst]);
        }
        let srcs = op.srcs.get(op.addr_srcs as usize..).unwrap_or(&[]);
        let hit = self.reads_long(srcs);
        if hit {
            self.long_op.clear();
        }
        hit
    }

    fn reads_long(&self, srcs: &[u16]) -> bool {
        srcs.iter().any(|s| *s != RZ && self.long_op.contains(s))
    }

    fn push(&mut self, dsts: &[u16]) {
        for &d in dsts {
            if d != RZ && !self.long_op.contains(&d) {
                self.long_op.push(d);
            }
        }
    }
}

/// Pass 1 over the whole code: whether each instruction starts a new phase.
fn phase_starts(code: &KernelCode, opts: PhaseOptions) -> Vec<bool> {
    let mut scan = Scan::new(opts);
    code.insts.iter().map(|op| scan.step(op)).collect()
}

/// The phases of `code` in static PC order (see the module documentation), with `latency`
/// giving each instruction's latency in core cycles (e.g. `&|op| table.of(op.class)` for a
/// [`Latencies`] table). A code with no long load is one phase whose distances are the suffix
/// sums of the latencies; an empty code has no phase (`count` 0).
pub fn phases(code: &KernelCode, opts: PhaseOptions, latency: &dyn Fn(&CodeOp) -> u32) -> Phases {
    Phases::from_starts(code, &phase_starts(code, opts), latency)
}
