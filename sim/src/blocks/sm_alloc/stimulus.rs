//! Constrained-random stimulus for the SM resource allocator: a model of one SM running
//! kernels one after another. Each kernel has a random footprint (sometimes zero in a
//! resource, sometimes the whole capacity, sometimes more than fits); while the allocator
//! reports room the SM often launches one block, or two when it reports `room2`; blocks stay a
//! random number of cycles. A cycle's launches and releases reach the allocator in the next
//! cycle's inputs, as the protocol says. About one cycle in 200 the footprint is random within the port widths
//! (unconstrained), and now and then a random amount is allocated and released again later, so
//! the counters pass their capacities and wrap. Deterministic for a seed.

use super::{AllocIn, AllocOut, Params};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one allocator.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// The running kernel's footprint per block (threads, registers, shared memory).
    need: [u32; 3],
    /// Resident blocks: (cycles left, footprint).
    resident: Vec<(u16, [u32; 4])>,
    /// A random amount allocated outside the model, to release later: (cycles left, amounts).
    stray: Option<(u16, [u32; 4])>,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        let mut s = Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            need: [0; 3],
            resident: vec![],
            stray: None,
        };
        s.new_kernel();
        s
    }

    fn masks(&self) -> [u32; 4] {
        self.params
            .widths()
            .map(|w| ((1u64 << w) - 1) as u32)
    }

    /// A random footprint: mostly a fraction of the capacity, sometimes none, all of it or
    /// more.
    fn new_kernel(&mut self) {
        let (caps, masks) = (self.params.caps(), self.masks());
        for (r, &cap) in caps.iter().enumerate().take(3) {
            self.need[r] = match self.rng.gen_range(0..12) {
                0 => 0,
                1 => cap,
                2 => cap.saturating_add(self.rng.gen_range(1..64)).min(masks[r]),
                3 => cap / 2,
                _ => self.rng.gen_range(1..=(cap / 3).max(1)),
            };
        }
    }

    fn add(into: &mut [u32; 4], what: [u32; 4], masks: [u32; 4]) {
        for r in 0..4 {
            into[r] = into[r].wrapping_add(what[r]) & masks[r];
        }
    }
}

impl crate::block::Stimulus<AllocIn, AllocOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one (`None` in the first
    /// cycle after reset).
    fn next(&mut self, prev: Option<&AllocOut>) -> AllocIn {
        let masks = self.masks();
        let (mut alloc, mut free) = ([0u32; 4], [0u32; 4]);
        // The launches and releases of the cycle `prev` answered, which the allocator sees now.
        let block = [self.need[0], self.need[1], self.need[2], 1];
        if let Some(o) = prev {
            let launches = match (o.room, o.room2) {
                (true, true) if self.rng.gen_bool(0.3) => 2,
                (true, _) if self.rng.gen_bool(0.5) => 1,
                _ => 0,
            };
            for _ in 0..launches {
                let life = self.rng.gen_range(1..60);
                self.resident.push((life, block));
                Self::add(&mut alloc, block, masks);
            }
        }
        let mut i = 0;
        while i < self.resident.len() {
            self.resident[i].0 -= 1;
            if self.resident[i].0 == 0 {
                let (_, b) = self.resident.swap_remove(i);
                Self::add(&mut free, b, masks);
            } else {
                i += 1;
            }
        }
        match &mut self.stray {
            Some((left, amounts)) => {
                *left -= 1;
                if *left == 0 {
                    let a = *amounts;
                    Self::add(&mut free, a, masks);
                    self.stray = None;
                }
            }
            None if self.rng.gen_ratio(1, 500) => {
                let a = masks.map(|m| self.rng.gen::<u32>() & m);
                Self::add(&mut alloc, a, masks);
                self.stray = Some((self.rng.gen_range(1..100), a));
            }
            None => {}
        }
        // A new kernel once the SM is empty.
        if self.resident.is_empty() && self.rng.gen_bool(0.1) {
            self.new_kernel();
        }
        let mut need = self.need;
        if self.rng.gen_ratio(1, 200) {
            need = [0, 1, 2].map(|r| self.rng.gen::<u32>() & masks[r]);
        }
        AllocIn {
            need_threads: need[0],
            need_regs: need[1],
            need_smem: need[2],
            alloc_threads: alloc[0],
            alloc_regs: alloc[1],
            alloc_smem: alloc[2],
            alloc_blocks: alloc[3],
            free_threads: free[0],
            free_regs: free[1],
            free_smem: free[2],
            free_blocks: free[3],
        }
    }
}
