//! One kernel at a time (`--kernel-sched serial`, the default): the GPU holds one kernel, which
//! every SM serves, and the next one starts when it has finished, whatever their streams (what
//! Accel-Sim does without `-gpgpu_concurrent_kernel_sm`).

use crate::blocks::DynProvider;
use super::{KernelSchedPolicy, OptError, OptValues, PolicyEntry, SiteKind, SitePolicy};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, KernelSchedUnit};
use crate::gpu::SimError;
use std::sync::Arc;

/// `serial`.
pub const ENTRIES: &[&PolicyEntry] = &[&SERIAL];

static SERIAL: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "serial",
    summary: "one kernel at a time, on every SM, in arrival order (Accel-Sim's default)",
    blocks: &[],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Serial)))
}

#[derive(Debug)]
struct Serial;

impl KernelSchedPolicy for Serial {
    fn entry(&self) -> &'static PolicyEntry {
        &SERIAL
    }

    fn slots(&self) -> usize {
        1
    }

    fn label_suffix(&self) -> String {
        String::new()
    }

    fn build<'a>(
        &self,
        _: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(SerialUnit))
    }
}

/// Every SM serves the one kernel.
struct SerialUnit;

impl KernelSchedUnit for SerialUnit {
    fn slots(&self) -> usize {
        1
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let k = inp.kernels[0].map(|_| 0);
        if out.offer.first() != Some(&k) {
            out.offer.fill(k);
        }
        Ok(())
    }
}
