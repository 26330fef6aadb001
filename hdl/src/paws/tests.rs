//! rust-hdl simulation of `paws` against the golden model (every preset, random stimulus), a
//! planted golden bug that the comparison catches, and [`MinSet`] against its golden function.

use super::*;
use crate::sim::{clock_edge, settle, settle_comb, start, start_comb};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::paws::{Golden, Kind, PawsIn, PawsOut};
use proptest::prelude::*;

fn drive<const N: usize, const B: usize, const A: usize>(
    u: &mut Paws<N, B, A>,
    reset: bool,
    i: &PawsIn,
) {
    u.reset.next = reset;
    u.ready.next = i.ready.to_bits();
    u.launch.next = i.launch.to_bits();
    u.exit.next = i.exit.to_bits();
    u.upd_valid.next = i.upd_valid;
    u.upd_warp.next = u64::from(i.upd_warp).to_bits();
    u.upd_idx.next = u64::from(i.upd_idx).to_bits();
    u.upd_far.next = i.upd_far;
    u.tw_en.next = i.tw_en;
    u.tw_idx.next = u64::from(i.tw_idx).to_bits();
    u.tw_dist.next = u64::from(i.tw_dist).to_bits();
}

/// Grants in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<const N: usize, const B: usize, const A: usize>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(PawsOut) -> PawsOut,
) -> Result<usize, Box<(usize, PawsOut, PawsOut)>> {
    let params = Kind::params("base", preset);
    assert_eq!((params.warps, params.index_bits), (N, A as u32), "the alias is the preset");
    let mut u = Paws::<N, B, A>::default();
    start(&mut u);
    drive(&mut u, true, &PawsIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let (mut prev, mut grants) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        drive(&mut u, false, &i);
        settle(&mut u);
        let rtl = PawsOut {
            grant_valid: u.grant_valid.val(),
            grant_warp: u.grant_warp.val().to_u64() as u8,
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
    let n = compare::<8, 3, 10>("proto", 1, 30_000, |o| o).unwrap();
    assert!(n > 5_000, "{n} grants");
    let n = compare::<24, 5, 10>("fermi", 2, 20_000, |o| o).unwrap();
    assert!(n > 5_000, "{n} grants");
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model grants the next warp up whenever it grants warp 2.
    let r = compare::<8, 3, 10>("proto", 4, 30_000, |mut o| {
        if o.grant_valid && o.grant_warp == 2 {
            o.grant_warp = 3;
        }
        o
    });
    assert!(r.is_err_and(|e| (e.1.grant_warp, e.2.grant_warp) == (3, 2)));
}

#[test]
fn every_preset_emits_verilog() {
    for preset in Kind::PRESETS {
        let v = <Rtl as crate::RtlKind>::verilog("base", preset, "paws_test").unwrap();
        assert!(v.contains("module paws_test"), "{preset}");
    }
}

proptest! {
    #[test]
    fn min_set_matches_its_golden(valid in any::<u8>(), keys in proptest::array::uniform8(0u64..6)) {
        let mut u = MinSet::<8, 4>::default();
        start_comb(&mut u);
        u.valid.next = u64::from(valid).to_bits();
        for (k, s) in keys.iter().zip(u.key.iter_mut()) {
            s.next = k.to_bits();
        }
        settle_comb(&mut u);
        prop_assert_eq!(u.min.val().to_u64(), min_set_golden(u64::from(valid), &keys));
    }
}
