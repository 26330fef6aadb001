//! GPU Maestro's kernel-aware warp scheduler (`--warp-sched kernel_lrr`): one `kernel_lrr`
//! block per scheduler, loose round robin between the SM's two kernels and GTO within each, the
//! drained warps and the boundary block of a kernel in its tail first (spec §2.4). The SM hands
//! it each warp's kernel, boundary and drain marks ([`SchedIn`]). With one kernel it issues
//! as `--warp-sched gto` does.

use super::{RegressOn, RegressRun};
use super::arbiters::{per_scheduler_label, per_scheduler_mode, scheduler_slots, PAIRED_ISSUE};
use super::{OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, WarpIssuePolicy};
use crate::block::BlockKind;
use crate::blocks::kernel_lrr::{self, KernelLrrIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::issue::{IssueMode, IssueUnit, SchedIn};
use crate::gpu::sites::Slot;
use crate::gpu::SimError;
use std::sync::Arc;

/// The policy.
pub const ENTRIES: &[&PolicyEntry] = &[&KERNEL_LRR];

static KERNEL_LRR: PolicyEntry = PolicyEntry {
    site: SiteKind::WarpIssue,
    name: "kernel_lrr",
    summary: "GPU Maestro's kernel-aware scheduling: loose round robin between an SM's two \
              kernels, GTO within each, drained warps and a finishing kernel's boundary block \
              first",
    blocks: &[<kernel_lrr::Kind as BlockKind>::NAME],
    options: &[PAIRED_ISSUE],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(
        RegressOn::TwoStreams,
        "(epoch=10000)",
        "--warp-sched kernel_lrr --kernel-sched maestro --epoch 10000 --preempt drain",
    )],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::WarpIssue(Arc::new(KernelLrr {
        paired: v.flag(&PAIRED_ISSUE)?,
    })))
}

/// A kernel-aware scheduler in every scheduler.
#[derive(Debug)]
struct KernelLrr {
    paired: bool,
}

/// The block's parameters for every scheduler of `cfg`.
fn params(cfg: &GpuConfig) -> Result<kernel_lrr::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps, cfg.sm.schedulers);
    match warps.checked_div(scheds) {
        Some(n) if warps % scheds == 0 && (2..=64).contains(&n) => Ok(kernel_lrr::Params {
            warps: n as usize,
        }),
        _ => Err(SimError::Config(format!(
            "kernel_lrr needs 2 to 64 warps per scheduler: sm.max_warps ({warps}) over \
             sm.schedulers ({scheds}) in `{}`",
            cfg.name
        ))),
    }
}

impl WarpIssuePolicy for KernelLrr {
    fn entry(&self) -> &'static PolicyEntry {
        &KERNEL_LRR
    }

    fn mode(&self) -> IssueMode {
        per_scheduler_mode(self.paired)
    }

    fn label(&self, ctx: &super::LabelCtx) -> String {
        per_scheduler_label(KERNEL_LRR.name, self.paired, ctx)
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        params(cfg).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn IssueUnit<'a> + 'a>, SimError> {
        let p = params(cfg)?;
        Ok(Box::new(KernelLrrUnit {
            slots: scheduler_slots(cfg, provider, sm, &p)?,
            mode: self.mode(),
        }))
    }
}

/// One block per scheduler.
struct KernelLrrUnit<'a> {
    slots: Vec<Slot<'a, kernel_lrr::Kind>>,
    mode: IssueMode,
}

impl<'a> IssueUnit<'a> for KernelLrrUnit<'a> {
    fn mode(&self) -> IssueMode {
        self.mode
    }

    fn what(&self) -> &'static str {
        "kernel_lrr block"
    }

    fn wants_marks(&self) -> bool {
        true
    }

    fn select(&mut self, s: usize, inp: &SchedIn) -> Result<Option<usize>, SimError> {
        let out = self.slots[s].step(&KernelLrrIn {
            ready: inp.ready,
            launch: inp.launch,
            exit: inp.exit,
            kernel: inp.kernel,
            drain: inp.drain,
            boundary: inp.boundary,
            tail: inp.tail,
        })?;
        Ok(out.grant_valid.then_some(out.grant_warp as usize))
    }
}

#[cfg(test)]
mod tests;
