//! A kernel's ELF compilation as the SM uses it (spec §1.5-§1.7): the program-point table to
//! load into the block and, per branch, its taken target and recalculation bit; which issued
//! instructions recalculate their warp's priority.

use crate::analysis::elf::{code_of, compile, Kind, Params as CompilerParams, RecalcPolicy};
use crate::blocks::elf::PpEntry;
use crate::workload::kernel::WarpInst;
use crate::workload::sass::OpClass;
use crate::workload::static_code::KernelCode;
use std::collections::HashMap;

/// What the SM needs of a kernel's ELF compilation: the table to load and, per branch PC, its
/// taken target and recalculation bit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElfProgram {
    /// Program-point table rows, PC-sorted from slot 0.
    pub table: Vec<PpEntry>,
    /// Branch PC -> (taken target PC, recalculate when taken (true) / not taken (false)).
    pub branches: HashMap<u32, (u32, bool)>,
    /// Every branch recalculates, whatever its direction ([`RecalcPolicy::Always`]).
    pub every_branch: bool,
    /// Program points before merging (Algorithm 1), for reports.
    pub points_found: usize,
    /// The calculator's merged-load boundary: `d >= score` (spec A-6) instead of the thesis's
    /// `d > score`; driven on the block's `merge_ge` input.
    pub merge_ge: bool,
}

impl ElfProgram {
    /// Compiles `kernel`'s code (Algorithms 1 and 2, recalculation bits by `recalc`) for a
    /// table of `slots` slots, to be read with the merged-load boundary `merge_ge`.
    pub fn compile(
        kernel: &KernelCode,
        slots: usize,
        recalc: RecalcPolicy,
        merge_ge: bool,
    ) -> Self {
        let code = &code_of(kernel);
        let params = CompilerParams {
            max_pp: slots,
            recalc,
            ..CompilerParams::default()
        };
        let c = compile(code, &params);
        // Every merge removes one program point.
        let points_found = c.table.len() + c.merges;
        let branches = code
            .iter()
            .filter_map(|i| match i.kind {
                Kind::Branch { target, .. } => Some((
                    i.pc as u32,
                    (
                        code[target].pc as u32,
                        c.recalc.get(&i.pc).copied().unwrap_or(true),
                    ),
                )),
                _ => None,
            })
            .collect();
        Self {
            table: c
                .table
                .iter()
                .map(|q| PpEntry {
                    valid: true,
                    branch: q.branch,
                    pc: q.pc as u32,
                    score: q.score.min(255) as u8,
                })
                .collect(),
            branches,
            every_branch: recalc == RecalcPolicy::Always,
            points_found,
            merge_ge,
        }
    }

    /// Whether issuing `inst`, after which its warp continues at `next_pc`, recalculates the
    /// warp's priority (spec §1.7): global and local loads always (merged-away ones too, A-9),
    /// branches when their direction (taken: `next_pc` is the target) equals their bit (every
    /// branch with [`RecalcPolicy::Always`]).
    pub fn triggers(&self, inst: &WarpInst, next_pc: u32) -> bool {
        match inst.class {
            OpClass::LoadGlobal | OpClass::LoadLocal => true,
            OpClass::Branch if self.every_branch => true,
            OpClass::Branch => self
                .branches
                .get(&inst.pc)
                .is_some_and(|&(target, bit)| (next_pc == target) == bit),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::static_code::CodeOp;

    fn inst(pc: u32, class: OpClass) -> WarpInst {
        WarpInst {
            pc,
            mask: u32::MAX,
            class,
            cache: crate::workload::cache_op::CacheOp::Default,
            width: 0,
            ndst: 0,
            nsrc: 0,
            reg_start: 0,
            addr_start: 0,
            strided: false,
        }
    }

    #[test]
    fn loads_and_branches_in_their_recalculation_direction_trigger() {
        // 0: other, 8: load, 16: other, 24: loop back to 0 (a program point: bit 0, recalculate
        // when the loop exits).
        let insts = [
            (OpClass::IntAlu, None),
            (OpClass::LoadGlobal, None),
            (OpClass::IntAlu, None),
            (OpClass::Branch, Some(0)),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (class, target))| CodeOp {
            pc: 8 * i as u64,
            class,
            target,
            addr: None,
            dsts: vec![],
            srcs: vec![],
            addr_srcs: 0,
        })
        .collect();
        let code = KernelCode { insts };
        let p = ElfProgram::compile(&code, 32, RecalcPolicy::Consistent, false);
        assert_eq!(p.table.len(), 2);
        assert_eq!(p.branches[&24], (0, false));
        assert!(p.triggers(&inst(8, OpClass::LoadGlobal), 16));
        assert!(p.triggers(&inst(8, OpClass::LoadLocal), 16));
        assert!(!p.triggers(&inst(16, OpClass::IntAlu), 24));
        assert!(!p.triggers(&inst(24, OpClass::Branch), 0), "taken: no");
        assert!(
            p.triggers(&inst(24, OpClass::Branch), 32),
            "not taken: recalculate"
        );
        // The thesis's rule: the taken path is the shorter, so the bit is 1.
        let lit = ElfProgram::compile(&code, 32, RecalcPolicy::Literal, false);
        assert_eq!(lit.branches[&24], (0, true));
        assert!(
            lit.triggers(&inst(24, OpClass::Branch), 0),
            "taken: recalculate"
        );
        assert!(
            !lit.triggers(&inst(24, OpClass::Branch), 32),
            "not taken: no"
        );
        let always = ElfProgram::compile(&code, 32, RecalcPolicy::Always, false);
        assert!(always.triggers(&inst(24, OpClass::Branch), 0));
        assert!(always.triggers(&inst(24, OpClass::Branch), 32));
        assert!(
            always.triggers(&inst(40, OpClass::Branch), 0),
            "every branch"
        );
        assert!(
            !lit.triggers(&inst(40, OpClass::Branch), 0),
            "unknown branch"
        );
    }
}
