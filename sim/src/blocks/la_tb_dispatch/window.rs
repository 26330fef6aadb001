//! The golden model's candidate window: the blocks not yet dispatched, their phases and
//! their scores, kept so that an event costs the candidates it touches, not the window.
//!
//! Two facts make that exact (bit for bit the same scores and decisions as updating every
//! candidate):
//! * a candidate's pair locality with an event's footprint is 0 unless one of its rectangles
//!   overlaps the footprint's rectangle on the same array, so an update only has to visit the
//!   candidates found in a grid index of their rectangles (cells of 256 x 256 lines: a
//!   rectangle is at most 255 x 255, so an overlapping one starts within one cell of it);
//! * candidates enter in id order as *waiting* and every sweep boundary moves all of them one
//!   phase on, so the phases are id ranges: ready below `ready_below`, sweeping up to
//!   `sweep_below`, waiting above.
//!
//! A decision then looks only at the ready candidates with some locality (`nonzero`) and at the
//! first ready one without any.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::analysis::locality::{pair_locality, Rect, TbFootprint};

/// Where a candidate's scores stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Loaded; its scores are computed by the next sweep (all 0 until then).
    Waiting,
    /// In the current sweep: its scores count the running slots already visited.
    Sweeping,
    /// Its scores are exact: it can be granted.
    Ready,
}

/// One candidate.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub fp: TbFootprint,
    /// Per SM: pair locality with the blocks running there (those visited while sweeping).
    pub score: Vec<u32>,
}

/// Lines per side of an index cell (a rectangle's extent is at most 255).
const CELL_SHIFT: u32 = 8;

/// The index cell of array `k`'s rectangle starting at (`sx`, `sy`).
type Cell = (usize, u32, u32);

/// The window (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(super) struct Window {
    /// Candidates by block id.
    cands: BTreeMap<u32, Candidate>,
    /// Ids below this are ready.
    ready_below: u32,
    /// Ids from `ready_below` below this are sweeping; the rest are waiting.
    sweep_below: u32,
    /// The next id to enter.
    next: u32,
    /// Candidates per phase: waiting, sweeping, ready.
    counts: [usize; 3],
    /// Per (array, cell of the rectangle's start): the candidates.
    index: HashMap<Cell, Vec<u32>>,
    /// Candidates with some score above 0.
    nonzero: BTreeSet<u32>,
}

fn slot(phase: Phase) -> usize {
    phase as usize
}

fn cell(k: usize, r: &Rect) -> Cell {
    (k, r.sx >> CELL_SHIFT, r.sy >> CELL_SHIFT)
}

impl Window {
    /// Empties the window; ids restart at 0.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Candidates held.
    pub fn len(&self) -> usize {
        self.cands.len()
    }

    /// Candidates in `phase`.
    pub fn count(&self, phase: Phase) -> usize {
        self.counts[slot(phase)]
    }

    /// Whether some candidate is not ready.
    pub fn unswept(&self) -> bool {
        self.count(Phase::Waiting) + self.count(Phase::Sweeping) > 0
    }

    /// The phase of candidate `id`.
    pub fn phase(&self, id: u32) -> Phase {
        if id < self.ready_below {
            Phase::Ready
        } else if id < self.sweep_below {
            Phase::Sweeping
        } else {
            Phase::Waiting
        }
    }

    /// Block `id` (the next id) enters, waiting, with scores 0 on `sms` SMs.
    pub fn push(&mut self, id: u32, fp: TbFootprint, sms: usize) {
        debug_assert_eq!(id, self.next, "candidates enter in id order");
        for (k, r) in fp.rects.iter().enumerate() {
            if let Some(r) = r {
                self.index.entry(cell(k, r)).or_default().push(id);
            }
        }
        let score = vec![0; sms];
        self.cands.insert(id, Candidate { fp, score });
        self.counts[slot(Phase::Waiting)] += 1;
        self.next = id + 1;
    }

    /// Removes candidate `id` (granted).
    pub fn remove(&mut self, id: u32) -> Candidate {
        let c = self.cands.remove(&id).expect("a candidate in the window");
        self.counts[slot(self.phase(id))] -= 1;
        self.nonzero.remove(&id);
        for (k, r) in c.fp.rects.iter().enumerate() {
            if let Some(r) = r {
                let ids = self.index.get_mut(&cell(k, r)).expect("an indexed rectangle");
                let at = ids.iter().position(|&i| i == id).expect("indexed");
                ids.swap_remove(at);
                if ids.is_empty() {
                    self.index.remove(&cell(k, r));
                }
            }
        }
        c
    }

    /// A sweep boundary: sweeping candidates become ready, waiting ones start sweeping.
    pub fn boundary(&mut self) {
        let [waiting, sweeping, ready] = self.counts;
        self.counts = [0, waiting, ready + sweeping];
        self.ready_below = self.sweep_below;
        self.sweep_below = self.next;
    }

    /// The candidates that may share a line with `fp` (a superset: every other one has pair
    /// locality 0 with it), in id order.
    fn overlapping(&self, fp: &TbFootprint) -> Vec<u32> {
        self.overlapping_within(fp, 255)
    }

    /// [`Self::overlapping`] for candidates' rectangles of at most `reach` lines a side (a
    /// smaller `reach` than 255 is a planted bug in tests).
    fn overlapping_within(&self, fp: &TbFootprint, reach: u32) -> Vec<u32> {
        let mut ids = vec![];
        for (k, r) in fp.rects.iter().enumerate() {
            let Some(r) = r else { continue };
            if r.w == 0 || r.h == 0 {
                continue;
            }
            // A rectangle of at most `reach` lines overlapping [s, s + n) starts in
            // (s - reach, s + n): the cells of those starts.
            let cells = |s: u32, n: u8| {
                s.saturating_sub(reach) >> CELL_SHIFT..=(s + n as u32 - 1) >> CELL_SHIFT
            };
            for cx in cells(r.sx, r.w) {
                for cy in cells(r.sy, r.h) {
                    if let Some(found) = self.index.get(&(k, cx, cy)) {
                        ids.extend_from_slice(found);
                    }
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Adds (`add`) or subtracts `fp`'s pair locality to SM `s`'s score of every candidate
    /// whose phase `accept` takes.
    pub fn update(&mut self, fp: &TbFootprint, s: usize, add: bool, accept: impl Fn(Phase) -> bool) {
        for id in self.overlapping(fp) {
            if !accept(self.phase(id)) {
                continue;
            }
            let c = self.cands.get_mut(&id).expect("an indexed candidate");
            let l = pair_locality(&c.fp, fp);
            if l == 0 {
                continue;
            }
            if add {
                c.score[s] += l;
            } else {
                c.score[s] -= l;
            }
            if c.score.iter().any(|&v| v > 0) {
                self.nonzero.insert(id);
            } else {
                self.nonzero.remove(&id);
            }
        }
    }

    /// The ready candidate granted to SM `x`: the highest score on `x` if it is above 0, else
    /// the lowest sum of scores on the other SMs; ties go to the lowest id (the highest with
    /// `ties_high`, a planted bug).
    pub fn choose(&self, x: usize, ties_high: bool) -> Option<u32> {
        let key = |id: u32| if ties_high { -(id as i64) } else { id as i64 };
        let ready = || {
            self.nonzero
                .range(..self.ready_below)
                .map(|&id| (id, &self.cands[&id].score))
        };
        let best = ready()
            .filter(|(_, score)| score[x] > 0)
            .max_by_key(|&(id, score)| (score[x], Reverse(key(id))));
        if let Some((id, _)) = best {
            return Some(id);
        }
        // No ready candidate overlaps x's blocks. One without any locality shares nothing
        // with the other SMs either: the first of those (in tie order) wins.
        let mut free = self
            .cands
            .range(..self.ready_below)
            .map(|(&id, _)| id)
            .filter(|id| !self.nonzero.contains(id));
        let free = if ties_high {
            free.next_back()
        } else {
            free.next()
        };
        if free.is_some() {
            return free;
        }
        let others = |score: &[u32]| -> u64 {
            let all: u64 = score.iter().map(|&v| v as u64).sum();
            all - score[x] as u64
        };
        ready()
            .min_by_key(|&(id, score)| (others(score), key(id)))
            .map(|(id, _)| id)
    }

    /// Every candidate with its id and phase, in id order (tests).
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (u32, Phase, &Candidate)> {
        self.cands.iter().map(|(&id, c)| (id, self.phase(id), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A rectangle near the index's cell edges (starts in 0..1,100, extents 1..=255).
    fn rect() -> impl Strategy<Value = Rect> {
        (0u32..1100, 0u32..1100, 1u8..=255, 1u8..=255).prop_map(|(sx, sy, w, h)| Rect {
            sx,
            sy,
            w,
            h,
        })
    }

    /// A footprint on two arrays (either may be absent).
    fn footprint() -> impl Strategy<Value = TbFootprint> {
        (proptest::option::of(rect()), proptest::option::of(rect())).prop_map(|(a, b)| {
            let mut fp = TbFootprint::default();
            fp.rects[0] = a;
            fp.rects[2] = b;
            fp
        })
    }

    /// The candidates the index misses: those with locality with `fp` that
    /// `overlapping_within(fp, reach)` leaves out.
    fn missed(w: &Window, fp: &TbFootprint, reach: u32) -> Vec<u32> {
        let found = w.overlapping_within(fp, reach);
        w.iter()
            .filter(|(_, _, c)| pair_locality(&c.fp, fp) > 0)
            .map(|(id, _, _)| id)
            .filter(|id| !found.contains(id))
            .collect()
    }

    fn window_of(fps: &[TbFootprint]) -> Window {
        let mut w = Window::default();
        for (id, fp) in fps.iter().enumerate() {
            w.push(id as u32, *fp, 1);
        }
        w
    }

    proptest! {
        /// Every candidate sharing a line with a footprint is found, also after removals.
        #[test]
        fn the_index_finds_every_overlapping_candidate(
            fps in proptest::collection::vec(footprint(), 1..40),
            queries in proptest::collection::vec(footprint(), 1..8),
            removed in proptest::collection::vec(any::<prop::sample::Index>(), 0..10),
        ) {
            let mut w = window_of(&fps);
            for i in removed {
                let id = i.index(fps.len()) as u32;
                if w.cands.contains_key(&id) {
                    w.remove(id);
                }
            }
            for q in &queries {
                prop_assert!(missed(&w, q, 255).is_empty());
            }
        }
    }

    /// A planted bug (looking only a line back instead of 255) misses a wide rectangle that
    /// starts in the cell before the query's.
    #[test]
    fn a_short_reach_is_caught() {
        let wide = Rect {
            sx: 200,
            sy: 0,
            w: 255,
            h: 1,
        };
        let query = Rect {
            sx: 300,
            sy: 0,
            w: 1,
            h: 1,
        };
        let fp = |r| {
            let mut fp = TbFootprint::default();
            fp.rects[0] = Some(r);
            fp
        };
        let w = window_of(&[fp(wide)]);
        assert!(missed(&w, &fp(query), 255).is_empty());
        assert_eq!(missed(&w, &fp(query), 1), vec![0]);
    }
}
