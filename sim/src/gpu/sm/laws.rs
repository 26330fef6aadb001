//! What sits at a scheduler's warp-issue site: a warp arbiter (LRR, GTO, two-level), or the
//! locality-aware two-level scheduler (`locality_degree`, `--warp-sched laws`), which also
//! needs each launched warp's access-range vector (from the address pre-computation,
//! [`crate::analysis::locality`]) and the SM's thread-block launches (its starvation clock).

use super::super::sites::Slot;
use crate::blocks::locality_degree::{self, pack_region, pack_sub, LawsIn};
use crate::blocks::warp_arbiter::{self, ArbiterIn};
use crate::gpu::SimError;

/// The block at one scheduler's issue site.
pub(crate) enum WarpSelect<'a> {
    /// A warp arbiter.
    Arbiter(Slot<'a, warp_arbiter::Kind>),
    /// The locality-aware scheduler and its inputs, kept between cycles (the vectors change
    /// only at launches, so they are not rebuilt every cycle).
    Laws(Box<LawsUnit<'a>>),
}

/// The locality-aware scheduler at a site.
pub(crate) struct LawsUnit<'a> {
    slot: Slot<'a, locality_degree::Kind>,
    inp: LawsIn,
}

impl<'a> LawsUnit<'a> {
    /// The unit around `slot`.
    pub fn new(slot: Slot<'a, locality_degree::Kind>) -> Self {
        Self {
            slot,
            inp: LawsIn::default(),
        }
    }
}

/// What the SM hands its issue site for one cycle.
pub(crate) struct SiteIn {
    /// Warps that could issue.
    pub ready: u64,
    /// Warps launched since the last step (both blocks of the cycle).
    pub launch: u64,
    /// Of those, the warps of the cycle's second block.
    pub launch2: u64,
    /// Thread blocks launched on the SM since the last step.
    pub tbs_launched: u8,
    /// Warps that exited.
    pub exit: u64,
    /// Warps on a long-latency stall or a barrier.
    pub long_stall: u64,
    /// Starvation threshold (blocks launched after a warp's own).
    pub starve_after: u8,
}

impl WarpSelect<'_> {
    /// One cycle; the granted local warp.
    pub fn step(&mut self, inp: &SiteIn) -> Result<Option<usize>, SimError> {
        match self {
            WarpSelect::Arbiter(slot) => {
                let out = slot.step(&ArbiterIn {
                    ready: inp.ready,
                    launch: inp.launch,
                    exit: inp.exit,
                    long_stall: inp.long_stall,
                })?;
                Ok(out.grant_valid.then_some(out.grant_warp as usize))
            }
            WarpSelect::Laws(u) => {
                let i = &mut u.inp;
                i.ready = inp.ready;
                i.launch = inp.launch & !inp.launch2;
                i.launch2 = inp.launch2;
                i.tbs_launched = inp.tbs_launched;
                i.exit = inp.exit;
                i.long_stall = inp.long_stall;
                i.starve_after = inp.starve_after;
                let out = u.slot.step(&u.inp)?;
                Ok(out.grant_valid.then_some(out.grant_warp as usize))
            }
        }
    }

    /// Local warp `local` launches with access-range vector `v`.
    pub fn set_vector(&mut self, local: usize, v: &crate::analysis::locality::WarpVector) {
        if let WarpSelect::Laws(u) = self {
            u.inp.region[local] = pack_region(v);
            u.inp.sub[local] = pack_sub(v);
        }
    }
}
