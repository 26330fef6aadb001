//! Constrained-random stimulus for the locality-aware warp scheduler: thread blocks of 1-4
//! warps launch into free warp slots (sometimes two in a cycle), live warps are ready, stalled
//! on a long operation or neither at random, some exit; vectors use few regions and dense
//! subregion masks, so warps often share. Deterministic for a seed.

use super::{pack_region, pack_sub, LawsIn, LawsOut, Params};
use crate::analysis::locality::{WarpVector, MAX_ARRAYS};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one scheduler.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    live: u64,
    /// Per warp: cycles left of its long stall.
    stall: Vec<u16>,
    starve_after: u8,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let starve_after = rng.gen_range(2..=16);
        Self {
            params,
            rng,
            live: 0,
            stall: vec![0; params.warps],
            starve_after,
        }
    }

    fn vector(&mut self) -> WarpVector {
        let mut v = WarpVector::default();
        for k in 0..MAX_ARRAYS {
            if self.rng.gen_ratio(3, 4) {
                v.region[k] = Some(self.rng.gen_range(0..3));
                v.sub[k] = self.rng.gen();
            }
        }
        v
    }

    /// Launches a block of 1-4 warps into free slots; its mask.
    fn block(&mut self, taken: u64) -> u64 {
        let n = self.params.warps;
        let want = self.rng.gen_range(1..=4);
        let mut m = 0u64;
        for w in (0..n)
            .filter(|&w| (self.live | taken) >> w & 1 == 0)
            .take(want)
        {
            m |= 1 << w;
        }
        m
    }
}

impl crate::block::Stimulus<LawsIn, LawsOut> for Stimulus {
    fn next(&mut self, prev: Option<&LawsOut>) -> LawsIn {
        let n = self.params.warps;
        let mut inp = LawsIn {
            starve_after: self.starve_after,
            ..Default::default()
        };
        if let Some(o) = prev {
            // A granted warp may start a long operation.
            if o.grant_valid && self.rng.gen_ratio(1, 4) {
                self.stall[o.grant_warp as usize] = self.rng.gen_range(5..200);
            }
        }
        for w in 0..n {
            if self.live >> w & 1 == 0 {
                continue;
            }
            if self.stall[w] > 0 {
                self.stall[w] -= 1;
                inp.long_stall |= 1 << w;
            } else if self.rng.gen_ratio(2, 3) {
                inp.ready |= 1 << w;
            }
            if self.rng.gen_ratio(1, 400) {
                inp.exit |= 1 << w;
                inp.ready &= !(1 << w);
                inp.long_stall &= !(1 << w);
            }
        }
        if self.rng.gen_ratio(1, 12) {
            inp.launch = self.block(0);
            inp.tbs_launched = 1;
            if self.rng.gen_ratio(1, 4) {
                inp.launch2 = self.block(inp.launch);
                inp.tbs_launched = 2;
            }
        } else if self.rng.gen_ratio(1, 40) {
            // A block whose warps all went to the other scheduler.
            inp.tbs_launched = 1;
        }
        for w in 0..n {
            if (inp.launch | inp.launch2) >> w & 1 == 1 {
                let v = self.vector();
                inp.region[w] = pack_region(&v);
                inp.sub[w] = pack_sub(&v);
                self.stall[w] = 0;
            }
        }
        self.live = (self.live & !inp.exit) | inp.launch | inp.launch2;
        inp
    }
}
