//! GPGPU-Sim's occupancy rule at every SM's resource-allocation site (`--sm-alloc occupancy`,
//! the default): the `sm_alloc` block counts threads, registers, shared memory and block slots
//! and says whether one or two more blocks fit.

use super::{OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, SmAllocPolicy};
use crate::block::BlockKind;
use crate::blocks::sm_alloc::{self, AllocIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::alloc::{AllocUnit, Resources};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use std::sync::Arc;

/// `occupancy`.
pub const ENTRIES: &[&PolicyEntry] = &[&OCCUPANCY];

static OCCUPANCY: PolicyEntry = PolicyEntry {
    site: SiteKind::SmAlloc,
    name: "occupancy",
    summary: "GPGPU-Sim's occupancy rule: four resource counters against the SM's capacities",
    blocks: &[<sm_alloc::Kind as BlockKind>::NAME],
    options: &[],
    flag: None,
    implies: &[],
    parse,
};

fn parse(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::SmAlloc(Arc::new(Occupancy)))
}

#[derive(Debug)]
struct Occupancy;

/// The resource allocator's parameters for `cfg`: its SM's capacities.
pub fn sm_alloc_params(cfg: &GpuConfig) -> sm_alloc::Params {
    sm_alloc::Params {
        threads: cfg.sm.max_threads,
        registers: cfg.sm.registers,
        shared_mem: cfg.sm.shared_mem_bytes,
        blocks: cfg.sm.max_blocks,
    }
}

impl SmAllocPolicy for Occupancy {
    fn entry(&self) -> &'static PolicyEntry {
        &OCCUPANCY
    }

    fn check(&self, _: &GpuConfig) -> Result<(), SimError> {
        Ok(())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn AllocUnit<'a> + 'a>, SimError> {
        let site = Site::Sm {
            sm,
            block: <sm_alloc::Kind as BlockKind>::NAME,
        };
        Ok(Box::new(OccupancyUnit(Slot::new(
            provider,
            site,
            &sm_alloc_params(cfg),
        )?)))
    }
}

/// The `sm_alloc` block at an SM's resource-allocation site.
struct OccupancyUnit<'a>(Slot<'a, sm_alloc::Kind>);

impl<'a> AllocUnit<'a> for OccupancyUnit<'a> {
    fn step(
        &mut self,
        n: Resources,
        a: Resources,
        r: Resources,
    ) -> Result<(bool, bool), SimError> {
        let out = self.0.step(&AllocIn {
            need_threads: n[0],
            need_regs: n[1],
            need_smem: n[2],
            alloc_threads: a[0],
            alloc_regs: a[1],
            alloc_smem: a[2],
            alloc_blocks: a[3],
            free_threads: r[0],
            free_regs: r[1],
            free_smem: r[2],
            free_blocks: r[3],
        })?;
        Ok((out.room, out.room2))
    }
}
