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
        }
    }

    fn check(&mut self, i: &PawsIn, o: &PawsOut) -> Result<(), String> {
        if let Some((w, d)) = self.landing.take() {
            self.dist[w] = d;
        }
        let eligible = i.ready & self.live & self.p.warp_mask();
        // P-PS2: a grant only for an eligible warp, and one whenever a warp is eligible.
        if o.grant_valid != (eligible != 0) {
            return Err(format!("grant {} with eligible {eligible:#x}", o.grant_valid));
        }
        if let Some(g) = o.grant_valid.then_some(o.grant_warp as usize) {
            if eligible >> g & 1 == 0 {
                return Err(format!("warp {g} granted, not eligible ({eligible:#x})"));
            }
            // P-PS1: no eligible warp is closer, or as close and older.
            for w in (0..self.p.warps).filter(|&w| eligible >> w & 1 == 1 && w != g) {
                let (dw, dg) = (self.dist[w], self.dist[g]);
                if dw < dg || (dw == dg && self.order[w] < self.order[g]) {
                    return Err(format!(
                        "warp {g} (distance {dg}) granted over warp {w} (distance {dw}, {})",
                        if dw < dg { "closer" } else { "older" }
                    ));
                }
            }
        }
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

/// Runs `golden` on random stimulus for `cycles`; the first property violation, or the grants.
fn run(mut golden: Golden, preset: &str, seed: u64, cycles: usize) -> Result<usize, String> {
    let p = Kind::params("base", preset);
    let mut stim = Kind::stimulus(&p, seed);
    let mut checker = Checker::new(p);
    let (mut prev, mut grants) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        let o = golden.step(&i);
        checker.check(&i, &o).map_err(|e| format!("cycle {c}: {e}"))?;
        grants += usize::from(o.grant_valid);
        prev = Some(o);
    }
    Ok(grants)
}

#[test]
fn the_select_keeps_the_properties_on_random_stimulus() {
    for (preset, seed) in [("fermi", 1), ("proto", 2), ("fermi", 3)] {
        let p = Kind::params("base", preset);
        let grants = run(Golden::new(p), preset, seed, 100_000).unwrap();
        assert!(grants > 20_000, "{preset}: {grants} grants");
    }
}

#[test]
fn the_checks_catch_planted_faults() {
    for fault in [Fault::YoungestFirst, Fault::NoBypass] {
        let p = Kind::params("base", "proto");
        let err = run(Golden::with_fault(p, fault), "proto", 2, 100_000).unwrap_err();
        eprintln!("{fault:?}: {err}");
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
