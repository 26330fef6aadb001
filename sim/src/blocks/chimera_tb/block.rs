//! The `chimera_tb` block of one SM: its SM-status-table counters (per block slot: warp
//! instructions and cycles since the block started, its non-idempotent bit) and the serial
//! estimator-selector that turns them into the SM's preemption plan when the kernel scheduler
//! asks (spec §1.2, §1.5, §1.6; §4.1-§4.3).
//!
//! # Ports and cycle semantics
//! Inputs, every cycle (`T` = block slots, `P` = issue ports):
//! * `launch`, `launch_slot`, `launch_issued`, `launch_cycles`, `launch_ni`: a block starts in
//!   the slot with these counts (0, 0, 0 for a new or restarted block; a restored block's saved
//!   counts and bit);
//! * `issue_valid[p]`, `issue_slot[p]`, `issue_overwrite[p]` (`P` ports): a warp instruction
//!   of the block in that slot issued (one that ends its idempotence sets its NI bit);
//! * `leave`, `leave_slot`: the block leaves its slot (completed, switched out or flushed);
//! * `start` with `victims` (a `T`-bit mask: the slots holding the victim kernel's blocks) and
//!   the kernel's statistics (`avg_i`, `cpi_q`, `ipc_q` Q16.16, `sw_cyc` 24 bits, all-ones =
//!   unknown), the limit (`lat_limit`, `margin`), `mode` (0 Chimera, 1 switch-only, 2
//!   drain-only, 3 flush-only), `scope` (0 block, 1 SM, 2-3 kernel: `idempotent`) and `dr_min`
//!   (the drain overhead's formula, [`DrainOvh`]): ask for the SM's plan. Ignored while
//!   `busy`.
//!
//! At the edge the counters update (cycles +1 for every valid slot, instructions +1 per issue
//! port, saturating at 2^32 - 1; a launch overrides the rest for its slot); a `start` snapshots
//! the updated counters, bits and inputs, and the pass runs [`pass_cycles`] cycles with `busy`
//! high; in the cycle after it `done` is high and `sm_ovh`, `sm_lat`, `ok`, `fallback` and
//! `tech[t]` (0 not a victim, 1 switch, 2 drain, 3 flush) hold the plan of
//! [`super::select::plan_sm`] on the snapshot until the next pass ends. `leave_issued` and
//! `leave_cycles` are the counters of `leave_slot` before the edge (Mealy), for the kernel's
//! statistics.
//!
//! The pass is serial, as the thesis's selection runs one block after another: two
//! 32-cycle shift-add multiplications (the switch overhead `2 SW x IPC1SM` and latency
//! `n x SW`) with a result cycle each, one cycle per slot for the most advanced victim, then
//! per slot a set-up cycle, a multiplication (the drain latency) with its result cycle, the
//! 3-way choice and the SM's sum and maximum, and a final cycle that publishes the plan.

use super::cost::{Derived, DrainOvh, TbCounters};
use super::select::{plan_sm, Limit, Mode, Rules};
use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::gpu::sites::kernel_sched::Technique;
use crate::port_bundle;

/// Block parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Block slots of the SM, 2..=16 (`T`).
    pub slots: u32,
    /// Warp instructions the SM issues per cycle, 1..=4 (`P`).
    pub issue: u32,
}

/// Presets: Fermi's SM (8 block slots, 2 schedulers) and a small one.
pub const PRESETS: &[(&str, Params)] = &[
    ("fermi", Params { slots: 8, issue: 2 }),
    ("proto", Params { slots: 4, issue: 1 }),
];

/// Cycles of one pass with `slots` block slots: `67 + 37 slots` (two multiplications of 33
/// cycles, one cycle per slot for the most advanced victim, 36 per slot for its costs and
/// choice, one to publish).
pub fn pass_cycles(slots: u32) -> u64 {
    67 + 37 * slots as u64
}

port_bundle! {
    /// Inputs for one cycle.
    pub struct ChimeraIn for Params {
        /// A block starts in `launch_slot`.
        pub launch: bool = |_p| 1,
        /// Its slot.
        pub launch_slot: u8 = |p| clog2(p.slots as usize),
        /// Its warp instructions so far (0, or a restored block's).
        pub launch_issued: u32 = |_p| 32,
        /// Its cycles so far.
        pub launch_cycles: u32 = |_p| 32,
        /// Its NI bit.
        pub launch_ni: bool = |_p| 1,
        /// Per issue port: a warp instruction issued.
        pub issue_valid: [bool; 4] = |p| (p.issue as usize, 1),
        /// Its block's slot.
        pub issue_slot: [u8; 4] = |p| (p.issue as usize, clog2(p.slots as usize)),
        /// It ends its block's idempotence.
        pub issue_overwrite: [bool; 4] = |p| (p.issue as usize, 1),
        /// The block in `leave_slot` leaves.
        pub leave: bool = |_p| 1,
        /// Its slot.
        pub leave_slot: u8 = |p| clog2(p.slots as usize),
        /// Ask for the SM's plan.
        pub start: bool = |_p| 1,
        /// Slots holding the victim kernel's blocks.
        pub victims: u32 = |p| p.slots,
        /// The victim kernel's warp instructions per completed block.
        pub avg_i: u32 = |_p| 32,
        /// Its cycles per warp instruction of a block, Q16.16.
        pub cpi_q: u32 = |_p| 32,
        /// Its warp instructions per cycle on one SM, Q16.16.
        pub ipc_q: u32 = |_p| 32,
        /// Cycles to save one of its blocks' contexts.
        pub sw_cyc: u32 = |_p| 24,
        /// The latency limit, cycles.
        pub lat_limit: u32 = |_p| 32,
        /// Cycles added to every estimate.
        pub margin: u32 = |_p| 32,
        /// 0 Chimera, 1 switch-only, 2 drain-only, 3 flush-only.
        pub mode: u8 = |_p| 2,
        /// When a block may be flushed: 0 its NI bit, 1 its SM's, 2-3 its kernel's.
        pub scope: u8 = |_p| 2,
        /// The victim kernel is strictly idempotent.
        pub idempotent: bool = |_p| 1,
        /// Drain overheads from the least advanced victim (`I_t - I_min`, spec §5 A3) instead
        /// of the most advanced (`I_max - I_t`).
        pub dr_min: bool = |_p| 1,
    }
}

port_bundle! {
    /// Outputs for one cycle.
    pub struct ChimeraOut for Params {
        /// A pass is running.
        pub busy: bool = |_p| 1,
        /// The pass ended: the plan is new.
        pub done: bool = |_p| 1,
        /// The plan meets the limit.
        pub ok: bool = |_p| 1,
        /// Sum of the chosen overheads, warp instructions.
        pub sm_ovh: u32 = |_p| 32,
        /// Largest chosen latency, cycles.
        pub sm_lat: u32 = |_p| 32,
        /// Victims for which no technique met the limit.
        pub fallback: u32 = |p| p.slots,
        /// Per slot: 0 not a victim, 1 switch, 2 drain, 3 flush.
        pub tech: [u8; 16] = |p| (p.slots as usize, 2),
        /// `leave_slot`'s warp instructions.
        pub leave_issued: u32 = |_p| 32,
        /// `leave_slot`'s cycles.
        pub leave_cycles: u32 = |_p| 32,
    }
}

/// A technique's code on `tech`.
pub fn tech_code(t: Technique) -> u8 {
    match t {
        Technique::Switch => 1,
        Technique::Drain => 2,
        Technique::Flush => 3,
    }
}

/// The selector mode of a `mode` input.
pub fn mode_of(code: u8) -> Mode {
    match code & 3 {
        1 => Mode::Only(Technique::Switch),
        2 => Mode::Only(Technique::Drain),
        3 => Mode::Only(Technique::Flush),
        _ => Mode::Chimera,
    }
}

/// The plan outputs of a pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Plan {
    ok: bool,
    ovh: u32,
    lat: u32,
    fallback: u32,
    tech: [u8; 16],
}

/// Golden model.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    valid: u32,
    ni: u32,
    issued: [u32; 16],
    cycles: [u32; 16],
    /// Cycles of the running pass left (0: idle).
    left: u64,
    pending: Plan,
    shown: Plan,
    done: bool,
}

impl Golden {
    /// The block in its reset state.
    pub fn new(params: Params) -> Self {
        Self {
            params,
            valid: 0,
            ni: 0,
            issued: [0; 16],
            cycles: [0; 16],
            left: 0,
            pending: Plan::default(),
            shown: Plan::default(),
            done: false,
        }
    }

    fn slots(&self) -> usize {
        self.params.slots as usize
    }

    /// The counters' edge.
    fn count(&mut self, inp: &ChimeraIn) {
        let t = self.slots();
        for k in 0..t {
            if self.valid >> k & 1 == 1 {
                self.cycles[k] = self.cycles[k].saturating_add(1);
            }
        }
        for p in 0..self.params.issue as usize {
            let s = inp.issue_slot[p] as usize;
            if inp.issue_valid[p] && s < t {
                self.issued[s] = self.issued[s].saturating_add(1);
                if inp.issue_overwrite[p] {
                    self.ni |= 1 << s;
                }
            }
        }
        let s = inp.leave_slot as usize;
        if inp.leave && s < t {
            self.valid &= !(1 << s);
        }
        let s = inp.launch_slot as usize;
        if inp.launch && s < t {
            self.valid |= 1 << s;
            self.issued[s] = inp.launch_issued;
            self.cycles[s] = inp.launch_cycles;
            self.ni = self.ni & !(1 << s) | (inp.launch_ni as u32) << s;
        }
    }

    /// The plan of the (just updated) counters for `inp`'s request.
    fn plan(&self, inp: &ChimeraIn) -> Plan {
        let t = self.slots();
        let cand = inp.victims & self.valid & ((1u32 << t) - 1);
        let sm_ni = self.ni & self.valid != 0;
        let flushable = |k: usize| match inp.scope & 3 {
            0 => self.ni >> k & 1 == 0,
            1 => !sm_ni,
            _ => inp.idempotent,
        };
        let slots: Vec<usize> = (0..t).filter(|&k| cand >> k & 1 == 1).collect();
        let tbs: Vec<TbCounters> = slots
            .iter()
            .map(|&k| TbCounters {
                issued: self.issued[k],
                flushable: flushable(k),
            })
            .collect();
        let k = Derived {
            avg_i: inp.avg_i,
            cpi_q: inp.cpi_q,
            ipc_q: inp.ipc_q,
            sw_cyc_tb: inp.sw_cyc & 0xff_ffff,
        };
        let limit = Limit {
            cycles: inp.lat_limit,
            margin: inp.margin,
        };
        let rules = Rules {
            mode: mode_of(inp.mode),
            limit,
            drain: match inp.dr_min {
                true => DrainOvh::SlotIdle,
                false => DrainOvh::Literal,
            },
        };
        let p = plan_sm(0, &k, &tbs, rules);
        let mut plan = Plan {
            ok: p.ok,
            ovh: p.ovh,
            lat: p.lat,
            ..Plan::default()
        };
        for (&s, c) in slots.iter().zip(&p.choices) {
            plan.tech[s] = tech_code(c.technique);
            plan.fallback |= (c.fallback as u32) << s;
        }
        plan
    }
}

impl Block for Golden {
    type In = ChimeraIn;
    type Out = ChimeraOut;

    fn reset(&mut self) {
        *self = Self::new(self.params);
    }

    fn step(&mut self, inp: &ChimeraIn) -> ChimeraOut {
        let s = inp.leave_slot as usize;
        let (leave_issued, leave_cycles) = if s < self.slots() {
            (self.issued[s], self.cycles[s])
        } else {
            (0, 0)
        };
        let out = ChimeraOut {
            busy: self.left > 0,
            done: self.done,
            ok: self.shown.ok,
            sm_ovh: self.shown.ovh,
            sm_lat: self.shown.lat,
            fallback: self.shown.fallback,
            tech: self.shown.tech,
            leave_issued,
            leave_cycles,
        };
        self.count(inp);
        self.done = false;
        if self.left > 0 {
            self.left -= 1;
            if self.left == 0 {
                self.shown = self.pending;
                self.done = true;
            }
        } else if inp.start {
            self.pending = self.plan(inp);
            self.left = pass_cycles(self.params.slots);
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let t = self.params.slots;
        let mut v = vec![
            PortSpec::new("valid", t),
            PortSpec::new("ni", t),
            PortSpec::new("left", 16),
        ];
        for k in 0..t {
            v.push(PortSpec::new(format!("issued_{k}"), 32));
            v.push(PortSpec::new(format!("cycles_{k}"), 32));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend([self.valid as u64, self.ni as u64, self.left]);
        for k in 0..self.slots() {
            out.push(self.issued[k] as u64);
            out.push(self.cycles[k] as u64);
        }
    }
}

/// The block as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "chimera_tb";
    const SUMMARY: &'static str =
        "Chimera: per-block instruction and cycle counters, serial cost estimator and 3-way technique select per SM";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = ChimeraIn;
    type Out = ChimeraOut;
    type Golden = Golden;
    type Stim = super::stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        crate::block::preset_of(PRESETS, preset)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> super::stimulus::Stimulus {
        super::stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![("slots", p.slots as u64), ("issue", p.issue as u64)]
    }
    fn paper_budget(_p: &Params) -> Option<crate::block::PaperBudget> {
        Some(crate::block::PaperBudget {
            bits: None,
            structure: "no storage or area figure: statistics from hardware counters (seed 003 \
                 L819), idempotence detected in software (L741)"
                .into(),
        })
    }
    fn busy(out: &ChimeraOut) -> bool {
        out.done
    }
    fn describe(p: &Params) -> String {
        format!("{} block slots, {} issue ports", p.slots, p.issue)
    }
}
