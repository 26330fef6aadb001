//! The serial engine: the dispatch rule at every decision against recomputation from the
//! engine's own tables, exact scores every cycle (P-TB5), planted bugs caught, and the
//! operations' durations in a directed case.

use super::super::{pack_rect, stimulus, Kind, LaDispatchIn, Params};
use super::*;
use crate::analysis::locality::Rect;
use crate::block::{BlockKind, Stimulus as _};

fn serial(preset: &str) -> Params {
    <Kind as BlockKind>::params("serial", preset)
}

/// The ready entry the rule picks for SM `x`, recomputed from the running blocks: the lowest
/// id of the highest overlap with `x` if above 0, else of the least shared with the others.
/// Returns the id and whether it was the fallback.
fn expected(g: &Serial, x: usize) -> Option<(u32, bool)> {
    let score = |fp: &TbFootprint, s: usize| -> u64 {
        g.running[s].iter().flatten().map(|r| pair_locality(fp, r) as u64).sum()
    };
    let ready: Vec<&Entry> = g.entries.iter().flatten().filter(|e| e.ready).collect();
    let best = ready.iter().map(|e| score(&e.fp, x)).max()?;
    if best > 0 {
        let e = ready.iter().filter(|e| score(&e.fp, x) == best).min_by_key(|e| e.id)?;
        return Some((e.id, false));
    }
    let other = |fp: &TbFootprint| -> u64 {
        (0..g.p.sms).filter(|&s| s != x).map(|s| score(fp, s)).sum()
    };
    let least = ready.iter().map(|e| other(&e.fp)).min()?;
    let e = ready.iter().filter(|e| other(&e.fp) == least).min_by_key(|e| e.id)?;
    Some((e.id, true))
}

/// Random stimulus on `p`: every Decide against [`expected`], every grant the held decision's
/// block into a free slot of an SM with room, the kept scores exact every cycle. Returns the
/// grants and fallbacks seen, or the first violation.
fn check_random(p: Params, fault: Option<SerialFault>, cycles: u32) -> Result<(u32, u32), String> {
    let mut g = Serial::new(p);
    g.fault = fault;
    let mut stim = stimulus::Stimulus::new(p, 11);
    let (mut prev, mut grants, mut fallbacks) = (None, 0, 0);
    for cycle in 0..cycles {
        let inp = stim.next(prev.as_ref());
        let before = g.clone();
        let out = g.step(&inp);
        let fail = |what: &str| Err(format!("cycle {cycle}: {what}"));
        if !g.scores_consistent() {
            return fail("kept scores differ from recomputation (P-TB5)");
        }
        if let (Some(Op::Decide(x)), false) = (g.last_op, inp.start) {
            let held = g.held.map(|h| g.entries[h.entry].as_ref().expect("held").id);
            let want = expected(&before, x);
            if held != want.map(|w| w.0) {
                return fail(&format!("decision {held:?} for SM {x}, the rule gives {want:?}"));
            }
            fallbacks += u32::from(want.is_some_and(|w| w.1));
        }
        if out.grant {
            let (x, slot) = (out.grant_sm as usize, out.grant_slot as usize);
            let h = before.held.expect("a grant of a held decision");
            let id = before.entries[h.entry].as_ref().map(|e| e.id);
            if inp.room >> x & 1 == 0 || before.running[x][slot].is_some() || id != Some(out.grant_id) {
                return fail("granted without room, into a taken slot or not the decision");
            }
            grants += 1;
        }
        prev = Some(out);
    }
    Ok((grants, fallbacks))
}

#[test]
fn random_decisions_follow_the_rule_and_scores_stay_exact() {
    for preset in ["fermi", "proto"] {
        let (grants, fallbacks) = check_random(serial(preset), None, 60_000).unwrap();
        assert!(
            grants > 300 && fallbacks > 50,
            "{preset}: {grants} grants, {fallbacks} fallbacks"
        );
    }
}

/// The checks catch a Row that misses a slot row and a Finish that keeps its locality.
#[test]
fn the_checker_catches_planted_bugs() {
    for fault in [SerialFault::ShortRow, SerialFault::KeepFinished] {
        let err = check_random(serial("proto"), Some(fault), 60_000).expect_err("caught");
        assert!(err.contains("P-TB5"), "{fault:?}: {err}");
    }
}

/// `proto` (4 SMs x 4 slots, a window of 8 in rows of 2): a kernel of two blocks without
/// locality, every SM with room. Cycle 1 loads block 0, cycle 2 block 1 and starts Row(0) (no
/// slot row occupied: 3 cycles, 2..4); Decide(SM 0) over one ready row, 5..9; Grant in cycle
/// 10 (no ready row left: 10..12); Row(1) over SM 0's first slot row, 13..16; Decide(SM 1),
/// 17..21; Grant in cycle 22.
#[test]
fn operations_take_three_cycles_and_one_per_row() {
    let p = serial("proto");
    let mut g = Serial::new(p);
    let mut grants = vec![];
    for cycle in 0..30 {
        let mut inp = LaDispatchIn {
            start: cycle == 0,
            total: 2,
            room: p.sm_mask(),
            fill_count: u8::from((1..=2).contains(&cycle)),
            ..Default::default()
        };
        inp.fill_rect[0] = pack_rect(Some(Rect {
            sx: 1000 * cycle,
            sy: 0,
            w: 1,
            h: 1,
        }));
        let out = g.step(&inp);
        if out.grant {
            grants.push((cycle, out.grant_sm, out.grant_id, out.grant_slot));
        }
    }
    assert_eq!(grants, vec![(10, 0, 0, 0), (22, 1, 1, 0)]);
}

/// A decision whose SM loses its room before the grant is dropped, and taken again.
#[test]
fn a_decision_without_room_at_its_grant_is_dropped() {
    let p = serial("proto");
    let mut g = Serial::new(p);
    let mut grants = vec![];
    for cycle in 0..40 {
        let room = if cycle == 10 { p.sm_mask() & !1 } else { p.sm_mask() };
        let inp = LaDispatchIn {
            start: cycle == 0,
            total: 1,
            room,
            fill_count: u8::from(cycle == 1),
            ..Default::default()
        };
        let out = g.step(&inp);
        if out.grant {
            grants.push((cycle, out.grant_sm));
        }
        if cycle == 10 {
            assert_eq!(g.last_op, Some(Op::Drop));
        }
    }
    // Row(0) 2..4, Decide(SM 0) 5..9, dropped in 10; Decide(SM 1: SM 0 had no room in cycle
    // 10, the previous cycle's) 11..15, Grant in 16.
    assert_eq!(grants, vec![(16, 1)]);
}
