//! Constrained-random stimulus for the 2-way allocator: a model of one SM shared by up to three
//! kernels (ids from a small pool, so ids come back), offered in turn. Each kernel has a random
//! block need (sometimes zero in a resource, sometimes the whole SM or more) and quota
//! (sometimes lowered below its resident blocks, which then stay until they finish). When the
//! allocator reports room the SM often places one block at the slot it was given, or two with
//! `room2`; blocks stay a random number of cycles. A cycle's placements and releases reach the
//! allocator in the next cycle's reports. About one cycle in 1,000 the reports carry a slot
//! never granted (a block that leaves later) and random free slots released. Deterministic for
//! a seed.

use super::{Params, TwoWayIn, TwoWayOut};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One kernel of the model.
#[derive(Clone, Copy, Debug)]
struct Kernel {
    id: u32,
    need: [u32; 3],
    quota: u32,
}

/// Stimulus generator for one allocator.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    kernels: Vec<Kernel>,
    /// The kernel offered last cycle (its grants are in the outputs).
    offered: Option<usize>,
    /// Resident blocks: (cycles left, end high, slot).
    resident: Vec<(u16, bool, u32)>,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        let mut s = Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            kernels: vec![],
            offered: None,
            resident: vec![],
        };
        for _ in 0..2 {
            let k = s.new_kernel();
            s.kernels.push(k);
        }
        s
    }

    /// A random size of a resource of capacity `cap`: mostly a fraction, sometimes none, all
    /// of it or more.
    fn size(&mut self, cap: u32) -> u32 {
        match self.rng.gen_range(0..14) {
            0 => 0,
            1 => cap,
            2 => (cap + self.rng.gen_range(1..8)).min(0xffff),
            3 => cap / 2,
            _ => self.rng.gen_range(1..=(cap / 4).max(1)),
        }
    }

    fn new_kernel(&mut self) -> Kernel {
        let p = self.params;
        let warps = self.size(p.threads / 32).max(self.rng.gen_range(0..2));
        let need = [warps * 32, self.size(p.rows), self.size(p.units)];
        Kernel {
            id: self.rng.gen_range(0..6),
            need,
            quota: self.quota(),
        }
    }

    fn quota(&mut self) -> u32 {
        let t = self.params.blocks;
        match self.rng.gen_range(0..8) {
            0 => self.rng.gen_range(0..=t),
            1 => 0xffff,
            _ => t,
        }
    }
}

impl crate::block::Stimulus<TwoWayIn, TwoWayOut> for Stimulus {
    fn next(&mut self, prev: Option<&TwoWayOut>) -> TwoWayIn {
        let t = self.params.blocks;
        let mask = u64::MAX >> (64 - t);
        let (mut placed, mut freed) = ([0u64; 2], [0u64; 2]);
        // Last cycle's placements at the slots the allocator gave.
        if let (Some(o), Some(_)) = (prev, self.offered) {
            let n = match (o.room, o.room2) {
                (true, true) if self.rng.gen_bool(0.3) => 2,
                (true, _) if self.rng.gen_bool(0.6) => 1,
                _ => 0,
            };
            for slot in [o.slot0, o.slot1].into_iter().take(n) {
                placed[o.high as usize] |= 1 << slot;
                let life = self.rng.gen_range(1..40);
                self.resident.push((life, o.high, slot));
            }
        }
        let mut i = 0;
        while i < self.resident.len() {
            self.resident[i].0 -= 1;
            if self.resident[i].0 == 0 {
                let (_, end, slot) = self.resident.swap_remove(i);
                freed[end as usize] |= 1 << slot;
            } else {
                i += 1;
            }
        }
        if self.rng.gen_ratio(1, 1000) {
            // Reports the protocol never makes: a slot placed that was not granted (it stays
            // as a block and leaves later), free slots released.
            let e = self.rng.gen_range(0..2);
            let j = self.rng.gen_range(0..t);
            if placed[e] >> j & 1 == 0 {
                placed[e] |= 1 << j;
                self.resident.push((self.rng.gen_range(1..40), e == 1, j));
            }
            freed[1 - e] |= self.rng.gen::<u64>() & mask;
        }
        // Kernels come and go; quotas change.
        if self.rng.gen_ratio(1, 150) {
            let k = self.new_kernel();
            match self.kernels.len() {
                3 => self.kernels[self.rng.gen_range(0..3)] = k,
                _ => self.kernels.push(k),
            }
        }
        if self.rng.gen_ratio(1, 100) {
            let i = self.rng.gen_range(0..self.kernels.len());
            self.kernels[i].quota = self.quota();
        }
        self.offered = self
            .rng
            .gen_bool(0.9)
            .then(|| self.rng.gen_range(0..self.kernels.len()));
        let k = self.offered.map_or(self.kernels[0], |i| self.kernels[i]);
        TwoWayIn {
            offer: self.offered.is_some(),
            kernel: k.id,
            need_threads: k.need[0],
            need_rows: k.need[1],
            need_units: k.need[2],
            quota: k.quota,
            placed_lo: placed[0],
            placed_hi: placed[1],
            freed_lo: freed[0],
            freed_hi: freed[1],
        }
    }
}
