//! Thread-block dispatcher of the GPU: LRR as GPGPU-Sim's `gpgpu_sim::issue_block2core` with
//! one core per cluster, and BCS (Lee et al., HPCA'14) as the PAVER spec's recommended
//! definition (`shared/spec/paver.md` §3.1-§3.2).
//!
//! # Ports and cycle semantics (the thread-block dispatch site's protocol)
//! * `start`/`total`/`max_per_sm`: a kernel of `total` thread blocks starts, with at most
//!   `max_per_sm` resident blocks per SM (its occupancy); it takes effect at the edge, so blocks
//!   are granted from the next cycle on. Thread-block ids are `0..total`, the linear index of the
//!   block in the grid (x fastest).
//! * `room` (bit s: SM s can take one more block of the kernel) and `room2` (two more) come from
//!   the SMs every cycle (`sms` bits each).
//! * Outputs (Mealy): grants of `(SM, thread-block id)` pairs, up to two per SM per cycle:
//!   bit s of `grant` gives SM s block `id_s`; bit s of `grant2` gives it block `id2_s` as well,
//!   launched after `id_s`. Ids of SMs without a grant are 0. The GPU takes the granted blocks
//!   by id (`KernelSource::block`), so any block may be granted in any order; granting an id
//!   twice or one outside `0..total` is a protocol error. `idle`: every block has been granted
//!   (or no kernel runs).
//!
//! # Policies
//! SMs are visited from `last + 1` (wrapping), `last` being the last SM that received a block
//! (reset and kernel start: `sms - 1`, so SM 0 comes first); blocks are granted in increasing id
//! order in visit order.
//! * LRR: each SM with room receives the next block (one per SM per cycle). From an idle start
//!   SM s receives blocks s, s+N, s+2N, ...
//! * BCS: an SM receives the pair (2i, 2i+1) only when it has room for two; the last block of an
//!   odd total goes alone to an SM with room for one. With `max_per_sm == 1` the pair rule could
//!   never fire, so BCS grants single blocks like LRR (`bcs_fallback_x1`, on by default).

use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Most SMs a dispatcher serves (width of the SM masks, length of the id arrays).
pub const MAX_SMS: usize = 128;

/// Dispatch policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Loose round robin, one block per SM per cycle.
    Lrr,
    /// Block CTA scheduling: consecutive pairs to the same SM.
    Bcs,
}

impl Policy {
    /// Policy names.
    pub const NAMES: &'static [&'static str] = &["lrr", "bcs"];

    /// Parses `lrr` or `bcs`.
    pub fn from_name(s: &str) -> Option<Policy> {
        match s {
            "lrr" => Some(Policy::Lrr),
            "bcs" => Some(Policy::Bcs),
            _ => None,
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Lrr => "lrr",
            Policy::Bcs => "bcs",
        }
    }
}

/// Parameter presets: the SM counts of the papers' GPUs.
pub const PRESETS: &[(&str, usize)] = &[("fermi", 15), ("titanv", 80), ("proto", 4)];

/// Dispatcher parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Policy.
    pub policy: Policy,
    /// Number of SMs, 1..=[`MAX_SMS`].
    pub sms: usize,
    /// BCS issues single blocks when at most one block fits per SM.
    pub bcs_fallback_x1: bool,
}

impl Params {
    /// Parameters with the default fallback.
    pub fn new(policy: Policy, sms: usize) -> Self {
        assert!((1..=MAX_SMS).contains(&sms), "1..={MAX_SMS} SMs");
        Self {
            policy,
            sms,
            bcs_fallback_x1: true,
        }
    }

    /// Mask of the `sms` low bits.
    pub fn sm_mask(&self) -> u128 {
        if self.sms >= 128 {
            u128::MAX
        } else {
            (1u128 << self.sms) - 1
        }
    }
}

port_bundle! {
    /// Dispatcher inputs for one cycle.
    pub struct DispatchIn for Params {
        /// A kernel starts (sampled with `total` and `max_per_sm`).
        pub start: bool = |_p| 1,
        /// Thread blocks of the starting kernel.
        pub total: u32 = |_p| 32,
        /// Resident blocks per SM the kernel allows (its occupancy).
        pub max_per_sm: u8 = |_p| 8,
        /// SMs that can take one more block (bit s: SM s).
        pub room: u128 = |p| p.sms,
        /// SMs that can take two more blocks.
        pub room2: u128 = |p| p.sms,
    }
}

port_bundle! {
    /// Dispatcher outputs for one cycle.
    pub struct DispatchOut for Params {
        /// SMs receiving block `id_s` this cycle.
        pub grant: u128 = |p| p.sms,
        /// SMs receiving block `id2_s` too (after `id_s`; a subset of `grant`).
        pub grant2: u128 = |p| p.sms,
        /// Per SM: the block granted by `grant` (0 without a grant).
        pub id: [u32; MAX_SMS] = |p| (p.sms, 32),
        /// Per SM: the block granted by `grant2` (0 without a grant).
        pub id2: [u32; MAX_SMS] = |p| (p.sms, 32),
        /// Every block of the kernel has been granted (or no kernel is running).
        pub idle: bool = |_p| 1,
    }
}

impl DispatchOut {
    /// The grants of this cycle as `(sm, block id)`, SM by SM, `id` before `id2`.
    pub fn grants(&self, sms: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let mask = if sms >= 128 {
            u128::MAX
        } else {
            (1u128 << sms) - 1
        };
        let mut left = (self.grant | self.grant2) & mask;
        let sms_granted = std::iter::from_fn(move || {
            (left != 0).then(|| {
                let s = left.trailing_zeros() as usize;
                left &= left - 1;
                s
            })
        });
        sms_granted.flat_map(move |s| {
            let one = (self.grant >> s & 1 == 1).then_some((s, self.id[s]));
            let two = (self.grant2 >> s & 1 == 1).then_some((s, self.id2[s]));
            one.into_iter().chain(two)
        })
    }
}

/// Golden model of the dispatcher.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    next_id: u32,
    total: u32,
    max_per_sm: u8,
    last: usize,
}

impl Golden {
    /// A dispatcher in its reset state (no kernel).
    pub fn new(params: Params) -> Self {
        let mut g = Self {
            params,
            next_id: 0,
            total: 0,
            max_per_sm: 0,
            last: 0,
        };
        g.reset();
        g
    }
}

impl Block for Golden {
    type In = DispatchIn;
    type Out = DispatchOut;

    fn reset(&mut self) {
        self.next_id = 0;
        self.total = 0;
        self.max_per_sm = 0;
        self.last = self.params.sms - 1;
    }

    fn step(&mut self, inp: &DispatchIn) -> DispatchOut {
        let n = self.params.sms;
        let room = inp.room & self.params.sm_mask();
        let room2 = inp.room2 & room;
        let visit_from = (self.last + 1) % n;
        let mut out = DispatchOut::default();
        let pairs = self.params.policy == Policy::Bcs
            && !(self.params.bcs_fallback_x1 && self.max_per_sm <= 1);
        // No SM to visit: every block granted, or none with room (most cycles of a run).
        let visits = if self.next_id >= self.total || room == 0 {
            0
        } else {
            n
        };
        for i in 0..visits {
            let s = (visit_from + i) % n;
            let left = self.total - self.next_id;
            let take = match (pairs, left) {
                (_, 0) => 0,
                (true, 1) | (false, _) => (room >> s & 1) as u32,
                (true, _) => 2 * (room2 >> s & 1) as u32,
            };
            if take > 0 {
                out.grant |= 1 << s;
                out.id[s] = self.next_id;
                if take == 2 {
                    out.grant2 |= 1 << s;
                    out.id2[s] = self.next_id + 1;
                }
                self.next_id += take;
                self.last = s;
            }
        }
        out.idle = self.next_id >= self.total;
        if inp.start {
            self.next_id = 0;
            self.total = inp.total;
            self.max_per_sm = inp.max_per_sm;
            self.last = n - 1;
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("next_id", 32),
            PortSpec::new("total", 32),
            PortSpec::new("max_per_sm", 8),
            PortSpec::new("last", clog2(self.params.sms)),
        ]
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend([
            self.next_id as u64,
            self.total as u64,
            self.max_per_sm as u64,
            self.last as u64,
        ]);
    }
}

/// The dispatcher as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "tb_dispatch";
    const SUMMARY: &'static str =
        "thread-block dispatcher of the GPU: (SM, block id) grants (GPGPU-Sim LRR, BCS)";
    const POLICIES: &'static [&'static str] = Policy::NAMES;
    const PRESETS: &'static [&'static str] = &["fermi", "titanv", "proto"];
    type Params = Params;
    type In = DispatchIn;
    type Out = DispatchOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        let pol = Policy::from_name(policy).expect("a policy of the list");
        Params::new(pol, crate::block::preset_of(PRESETS, preset))
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![
            ("sms", p.sms as u64),
            ("bcs_fallback_x1", p.bcs_fallback_x1 as u64),
        ]
    }
    fn busy(out: &DispatchOut) -> bool {
        out.grant != 0
    }
    fn describe(p: &Params) -> String {
        format!("{} over {} SMs", p.policy.name(), p.sms)
    }
}

pub mod stimulus;

#[cfg(test)]
mod tests;
