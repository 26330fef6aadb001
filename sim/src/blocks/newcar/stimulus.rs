//! Constrained-random stimulus for NewCAR: a few warps present loads and stores (stores one in
//! four), the caches accept with a probability that drifts between phases (so the queue fills,
//! drains and sits full), and about one cycle in 64 is unconstrained (any warp id, requests
//! while full). Deterministic for a seed.

use super::{NewcarIn, NewcarOut, Params};
use crate::block::low_bits;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one queue.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// Cache acceptance probability of the current phase, in 1/16.
    accept: u32,
    phase_left: u32,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            accept: 8,
            phase_left: 0,
        }
    }

}

impl crate::block::Stimulus<NewcarIn, NewcarOut> for Stimulus {
    /// Inputs for the next cycle (`prev`: the previous outputs, unused but kept for the
    /// driver's uniform interface).
    fn next(&mut self, _prev: Option<&NewcarOut>) -> NewcarIn {
        if self.phase_left == 0 {
            self.accept = self.rng.gen_range(0..=16);
            self.phase_left = self.rng.gen_range(50..2000);
        }
        self.phase_left -= 1;
        let p = self.params;
        if self.rng.gen_ratio(1, 64) {
            return NewcarIn {
                lsu_valid: self.rng.gen(),
                lsu_warp: self.rng.gen::<u8>()
                    & low_bits(crate::block::clog2(p.warps) as usize) as u8,
                lsu_store: self.rng.gen(),
                lsu_accept: self.rng.gen(),
                q_accept: self.rng.gen::<u64>() & low_bits(p.entries),
            };
        }
        let mut q_accept = 0;
        for s in 0..p.entries {
            if self.rng.gen_range(0..16) < self.accept {
                q_accept |= 1 << s;
            }
        }
        NewcarIn {
            lsu_valid: self.rng.gen_ratio(2, 3),
            lsu_warp: self.rng.gen_range(0..p.warps.min(6)) as u8,
            lsu_store: self.rng.gen_ratio(1, 4),
            lsu_accept: self.rng.gen_range(0..16) < self.accept,
            q_accept,
        }
    }
}
