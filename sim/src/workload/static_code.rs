//! A kernel's static code, as the workload knows it, for the compiler-side analyses (ELF program
//! points, PAWS phases, address pre-computation): [`KernelCode`], every instruction in PC order
//! with its class, its registers, its branch target and, for memory operations, the address
//! expression when the workload has one. Synthetic kernels give their program; a trace's code
//! is reconstructed from the instructions it executed ([`StaticCode`]: every executed PC with
//! its opcode, its registers and the targets control went to when it did not fall through). No
//! analysis's types appear here: each analysis maps [`KernelCode`] to what it needs
//! (`analysis::elf::code_of`).

use super::accelsim::{ThreadBlockTrace, TraceInst};
use super::sass::{next_pc, OpClass, OpcodeTable};
use super::synth::{Addr, Program};
use std::collections::{BTreeMap, BTreeSet};

/// One static instruction of a [`KernelCode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeOp {
    /// Byte PC from the kernel's start.
    pub pc: u64,
    /// Unit/latency class.
    pub class: OpClass,
    /// For a branch whose target is known: the index (in [`KernelCode::insts`]) of the
    /// instruction it jumps to (a loop's first instruction, the end of an `if` region; in a
    /// trace, the lowest target it was seen taking).
    pub target: Option<usize>,
    /// For a memory instruction of a synthetic kernel: its per-thread address expression.
    pub addr: Option<Addr>,
    /// Destination registers (general-purpose register numbers, `R<n>`; in a trace, 255 is
    /// the zero register `RZ`). A load's are the registers it loads into.
    pub dsts: Vec<u16>,
    /// Source registers; for a memory instruction the registers of its memory operand (the
    /// address) come first, [`Self::addr_srcs`] of them.
    pub srcs: Vec<u16>,
    /// How many of the first [`Self::srcs`] are the memory operand's (address) registers: 0
    /// for an instruction that is not a memory operation or whose address is not computed
    /// from a register. Analyses that model the report's operand rule (a memory operand is
    /// not a register operand, seed 002 L142-L146) skip them.
    pub addr_srcs: u8,
}

/// A kernel's static code in PC order (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelCode {
    /// Instructions in PC order.
    pub insts: Vec<CodeOp>,
}

impl KernelCode {
    /// The code of a synthetic program: instruction `i` at PC `8 i`, loops and `if`s as
    /// branches to their body start and region end, loads, stores and atomics with their
    /// address expressions.
    ///
    /// Registers are the program's own ([`super::synth::Inst`] names them): a load
    /// (`Program::load(dst, addr_reg)`) writes `[dst]` and reads `[addr_reg]`, its address
    /// register; a store (`Program::store(val, addr_reg)`) reads `[addr_reg, val]`, address
    /// first; an atomic (`Program::atomic(dst, val)`) writes `[dst]` and reads `[val]`, its
    /// address being no register of the program (`addr_srcs` 0); loop and `if` branches and
    /// their compares name no register.
    pub fn of_program(program: &Program) -> Self {
        use super::synth::Op;
        let insts = program
            .insts
            .iter()
            .enumerate()
            .map(|(i, inst)| CodeOp {
                pc: 8 * i as u64,
                class: inst.class(),
                target: match &inst.op {
                    Op::Loop { target, .. } => Some(*target),
                    Op::If { skip, .. } => Some(*skip),
                    _ => None,
                },
                addr: match &inst.op {
                    Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Atomic { addr, .. } => {
                        Some(addr.clone())
                    }
                    _ => None,
                },
                dsts: inst.dsts.clone(),
                srcs: inst.srcs.clone(),
                addr_srcs: match &inst.op {
                    Op::Load { .. } | Op::Store { .. } => u8::from(!inst.srcs.is_empty()),
                    _ => 0,
                },
            })
            .collect();
        Self { insts }
    }

    /// Tests: the code of synthetic kernel `def` exported as a trace and reconstructed from it
    /// (what a trace of the same program gives).
    #[cfg(test)]
    pub fn of_exported_trace(def: &super::synth::SynthDef) -> Self {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let mut w = super::synth::workload(def.clone());
        super::export::export(&mut w, dir.path(), &mut |_| {}).expect("the export");
        Self::of_trace_file(&dir.path().join("kernel-1.traceg"))
    }

    /// Tests: the code reconstructed from the trace file `path` (`kernel-N.traceg`).
    #[cfg(test)]
    pub fn of_trace_file(path: &std::path::Path) -> Self {
        let mut k = super::accelsim::KernelTrace::open(path).expect("a readable trace");
        let mut sc = StaticCode::new(k.header.binary_version);
        while let Some(tb) = k.next_block().expect("a block") {
            sc.observe(&tb);
        }
        let mut table = OpcodeTable::default();
        table.update(k.opcodes());
        Self::of_trace(&sc, &table)
    }

    /// The code of a trace's kernel from the instructions it executed, classes from the
    /// reader's `table`: a branch-class instruction that jumped at least once gets its lowest
    /// observed target (one never taken in the trace, and the reconvergence-stack opcodes of
    /// the branch class, have none). Instructions never executed are absent; addresses are not
    /// known statically.
    ///
    /// Registers are those the trace lists for the PC ([`StaticInst::dsts`],
    /// [`StaticInst::srcs`]). The Accel-Sim tracer lists a memory operand's base register as
    /// the first source (`LDG R4, [R2]`: sources `R2`; `STG [R6], R0`: sources `R6 R0`), so a
    /// memory instruction with a source has `addr_srcs` 1.
    pub fn of_trace(code: &StaticCode, table: &OpcodeTable) -> Self {
        let pcs: Vec<u64> = code.insts.keys().copied().collect();
        let insts = code
            .insts
            .iter()
            .map(|(&pc, inst)| {
                let class = table.class(inst.opcode);
                let target = (class == OpClass::Branch)
                    .then(|| inst.taken_targets.iter().next())
                    .flatten()
                    .map(|t| pcs.binary_search(t).expect("a taken target was executed"));
                CodeOp {
                    pc,
                    class,
                    target,
                    addr: None,
                    dsts: inst.dsts.clone(),
                    srcs: inst.srcs.clone(),
                    addr_srcs: u8::from(class.is_memory() && !inst.srcs.is_empty()),
                }
            })
            .collect();
        Self { insts }
    }
}

/// One static instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StaticInst {
    /// Opcode id (of the reader that produced the trace).
    pub opcode: u16,
    /// Times a warp executed it.
    pub executions: u64,
    /// PCs control went to right after it, other than the sequential successor.
    pub taken_targets: BTreeSet<u64>,
    /// Destination registers, as the trace lists them the first time the PC runs.
    pub dsts: Vec<u16>,
    /// Source registers, as the trace lists them the first time the PC runs.
    pub srcs: Vec<u16>,
}

/// The static code of one kernel, by PC.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StaticCode {
    /// SASS binary version (fixes the instruction layout).
    pub binary_version: u32,
    /// Instructions by PC.
    pub insts: BTreeMap<u64, StaticInst>,
    /// PC of the last instruction observed (its successor in the warp is the next one).
    prev: Option<u64>,
}

impl StaticCode {
    /// Empty code for SASS binary version `binary_version`.
    pub fn new(binary_version: u32) -> Self {
        Self {
            binary_version,
            insts: BTreeMap::new(),
            prev: None,
        }
    }

    /// Adds the instructions of a thread block.
    pub fn observe(&mut self, tb: &ThreadBlockTrace) {
        for warp in &tb.warps {
            for (k, inst) in warp.iter().enumerate() {
                self.observe_inst(k, inst);
            }
        }
    }

    /// Adds instruction `k` of a warp; the instructions of a warp come in order, one warp
    /// after the other (`k == 0` starts a warp).
    pub fn observe_inst(&mut self, k: usize, inst: &TraceInst) {
        if let Some(prev) = self.prev.filter(|_| k > 0) {
            if inst.pc != next_pc(prev, self.binary_version) {
                self.insts
                    .get_mut(&prev)
                    .expect("seen")
                    .taken_targets
                    .insert(inst.pc);
            }
        }
        let e = self.insts.entry(inst.pc).or_default();
        if e.executions == 0 {
            e.dsts.clone_from(&inst.dsts);
            e.srcs.clone_from(&inst.srcs);
        }
        e.opcode = inst.opcode;
        e.executions += 1;
        self.prev = Some(inst.pc);
    }

    /// PCs whose instruction jumped backwards at least once (loop back edges), with targets.
    pub fn back_edges(&self) -> Vec<(u64, u64)> {
        self.insts
            .iter()
            .flat_map(|(&pc, i)| {
                i.taken_targets
                    .iter()
                    .filter(move |&&t| t <= pc)
                    .map(move |&t| (pc, t))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::accelsim::{read_kernelslist, Command, KernelTrace};
    use super::super::sass::OpcodeTable;
    use super::*;

    fn load(name: &str) -> Option<(StaticCode, OpcodeTable)> {
        let dir = crate::workload::shared_trace(name)?;
        let Command::Kernel { path } = read_kernelslist(&dir).unwrap().pop().unwrap() else {
            panic!()
        };
        let mut k = KernelTrace::open(&path).unwrap();
        let mut code = StaticCode::new(k.header.binary_version);
        while let Some(tb) = k.next_block().unwrap() {
            code.observe(&tb);
        }
        let mut table = OpcodeTable::default();
        table.update(k.opcodes());
        Some((code, table))
    }

    #[test]
    fn matrixmul_static_code_is_fully_classified() {
        let Some((code, table)) = load("matrixmul-32-32") else {
            return;
        };
        assert!(
            table.unknown().is_empty(),
            "unclassified: {:?}",
            table.unknown()
        );
        // Every warp runs the same 138 instructions: 4416 / 32.
        assert_eq!(code.insts.len(), 138);
        assert_eq!(code.insts.values().map(|i| i.executions).sum::<u64>(), 4416);
        let classes: BTreeSet<_> = code
            .insts
            .values()
            .map(|i| format!("{:?}", table.class(i.opcode)))
            .collect();
        for c in [
            "LoadGlobal",
            "StoreGlobal",
            "LoadShared",
            "StoreShared",
            "Barrier",
            "Exit",
            "Fp",
            "Branch",
        ] {
            assert!(classes.contains(c), "{c} missing in {classes:?}");
        }
        // 32x32 is a single tile: the loop branch is never taken (its mask is 0 in the trace),
        // so no taken target can be reconstructed.
        assert!(code.insts.values().all(|i| i.taken_targets.is_empty()));
    }

    #[test]
    fn taken_branches_and_loops_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kernel-1.traceg");
        let body = "0008 ffffffff 1 R1 MOV 0 0\n0010 ffffffff 1 R1 IADD 1 R1 0\n\
                    0018 ffffffff 0 BRA 0 0\n0010 ffffffff 1 R1 IADD 1 R1 0\n\
                    0018 ffffffff 0 BRA 0 0\n0028 ffffffff 0 BRA 0 0\n0048 ffffffff 0 EXIT 0 0";
        std::fs::write(
            &p,
            format!(
                "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n\
                 -shmem = 0\n-nregs = 8\n-binary version = 61\n-accelsim tracer version = 4\n\
                 #BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 7\n{body}\n#END_TB\n"
            ),
        )
        .unwrap();
        let mut k = KernelTrace::open(&p).unwrap();
        let mut code = StaticCode::new(61);
        code.observe(&k.next_block().unwrap().unwrap());
        // 0x18 falls through to 0x28 once (0x20 is a control word) and jumps back to 0x10 once;
        // 0x28 jumps forward to 0x48.
        assert_eq!(code.insts[&0x18].taken_targets, BTreeSet::from([0x10]));
        assert_eq!(code.insts[&0x28].taken_targets, BTreeSet::from([0x48]));
        assert_eq!(code.insts[&0x10].executions, 2);
        // Registers are recorded per PC: `IADD R1, R1`.
        assert_eq!(
            (&code.insts[&0x10].dsts[..], &code.insts[&0x10].srcs[..]),
            (&[1][..], &[1][..])
        );
        assert!(code.insts[&0x18].dsts.is_empty() && code.insts[&0x18].srcs.is_empty());
        assert_eq!(code.back_edges(), vec![(0x18, 0x10)]);
    }

    #[test]
    fn vectoradd_runs_straight_through_or_skips_forward() {
        let Some((code, table)) = load("vectoradd-100-32") else {
            return;
        };
        assert!(
            table.unknown().is_empty(),
            "unclassified: {:?}",
            table.unknown()
        );
        assert!(code.back_edges().is_empty(), "vectoradd has no loop");
        assert_eq!(code.insts.values().map(|i| i.executions).sum::<u64>(), 344);
    }
}
