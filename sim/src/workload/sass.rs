//! SASS opcodes: the unit/latency class of each, and the instruction layout per architecture.
//!
//! Classes follow Accel-Sim's per-architecture opcode tables in spirit (which pipeline executes
//! the instruction, whether it touches memory and which space). Opcodes are matched on their
//! base name, the text before the first `.` (`LDG.E.CG` is `LDG`). An unknown opcode is
//! classified as [`OpClass::IntAlu`] and reported once per [`OpcodeTable`].

use super::cache_op::{self, CacheOp};
use serde::Serialize;

/// What executes an instruction and how it interacts with memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    /// Integer add, logic, shift, move, compare, special-register read (SP pipeline).
    IntAlu,
    /// Integer multiply and multiply-add (`IMAD`, `XMAD`...).
    IntMul,
    /// Single-precision floating point and conversions.
    Fp,
    /// Double-precision floating point.
    Dp,
    /// Special functions (`MUFU`).
    Sfu,
    /// Load from global memory (also generic `LD` and texture fetches).
    LoadGlobal,
    /// Store to global memory (also generic `ST`).
    StoreGlobal,
    /// Load from shared memory.
    LoadShared,
    /// Store to shared memory.
    StoreShared,
    /// Load from local memory.
    LoadLocal,
    /// Store to local memory.
    StoreLocal,
    /// Load from constant memory (`LDC`).
    LoadConst,
    /// Atomic or reduction on global memory.
    AtomicGlobal,
    /// Atomic on shared memory.
    AtomicShared,
    /// Branch or reconvergence-stack operation.
    Branch,
    /// Thread-block barrier (`BAR`).
    Barrier,
    /// Memory fence (`MEMBAR`).
    MemBarrier,
    /// Warp exit.
    Exit,
    /// No operation (`NOP`, dependency-barrier waits).
    Nop,
}

impl OpClass {
    /// Every class, in declaration order (`ALL[c as usize] == c`).
    pub const ALL: [OpClass; 19] = [
        OpClass::IntAlu,
        OpClass::IntMul,
        OpClass::Fp,
        OpClass::Dp,
        OpClass::Sfu,
        OpClass::LoadGlobal,
        OpClass::StoreGlobal,
        OpClass::LoadShared,
        OpClass::StoreShared,
        OpClass::LoadLocal,
        OpClass::StoreLocal,
        OpClass::LoadConst,
        OpClass::AtomicGlobal,
        OpClass::AtomicShared,
        OpClass::Branch,
        OpClass::Barrier,
        OpClass::MemBarrier,
        OpClass::Exit,
        OpClass::Nop,
    ];

    /// Whether the instruction goes to the load/store unit.
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            OpClass::LoadGlobal
                | OpClass::StoreGlobal
                | OpClass::LoadShared
                | OpClass::StoreShared
                | OpClass::LoadLocal
                | OpClass::StoreLocal
                | OpClass::LoadConst
                | OpClass::AtomicGlobal
                | OpClass::AtomicShared
        )
    }

    /// Whether the instruction may change the warp's control flow.
    pub fn is_control(self) -> bool {
        matches!(self, OpClass::Branch | OpClass::Exit)
    }
}

/// The class of `opcode` (full name as in a trace), or `None` if the base name is unknown.
pub fn classify(opcode: &str) -> Option<OpClass> {
    use OpClass::*;
    let base = opcode.split('.').next().unwrap_or(opcode);
    Some(match base {
        "MOV" | "MOV32I" | "IADD" | "IADD3" | "IADD32I" | "ISCADD" | "ISCADD32I" | "SHL"
        | "SHR" | "SHF" | "LOP" | "LOP3" | "LOP32I" | "ISETP" | "ISET" | "ICMP" | "IMNMX"
        | "SEL" | "S2R" | "CS2R" | "S2UR" | "P2R" | "R2P" | "PRMT" | "BFE" | "BFI" | "FLO"
        | "POPC" | "LEA" | "VOTE" | "VOTEU" | "CSET" | "CSETP" | "PSET" | "PSETP" | "PLOP3"
        | "SHFL" | "IABS" | "BREV" | "UMOV" | "UIADD3" | "ULDC" | "ULOP3" | "USHF" | "USEL"
        | "UISETP" | "R2UR" | "MATCH" | "REDUX" | "VABSDIFF" | "VABSDIFF4" | "IDP" | "ISAD" => {
            IntAlu
        }
        "IMAD" | "IMADSP" | "IMUL" | "IMAD32I" | "IMUL32I" | "XMAD" | "IMADX" | "UIMAD" => IntMul,
        "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I" | "FSETP" | "FSET"
        | "FMNMX" | "FCMP" | "FSWZADD" | "FSEL" | "HADD2" | "HMUL2" | "HFMA2" | "HSETP2"
        | "HSET2" | "HMNMX2" | "F2F" | "F2I" | "I2F" | "I2I" | "FCHK" | "RRO" | "FRND" | "F2FP"
        | "HMMA" | "IMMA" => Fp,
        "DADD" | "DMUL" | "DFMA" | "DSETP" | "DSET" | "DMNMX" => Dp,
        "MUFU" => Sfu,
        "LDG" | "LD" | "TEX" | "TLD" | "TLD4" | "TXQ" | "TEXS" | "TLDS" | "TLD4S" | "LDGSTS" => {
            LoadGlobal
        }
        "STG" | "ST" => StoreGlobal,
        "LDS" | "LDSM" => LoadShared,
        "STS" => StoreShared,
        "LDL" => LoadLocal,
        "STL" => StoreLocal,
        "LDC" => LoadConst,
        "ATOM" | "ATOMG" | "RED" => AtomicGlobal,
        "ATOMS" => AtomicShared,
        "BRA" | "BRX" | "JMP" | "JMX" | "SSY" | "SYNC" | "BSSY" | "BSYNC" | "PBK" | "BRK"
        | "PCNT" | "CONT" | "CAL" | "CALL" | "RET" | "WARPSYNC" | "BMOV" | "PRET" | "PEXIT"
        | "YIELD" => Branch,
        "BAR" => Barrier,
        "MEMBAR" | "CCTL" | "CCTLL" | "ERRBAR" | "FENCE" => MemBarrier,
        "EXIT" | "KILL" => Exit,
        "NOP" | "DEPBAR" => Nop,
        _ => return None,
    })
}

/// What the model needs of an opcode: its class and, for loads and stores, its L1D cache
/// operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpKind {
    /// Unit/latency class.
    pub class: OpClass,
    /// L1D cache operator (the default for everything but loads and stores that carry one).
    pub cache: CacheOp,
}

impl From<OpClass> for OpKind {
    /// The class with the default cache operator.
    fn from(class: OpClass) -> Self {
        Self {
            class,
            cache: CacheOp::Default,
        }
    }
}

/// Classes and cache operators of the opcodes of one trace, indexed by the reader's opcode id,
/// the opcodes that were not recognized and the loads' and stores' modifiers that were not
/// (each listed once).
#[derive(Clone, Debug, Default)]
pub struct OpcodeTable {
    kinds: Vec<OpKind>,
    unknown: Vec<String>,
    unknown_modifiers: Vec<String>,
}

impl OpcodeTable {
    /// Classifies every opcode of `names` not yet classified (call after reading more blocks).
    pub fn update(&mut self, names: &[String]) {
        for name in &names[self.kinds.len()..] {
            let class = classify(name).unwrap_or_else(|| {
                self.unknown.push(name.clone());
                OpClass::IntAlu
            });
            let (cache, unknown) = cache_op::of_opcode(name);
            if let Some(m) = unknown {
                self.unknown_modifiers.push(format!(
                    "`{name}`: modifier `{m}` is unknown; it runs with the default cache operator"
                ));
            }
            self.kinds.push(OpKind { class, cache });
        }
    }

    /// Class of opcode `id`.
    pub fn class(&self, id: u16) -> OpClass {
        self.kinds[id as usize].class
    }

    /// Class and cache operator of opcode `id`.
    pub fn kind(&self, id: u16) -> OpKind {
        self.kinds[id as usize]
    }

    /// One note per load or store opcode with a modifier [`cache_op::of_opcode`] does not
    /// know, in order of first appearance.
    pub fn unknown_modifiers(&self) -> &[String] {
        &self.unknown_modifiers
    }

    /// Opcodes not in the table (classified as integer ALU), in order of first appearance.
    pub fn unknown(&self) -> &[String] {
        &self.unknown
    }
}

/// The PC of the instruction that follows `pc` in memory for SASS binary version
/// `binary_version` (e.g. 61 for Pascal): 16-byte instructions from Volta (70) on; 8-byte
/// instructions before, with a scheduling-control word in every 32-byte group on Maxwell and
/// Pascal (50..70) and in every 64-byte group on Kepler (30..50), which are skipped.
pub fn next_pc(pc: u64, binary_version: u32) -> u64 {
    match binary_version {
        70.. => pc + 16,
        50..=69 => {
            let n = pc + 8;
            if n.is_multiple_of(32) {
                n + 8
            } else {
                n
            }
        }
        30..=49 => {
            let n = pc + 8;
            if n.is_multiple_of(64) {
                n + 8
            } else {
                n
            }
        }
        _ => pc + 8,
    }
}

/// Instructions between two control words, and the bytes of such a group, for SASS binary
/// version `binary_version` (as [`next_pc`] lays code out); `None`: no control words.
fn control_group(binary_version: u32) -> Option<(u64, u64)> {
    match binary_version {
        70.. => None,
        50..=69 => Some((3, 32)),
        30..=49 => Some((7, 64)),
        _ => None,
    }
}

/// Bytes of one instruction for SASS binary version `binary_version`.
fn inst_bytes(binary_version: u32) -> u64 {
    if binary_version >= 70 {
        16
    } else {
        8
    }
}

/// The PC of instruction `slot` (0-based, in code order) for SASS binary version
/// `binary_version`: `pc_of_slot(k + 1, v) == next_pc(pc_of_slot(k, v), v)`.
pub fn pc_of_slot(slot: u64, binary_version: u32) -> u64 {
    match control_group(binary_version) {
        Some((n, group)) => slot / n * group + (slot % n + 1) * 8,
        None => slot * inst_bytes(binary_version),
    }
}

/// The instruction slot at `pc` for SASS binary version `binary_version`; `None` when `pc`
/// is not an instruction's (a control word's, or misaligned).
pub fn slot_of_pc(pc: u64, binary_version: u32) -> Option<u64> {
    let bytes = inst_bytes(binary_version);
    if !pc.is_multiple_of(bytes) {
        return None;
    }
    match control_group(binary_version) {
        Some((n, group)) => {
            let k = pc % group / 8;
            (k > 0).then(|| pc / group * n + k - 1)
        }
        None => Some(pc / bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_slots_follow_each_layout() {
        for v in [20, 35, 61, 70, 86] {
            for k in 0..500u64 {
                let pc = pc_of_slot(k, v);
                assert_eq!(pc_of_slot(k + 1, v), next_pc(pc, v), "version {v} slot {k}");
                assert_eq!(slot_of_pc(pc, v), Some(k), "version {v} pc {pc:#x}");
            }
        }
        // Pascal: the control word of each 32-byte group is no instruction.
        assert_eq!((pc_of_slot(0, 61), pc_of_slot(3, 61)), (0x08, 0x28));
        assert_eq!((slot_of_pc(0x20, 61), slot_of_pc(0x0c, 61)), (None, None));
    }

    #[test]
    fn opcodes_classify_on_their_base_name() {
        assert_eq!(classify("LDG.E.CG"), Some(OpClass::LoadGlobal));
        assert_eq!(classify("LDS.U.128"), Some(OpClass::LoadShared));
        assert_eq!(classify("XMAD.PSL.CBCC"), Some(OpClass::IntMul));
        assert_eq!(classify("BAR.SYNC"), Some(OpClass::Barrier));
        assert_eq!(classify("MUFU.RCP"), Some(OpClass::Sfu));
        assert_eq!(classify("EXIT"), Some(OpClass::Exit));
        assert_eq!(classify("FROBNICATE.X"), None);
        assert!(OpClass::AtomicGlobal.is_memory() && !OpClass::Fp.is_memory());
        assert!(OpClass::Branch.is_control() && !OpClass::Barrier.is_control());
    }

    #[test]
    fn unknown_opcodes_are_listed_once_and_run_as_alu() {
        let mut t = OpcodeTable::default();
        let mut names = vec!["FFMA".to_string(), "WHAT.X".to_string()];
        t.update(&names);
        names.push("LDG.E".into());
        t.update(&names);
        t.update(&names);
        assert_eq!(t.unknown(), ["WHAT.X".to_string()]);
        assert_eq!(
            (t.class(0), t.class(1), t.class(2)),
            (OpClass::Fp, OpClass::IntAlu, OpClass::LoadGlobal)
        );
    }

    #[test]
    fn sequential_pcs_skip_control_words() {
        assert_eq!(next_pc(0x08, 61), 0x10);
        assert_eq!(next_pc(0x18, 61), 0x28, "0x20 is a control word on Pascal");
        assert_eq!(next_pc(0x30, 35), 0x38);
        assert_eq!(next_pc(0x38, 35), 0x48, "0x40 is a control word on Kepler");
        assert_eq!(next_pc(0x10, 70), 0x20);
        assert_eq!(next_pc(0x18, 20), 0x20);
    }

    #[test]
    fn all_lists_every_class_once() {
        use OpClass::*;
        // A new class breaks this match until it is listed here and in `ALL`.
        let listed = |c: OpClass| match c {
            IntAlu | IntMul | Fp | Dp | Sfu | LoadGlobal | StoreGlobal | LoadShared
            | StoreShared | LoadLocal | StoreLocal | LoadConst | AtomicGlobal | AtomicShared
            | Branch | Barrier | MemBarrier | Exit | Nop => true,
        };
        assert!(OpClass::ALL.iter().all(|&c| listed(c)));
        // In declaration order: a class's discriminant is its index (synthetic kernels' opcode
        // keys, `MemAccess::key`, rely on it).
        for (i, &c) in OpClass::ALL.iter().enumerate() {
            assert_eq!(c as usize, i, "{c:?}");
        }
    }
}
