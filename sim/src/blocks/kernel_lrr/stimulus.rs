//! Constrained-random stimulus for the kernel-aware scheduler: the warp arbiter's stimulus
//! (warps launch in CTA-sized groups, become ready and not ready, stall, exit; one cycle in 64
//! unconstrained) gives `ready`, `launch` and `exit`; on top of it each launched group gets a
//! kernel, now and then a group is drained or becomes its kernel's boundary block, and the
//! kernels' tails come and go. One cycle in 64 the marks are random too. Deterministic: the
//! same seed gives the same sequence for the same outputs fed back.

use super::{KernelLrrIn, KernelLrrOut, Params};
use crate::blocks::warp_arbiter::{self as wa, ArbiterOut};
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one scheduler.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    warps: wa::stimulus::Stimulus,
    rng: Xoshiro256PlusPlus,
    /// Warps of the second kernel.
    kernel: u64,
    /// Warps being drained.
    drain: u64,
    /// Warps of a boundary block.
    boundary: u64,
    /// Per kernel: no more blocks to dispatch.
    tail: u8,
    /// Warps the stimulus believes live.
    live: u64,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        let arbiter = wa::Params::new(wa::Policy::Gto, params.warps, 1)
            .expect("the scheduler's warps make a GTO arbiter");
        Self {
            params,
            warps: wa::stimulus::Stimulus::new(arbiter, seed),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6b65_726e_656c),
            kernel: 0,
            drain: 0,
            boundary: 0,
            tail: 0,
            live: 0,
        }
    }

    /// Marks for a group launched this cycle, and now and then for the live warps.
    fn update_marks(&mut self, launch: u64, exit: u64) {
        let r = self.rng.next_u64();
        // A launched group: one kernel, not drained, a boundary block one time in four.
        if launch != 0 {
            if r & 1 == 1 {
                self.kernel |= launch;
            } else {
                self.kernel &= !launch;
            }
            self.drain &= !launch;
            self.boundary &= !launch;
            if (r >> 1).is_multiple_of(4) {
                self.boundary |= launch;
            }
        }
        // A drain starts on a random live warp's kernel-mates now and then; drains end.
        self.live = (self.live & !exit) | launch;
        let live = self.live;
        if (r >> 8).is_multiple_of(48) && live != 0 {
            let second = (r >> 16) & 1 == 1;
            let mates = live & if second { self.kernel } else { !self.kernel };
            self.drain |= mates & self.rng.next_u64();
        }
        if (r >> 24).is_multiple_of(96) {
            self.drain = 0;
        }
        if (r >> 32).is_multiple_of(64) {
            self.tail ^= 1 << ((r >> 40) & 1);
        }
        self.drain &= !exit;
    }
}

impl crate::block::Stimulus<KernelLrrIn, KernelLrrOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one (`None` in the first
    /// cycle after reset).
    fn next(&mut self, prev: Option<&KernelLrrOut>) -> KernelLrrIn {
        let m = self.params.warp_mask();
        let prev = prev.map(|o| ArbiterOut {
            grant_valid: o.grant_valid,
            grant_warp: o.grant_warp,
            active: 0,
        });
        let w = self.warps.next(prev.as_ref());
        self.update_marks(w.launch, w.exit);
        let mut inp = KernelLrrIn {
            ready: w.ready,
            launch: w.launch,
            exit: w.exit,
            kernel: self.kernel & m,
            drain: self.drain & m,
            boundary: self.boundary & m,
            tail: self.tail,
        };
        if self.rng.next_u32().is_multiple_of(64) {
            inp.kernel = self.rng.next_u64() & m;
            inp.drain = self.rng.next_u64() & self.rng.next_u64() & m;
            inp.boundary = self.rng.next_u64() & m;
            inp.tail = (self.rng.next_u32() & 3) as u8;
        }
        inp
    }
}
