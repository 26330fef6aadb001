//! Warp-issue arbiter of one warp scheduler: the baseline policies as GPGPU-Sim defines them
//! (`shader.cc`: `lrr_scheduler`, `gto_scheduler`, `two_level_active_scheduler`).
//!
//! The SM decides which of a scheduler's warps could issue this cycle (valid instruction in
//! the i-buffer, scoreboard clear, unit free) and presents that as the `ready` mask; the
//! arbiter picks at most one of them. Warps are numbered locally `0..warps` (global warp `g`
//! of an SM with `n` schedulers is local warp `g / n` of scheduler `g % n`).
//!
//! # Cycle semantics (all policies)
//! * `eligible = ready & live`, where `live` is the arbiter's own record of launched, not yet
//!   exited warps (state before the edge). A warp launched in cycle `t` can be granted from
//!   `t + 1`.
//! * `long_stall` (a barrier, an exit, or a source register carrying GPGPU-Sim's long-op mark)
//!   never blocks a grant: LRR and GTO ignore it, as GPGPU-Sim's `lrr_scheduler` and
//!   `gto_scheduler` do; two-level only demotes on it, and a warp promoted in a cycle can be
//!   granted in that cycle even if it is on `long_stall` (GPGPU-Sim's issue loop checks only
//!   the scoreboard and `waiting()`, never `islongop`).
//! * Outputs (Mealy): `grant_valid`/`grant_warp` name the granted warp; `active` is the set the
//!   policy chooses from this cycle (all live warps for LRR/GTO, the active list for two-level).
//! * At the edge: `live <= (live & !exit) | launch`; the policy state updates as below.
//!
//! # Policies
//! * **LRR** (loose round robin): the first eligible warp in the order `last+1, last+2, ...`
//!   (wrapping), where `last` is the last granted warp (reset: `warps-1`, so warp 0 comes first).
//! * **GTO** (greedy then oldest): the last granted warp if eligible, else the oldest eligible
//!   warp by launch order. Warps launched in the same cycle are ordered by index (lower is
//!   older), as GPGPU-Sim hands out dynamic warp ids to a CTA's warps in order. Reset order:
//!   by index. No greedy warp after reset.
//! * **Two-level active** (GPGPU-Sim `two_level_active:<max_active>:lrr:srr`): every warp slot
//!   is always either in the ordered *active list* (`max_active` entries) or in the *pending
//!   FIFO* (`warps - max_active` entries). Each cycle, in this order:
//!   1. demote: active entries whose warp is *waiting* (`long_stall` set, or not live) leave
//!      the active list (order of the rest kept) and are pushed to the back of the pending FIFO
//!      in active-list order;
//!   2. promote: as many warps as were demoted are popped from the front of the pending FIFO and
//!      appended to the active list (whether or not they wait: GPGPU-Sim does not check);
//!   3. select: the first eligible warp in active-list order is granted;
//!   4. rotate: on a grant at list position `j`, the list becomes `list[j+1..] ++ list[..=j]`
//!      (inner LRR).
//!
//!   Reset: active list `0..max_active`, pending FIFO `max_active..warps`.

pub mod stimulus;
pub mod two_level;

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
pub use two_level::{ListOrder, TwoLevelLists};
use crate::port_bundle;
use thiserror::Error;

/// Arbitration policy; one Verilog module per policy and preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Loose round robin from the warp after the last granted one.
    Lrr,
    /// Greedy then oldest.
    Gto,
    /// Two-level active scheduling with inner LRR and outer FIFO.
    TwoLevel,
    /// Two-level with the active list sorted oldest first after a warp is promoted (TL-GTO,
    /// spec `locality_bypass_paws.md` P-R2; the sort in the next cycle, [`two_level`]).
    TwoLevelGto,
}

impl Policy {
    /// Every policy, in catalog order.
    pub const ALL: [Policy; 4] = [
        Policy::Lrr,
        Policy::Gto,
        Policy::TwoLevel,
        Policy::TwoLevelGto,
    ];
    /// Policy names as they appear in module names and on the command line.
    pub const NAMES: &'static [&'static str] = &["lrr", "gto", "two_level", "two_level_gto"];

    /// The policy's name (`lrr`, `gto`, `two_level`, `two_level_gto`).
    pub fn name(self) -> &'static str {
        match self {
            Policy::Lrr => "lrr",
            Policy::Gto => "gto",
            Policy::TwoLevel => "two_level",
            Policy::TwoLevelGto => "two_level_gto",
        }
    }

    /// How a two-level policy orders its active list; `None` for a single-level one.
    pub fn list_order(self) -> Option<ListOrder> {
        match self {
            Policy::TwoLevel => Some(ListOrder::Rr),
            Policy::TwoLevelGto => Some(ListOrder::SortAtPromotion),
            Policy::Lrr | Policy::Gto => None,
        }
    }

    /// Parses a policy name; `two-level` is accepted for `two_level`.
    pub fn from_name(s: &str) -> Option<Policy> {
        let s = s.replace('-', "_");
        Policy::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// Parameter preset; one Verilog module per policy and preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Fermi (GTX 480): 48 warps per SM, 2 schedulers, so 24 warps per arbiter; 6 active
    /// warps for two-level (GPGPU-Sim's `two_level_active:6:0:1`).
    Fermi,
    /// Small prototype for low-cost FPGAs: 8 warps, 4 active.
    Proto,
}

impl Preset {
    /// Every preset, in catalog order.
    pub const ALL: [Preset; 2] = [Preset::Fermi, Preset::Proto];
    /// Preset names.
    pub const NAMES: &'static [&'static str] = &["fermi", "proto"];

    /// The preset's name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Fermi => "fermi",
            Preset::Proto => "proto",
        }
    }

    /// Parses a preset name.
    pub fn from_name(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Warps per arbiter.
    pub fn warps(self) -> usize {
        match self {
            Preset::Fermi => 24,
            Preset::Proto => 8,
        }
    }

    /// Active-list length for two-level.
    pub fn max_active(self) -> usize {
        match self {
            Preset::Fermi => 6,
            Preset::Proto => 4,
        }
    }
}

/// Invalid arbiter parameters.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParamsError {
    /// `warps` outside 2..=64.
    #[error("warps must be in 2..=64, got {0}")]
    Warps(usize),
    /// `max_active` outside 1..=warps/2 (two-level needs a pending FIFO at least as long as
    /// the active list so one cycle's demotions fit).
    #[error("max_active must be in 1..={max} for {warps} warps, got {got}")]
    MaxActive {
        got: usize,
        max: usize,
        warps: usize,
    },
}

/// Arbiter parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arbitration policy.
    pub policy: Policy,
    /// Warps per arbiter, 2..=64 (width of every mask port).
    pub warps: usize,
    /// Active-list length (two-level only; ignored otherwise), 1..=warps/2.
    pub max_active: usize,
}

impl Params {
    /// Checked constructor.
    pub fn new(policy: Policy, warps: usize, max_active: usize) -> Result<Self, ParamsError> {
        if !(2..=64).contains(&warps) {
            return Err(ParamsError::Warps(warps));
        }
        if policy.list_order().is_some() && !(1..=warps / 2).contains(&max_active) {
            return Err(ParamsError::MaxActive {
                got: max_active,
                max: warps / 2,
                warps,
            });
        }
        Ok(Self {
            policy,
            warps,
            max_active,
        })
    }

    /// Parameters of a preset.
    pub fn preset(policy: Policy, preset: Preset) -> Self {
        Self::new(policy, preset.warps(), preset.max_active()).expect("presets are valid")
    }

    /// Width of a warp id (`grant_warp`), bits.
    pub fn id_bits(&self) -> u32 {
        clog2(self.warps)
    }

    /// Pending-FIFO length for two-level.
    pub fn pending_len(&self) -> usize {
        self.warps - self.max_active
    }

    /// Mask of the `warps` low bits.
    pub fn warp_mask(&self) -> u64 {
        low_bits(self.warps)
    }
}

port_bundle! {
    /// Arbiter inputs for one cycle. Every mask is `warps` bits, bit `w` = local warp `w`.
    pub struct ArbiterIn for Params {
        /// Warps that could issue this cycle.
        pub ready: u64 = |p| p.warps,
        /// Warps launched this cycle (live from the next cycle; younger than every live warp).
        pub launch: u64 = |p| p.warps,
        /// Warps that exit this cycle (not live from the next cycle).
        pub exit: u64 = |p| p.warps,
        /// Warps waiting on a long-latency operation or a barrier: never granted; demoted from
        /// the active list by two-level.
        pub long_stall: u64 = |p| p.warps,
    }
}

port_bundle! {
    /// Arbiter outputs for one cycle.
    pub struct ArbiterOut for Params {
        /// A warp is granted this cycle.
        pub grant_valid: bool = |_p| 1,
        /// The granted warp (`id_bits` wide); 0 when `grant_valid` is low.
        pub grant_warp: u8 = |p| p.id_bits(),
        /// Warps the policy chooses from this cycle (`warps` bits).
        pub active: u64 = |p| p.warps,
    }
}

/// Golden model of the warp arbiter.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    /// Launched and not exited warps.
    live: u64,
    /// LRR/GTO: last granted warp.
    last: u8,
    /// GTO: `last` holds a granted warp (false after reset).
    last_valid: bool,
    /// GTO, TL-GTO: launch sequence number of each warp slot (smaller is older).
    seq: [u64; 64],
    /// GTO, TL-GTO: next launch sequence number.
    next_seq: u64,
    /// Two-level policies: the active list and the pending FIFO.
    lists: Option<TwoLevelLists>,
}

impl Golden {
    /// A golden arbiter in its reset state.
    pub fn new(params: Params) -> Self {
        let mut g = Self {
            params,
            live: 0,
            last: 0,
            last_valid: false,
            seq: [0; 64],
            next_seq: 0,
            lists: (params.policy.list_order())
                .map(|order| TwoLevelLists::new(params.warps, params.max_active, order)),
        };
        g.reset();
        g
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    fn select_lrr(&self, eligible: u64) -> Option<u8> {
        if eligible == 0 {
            return None;
        }
        let after_last = eligible & !((2u128 << self.last) as u64).wrapping_sub(1);
        let pick = if after_last != 0 {
            after_last
        } else {
            eligible
        };
        Some(pick.trailing_zeros() as u8)
    }

    fn select_gto(&self, eligible: u64) -> Option<u8> {
        if self.last_valid && eligible >> self.last & 1 == 1 {
            return Some(self.last);
        }
        oldest(&self.seq, eligible)
    }

    /// Two-level: returns (grant, active mask) and updates the lists. TL-GTO's key: waiting
    /// warps last, then the oldest first (GPGPU-Sim's `sort_warps_by_oldest_dynamic_id`).
    fn step_two_level(&mut self, eligible: u64, waiting: u64) -> (Option<u8>, u64) {
        let seq = &self.seq;
        let lists = self.lists.as_mut().expect("a two-level policy has lists");
        lists.step(eligible, waiting, |w| {
            ((waiting >> w & 1) as u32, seq[w as usize])
        })
    }
}

/// GTO's oldest: the warp of `eligible` with the smallest launch sequence number in `seq`
/// (live warps' numbers differ); `None` when `eligible` is empty.
pub(crate) fn oldest(seq: &[u64; 64], eligible: u64) -> Option<u8> {
    if eligible == 0 {
        return None;
    }
    // Kept without a data-dependent branch (the simulator runs this every cycle of every
    // scheduler).
    let (mut best, mut best_seq) = (0u8, u64::MAX);
    let mut rest = eligible;
    while rest != 0 {
        let w = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let seq = seq[w as usize];
        let older = seq < best_seq;
        best = if older { w } else { best };
        best_seq = if older { seq } else { best_seq };
    }
    Some(best)
}

/// Gives the warps of `launch` the next launch sequence numbers: younger than every warp
/// launched before, and among themselves in index order.
pub(crate) fn stamp_launches(seq: &mut [u64; 64], next_seq: &mut u64, launch: u64) {
    let mut rest = launch;
    while rest != 0 {
        let w = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        seq[w] = *next_seq;
        *next_seq += 1;
    }
}

impl Block for Golden {
    type In = ArbiterIn;
    type Out = ArbiterOut;

    fn reset(&mut self) {
        let p = self.params;
        self.live = 0;
        self.last = (p.warps - 1) as u8;
        self.last_valid = false;
        for w in 0..p.warps {
            self.seq[w] = w as u64;
        }
        self.next_seq = p.warps as u64;
        if let Some(l) = &mut self.lists {
            l.reset();
        }
    }

    fn step(&mut self, inp: &ArbiterIn) -> ArbiterOut {
        let m = self.params.warp_mask();
        let (ready, launch, exit, stall) = (
            inp.ready & m,
            inp.launch & m,
            inp.exit & m,
            inp.long_stall & m,
        );
        let eligible = ready & self.live;
        let (grant, active) = match self.params.policy {
            Policy::Lrr => (self.select_lrr(eligible), self.live),
            Policy::Gto => (self.select_gto(eligible), self.live),
            Policy::TwoLevel | Policy::TwoLevelGto => {
                self.step_two_level(eligible, stall | (!self.live & m))
            }
        };
        if let Some(w) = grant {
            self.last = w;
            self.last_valid = true;
        }
        stamp_launches(&mut self.seq, &mut self.next_seq, launch);
        self.live = (self.live & !exit) | launch;
        ArbiterOut {
            grant_valid: grant.is_some(),
            grant_warp: grant.unwrap_or(0),
            active,
        }
    }

    /// Answers for a cycle without launches or exits in which no warp is granted, or the
    /// warp granted is the one the state already names as the last grant (GTO's greedy warp;
    /// LRR's only eligible warp; two-level's last active entry, whose rotation keeps the list).
    fn holds(&self, inp: &ArbiterIn) -> Option<ArbiterOut> {
        let m = self.params.warp_mask();
        if (inp.launch | inp.exit) & m != 0 {
            return None;
        }
        let eligible = inp.ready & self.live & m;
        let again = self.last_valid && eligible >> self.last & 1 == 1;
        let (grant, active) = match self.params.policy {
            Policy::Lrr | Policy::Gto if eligible == 0 => (None, self.live),
            Policy::Gto if again => (Some(self.last), self.live),
            Policy::Lrr if again && eligible == 1 << self.last => (Some(self.last), self.live),
            Policy::Lrr | Policy::Gto => return None,
            Policy::TwoLevel | Policy::TwoLevelGto => {
                let waiting = (inp.long_stall & m) | (!self.live & m);
                let lists = self.lists.as_ref()?;
                let grant = lists.holds(eligible, waiting)?;
                if grant.is_some_and(|g| !(self.last_valid && g == self.last)) {
                    return None;
                }
                (grant, lists.active_mask())
            }
        };
        Some(ArbiterOut {
            grant_valid: grant.is_some(),
            grant_warp: grant.unwrap_or(0),
            active,
        })
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let p = &self.params;
        let idw = p.id_bits();
        let mut v = vec![PortSpec::new("live", p.warps as u32)];
        match p.policy {
            Policy::Lrr => v.push(PortSpec::new("last", idw)),
            Policy::Gto => {
                v.push(PortSpec::new("last", idw));
                v.push(PortSpec::new("last_valid", 1));
                for w in 0..p.warps {
                    v.push(PortSpec::new(format!("launch_seq_{w}"), 64));
                }
            }
            Policy::TwoLevel | Policy::TwoLevelGto => {
                if let Some(l) = &self.lists {
                    l.state_specs(idw, &mut v);
                }
                if p.policy == Policy::TwoLevelGto {
                    for w in 0..p.warps {
                        v.push(PortSpec::new(format!("launch_seq_{w}"), 64));
                    }
                }
            }
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        let p = &self.params;
        out.clear();
        out.push(self.live);
        match p.policy {
            Policy::Lrr => out.push(self.last as u64),
            Policy::Gto => {
                out.push(self.last as u64);
                out.push(self.last_valid as u64);
                out.extend_from_slice(&self.seq[..p.warps]);
            }
            Policy::TwoLevel | Policy::TwoLevelGto => {
                if let Some(l) = &self.lists {
                    l.state_values(out);
                }
                if p.policy == Policy::TwoLevelGto {
                    out.extend_from_slice(&self.seq[..p.warps]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// The warp arbiter as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "warp_arbiter";
    const SUMMARY: &'static str =
        "warp-issue arbiter of one warp scheduler (GPGPU-Sim LRR, GTO, two-level active; two-level sorted oldest first at promotion)";
    const POLICIES: &'static [&'static str] = Policy::NAMES;
    const PRESETS: &'static [&'static str] = Preset::NAMES;
    type Params = Params;
    type In = ArbiterIn;
    type Out = ArbiterOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        let pol = Policy::from_name(policy).expect("a policy of the list");
        let pre = Preset::from_name(preset).expect("a preset of the list");
        Params::preset(pol, pre)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        let mut v = vec![("warps", p.warps as u64), ("id_bits", p.id_bits() as u64)];
        if p.policy.list_order().is_some() {
            v.push(("max_active", p.max_active as u64));
        }
        v
    }
    fn busy(out: &ArbiterOut) -> bool {
        out.grant_valid
    }
    const HOLDS: bool = true;
    fn describe(p: &Params) -> String {
        match p.policy {
            Policy::TwoLevel | Policy::TwoLevelGto => format!(
                "{} {} warps per scheduler, {} active",
                p.policy.name(),
                p.warps,
                p.max_active
            ),
            _ => format!("{} {} warps per scheduler", p.policy.name(), p.warps),
        }
    }
}
