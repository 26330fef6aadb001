//! The spec's two-level properties (§1.3 P-2L1..P-2L8) and table coherence (P-LT4) under
//! random stimulus, checked from the inputs and outputs alone; planted bugs; the thesis's
//! table example (P-LT5) through the block's ports.

use super::*;
use crate::block::BlockKind as _;
use crate::block::Stimulus as _;

/// Runs random stimulus on `p` and checks every property; the first violation, or the number
/// of (grants, greedy grants, locality picks, promotions, starved grants) seen and the longest
/// wait of a launched warp for its table row (cycles).
fn check_random(p: Params, fault: Option<Fault>, cycles: u32) -> Result<([u32; 5], u32), String> {
    let mut g = Golden::new(p);
    g.fault = fault;
    let mut stim = stimulus::Stimulus::new(p, 11);
    let n = p.warps;
    // The checker's view, from the ports: live warps, vectors, launch order, gaps, last grant.
    let (mut live, mut vecs) = (0u64, vec![WarpVector::default(); n]);
    let (mut stamp, mut next, mut gap) = (vec![0u64; n], 0u64, vec![0u8; n]);
    let mut last: Option<usize> = None;
    // The table as the spec updates it: cleared at launch, one dirty row per cycle (lowest
    // warp first); the registered promotion scores; when each dirty warp launched.
    let (mut tab, mut dirty) = (vec![vec![0u8; n]; n], 0u64);
    let (mut score, mut since, mut wait) = (vec![0u32; n], vec![0u32; n], 0u32);
    let mut prev_demoted = 0u64;
    // Last cycle's staying warps, candidates, their promotion keys and free places.
    type Pending = (u64, u64, Vec<(bool, u32, u64)>, usize);
    let mut pending: Option<Pending> = None;
    let mut prev: Option<LawsOut> = None;
    let mut seen = [0u32; 5];
    let bits = |m: u64| (0..64).filter(move |w| m >> w & 1 == 1);
    for cycle in 0..cycles {
        let fail = |what: &str| Err(format!("cycle {cycle}: {what}"));
        let inp = stim.next(prev.as_ref());
        let out = g.step(&inp);
        let active = out.active;
        // P-2L1 and P-2L5: the groups.
        if active & !live != 0 || active.count_ones() as usize > p.active {
            return fail("active group not within the live warps and K (P-2L1)");
        }
        if active & prev_demoted != 0 {
            return fail("a warp demoted last cycle is still active (P-2L5)");
        }
        // P-2L6 and P-2L7: last cycle's promotions (skipped when warps exited at that edge).
        if let Some((staying, cands, keys, free)) = pending.take() {
            let promoted = active & !staying;
            let want = free.min(cands.count_ones() as usize);
            if promoted & !cands != 0 || promoted.count_ones() as usize != want {
                return fail("the active group did not refill from ready pending warps (P-2L7)");
            }
            let key = |w: usize| keys[w];
            let worst = bits(promoted).map(key).max();
            let best_left = bits(cands & !promoted).map(key).min();
            if let (Some(a), Some(b)) = (worst, best_left) {
                if a > b {
                    return fail("a better pending warp was left behind (P-2L6)");
                }
            }
            seen[3] += promoted.count_ones();
        }
        // The grant.
        let starved = bits(live)
            .filter(|&w| gap[w] > inp.starve_after)
            .fold(0u64, |s, w| s | 1 << w);
        let ready = inp.ready & active & live & !inp.long_stall;
        if out.grant_valid {
            let w = out.grant_warp as usize;
            if ready >> w & 1 == 0 {
                return fail("granted a warp that is not active and ready (P-2L2)");
            }
            let oldest = |m: u64| bits(m).min_by_key(|&x| stamp[x]);
            if ready & starved != 0 {
                if Some(w) != oldest(ready & starved) {
                    return fail("a starved warp was ready but not granted first (P-2L8)");
                }
                seen[4] += 1;
            } else if let Some(l) = last.filter(|&l| ready >> l & 1 == 1) {
                if w != l {
                    return fail("the last warp was ready but not granted again (P-2L3)");
                }
                seen[1] += 1;
            } else if let Some(l) = last {
                let deg = |x: usize| tab[x][l];
                let best = bits(ready).map(deg).max().unwrap();
                let pick = bits(ready)
                    .filter(|&x| deg(x) == best)
                    .min_by_key(|&x| stamp[x]);
                if Some(w) != pick {
                    return fail("not the oldest warp of highest locality with the last (P-2L4)");
                }
                seen[2] += 1;
            }
            seen[0] += 1;
            last = Some(w);
        } else if ready != 0 {
            return fail("nothing granted with a ready active warp");
        }
        // This cycle's promotion, checked next cycle.
        prev_demoted = active & inp.long_stall;
        let staying = active & !prev_demoted;
        let cands = live & !active & !inp.long_stall;
        let keys = (0..n)
            .map(|w| {
                let st = starved >> w & 1 == 1;
                (!st, if st { 0 } else { u32::MAX - score[w] }, stamp[w])
            })
            .collect();
        let free = p.active.saturating_sub(staying.count_ones() as usize);
        pending = (inp.exit == 0).then_some((staying, cands, keys, free));
        // The edge, from the ports: next cycle's scores, this cycle's dirty row.
        for (w, s) in score.iter_mut().enumerate() {
            *s = bits(staying).map(|a| tab[w][a] as u32).sum();
        }
        if dirty != 0 {
            let w = dirty.trailing_zeros() as usize;
            for j in (0..n).filter(|&j| j != w) {
                tab[w][j] = warp_locality(&vecs[w], &vecs[j]);
                tab[j][w] = tab[w][j];
            }
            dirty &= !(1 << w);
            wait = wait.max(cycle - since[w]);
        }
        dirty &= !inp.exit;
        live &= !inp.exit;
        if last.is_some_and(|l| inp.exit >> l & 1 == 1) {
            last = None;
        }
        let add = inp.tbs_launched.min(2);
        for w in bits(live) {
            gap[w] = (gap[w] + add).min(GAP_MAX);
        }
        for (mask, gp) in [(inp.launch, add.saturating_sub(1)), (inp.launch2, 0)] {
            for w in bits(mask) {
                vecs[w] = unpack(inp.region[w], inp.sub[w]);
                stamp[w] = next;
                next += 1;
                gap[w] = gp;
                since[w] = cycle;
                tab[w].fill(0);
                for row in tab.iter_mut() {
                    row[w] = 0;
                }
            }
        }
        dirty |= inp.launch | inp.launch2;
        live |= inp.launch | inp.launch2;
        // P-LT4: the table follows the vectors of live warps once their rows are written
        // (after the edge).
        for i in bits(live) {
            for j in bits(live).filter(|&j| j != i) {
                if g.degree(i, j) != tab[i][j] {
                    return fail("table entry differs from its update schedule (P-LT4)");
                }
                if (dirty >> i | dirty >> j) & 1 == 0
                    && tab[i][j] != warp_locality(&vecs[i], &vecs[j])
                {
                    return fail("table entry differs from the vectors' locality (P-LT4)");
                }
            }
        }
        prev = Some(out);
    }
    Ok((seen, wait))
}

#[test]
fn random_runs_keep_every_property() {
    for (_, p) in PRESETS {
        let (seen, wait) = check_random(*p, None, 100_000).unwrap();
        assert!(seen.iter().all(|&s| s > 50), "{p:?}: {seen:?}");
        // A launched warp waits for the rows of the lower dirty warps only.
        assert!((1..=p.warps as u32).contains(&wait), "{p:?}: rows wait {wait} cycles");
    }
}

/// The checker catches planted bugs: no demotion, and picks that ignore locality.
#[test]
fn the_checker_catches_planted_bugs() {
    let p = PRESETS[0].1;
    for (fault, want) in [
        (Fault::NoDemotion, "P-2L5"),
        (Fault::IgnoreLocality, "P-2L4"),
        (Fault::HighestDirtyFirst, "schedule (P-LT4)"),
    ] {
        let err = check_random(p, Some(fault), 100_000).expect_err("caught");
        assert!(err.contains(want), "{fault:?}: {err}");
    }
}

/// Warps 0-2 launched with the thesis's vectors (M = 3, N = 4; P-LT5).
fn thesis_launch() -> LawsIn {
    let v = |region: u16, sub: u16| {
        let mut v = WarpVector::default();
        v.region[0] = Some(region);
        v.sub[0] = sub;
        v
    };
    let mut inp = LawsIn {
        launch: 0b111,
        tbs_launched: 1,
        ..Default::default()
    };
    for (w, x) in [v(0b001, 0b1011), v(0b001, 0b0011), v(0b010, 0b1111)]
        .iter()
        .enumerate()
    {
        inp.region[w] = pack_region(x);
        inp.sub[w] = pack_sub(x);
    }
    inp
}

/// P-LT5 through the ports: warps with the thesis's vectors (M = 3, N = 4) get degrees 2, 0, 0.
#[test]
fn thesis_example_through_the_ports() {
    let mut g = Golden::new(PRESETS[1].1);
    g.step(&thesis_launch());
    assert_eq!(g.degree(0, 1), 0, "rows are computed after the launch");
    g.step(&LawsIn::default());
    assert_eq!((g.degree(0, 1), g.degree(0, 2)), (2, 0), "warp 0's row, a cycle later");
    assert_eq!(g.degree(1, 0), 2, "symmetric");
    g.step(&LawsIn::default());
    g.step(&LawsIn::default());
    assert_eq!((g.degree(0, 1), g.degree(0, 2), g.degree(1, 2)), (2, 0, 0));
}

#[test]
fn vectors_pack_and_unpack() {
    let v = WarpVector {
        region: [Some(1023), None, Some(0), Some(5), None],
        sub: [0xffff, 0, 1, 0x8001, 0],
    };
    assert_eq!(unpack(pack_region(&v), pack_sub(&v)), v);
}

/// `serial`: the thesis's example, its rows an entry a cycle through a two-stage pipeline.
/// Warp 0 is picked the cycle after the launch, its row starts (latches its vector) the cycle
/// after, then latches column 0..8's vectors one a cycle, each written the cycle after;
/// warp 1's (picked during warp 0's row) and 2's follow, `n + 2` cycles each; an entry reads
/// 0 until both its warps' rows are done.
#[test]
fn serial_rows_take_n_plus_two_cycles_and_mask_dirty_warps() {
    let p = Params {
        serial: true,
        ..PRESETS[1].1
    };
    let mut g = Golden::new(p);
    g.step(&thesis_launch());
    let n = p.warps;
    // Step 0 launches, step 1 picks warp 0; row `k` (of warp `k`) starts at step `k (n + 2)
    // + 2`, latches its columns in the `n` steps after and writes each a step later, so it
    // is done after `(k + 1) (n + 2) + 2` steps.
    let done = |k: usize| (k + 1) * (n + 2) + 2;
    let mut steps = 1;
    let mut run_to = |g: &mut Golden, step: usize| {
        while steps < step {
            g.step(&LawsIn::default());
            steps += 1;
        }
    };
    run_to(&mut g, 2);
    assert_eq!((g.row.is_none(), g.next_start), (true, Some(0)), "warp 0 picked");
    run_to(&mut g, 5);
    assert_eq!(g.table[0][1], 0, "column 1 latched, not written yet");
    run_to(&mut g, 6);
    assert_eq!(g.table[0][1], 2, "entry (0, 1) written, ...");
    assert_eq!(g.degree(0, 1), 0, "... masked while both are dirty");
    assert_eq!(g.next_start, Some(1), "warp 1 picked while warp 0's row is under way");
    run_to(&mut g, done(0) - 1);
    assert_eq!(g.dirty, 0b111, "warp 0's row one cycle short");
    run_to(&mut g, done(0));
    assert_eq!(g.dirty, 0b110, "warp 0's row done");
    run_to(&mut g, done(1) - 1);
    assert_eq!(g.dirty, 0b110, "warp 1's row one cycle short");
    run_to(&mut g, done(1));
    assert_eq!(g.dirty, 0b100);
    assert_eq!((g.degree(0, 1), g.degree(1, 0), g.degree(0, 2)), (2, 2, 0));
    run_to(&mut g, done(2) - 1);
    assert_eq!(g.dirty, 0b100, "warp 2's row one cycle short");
    run_to(&mut g, done(2));
    assert_eq!(g.dirty, 0);
    assert_eq!((g.degree(0, 1), g.degree(0, 2), g.degree(1, 2)), (2, 0, 0));
}

/// `serial`: the next row's warp is the one registered a cycle earlier: a lower warp
/// launched meanwhile waits for the following row, and a registered warp that exits before
/// its row starts is dropped (no row starts that cycle).
#[test]
fn serial_row_start_is_the_registered_pick() {
    let p = Params {
        serial: true,
        ..PRESETS[1].1
    };
    let launch = |m: u64| LawsIn {
        launch: m,
        tbs_launched: 1,
        ..Default::default()
    };
    let mut g = Golden::new(p);
    g.step(&launch(0b100));
    g.step(&launch(0b001));
    assert_eq!((g.dirty, g.next_start), (0b101, Some(2)), "warp 2 picked");
    g.step(&LawsIn::default());
    assert_eq!(g.row.as_ref().map(|r| r.warp), Some(2), "warp 2 starts, not 0");
    assert_eq!(g.next_start, Some(0), "warp 0 picked next");

    let mut g = Golden::new(p);
    g.step(&launch(0b100));
    g.step(&LawsIn {
        exit: 0b100,
        ..Default::default()
    });
    assert_eq!((g.dirty, g.next_start), (0, Some(2)), "warp 2 picked, then exits");
    g.step(&LawsIn::default());
    assert_eq!((g.row.is_none(), g.next_start), (true, None), "no row starts");
}

/// `serial` under random stimulus (launches, relaunches, exits): whenever no warp is dirty,
/// every entry between live warps is the locality of their stored vectors (P-LT4), and the
/// rows keep up; a planted schedule bug (highest dirty row first) still leaves the table
/// coherent, so this checks the table, not the order.
#[test]
fn serial_table_is_coherent_whenever_no_row_waits() {
    for (_, p) in PRESETS {
        let p = Params { serial: true, ..*p };
        let mut g = Golden::new(p);
        let mut stim = stimulus::Stimulus::new(p, 5);
        let (mut prev, mut checked, mut grants) = (None, 0, 0);
        for cycle in 0..100_000 {
            let inp = stim.next(prev.as_ref());
            let out = g.step(&inp);
            grants += out.grant_valid as u32;
            if g.dirty == 0 && g.live.count_ones() >= 2 {
                for i in Golden::bits(g.live) {
                    for j in Golden::bits(g.live).filter(|&j| j != i) {
                        let want = warp_locality(&g.vecs[i], &g.vecs[j]);
                        assert_eq!(g.degree(i, j), want, "{p:?} cycle {cycle}: ({i}, {j})");
                    }
                }
                checked += 1;
            }
            prev = Some(out);
        }
        // Rows of `n + 2` cycles rarely catch up with this stimulus's launches at 24 warps.
        assert!(checked > 100 && grants > 10_000, "{p:?}: {checked} checks, {grants} grants");
    }
}

/// Runs `scan` (or the policy of `p`) on random stimulus and checks its promotion from the
/// state each cycle decides from: the scores as a scan leaves them (one warp's a cycle, the
/// pointer stepping through `0..n`, from that cycle's staying warps and table, written at the
/// next edge; 0 from a warp's launch, which drops a sum on the way), at most one warp
/// promoted a cycle while a place is free, and that one the best pending warp (starved oldest
/// first, then the highest score, ties to the oldest). The number of promotions and of those
/// the scores decided (not the oldest candidate), or the first violation. Without `starve`,
/// no warp starves (the stimulus's starvation threshold raised past the gaps).
fn check_scan(
    p: Params,
    seed: u64,
    starve: bool,
    fault: Option<Fault>,
    cycles: u32,
) -> Result<(u32, u32), String> {
    let mut g = Golden::new(p);
    g.fault = fault;
    let mut stim = stimulus::Stimulus::new(p, seed);
    let (mut score, mut ptr) = (vec![0u32; p.warps], 0usize);
    // The sum registered the cycle before and its warp: written at this cycle's edge.
    let mut on_the_way: Option<(usize, u32)> = None;
    let (mut prev, mut promotions, mut by_score) = (None, 0, 0);
    for cycle in 0..cycles {
        let mut inp = stim.next(prev.as_ref());
        if !starve {
            inp.starve_after = u8::MAX;
        }
        let (live, active, long) = (g.live, g.active, inp.long_stall & g.mask());
        let starved = Golden::bits(live)
            .filter(|&w| g.gap[w] > inp.starve_after)
            .fold(0u64, |s, w| s | 1 << w);
        let staying = active & !long;
        let key = |w: usize| {
            let st = starved >> w & 1 == 1;
            (!st, if st { 0 } else { u32::MAX - score[w] }, g.stamp[w])
        };
        let best = Golden::bits(live & !active & !long).min_by_key(|&w| key(w));
        let oldest = Golden::bits(live & !active & !long).min_by_key(|&w| g.stamp[w]);
        let free = p.active > staying.count_ones() as usize;
        let sum = Golden::bits(staying)
            .map(|a| g.degree(ptr, a) as u32)
            .sum();
        let out = g.step(&inp);
        let gone = inp.exit | inp.launch | inp.launch2;
        let want = best.filter(|_| free).map_or(0, |w| 1u64 << w) & !gone;
        let got = g.active & !staying;
        if got != want {
            return Err(format!(
                "cycle {cycle}: promoted {got:#x}, the scan's best pending warp is {want:#x}"
            ));
        }
        promotions += got.count_ones();
        by_score += (got != 0 && best != oldest) as u32;
        if let Some((q, s)) = on_the_way.replace((ptr, sum)) {
            score[q] = s;
        }
        for w in Golden::bits((inp.launch | inp.launch2) & g.mask()) {
            score[w] = 0;
            on_the_way = on_the_way.filter(|&(q, _)| q != w);
        }
        ptr = (ptr + 1) % p.warps;
        prev = Some(out);
    }
    Ok((promotions, by_score))
}

#[test]
fn scan_promotes_the_best_warp_by_the_scanned_scores() {
    for preset in ["fermi", "proto"] {
        let p = Kind::params("scan", preset);
        // With starvation (most promotions are the oldest starved warp) and without (the
        // scores decide about one in twenty at 24 warps).
        let (all, _) = check_scan(p, 13, true, None, 100_000).unwrap();
        let (_, by_score) = check_scan(p, 13, false, None, 100_000).unwrap();
        assert!(all > 5_000 && by_score > 20, "{preset}: {all}, {by_score} by score");
    }
}

/// The scan checker catches every score computed every cycle, a score written at the edge it
/// is computed (no register between the adder tree and the comparators), and `serial`'s
/// promotion (a rank per warp, every free place filled at once).
#[test]
fn the_scan_checker_catches_planted_bugs() {
    let p = Kind::params("scan", "fermi");
    for fault in [Fault::ScanEveryWarp, Fault::ScanSameCycle] {
        let err = check_scan(p, 13, false, Some(fault), 100_000).expect_err("caught");
        assert!(err.contains("best pending warp"), "{fault:?}: {err}");
    }
    let serial = Params { scan: false, ..p };
    assert!(check_scan(serial, 13, false, None, 100_000).is_err());
}
