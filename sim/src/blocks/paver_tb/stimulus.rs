//! Constrained-random stimulus for PAVER's scheduler: kernels of random size whose group tables
//! (a random permutation cut into random groups; with [`Stimulus::mst_shapes`], one kernel in
//! five shaped as MST-TS's) the stimulus holds and reads for the block, answering each read after 1 to 3 cycles (mostly
//! 1); SMs of a random occupancy hold granted blocks for a random number of cycles (up to 40,
//! 120 or 600, per kernel) and report `room` and `empty`. A new kernel starts when the previous
//! one has been granted (now and then earlier), with a random stealer mode (or a fixed one).
//! About one cycle in 64 has random `room`/`empty` masks. Deterministic for a seed.

use super::{Params, PaverIn, PaverOut};
use crate::analysis::paver::Groups;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Random tables of `total` blocks (a permutation) in groups of 1 to `most` blocks.
pub fn random_groups(rng: &mut impl Rng, total: usize, most: usize) -> Groups {
    let mut order: Vec<u32> = (0..total as u32).collect();
    order.shuffle(rng);
    let mut gstart = vec![0u32];
    let mut at = 0;
    while at < total {
        at = (at + rng.gen_range(1..=most.max(1))).min(total);
        gstart.push(at as u32);
    }
    Groups {
        order,
        gstart,
        notes: vec![],
    }
}

/// Tables shaped as MST-TS's (spec §1.5): a random permutation of `total` blocks, its first
/// `sms` groups of `per_sm` blocks, then one block a group.
pub fn mst_shaped_groups(rng: &mut impl Rng, total: usize, sms: usize, per_sm: usize) -> Groups {
    let mut order: Vec<u32> = (0..total as u32).collect();
    order.shuffle(rng);
    let head = (sms * per_sm).min(total);
    let mut gstart: Vec<u32> = (0..head).step_by(per_sm.max(1)).map(|i| i as u32).collect();
    gstart.extend((head..=total).map(|i| i as u32));
    Groups {
        order,
        gstart,
        notes: vec![],
    }
}

/// Stimulus generator for one scheduler.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    /// The running kernel's tables.
    pub tables: Groups,
    /// Blocks one SM holds (the kernel's occupancy).
    per_sm: usize,
    /// The kernel's longest block, cycles (long enough, now and then, for a stealer round
    /// over 80 SMs).
    life: u16,
    /// Per SM: cycles left of each resident block.
    resident: Vec<Vec<u16>>,
    /// Per SM: the outstanding read's answer and the cycles until it arrives.
    reads: Vec<Option<(u32, u8)>>,
    /// Every kernel's `steal_mode` and `recipient_idle` (`None`: random per kernel).
    pub mode: Option<(u8, bool)>,
    /// One kernel in five gets MST-shaped tables (the property checks' P12); off by default,
    /// so the lockstep regression and the FPGA self-tests keep their stimulus.
    pub mst_shapes: bool,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            tables: Groups::default(),
            per_sm: 1,
            life: 120,
            resident: vec![vec![]; params.sms],
            reads: vec![None; params.sms],
            mode: None,
            mst_shapes: false,
        }
    }

    fn start(&mut self, inp: &mut PaverIn) {
        let n = self.params.sms;
        self.per_sm = self.rng.gen_range(1..=8);
        self.life = [40, 120, 120, 600][self.rng.gen_range(0..4)];
        let total = match self.rng.gen_range(0..20) {
            0 => 1,
            1 => self.rng.gen_range(1..3000),
            _ => self.rng.gen_range(1..(3 * n * self.per_sm + 8)),
        };
        let most = match self.rng.gen_range(0..4) {
            0 => 1,
            1 => 4 * self.per_sm,
            _ => self.per_sm,
        };
        self.tables = if self.mst_shapes && self.rng.gen_ratio(1, 5) {
            mst_shaped_groups(&mut self.rng, total, n, self.per_sm)
        } else {
            random_groups(&mut self.rng, total, most)
        };
        self.reads.iter_mut().for_each(|r| *r = None);
        inp.start = true;
        inp.groups = self.tables.len() as u16;
        (inp.steal_mode, inp.recipient_idle) = self
            .mode
            .unwrap_or_else(|| (self.rng.gen_range(0..4), self.rng.gen_bool(0.3)));
    }
}

impl crate::block::Stimulus<PaverIn, PaverOut> for Stimulus {
    fn next(&mut self, prev: Option<&PaverOut>) -> PaverIn {
        let n = self.params.sms;
        if let Some(o) = prev {
            for (s, _) in o.grants(n) {
                let life = self.rng.gen_range(1..self.life);
                self.resident[s].push(life);
            }
            for (s, group, a) in o.reads(n) {
                let delay = if self.rng.gen_ratio(3, 4) {
                    1
                } else {
                    self.rng.gen_range(2..=3)
                };
                self.reads[s] = Some((self.tables.table_word(group, a), delay));
            }
        }
        for r in &mut self.resident {
            r.iter_mut().for_each(|c| *c = c.saturating_sub(1));
            r.retain(|&c| c > 0);
        }
        let mut inp = PaverIn::default();
        for (s, read) in self.reads.iter_mut().enumerate() {
            match read {
                Some((data, 1)) => {
                    inp.rsp_valid |= 1 << s;
                    inp.rsp_data[s] = *data;
                    *read = None;
                }
                Some((_, d)) => *d -= 1,
                None => {}
            }
        }
        let idle = prev.is_none_or(|o| o.idle);
        if (idle && self.rng.gen_bool(0.05)) || self.rng.gen_ratio(1, 20_000) {
            self.start(&mut inp);
        }
        if self.rng.gen_ratio(1, 64) {
            let mask = self.params.sm_mask();
            inp.room =
                ((self.rng.gen::<u64>() as u128) << 64 | self.rng.gen::<u64>() as u128) & mask;
            inp.empty =
                ((self.rng.gen::<u64>() as u128) << 64 | self.rng.gen::<u64>() as u128) & mask;
            return inp;
        }
        for (s, r) in self.resident.iter().enumerate() {
            inp.empty |= (r.is_empty() as u128) << s;
            // Now and then an SM is busy with something else.
            if r.len() < self.per_sm && !self.rng.gen_ratio(1, 16) {
                inp.room |= 1 << s;
            }
        }
        inp
    }
}
