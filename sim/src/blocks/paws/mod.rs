//! PAWS's issue select for one warp scheduler (seed 002; spec `locality_bypass_paws.md` §3.1.4,
//! C7, §4): a table of phase distances, one 16-bit entry per instruction of the kernel (block
//! RAM), each warp's distance to the end of its phase, and a select of the ready warp with the
//! shortest distance, ties to the oldest (P-PS1).
//!
//! # Ports and cycle semantics (Mealy outputs, state updated at the rising edge)
//! * **Table write** (`tw_en`, `tw_idx`, `tw_dist`), at kernel launch: entry `tw_idx` gets
//!   `tw_dist` at the edge. Entry `i` is the instruction at `kernel start + i << shift` (the SM
//!   side maps PCs to entries). Writing entry 0 also sets the *entry distance* register, the
//!   distance of the kernel's first instruction. An entry never written reads undefined.
//! * `launch`, `exit` (`warps` bits): a launched warp is live from the next cycle, younger than
//!   every live warp (the lower index older among those launched together), and its distance
//!   becomes the entry distance (a warp starts at the kernel's first instruction; one resumed
//!   elsewhere after a preemption keeps it until its first issue). An exiting warp is not live
//!   from the next cycle.
//! * **Update** (`upd_valid`, `upd_warp`, `upd_idx`, `upd_far`): the SM reports, in the cycle
//!   after it issued warp `upd_warp`'s instruction, the table entry of the warp's next
//!   instruction (`upd_far`: the next PC is outside the table, e.g. past the kernel's last
//!   instruction; its distance is the largest, C6). The table is read at that edge (block RAM,
//!   one cycle of latency); in the next cycle the entry read is the warp's distance for the
//!   select (bypassing the register it is written to at that edge). So an instruction issued at
//!   `t` sets its warp's distance for the selects from `t + 2` on, one cycle later than a select
//!   reading the table combinationally would (the golden policy follows this timing).
//! * **Select**: `eligible = ready & live`; the granted warp (`grant_valid`, `grant_warp`) is
//!   the eligible warp of the smallest distance, the oldest of those on equal distance.
//! * Reset: nothing live, every distance and the entry distance the largest, no update pending,
//!   launch order by index. The table is not cleared.

pub mod stimulus;

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
use crate::blocks::warp_arbiter::{oldest, stamp_launches, ListOrder, TwoLevelLists};
use crate::port_bundle;

/// Bits of a phase distance (spec C7, §4: 16-bit saturating).
pub const DIST_BITS: u32 = 16;
/// The largest distance: saturation, and a PC outside the table.
pub const FAR: u16 = u16::MAX;

/// Select parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Warps of the scheduler (2..=64).
    pub warps: usize,
    /// log2 of the table's entries (instructions of a kernel it holds), 1..=16.
    pub index_bits: u32,
    /// Single level, or two-level with an active list.
    pub levels: Levels,
}

/// PAWS single level (policy `base`) or two-level (`tl`, `tl_inner`; spec P-R1, C8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Levels {
    /// Every ready warp competes on (distance, age).
    Single,
    /// Two-level active scheduling ([`TwoLevelLists`]) over `max_active` warps, ordered by
    /// `order` on the key (waiting last, distance, age): `SortAtPromotion` is the report's
    /// `PAWS_TL_FAITHFUL`, `SmallestKey` is `PAWS_TL_INNER`.
    Two {
        /// Active-list length, `1..=warps / 2`.
        max_active: usize,
        /// `ListOrder::SortAtPromotion` or `ListOrder::SmallestKey`.
        order: ListOrder,
    },
}

/// The block's policies: single level, two-level as the report built it, two-level with the
/// PAWS key every cycle.
pub const POLICIES: &[&str] = &["base", "tl", "tl_inner"];

/// Presets: the GTX 480's schedulers (24 warps) and a small one (8 warps), both with a
/// 1024-instruction table (16 kbit: one ECP5 DP16KD or 7-series RAMB18, four iCE40
/// SB_RAM40_4K).
/// Two-level presets take 6 active warps (fermi: the report's ready queue, L94) and 4 (proto,
/// as the warp arbiter's).
pub const PRESETS: &[(&str, Params)] = &[
    (
        "fermi",
        Params {
            warps: 24,
            index_bits: 10,
            levels: Levels::Single,
        },
    ),
    (
        "proto",
        Params {
            warps: 8,
            index_bits: 10,
            levels: Levels::Single,
        },
    ),
];

impl Params {
    /// Width of a warp id, bits.
    pub fn id_bits(&self) -> u32 {
        clog2(self.warps)
    }

    /// Mask of the `warps` low bits.
    pub fn warp_mask(&self) -> u64 {
        low_bits(self.warps)
    }

    /// Entries of the table.
    pub fn entries(&self) -> usize {
        1 << self.index_bits
    }

    /// The parameters of `policy` (`base`, `tl`, `tl_inner`) and `preset`.
    pub fn of(policy: &str, preset: &str) -> Self {
        let p: Params = crate::block::preset_of(PRESETS, preset);
        let max_active = if p.warps >= 24 { 6 } else { 4 };
        p.with_levels(match policy {
            "tl" => Levels::Two {
                max_active,
                order: ListOrder::SortAtPromotion,
            },
            "tl_inner" => Levels::Two {
                max_active,
                order: ListOrder::SmallestKey,
            },
            _ => Levels::Single,
        })
    }

    /// The same parameters with `levels`.
    pub fn with_levels(self, levels: Levels) -> Self {
        Self { levels, ..self }
    }
}

port_bundle! {
    /// Inputs for one cycle; every mask is `warps` bits, bit `w` = local warp `w`.
    pub struct PawsIn for Params {
        /// Warps that could issue this cycle.
        pub ready: u64 = |p| p.warps,
        /// Warps launched this cycle.
        pub launch: u64 = |p| p.warps,
        /// Warps that exit this cycle.
        pub exit: u64 = |p| p.warps,
        /// Warps at a barrier, exited, or reading a long-op register: demoted from the active
        /// list by two-level (never blocks a grant; unused by `base`).
        pub long_stall: u64 = |p| p.warps,
        /// The SM reports the next instruction of the warp it issued last cycle.
        pub upd_valid: bool = |_p| 1,
        /// That warp.
        pub upd_warp: u8 = |p| p.id_bits(),
        /// The table entry of its next instruction.
        pub upd_idx: u16 = |p| p.index_bits,
        /// Its next instruction is outside the table (largest distance).
        pub upd_far: bool = |_p| 1,
        /// Write a table entry at the edge.
        pub tw_en: bool = |_p| 1,
        /// The entry written.
        pub tw_idx: u16 = |p| p.index_bits,
        /// Its distance.
        pub tw_dist: u16 = |_p| DIST_BITS,
    }
}

port_bundle! {
    /// Outputs for one cycle.
    pub struct PawsOut for Params {
        /// A warp is granted.
        pub grant_valid: bool = |_p| 1,
        /// The granted warp (`id_bits` wide); 0 when none.
        pub grant_warp: u8 = |p| p.id_bits(),
    }
}

/// A deliberate deviation from the spec, for the tests that show the checks catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Ties go to the youngest warp.
    YoungestFirst,
    /// The select does not see the entry read for last cycle's update (it waits for the
    /// register).
    NoBypass,
    /// Two-level: the active list is never sorted (TL-RR's order).
    NoSort,
}

/// Golden model of the select.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    /// Launched and not exited warps.
    live: u64,
    /// Each warp's distance (register).
    dist: [u16; 64],
    /// The entry distance (the kernel's first instruction's).
    entry: u16,
    /// The table (block RAM); never-written entries read 0 here.
    table: Vec<u16>,
    /// The update read at the last edge: its warp and the distance read.
    pending: Option<(u8, u16)>,
    /// Launch sequence number of each warp slot (smaller is older).
    seq: [u64; 64],
    next_seq: u64,
    /// Two-level: the active list and the pending FIFO.
    lists: Option<TwoLevelLists>,
    fault: Option<Fault>,
}

impl Golden {
    /// A golden select in its reset state.
    pub fn new(params: Params) -> Self {
        assert!((2..=64).contains(&params.warps), "2..=64 warps");
        assert!((1..=16).contains(&params.index_bits), "1..=16 index bits");
        let lists = match params.levels {
            Levels::Single => None,
            Levels::Two { max_active, order } => {
                Some(TwoLevelLists::new(params.warps, max_active, order))
            }
        };
        let mut g = Self {
            params,
            live: 0,
            dist: [FAR; 64],
            entry: FAR,
            table: vec![0; params.entries()],
            pending: None,
            seq: [0; 64],
            next_seq: 0,
            lists,
            fault: None,
        };
        g.reset();
        g
    }

    /// The same select with `fault` planted (tests).
    pub fn with_fault(params: Params, fault: Fault) -> Self {
        let mut g = Self::new(params);
        if let (Fault::NoSort, Levels::Two { max_active, .. }) = (fault, params.levels) {
            g.lists = Some(TwoLevelLists::new(params.warps, max_active, ListOrder::Rr));
        }
        Self {
            fault: Some(fault),
            ..g
        }
    }

    /// Warp `w`'s distance as this cycle's select sees it.
    pub fn distance(&self, w: usize) -> u16 {
        match self.pending {
            Some((p, d)) if p as usize == w && self.fault != Some(Fault::NoBypass) => d,
            _ => self.dist[w],
        }
    }

    /// Launch sequence number of `w` as the age ties see it (smaller first).
    fn age(&self, w: usize) -> u64 {
        match self.fault {
            Some(Fault::YoungestFirst) => u64::MAX - self.seq[w],
            _ => self.seq[w],
        }
    }

    /// Two-level: the grant from the lists over `eligible` and `waiting` warps, the key's rank
    /// (waiting last, distance) and age.
    fn select_two_level(&mut self, eligible: u64, waiting: u64) -> Option<u8> {
        let mut lists = self.lists.take().expect("two-level has lists");
        let key = |w: u8| {
            let w = usize::from(w);
            let rank = ((waiting >> w & 1) as u32) << 16 | u32::from(self.distance(w));
            (rank, self.age(w))
        };
        let grant = lists.step(eligible, waiting, key).0;
        self.lists = Some(lists);
        grant
    }

    /// The granted warp among `eligible`.
    fn select(&self, eligible: u64) -> Option<u8> {
        let best = (0..self.params.warps)
            .filter(|&w| eligible >> w & 1 == 1)
            .map(|w| self.distance(w))
            .min()?;
        let ties = (0..self.params.warps)
            .filter(|&w| eligible >> w & 1 == 1 && self.distance(w) == best)
            .fold(0u64, |m, w| m | 1 << w);
        match self.fault {
            Some(Fault::YoungestFirst) => (0..self.params.warps as u8)
                .filter(|&w| ties >> w & 1 == 1)
                .max_by_key(|&w| self.seq[w as usize]),
            _ => oldest(&self.seq, ties),
        }
    }
}

impl Block for Golden {
    type In = PawsIn;
    type Out = PawsOut;

    fn reset(&mut self) {
        self.live = 0;
        self.dist = [FAR; 64];
        self.entry = FAR;
        self.pending = None;
        for w in 0..self.params.warps {
            self.seq[w] = w as u64;
        }
        self.next_seq = self.params.warps as u64;
        if let Some(l) = &mut self.lists {
            l.reset();
        }
    }

    fn step(&mut self, inp: &PawsIn) -> PawsOut {
        let m = self.params.warp_mask();
        let eligible = inp.ready & self.live & m;
        let grant = match self.params.levels {
            Levels::Single => self.select(eligible),
            Levels::Two { .. } => self.select_two_level(eligible, (inp.long_stall | !self.live) & m),
        };
        // The edge: last cycle's update lands, launches take the entry distance (after it).
        if let Some((w, d)) = self.pending.take().filter(|&(w, _)| (w as usize) < self.params.warps) {
            self.dist[w as usize] = d;
        }
        for w in (0..self.params.warps).filter(|&w| inp.launch >> w & 1 == 1) {
            self.dist[w] = self.entry;
        }
        let idx_mask = (self.params.entries() - 1) as u16;
        if inp.upd_valid {
            let read = self.table[(inp.upd_idx & idx_mask) as usize];
            self.pending = Some((inp.upd_warp, if inp.upd_far { FAR } else { read }));
        }
        if inp.tw_en {
            self.table[(inp.tw_idx & idx_mask) as usize] = inp.tw_dist;
            if inp.tw_idx & idx_mask == 0 {
                self.entry = inp.tw_dist;
            }
        }
        stamp_launches(&mut self.seq, &mut self.next_seq, inp.launch & m);
        self.live = ((self.live & !inp.exit) | inp.launch) & m;
        PawsOut {
            grant_valid: grant.is_some(),
            grant_warp: grant.unwrap_or(0),
        }
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let p = &self.params;
        let mut v = vec![
            PortSpec::new("live", p.warps as u32),
            PortSpec::new("entry", DIST_BITS),
            PortSpec::new("pending_valid", 1),
            PortSpec::new("pending_warp", p.id_bits()),
            PortSpec::new("pending_dist", DIST_BITS),
        ];
        for w in 0..p.warps {
            v.push(PortSpec::new(format!("dist_{w}"), DIST_BITS));
        }
        for w in 0..p.warps {
            v.push(PortSpec::new(format!("launch_seq_{w}"), 64));
        }
        if let Some(l) = &self.lists {
            l.state_specs(p.id_bits(), &mut v);
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.live);
        out.push(self.entry.into());
        let (w, d) = self.pending.unwrap_or((0, 0));
        out.extend([self.pending.is_some() as u64, w.into(), d.into()]);
        out.extend(self.dist[..self.params.warps].iter().map(|&d| u64::from(d)));
        out.extend_from_slice(&self.seq[..self.params.warps]);
        if let Some(l) = &self.lists {
            l.state_values(out);
        }
    }
}

#[cfg(test)]
mod tests;

/// The select as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "paws";
    const SUMMARY: &'static str =
        "PAWS's issue select: a per-instruction phase-distance table in block RAM, each warp's distance, the ready warp closest to its phase's end, ties to the oldest";
    const POLICIES: &'static [&'static str] = POLICIES;
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = PawsIn;
    type Out = PawsOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        Params::of(policy, preset)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        let mut v = vec![
            ("warps", p.warps as u64),
            ("id_bits", p.id_bits() as u64),
            ("index_bits", p.index_bits as u64),
        ];
        if let Levels::Two { max_active, .. } = p.levels {
            v.push(("max_active", max_active as u64));
        }
        v
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        let (n, e) = (p.warps as u64, p.entries() as u64);
        let (list_bits, lists) = match p.levels {
            Levels::Single => (0, String::new()),
            // Every warp id once, in the active list or in the pending FIFO.
            Levels::Two { .. } => (
                n * u64::from(p.id_bits()),
                format!(
                    ", and the two-level active list and pending FIFO ({n} warp ids; GPGPU-Sim's \
                     two_level_active_scheduler, the report's L339)"
                ),
            ),
        };
        Some(crate::block::PaperBudget {
            bits: Some(16 * e + 16 * n + n * n + list_bits),
            structure: format!(
                "a 16-bit phase distance per instruction, {e} instructions, in a table loaded at \
                 kernel launch (spec C7; the report keeps it with each instruction, L117), the \
                 distance of each of {n} warps' next instruction and a {n} x {n} age matrix for \
                 the oldest-first ties (spec §4; the report gives no hardware cost, L408){lists}"
            ),
        })
    }
    fn busy(out: &PawsOut) -> bool {
        out.grant_valid
    }
    fn describe(p: &Params) -> String {
        let levels = match p.levels {
            Levels::Single => String::new(),
            Levels::Two { max_active, order } => format!(
                ", two-level with {max_active} active ({})",
                match order {
                    ListOrder::SmallestKey => "the smallest distance of the active list",
                    _ => "sorted after a promotion, inner LRR",
                }
            ),
        };
        format!(
            "{} warps per scheduler, {} table entries{levels}",
            p.warps,
            p.entries()
        )
    }
}
