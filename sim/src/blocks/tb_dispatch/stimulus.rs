//! Constrained-random stimulus for the thread-block dispatcher: kernels of random size and
//! occupancy start when the previous one has been granted (sometimes earlier, and sometimes
//! with huge or zero totals); a model of the SMs holds the granted blocks for a random number
//! of cycles and reports `room`/`room2` from its resident counts. About one cycle in 64 is
//! unconstrained (random `room`/`room2`, `room2` outside `room`). Deterministic for a seed.

use super::{DispatchIn, DispatchOut, Params, MAX_SMS};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one dispatcher.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// The running kernel's occupancy.
    max_per_sm: u8,
    /// Per SM: cycles left of each resident block.
    resident: Vec<Vec<u16>>,
    /// Cycles since the last kernel start.
    age: u64,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            max_per_sm: 0,
            resident: vec![vec![]; params.sms],
            age: 0,
        }
    }

}

impl crate::block::Stimulus<DispatchIn, DispatchOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one (`None` in the first
    /// cycle after reset).
    fn next(&mut self, prev: Option<&DispatchOut>) -> DispatchIn {
        let n = self.params.sms;
        if let Some(o) = prev {
            for (s, _) in o.grants(n) {
                let life = self.rng.gen_range(1..200);
                self.resident[s].push(life);
            }
        }
        for r in &mut self.resident {
            r.iter_mut().for_each(|c| *c = c.saturating_sub(1));
            r.retain(|&c| c > 0);
        }
        self.age += 1;
        let idle = prev.is_none_or(|o| o.idle);
        let mut inp = DispatchIn::default();
        if (idle && self.rng.gen_bool(0.05)) || self.rng.gen_ratio(1, 5000) {
            inp.start = true;
            inp.total = match self.rng.gen_range(0..20) {
                0 => 0,
                1 => 1,
                2 => u32::MAX - self.rng.gen_range(0..4),
                3 => self.rng.gen_range(1..5000),
                _ => self.rng.gen_range(1..(4 * n as u32 + 8)),
            };
            inp.max_per_sm = match self.rng.gen_range(0..10) {
                0 => 0,
                1 => 1,
                2 => self.rng.gen(),
                _ => self.rng.gen_range(1..=8),
            };
            self.max_per_sm = inp.max_per_sm;
            self.age = 0;
        }
        if self.rng.gen_ratio(1, 64) {
            let mut r = [0u128; 2];
            for m in &mut r {
                *m = (self.rng.gen::<u64>() as u128) << 64 | self.rng.gen::<u64>() as u128;
            }
            (inp.room, inp.room2) = (r[0] & self.params.sm_mask(), r[1] & self.params.sm_mask());
            return inp;
        }
        for (s, r) in self.resident.iter().enumerate().take(MAX_SMS) {
            let free = (self.max_per_sm as usize).saturating_sub(r.len());
            // Now and then an SM is busy with something else.
            if self.rng.gen_ratio(1, 16) {
                continue;
            }
            inp.room |= ((free >= 1) as u128) << s;
            inp.room2 |= ((free >= 2) as u128) << s;
        }
        inp
    }
}
