//! Chimera's kernel scheduler (seed 003 ch. IV; `--kernel-sched chimera`) and its
//! single-technique baselines (`switch-only`, `drain-only`, `flush-only`, §6 C-R3): the SMs are
//! partitioned between the kernels held ([`partition`]); a kernel short of its share takes idle
//! SMs first, then SMs of a kernel over its share, chosen and preempted block by block by the
//! `chimera_tb` selector (each block by the cheapest technique that meets `--lat-limit`,
//! [`crate::blocks::chimera_tb`]). Each preemption request is reported with its measured
//! handover latency against the limit (`kernel_sched_stats`).

mod partition;
mod unit;

use super::{
    KernelSchedPolicy, OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy,
    KERNEL_SLOTS,
};
use crate::blocks::chimera_tb::select::{Limit, Mode};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedUnit, Technique};
use crate::gpu::SimError;
use std::sync::Arc;
use partition::Need;
pub use unit::Idempotence;

/// `chimera`, `switch-only`, `drain-only`, `flush-only`.
pub const ENTRIES: &[&PolicyEntry] = &[&CHIMERA, &SWITCH_ONLY, &DRAIN_ONLY, &FLUSH_ONLY];

const LAT_LIMIT: OptSpec = OptSpec::value(
    "lat-limit",
    "CYCLES",
    "21000",
    "Preemption latency limit: cycles from a request to the handover of every SM it takes \
     (the thesis's 15 us at 1.4 GHz)",
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

const OPTIONS: &[OptSpec] = &[KERNEL_SLOTS, LAT_LIMIT, LAT_MARGIN, IDEMPOTENCE, SM_NEED];

static CHIMERA: PolicyEntry = entry(
    "chimera",
    "Chimera: SMs split evenly between kernels; a kernel's share taken back block by block with \
     the cheapest of switch, drain and flush that meets the latency limit",
    |v| parse(v, &CHIMERA, Mode::Chimera),
);
static SWITCH_ONLY: PolicyEntry = entry(
    "switch_only",
    "Chimera's SM partitioning and victim choice, every block context switched",
    |v| parse(v, &SWITCH_ONLY, Mode::Only(Technique::Switch)),
);
static DRAIN_ONLY: PolicyEntry = entry(
    "drain_only",
    "Chimera's SM partitioning and victim choice, every block drained",
    |v| parse(v, &DRAIN_ONLY, Mode::Only(Technique::Drain)),
);
static FLUSH_ONLY: PolicyEntry = entry(
    "flush_only",
    "Chimera's SM partitioning and victim choice, every block flushed (drained if it cannot be)",
    |v| parse(v, &FLUSH_ONLY, Mode::Only(Technique::Flush)),
);

const fn entry(
    name: &'static str,
    summary: &'static str,
    parse: fn(&OptValues) -> Result<SitePolicy, OptError>,
) -> PolicyEntry {
    PolicyEntry {
        site: SiteKind::KernelSched,
        name,
        summary,
        blocks: &[],
        options: OPTIONS,
        flag: None,
        implies: &[],
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
    })))
}

#[derive(Debug)]
struct Chimera {
    entry: &'static PolicyEntry,
    mode: Mode,
    slots: usize,
    limit: Limit,
    idempotence: Idempotence,
    need: Need,
}

impl KernelSchedPolicy for Chimera {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn label_suffix(&self) -> String {
        format!("+{}({})", self.entry.name, self.limit.cycles)
    }

    fn check(&self, _: &GpuConfig, plan: &super::Plan) -> Result<(), SimError> {
        match self.mode {
            Mode::Only(t) => super::check_resume(plan, t),
            Mode::Chimera => super::check_resume(plan, Technique::Switch),
        }
    }

    fn build(&self, cfg: &GpuConfig) -> Result<Box<dyn KernelSchedUnit>, SimError> {
        Ok(Box::new(unit::ChimeraUnit::new(
            cfg,
            self.slots,
            self.mode,
            self.limit,
            self.idempotence,
            self.need,
        )))
    }
}

#[cfg(test)]
mod tests;
