//! Chimera's preemption selection in its hardware form (spec §1.6, §6 C-R1, C-R3): per block a
//! 3-way minimum among the techniques that meet the latency limit (context switch when none
//! does), per SM the sum of the chosen overheads and the largest chosen latency, and the
//! victim SMs taken cheapest first among those that meet the limit.
//!
//! [`super::algorithm3`] is the thesis's listing taken literally (a sort of every (block,
//! technique) pair and a greedy pass); the tests show the two choose the same.

use super::cost::{costs, sat_add, Costs, Derived, DrainOvh, TbCounters, Victims, MAX, ORDER};
use crate::gpu::sites::kernel_sched::Technique;

/// Which techniques the selector chooses from (C-R3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Chimera: the cheapest technique that meets the limit, per block.
    Chimera,
    /// Every block of a chosen SM by this technique (a block that cannot be flushed is
    /// drained under flush-only).
    Only(Technique),
}

/// The latency limit the selector meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// `LatLimit`: cycles from the request to the SM's handover.
    pub cycles: u32,
    /// `LAT_MARGIN`: cycles added to every estimate before the comparison (default 0, C-R5).
    pub margin: u32,
}

impl Limit {
    /// Whether an estimated latency meets the limit (an unknown one never does).
    pub fn meets(&self, lat: u32) -> bool {
        lat != MAX && sat_add(lat, self.margin) <= self.cycles
    }
}

/// What the selector is asked to meet and how it estimates: its mode, the limit and the drain
/// overhead's formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The techniques it chooses from.
    pub mode: Mode,
    /// The latency limit.
    pub limit: Limit,
    /// The per-block drain overhead.
    pub drain: DrainOvh,
}

/// One block's technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The technique.
    pub technique: Technique,
    /// No technique met the limit (chimera), or the fixed one does not (single-technique
    /// modes).
    pub fallback: bool,
    /// Its estimated latency (cycles) and overhead (warp instructions).
    pub lat: u32,
    /// See `lat`.
    pub ovh: u32,
}

/// The technique for a block with costs `c` (spec §1.6; ties: lower latency, then FLUSH <
/// DRAIN < SWITCH).
pub fn choose(c: &Costs, mode: Mode, limit: Limit) -> Choice {
    let pick = |i: usize, fallback: bool| Choice {
        technique: ORDER[i],
        fallback,
        lat: c.lat[i],
        ovh: c.ovh[i],
    };
    let index = |t: Technique| ORDER.iter().position(|&o| o == t).expect("a technique");
    match mode {
        Mode::Chimera => (0..3)
            .filter(|&i| limit.meets(c.lat[i]))
            .min_by_key(|&i| (c.ovh[i], c.lat[i], i))
            .map_or_else(|| pick(index(Technique::Switch), true), |i| pick(i, false)),
        Mode::Only(Technique::Flush) if c.lat[0] == MAX => {
            let i = index(Technique::Drain);
            pick(i, !limit.meets(c.lat[i]))
        }
        Mode::Only(t) => {
            let i = index(t);
            pick(i, !limit.meets(c.lat[i]))
        }
    }
}

/// What preempting one SM would take: a technique per block, the SM's overhead and latency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmPlan {
    /// The SM.
    pub sm: usize,
    /// Per block of the victim kernel on it (in the order given).
    pub choices: Vec<Choice>,
    /// Sum of the chosen overheads (saturating).
    pub ovh: u32,
    /// Largest chosen latency (C-R1).
    pub lat: u32,
    /// `lat` meets the limit (in chimera mode: no block fell back).
    pub ok: bool,
}

/// The plan for SM `sm` holding `tbs` of a kernel with statistics `k`, drain overheads by
/// `drain`.
pub fn plan_sm(
    sm: usize,
    k: &Derived,
    tbs: &[TbCounters],
    rules: Rules,
) -> SmPlan {
    let Rules { mode, limit, drain } = rules;
    let victims = Victims::of(tbs);
    let choices: Vec<Choice> = tbs
        .iter()
        .map(|&t| choose(&costs(k, &victims, drain, t), mode, limit))
        .collect();
    let ovh = choices.iter().fold(0, |a, c| sat_add(a, c.ovh));
    let lat = choices.iter().map(|c| c.lat).max().unwrap_or(0);
    SmPlan {
        sm,
        choices,
        ovh,
        lat,
        ok: limit.meets(lat),
    }
}

/// The SMs to preempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Positions in the plans given, in selection order.
    pub plans: Vec<usize>,
    /// Fewer SMs than asked for meet the limit: the rest were taken anyway, the least late
    /// first (spec §5 A5).
    pub predicted_violation: bool,
}

/// Takes `num` of `plans` (or all of them if fewer): those that meet the limit first, by
/// (overhead, latency, SM), then the others by (latency, overhead, SM).
pub fn select(plans: &[SmPlan], num: usize) -> Selection {
    let mut ok: Vec<usize> = (0..plans.len()).filter(|&i| plans[i].ok).collect();
    ok.sort_by_key(|&i| (plans[i].ovh, plans[i].lat, plans[i].sm));
    let mut late: Vec<usize> = (0..plans.len()).filter(|&i| !plans[i].ok).collect();
    late.sort_by_key(|&i| (plans[i].lat, plans[i].ovh, plans[i].sm));
    let predicted_violation = ok.len() < num && !late.is_empty();
    ok.extend(late);
    ok.truncate(num);
    Selection {
        plans: ok,
        predicted_violation,
    }
}
