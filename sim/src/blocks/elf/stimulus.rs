//! Constrained-random stimulus for the ELF block: every few thousand cycles the program-point
//! table is rewritten (clear, then one slot per cycle: a random PC-sorted table with loads,
//! branches and merged scores); in between, warps launch and exit, become ready, and every
//! grant is followed by its WPT update (a recalculation one time in three, at a PC around the
//! table's), and a random set of warps asks for a fetch. The merged-load boundary (`merge_ge`)
//! is drawn with each table and held while it is used. About one cycle in 64 is
//! unconstrained. Deterministic for a seed.

use super::{ElfIn, ElfOut, Params};
use crate::block::{clog2, low_bits};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stimulus generator for one ELF block.
#[derive(Clone, Debug)]
pub struct Stimulus {
    params: Params,
    rng: Xoshiro256PlusPlus,
    live: u64,
    /// Table rows still to write: (valid, branch, pc, score).
    writing: Vec<(bool, bool, u32, u8)>,
    clear: bool,
    until_rewrite: u32,
    /// The merged-load boundary held with the current table.
    merge_ge: bool,
}

impl Stimulus {
    /// A generator for `params` seeded with `seed`.
    pub fn new(params: Params, seed: u64) -> Self {
        Self {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            live: 0,
            writing: vec![],
            clear: false,
            until_rewrite: 0,
            merge_ge: false,
        }
    }

    fn new_table(&mut self) {
        let p = self.params;
        let n = self.rng.gen_range(0..=p.slots);
        let mut pc = 0u32;
        self.writing = (0..p.slots)
            .map(|k| {
                pc += 8 * self.rng.gen_range(1..40);
                (
                    k < n,
                    self.rng.gen_ratio(1, 3),
                    pc,
                    // Merged scores, often as small as the distances (`d == score`
                    // tells the two boundaries apart).
                    match self.rng.gen_range(0..6) {
                        0 => self.rng.gen(),
                        1 => self.rng.gen_range(1..40),
                        _ => 0,
                    },
                )
            })
            .collect();
        self.writing.reverse();
        self.clear = true;
        self.merge_ge = self.rng.gen();
        self.until_rewrite = self.rng.gen_range(500..6000);
    }

}

impl crate::block::Stimulus<ElfIn, ElfOut> for Stimulus {
    /// Inputs for the next cycle, given the outputs of the previous one.
    fn next(&mut self, prev: Option<&ElfOut>) -> ElfIn {
        let p = self.params;
        let all = low_bits(p.warps);
        let per = low_bits(p.per_sched());
        let sch = p.schedulers;
        // All ones for a scheduler the block has, zero for the unused array elements.
        let sched = |s: usize| if s < sch { u64::MAX } else { 0 };
        let units = low_bits(2 * p.per_sched());
        let free_mask = low_bits(clog2(sch + 1) as usize) as u8;
        if self.until_rewrite == 0 && self.writing.is_empty() {
            self.new_table();
        }
        if self.clear {
            self.clear = false;
            return ElfIn {
                tw_clear: true,
                merge_ge: self.merge_ge,
                ..Default::default()
            };
        }
        if let Some((valid, branch, pc, score)) = self.writing.pop() {
            let slot = (p.slots - 1 - self.writing.len()) as u8;
            return ElfIn {
                tw_en: true,
                tw_slot: slot,
                tw_valid: valid,
                tw_branch: branch,
                tw_pc: pc,
                tw_score: score,
                merge_ge: self.merge_ge,
                ..Default::default()
            };
        }
        self.until_rewrite -= 1;
        let span = 8 * 40 * p.slots as u32;
        if self.rng.gen_ratio(1, 64) {
            return ElfIn {
                launch: self.rng.gen::<u64>() & all,
                launch_pc: self.rng.gen_range(0..span) & !7,
                exit: self.rng.gen::<u64>() & all,
                ready: std::array::from_fn(|s| self.rng.gen::<u64>() & per & sched(s)),
                upd_valid: std::array::from_fn(|s| self.rng.gen::<bool>() & (s < sch)),
                upd_trig: std::array::from_fn(|s| self.rng.gen::<bool>() & (s < sch)),
                upd_pc: std::array::from_fn(|s| self.rng.gen::<u32>() & sched(s) as u32),
                fetch_elig: self.rng.gen::<u64>() & all,
                fetch_on_grant: self.rng.gen::<u64>() & all,
                unit: std::array::from_fn(|s| self.rng.gen::<u64>() & sched(s) & units),
                free: std::array::from_fn(|_| self.rng.gen::<u8>() & free_mask),
                issue_lead: self.rng.gen::<u8>() & low_bits(clog2(sch) as usize) as u8,
                fetch_lead: self.rng.gen::<u8>() & low_bits(clog2(sch) as usize) as u8,
                merge_ge: self.rng.gen(),
                ..Default::default()
            };
        }
        let launch = if self.rng.gen_ratio(1, 30) {
            self.rng.gen::<u64>() & all & !self.live
        } else {
            0
        };
        let exit = if self.rng.gen_ratio(1, 40) {
            self.rng.gen::<u64>() & self.live & self.rng.gen::<u64>()
        } else {
            0
        };
        self.live = (self.live & !exit) | launch;
        let mut inp = ElfIn {
            launch,
            exit,
            merge_ge: self.merge_ge,
            ..Default::default()
        };
        for s in 0..sch {
            inp.ready[s] = self.rng.gen::<u64>() & per;
            inp.unit[s] = self.rng.gen::<u64>() & units;
            inp.upd_valid[s] = prev.is_some_and(|o| o.grant_valid[s]);
            inp.upd_trig[s] = self.rng.gen_ratio(1, 3);
            inp.upd_pc[s] = self.rng.gen_range(0..span) & !7;
        }
        inp.launch_pc = self.rng.gen_range(0..span) & !7;
        inp.fetch_elig = self.rng.gen::<u64>() & self.rng.gen::<u64>() & all;
        if launch != 0 && self.rng.gen_ratio(1, 4) {
            // Only the launching warps want a fetch (a new block's first fetch).
            inp.fetch_elig = launch;
        }
        inp.fetch_on_grant = self.rng.gen::<u64>() & !inp.fetch_elig & all;
        inp.fetch_lead = self.rng.gen_range(0..sch) as u8;
        inp.issue_lead = self.rng.gen_range(0..sch) as u8;
        // Free slots: mostly plenty, often one (the schedulers compete), sometimes none.
        inp.free = std::array::from_fn(|_| match self.rng.gen_range(0..4) {
            0 => 0,
            1 => 1,
            _ => sch as u8,
        });
        inp
    }
}
