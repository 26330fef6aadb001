//! Thread-block dispatcher of the GPU (golden model; RTL later): LRR as GPGPU-Sim's
//! `gpgpu_sim::issue_block2core` with one core per cluster, and BCS (Lee et al., HPCA'14) as
//! the PAVER spec's recommended definition (`shared/spec/paver.md` §3.1-§3.2).
//!
//! # Ports and cycle semantics
//! * `start`/`total`/`max_per_sm`: a kernel of `total` thread blocks starts, with at most
//!   `max_per_sm` resident blocks per SM (its occupancy); it takes effect at the edge, so blocks
//!   are issued from the next cycle on. TB ids are `0..total` in launch order.
//! * `room` (bit s: SM s can take one more block of the kernel) and `room2` (two more) come from
//!   the SMs every cycle. Ports are at most 64 bits wide, so SMs 64..128 use the `_hi` ports
//!   (bit s-64); with 64 SMs or fewer those ports are one bit wide and always 0.
//! * Outputs (Mealy): `issue` = SMs receiving blocks this cycle, `pair` = those receiving two
//!   (BCS), `visit_from` = first SM visited, `first_id` = id of the first block issued. Blocks are
//!   numbered consecutively in visiting order `visit_from, visit_from+1, ...` (mod SMs);
//!   [`assignments`] expands an output into (SM, first id, count).
//!
//! # Policies
//! * LRR: SMs are visited from `last+1`; each SM with room receives the next block (one per SM
//!   per cycle); `last` becomes the last SM that received one. From an idle start SM s receives
//!   blocks s, s+N, s+2N, ...
//! * BCS: same visit order; an SM receives the pair (2i, 2i+1) only when it has room for two; the
//!   last block of an odd total goes alone to an SM with room for one. With `max_per_sm == 1` the
//!   pair rule could never fire, so BCS issues single blocks like LRR (`bcs_fallback_x1`, on by
//!   default).

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Dispatch policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Loose round robin, one block per SM per cycle.
    Lrr,
    /// Block CTA scheduling: consecutive pairs to the same SM.
    Bcs,
}

impl Policy {
    /// Parses `lrr` or `bcs`.
    pub fn from_name(s: &str) -> Option<Policy> {
        match s {
            "lrr" => Some(Policy::Lrr),
            "bcs" => Some(Policy::Bcs),
            _ => None,
        }
    }
}

/// Dispatcher parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Policy.
    pub policy: Policy,
    /// Number of SMs, 1..=128.
    pub sms: usize,
    /// BCS issues single blocks when at most one block fits per SM.
    pub bcs_fallback_x1: bool,
}

impl Params {
    /// Parameters with the default fallback.
    pub fn new(policy: Policy, sms: usize) -> Self {
        assert!((1..=128).contains(&sms), "1..=128 SMs");
        Self {
            policy,
            sms,
            bcs_fallback_x1: true,
        }
    }

    fn sm_mask(&self) -> u128 {
        low_bits(self.sms.min(64)) as u128 | (low_bits(self.sms.saturating_sub(64)) as u128) << 64
    }

    /// Width of the `_hi` SM-mask ports (SMs 64 and up), at least 1.
    pub fn hi_width(&self) -> usize {
        self.sms.saturating_sub(64).max(1)
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
        /// SMs 0..64 that can take one more block.
        pub room: u64 = |p| p.sms.min(64),
        /// SMs 0..64 that can take two more blocks.
        pub room2: u64 = |p| p.sms.min(64),
        /// SMs 64..128 that can take one more block (bit s-64).
        pub room_hi: u64 = |p| p.hi_width(),
        /// SMs 64..128 that can take two more blocks.
        pub room2_hi: u64 = |p| p.hi_width(),
    }
}

port_bundle! {
    /// Dispatcher outputs for one cycle.
    pub struct DispatchOut for Params {
        /// SMs 0..64 receiving blocks.
        pub issue: u64 = |p| p.sms.min(64),
        /// SMs 0..64 receiving two blocks (subset of `issue`).
        pub pair: u64 = |p| p.sms.min(64),
        /// SMs 64..128 receiving blocks (bit s-64).
        pub issue_hi: u64 = |p| p.hi_width(),
        /// SMs 64..128 receiving two blocks.
        pub pair_hi: u64 = |p| p.hi_width(),
        /// First SM visited this cycle.
        pub visit_from: u8 = |p| clog2(p.sms),
        /// Id of the first block issued this cycle.
        pub first_id: u32 = |_p| 32,
        /// Every block of the kernel has been issued (or no kernel is running).
        pub idle: bool = |_p| 1,
    }
}

/// A 128-SM mask from its low and high ports.
pub fn wide(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

/// Expands an output into `(sm, first block id, blocks)` in issue order.
pub fn assignments(out: &DispatchOut, sms: usize) -> Vec<(usize, u32, u32)> {
    let mut id = out.first_id;
    let mut v = vec![];
    let issue = wide(out.issue, out.issue_hi);
    let pair = wide(out.pair, out.pair_hi);
    for i in 0..sms {
        let s = (out.visit_from as usize + i) % sms;
        if issue >> s & 1 == 1 {
            let n = 1 + (pair >> s & 1) as u32;
            v.push((s, id, n));
            id += n;
        }
    }
    v
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
        let m = self.params.sm_mask();
        let room = wide(inp.room, inp.room_hi) & m;
        let room2 = wide(inp.room2, inp.room2_hi) & room;
        let visit_from = (self.last + 1) % n;
        let mut out = DispatchOut {
            visit_from: visit_from as u8,
            first_id: self.next_id,
            ..Default::default()
        };
        let (mut issue, mut pair) = (0u128, 0u128);
        let pairs = self.params.policy == Policy::Bcs
            && !(self.params.bcs_fallback_x1 && self.max_per_sm <= 1);
        for i in 0..n {
            let s = (visit_from + i) % n;
            let left = self.total - self.next_id;
            let take = match (pairs, left) {
                (_, 0) => 0,
                (true, 1) | (false, _) => (room >> s & 1) as u32,
                (true, _) => 2 * (room2 >> s & 1) as u32,
            };
            if take > 0 {
                issue |= 1 << s;
                if take == 2 {
                    pair |= 1 << s;
                }
                self.next_id += take;
                self.last = s;
            }
        }
        (out.issue, out.issue_hi) = (issue as u64, (issue >> 64) as u64);
        (out.pair, out.pair_hi) = (pair as u64, (pair >> 64) as u64);
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

#[cfg(test)]
mod tests;
