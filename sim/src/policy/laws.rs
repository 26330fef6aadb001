//! LAWS, seed 000's locality-aware two-level warp scheduler (`--warp-sched laws`): one
//! `locality_degree` block per scheduler. Each launched warp brings its access-range vector
//! from the kernel's address pre-computation ([`crate::analysis::locality`]); the block also
//! counts the SM's thread-block launches (its starvation clock, threshold twice the kernel's
//! blocks per SM, R5). A warp is on a long stall while a source waits on a load in flight
//! (thesis R1).

use super::{RegressOn, RegressRun};
use super::arbiters::{per_scheduler_label, per_scheduler_mode, scheduler_slots, PAIRED_ISSUE};
use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, WarpIssuePolicy};
use crate::analysis::locality::{self, Footprints, RectMode};
use crate::block::BlockKind;
use crate::blocks::locality_degree::{self, pack_region, pack_sub, LawsIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::{KernelCtx, Prepared};
use crate::gpu::sites::issue::{IssueMode, IssueUnit, LaunchedWarp, LongOpRule, SchedIn};
use crate::gpu::sites::Slot;
use crate::gpu::SimError;
use crate::workload::kernel::KernelSource;
use std::sync::Arc;

/// `--la-active K`.
const LA_ACTIVE: OptSpec = OptSpec::value(
    "la-active",
    "K",
    "0",
    "Warps in each scheduler's active group (0: the configuration's two-level active count, 6 \
     on gtx480)",
);

/// `--la-rows ENGINE`: the locality table's row engine (the block's policy).
const LA_ROWS: OptSpec = OptSpec::value(
    "la-rows",
    "ENGINE",
    "parallel",
    "How the locality table computes a launched warp's row: parallel (a row a cycle, one \
     locality unit per warp: the block's `base`) or serial (an entry a cycle through one \
     pipelined unit, entries of warps still waiting masked, the locality pick on degrees \
     registered a cycle earlier: the block's `serial`, the thesis's serial hardware at the \
     board clock)",
)
.one_of(&["parallel", "serial"]);

/// `--la-search ENGINE`: how promotion finds the best pending warp (the block's `scan`).
const LA_SEARCH: OptSpec = OptSpec::value(
    "la-search",
    "ENGINE",
    "parallel",
    "How promotion finds the best pending warp: parallel (every warp's score each cycle, a rank \
     per warp, as many promotions as free places) or scan (the thesis's linear search, L539: \
     one warp's score a cycle under a pointer that steps through the warps, at most one \
     promotion a cycle, the best by the scanned scores; implies --la-rows serial: the block's \
     `scan`)",
)
.one_of(&["parallel", "scan"]);

/// LAWS.
pub const ENTRIES: &[&PolicyEntry] = &[&LAWS];

static LAWS: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "laws",
    summary: "seed 000's locality-aware two-level scheduler (locality degree table, starvation \
              timeout)",
    blocks: &[<locality_degree::Kind as BlockKind>::NAME],
    options: &[LA_ACTIVE, LA_ROWS, LA_SEARCH, PAIRED_ISSUE],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(RegressOn::Traces, "", "--warp-sched laws")],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::WarpIssue(Arc::new(Laws {
        active: v.number(&LA_ACTIVE, 0..=usize::MAX)?,
        serial: v.raw(&LA_ROWS)? == "serial" || v.raw(&LA_SEARCH)? == "scan",
        scan: v.raw(&LA_SEARCH)? == "scan",
        paired: v.flag(&PAIRED_ISSUE)?,
    })))
}

/// LAWS in every scheduler.
#[derive(Debug)]
struct Laws {
    /// Active group size (0: the configuration's two-level count).
    active: usize,
    /// The table's rows an entry a cycle (the block's `serial`).
    serial: bool,
    /// Promotion by a linear scan (the block's `scan`; with `serial`).
    scan: bool,
    paired: bool,
}

/// The locality-aware scheduler's parameters for `cfg`: its warps per scheduler (at most
/// [`locality_degree::MAX_WARPS`]) and an active group of `active` warps (0: the
/// configuration's two-level active count, GPGPU-Sim's 6 on the GTX 480; R9); `serial`: the
/// block's `serial` row engine; `scan`: the block's `scan` promotion (with `serial`).
pub fn laws_params(
    cfg: &GpuConfig,
    active: usize,
    serial: bool,
    scan: bool,
) -> Result<locality_degree::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps as usize, cfg.sm.schedulers as usize);
    let per = warps / scheds.max(1);
    if scheds == 0 || warps % scheds != 0 || !(2..=locality_degree::MAX_WARPS).contains(&per) {
        return Err(SimError::Config(format!(
            "LAWS needs 2 to {} warps per scheduler; `{}` has {warps} warps over {scheds} \
             schedulers",
            locality_degree::MAX_WARPS,
            cfg.name
        )));
    }
    let active = if active == 0 {
        cfg.sm.two_level_max_active as usize
    } else {
        active
    };
    if !(1..=per).contains(&active) {
        return Err(SimError::Config(format!(
            "LAWS's active group must hold 1 to {per} warps (the scheduler's); got {active}"
        )));
    }
    Ok(locality_degree::Params {
        warps: per,
        active,
        serial: serial || scan,
        scan,
    })
}

impl WarpIssuePolicy for Laws {
    fn entry(&self) -> &'static PolicyEntry {
        &LAWS
    }

    fn mode(&self) -> IssueMode {
        per_scheduler_mode(self.paired)
    }

    fn label(&self, ctx: &super::LabelCtx) -> String {
        let name = match (self.serial, self.scan) {
            (_, true) => "laws-scan",
            (true, false) => "laws-serial",
            (false, false) => "laws",
        };
        per_scheduler_label(name, self.paired, ctx)
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        laws_params(cfg, self.active, self.serial, self.scan).map(|_| ())
    }

    fn prepare(
        &self,
        _cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        locality::prepare(kernel, RectMode::FirstLast, prepared).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let p = laws_params(cfg, self.active, self.serial, self.scan)?;
        let slots = scheduler_slots(cfg, provider, sm, &p)?
            .into_iter()
            .map(|slot| (slot, LawsIn::default()))
            .collect();
        Ok(Box::new(LawsUnit {
            slots,
            mode: self.mode(),
            starve_after: 16,
            quiets: <locality_degree::Kind as BlockKind>::may_hold(&p),
        }))
    }
}

/// One locality-aware scheduler per scheduler, with its inputs kept between cycles (the
/// vectors change only at launches).
struct LawsUnit<'a> {
    slots: Vec<(Slot<'a, locality_degree::Kind>, LawsIn)>,
    mode: IssueMode,
    /// Starvation threshold: twice the offered kernel's blocks per SM (R5).
    starve_after: u8,
    /// The blocks hold when nothing changes (not `scan`, whose pointer steps every cycle).
    quiets: bool,
}

impl<'a> LawsUnit<'a> {
    /// Scheduler `s`'s block and its inputs for `inp`.
    fn inputs(&mut self, s: usize, inp: &SchedIn) -> (&mut Slot<'a, locality_degree::Kind>, &LawsIn) {
        let starve_after = self.starve_after;
        let (slot, i) = &mut self.slots[s];
        i.ready = inp.ready;
        i.launch = inp.launch & !inp.launch2;
        i.launch2 = inp.launch2;
        i.tbs_launched = inp.tbs_launched;
        i.exit = inp.exit;
        i.long_stall = inp.long_stall;
        i.starve_after = starve_after;
        (slot, i)
    }
}

impl<'a> IssueUnit<'a> for LawsUnit<'a> {
    fn mode(&self) -> IssueMode {
        self.mode
    }

    fn long_op_rule(&self) -> LongOpRule {
        LongOpRule::InFlight
    }

    fn what(&self) -> &'static str {
        "arbiter"
    }

    fn needs_prepare(&self) -> bool {
        true
    }

    fn prepare(&mut self, kernel: &KernelCtx, _empty: bool) -> bool {
        self.starve_after = (2 * kernel.occupancy.blocks).min(255) as u8;
        true
    }

    fn launched(&mut self, w: &LaunchedWarp) {
        let v = match w.kernel.prepared.get::<Footprints>() {
            Some(fp) => fp.warp(w.block, w.index),
            None => Default::default(),
        };
        let inp = &mut self.slots[w.sched].1;
        inp.region[w.local] = pack_region(&v);
        inp.sub[w.local] = pack_sub(&v);
    }

    /// `prepare` sets the starvation threshold, which orders grants and promotions only: a
    /// quiet cycle has neither, whatever the threshold.
    fn sleeps_through_prepare(&self) -> bool {
        true
    }

    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        let (slot, i) = self.inputs(s, inp);
        let out = slot.step(i)?;
        Ok(out.grant_valid.then_some(out.grant_warp as usize))
    }

    fn can_be_quiet(&self) -> bool {
        self.quiets
    }

    fn quiet(&mut self, s: usize, inp: &SchedIn) -> bool {
        let (slot, i) = self.inputs(s, inp);
        slot.settle(i).is_some_and(|out| !out.grant_valid)
    }
}
