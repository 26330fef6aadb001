//! The `elf` block at an SM's warp-issue site (spec §1.5-§1.9): the SM's side of its ports.
//! When a kernel is offered to an empty SM, the kernel's compiled program-point table is
//! written through the table port (one slot per cycle, no block launches meanwhile); every
//! cycle the block gets the launch/exit masks, every scheduler's ready mask, the WPT update for
//! each grant of the previous cycle (recalculate on a program-point-class load or on a branch
//! whose direction equals its recalculation bit, else decrement; spec §1.7; the block's
//! selects see it in the same cycle), the fetch-eligible warps and those a grant makes
//! eligible; it returns every grant and the warp to fetch for.

use super::program::ElfProgram;
use crate::blocks::elf::{self as elf_block, table_writes, ElfIn, ElfOut};
use crate::gpu::kernel::KernelCtx;
use crate::gpu::sites::issue::{IssueMode, IssueUnit, LaunchedWarp, SmIn, SmOut};
use crate::gpu::sites::Slot;
use crate::gpu::SimError;
use crate::workload::kernel::WarpInst;
use std::collections::VecDeque;
use std::sync::Arc;

/// The SM's state around its ELF block.
pub(super) struct ElfUnit<'a> {
    block: Slot<'a, elf_block::Kind>,
    /// Table writes still to make (the first clears the old table).
    writes: VecDeque<ElfIn>,
    /// The block's table is not empty.
    table_loaded: bool,
    /// The program in (or being written into) the table.
    program: Arc<ElfProgram>,
    /// Per scheduler: the update for last cycle's grant (recalculate, next PC).
    upd: [Option<(bool, u32)>; elf_block::MAX_SCHEDULERS],
    /// Start PC of the warps launched this cycle (their bits are the SM's launch mask).
    launch_pc: u32,
    /// ELF orders fetch (else round robin).
    fetch: bool,
}

impl<'a> ElfUnit<'a> {
    /// The unit around `block`; `fetch`: ELF-ordered fetch.
    pub(super) fn new(block: Slot<'a, elf_block::Kind>, fetch: bool) -> Self {
        Self {
            block,
            writes: VecDeque::new(),
            table_loaded: false,
            program: Arc::new(ElfProgram::default()),
            upd: [None; elf_block::MAX_SCHEDULERS],
            launch_pc: 0,
            fetch,
        }
    }

    /// Queues the table writes of `program` (clearing the old table if one is loaded).
    fn load(&mut self, program: Arc<ElfProgram>) {
        self.writes = table_writes(&program.table, self.table_loaded).into();
        self.table_loaded = !program.table.is_empty();
        self.program = program;
    }
}

impl<'a> IssueUnit<'a> for ElfUnit<'a> {
    fn mode(&self) -> IssueMode {
        IssueMode::SmWide
    }

    fn what(&self) -> &'static str {
        "ELF block"
    }

    fn needs_prepare(&self) -> bool {
        true
    }

    fn prepare(&mut self, kernel: &KernelCtx, empty: bool) -> bool {
        let program = kernel
            .prepared
            .get::<ElfProgram>()
            .expect("the ELF policy prepares every kernel");
        if !Arc::ptr_eq(&program, &self.program) {
            if !empty {
                return false;
            }
            self.load(program);
        }
        self.writes.is_empty()
    }

    fn launched(&mut self, w: &LaunchedWarp) {
        self.launch_pc = w.pc;
    }

    fn select_all(&mut self, inp: &SmIn) -> Result<SmOut, SimError> {
        let n = inp.schedulers;
        let mut b = self.writes.pop_front().unwrap_or_default();
        b.launch = inp.launch;
        b.launch_pc = self.launch_pc;
        b.exit = inp.exit;
        b.ready[..n].copy_from_slice(&inp.ready[..n]);
        b.unit[..n].copy_from_slice(&inp.unit[..n]);
        b.free = inp.free;
        b.issue_lead = inp.issue_lead as u8;
        for s in 0..n {
            if let Some((trig, pc)) = self.upd[s].take() {
                (b.upd_valid[s], b.upd_trig[s], b.upd_pc[s]) = (true, trig, pc);
            }
        }
        (b.fetch_elig, b.fetch_on_grant) = (inp.fetch_elig, inp.fetch_on_grant);
        b.fetch_lead = inp.fetch_lead as u8;
        b.merge_ge = self.program.merge_ge;
        let out: ElfOut = self.block.step(&b)?;
        let mut r = SmOut {
            fetch: out.fetch_valid.then_some(out.fetch_warp as usize),
            ..Default::default()
        };
        for (s, g) in r.grants.iter_mut().enumerate().take(n) {
            *g = out.grant_valid[s].then_some(out.grant_warp[s] as usize);
        }
        Ok(r)
    }

    fn issued(&mut self, s: usize, inst: &WarpInst, next_pc: u32) {
        self.upd[s] = Some((self.program.triggers(inst, next_pc), next_pc));
    }

    fn orders_fetch(&self) -> bool {
        self.fetch
    }
}
