//! ELF in the SM (spec §1.5-§1.9): the SM's side of the `elf` block's ports. At kernel start
//! the compiled program-point table is written through the table port (one slot per cycle,
//! before any warp launches); every cycle the block gets the launch/exit masks, every
//! scheduler's ready mask, the WPT update for each grant of the previous cycle (recalculate on
//! a program-point-class load or on a branch whose direction equals its recalculation bit,
//! else decrement; spec §1.7; the block's selects see it in the same cycle), the
//! fetch-eligible warps and those a grant makes eligible (the granted instruction is the last
//! in the i-buffer); it returns every grant and the warp to fetch for.

use super::{Sm, MAX_SCHEDULERS};
use crate::analysis::elf::{code_of, compile, Kind, Params as CompilerParams, RecalcPolicy};
use crate::blocks::elf as elf_block;
use crate::blocks::elf::Kind as ElfKind;
use crate::blocks::elf::{table_writes, ElfIn, ElfOut, PpEntry};
use crate::gpu::sites::Slot;
use crate::gpu::SimError;
use crate::workload::kernel::WarpInst;
use crate::workload::sass::OpClass;
use crate::workload::static_code::KernelCode;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

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

/// The SM's state around its ELF block.
pub struct ElfUnit<'a> {
    block: Slot<'a, ElfKind>,
    /// Table writes still to make (the first clears the old table).
    writes: VecDeque<ElfIn>,
    /// The block's table is not empty.
    table_loaded: bool,
    program: Arc<ElfProgram>,
    /// Per scheduler: the update for last cycle's grant (recalculate, next PC).
    upd: [Option<(bool, u32)>; elf_block::MAX_SCHEDULERS],
    /// Start PC of the warps launched this cycle (their bits are the SM's per-scheduler
    /// launch masks, as for the arbiters).
    launch_pc: u32,
    /// ELF orders fetch (else round robin).
    fetch: bool,
    /// This cycle's fetch choice (set by the block step, taken by the fetch stage).
    fetch_choice: Option<Option<usize>>,
}

impl<'a> ElfUnit<'a> {
    /// The unit around `block`; `fetch`: ELF-ordered fetch.
    pub fn new(block: Slot<'a, ElfKind>, fetch: bool) -> Self {
        Self {
            block,
            writes: VecDeque::new(),
            table_loaded: false,
            program: Arc::new(ElfProgram::default()),
            upd: [None; elf_block::MAX_SCHEDULERS],
            launch_pc: 0,
            fetch,
            fetch_choice: None,
        }
    }

    /// Queues the table writes of `program` (clearing the old table if one is loaded).
    pub fn load(&mut self, program: Arc<ElfProgram>) {
        self.writes = table_writes(&program.table, self.table_loaded).into();
        self.table_loaded = !program.table.is_empty();
        self.program = program;
    }

    /// The table is written: warps may launch.
    pub fn loaded(&self) -> bool {
        self.writes.is_empty()
    }

    /// Warps launching this cycle start at `pc`.
    pub fn set_launch_pc(&mut self, pc: u32) {
        self.launch_pc = pc;
    }

    /// The fetch stage's choice: `None` when fetch is round robin, else the block's warp.
    pub fn take_fetch(&mut self) -> Option<Option<usize>> {
        self.fetch_choice.take()
    }
}

impl Sm<'_> {
    /// Steps the ELF block with every scheduler's ready mask and units (`free`: SP, SFU, LSU
    /// slots), `issue_lead` (the scheduler that issues first) and `fetch_lead` (the one that
    /// leads the fetch interleave); returns every scheduler's grant (local ids).
    pub(super) fn step_elf(
        &mut self,
        ready: &[u64],
        unit: &[u64],
        free: [u8; 3],
        issue_lead: usize,
        fetch_lead: usize,
    ) -> Result<[Option<usize>; MAX_SCHEDULERS], SimError> {
        let n = self.schedulers;
        // The per-scheduler launch/exit masks (local bit `l` of scheduler `s`: warp
        // `n l + s`) as the block's masks over all warps.
        let spread = |m: &mut [u64]| -> u64 {
            let mut g = 0;
            for (s, m) in m.iter_mut().enumerate() {
                let mut local = std::mem::take(m);
                while local != 0 {
                    let l = local.trailing_zeros() as usize;
                    local &= local - 1;
                    g |= 1 << (n * l + s);
                }
            }
            g
        };
        let (launch, exit) = (spread(&mut self.launch), spread(&mut self.exit));
        let fetchable = self.fetchable;
        let on_grant = self.fetch_on_grant(&ready[..n]);
        let e = self.elf.as_mut().expect("ELF present");
        let mut inp = e.writes.pop_front().unwrap_or_default();
        inp.launch = launch;
        inp.launch_pc = e.launch_pc;
        inp.exit = exit;
        inp.ready[..n].copy_from_slice(&ready[..n]);
        inp.unit[..n].copy_from_slice(&unit[..n]);
        inp.free = free;
        inp.issue_lead = issue_lead as u8;
        for s in 0..n {
            if let Some((trig, pc)) = e.upd[s].take() {
                (inp.upd_valid[s], inp.upd_trig[s], inp.upd_pc[s]) = (true, trig, pc);
            }
        }
        (inp.fetch_elig, inp.fetch_on_grant) = if e.fetch {
            (fetchable, on_grant)
        } else {
            (0, 0)
        };
        inp.fetch_lead = fetch_lead as u8;
        inp.merge_ge = e.program.merge_ge;
        let out: ElfOut = e.block.step(&inp)?;
        if e.fetch {
            e.fetch_choice = Some(out.fetch_valid.then_some(out.fetch_warp as usize));
        }
        let mut grants = [None; MAX_SCHEDULERS];
        for (s, g) in grants.iter_mut().enumerate().take(n) {
            *g = out.grant_valid[s].then_some(out.grant_warp[s] as usize);
        }
        Ok(grants)
    }

    /// Of the `ready` warps (per scheduler, local ids), those that become fetch-eligible when
    /// they issue now: the head of their i-buffer is its last decoded instruction and more are
    /// to be fetched (what [`Sm::update_fetchable`] says after the issue). Only ready warps can
    /// be granted, so only they are looked at.
    fn fetch_on_grant(&self, ready: &[u64]) -> u64 {
        let n = self.schedulers;
        let mut m = 0u64;
        for (s, &r) in ready.iter().enumerate() {
            let mut local = r;
            while local != 0 {
                let w = s + n * local.trailing_zeros() as usize;
                local &= local - 1;
                let warp = &self.warps[w];
                if warp.live
                    && !warp.imiss
                    && !warp.exit_issued
                    && warp.next_issue + 1 == warp.next_fetch
                    && warp.next_fetch < warp.len
                {
                    m |= 1 << w;
                }
            }
        }
        m
    }

    /// Warp `w` of scheduler `s` just issued: its WPT update goes to the block next cycle.
    pub(super) fn elf_issued(&mut self, s: usize, w: usize) {
        let Some(e) = &mut self.elf else { return };
        let warp = &self.warps[w];
        let block = &self.tbs[warp.tb].insts;
        let inst = block.inst(warp.index, warp.next_issue - 1);
        let next_pc = block
            .get(warp.index, warp.next_issue)
            .map_or(inst.pc + 8, |i| i.pc);
        e.upd[s] = Some((e.program.triggers(&inst, next_pc), next_pc));
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
