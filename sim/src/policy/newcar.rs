//! NewCAR (seed 003 ch. III §2): a re-execution queue of [`NEWCAR_ENTRIES`] slots between every
//! LSU and its L1D (`--lsu-queue newcar`, or `--newcar`), the `newcar` block deciding where each
//! transaction goes and which queued one to retry.

use super::{LsuQueuePolicy, OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy};
use crate::block::BlockKind;
use crate::blocks::newcar::{self, NewcarIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::lsu_queue::{LsuQueueUnit, QueueIn, QueueOut};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use std::sync::Arc;

/// NewCAR queue entries (spec §2.1: 32, as Mascar's CAR).
pub const NEWCAR_ENTRIES: usize = 32;

/// The policy's name.
pub const NAME: &str = "newcar";

/// `newcar`.
pub const ENTRIES: &[&PolicyEntry] = &[&NEWCAR];

static NEWCAR: PolicyEntry = PolicyEntry {
    site: SiteKind::LsuQueue,
    name: NAME,
    summary: "NewCAR re-execution queue of 32 entries between the LSU and the L1D (seed 003 \
              ch. III)",
    blocks: &[<newcar::Kind as BlockKind>::NAME],
    options: &[],
    flag: Some(OptSpec::flag(
        "newcar",
        "Put a NewCAR re-execution queue (32 entries) between every LSU and its L1D (as \
         --lsu-queue newcar)",
    )),
    implies: &[],
    regress: &[],
    parse,
};

fn parse(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::LsuQueue(Arc::new(NewcarQueue)))
}

#[derive(Debug)]
struct NewcarQueue;

/// The NewCAR queue's parameters for `cfg` ([`NEWCAR_ENTRIES`] entries, at most 64 warps per
/// SM).
pub fn newcar_params(cfg: &GpuConfig) -> Result<newcar::Params, SimError> {
    let warps = cfg.sm.max_warps as usize;
    if !(1..=64).contains(&warps) {
        return Err(SimError::Config(format!(
            "NewCAR needs at most 64 warps per SM; `{}` has {warps}",
            cfg.name
        )));
    }
    Ok(newcar::Params {
        entries: NEWCAR_ENTRIES,
        warps,
    })
}

impl LsuQueuePolicy for NewcarQueue {
    fn entry(&self) -> &'static PolicyEntry {
        &NEWCAR
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        newcar_params(cfg).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Option<Box<dyn LsuQueueUnit<'a> + 'a>>, SimError> {
        let site = Site::Sm {
            sm,
            block: <newcar::Kind as BlockKind>::NAME,
        };
        let slot = Slot::new(provider, site, &newcar_params(cfg)?)?;
        Ok(Some(Box::new(NewcarUnit(slot))))
    }
}

/// The `newcar` block at an SM's LSU-queue site.
struct NewcarUnit<'a>(Slot<'a, newcar::Kind>);

impl<'a> LsuQueueUnit<'a> for NewcarUnit<'a> {
    fn entries(&self) -> usize {
        NEWCAR_ENTRIES
    }

    fn step(&mut self, inp: &QueueIn) -> Result<QueueOut, SimError> {
        let out = self.0.step(&NewcarIn {
            lsu_valid: inp.lsu_valid,
            lsu_warp: inp.lsu_warp,
            lsu_store: inp.lsu_store,
            lsu_accept: inp.lsu_accept,
            q_accept: inp.q_accept,
        })?;
        Ok(QueueOut {
            lsu_to_cache: out.lsu_to_cache,
            enq_valid: out.enq_valid,
            enq_slot: out.enq_slot,
            try_valid: out.try_valid,
            try_slot: out.try_slot,
            deq_valid: out.deq_valid,
        })
    }
}
