//! Constrained-random stimulus for the warp arbiter: warps launch in CTA-sized groups, become
//! ready and not ready, stall on long-latency operations after being granted, and exit. About
//! one cycle in 64 is unconstrained (every input bit random) so corner cases that a
//! well-behaved SM never produces (ready while stalled, exit of a dead warp, launch of a live
//! one) are covered too. Deterministic: the same seed gives the same sequence for the same
//! outputs fed back.

use super::{ArbiterIn, ArbiterOut, Params};
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one arbiter.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// Warps the stimulus believes live (launched, not exited).
    live: u64,
    /// Cycles until each warp's next instruction is ready (short dependences).
    busy: [u16; 64],
    /// Cycles each warp still waits on a long-latency operation.
    stall_left: [u16; 64],
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            live: 0,
            busy: [0; 64],
            stall_left: [0; 64],
        }
    }

}

impl crate::block::Stimulus<ArbiterIn, ArbiterOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one (`None` in the first
    /// cycle after reset).
    fn next(&mut self, prev: Option<&ArbiterOut>) -> ArbiterIn {
        let n = self.params.warps;
        let m = self.params.warp_mask();
        if let Some(o) = prev.filter(|o| o.grant_valid) {
            let w = o.grant_warp as usize % n;
            let r = self.rng.next_u32();
            if r.is_multiple_of(8) {
                self.stall_left[w] = 20 + (r >> 8) as u16 % 400;
            } else {
                self.busy[w] = (r >> 4) as u16 % 4;
            }
        }
        let r = self.rng.next_u64();
        if r.is_multiple_of(64) {
            let inp = ArbiterIn {
                ready: self.rng.next_u64() & m,
                launch: self.rng.next_u64() & self.rng.next_u64() & m,
                exit: self.rng.next_u64() & self.rng.next_u64() & m,
                long_stall: self.rng.next_u64() & m,
            };
            self.live = (self.live & !inp.exit) | inp.launch;
            return inp;
        }
        let mut ready = 0u64;
        let mut stall = 0u64;
        for w in 0..n {
            if self.stall_left[w] > 0 {
                self.stall_left[w] -= 1;
                stall |= 1 << w;
            } else if self.busy[w] > 0 {
                self.busy[w] -= 1;
            } else {
                ready |= 1 << w;
            }
        }
        // Occasional short hiccups (a unit busy, an i-buffer refill).
        ready &= !(self.rng.next_u64() & self.rng.next_u64() & self.rng.next_u64());
        ready &= self.live;
        stall &= self.live;
        let mut launch = 0u64;
        let free = !self.live & m;
        if free != 0 && (r >> 8).is_multiple_of(12) {
            let size = 1 + (r >> 16) as usize % 4;
            let start = (r >> 24) as usize % n;
            for i in 0..n {
                let w = (start + i) % n;
                if free >> w & 1 == 1 {
                    launch |= 1 << w;
                    self.busy[w] = 0;
                    self.stall_left[w] = 0;
                    if launch.count_ones() as usize == size {
                        break;
                    }
                }
            }
        }
        let mut exit = 0u64;
        if (r >> 32).is_multiple_of(24) {
            let w = self.rng.gen_range(0..n);
            exit = (1u64 << w) & self.live;
        }
        self.live = (self.live & !exit) | launch;
        ArbiterIn {
            ready,
            launch,
            exit,
            long_stall: stall,
        }
    }
}
