//! The resource allocators' counters over time (`sm_alloc_timeline` in the report): every
//! [`SAMPLE`] cycles each counter of [`super::sites::alloc::AllocUnit::report`] is read on every
//! SM, and its growth, summed over the SMs, is added to the point of its window. The window
//! starts at [`SAMPLE`] cycles and doubles (neighbouring points merged) whenever a run would
//! need more than [`MAX_POINTS`], so a run of any length keeps at most that many per counter.

use serde::Serialize;
use std::collections::BTreeMap;

/// Cycles between two samples (the first window).
pub const SAMPLE: u64 = 1000;

/// Most points kept per counter.
pub const MAX_POINTS: usize = 1024;

/// The counters' growth per window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AllocTimeline {
    /// Cycles per point.
    pub window: u64,
    /// Per counter (`fragmented_cycles`, ...): its growth over each window, summed over the
    /// SMs (SM-cycles), from cycle 0.
    pub series: BTreeMap<String, Vec<u64>>,
    /// Totals at the last sample.
    #[serde(skip)]
    last: BTreeMap<String, u64>,
}

impl AllocTimeline {
    /// Empty: nothing sampled yet.
    pub fn new() -> Self {
        Self {
            window: SAMPLE,
            ..Self::default()
        }
    }

    /// Whether any counter was sampled.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// A sample at cycle `now` (> 0) of the counters' totals over the SMs: their growth since
    /// the last sample goes to the window holding cycle `now - 1`.
    pub fn sample(&mut self, now: u64, totals: BTreeMap<String, u64>) {
        let mut point = ((now.max(1) - 1) / self.window) as usize;
        while point >= MAX_POINTS {
            self.coarsen();
            point = ((now - 1) / self.window) as usize;
        }
        for (k, v) in totals {
            let grew = v - self.last.get(&k).copied().unwrap_or(0);
            let s = self.series.entry(k.clone()).or_default();
            if s.len() <= point {
                s.resize(point + 1, 0);
            }
            s[point] += grew;
            self.last.insert(k, v);
        }
    }

    /// Doubles the window, merging neighbouring points.
    fn coarsen(&mut self) {
        self.window *= 2;
        for s in self.series.values_mut() {
            *s = s.chunks(2).map(|c| c.iter().sum()).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(v: u64) -> BTreeMap<String, u64> {
        [("fragmented_cycles".to_string(), v)].into()
    }

    #[test]
    fn growth_lands_in_its_window_and_long_runs_coarsen_without_losing_any() {
        let mut t = AllocTimeline::new();
        t.sample(1000, totals(7));
        t.sample(2000, totals(7));
        t.sample(3000, totals(10));
        assert_eq!(t.series["fragmented_cycles"], vec![7, 0, 3]);
        let mut total = 10;
        for i in 4..=(3 * MAX_POINTS as u64) {
            total += i % 5;
            t.sample(i * SAMPLE, totals(total));
        }
        let s = &t.series["fragmented_cycles"];
        assert!(s.len() <= MAX_POINTS, "{}", s.len());
        assert_eq!(t.window, 4 * SAMPLE);
        assert_eq!(s.iter().sum::<u64>(), total);
        // Window 0 of 4,000 cycles: the first three samples (7, 0, 3) and the fourth (4 % 5).
        assert_eq!(s[0], 7 + 3 + 4);
    }
}
