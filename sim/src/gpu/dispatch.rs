//! The thread-block dispatch site: the block that sits there and what the GPU feeds it.
//!
//! * [`tb_dispatch`] (LRR, BCS): `room`/`room2` in, grants out.
//! * [`la_tb_dispatch`] (`--tb-sched locality`): also the kernel's block queue, the rectangles
//!   of each block in id order (computed when the kernel starts by the address
//!   pre-computation, [`crate::analysis::locality`], standing in for the thesis's in-order
//!   processor), and which of its slots' blocks finished.

use super::sites::{Provider, Site, Slot};
use super::SimError;
use crate::analysis::locality::{self, Footprints, RectMode};
use crate::block::BlockKind;
use crate::blocks::la_tb_dispatch::{self, pack_rect, LaDispatchIn};
use crate::blocks::tb_dispatch::{self, DispatchIn};
use crate::policy::Dispatch;
use crate::workload::kernel::KernelSource;
use std::sync::Arc;

/// One grant of a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Grant {
    /// SM.
    pub sm: usize,
    /// Thread-block id.
    pub id: u32,
    /// The dispatcher's slot for it (locality-aware dispatch reports its end with it).
    pub slot: Option<u8>,
}

/// The block at the dispatch site.
pub(super) enum Dispatcher<'a> {
    /// LRR or BCS.
    Base(Slot<'a, tb_dispatch::Kind>),
    /// Locality-aware.
    Locality(Box<LocalitySite<'a>>),
}

/// The locality-aware dispatcher and the queue the GPU feeds it from.
pub(super) struct LocalitySite<'a> {
    slot: Slot<'a, la_tb_dispatch::Kind>,
    params: la_tb_dispatch::Params,
    /// The running kernel's rectangles.
    footprints: Arc<Footprints>,
    /// Blocks the dispatcher has taken from the queue.
    fed: u32,
    total: u32,
    /// Per SM, per SM slot: the dispatcher's slot of the block there.
    slot_of: Vec<Vec<u8>>,
}

impl<'a> Dispatcher<'a> {
    /// The dispatcher of `plan` from `blocks`.
    pub fn new<P: Provider<'a>>(
        blocks: &mut P,
        plan: &Dispatch,
        max_blocks: usize,
    ) -> Result<Self, SimError> {
        Ok(match plan {
            Dispatch::RoundRobin(p) => {
                let site = Site::Gpu {
                    block: tb_dispatch::Kind::NAME,
                };
                Dispatcher::Base(Slot::new(blocks, site, p)?)
            }
            Dispatch::Locality(p) => {
                let site = Site::Gpu {
                    block: la_tb_dispatch::Kind::NAME,
                };
                Dispatcher::Locality(Box::new(LocalitySite {
                    slot: Slot::new(blocks, site, p)?,
                    params: *p,
                    footprints: Arc::default(),
                    fed: 0,
                    total: 0,
                    slot_of: vec![vec![0; max_blocks]; p.sms],
                }))
            }
        })
    }

    /// A kernel of `total` blocks starts; the locality-aware dispatcher's queue presents
    /// their rectangles from `footprints`.
    pub fn start_kernel(&mut self, total: u32, footprints: Option<Arc<Footprints>>) {
        if let Dispatcher::Locality(l) = self {
            l.fed = 0;
            l.total = total;
            l.footprints = footprints.unwrap_or_default();
        }
    }

    /// One cycle: `start` with the kernel's `total` and `max_per_sm`, the SMs' room, and per SM
    /// the SM slots whose blocks finished since the last cycle. The grants, SM by SM.
    pub fn step(
        &mut self,
        start: bool,
        total: u32,
        max_per_sm: u8,
        room: (u128, u128),
        finished: &[Vec<usize>],
        grants: &mut Vec<Grant>,
    ) -> Result<(), SimError> {
        grants.clear();
        match self {
            Dispatcher::Base(slot) => {
                let out = slot.step(&DispatchIn {
                    start,
                    total,
                    max_per_sm,
                    room: room.0,
                    room2: room.1,
                })?;
                let sms = finished.len();
                grants.extend(out.grants(sms).map(|(sm, id)| Grant { sm, id, slot: None }));
            }
            Dispatcher::Locality(l) => {
                let a = l.params.arrays;
                let count = if start {
                    0
                } else {
                    (l.total - l.fed).min(l.params.fill as u32)
                };
                let mut inp = LaDispatchIn {
                    start,
                    total,
                    room: room.0,
                    fill_count: count as u8,
                    ..Default::default()
                };
                for i in 0..count {
                    let fp = l.footprints.tb((l.fed + i) as u64);
                    for k in 0..a {
                        inp.fill_rect[i as usize * a + k] = pack_rect(fp.rects[k]);
                    }
                }
                for (s, done) in finished.iter().enumerate() {
                    for &j in done {
                        inp.done[s] |= 1 << l.slot_of[s][j];
                    }
                }
                let out = l.slot.step(&inp)?;
                l.fed += out.fill_taken as u32;
                if out.grant {
                    grants.push(Grant {
                        sm: out.grant_sm as usize,
                        id: out.grant_id,
                        slot: Some(out.grant_slot),
                    });
                }
            }
        }
        Ok(())
    }

    /// Grant `g` was launched into SM slot `sm_slot` of its SM.
    pub fn launched(&mut self, g: &Grant, sm_slot: usize) {
        if let (Dispatcher::Locality(l), Some(slot)) = (self, g.slot) {
            l.slot_of[g.sm][sm_slot] = slot;
        }
    }
}

/// The address pre-computation of `kernel` with rectangles found by `rect_mode`, and what it
/// did not track (for the kernel's report); a kernel that cannot be visited has no rectangles
/// (every locality is 0: blocks go out in id order, ties by age).
pub(super) fn precompute(
    kernel: &dyn KernelSource,
    rect_mode: RectMode,
) -> Result<(Arc<Footprints>, Vec<String>), SimError> {
    let params = locality::Params {
        rect_mode,
        ..locality::Params::default()
    };
    Ok(match locality::analyze(kernel, &params)? {
        Some(fp) => {
            let notes = fp.notes.iter().map(|n| n.to_string()).collect();
            (Arc::new(fp), notes)
        }
        None => (
            Arc::default(),
            vec![format!(
                "kernel `{}` cannot be visited for its addresses: no rectangles or vectors, \
                 every locality is 0",
                kernel.info().name
            )],
        ),
    })
}
