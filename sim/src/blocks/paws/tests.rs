//! PAWS's select against the spec's properties on random stimulus (P-PS1, P-PS2, P-PS3 and the
//! table's timing), the greedy-within-a-phase case (P-PS4), and planted faults that the checks
//! catch.

use super::*;
use crate::block::{BlockKind as _, Stimulus as _};

/// The properties, checked cycle by cycle from the inputs and outputs alone: the checker keeps
/// its own copy of the table, of each warp's distance (an update read at one edge counts from
/// the next cycle on), of the live warps and of their launch order.
struct Checker {
    p: Params,
    table: Vec<u16>,
    entry: u16,
    dist: Vec<u16>,
    /// Last cycle's update: (warp, distance), effective this cycle.
    landing: Option<(usize, u16)>,
    live: u64,
    order: Vec<u64>,
    next: u64,
    /// Each warp's (waiting, distance) in the last cycle checked: the ranks a promotion
    /// records for the next cycle's sort.
    last_ranks: Vec<(u64, u16)>,
}

impl Checker {
    fn new(p: Params) -> Self {
        Self {
            p,
            table: vec![0; p.entries()],
            entry: FAR,
            dist: vec![FAR; p.warps],
            landing: None,
            live: 0,
            order: (0..p.warps as u64).collect(),
            next: p.warps as u64,
            last_ranks: vec![(0, FAR); p.warps],
        }
    }

    /// Checks one cycle: single level (`scope` `None`) every eligible warp competes; two-level
    /// only those of the active list `(mask, keyed)`, and the key (waiting last, distance,
    /// age) decides only when `keyed`: `Now`, or `Recorded` (a sort on the ranks of the last
    /// cycle).
    fn check(
        &mut self,
        i: &PawsIn,
        o: &PawsOut,
        scope: Option<(u64, Keyed)>,
    ) -> Result<(), String> {
        if let Some((w, d)) = self.landing.take() {
            self.dist[w] = d;
        }
        let m = self.p.warp_mask();
        let eligible = i.ready & self.live & m & scope.map_or(m, |(active, _)| active);
        let waiting = scope.map_or(0, |_| (i.long_stall | !self.live) & m);
        // P-PS2: a grant only for an eligible warp, and one whenever a warp is eligible.
        if o.grant_valid != (eligible != 0) {
            return Err(format!("grant {} with eligible {eligible:#x}", o.grant_valid));
        }
        let keyed = scope.map_or(Keyed::Now, |(_, k)| k);
        let ranks: Vec<(u64, u16)> = (0..self.p.warps)
            .map(|w| (waiting >> w & 1, self.dist[w]))
            .collect();
        let rank = if keyed == Keyed::Recorded {
            &self.last_ranks
        } else {
            &ranks
        };
        if let Some(g) = o.grant_valid.then_some(o.grant_warp as usize) {
            if eligible >> g & 1 == 0 {
                return Err(format!("warp {g} granted, not eligible ({eligible:#x})"));
            }
            // P-PS1: no eligible warp is closer, or as close and older (not waiting, two-level).
            let key = |w: usize| (rank[w], self.order[w]);
            for w in (0..self.p.warps).filter(|&w| keyed != Keyed::No && eligible >> w & 1 == 1 && w != g) {
                let (dw, dg) = (rank[w].1, rank[g].1);
                if key(w) < key(g) {
                    return Err(format!(
                        "warp {g} (distance {dg}) granted over warp {w} (distance {dw}, {})",
                        if dw < dg { "closer" } else { "older or not waiting" }
                    ));
                }
            }
        }
        self.last_ranks = ranks;
        for w in (0..self.p.warps).filter(|&w| i.launch >> w & 1 == 1) {
            self.dist[w] = self.entry;
            self.order[w] = self.next;
            self.next += 1;
        }
        let read = self.table[i.upd_idx as usize];
        if i.upd_valid && (i.upd_warp as usize) < self.p.warps {
            self.landing = Some((i.upd_warp as usize, if i.upd_far { FAR } else { read }));
        }
        if i.tw_en {
            self.table[i.tw_idx as usize] = i.tw_dist;
            if i.tw_idx == 0 {
                self.entry = i.tw_dist;
            }
        }
        self.live = ((self.live & !i.exit) | i.launch) & self.p.warp_mask();
        Ok(())
    }
}

/// When the key decides a cycle's grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keyed {
    /// Not (two-level, a cycle that does not sort).
    No,
    /// On this cycle's distances.
    Now,
    /// On the ranks recorded in the last cycle (two-level, the sort after a promotion).
    Recorded,
}

/// Runs `golden` on random stimulus for `cycles`; the first property violation, or the grants.
/// Two-level: the active list is read from the golden model after each step (P-TL1 checked:
/// active and pending hold every warp once), and whether the key decides: every cycle
/// (`tl_inner`), or in the cycle after the active set changed (`tl` sorts then).
fn run(mut golden: Golden, seed: u64, cycles: usize) -> Result<usize, String> {
    let p = golden.params;
    let mut stim = Kind::stimulus(&p, seed);
    let mut checker = Checker::new(p);
    let (mut prev, mut grants) = (None, 0);
    let (mut sorts, mut last_mask) = (false, golden.lists.as_ref().map_or(0, |l| {
        l.active().iter().fold(0u64, |m, &w| m | 1 << w)
    }));
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        let o = golden.step(&i);
        let scope = golden.lists.as_ref().map(|l| {
            let mask = l.active().iter().fold(0u64, |m, &w| m | 1 << w);
            let all = l.pending().fold(mask, |m, w| m | 1 << w);
            assert_eq!(all, p.warp_mask(), "cycle {c}: P-TL1");
            // A promotion changes the active set; the next cycle sorts (and promotes nothing).
            let order = match p.levels {
                Levels::Two { order, .. } => order,
                Levels::Single => ListOrder::SmallestKey,
            };
            let keyed = match (order, sorts) {
                (ListOrder::SmallestKey, _) => Keyed::Now,
                (_, true) => Keyed::Recorded,
                _ => Keyed::No,
            };
            sorts = order == ListOrder::SortAtPromotion && !sorts && mask != last_mask;
            last_mask = mask;
            (mask, keyed)
        });
        checker.check(&i, &o, scope).map_err(|e| format!("cycle {c}: {e}"))?;
        grants += usize::from(o.grant_valid);
        prev = Some(o);
    }
    Ok(grants)
}

#[test]
fn the_select_keeps_the_properties_on_random_stimulus() {
    for policy in POLICIES {
        for (preset, seed) in [("fermi", 1), ("proto", 2), ("fermi", 3)] {
            let p = Kind::params(policy, preset);
            let grants = run(Golden::new(p), seed, 100_000).unwrap();
            assert!(grants > 20_000, "{policy} {preset}: {grants} grants");
        }
    }
}

#[test]
fn the_checks_catch_planted_faults() {
    for (policy, fault) in [
        ("base", Fault::YoungestFirst),
        ("base", Fault::NoBypass),
        ("tl", Fault::NoSort),
        ("tl_inner", Fault::YoungestFirst),
    ] {
        let p = Kind::params(policy, "proto");
        let err = run(Golden::with_fault(p, fault), 2, 100_000).unwrap_err();
        eprintln!("{policy} {fault:?}: {err}");
    }
}

/// One step with `ready`, nothing else.
fn ready(g: &mut Golden, ready: u64) -> Option<u8> {
    let o = g.step(&PawsIn {
        ready,
        ..Default::default()
    });
    o.grant_valid.then_some(o.grant_warp)
}

/// Writes `dist` into the table from entry 0 (one entry per cycle).
fn load(g: &mut Golden, dist: &[u16]) {
    for (i, &d) in dist.iter().enumerate() {
        g.step(&PawsIn {
            tw_en: true,
            tw_idx: i as u16,
            tw_dist: d,
            ..Default::default()
        });
    }
}

/// P-PS3: warps at the same distance issue oldest first (the launch order, index order among a
/// group); P-PS4: a warp that issues within its phase (its distance falls) keeps issuing while
/// no other warp is closer.
#[test]
fn equal_distances_go_oldest_first_and_a_warp_is_greedy_within_its_phase() {
    let p = Kind::params("base", "proto");
    let mut g = Golden::new(p);
    load(&mut g, &[10, 9, 8, 7, 20]);
    g.step(&PawsIn {
        launch: 0b1100,
        ..Default::default()
    });
    g.step(&PawsIn {
        launch: 0b0011,
        ..Default::default()
    });
    assert_eq!(ready(&mut g, 0b1111), Some(2), "all at distance 10: the oldest");
    // Warp 2 issued entry 0; its next instruction is entry 1 (distance 9).
    let upd = |idx| PawsIn {
        ready: 0b1111,
        upd_valid: true,
        upd_warp: 2,
        upd_idx: idx,
        ..Default::default()
    };
    assert_eq!(g.step(&upd(1)).grant_warp, 2, "ties still: the oldest");
    assert_eq!(g.step(&upd(2)).grant_warp, 2, "distance 9 now");
    assert_eq!(g.step(&upd(3)).grant_warp, 2, "8");
    // Its next instruction starts a long phase (20): the others (10) overtake it.
    assert_eq!(g.step(&upd(4)).grant_warp, 2, "7");
    assert_eq!(ready(&mut g, 0b1111), Some(3), "warp 2 at 20: the oldest of the rest");
    assert_eq!(g.distance(2), 20);
}
