//! GPU Maestro's 2-way resource allocation at every SM's resource-allocation site
//! (`--sm-alloc twoway`; thesis ch. V §5.4.2, spec `chimera_maestro.md` §2.3, M-R2, B11): two
//! kernels share an SM's registers and shared memory from opposite ends, so the space a
//! kernel frees always joins the middle (no fragmentation); the SM places each block at the
//! slot and bases the allocator gives ([`crate::gpu::sites::alloc::Place`]) and a quota keeps
//! a kernel's blocks below a slot. A third kernel waits until an end's kernel has left the SM.
//!
//! The unit is the `twoway_alloc` block at each SM (golden: [`crate::core::twoway`] behind
//! ports; `--rtl`/`--lockstep twoway_alloc`); registers count in warp-register rows, shared
//! memory in 256 B units. A kernel whose shared memory the units
//! would round to fewer blocks per SM than the byte-exact rule is refused before the run
//! (M-R5).

use super::{RegressOn, RegressRun};
use super::{OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, SmAllocPolicy};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::block::BlockKind;
use crate::blocks::twoway_alloc::{self, TwoWayIn};
use crate::core::twoway::{alone, Caps, Need, SMEM_UNIT};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::kernel::KernelCtx;
use crate::gpu::sites::alloc::{AllocRequest, AllocUnit, Place, MAX_PLACE_SLOTS};
use crate::gpu::SimError;
use std::sync::Arc;

mod first_fit;

/// `twoway`, `first_fit`.
pub const ENTRIES: &[&PolicyEntry] = &[&TWOWAY, &FIRST_FIT];

static TWOWAY: PolicyEntry = PolicyEntry {
    site: SiteKind::SmAlloc,
    name: "twoway",
    summary: "GPU Maestro's 2-way allocator: two kernels take registers and shared memory from opposite ends of each SM",
    blocks: &[<twoway_alloc::Kind as BlockKind>::NAME],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(
        RegressOn::TwoStreams,
        "+twoway",
        "--kernel-sched smk --sm-alloc twoway",
    )],
    parse,
};

static FIRST_FIT: PolicyEntry = PolicyEntry {
    site: SiteKind::SmAlloc,
    name: "first_fit",
    summary: "first-fit placement of registers and shared memory, the baseline of GPU Maestro's 2-way allocator (it fragments)",
    blocks: &[],
    options: &[],
    flag: None,
    implies: &[],
    regress: &[],
    parse: parse_first_fit,
};

fn parse(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::SmAlloc(Arc::new(TwoWayAlloc { first_fit: false })))
}

fn parse_first_fit(_: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::SmAlloc(Arc::new(TwoWayAlloc { first_fit: true })))
}

/// The 2-way allocator, or (`first_fit`) its first-fit baseline, on every SM.
#[derive(Debug)]
struct TwoWayAlloc {
    first_fit: bool,
}

fn caps(cfg: &GpuConfig) -> Caps {
    let sm = &cfg.sm;
    Caps::of_sm(sm.max_threads, sm.max_blocks, sm.registers, sm.shared_mem_bytes)
}

impl SmAllocPolicy for TwoWayAlloc {
    fn entry(&self) -> &'static PolicyEntry {
        match self.first_fit {
            false => &TWOWAY,
            true => &FIRST_FIT,
        }
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        match cfg.sm.max_blocks {
            b if b > MAX_PLACE_SLOTS => Err(SimError::Config(format!(
                "--sm-alloc {}: {b} thread-block slots per SM; the allocator tracks at most {MAX_PLACE_SLOTS}",
                self.entry().name
            ))),
            _ => Ok(()),
        }
    }

    fn check_kernel(&self, cfg: &GpuConfig, kernel: &KernelCtx) -> Result<(), SimError> {
        let by_units = alone(caps(cfg), Need::of_resources(kernel.need));
        let exact = kernel.occupancy.blocks;
        if by_units < exact {
            return Err(SimError::Config(format!(
                "--sm-alloc {}: kernel `{}`: its {} B of shared memory per block in {SMEM_UNIT} B units let {by_units} blocks share an SM, fewer than the {exact} that fit byte by byte (spec M-R5)",
                self.entry().name, kernel.info.name, kernel.need[2]
            )));
        }
        Ok(())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn AllocUnit<'a> + 'a>, SimError> {
        if self.first_fit {
            return Ok(Box::new(first_fit::FirstFitUnit::new(cfg)));
        }
        let site = Site::Sm {
            sm,
            block: <twoway_alloc::Kind as BlockKind>::NAME,
        };
        Ok(Box::new(TwoWayUnit {
            block: Slot::new(provider, site, &block_params(cfg))?,
            taken: [0; 2],
            grants: [None; 2],
            counts: Counts::default(),
        }))
    }
}

/// An allocator's counters over a run (cycles, summed over the SMs in the report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// A kernel was offered.
    offered: u64,
    /// ... and not even one block had room.
    refused: u64,
    /// ... although the free space, were it one piece, held one within the kernel's quota:
    /// refused by fragmentation.
    fragmented: u64,
    /// ... because both ends held other kernels (the 2-way allocator's two-kernel limit).
    no_end: u64,
}

impl Counts {
    fn report(&self) -> std::collections::BTreeMap<&'static str, u64> {
        [
            ("offered_cycles", self.offered),
            ("refused_cycles", self.refused),
            ("fragmented_cycles", self.fragmented),
            ("no_end_cycles", self.no_end),
        ]
        .into()
    }

    /// One cycle's offer: refused or not, and whether by fragmentation or for want of an end.
    fn count(&mut self, room: bool, fragmented: bool, no_end: bool) {
        self.offered += 1;
        self.refused += u64::from(!room);
        self.fragmented += u64::from(!room && fragmented);
        self.no_end += u64::from(!room && no_end);
    }
}

/// The `twoway_alloc` block's parameters for `cfg`: its SM's capacities in the block's units.
pub fn block_params(cfg: &GpuConfig) -> twoway_alloc::Params {
    let c = caps(cfg);
    twoway_alloc::Params {
        threads: c.threads,
        blocks: c.blocks,
        rows: c.units[0],
        units: c.units[1],
    }
}

/// One SM's 2-way allocator: the `twoway_alloc` block.
struct TwoWayUnit<'a> {
    block: Slot<'a, twoway_alloc::Kind>,
    /// Per end, the slots the SM holds (to check its reports).
    taken: [u64; 2],
    /// Where the first and second block made resident after the last step go.
    grants: [Option<Place>; 2],
    counts: Counts,
}

impl TwoWayUnit<'_> {
    /// Checks the SM's reports of the slots taken and freed since the last step.
    fn take_reports(&mut self, req: &AllocRequest) -> Result<(), SimError> {
        for (e, taken) in self.taken.iter_mut().enumerate() {
            let (placed, freed) = (req.placed[e], req.freed[e]);
            if let Some(slot) = bits(placed & *taken).next() {
                return Err(protocol(format!("a block placed in taken slot {slot} of end {e}")));
            }
            *taken |= placed;
            if let Some(slot) = bits(freed & !*taken).next() {
                return Err(protocol(format!("free slot {slot} of end {e} given back")));
            }
            *taken &= !freed;
        }
        Ok(())
    }
}

fn protocol(what: String) -> SimError {
    SimError::Protocol(format!("twoway allocator: {what}"))
}

/// The set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        let b = (mask != 0).then(|| mask.trailing_zeros())?;
        mask &= mask - 1;
        Some(b)
    })
}

impl<'a> AllocUnit<'a> for TwoWayUnit<'a> {
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError> {
        self.take_reports(req)?;
        let need = Need::of_resources(req.need);
        let inp = TwoWayIn {
            offer: req.kernel.is_some(),
            kernel: req.kernel.unwrap_or(0) & 0xffff,
            need_threads: need.threads,
            need_rows: need.units[0],
            need_units: need.units[1],
            quota: req.quota.map_or(0xffff, |q| q.min(0xffff)),
            placed_lo: req.placed[0],
            placed_hi: req.placed[1],
            freed_lo: req.freed[0],
            freed_hi: req.freed[1],
        };
        let out = self.block.step(&inp)?;
        let place = |slot: u32, rows: u32, units: u32| Place {
            end: u8::from(out.high),
            slot: slot as u8,
            stacked: true,
            base: [rows, units],
        };
        self.grants = [
            out.room
                .then(|| place(out.slot0, out.base0_rows, out.base0_units)),
            out.room2
                .then(|| place(out.slot1, out.base1_rows, out.base1_units)),
        ];
        if inp.offer {
            self.counts.count(out.room, out.fragmented, !out.held);
        }
        Ok((out.room, out.room2))
    }

    fn place(&self, nth: usize) -> Option<Place> {
        self.grants[nth]
    }

    fn report(&self) -> std::collections::BTreeMap<&'static str, u64> {
        self.counts.report()
    }
}

#[cfg(test)]
mod tests;
