//! Choosing the cached loads (seed 001 §V-A-§V-C; spec §2.1.4, B3-B5, B-R5): Algorithm 1's
//! greedy heuristic and the exact optimum of Problem 1, max T(G') over all cached sets.
//!
//! The paper solves Problem 1 as an ILP (MOSEK, L398). Its linearisation of
//! `M_ij = N_i * N_j` is exact, so the ILP optimum is the best of the 2^N masks; we enumerate
//! those instead of pulling an ILP solver crate into the dependency tree, and break ties
//! deterministically (B-R5's `BRUTE_MODEL`), which a solver does not.

use super::graph::TrafficGraph;
use serde::Serialize;

/// The most loads [`exact`] searches: 2^24 masks x at most 24 additions each is about 0.4 G
/// floating-point operations, about 0.2 s in a release build on a 2-core host (the ignored
/// test `exact_at_the_limit`), and each further load doubles that. Every paper benchmark fits
/// (particle filter, the largest, has 14 loads: L96).
pub const EXACT_MAX_LOADS: usize = 24;

/// Objectives closer than this fraction of [`TrafficGraph::magnitude`] tie in [`exact`]. The
/// Gray-code walk updates the objective incrementally, so a mask's value carries rounding
/// from the steps before it: typically about sqrt(steps) ulps of the magnitude, far below the
/// tolerance, though the worst case over 2^24 steps (about 4e-9) is above it. Integer weights
/// below 2^53 (edges are whole multiples of 128 B) make the walk exact, and a magnitude below
/// 1e9 B keeps the tolerance under one byte, so integer ties are exact ties.
pub const TIE_RELATIVE_TOLERANCE: f64 = 1e-9;

/// How to choose the cached loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Method {
    /// Bypass nothing: cache every load (cache-all, `-dlcm=ca`).
    None,
    /// Bypass every load (bypass-all, `-dlcm=cg`).
    All,
    /// The optimum of Problem 1 by exhaustive search ([`exact`]).
    Exact,
    /// Algorithm 1 ([`heuristic`]).
    Heuristic,
    /// B-R5 `ORACLE_EMPIRICAL`: the mask of the fewest cycles, found by simulating every mask of
    /// the most accessed loads ([`empirical`](super::empirical)); not a choice on the model.
    Empirical,
}

/// A chosen cache/bypass mask and how it was chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selection {
    /// `cached[i]`: load i (program order) is cached (`ld.ca`); otherwise bypassed (`ld.cg`).
    pub cached: Vec<bool>,
    /// The method that produced the mask (Heuristic when Exact fell back).
    pub method_used: Method,
    /// T(G') of the mask, bytes of L2 traffic saved over bypass-all by the model.
    pub objective: f64,
    /// Why `method_used` differs from the method asked for, if it does.
    pub note: Option<String>,
}

/// One iteration of Algorithm 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HeuristicStep {
    /// The selected load min_v (program-order index).
    pub load: usize,
    /// T_other(min_v), bytes: its edges to the cached and remaining loads.
    pub t_other: f64,
    /// T = T_other(min_v) + W(min_v), bytes.
    pub t: f64,
    /// Whether it was cached (T > 0) or bypassed (T <= 0, B5).
    pub cached: bool,
}

/// `g`'s mask chosen by `method`; [`Method::Exact`] over more than [`EXACT_MAX_LOADS`] loads
/// falls back to the heuristic and says so in `note`.
pub fn select(g: &TrafficGraph, method: Method) -> Selection {
    let n = g.len();
    let (cached, method_used, note) = match method {
        Method::None => (vec![true; n], method, None),
        Method::All => (vec![false; n], method, None),
        Method::Heuristic => (heuristic(g), method, None),
        Method::Exact => match exact(g) {
            Some(cached) => (cached, method, None),
            None => (heuristic(g), Method::Heuristic, Some(fallback_note(n))),
        },
        Method::Empirical => (heuristic(g), Method::Heuristic, Some(EMPIRICAL_NOTE.into())),
    };
    Selection {
        objective: g.objective(&cached),
        cached,
        method_used,
        note,
    }
}

/// The note of [`Method::Empirical`] asked of the model alone.
const EMPIRICAL_NOTE: &str = "the empirical optimum is chosen by simulation runs \
     (analysis::bypass::empirical), not on the traffic model; used the heuristic (Algorithm 1)";

/// The note of an exact search that fell back to the heuristic for `loads` loads.
fn fallback_note(loads: usize) -> String {
    format!(
        "exact search skipped: {loads} loads exceed the limit of {EXACT_MAX_LOADS} \
         (2^{loads} masks); used the heuristic (Algorithm 1) instead"
    )
}

/// Algorithm 1's mask: `cached[i]` for each load i.
pub fn heuristic(g: &TrafficGraph) -> Vec<bool> {
    let mut cached = vec![false; g.len()];
    for step in heuristic_trace(g) {
        cached[step.load] = step.cached;
    }
    cached
}

/// Algorithm 1 as §2.1.4 restates it, one step per iteration (N steps). Each iteration takes
/// the remaining load with the least T_other, scanning in program order with `<=` so the last
/// minimum wins (B4); it bypasses that load when T <= 0 (B5), which deletes it from the graph
/// so its edges stop counting for every later T_other, and caches it otherwise; either way it
/// leaves V_remain (B3). O(N^3) additions.
pub fn heuristic_trace(g: &TrafficGraph) -> Vec<HeuristicStep> {
    let n = g.len();
    let mut remaining = vec![true; n];
    let mut bypassed = vec![false; n];
    let mut steps = Vec::with_capacity(n);
    while let Some((load, t_other)) = least_reduction(g, &remaining, &bypassed) {
        let t = t_other + g.node(load);
        let cached = t > 0.0;
        bypassed[load] = !cached;
        remaining[load] = false;
        steps.push(HeuristicStep {
            load,
            t_other,
            t,
            cached,
        });
    }
    steps
}

/// The remaining load with the least T_other (the last of equal ones) and that T_other, or
/// `None` when no load remains.
fn least_reduction(
    g: &TrafficGraph,
    remaining: &[bool],
    bypassed: &[bool],
) -> Option<(usize, f64)> {
    let mut least: Option<(usize, f64)> = None;
    for v in (0..g.len()).filter(|&v| remaining[v]) {
        let t = t_other(g, v, bypassed);
        if least.is_none_or(|(_, min)| t <= min) {
            least = Some((v, t));
        }
    }
    least
}

/// T_other(v): W(e(v, u)) summed over the loads u still in the graph (cached or remaining),
/// in program order; the zero diagonal makes u = v harmless.
fn t_other(g: &TrafficGraph, v: usize, bypassed: &[bool]) -> f64 {
    g.edge_row(v)
        .iter()
        .zip(bypassed)
        .filter(|&(_, &gone)| !gone)
        .map(|(w, _)| w)
        .sum()
}

/// The tie tolerance of [`exact`] on `g`, bytes.
pub fn tie_tolerance(g: &TrafficGraph) -> f64 {
    TIE_RELATIVE_TOLERANCE * g.magnitude()
}

/// The optimum of Problem 1 (B-R5's `BRUTE_MODEL`): the mask with the greatest T(G'), ties
/// (within [`tie_tolerance`]) to fewer cached loads, then to the lower mask value with load 0
/// as bit 0. All 2^N masks are visited in Gray-code order, each step caching or bypassing one
/// load and updating T(G') in O(N). `None` when N > [`EXACT_MAX_LOADS`].
pub fn exact(g: &TrafficGraph) -> Option<Vec<bool>> {
    let n = g.len();
    if n > EXACT_MAX_LOADS {
        return None;
    }
    let tolerance = tie_tolerance(g);
    let mut walk = GrayWalk::new(n);
    let mut best = walk.candidate();
    for step in 1u64..(1u64 << n) {
        walk.flip(g, step.trailing_zeros() as usize);
        let candidate = walk.candidate();
        if candidate.beats(&best, tolerance) {
            best = candidate;
        }
    }
    Some((0..n).map(|i| best.mask >> i & 1 == 1).collect())
}

/// A mask with its objective and cached-load count.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    mask: u32,
    objective: f64,
    count: u32,
}

impl Candidate {
    /// Better objective, or a tie with fewer cached loads, or a tie with as many and a lower
    /// mask.
    fn beats(&self, best: &Candidate, tolerance: f64) -> bool {
        if (self.objective - best.objective).abs() > tolerance {
            return self.objective > best.objective;
        }
        (self.count, self.mask) < (best.count, best.mask)
    }
}

/// The state of the Gray-code walk: the current mask, its T(G') and, per load, the sum of its
/// edges to the cached loads.
struct GrayWalk {
    mask: u32,
    objective: f64,
    neighbour_sum: Vec<f64>,
}

impl GrayWalk {
    /// The empty mask (everything bypassed, T = 0) over `n` loads.
    fn new(n: usize) -> Self {
        Self {
            mask: 0,
            objective: 0.0,
            neighbour_sum: vec![0.0; n],
        }
    }

    /// Caches `load` if bypassed, bypasses it if cached.
    fn flip(&mut self, g: &TrafficGraph, load: usize) {
        let bit = 1u32 << load;
        let sign = if self.mask & bit == 0 { 1.0 } else { -1.0 };
        self.objective += sign * (g.node(load) + self.neighbour_sum[load]);
        self.mask ^= bit;
        for (sum, w) in self.neighbour_sum.iter_mut().zip(g.edge_row(load)) {
            *sum += sign * w;
        }
    }

    /// The current mask as a candidate.
    fn candidate(&self) -> Candidate {
        Candidate {
            mask: self.mask,
            objective: self.objective,
            count: self.mask.count_ones(),
        }
    }
}
