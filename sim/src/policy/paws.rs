//! PAWS, Phase-Aware Warp Scheduling (seed 002; spec `locality_bypass_paws.md` §3), single
//! level (`--warp-sched paws`): before a kernel's first block its code is split into phases
//! and every instruction gets its phase distance ([`crate::analysis::paws`]); a `paws` block
//! per scheduler holds them in its table and issues, of the scheduler's ready warps, the one
//! whose next instruction has the shortest distance, ties to the oldest (P-PS1).
//!
//! The SM's side of the block's ports: when a kernel is offered to an empty SM, its distances
//! are written into every scheduler's table, one entry per cycle, and no block launches until
//! they are in (as ELF's table is loaded); in the cycle after each issue the block gets the
//! issued warp's next PC as a table entry (`(pc - first PC) >> shift`, the shift the code's
//! smallest PC step; a PC outside the code is `upd_far`). The block's timing (its table is
//! block RAM) puts an issue's new distance into the selects two cycles after the issue.

use super::RegressRun;
use super::arbiters::{per_scheduler_label, per_scheduler_mode, scheduler_slots, PAIRED_ISSUE};
use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, WarpIssuePolicy};
use crate::analysis::paws::{phases, Latencies, LongLoads, Operands, PhaseOptions, Phases};
use crate::block::BlockKind;
use crate::blocks::paws::{self as paws_block, Levels, PawsIn, FAR};
use crate::blocks::warp_arbiter::ListOrder;
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::{KernelCtx, Prepared};
use crate::gpu::sites::issue::{IssueMode, IssueUnit, LongOpRule, Marked, SchedIn};
use crate::gpu::sites::Slot;
use crate::gpu::SimError;
use crate::workload::kernel::{KernelSource, WarpInst};
use std::collections::VecDeque;
use std::sync::Arc;

/// `--paws-loads`: which loads end a phase.
const PAWS_LOADS: OptSpec = OptSpec::value(
    "paws-loads",
    "SET",
    "long",
    "Which loads are long latency and end a phase (long: global, local and texture loads, the \
     report's GLD, P-R4; all: every load, as the report's code checks, L137)",
)
.one_of(&["long", "all"]);

/// `--paws-operands`: which operands the phase analysis reads.
const PAWS_OPERANDS: OptSpec = OptSpec::value(
    "paws-operands",
    "RULE",
    "faithful",
    "Which operands make a dependence in the phase analysis (faithful: every register source, \
     address registers included, checked before the load's own destination, P-R3; report: as \
     the report's code, register sources only, the destination pushed first, C3)",
)
.one_of(&["faithful", "report"]);

/// `--paws-table-bits`: the size of the blocks' distance tables.
const PAWS_TABLE_BITS: OptSpec = OptSpec::value(
    "paws-table-bits",
    "BITS",
    "10",
    "log2 of the instructions each PAWS block's distance table holds (1 to 16; 10: 1024 \
     instructions in one 16-kbit block RAM); a kernel with more is refused",
);

/// `--paws-levels`: single level or two-level.
const PAWS_LEVELS: OptSpec = OptSpec::value(
    "paws-levels",
    "MODE",
    "one",
    "one: every ready warp competes (single level); two: two-level as the report built it, the \
     active list (sm.two_level_max_active warps) sorted by (distance, age) after a warp is \
     promoted (in the next cycle), inner LRR rotation (P-R1, PAWS_TL_FAITHFUL); two-inner: \
     the ready active warp of the smallest (distance, age) every cycle (C8, PAWS_TL_INNER, an \
     extension)",
)
.one_of(&["one", "two", "two-inner"]);

/// PAWS.
pub const ENTRIES: &[&PolicyEntry] = &[&PAWS];

static PAWS: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "paws",
    summary: "seed 002's phase-aware scheduler: the ready warp whose next instruction is \
              closest to its phase's end, ties to the oldest",
    blocks: &[<paws_block::Kind as BlockKind>::NAME],
    options: &[PAWS_LOADS, PAWS_OPERANDS, PAWS_TABLE_BITS, PAWS_LEVELS, PAIRED_ISSUE],
    flag: None,
    implies: &[],
    regress: &[
        RegressRun::kernels("--warp-sched paws"),
        RegressRun::kernels("--warp-sched paws --paws-levels two"),
        RegressRun::kernels("--warp-sched paws --paws-levels two-inner"),
    ],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    let long_loads = match v.raw(&PAWS_LOADS)? {
        "all" => LongLoads::AllLoads,
        _ => LongLoads::Default,
    };
    let operands = match v.raw(&PAWS_OPERANDS)? {
        "report" => Operands::ReportCode,
        _ => Operands::Faithful,
    };
    Ok(SitePolicy::WarpIssue(Arc::new(Paws {
        phase: PhaseOptions {
            long_loads,
            operands,
        },
        table_bits: v.number(&PAWS_TABLE_BITS, 1..=16)?,
        two_level: match v.raw(&PAWS_LEVELS)? {
            "two" => Some(ListOrder::SortAtPromotion),
            "two-inner" => Some(ListOrder::SmallestKey),
            _ => None,
        },
        paired: v.flag(&PAIRED_ISSUE)?,
    })))
}

/// PAWS in every scheduler.
#[derive(Debug)]
struct Paws {
    phase: PhaseOptions,
    table_bits: u32,
    /// Two-level, and how its active list is ordered; `None`: single level.
    two_level: Option<ListOrder>,
    paired: bool,
}

impl Paws {
    /// The blocks' parameters for `cfg`.
    fn params(&self, cfg: &GpuConfig) -> Result<paws_block::Params, SimError> {
        let (warps, scheds) = (cfg.sm.max_warps, cfg.sm.schedulers);
        let n = match warps.checked_div(scheds) {
            Some(n) if warps % scheds == 0 && (2..=64).contains(&n) => n as usize,
            _ => {
                return Err(SimError::Config(format!(
                    "paws needs 2 to 64 warps per scheduler: sm.max_warps ({warps}) over \
                     sm.schedulers ({scheds}) in `{}`",
                    cfg.name
                )))
            }
        };
        let levels = match self.two_level {
            None => Levels::Single,
            Some(order) => {
                let max_active = cfg.sm.two_level_max_active as usize;
                if !(1..=n / 2).contains(&max_active) {
                    return Err(SimError::Config(format!(
                        "two-level paws needs sm.two_level_max_active in 1..={} ({n} warps per \
                         scheduler) in `{}`, got {max_active}",
                        n / 2,
                        cfg.name
                    )));
                }
                Levels::Two { max_active, order }
            }
        };
        Ok(paws_block::Params {
            warps: n,
            index_bits: self.table_bits,
            levels,
        })
    }

    /// The policy's name in labels: `paws`, `paws_tl` or `paws_tl_inner`.
    fn name(&self) -> &'static str {
        match self.two_level {
            None => "paws",
            Some(ListOrder::SmallestKey) => "paws_tl_inner",
            Some(_) => "paws_tl",
        }
    }
}

impl WarpIssuePolicy for Paws {
    fn entry(&self) -> &'static PolicyEntry {
        &PAWS
    }

    fn mode(&self) -> IssueMode {
        per_scheduler_mode(self.paired)
    }

    fn label(&self, ctx: &super::LabelCtx) -> String {
        per_scheduler_label(self.name(), self.paired, ctx)
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        self.params(cfg).map(|_| ())
    }

    fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let name = &kernel.info().name;
        let Some(code) = kernel.static_code()? else {
            return Err(SimError::Config(format!(
                "kernel `{name}`: PAWS needs the kernel's static code, which this workload cannot give"
            )));
        };
        let lat = Latencies::from_units(&cfg.units);
        let p = phases(&code, self.phase, &|op| lat.of(op.class));
        let table = PhaseTable::new(p);
        let room = 1usize << self.table_bits;
        if table.entries.len() > room {
            return Err(SimError::Config(format!(
                "kernel `{name}`: its code spans {} table entries, PAWS's table holds {room} \
                 (--paws-table-bits {})",
                table.entries.len(),
                self.table_bits
            )));
        }
        prepared.report("paws_phases", table.phases.count.into());
        prepared.get_or_make(|_| Ok(table))?;
        Ok(())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let p = self.params(cfg)?;
        let scheds = cfg.sm.schedulers as usize;
        Ok(Box::new(PawsUnit {
            slots: scheduler_slots(cfg, provider, sm, &p)?,
            mode: self.mode(),
            long_loads: self.phase.long_loads,
            writes: vec![VecDeque::new(); scheds],
            table: None,
            last_grant: vec![None; scheds],
            upd: vec![None; scheds],
        }))
    }
}

/// A kernel's phases, as PAWS prepared them, and its distance table: entry `i` is the
/// instruction at `base + (i << shift)` (`FAR` where the code has none).
struct PhaseTable {
    phases: Phases,
    base: u64,
    shift: u32,
    entries: Vec<u16>,
}

impl PhaseTable {
    fn new(phases: Phases) -> Self {
        let base = phases.per_inst.first().map_or(0, |i| i.pc);
        let shift = (phases.per_inst.iter())
            .map(|i| (i.pc - base).trailing_zeros())
            .min()
            .unwrap_or(3)
            .min(16);
        let len = phases
            .per_inst
            .last()
            .map_or(0, |i| ((i.pc - base) >> shift) as usize + 1);
        let mut entries = vec![FAR; len];
        for i in &phases.per_inst {
            entries[((i.pc - base) >> shift) as usize] = i.distance;
        }
        Self {
            phases,
            base,
            shift,
            entries,
        }
    }

    /// The table entry of `pc`, or `None` when the code has no instruction there.
    fn index(&self, pc: u32) -> Option<u16> {
        let off = u64::from(pc).checked_sub(self.base)?;
        let i = off >> self.shift;
        (off == i << self.shift && (i as usize) < self.entries.len()).then_some(i as u16)
    }
}

/// The SM's side of its schedulers' PAWS blocks.
struct PawsUnit<'a> {
    slots: Vec<Slot<'a, paws_block::Kind>>,
    mode: IssueMode,
    /// The loads that end a phase, and that demote a warp under two-level (P-R4).
    long_loads: LongLoads,
    /// Per scheduler: table writes (entry, distance) still to make.
    writes: Vec<VecDeque<(u16, u16)>>,
    /// The table in (or being written into) the blocks.
    table: Option<Arc<PhaseTable>>,
    /// Per scheduler: the local warp granted last.
    last_grant: Vec<Option<usize>>,
    /// Per scheduler: the update to report in the next select (warp, entry, far).
    upd: Vec<Option<(u8, u16, bool)>>,
}

impl<'a> IssueUnit<'a> for PawsUnit<'a> {
    fn mode(&self) -> IssueMode {
        self.mode
    }

    /// Two-level demotion uses the phase analysis's long-latency loads (P-R4).
    fn long_op_rule(&self) -> LongOpRule {
        LongOpRule::Mark(match self.long_loads {
            LongLoads::Default => Marked::Loads,
            LongLoads::AllLoads => Marked::AllLoads,
        })
    }

    fn what(&self) -> &'static str {
        "PAWS block"
    }

    fn needs_prepare(&self) -> bool {
        true
    }

    fn prepare(&mut self, kernel: &KernelCtx, empty: bool) -> bool {
        let table = kernel
            .prepared
            .get::<PhaseTable>()
            .expect("the PAWS policy prepares every kernel");
        if !self.table.as_ref().is_some_and(|t| Arc::ptr_eq(t, &table)) {
            if !empty {
                return false;
            }
            for w in &mut self.writes {
                *w = (table.entries.iter().enumerate())
                    .map(|(i, &d)| (i as u16, d))
                    .collect();
            }
            self.table = Some(table);
        }
        self.writes.iter().all(VecDeque::is_empty)
    }

    fn tracks_pcs(&self) -> bool {
        true
    }

    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        let mut b = PawsIn {
            ready: inp.ready,
            launch: inp.launch,
            exit: inp.exit,
            long_stall: inp.long_stall,
            ..Default::default()
        };
        if let Some((idx, dist)) = self.writes[s].pop_front() {
            (b.tw_en, b.tw_idx, b.tw_dist) = (true, idx, dist);
        }
        if let Some((warp, idx, far)) = self.upd[s].take() {
            (b.upd_valid, b.upd_warp, b.upd_idx, b.upd_far) = (true, warp, idx, far);
        }
        let out = self.slots[s].step(&b)?;
        let grant = out.grant_valid.then_some(out.grant_warp as usize);
        self.last_grant[s] = grant;
        Ok(grant)
    }

    fn issued(&mut self, s: usize, _inst: &WarpInst, next_pc: u32) {
        let (Some(l), Some(t)) = (self.last_grant[s], &self.table) else {
            return;
        };
        let idx = t.index(next_pc);
        self.upd[s] = Some((l as u8, idx.unwrap_or(0), idx.is_none()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::paws::PhaseInfo;

    /// P-R4: two-level demotion uses the loads the phase analysis ends phases at, in both
    /// `--paws-loads` modes: the instructions that put a warp on a long stall under PAWS are
    /// exactly the long-latency loads (no atomic; shared and constant loads under `all`),
    /// while the other schedulers keep GPGPU-Sim's set (atomics included).
    #[test]
    fn demotion_follows_the_phase_analysis_long_loads() {
        use crate::workload::sass::OpClass;
        for (arg, long) in [("long", LongLoads::Default), ("all", LongLoads::AllLoads)] {
            let opts = crate::gpu::SimOptions::parse(&format!(
                "--warp-sched paws --paws-levels two --paws-loads {arg}"
            ))
            .unwrap();
            let cfg = GpuConfig::preset("gtx480").unwrap();
            let mut gpu = crate::gpu::Gpu::golden(&cfg, opts).unwrap();
            let rule = gpu.sm_long_op_rule(0);
            let LongOpRule::Mark(marked) = rule else {
                panic!("PAWS keeps GPGPU-Sim's mark rule, got {rule:?}")
            };
            for c in OpClass::ALL {
                assert_eq!(marked.marks(c), long.is_long(c), "{arg}: {c:?}");
            }
            let mut w = crate::workload::open_named("phase_mls", "small").unwrap();
            gpu.run(w.as_mut(), &mut |_| {}).unwrap();
        }
        assert!(Marked::GpgpuSim.marks(OpClass::AtomicGlobal));
        assert!(!Marked::Loads.marks(OpClass::AtomicGlobal));
    }

    fn run(args: &str) -> Result<crate::gpu::Report, SimError> {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let opts = crate::gpu::SimOptions::parse(args).unwrap();
        let mut gpu = crate::gpu::Gpu::golden(&cfg, opts)?;
        let mut w = crate::workload::open_named("phase_mls", "small").unwrap();
        gpu.run(w.as_mut(), &mut |_| {})
    }

    /// Table entries follow the code's smallest PC step from its first PC; PCs between
    /// instructions are holes at the largest distance, and a PC off the code has no entry.
    #[test]
    fn the_table_maps_pcs_by_the_codes_step() {
        let info = |pc, distance| PhaseInfo {
            pc,
            phase: 1,
            distance,
            end_of_phase: false,
        };
        let t = PhaseTable::new(Phases {
            per_inst: vec![info(0x100, 9), info(0x110, 5), info(0x130, 1)],
            count: 1,
        });
        assert_eq!((t.base, t.shift), (0x100, 4));
        assert_eq!(t.entries, [9, 5, FAR, 1]);
        assert_eq!([0x100, 0x130].map(|pc| t.index(pc)), [Some(0), Some(3)]);
        assert_eq!([0xf0, 0x108, 0x140].map(|pc| t.index(pc)), [None; 3]);
    }

    /// On the GPU: PAWS runs a phase kernel to completion with GTO's instruction counts, and
    /// reports the phases it found.
    #[test]
    fn paws_runs_a_phase_kernel_and_reports_its_phases() {
        let (paws, gto) = (run("--warp-sched paws").unwrap(), run("--warp-sched gto").unwrap());
        assert_eq!(
            paws.counters.warp_instructions,
            gto.counters.warp_instructions
        );
        assert_eq!(paws.kernels[0].prepared["paws_phases"], 3);
        assert_eq!(paws.warp_sched, "paws");
        assert_ne!(paws.counters.cycles, gto.counters.cycles);
    }

    /// Two-level PAWS needs an active list of at most half a scheduler's warps; the error
    /// names the setting and the bound.
    #[test]
    fn two_level_paws_checks_the_active_list_length() {
        let mut cfg = GpuConfig::preset("gtx480").unwrap();
        cfg.sm.two_level_max_active = 13;
        let opts = crate::gpu::SimOptions::parse("--warp-sched paws --paws-levels two").unwrap();
        let err = crate::gpu::Gpu::golden(&cfg, opts).err().unwrap().to_string();
        assert!(
            err.contains("sm.two_level_max_active in 1..=12 (24 warps per scheduler)"),
            "{err}"
        );
    }

    /// A kernel whose code does not fit the blocks' tables is refused, naming the sizes.
    #[test]
    fn a_kernel_larger_than_the_table_is_refused() {
        let err = run("--warp-sched paws --paws-table-bits 2").unwrap_err().to_string();
        assert!(err.contains("PAWS's table holds 4 (--paws-table-bits 2)"), "{err}");
    }
}
