//! ELF (seed 003 ch. III): one `elf` block per SM grants for every scheduler at once and, by
//! default, orders fetch (`--warp-sched elf`); `elf++` adds the NewCAR queue and I-prefetch at
//! the thesis's threshold 16. Before a kernel's first block, its code is compiled into the
//! program-point table (Algorithms 1 and 2, [`crate::analysis::elf`]; [`program`]); the SM
//! side of the block's ports is [`unit`].

pub mod program;
mod unit;

use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, WarpIssuePolicy};
use crate::analysis::elf::RecalcPolicy;
use crate::block::BlockKind;
use crate::blocks::elf::{self as elf_block, WptUpdate};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::Prepared;
use crate::gpu::sites::issue::{IssueMode, IssueUnit};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use crate::workload::kernel::KernelSource;
use program::ElfProgram;
use std::sync::Arc;

/// ELF program-point slots (spec §3.2: 32).
pub const ELF_SLOTS: usize = 32;

/// The thesis's I-prefetch threshold (spec §1.10: 16 occupied L1I + L1D MSHRs), which `elf++`
/// implies.
pub const IPREFETCH_THRESHOLD: u32 = 16;

const RR_FETCH: OptSpec = OptSpec::flag(
    "rr-fetch",
    "Keep round-robin fetch (ELF orders issue only)",
);
const ELF_RECALC: OptSpec = OptSpec::value(
    "elf-recalc",
    "RULE",
    "literal",
    "How the compiler sets branches' recalculation bits (literal: the thesis's rule, L508; \
     consistent: recalculate on the path the score did not assume; always: on every branch)",
)
.one_of(RecalcPolicy::NAMES);
const ELF_MERGE: OptSpec = OptSpec::value(
    "elf-merge",
    "BOUNDARY",
    "gt",
    "When the priority calculator subtracts a merged load's score (spec A-6): gt, the \
     thesis's \"larger than\" (distance > score); ge, distance >= score (exact for merged loads)",
)
.one_of(&["gt", "ge"]);
const ELF_WPT: OptSpec = OptSpec::value(
    "elf-wpt",
    "TIMING",
    "bypass",
    "When a grant's WPT update reaches the issue and fetch selects: bypass, in the cycle the SM \
     reports it (spec §1.6; RTL elf_base_*); registered, one cycle later (golden model only); \
     pipelined, two cycles later, a launched warp at 255 until its lookup lands (RTL \
     elf_pipelined_*)",
)
.one_of(&WptUpdate::NAMES);

const OPTIONS: &[OptSpec] = &[RR_FETCH, ELF_RECALC, ELF_MERGE, ELF_WPT];

/// `elf` and `elf++`.
pub const ENTRIES: &[&PolicyEntry] = &[&ELF, &ELF_PLUS_PLUS];

static ELF: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "elf",
    summary: "ELF: the elf block issues for every scheduler by program-point priority and \
              orders fetch (seed 003 ch. III)",
    blocks: &[<elf_block::Kind as BlockKind>::NAME],
    options: OPTIONS,
    flag: None,
    implies: &[],
    regress: &[],
    parse: |v| parse(v, &ELF),
};

static ELF_PLUS_PLUS: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "elf++",
    summary: "ELF with the NewCAR queue and I-prefetch 16 (the thesis's ELF++)",
    blocks: &[<elf_block::Kind as BlockKind>::NAME],
    options: OPTIONS,
    flag: None,
    implies: &[("lsu-queue", super::newcar::NAME), ("iprefetch", "16")],
    regress: &[super::RegressRun::kernels("--warp-sched elf++")],
    parse: |v| parse(v, &ELF_PLUS_PLUS),
};

fn parse(v: &OptValues, entry: &'static PolicyEntry) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::WarpIssue(Arc::new(Elf {
        entry,
        fetch: !v.flag(&RR_FETCH)?,
        recalc: RecalcPolicy::from_name(v.raw(&ELF_RECALC)?).expect("one of its names"),
        merge_ge: v.raw(&ELF_MERGE)? == "ge",
        wpt: WptUpdate::from_name(v.raw(&ELF_WPT)?).expect("one of its names"),
    })))
}

/// ELF in every SM.
#[derive(Debug)]
struct Elf {
    /// `elf` or `elf++`.
    entry: &'static PolicyEntry,
    /// ELF orders fetch (else round robin).
    fetch: bool,
    /// How the compiler sets branches' recalculation bits (spec A-2).
    recalc: RecalcPolicy,
    /// The calculator subtracts a merged load's score when `d >= score` (spec A-6) instead of
    /// the thesis's `d > score`.
    merge_ge: bool,
    /// When a grant's WPT update reaches the selects.
    wpt: WptUpdate,
}

/// The ELF block's parameters for `cfg` (its schedulers, at most
/// [`elf_block::MAX_SCHEDULERS`]; at most 64 warps per SM, a multiple of the schedulers;
/// [`ELF_SLOTS`] program points).
pub fn elf_params(cfg: &GpuConfig) -> Result<elf_block::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps as usize, cfg.sm.schedulers as usize);
    if !(1..=elf_block::MAX_SCHEDULERS).contains(&scheds)
        || !(scheds..=64).contains(&warps)
        || warps % scheds != 0
        || warps / scheds > 32
    {
        return Err(SimError::Config(format!(
            "ELF needs 1 to {} warp schedulers, at most 64 warps per SM (a multiple of the \
             schedulers) and at most 32 per scheduler; `{}` has {scheds} (schedulers) and \
             {warps} (max_warps)",
            elf_block::MAX_SCHEDULERS,
            cfg.name
        )));
    }
    Ok(elf_block::Params {
        warps,
        schedulers: scheds,
        slots: ELF_SLOTS,
        ..elf_block::Params::preset(elf_block::Preset::Fermi)
    })
}

impl WarpIssuePolicy for Elf {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn report_name(&self) -> &'static str {
        ELF.name
    }

    fn mode(&self) -> IssueMode {
        IssueMode::SmWide
    }

    /// `elf++` when ELF fetch, the NewCAR queue and I-prefetch 16 are all on, `elf`
    /// otherwise, with what differs from the thesis in parentheses
    /// (`elf++(recalc=consistent)`, `elf(rr-fetch)+iprefetch16`).
    fn label(&self, ctx: &super::LabelCtx) -> String {
        let mut notes = vec![];
        if !self.fetch {
            notes.push("rr-fetch".to_string());
        }
        if self.recalc != RecalcPolicy::default() {
            notes.push(format!("recalc={}", self.recalc.name()));
        }
        if self.merge_ge {
            notes.push("merge=ge".to_string());
        }
        if self.wpt != WptUpdate::default() {
            notes.push(format!("wpt={}", self.wpt.name()));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("({})", notes.join(","))
        };
        let newcar = ctx.lsu_queue == super::newcar::NAME;
        if self.fetch && newcar && ctx.iprefetch == IPREFETCH_THRESHOLD {
            return format!("elf++{notes}");
        }
        format!("elf{notes}{}", ctx.suffix())
    }

    fn resume_limit(&self) -> Option<&'static str> {
        Some("the ELF block's launch port takes one start PC per cycle for every warp launched")
    }

    fn fetch_order(&self) -> &'static str {
        if self.fetch {
            "elf"
        } else {
            "round_robin"
        }
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        elf_params(cfg).map(|_| ())
    }

    fn prepare(
        &self,
        _cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let code = kernel.static_code()?.unwrap_or_default();
        let program = ElfProgram::compile(&code, ELF_SLOTS, self.recalc, self.merge_ge);
        let points = (program.points_found, program.table.len());
        prepared.get_or_make(|_| Ok(program))?;
        prepared.report("elf_points", serde_json::json!([points.0, points.1]));
        Ok(())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let params = elf_block::Params {
            wpt_update: self.wpt,
            ..elf_params(cfg)?
        };
        let site = Site::Sm {
            sm,
            block: <elf_block::Kind as BlockKind>::NAME,
        };
        Ok(Box::new(unit::ElfUnit::new(
            Slot::new(provider, site, &params)?,
            self.fetch,
        )))
    }
}
