//! PAWS, Phase-Aware Warp Scheduling (seed 002; spec `locality_bypass_paws.md` §3), single
//! level (`--warp-sched paws`): before a kernel's first block its code is split into phases
//! and every instruction gets its phase distance ([`crate::analysis::paws`]); every cycle each
//! scheduler issues, of its ready warps, the one whose next instruction has the shortest
//! distance, ties to the oldest (the lowest launch order), P-PS1.
//!
//! Golden model only for now: the hardware (a per-PC distance table read at each issue and a
//! min-select over the scheduler's warps) is not built yet.

use super::arbiters::{per_scheduler_label, per_scheduler_mode, PAIRED_ISSUE};
use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, WarpIssuePolicy};
use crate::analysis::paws::{phases, Latencies, LongLoads, Operands, PhaseOptions, Phases};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::Prepared;
use crate::gpu::sites::issue::{IssueMode, IssueUnit, LaunchedWarp, SchedIn};
use crate::gpu::SimError;
use crate::workload::kernel::{KernelSource, WarpInst};
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

/// PAWS.
pub const ENTRIES: &[&PolicyEntry] = &[&PAWS];

static PAWS: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "paws",
    summary: "seed 002's phase-aware scheduler: the ready warp whose next instruction is \
              closest to its phase's end, ties to the oldest (golden model only)",
    blocks: &[],
    options: &[PAWS_LOADS, PAWS_OPERANDS, PAIRED_ISSUE],
    flag: None,
    implies: &[],
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
        paired: v.flag(&PAIRED_ISSUE)?,
    })))
}

/// PAWS in every scheduler.
#[derive(Debug)]
struct Paws {
    phase: PhaseOptions,
    paired: bool,
}

impl WarpIssuePolicy for Paws {
    fn entry(&self) -> &'static PolicyEntry {
        &PAWS
    }

    fn mode(&self) -> IssueMode {
        per_scheduler_mode(self.paired)
    }

    fn label(&self, ctx: &super::LabelCtx) -> String {
        per_scheduler_label("paws", self.paired, ctx)
    }

    fn check(&self, _cfg: &GpuConfig) -> Result<(), SimError> {
        Ok(())
    }

    fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let Some(code) = kernel.static_code()? else {
            return Err(SimError::Config(format!(
                "kernel `{}`: PAWS needs the kernel's static code, which this workload cannot give",
                kernel.info().name
            )));
        };
        let lat = Latencies::from_units(&cfg.units);
        let p = phases(&code, self.phase, &|op| lat.of(op.class));
        prepared.report("paws_phases", p.count.into());
        prepared.get_or_make(|_| Ok(PhaseTable(p)))?;
        Ok(())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        _provider: &mut dyn DynProvider<'a>,
        _sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let scheds = cfg.sm.schedulers as usize;
        let per = (cfg.sm.max_warps as usize).div_ceil(scheds.max(1));
        Ok(Box::new(PawsUnit {
            mode: self.mode(),
            warps: vec![vec![WarpKey::default(); per]; scheds],
            tables: vec![vec![None; per]; scheds],
            last_grant: vec![None; scheds],
            launches: 0,
        }))
    }
}

/// A kernel's phases, as PAWS prepared them.
struct PhaseTable(Phases);

impl PhaseTable {
    /// The phase distance of the instruction at `pc`; a PC the code does not hold (past the
    /// last instruction) is as far as possible (C6).
    fn distance(&self, pc: u32) -> u16 {
        self.0.distance_at(u64::from(pc)).unwrap_or(u16::MAX)
    }
}

/// One warp's priority: its next instruction's distance, then its launch order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct WarpKey {
    distance: u16,
    launched: u64,
}

/// The SM's PAWS: per scheduler, per local warp, its key and its kernel's table.
struct PawsUnit {
    mode: IssueMode,
    warps: Vec<Vec<WarpKey>>,
    tables: Vec<Vec<Option<Arc<PhaseTable>>>>,
    last_grant: Vec<Option<usize>>,
    /// Warps launched on the SM so far (GPGPU-Sim's dynamic warp id).
    launches: u64,
}

impl<'a> IssueUnit<'a> for PawsUnit {
    fn mode(&self) -> IssueMode {
        self.mode
    }

    fn what(&self) -> &'static str {
        "PAWS unit"
    }

    fn tracks_pcs(&self) -> bool {
        true
    }

    fn launched(&mut self, w: &LaunchedWarp) {
        let table = w.kernel.prepared.get::<PhaseTable>();
        let distance = table.as_ref().map_or(u16::MAX, |t| t.distance(w.pc));
        self.warps[w.sched][w.local] = WarpKey {
            distance,
            launched: self.launches,
        };
        self.tables[w.sched][w.local] = table;
        self.launches += 1;
    }

    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        let keys = &self.warps[s];
        let grant = (0..keys.len())
            .filter(|&l| inp.ready >> l & 1 == 1)
            .min_by_key(|&l| keys[l]);
        self.last_grant[s] = grant;
        Ok(grant)
    }

    fn issued(&mut self, s: usize, _inst: &WarpInst, next_pc: u32) {
        let Some(l) = self.last_grant[s] else {
            return;
        };
        let d = self.tables[s][l]
            .as_ref()
            .map_or(u16::MAX, |t| t.distance(next_pc));
        self.warps[s][l].distance = d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::kernel::KernelCtx;
    use crate::workload::kernel::KernelInfo;
    use crate::workload::sass::OpClass;
    use crate::workload::static_code::{CodeOp, KernelCode};
    use crate::workload::Dim3;
    use proptest::prelude::*;

    /// A kernel whose code is `n` independent ALU instructions of latency 1 (distances n..1,
    /// one phase) at PCs 0, 8, ..., with its phase table prepared.
    fn kernel(n: usize) -> KernelCtx {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let info = KernelInfo {
            name: "k".into(),
            grid: Dim3 { x: 1, y: 1, z: 1 },
            block: Dim3 { x: 32, y: 1, z: 1 },
            regs_per_thread: 8,
            shmem_bytes: 0,
            binary_version: 20,
        };
        let mut ctx = KernelCtx::new(&cfg, &info, 0, 0).unwrap();
        let insts = (0..n)
            .map(|i| CodeOp {
                pc: 8 * i as u64,
                class: OpClass::IntAlu,
                target: None,
                addr: None,
                dsts: vec![i as u16],
                srcs: vec![],
                addr_srcs: 0,
            })
            .collect();
        let p = phases(&KernelCode { insts }, PhaseOptions::default(), &|_| 1);
        ctx.prepared.get_or_make(|_| Ok(PhaseTable(p))).unwrap();
        ctx
    }

    /// A unit of one scheduler of `warps` warps, each launched (in order) at `pcs[l]`.
    fn unit(ctx: &KernelCtx, pcs: &[u32]) -> PawsUnit {
        let mut u = PawsUnit {
            mode: IssueMode::Sequential,
            warps: vec![vec![WarpKey::default(); pcs.len()]],
            tables: vec![vec![None; pcs.len()]],
            last_grant: vec![None],
            launches: 0,
        };
        for (local, &pc) in pcs.iter().enumerate() {
            u.launched(&LaunchedWarp {
                sched: 0,
                local,
                kernel: ctx,
                block: 0,
                index: local,
                pc,
            });
        }
        u
    }

    /// P-PS1's check: `grant` is the ready warp of least (distance of its next instruction,
    /// launch order), found by sorting every warp (the report's `order_warps`) and taking the
    /// first ready one.
    fn check_ps1(keys: &[WarpKey], ready: u64, grant: Option<usize>) -> Result<(), String> {
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&l| (keys[l].distance, keys[l].launched));
        let want = order.into_iter().find(|&l| ready >> l & 1 == 1);
        match want == grant {
            true => Ok(()),
            false => Err(format!("granted {grant:?}, the order says {want:?}")),
        }
    }

    proptest! {
        /// P-PS1 and P-PS2: the grant is the ready warp with the shortest distance, ties to
        /// the oldest, and never a warp that is not ready.
        #[test]
        fn p_ps1_the_shortest_distance_ready_warp_issues(
            pcs in proptest::collection::vec(0u32..16, 1..24),
            ready in any::<u64>(),
        ) {
            let ctx = kernel(16);
            let mut u = unit(&ctx, &pcs);
            let ready = ready & ((1u64 << pcs.len()) - 1);
            let grant = u.select(0, &SchedIn { ready, ..Default::default() }).unwrap();
            prop_assert!(check_ps1(&u.warps[0], ready, grant).is_ok());
            prop_assert!(grant.is_none_or(|l| ready >> l & 1 == 1));
        }
    }

    /// P-PS3: with every warp at the same PC (equal distances) PAWS is oldest first; a unit
    /// planted with the youngest-first tie-break fails P-PS1's check.
    #[test]
    fn p_ps3_equal_distances_issue_oldest_first_and_a_youngest_first_unit_is_caught() {
        let ctx = kernel(8);
        let mut u = unit(&ctx, &[8; 6]);
        let ready = 0b110110;
        let grant = u.select(0, &SchedIn { ready, ..Default::default() }).unwrap();
        assert_eq!(grant, Some(1));
        let keys = &u.warps[0];
        let youngest = (0..6).filter(|l| ready >> l & 1 == 1).max_by_key(|&l| keys[l]);
        assert!(check_ps1(keys, ready, youngest).is_err());
    }

    /// P-PS4: a warp that issued and stays in its phase keeps the shortest distance, so it
    /// issues again (greedy within a phase, GTO-like), until another warp is closer.
    #[test]
    fn p_ps4_the_issuing_warp_stays_first_within_its_phase() {
        let ctx = kernel(8);
        // Warp 0 at the kernel's start (distance 8), warp 1 two instructions in (6).
        let mut u = unit(&ctx, &[0, 16]);
        let inp = SchedIn {
            ready: 0b11,
            ..Default::default()
        };
        let inst = |pc| WarpInst {
            pc,
            mask: !0,
            class: OpClass::IntAlu,
            cache: Default::default(),
            width: 0,
            ndst: 0,
            nsrc: 0,
            reg_start: 0,
            addr_start: 0,
            strided: false,
        };
        let mut granted = vec![];
        let mut next = [0u32, 16];
        for _ in 0..6 {
            let g = u.select(0, &inp).unwrap().unwrap();
            granted.push(g);
            next[g] += 8;
            u.issued(0, &inst(next[g] - 8), next[g]);
        }
        // Warp 1 (closer to its phase's end) runs to the end first; then warp 0.
        assert_eq!(granted, [1, 1, 1, 1, 1, 1]);
        // Warp 0 three instructions from its phase's end (distance 3) issues first; once its
        // next instruction is past the code (its phase ended), warp 1 is closer.
        let mut u = unit(&ctx, &[40, 16]);
        assert_eq!(u.select(0, &inp).unwrap(), Some(0));
        u.issued(0, &inst(40), 64);
        assert_eq!(u.select(0, &inp).unwrap(), Some(1));
    }

    /// On the GPU: PAWS runs a phase kernel to completion with GTO's instruction counts, and
    /// reports the phases it found.
    #[test]
    fn paws_runs_a_phase_kernel_and_reports_its_phases() {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let run = |args: &str| {
            let opts = crate::gpu::SimOptions::parse(args).unwrap();
            let mut gpu = crate::gpu::Gpu::golden(&cfg, opts).unwrap();
            let mut w = crate::workload::open_named("phase_mls", "small").unwrap();
            gpu.run(w.as_mut(), &mut |_| {}).unwrap()
        };
        let (paws, gto) = (run("--warp-sched paws"), run("--warp-sched gto"));
        assert_eq!(
            paws.counters.warp_instructions,
            gto.counters.warp_instructions
        );
        assert_eq!(paws.kernels[0].prepared["paws_phases"], 4);
        assert_eq!(paws.warp_sched, "paws");
        assert_ne!(paws.counters.cycles, gto.counters.cycles);
    }
}
