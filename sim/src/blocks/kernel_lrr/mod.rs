//! GPU Maestro's kernel-aware warp scheduler for one warp scheduler (thesis ch. V §5.4.3, L1240,
//! L1242, L1319; spec `chimera_maestro.md` §2.4, §4.6 L1-L6): loose round robin (LRR) between
//! the two kernels of an SM, greedy-then-oldest (GTO) within each, and two overrides ahead of
//! both: the warps of blocks being drained, then the warps of a kernel's boundary block once that
//! kernel has no more blocks to dispatch.
//!
//! # Ports and cycle semantics
//! * `ready`, `launch`, `exit` (`N` bits each): as the warp arbiter's (`ready` counts only for
//!   live warps; `launch`ed warps are live from the next cycle, younger than every live warp and
//!   ordered by index among themselves; `exit`ed warps are not live from the next cycle).
//! * `kernel` (`N`): the warp's kernel is the SM's second (bit set) or first (clear); the first
//!   is the one that took the SM's low end (spec B11), the older.
//! * `drain` (`N`): the warp's block is being drained (preemption).
//! * `boundary` (`N`): the warp's block is its kernel's boundary block (the block at the top of
//!   its end's region, whose leaving gives the other kernel room).
//! * `tail` (2): bit `k` = kernel `k` has no more blocks to dispatch (the boundary override
//!   applies to its warps only then).
//! * Outputs (Mealy): `eligible = ready & live`; the candidate set is the eligible draining warps,
//!   else the eligible boundary warps of a kernel in its tail, else every eligible warp (`tier` 1,
//!   2, 3; 0 when nothing is eligible). Among the candidates the kernel is `prio` when it has one,
//!   else the other (`[REC]` the kernel choice applies inside an override tier too), and the warp
//!   is that kernel's last granted warp if it is a candidate, else its oldest candidate
//!   (`grant_valid`, `grant_warp`).
//! * At the edge: `prio` flips when the kernel that is not `prio` has an eligible warp
//!   (`prio_next = rdy[!prio] ? !prio : prio`, L5 literally, whatever the tier); the granted
//!   kernel's last warp is the grant (`[REC]` one greedy warp per kernel, so that GTO stays greedy
//!   within each kernel while they alternate); launches and exits as above.
//! * Reset: nothing live, `prio` the first kernel (B10), no last warps, launch order by index.
//!
//! With one kernel (`kernel`, `drain`, `boundary` and `tail` all 0) the grants are GTO's, bit
//! for bit (L3).

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
use crate::blocks::warp_arbiter::{oldest, stamp_launches};
use crate::port_bundle;

pub mod stimulus;

/// Scheduler parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Warps of the scheduler `N` (2..=64).
    pub warps: usize,
}

/// Parameter presets: the GTX 480's schedulers (`fermi`, 48 warps over 2), the GTX 980's (the
/// thesis's GPU, 64 warps over 4) and a small one.
pub const PRESETS: &[(&str, Params)] = &[
    ("fermi", Params { warps: 24 }),
    ("gtx980", Params { warps: 16 }),
    ("proto", Params { warps: 8 }),
];

impl Params {
    /// Width of a warp id (`grant_warp`), bits.
    pub fn id_bits(&self) -> u32 {
        clog2(self.warps)
    }

    /// Mask of the `warps` low bits.
    pub fn warp_mask(&self) -> u64 {
        low_bits(self.warps)
    }
}

port_bundle! {
    /// Scheduler inputs for one cycle; every mask is `warps` bits, bit `w` = local warp `w`.
    pub struct KernelLrrIn for Params {
        /// Warps that could issue this cycle.
        pub ready: u64 = |p| p.warps,
        /// Warps launched this cycle.
        pub launch: u64 = |p| p.warps,
        /// Warps that exit this cycle.
        pub exit: u64 = |p| p.warps,
        /// Warps of the SM's second kernel.
        pub kernel: u64 = |p| p.warps,
        /// Warps of blocks being drained.
        pub drain: u64 = |p| p.warps,
        /// Warps of their kernel's boundary block.
        pub boundary: u64 = |p| p.warps,
        /// Per kernel: no more blocks to dispatch.
        pub tail: u8 = |_p| 2,
    }
}

port_bundle! {
    /// Scheduler outputs for one cycle.
    pub struct KernelLrrOut for Params {
        /// A warp is granted.
        pub grant_valid: bool = |_p| 1,
        /// The granted warp (`id_bits` wide); 0 when none.
        pub grant_warp: u8 = |p| p.id_bits(),
        /// The candidates' tier: 1 draining, 2 boundary, 3 every eligible warp; 0 none.
        pub tier: u8 = |_p| 2,
    }
}

/// A deliberate deviation from the spec, for the tests that show the checks catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `prio` never flips.
    NoFlip,
    /// One greedy warp for both kernels.
    SharedLast,
    /// The boundary override ignores `tail`.
    TailIgnored,
}

/// Golden model of the scheduler.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    /// Launched and not exited warps.
    live: u64,
    /// The kernel LRR favours (false: the first).
    prio: bool,
    /// Per kernel: its last granted warp.
    last: [Option<u8>; 2],
    /// Launch sequence number of each warp slot (smaller is older).
    seq: [u64; 64],
    /// Next launch sequence number.
    next_seq: u64,
    fault: Option<Fault>,
}

impl Golden {
    /// A golden scheduler in its reset state.
    pub fn new(params: Params) -> Self {
        assert!((2..=64).contains(&params.warps), "2..=64 warps");
        let mut g = Self {
            params,
            live: 0,
            prio: false,
            last: [None; 2],
            seq: [0; 64],
            next_seq: 0,
            fault: None,
        };
        g.reset();
        g
    }

    /// The same scheduler with `fault` planted (tests).
    pub fn with_fault(params: Params, fault: Fault) -> Self {
        Self {
            fault: Some(fault),
            ..Self::new(params)
        }
    }

    /// The kernel LRR favours next (false: the first).
    pub fn prio(&self) -> bool {
        self.prio
    }

    /// The candidates of this cycle and their tier.
    fn candidates(&self, eligible: u64, inp: &KernelLrrIn) -> (u64, u8) {
        let draining = eligible & inp.drain;
        if draining != 0 {
            return (draining, 1);
        }
        let mut in_tail = 0;
        for k in 0..2 {
            if inp.tail >> k & 1 == 1 || self.fault == Some(Fault::TailIgnored) {
                in_tail |= of_kernel(inp.kernel, k == 1);
            }
        }
        let boundary = eligible & inp.boundary & in_tail;
        if boundary != 0 {
            return (boundary, 2);
        }
        (eligible, if eligible != 0 { 3 } else { 0 })
    }
}

/// The warps of kernel `second` (true: the SM's second) among all, given the kernel mask.
fn of_kernel(kernel: u64, second: bool) -> u64 {
    if second {
        kernel
    } else {
        !kernel
    }
}

impl Block for Golden {
    type In = KernelLrrIn;
    type Out = KernelLrrOut;

    fn reset(&mut self) {
        self.live = 0;
        self.prio = false;
        self.last = [None; 2];
        for w in 0..self.params.warps {
            self.seq[w] = w as u64;
        }
        self.next_seq = self.params.warps as u64;
    }

    fn step(&mut self, inp: &KernelLrrIn) -> KernelLrrOut {
        let m = self.params.warp_mask();
        let eligible = inp.ready & self.live & m;
        let (cand, tier) = self.candidates(eligible, inp);
        let of = |k: bool| cand & of_kernel(inp.kernel, k) & m;
        let k = if of(self.prio) != 0 {
            self.prio
        } else {
            !self.prio
        };
        let slot = if self.fault == Some(Fault::SharedLast) {
            0
        } else {
            k as usize
        };
        let pick = match self.last[slot] {
            Some(w) if of(k) >> w & 1 == 1 => Some(w),
            _ => oldest(&self.seq, of(k)),
        };
        if pick.is_some() {
            self.last[slot] = pick;
        }
        let other_ready = eligible & of_kernel(inp.kernel, !self.prio) != 0;
        if other_ready && self.fault != Some(Fault::NoFlip) {
            self.prio = !self.prio;
        }
        stamp_launches(&mut self.seq, &mut self.next_seq, inp.launch & m);
        self.live = ((self.live & !inp.exit) | inp.launch) & m;
        KernelLrrOut {
            grant_valid: pick.is_some(),
            grant_warp: pick.unwrap_or(0),
            tier,
        }
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let p = &self.params;
        let idw = p.id_bits();
        let mut v = vec![
            PortSpec::new("live", p.warps as u32),
            PortSpec::new("prio", 1),
        ];
        for k in 0..2 {
            v.push(PortSpec::new(format!("last_{k}"), idw));
            v.push(PortSpec::new(format!("last_{k}_valid"), 1));
        }
        for w in 0..p.warps {
            v.push(PortSpec::new(format!("launch_seq_{w}"), 64));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.live);
        out.push(self.prio as u64);
        for last in self.last {
            out.push(u64::from(last.unwrap_or(0)));
            out.push(last.is_some() as u64);
        }
        out.extend_from_slice(&self.seq[..self.params.warps]);
    }
}

#[cfg(test)]
mod tests;

/// The scheduler as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "kernel_lrr";
    const SUMMARY: &'static str =
        "GPU Maestro's kernel-aware warp scheduler: loose round robin between two kernels, GTO within each, draining and boundary-block overrides";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "gtx980", "proto"];
    type Params = Params;
    type In = KernelLrrIn;
    type Out = KernelLrrOut;
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
        vec![("warps", p.warps as u64), ("id_bits", p.id_bits() as u64)]
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        let n = p.warps as u64;
        Some(crate::block::PaperBudget {
            bits: Some(2 * n + n * n + 2),
            structure: format!(
                "GTO's state for {n} warps (live mask, last grant, {n} x {n} age matrix, as our \
                 GTO arbiter keeps it) and a ready bit per kernel, two kernels (seed 003 L1319)"
            ),
        })
    }
    fn busy(out: &KernelLrrOut) -> bool {
        out.grant_valid
    }
    fn describe(p: &Params) -> String {
        format!("{} warps per scheduler", p.warps)
    }
}
