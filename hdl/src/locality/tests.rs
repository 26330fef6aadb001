//! The units against their golden functions (rust-hdl simulation, random inputs) with a
//! planted bug each; their Verilog is linted and synthesized in gen's lint gate.

use super::*;
use crate::sim::{settle_comb, start_comb, to_bits};
use gpusim::analysis::locality::{overlap, warp_locality, Rect, WarpVector};
use gpusim::blocks::la_tb_dispatch::{pack_rect, unpack_rect};
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

fn rect() -> impl Strategy<Value = Option<Rect>> {
    // Near starts (they overlap) and far ones, the full 24/16-bit ranges, all widths.
    let start = |bits: u32| {
        prop_oneof![
            0u32..40,
            0u32..(1 << bits),
            (1u32 << bits) - 300..(1u32 << bits)
        ]
    };
    proptest::option::weighted(
        0.9,
        (start(24), start(16), 1u8..=255, 1u8..=255).prop_map(|(sx, sy, w, h)| Rect {
            sx,
            sy,
            w,
            h,
        }),
    )
}

/// The golden lines of two packed rectangles.
fn lines(a: Option<Rect>, b: Option<Rect>) -> u32 {
    match (a, b) {
        (Some(a), Some(b)) => overlap(&a, &b),
        _ => 0,
    }
}

/// The first pair on which `RectOverlap` differs from `golden`.
fn overlap_mismatch(
    pairs: &[(Option<Rect>, Option<Rect>)],
    golden: impl Fn(Option<Rect>, Option<Rect>) -> u32,
) -> Option<(Option<Rect>, Option<Rect>, u32, u32)> {
    let mut uut = RectOverlap::default();
    start_comb(&mut uut);
    for &(a, b) in pairs {
        uut.a.next = pack_rect(a).to_bits();
        uut.b.next = pack_rect(b).to_bits();
        settle_comb(&mut uut);
        let rtl = uut.lines.val().to_u64() as u32;
        if rtl != golden(a, b) {
            return Some((a, b, golden(a, b), rtl));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn rect_overlap_matches_golden(pairs in proptest::collection::vec((rect(), rect()), 1..40)) {
        prop_assert_eq!(overlap_mismatch(&pairs, lines), None);
        for (a, _) in &pairs {
            prop_assert_eq!(unpack_rect(pack_rect(*a)), *a);
        }
    }
}

/// Directed edges: touching ranges share nothing, containment, the 24-bit top, and a golden
/// with the thesis's equal-size formula applied to unequal sizes (a planted bug) is caught.
#[test]
fn rect_overlap_edges_and_a_planted_bug() {
    let r = |sx, sy, w, h| Some(Rect { sx, sy, w, h });
    let cases = [
        (r(0, 0, 4, 1), r(4, 0, 4, 1)),
        (r(10, 10, 20, 20), r(12, 15, 3, 2)),
        (r((1 << 24) - 5, 0, 255, 1), r((1 << 24) - 1, 0, 255, 1)),
        (r(0, (1 << 16) - 1, 1, 255), r(0, (1 << 16) - 2, 1, 2)),
        (r(0, 0, 255, 255), r(254, 254, 255, 255)),
        (r(0, 0, 255, 255), None),
    ];
    assert_eq!(overlap_mismatch(&cases, lines), None);
    // The thesis's (w - dx) * (h - dy) with a's sizes, wrong for unequal sizes.
    let equal_sizes = |a: Option<Rect>, b: Option<Rect>| match (a, b) {
        (Some(a), Some(b)) => {
            let (dx, dy) = (a.sx.abs_diff(b.sx), a.sy.abs_diff(b.sy));
            (a.w as u32).saturating_sub(dx) * (a.h as u32).saturating_sub(dy)
        }
        _ => 0,
    };
    assert!(overlap_mismatch(&cases, equal_sizes).is_some());
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

/// Both units emit Verilog (Verilator `-Wall`, Yosys and the depth bound check it in gen's
/// lint gate, `every_primitive_is_lint_and_synth_clean`).
#[test]
fn verilog_is_emitted() {
    for (name, v) in samples() {
        assert!(v.unwrap().contains(&format!("module {name}")));
    }
}
