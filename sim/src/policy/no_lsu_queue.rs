//! No queue at the LSU-queue site (`--lsu-queue none`, the default): the load/store unit hands
//! its transactions to the L1D directly, retrying a refused one.

use super::{LsuQueuePolicy, OptError, OptValues, PolicyEntry, SiteKind, SitePolicy};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::lsu_queue::LsuQueueUnit;
use crate::gpu::SimError;
use std::sync::Arc;

/// `none`.
pub const ENTRIES: &[&PolicyEntry] = &[&NONE];

static NONE: PolicyEntry = PolicyEntry {
    site: SiteKind::LsuQueue,
    name: "none",
    summary: "no queue: the LSU's transactions go to the L1D directly (GPGPU-Sim's)",
    blocks: &[],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::LsuQueue(Arc::new(NoQueue)))
}

#[derive(Debug)]
struct NoQueue;

impl LsuQueuePolicy for NoQueue {
    fn entry(&self) -> &'static PolicyEntry {
        &NONE
    }

    fn label_suffix(&self) -> String {
        String::new()
    }

    fn check(&self, _: &GpuConfig) -> Result<(), SimError> {
        Ok(())
    }

    fn build<'a>(
        &self,
        _: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
        _: usize,
    ) -> Result<Option<Box<dyn LsuQueueUnit<'a> + 'a>>, SimError> {
        Ok(None)
    }
}
