//! Constrained-random stimulus for PAWS's select: the warp arbiter's stimulus (warps launch in
//! CTA-sized groups, become ready and not ready, stall, exit; one cycle in 64 unconstrained)
//! gives `ready`, `launch`, `exit` and `long_stall`. The table is written whole in the first cycles, updates
//! read only entries written before (the RAM is not reset), and one entry is rewritten now and
//! then; distances come from a small set most of the time, so equal distances (the
//! oldest-first ties) are common.
//! After each grant the granted warp's update follows in the next cycle, now and then with
//! `upd_far`; one cycle in 64 the update is random (any warp, or none). Deterministic: the same
//! seed gives the same sequence for the same outputs fed back.

use super::{Params, PawsIn, PawsOut};
use crate::blocks::warp_arbiter::{self as wa, ArbiterOut};
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one select.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    warps: wa::stimulus::Stimulus,
    rng: Xoshiro256PlusPlus,
    /// Entries written so far by the initial load.
    loaded: usize,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        let arbiter = wa::Params::new(wa::Policy::Gto, params.warps, 1)
            .expect("the scheduler's warps make a GTO arbiter");
        Self {
            params,
            warps: wa::stimulus::Stimulus::new(arbiter, seed),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7061_7773),
            loaded: 0,
        }
    }

    /// A distance: mostly one of a few small values, sometimes any 16-bit value.
    fn distance(&mut self) -> u16 {
        let r = self.rng.next_u32();
        match r % 8 {
            0 => (r >> 8) as u16,
            1 => u16::MAX,
            _ => (r >> 8) as u16 % 6,
        }
    }

    /// An index into the table.
    fn index(&mut self) -> u16 {
        (self.rng.next_u32() as usize % self.params.entries()) as u16
    }

    /// An index for an update: one written already (none yet: entry 0 with `upd_far`, which
    /// does not read the table), so that no read finds power-up contents.
    fn written_index(&mut self) -> (u16, bool) {
        match self.loaded.min(self.params.entries()) {
            0 => (0, true),
            n => ((self.rng.next_u32() as usize % n) as u16, false),
        }
    }
}

impl crate::block::Stimulus<PawsIn, PawsOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one (`None` in the first
    /// cycle after reset).
    fn next(&mut self, prev: Option<&PawsOut>) -> PawsIn {
        let arbiter_prev = prev.map(|o| ArbiterOut {
            grant_valid: o.grant_valid,
            grant_warp: o.grant_warp,
            active: 0,
        });
        let w = self.warps.next(arbiter_prev.as_ref());
        let mut inp = PawsIn {
            ready: w.ready,
            launch: w.launch,
            exit: w.exit,
            long_stall: w.long_stall,
            ..Default::default()
        };
        if let Some(o) = prev.filter(|o| o.grant_valid) {
            inp.upd_valid = true;
            inp.upd_warp = o.grant_warp;
            let (idx, unwritten) = self.written_index();
            inp.upd_idx = idx;
            inp.upd_far = unwritten || self.rng.next_u32().is_multiple_of(16);
        }
        if self.rng.next_u32().is_multiple_of(64) {
            let r = self.rng.next_u64();
            inp.upd_valid = r & 1 == 1;
            inp.upd_warp = ((r >> 8) % (1 << self.params.id_bits())) as u8;
            let (idx, unwritten) = self.written_index();
            inp.upd_idx = idx;
            inp.upd_far = unwritten || (r >> 4) & 1 == 1;
        }
        if self.loaded < self.params.entries() {
            (inp.tw_en, inp.tw_idx) = (true, self.loaded as u16);
            self.loaded += 1;
        } else if self.rng.next_u32().is_multiple_of(64) {
            (inp.tw_en, inp.tw_idx) = (true, self.index());
        }
        if inp.tw_en {
            inp.tw_dist = self.distance();
        }
        inp
    }
}
