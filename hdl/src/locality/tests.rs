//! The units against their golden functions (rust-hdl simulation, random inputs), a planted
//! bug, and their Verilog linted.

use super::*;
use crate::sim::{settle_comb, start_comb, to_bits};
use gpusim::analysis::locality::{warp_locality, WarpVector};
use gpusim::blocks::locality_degree::{pack_region, pack_sub, unpack};
use proptest::prelude::*;

fn vector() -> impl Strategy<Value = WarpVector> {
    (
        proptest::collection::vec(proptest::option::of(0u16..3), ARRAYS),
        proptest::collection::vec(any::<u16>(), ARRAYS),
        any::<bool>(),
    )
        .prop_map(|(r, s, wide)| {
            let mut v = WarpVector::default();
            for k in 0..ARRAYS {
                // Now and then a region index with high bits set (all 10 bits compared).
                v.region[k] = r[k].map(|x| if wide { x | 0x3f0 } else { x });
                v.sub[k] = s[k];
            }
            v
        })
}

/// The first pair on which the unit differs from `golden`: (a, b, golden, rtl).
fn mismatch(
    pairs: &[(WarpVector, WarpVector)],
    golden: impl Fn(&WarpVector, &WarpVector) -> u8,
) -> Option<(WarpVector, WarpVector, u8, u8)> {
    let mut uut = WarpLocality::default();
    start_comb(&mut uut);
    for (a, b) in pairs {
        uut.region_a.next = pack_region(a).to_bits();
        uut.region_b.next = pack_region(b).to_bits();
        uut.sub_a.next = to_bits(pack_sub(a));
        uut.sub_b.next = to_bits(pack_sub(b));
        settle_comb(&mut uut);
        let rtl = uut.degree.val().to_u64() as u8;
        let want = golden(a, b);
        if rtl != want {
            return Some((*a, *b, want, rtl));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn warp_locality_matches_golden(pairs in proptest::collection::vec((vector(), vector()), 1..40)) {
        prop_assert_eq!(mismatch(&pairs, warp_locality), None);
        // Unpacking what was packed is the identity, so the ports carry the vectors exactly.
        for (a, _) in &pairs {
            prop_assert_eq!(unpack(pack_region(a), pack_sub(a)), *a);
        }
    }
}

/// A golden that ignores the region (a planted bug) is caught.
#[test]
fn a_planted_bug_is_caught() {
    let mut a = WarpVector::default();
    let mut b = WarpVector::default();
    a.region[0] = Some(1);
    b.region[0] = Some(2);
    a.sub[0] = 0xff;
    b.sub[0] = 0x0f;
    let wrong = |x: &WarpVector, y: &WarpVector| {
        (0..ARRAYS)
            .map(|k| (x.sub[k] & y.sub[k]).count_ones() as u8)
            .sum::<u8>()
    };
    assert!(mismatch(&[(a, b)], wrong).is_some());
    assert!(mismatch(&[(a, b)], warp_locality).is_none());
}

#[test]
fn verilog_lints() {
    let v = crate::verilog_of::<WarpLocality>("la_warp_locality").unwrap();
    assert!(v.contains("module la_warp_locality"));
}
