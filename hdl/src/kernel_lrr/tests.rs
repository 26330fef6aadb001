//! rust-hdl simulation of `kernel_lrr` against the golden model (every preset, random
//! stimulus), and a planted golden bug that the comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::kernel_lrr::{Golden, Kind, KernelLrrIn, KernelLrrOut};

fn drive<const N: usize, const B: usize>(u: &mut KernelLrr<N, B>, reset: bool, i: &KernelLrrIn) {
    u.reset.next = reset;
    u.ready.next = i.ready.to_bits();
    u.launch.next = i.launch.to_bits();
    u.exit.next = i.exit.to_bits();
    u.kernel.next = i.kernel.to_bits();
    u.drain.next = i.drain.to_bits();
    u.boundary.next = i.boundary.to_bits();
    u.tail.next = u64::from(i.tail).to_bits();
}

fn idle() -> KernelLrrIn {
    KernelLrrIn {
        ready: 0,
        launch: 0,
        exit: 0,
        kernel: 0,
        drain: 0,
        boundary: 0,
        tail: 0,
    }
}

/// Grants in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<const N: usize, const B: usize>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(KernelLrrOut) -> KernelLrrOut,
) -> Result<usize, Box<(usize, KernelLrrOut, KernelLrrOut)>> {
    let params = Kind::params("base", preset);
    assert_eq!(params.warps, N, "the alias is the preset");
    let mut u = KernelLrr::<N, B>::default();
    start(&mut u);
    drive(&mut u, true, &idle());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let (mut prev, mut grants) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        drive(&mut u, false, &i);
        settle(&mut u);
        let rtl = KernelLrrOut {
            grant_valid: u.grant_valid.val(),
            grant_warp: u.grant_warp.val().to_u64() as u8,
            tier: u.tier.val().to_u64() as u8,
        };
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Err(Box::new((c, want, rtl)));
        }
        grants += usize::from(want.grant_valid);
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(grants)
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let n = compare::<8, 3>("proto", 1, 50_000, |o| o).unwrap();
    assert!(n > 10_000, "{n} grants");
    let n = compare::<24, 5>("fermi", 2, 50_000, |o| o).unwrap();
    assert!(n > 10_000, "{n} grants");
    let n = compare::<16, 4>("gtx980", 3, 50_000, |o| o).unwrap();
    assert!(n > 10_000, "{n} grants");
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model reports the boundary tier as the plain one.
    let r = compare::<24, 5>("fermi", 4, 50_000, |mut o| {
        if o.tier == 2 {
            o.tier = 3;
        }
        o
    });
    assert!(r.is_err_and(|e| (e.1.tier, e.2.tier) == (3, 2)));
}

#[test]
fn every_preset_emits_verilog() {
    for preset in Kind::PRESETS {
        let v = <Rtl as crate::RtlKind>::verilog("base", preset, "kernel_lrr_test").unwrap();
        assert!(v.contains("module kernel_lrr_test"), "{preset}");
    }
}

