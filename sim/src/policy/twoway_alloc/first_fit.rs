//! The baseline GPU Maestro's 2-way allocation is measured against (`--sm-alloc first_fit`;
//! thesis Fig. 5.4): each block takes, per resource, the lowest free interval it fits in, so
//! the space blocks free can be left in pieces no block of the other kernel fits. Any number
//! of kernels may share an SM. Blocks take the SM's lowest free slot numbers (end 0).

use super::{bits, caps, protocol, Counts};
use crate::config::GpuConfig;
use crate::core::twoway::{FirstFit, Need};
use crate::gpu::sites::alloc::{AllocRequest, AllocUnit, Place, MAX_PLACE_SLOTS};
use crate::gpu::SimError;

/// One SM's first-fit allocator.
pub(super) struct FirstFitUnit {
    layout: FirstFit,
    /// Per slot: the block's id in the layout and its need.
    held: Vec<Option<(u64, Need)>>,
    /// What the last step's grants were for.
    granted: Need,
    grants: [Option<Place>; 2],
    counts: Counts,
}

impl FirstFitUnit {
    /// An empty SM of `cfg`.
    pub(super) fn new(cfg: &GpuConfig) -> Self {
        Self {
            layout: FirstFit::new(caps(cfg)),
            held: vec![None; MAX_PLACE_SLOTS as usize],
            granted: Need::of_resources([0; 4]),
            grants: [None; 2],
            counts: Counts::default(),
        }
    }

    fn take_reports(&mut self, req: &AllocRequest) -> Result<(), SimError> {
        if req.placed[1] != 0 || req.freed[1] != 0 {
            return Err(protocol("a first-fit block at end 1".into()));
        }
        for slot in bits(req.placed[0]).map(|s| s as usize) {
            if self.held[slot].is_some() {
                return Err(protocol(format!("a block placed in taken slot {slot}")));
            }
            let (id, _) = self
                .layout
                .allocate(self.granted)
                .ok_or_else(|| protocol(format!("slot {slot} placed without room")))?;
            self.held[slot] = Some((id, self.granted));
        }
        for slot in bits(req.freed[0]).map(|s| s as usize) {
            let (id, need) = self.held[slot]
                .take()
                .ok_or_else(|| protocol(format!("free slot {slot} given back")))?;
            self.layout.release(id, need);
        }
        Ok(())
    }
}

impl<'a> AllocUnit<'a> for FirstFitUnit {
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError> {
        self.take_reports(req)?;
        self.grants = [None; 2];
        if req.kernel.is_none() {
            return Ok((false, false));
        }
        self.granted = Need::of_resources(req.need);
        let mut after = self.layout.clone();
        let mut slots = (0..self.held.len()).filter(|&s| self.held[s].is_none());
        let mut grants = [None; 2];
        for g in &mut grants {
            let (Some(slot), Some((_, base))) = (slots.next(), after.allocate(self.granted)) else {
                break;
            };
            *g = Some(Place {
                end: 0,
                slot: slot as u8,
                stacked: false,
                base,
            });
        }
        self.grants = grants;
        let room = grants[0].is_some();
        let whole = self.layout.fits_in_total(self.granted);
        self.counts.count(room, whole, false);
        Ok((room, grants[1].is_some()))
    }

    fn place(&self, nth: usize) -> Option<Place> {
        self.grants[nth]
    }

    fn report(&self) -> std::collections::BTreeMap<&'static str, u64> {
        self.counts.report()
    }
}
