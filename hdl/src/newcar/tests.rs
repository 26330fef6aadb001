//! rust-hdl simulation of NewCAR against the golden model, and Verilog generation.

use gpusim::block::Stimulus as _;
use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Block as GoldenBlock;
use gpusim::blocks::newcar::stimulus::Stimulus;
use gpusim::blocks::newcar::{Golden, NewcarIn, NewcarOut, Params, Preset};

fn drive<const E: usize, const EB: usize, const CB: usize, const WB: usize>(
    u: &mut NewCar<E, EB, CB, WB>,
    reset: bool,
    i: &NewcarIn,
) {
    u.reset.next = reset;
    u.lsu_valid.next = i.lsu_valid;
    u.lsu_warp.next = (i.lsu_warp as u64).to_bits();
    u.lsu_store.next = i.lsu_store;
    u.lsu_accept.next = i.lsu_accept;
    u.q_accept.next = i.q_accept.to_bits();
}

fn outputs<const E: usize, const EB: usize, const CB: usize, const WB: usize>(
    u: &NewCar<E, EB, CB, WB>,
) -> NewcarOut {
    NewcarOut {
        lsu_ready: u.lsu_ready.val(),
        lsu_to_cache: u.lsu_to_cache.val(),
        enq_valid: u.enq_valid.val(),
        enq_slot: u.enq_slot.val().to_u64() as u8,
        try_valid: u.try_valid.val(),
        try_slot: u.try_slot.val().to_u64() as u8,
        deq_valid: u.deq_valid.val(),
        deq_slot: u.deq_slot.val().to_u64() as u8,
        count: u.count.val().to_u64() as u8,
    }
}

/// First mismatch of `cycles` random cycles as (cycle, golden, rtl).
fn compare<const E: usize, const EB: usize, const CB: usize, const WB: usize>(
    params: Params,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(NewcarOut) -> NewcarOut,
) -> Option<(usize, NewcarOut, NewcarOut)> {
    let mut u = NewCar::<E, EB, CB, WB>::default();
    start(&mut u);
    drive(&mut u, true, &NewcarIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Stimulus::new(params, seed);
    let mut prev = None;
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        drive(&mut u, false, &i);
        settle(&mut u);
        let rtl = outputs(&u);
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Some((c, want, rtl));
        }
        clock_edge(&mut u);
        prev = Some(want);
    }
    None
}

#[test]
fn rtl_matches_golden_for_both_presets() {
    let f = Params::preset(Preset::Fermi);
    assert_eq!(compare::<32, 5, 6, 6>(f, 1, 3000, |o| o), None);
    let p = Params::preset(Preset::Proto);
    assert_eq!(compare::<8, 3, 4, 3>(p, 2, 6000, |o| o), None);
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model never reports a dequeue: the comparison must fail.
    let p = Params::preset(Preset::Proto);
    let r = compare::<8, 3, 4, 3>(p, 3, 6000, |mut o| {
        o.deq_valid = false;
        o
    });
    assert!(r.is_some_and(|(_, g, r)| r.deq_valid && !g.deq_valid));
}
