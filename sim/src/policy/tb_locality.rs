//! Seed 000's locality-aware thread-block dispatch (`--tb-sched locality`): the `la_tb_dispatch`
//! block gives an SM the candidate whose access rectangles overlap most with its resident
//! blocks'. The kernel's block queue is fed to the block with each block's rectangles, in id
//! order, from the address pre-computation ([`crate::analysis::locality`], standing in for the
//! thesis's in-order processor); the GPU reports which of its slots' blocks finished.

use super::{RegressOn, RegressRun};
use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, TbDispatchPolicy};
use crate::analysis::locality::{self, Footprints, RectMode};
use crate::block::BlockKind;
use crate::blocks::la_tb_dispatch::{self, pack_rect, LaDispatchIn};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::{KernelCtx, Prepared};
use crate::gpu::sites::dispatch::{DispatchIn, DispatchUnit, Grant};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use crate::workload::kernel::KernelSource;
use std::sync::Arc;

const LA_WINDOW: OptSpec = OptSpec::value(
    "la-window",
    "BLOCKS",
    "0",
    "Candidates the dispatcher compares, blocks (0: every block not yet dispatched, as the \
     thesis; a finite window is the RTL's cost-bounded variant)",
);
const LA_RECT: OptSpec = OptSpec::value(
    "la-rect",
    "MODE",
    "first_last",
    "How a block's rectangle is found (first_last: from its first and last thread, the \
     thesis; bbox: the bounding box of every line it loads)",
)
.one_of(RectMode::NAMES);

const LA_ENGINE: OptSpec = OptSpec::value(
    "la-engine",
    "ENGINE",
    "parallel",
    "How the dispatcher keeps its scores: parallel (every window entry updated in one cycle, a \
     grant at most every third cycle: the block's `base`) or serial (one operation at a time \
     over tables in block RAM, 8 rectangle pairs a cycle: the block's `serial`; needs a \
     --la-window)",
)
.one_of(&["parallel", "serial"]);

/// `locality`.
pub const ENTRIES: &[&PolicyEntry] = &[&LOCALITY];

static LOCALITY: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "locality",
    summary: "seed 000's locality-aware dispatch: the candidate whose access rectangles overlap \
              most with the SM's blocks",
    blocks: &[<la_tb_dispatch::Kind as BlockKind>::NAME],
    options: &[LA_WINDOW, LA_RECT, LA_ENGINE],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(
        RegressOn::Traces,
        "+la_tb32",
        "--tb-sched locality --la-window 32",
    )],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::TbDispatch(Arc::new(Locality {
        window: v.number(&LA_WINDOW, 0..=usize::MAX)?,
        rect: RectMode::from_name(v.raw(&LA_RECT)?).expect("one of its names"),
        serial: v.raw(&LA_ENGINE)? == "serial",
    })))
}

#[derive(Debug)]
struct Locality {
    /// Candidate window, blocks (0: the whole queue, the thesis).
    window: usize,
    /// How blocks' rectangles are found.
    rect: RectMode,
    /// The block's `serial` engine.
    serial: bool,
}

/// The locality-aware dispatcher's parameters for `cfg` (at most
/// [`la_tb_dispatch::MAX_SMS`] SMs and [`la_tb_dispatch::MAX_SLOTS`] blocks per SM) with a
/// candidate window of `window` blocks (0: the whole queue), the `serial` engine if `serial`
/// (its lanes: the largest of 8, 4, 2, 1 dividing the window and the slots per SM).
pub fn la_dispatch_params(
    cfg: &GpuConfig,
    window: usize,
    serial: bool,
) -> Result<la_tb_dispatch::Params, SimError> {
    if serial && window == 0 {
        return Err(SimError::Config(
            "--la-engine serial keeps its window in block RAM: give it a --la-window (e.g. 32)"
                .into(),
        ));
    }
    let (sms, slots) = (cfg.sm.count as usize, cfg.sm.max_blocks as usize);
    if !(1..=la_tb_dispatch::MAX_SMS).contains(&sms)
        || !(1..=la_tb_dispatch::MAX_SLOTS).contains(&slots)
    {
        return Err(SimError::Config(format!(
            "locality-aware dispatch serves 1 to {} SMs of at most {} blocks each; `{}` has {sms} \
             SMs of {slots}",
            la_tb_dispatch::MAX_SMS,
            la_tb_dispatch::MAX_SLOTS,
            cfg.name
        )));
    }
    Ok(la_tb_dispatch::Params {
        sms,
        slots,
        window,
        arrays: locality::MAX_ARRAYS,
        // The whole queue loads 16 blocks per cycle (the thesis computes it at launch); a
        // window loads one per cycle, as its RTL does.
        fill: if window == 0 {
            la_tb_dispatch::MAX_FILL
        } else {
            1
        },
        lanes: if serial {
            [8, 4, 2, 1]
                .into_iter()
                .find(|&g| window.is_multiple_of(g) && slots.is_multiple_of(g))
                .expect("1 divides both")
        } else {
            0
        },
    })
}

impl TbDispatchPolicy for Locality {
    fn entry(&self) -> &'static PolicyEntry {
        &LOCALITY
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        la_dispatch_params(cfg, self.window, self.serial).map(|_| ())
    }

    fn prepare(
        &self,
        _cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        locality::prepare(kernel, self.rect, prepared).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        slot: usize,
    ) -> Result<Box<dyn DispatchUnit<'a> + 'a>, SimError> {
        let params = la_dispatch_params(cfg, self.window, self.serial)?;
        let site = Site::dispatch(slot, <la_tb_dispatch::Kind as BlockKind>::NAME);
        Ok(Box::new(LocalityUnit {
            slot: Slot::new(provider, site, &params)?,
            params,
            footprints: Arc::default(),
            fed: 0,
            total: 0,
            slot_of: vec![vec![0; cfg.sm.max_blocks as usize]; params.sms],
        }))
    }
}

/// The locality-aware dispatcher and the queue the GPU feeds it from.
struct LocalityUnit<'a> {
    slot: Slot<'a, la_tb_dispatch::Kind>,
    params: la_tb_dispatch::Params,
    /// The running kernel's rectangles.
    footprints: Arc<Footprints>,
    /// Blocks the dispatcher has taken from the queue.
    fed: u32,
    total: u32,
    /// Per SM, per SM block slot: the dispatcher's slot of the block there.
    slot_of: Vec<Vec<u8>>,
}

impl<'a> DispatchUnit<'a> for LocalityUnit<'a> {
    fn start_kernel(&mut self, kernel: &KernelCtx) {
        self.fed = 0;
        self.total = kernel.total();
        self.footprints = kernel.prepared.get::<Footprints>().unwrap_or_default();
    }

    fn step(&mut self, inp: &DispatchIn, grants: &mut Vec<Grant>) -> Result<(), SimError> {
        grants.clear();
        let a = self.params.arrays;
        let count = if inp.start {
            0
        } else {
            (self.total - self.fed).min(self.params.fill as u32)
        };
        let mut b = LaDispatchIn {
            start: inp.start,
            total: inp.total,
            room: inp.room,
            fill_count: count as u8,
            ..Default::default()
        };
        for i in 0..count {
            let fp = self.footprints.tb((self.fed + i) as u64);
            for k in 0..a {
                b.fill_rect[i as usize * a + k] = pack_rect(fp.rects[k]);
            }
        }
        for (s, done) in inp.finished.iter().enumerate() {
            for &j in done {
                b.done[s] |= 1 << self.slot_of[s][j];
            }
        }
        let out = self.slot.step(&b)?;
        self.fed += out.fill_taken as u32;
        if out.grant {
            grants.push(Grant {
                sm: out.grant_sm as usize,
                id: out.grant_id,
                slot: Some(out.grant_slot),
            });
        }
        Ok(())
    }

    fn launched(&mut self, g: &Grant, sm_slot: usize) {
        if let Some(slot) = g.slot {
            self.slot_of[g.sm][sm_slot] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serial engine's lanes divide the window and the slots; without a window it is
    /// refused with the option to give.
    #[test]
    fn the_serial_engine_needs_a_window_and_takes_dividing_lanes() {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let err = la_dispatch_params(&cfg, 0, true).unwrap_err().to_string();
        assert!(err.contains("--la-window"), "{err}");
        assert_eq!(la_dispatch_params(&cfg, 32, true).unwrap().lanes, 8);
        assert_eq!(la_dispatch_params(&cfg, 12, true).unwrap().lanes, 4);
        assert_eq!(la_dispatch_params(&cfg, 32, false).unwrap().lanes, 0);
    }
}
