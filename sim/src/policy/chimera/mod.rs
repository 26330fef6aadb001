//! Chimera's kernel scheduler (seed 003 ch. IV; `--kernel-sched chimera`) and its
//! single-technique baselines (`switch-only`, `drain-only`, `flush-only`, §6 C-R3): the SMs are
//! partitioned between the kernels held ([`partition`]); a kernel short of its share takes idle
//! SMs first, then SMs of a kernel over its share, chosen and preempted block by block by the
//! `chimera_tb` selector (each block by the cheapest technique that meets `--lat-limit`,
//! [`crate::blocks::chimera_tb`]). Each preemption request is reported with its measured
//! handover latency against the limit (`kernel_sched_stats`).

mod estimator;
mod feed;
mod late;
mod partition;
mod tables;
mod unit;

use super::{RegressOn, RegressRun};
use crate::blocks::DynProvider;
use super::{
    KernelSchedPolicy, OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy,
    KERNEL_SLOTS,
};
use crate::blocks::chimera_tb::cost::DrainOvh;
use crate::blocks::chimera_tb::select::{Limit, Mode};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedUnit, Technique};
use crate::gpu::SimError;
use std::sync::Arc;
use partition::Need;
pub use estimator::Estimator;
pub use unit::{Idempotence, Selector};
use unit::Settings;

/// `chimera`, `switch-only`, `drain-only`, `flush-only`.
pub const ENTRIES: &[&PolicyEntry] = &[&CHIMERA, &SWITCH_ONLY, &DRAIN_ONLY, &FLUSH_ONLY];

pub(super) const LAT_LIMIT: OptSpec = OptSpec::value(
    "lat-limit",
    "CYCLES",
    "21000",
    "Preemption latency limit: cycles from a request to the handover of every SM it takes \
     (the thesis's 15 us at 1.4 GHz; under maestro the largest whole-SM switch time of the \
     GPU when not given, spec M-R1)",
);

const LAT_MARGIN: OptSpec = OptSpec::value(
    "lat-margin",
    "CYCLES",
    "0",
    "Cycles added to every latency estimate before it is compared with the limit",
);

const IDEMPOTENCE: OptSpec = OptSpec::value(
    "idempotence",
    "SCOPE",
    "block",
    "When a block may be flushed: block (it has issued nothing that overwrites its input, \
     relaxed), sm (no block on its SM has, the marker store of L900), kernel (its kernel has \
     no such instruction, strict)",
)
.one_of(&["block", "sm", "kernel"]);

const SM_NEED: OptSpec = OptSpec::value(
    "sm-need",
    "RULE",
    "spread",
    "SMs a kernel needs when the SMs are split (no more than its even share): spread, one per \
     block left (the dispatcher spreads blocks over the SMs it is offered); packed, the SMs its \
     blocks fill at full occupancy (spec §1.8)",
)
.one_of(&["spread", "packed"]);

const SELECTOR: OptSpec = OptSpec::value(
    "selector",
    "FROM",
    "block",
    "Where the SMs' preemption plans come from: block (each SM's chimera_tb, a pass of \
     67 + 37 x block-slot cycles after the request, during which the candidate SMs take no \
     new block), software (the same functions of the SMs' state at once)",
)
.one_of(&["block", "software"]);

const DRAIN_OVH: OptSpec = OptSpec::value(
    "drain-overhead",
    "FORMULA",
    "literal",
    "A drained block's estimated overhead: literal, I_max - I_t (how far it is behind the most \
     advanced block of its kernel on the SM; the sum is the thesis's formula), slot-idle, \
     I_t - I_min (how long its slot idles while the least advanced one finishes; spec A3)",
)
.one_of(&["literal", "slot-idle"]);

const KILL_LATE: OptSpec = OptSpec::flag(
    "kill-late",
    "Kill a kernel whose preemption request missed the latency limit at its deadline (the \
     mix's `deadline` after its arrival) plus the limit, as the thesis's periodic task is",
);

const OPTIONS: &[OptSpec] = &[
    KERNEL_SLOTS,
    LAT_LIMIT,
    LAT_MARGIN,
    IDEMPOTENCE,
    SM_NEED,
    SELECTOR,
    DRAIN_OVH,
    KILL_LATE,
];

static CHIMERA: PolicyEntry = entry(
    "chimera",
    "Chimera: SMs split evenly between kernels; a kernel's share taken back block by block with \
     the cheapest of switch, drain and flush that meets the latency limit",
    |v| parse(v, &CHIMERA, Mode::Chimera),
    &[RegressRun::new(RegressOn::TwoStreams, "", "--kernel-sched chimera")],
);
static SWITCH_ONLY: PolicyEntry = entry(
    "switch_only",
    "Chimera's SM partitioning and victim choice, every block context switched",
    |v| parse(v, &SWITCH_ONLY, Mode::Only(Technique::Switch)),
    &[RegressRun::new(RegressOn::TwoStreams, "", "--kernel-sched switch-only")],
);
static DRAIN_ONLY: PolicyEntry = entry(
    "drain_only",
    "Chimera's SM partitioning and victim choice, every block drained",
    |v| parse(v, &DRAIN_ONLY, Mode::Only(Technique::Drain)),
    &[RegressRun::new(RegressOn::TwoStreams, "", "--kernel-sched drain-only")],
);
static FLUSH_ONLY: PolicyEntry = entry(
    "flush_only",
    "Chimera's SM partitioning and victim choice, every block flushed (drained if it cannot be)",
    |v| parse(v, &FLUSH_ONLY, Mode::Only(Technique::Flush)),
    &[RegressRun::new(RegressOn::TwoStreams, "", "--kernel-sched flush-only")],
);

const fn entry(
    name: &'static str,
    summary: &'static str,
    parse: fn(&OptValues) -> Result<SitePolicy, OptError>,
    regress: &'static [RegressRun],
) -> PolicyEntry {
    PolicyEntry {
        site: SiteKind::KernelSched,
        name,
        summary,
        blocks: &["chimera_tb"],
        options: OPTIONS,
        flag: None,
        implies: &[],
        regress,
        parse,
    }
}

fn parse(
    v: &OptValues,
    entry: &'static PolicyEntry,
    mode: Mode,
) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Chimera {
        entry,
        settings: Settings {
        mode,
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
        limit: Limit {
            cycles: v.number(&LAT_LIMIT, 1..=u32::MAX - 1)?,
            margin: v.number(&LAT_MARGIN, 0..=u32::MAX - 1)?,
        },
        idempotence: match v.raw(&IDEMPOTENCE)? {
            "sm" => Idempotence::Sm,
            "kernel" => Idempotence::Kernel,
            _ => Idempotence::Block,
        },
        need: match v.raw(&SM_NEED)? {
            "packed" => Need::Packed,
            _ => Need::Spread,
        },
        selector: match v.raw(&SELECTOR)? {
            "software" => Selector::Software,
            _ => Selector::Block,
        },
        drain: match v.raw(&DRAIN_OVH)? {
            "slot-idle" => DrainOvh::SlotIdle,
            _ => DrainOvh::Literal,
        },
        kill_late: v.flag(&KILL_LATE)?,
        },
    })))
}

#[derive(Debug)]
struct Chimera {
    entry: &'static PolicyEntry,
    settings: Settings,
}

impl KernelSchedPolicy for Chimera {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn slots(&self) -> usize {
        self.settings.slots
    }

    fn label_suffix(&self) -> String {
        let s = &self.settings;
        match s.selector {
            Selector::Block => format!("+{}({})", self.entry.name, s.limit.cycles),
            Selector::Software => format!("+{}({},software)", self.entry.name, s.limit.cycles),
        }
    }

    fn check(&self, cfg: &GpuConfig, plan: &super::Plan) -> Result<(), SimError> {
        if self.settings.selector == Selector::Block {
            tables::params(cfg)
                .map_err(|e| SimError::Config(format!("--selector block: {e}")))?;
        }
        match self.settings.mode {
            Mode::Only(t) => super::check_resume(plan, t),
            Mode::Chimera => super::check_resume(plan, Technique::Switch),
        }
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        let tables = match tables::params(cfg) {
            Ok(_) => Some(tables::Tables::new(cfg, provider)?),
            Err(_) => None,
        };
        Ok(Box::new(unit::ChimeraUnit::new(cfg, self.settings, tables)))
    }
}

#[cfg(test)]
mod tests;
