//! GPU Maestro's 2-way resource allocator for one SM (thesis ch. V §5.4.2; spec
//! `chimera_maestro.md` §2.3, §4.5, M-R2, B11): two kernels take registers (warp-register rows)
//! and shared memory (256 B units) from opposite ends; the allocator says whether one and two
//! more blocks of the offered kernel fit and where they go (slot, register base, shared-memory
//! base). Its golden model is the positional layout of [`crate::core::twoway`] behind ports.
//!
//! # Ports and cycle semantics (the SM resource-allocation site's positional protocol)
//! * `offer` (1), `kernel` (16): a kernel is offered this cycle, and its id.
//! * `need_threads`, `need_rows`, `need_units` (16 each): one of its blocks' threads (padded to
//!   warps), warp-register rows and shared-memory units.
//! * `quota` (16): its blocks may take slots `< quota` only (M-R2); `T` or more: no limit.
//! * `placed_lo`, `placed_hi`, `freed_lo`, `freed_hi` (`T` bits): per end, the slots the SM
//!   made resident at the places it was given, and released, in the previous cycle (placed
//!   first; a placed bit for an end no kernel holds is ignored).
//! * Outputs (Mealy), from the state updated by this cycle's reports: the offered kernel's end
//!   `E` is the one it holds, else (if one block fits an empty SM) the low end of an SM without
//!   blocks (the other end given up), else an end with no block (given up); none: `room` = 0.
//!   An end taken, or held without blocks, takes the offered need. `room`/`slot0`/`base0_*`: the
//!   lowest free slot of `E` below its high-water mark, else the high-water mark when both
//!   regions still fit, within the quota, with threads and a block slot to spare; `room2`/
//!   `slot1`/`base1_*`: the same after taking the first. Bases in units: low end `j·size`, high
//!   end `cap − (j+1)·size`. `high`: the kernel's end is the high one. Everything 0 when not valid. `held`:
//!   the kernel has an end; `fragmented`: it has one and no room, though the free threads,
//!   slots and units of each resource, each taken as one piece, would hold a block of its end's
//!   need, and its live blocks are below the quota.
//! * At the edge the reports and the claim are kept; reset: both ends free, nothing resident.

use crate::block::{Block, Inspect, PortSpec};
use crate::core::twoway::{Caps, End, Grant, Need, TwoWay};
use crate::port_bundle;

pub mod stimulus;

/// Allocator parameters: the SM's capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Resident threads.
    pub threads: u32,
    /// Thread-block slots `T` per end and in all (1..=64).
    pub blocks: u32,
    /// Warp-register rows (registers / 32).
    pub rows: u32,
    /// Shared-memory units of 256 B.
    pub units: u32,
}

/// Parameter presets: the GTX 480's SM (`fermi`, the model's default GPU), the GTX 980's (the
/// thesis's GPU) and a small one.
pub const PRESETS: &[(&str, Params)] = &[
    (
        "fermi",
        Params {
            threads: 1536,
            blocks: 8,
            rows: 1024,
            units: 192,
        },
    ),
    (
        "gtx980",
        Params {
            threads: 2048,
            blocks: 32,
            rows: 2048,
            units: 384,
        },
    ),
    (
        "proto",
        Params {
            threads: 512,
            blocks: 4,
            rows: 256,
            units: 64,
        },
    ),
];

impl Params {
    /// The layout's capacities.
    pub fn caps(&self) -> Caps {
        Caps {
            threads: self.threads,
            blocks: self.blocks,
            units: [self.rows, self.units],
        }
    }
}

port_bundle! {
    /// Allocator inputs for one cycle.
    pub struct TwoWayIn for Params {
        /// A kernel is offered.
        pub offer: bool = |_p| 1,
        /// Its id.
        pub kernel: u32 = |_p| 16,
        /// One block's threads.
        pub need_threads: u32 = |_p| 16,
        /// Its warp-register rows.
        pub need_rows: u32 = |_p| 16,
        /// Its shared-memory units.
        pub need_units: u32 = |_p| 16,
        /// Slots its blocks may take (`< quota`).
        pub quota: u32 = |_p| 16,
        /// Low-end slots made resident last cycle.
        pub placed_lo: u64 = |p| p.blocks,
        /// High-end slots made resident last cycle.
        pub placed_hi: u64 = |p| p.blocks,
        /// Low-end slots released last cycle.
        pub freed_lo: u64 = |p| p.blocks,
        /// High-end slots released last cycle.
        pub freed_hi: u64 = |p| p.blocks,
    }
}

port_bundle! {
    /// Allocator outputs for one cycle.
    pub struct TwoWayOut for Params {
        /// One more block fits.
        pub room: bool = |_p| 1,
        /// Two more fit.
        pub room2: bool = |_p| 1,
        /// The offered kernel's end is the high one (`end` is a Verilog keyword).
        pub high: bool = |_p| 1,
        /// The first block's slot.
        pub slot0: u32 = |_p| 16,
        /// The second block's slot.
        pub slot1: u32 = |_p| 16,
        /// The first block's register base (rows).
        pub base0_rows: u32 = |_p| 32,
        /// Its shared-memory base (units).
        pub base0_units: u32 = |_p| 32,
        /// The second block's register base.
        pub base1_rows: u32 = |_p| 32,
        /// Its shared-memory base.
        pub base1_units: u32 = |_p| 32,
        /// The offered kernel holds an end.
        pub held: bool = |_p| 1,
        /// It holds one, no block has room, yet the SM's free threads, slots, rows and units,
        /// were each one piece, would hold one within its quota (a refusal by fragmentation).
        pub fragmented: bool = |_p| 1,
    }
}

/// Golden model of the allocator.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    layout: TwoWay,
}

impl Golden {
    /// An allocator in its reset state.
    pub fn new(params: Params) -> Self {
        assert!((1..=64).contains(&params.blocks), "1..=64 block slots");
        Self {
            params,
            layout: TwoWay::new(params.caps()),
        }
    }

    /// The reports of the previous cycle, placed first.
    fn take_reports(&mut self, inp: &TwoWayIn) {
        let mask = u64::MAX >> (64 - self.params.blocks);
        for (end, placed, freed) in [
            (End::Low, inp.placed_lo, inp.freed_lo),
            (End::High, inp.placed_hi, inp.freed_hi),
        ] {
            for j in 0..self.params.blocks {
                if (placed & mask) >> j & 1 == 1 {
                    self.layout.occupy(end, j);
                }
            }
            for j in 0..self.params.blocks {
                if (freed & mask) >> j & 1 == 1 {
                    self.layout.release(end, j);
                }
            }
        }
    }
}

/// A grant's outputs: slot and bases (0 when none).
fn grant_ports(g: Option<Grant>) -> (u32, u32, u32) {
    g.map_or((0, 0, 0), |g| (g.slot, g.base[0], g.base[1]))
}

impl Block for Golden {
    type In = TwoWayIn;
    type Out = TwoWayOut;

    fn reset(&mut self) {
        self.layout = TwoWay::new(self.params.caps());
    }

    fn step(&mut self, inp: &TwoWayIn) -> TwoWayOut {
        self.take_reports(inp);
        let need = Need {
            threads: inp.need_threads & 0xffff,
            units: [inp.need_rows & 0xffff, inp.need_units & 0xffff],
        };
        let claimed = inp.offer.then(|| self.layout.claim(inp.kernel & 0xffff, need).ok());
        let Some(end) = claimed.flatten() else {
            return TwoWayOut::default();
        };
        let quota = inp.quota & 0xffff;
        self.layout.set_quota(end, quota);
        let [g0, g1] = self.layout.next_two(end);
        let need = self.layout.state(end).1.expect("a held end has a need");
        let whole = self.layout.fits_in_total(need) && self.layout.live(end) < quota;
        let (slot0, base0_rows, base0_units) = grant_ports(g0);
        let (slot1, base1_rows, base1_units) = grant_ports(g1);
        TwoWayOut {
            room: g0.is_some(),
            room2: g1.is_some(),
            high: end == End::High,
            slot0,
            slot1,
            base0_rows,
            base0_units,
            base1_rows,
            base1_units,
            held: true,
            fragmented: g0.is_none() && whole,
        }
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let mut v = vec![];
        for e in ["lo", "hi"] {
            v.push(PortSpec::new(format!("{e}_valid"), 1));
            v.push(PortSpec::new(format!("{e}_owner"), 16));
            v.push(PortSpec::new(format!("{e}_threads"), 16));
            v.push(PortSpec::new(format!("{e}_rows"), 16));
            v.push(PortSpec::new(format!("{e}_units"), 16));
            v.push(PortSpec::new(format!("{e}_occ"), self.params.blocks));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        for end in End::BOTH {
            let (owner, need, occupied) = self.layout.state(end);
            let need = need.unwrap_or(Need {
                threads: 0,
                units: [0; 2],
            });
            out.push(u64::from(owner.is_some()));
            out.push(u64::from(owner.unwrap_or(0)));
            out.push(u64::from(need.threads));
            out.push(u64::from(need.units[0]));
            out.push(u64::from(need.units[1]));
            out.push(occupied);
        }
    }
}

/// The allocator as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "twoway_alloc";
    const SUMMARY: &'static str =
        "GPU Maestro's 2-way allocator: two kernels' registers and shared memory from opposite ends of an SM, slots and bases";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "gtx980", "proto"];
    type Params = Params;
    type In = TwoWayIn;
    type Out = TwoWayOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        crate::block::preset_of(PRESETS, preset)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![
            ("threads", u64::from(p.threads)),
            ("blocks", u64::from(p.blocks)),
            ("rows", u64::from(p.rows)),
            ("units", u64::from(p.units)),
        ]
    }
    fn paper_budget(_p: &Params) -> Option<crate::block::PaperBudget> {
        Some(crate::block::PaperBudget {
            bits: None,
            structure: "no storage figure: each kernel allocates from its own end of every \
                 resource (seed 003 §5.4.2, Fig. 5.9); the partitioning's 2 bits per SM are the \
                 command processor's (L1228)"
                .into(),
        })
    }
    fn busy(out: &TwoWayOut) -> bool {
        out.room
    }
    fn describe(p: &Params) -> String {
        format!(
            "{} threads, {} block slots, {} register rows, {} shared-memory units",
            p.threads, p.blocks, p.rows, p.units
        )
    }
}

#[cfg(test)]
mod tests;
