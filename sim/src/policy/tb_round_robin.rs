//! Round-robin thread-block dispatch (`--tb-sched lrr|bcs`): the `tb_dispatch` block, LRR as
//! GPGPU-Sim's `issue_block2core` with one core per cluster, and BCS (Lee et al., HPCA'14:
//! consecutive pairs of blocks to one SM).

use super::{PolicyEntry, SiteKind, SitePolicy, TbDispatchPolicy};
use crate::block::BlockKind;
use crate::blocks::tb_dispatch::{self, DispatchIn as BlockIn, Policy};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::KernelCtx;
use crate::gpu::sites::dispatch::{DispatchIn, DispatchUnit, Grant};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use std::sync::Arc;

/// `lrr` and `bcs`.
pub const ENTRIES: &[&PolicyEntry] = &[&LRR, &BCS];

static LRR: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "lrr",
    summary: "loose round robin: each SM with room receives the next block (GPGPU-Sim's)",
    blocks: &[<tb_dispatch::Kind as BlockKind>::NAME],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[],
    parse: |_| Ok(policy(Policy::Lrr, &LRR)),
};

static BCS: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "bcs",
    summary: "block CTA scheduling: consecutive pairs of blocks to an SM with room for two",
    blocks: &[<tb_dispatch::Kind as BlockKind>::NAME],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[],
    parse: |_| Ok(policy(Policy::Bcs, &BCS)),
};

fn policy(policy: Policy, entry: &'static PolicyEntry) -> SitePolicy {
    SitePolicy::TbDispatch(Arc::new(RoundRobin { entry, policy }))
}

#[derive(Debug)]
struct RoundRobin {
    entry: &'static PolicyEntry,
    policy: Policy,
}

/// The dispatcher's parameters for `cfg` (at most [`tb_dispatch::MAX_SMS`] SMs).
pub fn tb_dispatch_params(cfg: &GpuConfig, policy: Policy) -> Result<tb_dispatch::Params, SimError> {
    let sms = cfg.sm.count as usize;
    if !(1..=tb_dispatch::MAX_SMS).contains(&sms) {
        return Err(SimError::Config(format!(
            "the thread-block dispatcher serves 1 to {} SMs; `{}` has {sms}",
            tb_dispatch::MAX_SMS,
            cfg.name
        )));
    }
    Ok(tb_dispatch::Params::new(policy, sms))
}

impl TbDispatchPolicy for RoundRobin {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        tb_dispatch_params(cfg, self.policy).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        slot: usize,
    ) -> Result<Box<dyn DispatchUnit<'a> + 'a>, SimError> {
        let site = Site::dispatch(slot, <tb_dispatch::Kind as BlockKind>::NAME);
        let p = tb_dispatch_params(cfg, self.policy)?;
        Ok(Box::new(RoundRobinUnit {
            slot: Slot::new(provider, site, &p)?,
            sms: p.sms,
        }))
    }
}

/// The `tb_dispatch` block at the dispatch site.
struct RoundRobinUnit<'a> {
    slot: Slot<'a, tb_dispatch::Kind>,
    sms: usize,
}

impl<'a> DispatchUnit<'a> for RoundRobinUnit<'a> {
    fn start_kernel(&mut self, _: &KernelCtx) {}

    fn step(&mut self, inp: &DispatchIn, grants: &mut Vec<Grant>) -> Result<(), SimError> {
        grants.clear();
        let out = self.slot.step(&BlockIn {
            start: inp.start,
            total: inp.total,
            max_per_sm: inp.max_per_sm,
            room: inp.room,
            room2: inp.room2,
        })?;
        grants.extend(
            out.grants(self.sms)
                .map(|(sm, id)| Grant { sm, id, slot: None }),
        );
        Ok(())
    }
}
