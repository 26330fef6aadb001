//! GPU Maestro's 2-way resource allocation at every SM's resource-allocation site
//! (`--sm-alloc twoway`; thesis ch. V §5.4.2, spec `chimera_maestro.md` §2.3, M-R2, B11): two
//! kernels share an SM's registers and shared memory from opposite ends, so the space a
//! kernel frees always joins the middle (no fragmentation); the SM places each block at the
//! slot and bases the allocator gives ([`crate::gpu::sites::alloc::Place`]) and a quota keeps
//! a kernel's blocks below a slot. A third kernel waits until an end's kernel has left the SM.
//!
//! The unit is the golden model of the allocator ([`crate::core::twoway`]); registers count in
//! warp-register rows, shared memory in 256 B units. A kernel whose shared memory the units
//! would round to fewer blocks per SM than the byte-exact rule is refused before the run
//! (M-R5).

use super::{OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, SmAllocPolicy};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::core::twoway::{alone, Caps, End, Need, TwoWay, SMEM_UNIT};
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
    blocks: &[],
    options: &[],
    flag: None,
    implies: &[],
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
        _: &mut dyn DynProvider<'a>,
        _: usize,
    ) -> Result<Box<dyn AllocUnit<'a> + 'a>, SimError> {
        if self.first_fit {
            return Ok(Box::new(first_fit::FirstFitUnit::new(cfg)));
        }
        Ok(Box::new(TwoWayUnit {
            layout: TwoWay::new(caps(cfg)),
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

/// One SM's 2-way allocator.
struct TwoWayUnit {
    layout: TwoWay,
    /// Where the first and second block made resident after the last step go.
    grants: [Option<Place>; 2],
    counts: Counts,
}

impl TwoWayUnit {
    /// Takes the SM's reports of the slots taken and freed since the last step.
    fn take_reports(&mut self, req: &AllocRequest) -> Result<(), SimError> {
        for (end, placed, freed) in End::BOTH
            .into_iter()
            .zip(req.placed)
            .zip(req.freed)
            .map(|((e, p), f)| (e, p, f))
        {
            for slot in bits(placed) {
                if !self.layout.occupy(end, slot) {
                    return Err(protocol(format!("a block placed in taken slot {slot} of end {end:?}")));
                }
            }
            for slot in bits(freed) {
                if !self.layout.release(end, slot) {
                    return Err(protocol(format!("free slot {slot} of end {end:?} given back")));
                }
            }
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

impl<'a> AllocUnit<'a> for TwoWayUnit {
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError> {
        self.take_reports(req)?;
        self.grants = [None; 2];
        let Some(kernel) = req.kernel else {
            return Ok((false, false));
        };
        let need = Need::of_resources(req.need);
        let Ok(end) = self.layout.claim(kernel, need) else {
            self.counts.count(false, false, true);
            return Ok((false, false));
        };
        let quota = req.quota.unwrap_or(u32::MAX);
        self.layout.set_quota(end, quota);
        let place = |g: crate::core::twoway::Grant| Place {
            end: g.end as u8,
            slot: g.slot as u8,
            stacked: true,
            base: g.base,
        };
        self.grants = self.layout.next_two(end).map(|g| g.map(place));
        let room = self.grants[0].is_some();
        let whole = self.layout.fits_in_total(need) && self.layout.live(end) < quota;
        self.counts.count(room, whole, false);
        Ok((room, self.grants[1].is_some()))
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
