//! The baseline warp schedulers (`--warp-sched lrr|gto|two-level|two-level-gto`): one
//! `warp_arbiter` block per scheduler, GPGPU-Sim's LRR, GTO and two-level active policies and
//! the PAWS report's two-level GTO, issuing scheduler by
//! scheduler (GPGPU-Sim's order) or paired (`--paired-issue`: every scheduler's warps scanned
//! before any grant, as ELF issues).

use super::{
    OptError, OptSpec, OptValues, PolicyEntry, RegressRun, SiteKind, SitePolicy, WarpIssuePolicy,
};
use crate::blocks::warp_arbiter::{self, ArbiterIn, Policy};
use crate::block::BlockKind;
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::issue::{IssueMode, IssueUnit, SchedIn};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use std::sync::Arc;

/// `--paired-issue`, taken by every per-scheduler warp scheduler.
pub const PAIRED_ISSUE: OptSpec = OptSpec::flag(
    "paired-issue",
    "Form every scheduler's ready mask before any grant, as ELF does (default: scheduler by \
     scheduler, GPGPU-Sim's order)",
);

/// The issue mode of a per-scheduler policy: paired with `--paired-issue`, else sequential.
pub fn per_scheduler_mode(paired: bool) -> IssueMode {
    if paired {
        IssueMode::Paired
    } else {
        IssueMode::Sequential
    }
}

/// A per-scheduler policy's label: its name, `(paired)` with `--paired-issue`, the suffix.
pub fn per_scheduler_label(name: &str, paired: bool, ctx: &super::LabelCtx) -> String {
    let paired = if paired { "(paired)" } else { "" };
    format!("{name}{paired}{}", ctx.suffix())
}

/// One block of kind `K` with `params` at every scheduler of SM `sm`.
pub fn scheduler_slots<'a, K: crate::blocks::Provided>(
    cfg: &GpuConfig,
    provider: &mut dyn DynProvider<'a>,
    sm: usize,
    params: &K::Params,
) -> Result<Vec<Slot<'a, K>>, SimError> {
    (0..cfg.sm.schedulers as usize)
        .map(|scheduler| Slot::new(provider, Site::Scheduler { sm, scheduler }, params))
        .collect()
}

/// Every arbiter policy.
pub const ENTRIES: &[&PolicyEntry] = &[&LRR, &GTO, &TWO_LEVEL, &TWO_LEVEL_GTO];

const fn entry(
    name: &'static str,
    summary: &'static str,
    parse: fn(&OptValues) -> Result<SitePolicy, OptError>,
    regress: &'static [RegressRun],
) -> PolicyEntry {
    PolicyEntry {
        site: SiteKind::WarpIssue,
        name,
        summary,
        blocks: &[<warp_arbiter::Kind as BlockKind>::NAME],
        options: &[PAIRED_ISSUE],
        flag: None,
        implies: &[],
        parse,
        regress,
    }
}

static LRR: PolicyEntry = entry(
    "lrr",
    "loose round robin from the warp after the last granted (GPGPU-Sim's lrr)",
    |v| parse(v, Policy::Lrr, &LRR),
    &[RegressRun::kernels("--warp-sched lrr")],
);
static GTO: PolicyEntry = entry(
    "gto",
    "greedy then oldest (GPGPU-Sim's gto)",
    |v| parse(v, Policy::Gto, &GTO),
    &[RegressRun::kernels("--warp-sched gto")],
);
static TWO_LEVEL: PolicyEntry = entry(
    "two_level",
    "two-level active scheduling, inner LRR, outer FIFO (GPGPU-Sim's two_level_active)",
    |v| parse(v, Policy::TwoLevel, &TWO_LEVEL),
    &[RegressRun::kernels("--warp-sched two-level")],
);
static TWO_LEVEL_GTO: PolicyEntry = entry(
    "two_level_gto",
    "two-level active scheduling, the active list sorted oldest first when a warp is promoted, \
     inner LRR (TL-GTO, the PAWS report's `sort_with_gto`)",
    |v| parse(v, Policy::TwoLevelGto, &TWO_LEVEL_GTO),
    &[RegressRun::kernels("--warp-sched two-level-gto")],
);

fn parse(
    v: &OptValues,
    policy: Policy,
    entry: &'static PolicyEntry,
) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::WarpIssue(Arc::new(Arbiters {
        entry,
        policy,
        paired: v.flag(&PAIRED_ISSUE)?,
    })))
}

/// A warp arbiter in every scheduler.
#[derive(Debug)]
struct Arbiters {
    entry: &'static PolicyEntry,
    policy: Policy,
    paired: bool,
}

/// The warp-arbiter parameters every scheduler of `cfg` uses under `policy`.
pub fn arbiter_params(cfg: &GpuConfig, policy: Policy) -> Result<warp_arbiter::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps, cfg.sm.schedulers);
    if scheds == 0 || warps % scheds != 0 {
        return Err(SimError::Config(format!(
            "sm.max_warps ({warps}) must be a multiple of sm.schedulers ({scheds})"
        )));
    }
    warp_arbiter::Params::new(
        policy,
        (warps / scheds) as usize,
        cfg.sm.two_level_max_active as usize,
    )
    .map_err(|e| SimError::Config(format!("warp arbiter of `{}`: {e}", cfg.name)))
}

impl WarpIssuePolicy for Arbiters {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn mode(&self) -> IssueMode {
        per_scheduler_mode(self.paired)
    }

    fn label(&self, ctx: &super::LabelCtx) -> String {
        per_scheduler_label(self.entry.name, self.paired, ctx)
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        arbiter_params(cfg, self.policy).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let p = arbiter_params(cfg, self.policy)?;
        Ok(Box::new(ArbiterUnit {
            slots: scheduler_slots(cfg, provider, sm, &p)?,
            mode: self.mode(),
            // A two-level arbiter demotes and promotes in every cycle an active warp waits
            // (even a warp slot without a warp), so it holds too rarely to ask.
            quiets: matches!(self.policy, Policy::Lrr | Policy::Gto),
        }))
    }
}

/// One warp arbiter per scheduler.
struct ArbiterUnit<'a> {
    slots: Vec<Slot<'a, warp_arbiter::Kind>>,
    mode: IssueMode,
    /// The arbiters hold when nothing is ready ([`IssueUnit::can_be_quiet`]).
    quiets: bool,
}

impl<'a> IssueUnit<'a> for ArbiterUnit<'a> {
    fn mode(&self) -> IssueMode {
        self.mode
    }

    fn what(&self) -> &'static str {
        "arbiter"
    }

    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        // Field by field: the SM has just written `inp` one field at a time, and a wider copy
        // of two of them stalls the host on store forwarding.
        use std::hint::black_box;
        let out = self.slots[s].step(&ArbiterIn {
            ready: black_box(inp.ready),
            launch: black_box(inp.launch),
            exit: inp.exit,
            long_stall: inp.long_stall,
        })?;
        Ok(out.grant_valid.then_some(out.grant_warp as usize))
    }

    fn can_be_quiet(&self) -> bool {
        self.quiets
    }

    fn quiet(&mut self, s: usize, inp: &SchedIn) -> bool {
        let inp = ArbiterIn {
            ready: inp.ready,
            launch: inp.launch,
            exit: inp.exit,
            long_stall: inp.long_stall,
        };
        self.slots[s].settle(&inp).is_some_and(|out| !out.grant_valid)
    }
}
