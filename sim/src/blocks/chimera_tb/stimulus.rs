//! Constrained-random stimulus for `chimera_tb`: an SM whose block slots fill and empty
//! (launches of new blocks and of restored ones with saved counts, some near saturation),
//! whose issue ports issue warp instructions of live blocks (some ending their idempotence),
//! and whose kernel scheduler asks for a plan now and then with random victims and kernel
//! statistics (unknown ones included), limits, modes and scopes. Now and then an input is
//! random within its port width (slots past `T`, requests while busy). Deterministic for a
//! seed.

use super::block::{ChimeraIn, ChimeraOut, Params};
use super::cost::MAX;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// Slots the model believes hold a block.
    live: u32,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            live: 0,
        }
    }

    fn slot_bits(&self) -> u32 {
        crate::block::clog2(self.params.slots as usize)
    }

    /// A slot: mostly one of `mask`'s (when it has one), sometimes any value of the port.
    fn slot(&mut self, mask: u32) -> u8 {
        let t = self.params.slots;
        if mask != 0 && !self.rng.gen_ratio(1, 50) {
            let live: Vec<u32> = (0..t).filter(|k| mask >> k & 1 == 1).collect();
            return live[self.rng.gen_range(0..live.len())] as u8;
        }
        self.rng.gen_range(0..1u32 << self.slot_bits()) as u8
    }

    /// A statistic: unknown, small, typical or huge.
    fn stat(&mut self, typical: std::ops::Range<u32>) -> u32 {
        match self.rng.gen_range(0..10) {
            0 => MAX,
            1 => self.rng.gen(),
            2 => 0,
            _ => self.rng.gen_range(typical),
        }
    }

    fn count(&mut self) -> u32 {
        match self.rng.gen_range(0..8) {
            0 => MAX - self.rng.gen_range(0..4),
            1 => self.rng.gen(),
            _ => self.rng.gen_range(0..5000),
        }
    }
}

impl crate::block::Stimulus<ChimeraIn, ChimeraOut> for Stimulus {
    fn next(&mut self, _prev: Option<&ChimeraOut>) -> ChimeraIn {
        let t = self.params.slots;
        let all = (1u32 << t) - 1;
        let mut i = ChimeraIn::default();
        let free = all & !self.live;
        if self.rng.gen_ratio(1, 6) {
            i.launch = true;
            i.launch_slot = self.slot(free);
            let restored = self.rng.gen_ratio(1, 3);
            if restored {
                i.launch_issued = self.count();
                i.launch_cycles = self.count();
                i.launch_ni = self.rng.gen_bool(0.3);
            }
            if (i.launch_slot as u32) < t {
                self.live |= 1 << i.launch_slot;
            }
        }
        if self.live != 0 && self.rng.gen_ratio(1, 10) {
            i.leave = true;
            i.leave_slot = self.slot(self.live);
            if (i.leave_slot as u32) < t && !(i.launch && i.launch_slot == i.leave_slot) {
                self.live &= !(1 << i.leave_slot);
            }
        } else {
            i.leave_slot = self.slot(self.live);
        }
        for p in 0..self.params.issue as usize {
            i.issue_valid[p] = self.live != 0 && self.rng.gen_bool(0.7);
            i.issue_slot[p] = self.slot(self.live);
            i.issue_overwrite[p] = self.rng.gen_ratio(1, 40);
        }
        if self.rng.gen_ratio(1, 60) {
            i.start = true;
            i.victims = self.rng.gen::<u32>() & all;
            if self.rng.gen_bool(0.5) {
                i.victims = self.live;
            }
            i.avg_i = self.stat(0..6000);
            i.cpi_q = self.stat(1 << 14..40 << 16);
            i.ipc_q = self.stat(1 << 12..4 << 16);
            i.sw_cyc = self.stat(0..20_000) & 0xff_ffff;
            i.lat_limit = match self.rng.gen_range(0..6) {
                0 => self.rng.gen(),
                1 => MAX,
                _ => self.rng.gen_range(1..60_000),
            };
            i.margin = match self.rng.gen_range(0..6) {
                0 => self.rng.gen(),
                1 | 2 => self.rng.gen_range(0..2000),
                _ => 0,
            };
            i.mode = self.rng.gen_range(0..4);
            i.scope = self.rng.gen_range(0..4);
            i.idempotent = self.rng.gen_bool(0.5);
            i.dr_min = self.rng.gen_bool(0.5);
        }
        i
    }
}
