//! rust-hdl simulation of `paws` against the golden model (every policy and preset, random
//! stimulus), a
//! planted golden bug that the comparison catches, and [`MinSet`] against its golden function.

use super::*;
use crate::sim::{clock_edge, settle, settle_comb, start, start_comb};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::paws::{Golden, Kind, PawsIn, PawsOut};
use proptest::prelude::*;

/// Port access shared by the single-level and two-level selects, for this test only.
trait PawsPorts: crate::sim::Clocked + Default {
    fn drive(&mut self, reset: bool, i: &PawsIn);
    fn outputs(&self) -> PawsOut;
}

macro_rules! paws_ports {
    ($ty:ty) => {
        impl PawsPorts for $ty {
            fn drive(&mut self, reset: bool, i: &PawsIn) {
                self.reset.next = reset;
                self.ready.next = i.ready.to_bits();
                self.launch.next = i.launch.to_bits();
                self.exit.next = i.exit.to_bits();
                self.long_stall.next = i.long_stall.to_bits();
                self.upd_valid.next = i.upd_valid;
                self.upd_warp.next = u64::from(i.upd_warp).to_bits();
                self.upd_idx.next = u64::from(i.upd_idx).to_bits();
                self.upd_far.next = i.upd_far;
                self.tw_en.next = i.tw_en;
                self.tw_idx.next = u64::from(i.tw_idx).to_bits();
                self.tw_dist.next = u64::from(i.tw_dist).to_bits();
            }
            fn outputs(&self) -> PawsOut {
                PawsOut {
                    grant_valid: self.grant_valid.val(),
                    grant_warp: self.grant_warp.val().to_u64() as u8,
                }
            }
        }
    };
}
paws_ports!(BaseFermi);
paws_ports!(BaseProto);
paws_ports!(TlFermi);
paws_ports!(TlProto);
paws_ports!(TlInnerFermi);
paws_ports!(TlInnerProto);

/// Grants in `cycles` random cycles of `policy` and `preset` on `U`, or the first mismatch
/// (cycle, golden, rtl).
fn compare<U: PawsPorts>(
    policy: &str,
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(PawsOut) -> PawsOut,
) -> Result<usize, Box<(usize, PawsOut, PawsOut)>> {
    let params = Kind::params(policy, preset);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &PawsIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let (mut prev, mut grants) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
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
fn rtl_matches_golden_for_every_policy_and_preset() {
    let id = |o| o;
    let runs = [
        ("base proto", compare::<BaseProto>("base", "proto", 1, 30_000, id)),
        ("base fermi", compare::<BaseFermi>("base", "fermi", 2, 20_000, id)),
        ("tl proto", compare::<TlProto>("tl", "proto", 3, 30_000, id)),
        ("tl fermi", compare::<TlFermi>("tl", "fermi", 4, 10_000, id)),
        ("tl_inner proto", compare::<TlInnerProto>("tl_inner", "proto", 5, 30_000, id)),
        ("tl_inner fermi", compare::<TlInnerFermi>("tl_inner", "fermi", 6, 10_000, id)),
    ];
    for (name, r) in runs {
        let n = r.unwrap_or_else(|e| panic!("{name}: first mismatch {e:?}"));
        assert!(n > 2_000, "{name}: {n} grants");
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model grants the next warp up whenever it grants warp 2.
    let r = compare::<BaseProto>("base", "proto", 4, 30_000, |mut o| {
        if o.grant_valid && o.grant_warp == 2 {
            o.grant_warp = 3;
        }
        o
    });
    assert!(r.is_err_and(|e| (e.1.grant_warp, e.2.grant_warp) == (3, 2)));
}

#[test]
fn every_variant_emits_verilog() {
    for policy in Kind::POLICIES {
        for preset in Kind::PRESETS {
            let v = <Rtl as crate::RtlKind>::verilog(policy, preset, "paws_test").unwrap();
            assert!(v.contains("module paws_test"), "{policy} {preset}");
        }
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
