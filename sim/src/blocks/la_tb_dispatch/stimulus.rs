//! Constrained-random stimulus for the locality-aware dispatcher: kernels of random size
//! start when the previous one has been granted; the queue presents rectangles on a small
//! grid (so blocks overlap often, and sometimes not at all), now and then with a gap; a model
//! of the SMs holds the granted blocks in the slots the dispatcher chose for a random number of
//! cycles, reports them on `done` when they end and reports `room` from its resident counts.
//! Deterministic for a seed.

use super::{pack_rect, LaDispatchIn, LaDispatchOut, Params};
use crate::analysis::locality::Rect;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Stimulus generator for one dispatcher.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    max_per_sm: usize,
    total: u32,
    /// Blocks the dispatcher took from the queue.
    fed: u32,
    /// Per SM, per slot: cycles left of the resident block.
    life: Vec<Vec<Option<u16>>>,
    /// The queue's next blocks' rectangles (kept until taken).
    next: VecDeque<[u64; crate::analysis::locality::MAX_ARRAYS]>,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            max_per_sm: 0,
            total: 0,
            fed: 0,
            life: vec![vec![None; params.slots]; params.sms],
            next: VecDeque::new(),
        }
    }

    fn draw_rects(&mut self) -> [u64; crate::analysis::locality::MAX_ARRAYS] {
        let mut rects = [0; crate::analysis::locality::MAX_ARRAYS];
        for rect in rects.iter_mut().take(self.params.arrays) {
            let r = match self.rng.gen_range(0..10) {
                0 => None,
                1 => Some(Rect {
                    sx: self.rng.gen_range(0..1 << 24),
                    sy: self.rng.gen(),
                    w: self.rng.gen_range(1..=255),
                    h: self.rng.gen_range(1..=255),
                }),
                _ => Some(Rect {
                    sx: self.rng.gen_range(0..24),
                    sy: self.rng.gen_range(0..6),
                    w: self.rng.gen_range(1..8),
                    h: self.rng.gen_range(1..4),
                }),
            };
            *rect = pack_rect(r);
        }
        rects
    }
}

impl crate::block::Stimulus<LaDispatchIn, LaDispatchOut> for Stimulus {
    fn next(&mut self, prev: Option<&LaDispatchOut>) -> LaDispatchIn {
        let p = self.params;
        let mut inp = LaDispatchIn::default();
        if let Some(o) = prev {
            if o.grant {
                let (s, j) = (o.grant_sm as usize, o.grant_slot as usize);
                if s < p.sms && j < p.slots {
                    self.life[s][j] = Some(self.rng.gen_range(1..120));
                }
            }
            let taken = (o.fill_taken as usize).min(self.next.len());
            self.next.drain(..taken);
            self.fed += taken as u32;
        }
        for (s, slots) in self.life.iter_mut().enumerate() {
            for (j, l) in slots.iter_mut().enumerate() {
                if let Some(c) = l {
                    *c -= 1;
                    if *c == 0 {
                        *l = None;
                        inp.done[s] |= 1 << j;
                    }
                }
            }
        }
        let idle = prev.is_none_or(|o| o.idle);
        if (idle && self.rng.gen_bool(0.05)) || self.rng.gen_ratio(1, 20_000) {
            inp.start = true;
            inp.total = match self.rng.gen_range(0..12) {
                0 => 0,
                1 => 1,
                _ => self.rng.gen_range(1..(6 * p.sms as u32 * p.slots as u32)),
            };
            self.max_per_sm = self.rng.gen_range(1..=p.slots);
            self.total = inp.total;
            self.fed = 0;
            self.next.clear();
        }
        let queued = self.total.saturating_sub(self.fed) as usize;
        let count = if self.rng.gen_ratio(1, 16) {
            0
        } else {
            self.rng.gen_range(1..=p.fill).min(queued)
        };
        while self.next.len() < count {
            let r = self.draw_rects();
            self.next.push_back(r);
        }
        inp.fill_count = count as u8;
        for (i, r) in self.next.iter().take(count).enumerate() {
            inp.fill_rect[i * p.arrays..(i + 1) * p.arrays].copy_from_slice(&r[..p.arrays]);
        }
        for (s, slots) in self.life.iter().enumerate() {
            let resident = slots.iter().flatten().count();
            if resident < self.max_per_sm && !self.rng.gen_ratio(1, 16) {
                inp.room |= 1 << s;
            }
        }
        inp
    }
}
