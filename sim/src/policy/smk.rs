//! Simultaneous multikernel as GPGPU-Sim's `-gpgpu_concurrent_kernel_sm 1` (`--kernel-sched
//! smk`): every SM is offered [`select_kernel`]'s kernel every cycle, the one that last received
//! a block while it has blocks left, and takes its blocks while their resources fit beside those
//! of the kernels already resident (intra-SM sharing): a kernel gets SMs only once the kernel
//! before it has dispatched every block.

use crate::blocks::DynProvider;
use super::fcfs::select_kernel;
use super::{
    KernelSchedPolicy, OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, KERNEL_SLOTS,
};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, KernelSchedUnit};
use crate::gpu::SimError;
use std::sync::Arc;

/// `smk`.
pub const ENTRIES: &[&PolicyEntry] = &[&SMK];

static SMK: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "smk",
    summary: "intra-SM sharing, as GPGPU-Sim's -gpgpu_concurrent_kernel_sm 1: every SM takes \
              blocks of the latest-issued kernel with blocks left, beside other kernels' blocks",
    blocks: &[],
    options: &[KERNEL_SLOTS],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Smk {
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
    })))
}

#[derive(Debug)]
struct Smk {
    slots: usize,
}

impl KernelSchedPolicy for Smk {
    fn entry(&self) -> &'static PolicyEntry {
        &SMK
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn build<'a>(
        &self,
        _: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(SmkUnit {
            slots: self.slots,
            last: 0,
        }))
    }
}

/// `select_kernel`'s memory.
struct SmkUnit {
    slots: usize,
    last: usize,
}

impl KernelSchedUnit for SmkUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        // Every SM asks in turn; after the first, `last` holds the answer: one call is all.
        out.offer.fill(select_kernel(inp, &mut self.last));
        Ok(())
    }
}
