//! The spec's dispatch properties (§1.3 P-TB1..P-TB6) under random stimulus and in directed
//! cases, the filling window, and a window larger than the queue.

use super::*;
use crate::block::Stimulus as _;

/// Replays random stimulus on `p`, checking each grant against a recomputation from the
/// running sets the checker itself keeps (P-TB1, P-TB2, P-TB3) and the kept scores (P-TB5).
/// Returns the grants and fallbacks seen, or the first violation.
fn check_random(p: Params, fault: Option<Fault>, cycles: u32) -> Result<(u32, u32), String> {
    let mut g = Golden::new(p);
    g.fault = fault;
    let mut stim = stimulus::Stimulus::new(p, 7);
    // The checker's own view: running footprints per (SM, slot), the queue as fed.
    let mut running: Vec<Vec<Option<TbFootprint>>> = vec![vec![None; p.slots]; p.sms];
    let mut fed: Vec<TbFootprint> = vec![];
    let mut granted = std::collections::HashSet::new();
    let (mut prev, mut grants, mut fallbacks) = (None, 0, 0);
    let mut granted_last = [false; 2];
    let fail = |cycle: u32, what: &str| Err(format!("cycle {cycle}: {what}"));
    for cycle in 0..cycles {
        let inp = stim.next(prev.as_ref());
        let window = g.ready_ids();
        let out = g.step(&inp);
        if !g.scores_consistent() {
            return fail(cycle, "kept scores differ from recomputation (P-TB5)");
        }
        if out.grant && granted_last.contains(&true) {
            return fail(
                cycle,
                "grants closer than three cycles (an update in flight)",
            );
        }
        granted_last = [out.grant, granted_last[0]];
        if out.grant {
            let (x, id, slot) = (out.grant_sm as usize, out.grant_id, out.grant_slot as usize);
            if inp.room >> x & 1 == 0 || running[x][slot].is_some() || !granted.insert(id) {
                return fail(
                    cycle,
                    "granted without room, into a taken slot or twice (P-TB3)",
                );
            }
            let score = |c: &TbFootprint, s: usize| -> u64 {
                running[s]
                    .iter()
                    .flatten()
                    .map(|r| pair_locality(c, r) as u64)
                    .sum()
            };
            let sx = |c: u32| score(&fed[c as usize], x);
            let other = |c: u32| -> u64 {
                (0..p.sms)
                    .filter(|&s| s != x)
                    .map(|s| score(&fed[c as usize], s))
                    .sum()
            };
            let best = window.iter().map(|&c| sx(c)).max().unwrap_or(0);
            if best > 0 {
                if window.iter().find(|&&c| sx(c) == best) != Some(&id) {
                    return fail(cycle, "not the lowest-id highest overlap (P-TB1)");
                }
            } else {
                fallbacks += 1;
                let least = window.iter().map(|&c| other(c)).min().unwrap_or(0);
                if window.iter().find(|&&c| other(c) == least) != Some(&id) {
                    return fail(cycle, "not the lowest-id least shared (P-TB2)");
                }
            }
            grants += 1;
        }
        // The edge, as the block applies it: done, grant, fill; a start clears.
        for (s, slots) in running.iter_mut().enumerate() {
            for (j, r) in slots.iter_mut().enumerate() {
                if inp.done[s] >> j & 1 == 1 {
                    *r = None;
                }
            }
        }
        if out.grant {
            let fp = fed[out.grant_id as usize];
            running[out.grant_sm as usize][out.grant_slot as usize] = Some(fp);
        }
        for i in 0..out.fill_taken as usize {
            let mut fp = TbFootprint::default();
            for k in 0..p.arrays {
                fp.rects[k] = unpack_rect(inp.fill_rect[i * p.arrays + k]);
            }
            fed.push(fp);
        }
        if inp.start {
            fed.clear();
            granted.clear();
        }
        prev = Some(out);
    }
    Ok((grants, fallbacks))
}

#[test]
fn random_grants_follow_the_rule_and_scores_stay_exact() {
    for (preset, window) in [("fermi", 32), ("proto", 8), ("proto", 0)] {
        let mut p = Kind::params_of(preset);
        p.window = window;
        let (grants, fallbacks) = check_random(p, None, 60_000).unwrap();
        assert!(
            grants > 300 && fallbacks > 50,
            "{preset}: {grants} grants, {fallbacks} fallbacks"
        );
    }
}

/// The checker catches a planted tie-break bug and a planted score-keeping bug.
#[test]
fn the_checker_catches_planted_bugs() {
    let p = Kind::params_of("proto");
    for fault in [
        Fault::HighestIdOnTies,
        Fault::KeepFinished,
        Fault::DecideInFlight,
    ] {
        let err = check_random(p, Some(fault), 60_000).expect_err("a planted bug is caught");
        let want = match fault {
            Fault::HighestIdOnTies => "lowest-id",
            Fault::KeepFinished => "P-TB5",
            Fault::DecideInFlight => "closer than three",
        };
        assert!(err.contains(want), "{fault:?}: {err}");
    }
}

impl Kind {
    fn params_of(preset: &str) -> Params {
        <Kind as crate::block::BlockKind>::params("base", preset)
    }
}

/// Runs a kernel of `n` blocks with footprints `fp(b)` on `sms` SMs of `slots` slots, blocks
/// never finishing; returns the grants `(sm, id)` in order.
fn dispatch_all(p: Params, n: u32, fp: impl Fn(u32) -> TbFootprint) -> Vec<(usize, u32)> {
    let mut g = Golden::new(p);
    let mut fed = 0;
    let mut out_grants = vec![];
    let mut start = true;
    for _ in 0..10 * n + 100 {
        let count = if start {
            0
        } else {
            (n - fed).min(p.fill as u32)
        };
        let mut inp = LaDispatchIn {
            start,
            total: n,
            room: p.sm_mask(),
            fill_count: count as u8,
            ..Default::default()
        };
        for i in 0..count {
            for k in 0..p.arrays {
                inp.fill_rect[i as usize * p.arrays + k] = pack_rect(fp(fed + i).rects[k]);
            }
        }
        start = false;
        let out = g.step(&inp);
        fed += out.fill_taken as u32;
        if out.grant {
            out_grants.push((out.grant_sm as usize, out.grant_id));
        }
        if out.idle && fed == n && !inp.start {
            break;
        }
    }
    out_grants
}

fn row(b: u32, step: u32, w: u8) -> TbFootprint {
    let mut f = TbFootprint::default();
    f.rects[0] = Some(Rect {
        sx: b * step,
        sy: 0,
        w,
        h: 1,
    });
    f
}

/// P-TB4: without locality, blocks go out in id order, one SM after the other.
#[test]
fn no_locality_dispatches_in_id_order() {
    let p = Params {
        sms: 4,
        slots: 4,
        window: 8,
        arrays: 2,
        fill: 1,
        lanes: 0,
    };
    let grants = dispatch_all(p, 16, |_| TbFootprint::default());
    let ids: Vec<u32> = grants.iter().map(|g| g.1).collect();
    assert_eq!(ids, (0..16).collect::<Vec<_>>());
    let sms: Vec<usize> = grants.iter().map(|g| g.0).collect();
    assert_eq!(&sms[..8], &[0, 1, 2, 3, 0, 1, 2, 3]);
}

/// P-TB6 (row-major): block b overlaps only b - 1 and b + 1. After the seeds, each SM keeps
/// receiving the neighbours of what it holds.
#[test]
fn row_major_neighbours_follow_their_seed() {
    let p = Params {
        sms: 2,
        slots: 4,
        window: 32,
        arrays: 1,
        fill: 1,
        lanes: 0,
    };
    let grants = dispatch_all(p, 8, |b| row(b, 4, 8));
    // SM 0's seed: block 0 (nothing runs; lowest id). SM 1's seed: the block sharing least
    // with SM 0's, lowest id: 2 (block 1 overlaps block 0). Then each takes a neighbour.
    assert_eq!(grants[0], (0, 0));
    assert_eq!(grants[1], (1, 2));
    assert_eq!(grants[2], (0, 1));
    assert_eq!(grants[3], (1, 3));
    for w in grants.windows(2) {
        assert_ne!(
            w[0].0, w[1].0,
            "one SM after the other while both have room"
        );
    }
}

/// Column-major sharing (type II): blocks `gx` apart share; each SM collects one column.
#[test]
fn column_sharers_gather_on_one_sm() {
    let p = Params {
        sms: 3,
        slots: 4,
        window: 0,
        arrays: 1,
        fill: 1,
        lanes: 0,
    };
    let gx = 3;
    let grants = dispatch_all(p, 12, |b| row(b % gx, 16, 8));
    for &(s, id) in &grants {
        let same: Vec<u32> = grants
            .iter()
            .filter(|g| g.0 == s)
            .map(|g| g.1 % gx)
            .collect();
        assert!(same.iter().all(|&c| c == id % gx), "SM {s}: {same:?}");
    }
}

/// No decision while the window fills; a window larger than the queue is the whole queue.
#[test]
fn the_window_fills_before_the_first_decision() {
    let p = Params {
        sms: 2,
        slots: 8,
        window: 4,
        arrays: 1,
        fill: 1,
        lanes: 0,
    };
    let mut g = Golden::new(p);
    let start = LaDispatchIn {
        start: true,
        total: 6,
        room: 3,
        ..Default::default()
    };
    assert!(!g.step(&start).grant);
    let feed = LaDispatchIn {
        room: 3,
        fill_count: 1,
        fill_rect: {
            let mut r = [0; MAX_ARRAYS * MAX_FILL];
            r[0] = pack_rect(Some(Rect {
                sx: 0,
                sy: 0,
                w: 1,
                h: 1,
            }));
            r
        },
        ..Default::default()
    };
    for i in 0..4 {
        let o = g.step(&feed);
        assert!(o.fill_taken == 1 && !o.grant, "cycle {i}: filling");
    }
    let o = g.step(&feed);
    assert!(o.grant && o.fill_taken == 0, "full: a grant");
    let o = g.step(&feed);
    assert!(
        !o.grant && o.fill_taken == 1,
        "the granted entry refills the next cycle"
    );
    let fp = |b: u32| row(b, 2, 3);
    for window in [0, 1000] {
        let big = Params { window, ..p };
        assert_eq!(
            dispatch_all(big, 20, fp),
            dispatch_all(Params { window: 0, ..p }, 20, fp)
        );
    }
}

#[test]
fn rectangles_pack_and_unpack() {
    let r = Rect {
        sx: 0xab_cdef,
        sy: 0x1234,
        w: 7,
        h: 255,
    };
    assert_eq!(unpack_rect(pack_rect(Some(r))), Some(r));
    assert_eq!(unpack_rect(pack_rect(None)), None);
    assert!(pack_rect(Some(r)) < 1 << RECT_BITS);
}

/// Cycle `cycle` of a kernel of `total` blocks started at cycle 0, the queue presenting one
/// block (one 4 x 1 rectangle, so every pair shares) per cycle after that, `room` as given.
fn one_block_per_cycle(cycle: u32, total: u32, room: u128) -> LaDispatchIn {
    let mut fill_rect = [0; MAX_ARRAYS * MAX_FILL];
    fill_rect[0] = pack_rect(Some(Rect {
        sx: 0,
        sy: 0,
        w: 4,
        h: 1,
    }));
    LaDispatchIn {
        start: cycle == 0,
        total,
        room,
        fill_count: (cycle > 0) as u8,
        fill_rect,
        ..Default::default()
    }
}

/// The score schedule: with `r` blocks running, a candidate loaded at the edge of cycle `t`
/// is granted from cycle `t + 3` (`r = 0`: two boundaries) or `t + 4 + r` (a boundary, `r`
/// visits, a cycle for the last visit's sums, a boundary).
#[test]
fn a_candidate_waits_for_its_sweep() {
    let p = Params {
        sms: 1,
        slots: 4,
        window: 1,
        arrays: 1,
        fill: 1,
        lanes: 0,
    };
    let mut g = Golden::new(p);
    let mut grants = vec![];
    let mut loads = vec![];
    for cycle in 0..30 {
        let inp = one_block_per_cycle(cycle, 3, 1);
        let out = g.step(&inp);
        if out.fill_taken > 0 {
            loads.push(cycle);
        }
        if out.grant {
            grants.push(cycle);
        }
        assert!(g.scores_consistent(), "cycle {cycle}");
    }
    // Block 0: loaded at 1, nothing running: ready from 4. Block 1 is loaded the cycle after
    // block 0's grant (5): one block running, ready from 10; block 2 (loaded at 11): two, 17.
    assert_eq!(loads, [1, 5, 11]);
    assert_eq!(grants, [4, 10, 17]);
}

/// The SM is chosen a cycle ahead, from the previous cycle's `room`, and must still have room
/// in the cycle of the grant.
#[test]
fn the_sm_is_chosen_from_the_previous_cycles_room() {
    let p = Params {
        sms: 2,
        slots: 4,
        window: 1,
        arrays: 1,
        fill: 1,
        lanes: 0,
    };
    let mut g = Golden::new(p);
    let mut grants = vec![];
    // Block 0 is loaded at 1 and ready from 4 (nothing runs). No room before cycle 6; at 6
    // SM 0 has room (chosen at 7); at 7 only SM 1 has room (SM 0 chosen, no grant; SM 1
    // chosen at 8).
    for cycle in 0..12 {
        let room = match cycle {
            0..=5 => 0,
            6 => 1,
            _ => 2,
        };
        let inp = one_block_per_cycle(cycle, 1, room);
        let out = g.step(&inp);
        if out.grant {
            grants.push((cycle, out.grant_sm));
        }
    }
    assert_eq!(grants, [(8, 1)]);
}
