//! GPU Maestro's dynamic resource partitioning (`--kernel-sched maestro`; thesis ch. V §5.4.1,
//! spec `chimera_maestro.md` §2.2, §4.7, B1-B8, M-R2-M-R4): the two oldest kernels share every
//! SM (simultaneous multikernel) by per-SM quotas of thread blocks. Every epoch (50k cycles of
//! running time, held while a repartition's preemptions complete) two dedicated SMs measure
//! each kernel alone, two trial SMs run the trial kernel (the one fewer of whose blocks fit an
//! SM) with one block more and one fewer than the followers, and the partition of least ANTT
//! (or spatial multitasking, one SM pair at a time) becomes the followers' next. The decision
//! is the command processor's software (L1228); the quotas reach each SM's allocator, whose
//! boundary blocks leave first under the 2-way allocator (`--sm-alloc twoway`, implied).
//!
//! `--partition even|spatial` fixes the thesis's baselines instead (SMK: every SM the even
//! split; Spatial: alternate SMs), with the same quotas, allocator and preemption.
//! The victims leave through Chimera's per-block choice (M-R1, [`preempt`]), or by the one
//! technique `--preempt` names. A third kernel waits until one of the pair leaves
//! (pair-groups of more kernels, B9, are not modelled). Two kernels no SM can hold a block of
//! each of at once run spatially (alternate SMs), without epochs.

mod epoch;
mod partition;
mod preempt;
mod unit;

use super::{RegressOn, RegressRun};
use super::{
    KernelSchedPolicy, OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy,
    KERNEL_SLOTS, PREEMPT,
};
use super::chimera::LAT_LIMIT;
use crate::blocks::DynProvider;
use preempt::{How, Preemption};
use unit::Partitioning;
use crate::config::GpuConfig;
use crate::core::twoway::Caps;
use crate::gpu::sites::kernel_sched::{KernelSchedUnit, Technique};
use crate::gpu::SimError;
use std::sync::Arc;

/// `maestro`.
pub const ENTRIES: &[&PolicyEntry] = &[&MAESTRO];

/// `--epoch CYCLES`.
const EPOCH: OptSpec = OptSpec::value(
    "epoch",
    "CYCLES",
    "50000",
    "Cycles of an epoch between two repartitioning decisions (the thesis's 50,000; >= 1)",
);

/// `--partition dynamic|even|spatial`.
const PARTITION: OptSpec = OptSpec::value(
    "partition",
    "HOW",
    "dynamic",
    "How the SMs are split between the pair: dynamic (Maestro's epochs), even (every SM takes \
     what fits in half of every resource of each: the thesis's SMK baseline), spatial \
     (alternate SMs to each kernel: its Spatial baseline); the fixed ones run no epochs",
)
.one_of(&["dynamic", "even", "spatial"]);

static MAESTRO: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "maestro",
    summary: "GPU Maestro: two kernels share every SM by per-SM block quotas, repartitioned \
              every epoch from dedicated, trial and follower SMs' ANTT",
    blocks: &[],
    options: &[KERNEL_SLOTS, PREEMPT, LAT_LIMIT, EPOCH, PARTITION],
    flag: None,
    implies: &[("sm-alloc", "twoway")],
    regress: &[RegressRun::new(
        RegressOn::TwoStreams,
        "(epoch=10000)",
        "--kernel-sched maestro --epoch 10000 --preempt switch",
    )],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    let limit = match v.given(LAT_LIMIT.name) {
        Some(_) => Some(v.number(&LAT_LIMIT, 1..=u32::MAX - 1)?),
        None => None,
    };
    let how = match v.given(PREEMPT.name) {
        None | Some("chimera") => How::Chimera(limit),
        Some(_) if limit.is_some() => {
            return Err(OptError::Other(
                "--lat-limit needs --preempt chimera (a fixed technique has no limit to meet)"
                    .into(),
            ))
        }
        Some(_) => How::Fixed(super::fixed_technique(v)?),
    };
    Ok(SitePolicy::KernelSched(Arc::new(Maestro {
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
        how,
        epoch: v.number(&EPOCH, 1..=u64::MAX)?,
        partitioning: match v.raw(&PARTITION)? {
            "even" => Partitioning::Even,
            "spatial" => Partitioning::Spatial,
            _ => Partitioning::Dynamic,
        },
    })))
}

#[derive(Debug)]
struct Maestro {
    slots: usize,
    how: How,
    epoch: u64,
    partitioning: Partitioning,
}

impl KernelSchedPolicy for Maestro {
    fn entry(&self) -> &'static PolicyEntry {
        &MAESTRO
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn label_suffix(&self) -> String {
        let mut parts = vec![self.how.name().to_string()];
        if let How::Chimera(Some(limit)) = self.how {
            parts.push(limit.to_string());
        }
        match self.partitioning {
            Partitioning::Dynamic => {}
            Partitioning::Even => parts.push("partition=even".into()),
            Partitioning::Spatial => parts.push("partition=spatial".into()),
        }
        format!("+maestro({})", parts.join(","))
    }

    fn check(&self, _: &GpuConfig, plan: &super::Plan) -> Result<(), SimError> {
        let t = match self.how {
            How::Fixed(t) => t,
            How::Chimera(_) => Technique::Switch,
        };
        super::check_resume(plan, t)
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(unit::MaestroUnit::new(
            self.slots,
            Preemption::new(self.how, cfg, self.slots),
            (self.partitioning, self.epoch),
            caps_of(cfg),
        )))
    }
}

/// The SM of `cfg` as the 2-way layout counts it.
fn caps_of(cfg: &GpuConfig) -> Caps {
    let sm = &cfg.sm;
    Caps::of_sm(sm.max_threads, sm.max_blocks, sm.registers, sm.shared_mem_bytes)
}

#[cfg(test)]
mod tests;
