//! GPGPU-Sim's occupancy rule at every SM's resource-allocation site (`--sm-alloc occupancy`,
//! the default): the `sm_alloc` block counts threads, registers, shared memory and block slots
//! and says whether one or two more blocks fit.

use super::{OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, SmAllocPolicy};
use crate::block::BlockKind;
use crate::blocks::sm_alloc::{self, AllocIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::alloc::{AllocRequest, AllocUnit};
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
    regress: &[],
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
        Ok(Box::new(OccupancyUnit {
            block: Slot::new(provider, site, &sm_alloc_params(cfg))?,
            inp: AllocIn::default(),
        }))
    }
}

/// The `sm_alloc` block at an SM's resource-allocation site.
struct OccupancyUnit<'a> {
    block: Slot<'a, sm_alloc::Kind>,
    /// The block's inputs, rewritten only in the cycles they change (most cycles the block
    /// reads inputs stored long before: no store-forwarding stall on the host).
    inp: AllocIn,
}

impl<'a> AllocUnit<'a> for OccupancyUnit<'a> {
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError> {
        let (n, a, r) = (&req.need, &req.allocated, &req.released);
        let inp = AllocIn {
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
        };
        if inp != self.inp {
            self.inp = inp;
        }
        let out = self.block.step(&self.inp)?;
        // The block writes its two outputs as two bytes: read them one by one (a two-byte
        // load of both stalls the host on store forwarding).
        Ok((
            std::hint::black_box(out.room),
            std::hint::black_box(out.room2),
        ))
    }

    fn holds(&self) -> bool {
        self.block.held()
    }
}
