//! Chimera's cost estimator as a kernel scheduler keeps it (spec §1.2-§1.6): per kernel slot
//! the SM-cycles with a block of it resident (its IPC on one SM is its instructions over
//! them), its statistics as the selector reads them, its blocks' counters, and an SM's plan
//! computed at once from the block views (the thesis's OS software). Chimera's own unit and
//! GPU Maestro's preemption (spec §6 M-R1) both use it.

use super::unit::Idempotence;
use crate::blocks::chimera_tb::cost::{sat, Derived, KernelStats, TbCounters};
use crate::blocks::chimera_tb::select::{plan_sm, Rules, SmPlan};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{BlockView, KernelSchedIn, Technique};

/// Widest `SW_CYC_TB` (24 bits, spec §1.2).
const SW_CYC_MAX: u64 = (1 << 24) - 1;

/// An SM's plan and, per block planned, its block id and technique.
pub type Offer = (SmPlan, Vec<(usize, Technique)>);

/// The estimator.
#[derive(Clone, Debug)]
pub struct Estimator {
    /// The selector's mode, limit and drain overhead.
    pub rules: Rules,
    idempotence: Idempotence,
    /// One SM's share of the DRAM bandwidth, bytes per core cycle, Q16.16.
    bw_q: u64,
    /// Per slot: the launch it counts for, and its SM-cycles with a block resident.
    sm_cycles: Vec<(usize, u64)>,
}

impl Estimator {
    /// For `slots` kernel slots on `cfg`'s GPU.
    pub fn new(cfg: &GpuConfig, slots: usize, rules: Rules, idempotence: Idempotence) -> Self {
        let n = cfg.sm.count as f64;
        let per_sm = cfg.dram.peak_gbps * 1e3 / cfg.sm.core_clock_mhz / n;
        Self {
            rules,
            idempotence,
            bw_q: ((per_sm * 65536.0) as u64).max(1),
            sm_cycles: vec![(usize::MAX, 0); slots],
        }
    }

    /// Cycles to save `context_bytes` at one SM's bandwidth share (24 bits, saturating).
    pub fn sw_cyc(&self, context_bytes: u64) -> u32 {
        ((context_bytes << 16).div_ceil(self.bw_q)).min(SW_CYC_MAX) as u32
    }

    /// Once a cycle: every slot with a block resident on an SM gains one SM-cycle per such SM
    /// (a new launch in a slot starts from zero).
    pub fn count_sm_cycles(&mut self, inp: &KernelSchedIn) {
        for (k, acc) in self.sm_cycles.iter_mut().enumerate() {
            match inp.kernels[k] {
                Some(v) if v.launch != acc.0 => *acc = (v.launch, 0),
                _ => {}
            }
        }
        for view in inp.sms {
            for (k, &b) in view.blocks.iter().enumerate() {
                if b > 0 {
                    self.sm_cycles[k].1 += 1;
                }
            }
        }
    }

    /// What the selector knows of slot `k`'s kernel.
    pub fn stats(&self, inp: &KernelSchedIn, k: usize) -> KernelStats {
        let v = inp.kernels[k].expect("a held kernel");
        let resident: u64 = inp
            .blocks
            .iter()
            .flatten()
            .filter(|b| b.slot == k)
            .map(|b| b.issued)
            .sum();
        KernelStats {
            done_tbs: v.done,
            done_instr: v.done_issued,
            done_cycles: v.done_cycles,
            instrs: v.done_issued + resident,
            sm_cycles: self.sm_cycles[k].1,
            sw_cyc_tb: self.sw_cyc(v.context_bytes),
        }
    }

    /// Slot `victim`'s blocks on SM `sm` that `pick` accepts, as the selector reads them.
    pub(super) fn counters(
        &self,
        inp: &KernelSchedIn,
        sm: usize,
        victim: usize,
        pick: impl Fn(&BlockView) -> bool,
    ) -> Vec<(BlockView, TbCounters)> {
        let on = &inp.blocks[sm];
        let sm_clean = on.iter().all(|b| !b.non_idempotent);
        let kernel_clean = inp.kernels[victim].is_some_and(|v| v.idempotent);
        on.iter()
            .filter(|b| b.slot == victim && pick(b))
            .map(|&b| {
                let flushable = match self.idempotence {
                    Idempotence::Block => !b.non_idempotent,
                    Idempotence::Sm => sm_clean,
                    Idempotence::Kernel => kernel_clean,
                };
                let issued = sat(b.issued);
                (b, TbCounters { issued, flushable })
            })
            .collect()
    }

    /// SM `sm`'s plan for those of slot `victim`'s blocks that `pick` accepts, computed at
    /// once from the views, for a kernel of statistics `k`.
    pub fn plan(
        &self,
        inp: &KernelSchedIn,
        (sm, victim): (usize, usize),
        k: &Derived,
        pick: impl Fn(&BlockView) -> bool,
    ) -> Offer {
        let b = self.counters(inp, sm, victim, pick);
        let tbs: Vec<TbCounters> = b.iter().map(|x| x.1).collect();
        let plan = plan_sm(sm, k, &tbs, self.rules);
        let blocks = plan
            .choices
            .iter()
            .zip(&b)
            .map(|(c, (view, _))| (view.tb, c.technique))
            .collect();
        (plan, blocks)
    }
}
