//! ELF (seed 003 ch. III; `shared/spec/elf.md` §1.5-§1.8): the program-point table, the
//! priority calculator (comparators + priority encoder + distance/score arithmetic), the warp
//! priority table (WPT) and the issue select of the SM's two warp schedulers. Golden model
//! (the RTL and its catalog entry come next).
//!
//! # Ports and cycle semantics (Mealy outputs, state updated at the rising edge)
//! * **Table write port** (`tw_*`), used at kernel launch only: `tw_clear` invalidates every
//!   slot, then `tw_en` writes slot `tw_slot`. Slots must hold ascending PCs from slot 0 with
//!   the valid ones contiguous (what [`crate::analysis::elf::compile`] produces). A lookup in a
//!   cycle that writes the table is not allowed by the protocol (spec PC-8).
//! * **Launch/exit** (`launch`, `exit`: one bit per warp of the SM): a launched warp becomes
//!   live, gets the next age and `WPT = calc(launch_pc)`; an exiting warp stops being
//!   live.
//! * **Issue select**, per scheduler `s` (warp `w` belongs to scheduler `w % 2`, local index
//!   `w / 2`): among `ready_s & live`, the warp with the smallest key
//!   `(WPT[w], w != last_issued[s], age[w])` is granted (`grant_s_*`), and becomes
//!   `last_issued[s]` (spec §1.8, A-11). `prio_s` is its WPT value.
//! * **Fetch select** (spec §1.9 [REC], A-10): among `fetch_elig & live`, each scheduler's
//!   warp with the smallest key (the same keys as the issue select, before this cycle's
//!   grants) and its rank, the number of live warps of that scheduler with a smaller key;
//!   scheduler `fetch_lead`'s warp is fetched when its rank is not larger than the other's
//!   (`fetch_valid`, `fetch_warp`: global id). This is the first eligible warp of the
//!   interleave of the two key orders, the leading scheduler first.
//! * **WPT update** (`upd_s_*`): the SM reports, in the cycle after a grant of scheduler `s`,
//!   what the granted instruction did: `upd_s_valid`, `upd_s_trig` (a program-point load was
//!   issued, or a branch whose direction equals its recalculation bit) and `upd_s_pc` (the
//!   warp's next PC). At the edge: `WPT[w] = trig ? calc(upd_pc) : (WPT[w] == 255 ? 255 :
//!   max(WPT[w] - 1, 0))` (spec §1.7 with the sticky sentinel of A-21).
//!
//!   **Deviation** from spec §1.6 [REC] ("registered into the WPT, visible next cycle"): the
//!   WPT write for an instruction granted in cycle `t` happens at the end of cycle `t + 1`
//!   (visible at `t + 2`), because the kind and next PC of the granted instruction come from
//!   the SM after the grant; a same-cycle update would need every warp's next PC as a port.
//!   The issuing warp keeps the greedy tie-break meanwhile, and with an empty table every
//!   entry stays 255, so ELF still issues exactly as GTO (SCH-4).
//!
//! `calc` is [`calc`]: the first valid slot with `pc_slot >= pc` (priority encoder over a sorted
//! table); distance `d = (pc_slot - pc) >> inst_shift`; a branch gives `sat(d + score)`, a load
//! `sat(d >= score ? d - score : d)` (`merge_ge`, A-6), no slot gives 255.

pub mod stimulus;

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Largest priority (8-bit): saturation and "no load ahead".
pub const MAX_PRIO: u8 = 255;

/// One program-point table slot (42 bits in hardware: valid, branch, 32-bit PC, 8-bit score).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PpEntry {
    /// The slot holds a program point.
    pub valid: bool,
    /// It is a branch (else a load).
    pub branch: bool,
    /// Its PC (bytes).
    pub pc: u32,
    /// Its score.
    pub score: u8,
}

/// What the calculator found for one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// Priority, 0 (load next) ..= 255.
    pub prio: u8,
    /// A valid slot with `pc_slot >= pc` exists.
    pub found: bool,
    /// The lowest such slot (0 when not found).
    pub sel: usize,
}

/// The priority calculator (spec §1.6 [REC]) over a PC-sorted table.
pub fn calc(table: &[PpEntry], pc: u32, inst_shift: u32, merge_ge: bool) -> Lookup {
    let Some(sel) = table.iter().position(|e| e.valid && e.pc >= pc) else {
        return Lookup {
            prio: MAX_PRIO,
            found: false,
            sel: 0,
        };
    };
    let e = table[sel];
    let d = ((e.pc - pc) >> inst_shift) as u64;
    let s = e.score as u64;
    let v = if e.branch {
        d + s
    } else if (merge_ge && d >= s) || (!merge_ge && d > s) {
        d - s
    } else {
        d
    };
    Lookup {
        prio: v.min(MAX_PRIO as u64) as u8,
        found: true,
        sel,
    }
}

/// The inputs that write `table` through the table port, one slot per cycle from slot 0; with
/// `clear` the first of them also invalidates the old table (an empty `table` then takes one
/// clearing cycle). No other port is driven: the caller adds launch, ready, update inputs.
pub fn table_writes(table: &[PpEntry], clear: bool) -> Vec<ElfIn> {
    if table.is_empty() {
        return if clear {
            vec![ElfIn {
                tw_clear: true,
                ..Default::default()
            }]
        } else {
            vec![]
        };
    }
    table
        .iter()
        .enumerate()
        .map(|(i, e)| ElfIn {
            tw_clear: i == 0 && clear,
            tw_en: true,
            tw_slot: i as u8,
            tw_valid: e.valid,
            tw_branch: e.branch,
            tw_pc: e.pc,
            tw_score: e.score,
            ..Default::default()
        })
        .collect()
}

/// Parameter presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// GTX 480: 48 warps, 32 program points.
    Fermi,
    /// Small FPGA prototype: 8 warps, 8 program points.
    Proto,
}

/// Block parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Warps per SM (even, 2..=64): two schedulers of `warps / 2`.
    pub warps: usize,
    /// Program-point slots (1..=64).
    pub slots: usize,
    /// PC bits per instruction step (3: 8-byte instructions).
    pub inst_shift: u32,
    /// Subtract a merged load's score when `d >= score` (true, A-6) or `d > score`.
    pub merge_ge: bool,
}

impl Params {
    /// A preset's parameters.
    pub fn preset(p: Preset) -> Self {
        let (warps, slots) = match p {
            Preset::Fermi => (48, 32),
            Preset::Proto => (8, 8),
        };
        Self {
            warps,
            slots,
            inst_shift: 3,
            merge_ge: true,
        }
    }

    /// Warps per scheduler.
    pub fn per_sched(&self) -> usize {
        self.warps / 2
    }
}

port_bundle! {
    /// Inputs of one cycle. Masks over all warps are `warps` bits; per-scheduler masks and
    /// warp ids are local (`w / 2`).
    pub struct ElfIn for Params {
        /// Invalidate every table slot (kernel launch), before `tw_en`'s write.
        pub tw_clear: bool = |_p| 1,
        /// Write table slot `tw_slot`.
        pub tw_en: bool = |_p| 1,
        /// Slot written.
        pub tw_slot: u8 = |p| clog2(p.slots),
        /// Written valid bit.
        pub tw_valid: bool = |_p| 1,
        /// Written branch bit.
        pub tw_branch: bool = |_p| 1,
        /// Written PC.
        pub tw_pc: u32 = |_p| 32,
        /// Written score.
        pub tw_score: u8 = |_p| 8,
        /// Warps launched this cycle (all at `launch_pc`).
        pub launch: u64 = |p| p.warps,
        /// Start PC of the launched warps.
        pub launch_pc: u32 = |_p| 32,
        /// Warps that exit this cycle.
        pub exit: u64 = |p| p.warps,
        /// Scheduler 0's issuable warps (local ids).
        pub ready0: u64 = |p| p.per_sched(),
        /// Scheduler 1's issuable warps (local ids).
        pub ready1: u64 = |p| p.per_sched(),
        /// Scheduler 0's previous grant: update its WPT entry.
        pub upd0_valid: bool = |_p| 1,
        /// Recalculate (else decrement).
        pub upd0_trig: bool = |_p| 1,
        /// The warp's next PC.
        pub upd0_pc: u32 = |_p| 32,
        /// Scheduler 1's previous grant: update its WPT entry.
        pub upd1_valid: bool = |_p| 1,
        /// Recalculate (else decrement).
        pub upd1_trig: bool = |_p| 1,
        /// The warp's next PC.
        pub upd1_pc: u32 = |_p| 32,
        /// Warps that want an instruction fetch (bit `w`: global warp `w`).
        pub fetch_elig: u64 = |p| p.warps,
        /// The scheduler whose order leads the fetch interleave this cycle (0 or 1).
        pub fetch_lead: bool = |_p| 1,
    }
}

port_bundle! {
    /// Outputs of one cycle.
    pub struct ElfOut for Params {
        /// Scheduler 0 grants a warp.
        pub grant0_valid: bool = |_p| 1,
        /// Scheduler 0's granted warp (local id).
        pub grant0_warp: u8 = |p| clog2(p.per_sched()),
        /// Its WPT value.
        pub prio0: u8 = |_p| 8,
        /// Scheduler 1 grants a warp.
        pub grant1_valid: bool = |_p| 1,
        /// Scheduler 1's granted warp (local id).
        pub grant1_warp: u8 = |p| clog2(p.per_sched()),
        /// Its WPT value.
        pub prio1: u8 = |_p| 8,
        /// A fetch-eligible live warp exists: fetch for `fetch_warp`.
        pub fetch_valid: bool = |_p| 1,
        /// The warp to fetch for (global id).
        pub fetch_warp: u8 = |p| clog2(p.warps),
    }
}

/// Golden model of the ELF block.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    table: Vec<PpEntry>,
    wpt: Vec<u8>,
    live: u64,
    /// Launch sequence number per warp (smaller is older).
    age: Vec<u64>,
    next_age: u64,
    /// Last granted warp (global id) per scheduler.
    last: [Option<usize>; 2],
    /// The warp granted in the previous cycle per scheduler (the target of `upd_s_*`).
    pending: [Option<usize>; 2],
    /// Calculator invocations (spec WPT-6).
    pub calcs: u64,
}

impl Golden {
    /// A block in its reset state.
    pub fn new(params: Params) -> Self {
        assert!(params.warps.is_multiple_of(2) && (2..=64).contains(&params.warps));
        assert!((1..=64).contains(&params.slots));
        let mut g = Self {
            params,
            table: vec![PpEntry::default(); params.slots],
            wpt: vec![MAX_PRIO; params.warps],
            live: 0,
            age: vec![0; params.warps],
            next_age: 0,
            last: [None; 2],
            pending: [None; 2],
            calcs: 0,
        };
        g.reset();
        g
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The WPT entry of warp `w`.
    pub fn wpt(&self, w: usize) -> u8 {
        self.wpt[w]
    }

    /// The table.
    pub fn table(&self) -> &[PpEntry] {
        &self.table
    }

    fn lookup(&mut self, pc: u32) -> u8 {
        self.calcs += 1;
        calc(
            &self.table,
            pc,
            self.params.inst_shift,
            self.params.merge_ge,
        )
        .prio
    }

    /// Warp `w`'s issue key in its scheduler `w % 2` (smaller wins, spec §1.8).
    fn key(&self, w: usize) -> (u8, bool, u64, usize) {
        (self.wpt[w], self.last[w % 2] != Some(w), self.age[w], w)
    }

    /// Global-id mask of scheduler `s`'s warps (`w % 2 == s`).
    fn sched_mask(&self, s: usize) -> u64 {
        (0x5555_5555_5555_5555u64 << s) & low_bits(self.params.warps)
    }

    /// The live warp of scheduler `s` among `warps` (global mask) with the smallest key.
    fn best(&self, s: usize, warps: u64) -> Option<usize> {
        let mut m = warps & self.live & self.sched_mask(s);
        let mut best: Option<((u8, bool, u64, usize), usize)> = None;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let k = self.key(w);
            if best.is_none_or(|(b, _)| k < b) {
                best = Some((k, w));
            }
        }
        best.map(|(_, w)| w)
    }

    fn select(&self, s: usize, ready: u64) -> Option<usize> {
        let mut global = 0u64;
        for local in 0..self.params.per_sched() {
            global |= (ready >> local & 1) << (2 * local + s);
        }
        self.best(s, global)
    }

    /// Fetch select (spec §1.9 [REC], rank form): each scheduler's best fetch-eligible warp
    /// and its rank (live warps of that scheduler with a smaller key); the leading
    /// scheduler's warp wins ties. Equal to the first eligible warp of the interleave
    /// `lead[0], other[0], lead[1], ...` of the two key orders (F-1).
    fn fetch_select(&self, elig: u64, lead: usize) -> Option<usize> {
        let pick = |s: usize| {
            self.best(s, elig).map(|b| {
                let kb = self.key(b);
                let mut m = self.live & self.sched_mask(s);
                let mut rank = 0;
                while m != 0 {
                    let w = m.trailing_zeros() as usize;
                    m &= m - 1;
                    rank += (self.key(w) < kb) as usize;
                }
                (rank, b)
            })
        };
        match (pick(lead), pick(1 - lead)) {
            (Some((rl, l)), Some((ro, o))) => Some(if rl <= ro { l } else { o }),
            (l, o) => l.or(o).map(|x| x.1),
        }
    }
}

impl Block for Golden {
    type In = ElfIn;
    type Out = ElfOut;

    fn reset(&mut self) {
        self.table.fill(PpEntry::default());
        self.wpt.fill(MAX_PRIO);
        self.live = 0;
        self.age.fill(0);
        self.next_age = 0;
        self.last = [None; 2];
        self.pending = [None; 2];
        self.calcs = 0;
    }

    fn step(&mut self, inp: &ElfIn) -> ElfOut {
        let grants = [self.select(0, inp.ready0), self.select(1, inp.ready1)];
        let fetch = self.fetch_select(
            inp.fetch_elig & low_bits(self.params.warps),
            inp.fetch_lead as usize,
        );
        let out = ElfOut {
            fetch_valid: fetch.is_some(),
            fetch_warp: fetch.unwrap_or(0) as u8,
            grant0_valid: grants[0].is_some(),
            grant0_warp: grants[0].map_or(0, |w| (w / 2) as u8),
            prio0: grants[0].map_or(0, |w| self.wpt[w]),
            grant1_valid: grants[1].is_some(),
            grant1_warp: grants[1].map_or(0, |w| (w / 2) as u8),
            prio1: grants[1].map_or(0, |w| self.wpt[w]),
        };
        // Edge. WPT updates and launches read the table as it was during the cycle.
        let upd = [
            (inp.upd0_valid, inp.upd0_trig, inp.upd0_pc),
            (inp.upd1_valid, inp.upd1_trig, inp.upd1_pc),
        ];
        for (s, (valid, trig, pc)) in upd.into_iter().enumerate() {
            if let (true, Some(w)) = (valid, self.pending[s]) {
                self.wpt[w] = if trig {
                    self.lookup(pc)
                } else if self.wpt[w] == MAX_PRIO {
                    MAX_PRIO
                } else {
                    self.wpt[w].saturating_sub(1)
                };
            }
        }
        let wmask = low_bits(self.params.warps);
        let mut l = inp.launch & wmask;
        while l != 0 {
            let w = l.trailing_zeros() as usize;
            l &= l - 1;
            self.wpt[w] = self.lookup(inp.launch_pc);
            self.age[w] = self.next_age;
            self.next_age += 1;
        }
        self.live = (self.live & !(inp.exit & wmask)) | (inp.launch & wmask);
        for (s, g) in grants.into_iter().enumerate() {
            if g.is_some() {
                self.last[s] = g;
            }
            self.pending[s] = g;
        }
        if inp.tw_clear {
            self.table.fill(PpEntry::default());
        }
        if inp.tw_en && (inp.tw_slot as usize) < self.params.slots {
            self.table[inp.tw_slot as usize] = PpEntry {
                valid: inp.tw_valid,
                branch: inp.tw_branch,
                pc: inp.tw_pc,
                score: inp.tw_score,
            };
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let mut v = vec![PortSpec::new("live", self.params.warps as u32)];
        for w in 0..self.params.warps {
            v.push(PortSpec::new(format!("wpt_{w}"), 8));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.live);
        out.extend(self.wpt.iter().map(|&x| x as u64));
    }
}

#[cfg(test)]
mod tests;

/// The ELF block as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "elf";
    const SUMMARY: &'static str = "ELF program-point table, priority calculators, warp priority table and issue select (seed 003 ch. III)";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = ElfIn;
    type Out = ElfOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        Params::preset(match preset {
            "fermi" => Preset::Fermi,
            "proto" => Preset::Proto,
            other => unreachable!("not a preset of elf: {other}"),
        })
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![
            ("warps", p.warps as u64),
            ("slots", p.slots as u64),
            ("inst_shift", p.inst_shift as u64),
        ]
    }
    fn busy(out: &ElfOut) -> bool {
        out.grant0_valid || out.grant1_valid
    }
    fn describe(p: &Params) -> String {
        format!("{} warps, {} program points", p.warps, p.slots)
    }
}
