//! The spec's properties of the transform, the overlap and the warp locality (§1.3), its
//! worked example (P-LT5), and the pre-computation on suite kernels, a gather, bad geometry and
//! a real trace.

use super::*;
use crate::workload::synth::ir::{Addr, Expr, Program, Space, SynthDef, Var};
use crate::workload::synth::{self, SynthKernel};
use crate::workload::Dim3;
use proptest::prelude::*;

fn rect() -> impl Strategy<Value = Rect> {
    (0u32..300, 0u32..300, 1u8..=255, 1u8..=255).prop_map(|(sx, sy, w, h)| Rect { sx, sy, w, h })
}

proptest! {
    /// P-OV1, P-OV2, P-OV4.
    #[test]
    fn overlap_is_symmetric_bounded_and_translation_invariant(
        a in rect(), b in rect(), dx in 0u32..1000, dy in 0u32..1000
    ) {
        prop_assert_eq!(overlap(&a, &b), overlap(&b, &a));
        prop_assert_eq!(overlap(&a, &a), a.w as u32 * a.h as u32);
        let area = |r: &Rect| r.w as u32 * r.h as u32;
        prop_assert!(overlap(&a, &b) <= area(&a).min(area(&b)));
        let shift = |r: &Rect| Rect { sx: r.sx + dx, sy: r.sy + dy, ..*r };
        prop_assert_eq!(overlap(&shift(&a), &shift(&b)), overlap(&a, &b));
    }

    /// P-OV3: equal sizes give the thesis's `(w - |dx|) * (h - |dy|)`, 0 when apart.
    #[test]
    fn overlap_of_equal_sizes_is_the_thesis_formula(
        a in rect(), bx in 0u32..300, by in 0u32..300
    ) {
        let b = Rect { sx: bx, sy: by, ..a };
        let (dx, dy) = (a.sx.abs_diff(b.sx), a.sy.abs_diff(b.sy));
        let want = if dx >= a.w as u32 || dy >= a.h as u32 {
            0
        } else {
            (a.w as u32 - dx) * (a.h as u32 - dy)
        };
        prop_assert_eq!(overlap(&a, &b), want);
    }

    /// P-OV5: the pair locality is the sum over arrays both blocks have.
    #[test]
    fn pair_locality_sums_the_arrays_both_have(
        ra in proptest::collection::vec(proptest::option::of(rect()), MAX_ARRAYS),
        rb in proptest::collection::vec(proptest::option::of(rect()), MAX_ARRAYS),
    ) {
        let (mut a, mut b) = (TbFootprint::default(), TbFootprint::default());
        a.rects.copy_from_slice(&ra);
        b.rects.copy_from_slice(&rb);
        let want: u32 = (0..MAX_ARRAYS)
            .filter_map(|k| Some(overlap(ra[k].as_ref()?, rb[k].as_ref()?)))
            .sum();
        prop_assert_eq!(pair_locality(&a, &b), want);
    }

    /// P-LT1, P-LT2, P-LT3.
    #[test]
    fn warp_locality_is_symmetric_and_bounded(
        ra in proptest::collection::vec(proptest::option::of(0u16..4), MAX_ARRAYS),
        rb in proptest::collection::vec(proptest::option::of(0u16..4), MAX_ARRAYS),
        sa in proptest::collection::vec(any::<u16>(), MAX_ARRAYS),
        sb in proptest::collection::vec(any::<u16>(), MAX_ARRAYS),
    ) {
        let mut a = WarpVector::default();
        let mut b = WarpVector::default();
        a.region.copy_from_slice(&ra);
        b.region.copy_from_slice(&rb);
        a.sub.copy_from_slice(&sa);
        b.sub.copy_from_slice(&sb);
        let l = warp_locality(&a, &b);
        prop_assert_eq!(l, warp_locality(&b, &a));
        let mut want = 0;
        for k in 0..MAX_ARRAYS {
            let per = match (ra[k], rb[k]) {
                (Some(x), Some(y)) if x == y => (sa[k] & sb[k]).count_ones(),
                _ => 0,
            };
            prop_assert!(per <= sa[k].count_ones().min(sb[k].count_ones()));
            want += per;
        }
        prop_assert_eq!(l as u32, want);
        prop_assert!(l <= 80);
    }

    /// P-TR1: bytes `128k..128k+127` of a row are line `k`, monotonic in the column.
    #[test]
    fn line_coordinates_floor_columns_to_lines(col in 0u64..4096, row in 0u64..100) {
        let g = ArrayGeom::new(0x1000_0000, 4096, 0x1000_0000 + 100 * 4096, 1, &Params::default());
        let (x, y) = g.line(0x1000_0000 + row * 4096 + col);
        prop_assert_eq!((x as u64, y as u64), (col / 128, row));
        if col > 0 {
            let (xp, _) = g.line(0x1000_0000 + row * 4096 + col - 1);
            prop_assert!(xp <= x);
        }
    }
}

/// P-LT5: the thesis's example (L418-L419; M = 3, N = 4): `001-1011` and `001-0011` share 2,
/// `010-1111` shares nothing with either.
#[test]
fn thesis_warp_locality_example() {
    let w = |region: u16, sub: u16| {
        let mut v = WarpVector::default();
        v.region[0] = Some(region);
        v.sub[0] = sub;
        v
    };
    let (w0, w1, w2) = (w(0b001, 0b1011), w(0b001, 0b0011), w(0b010, 0b1111));
    assert_eq!(warp_locality(&w0, &w1), 2);
    assert_eq!(warp_locality(&w0, &w2), 0);
    assert_eq!(warp_locality(&w1, &w2), 0);
}

/// The thesis's transform example (L345): with 128 B lines, bytes (0,0)..(127,0) are line
/// (0,0) and (128,2)..(255,2) line (1,2).
#[test]
fn thesis_transform_example() {
    let g = ArrayGeom::new(0, 1024, 4096, 1, &Params::default());
    assert_eq!(g.line(0), (0, 0));
    assert_eq!(g.line(127), (0, 0));
    assert_eq!(g.line(2 * 1024 + 128), (1, 2));
    assert_eq!(g.line(2 * 1024 + 255), (1, 2));
}

fn fp(name: &str, mode: RectMode) -> (SynthDef, Footprints) {
    let def = synth::build(name, "small").unwrap();
    let params = Params {
        rect_mode: mode,
        ..Params::default()
    };
    let f = analyze(&SynthKernel::new(def.clone()), &params)
        .unwrap()
        .expect("a synthetic kernel can be visited");
    (def, f)
}

/// Type I (row-major, spec §1.5): block b shares lines with b - 1 and b + 1 only.
#[test]
fn row_pattern_neighbours_overlap_and_others_do_not() {
    for mode in [RectMode::FirstLast, RectMode::BBox] {
        let (def, f) = fp("locality_row", mode);
        assert_eq!(f.tbs.len() as u64, def.grid.volume(), "every block loads");
        // Array 0 is the shared 2-D array, array 1 the private stream.
        assert_eq!(f.arrays[0].pitch, (240 * 3 + 6) * 32 * 4, "{mode:?}");
        for b in 1..20u64 {
            let (a, n, far) = (f.tb(b), f.tb(b + 1), f.tb(b + 3));
            assert!(
                overlap(&a.rects[0].unwrap(), &n.rects[0].unwrap()) > 0,
                "{mode:?} {b}"
            );
            assert_eq!(overlap(&a.rects[0].unwrap(), &far.rects[0].unwrap()), 0);
            if mode == RectMode::FirstLast {
                let private = overlap(&a.rects[1].unwrap(), &n.rects[1].unwrap());
                assert_eq!(private, 0);
            }
        }
        if mode == RectMode::FirstLast {
            assert!(f.notes.is_empty(), "{:?}", f.notes);
        } else {
            // The private stream's outer loop jumps past every block: its boxes saturate.
            assert!(
                matches!(f.notes[..], [Note::Saturated { .. }]),
                "{:?}",
                f.notes
            );
        }
    }
}

/// Type II (column-major): blocks `gridDim.x` apart read the same tile, neighbours do not.
#[test]
fn column_pattern_shares_across_grid_rows() {
    let (def, f) = fp("locality_col", RectMode::FirstLast);
    let gx = def.grid.x as u64;
    for b in 0..gx {
        let (a, down, right) = (f.tb(b), f.tb(b + gx), f.tb(b + 1));
        assert_eq!(a.rects[0], down.rects[0]);
        assert!(pair_locality(&a, &down) > 0);
        if b + 1 < gx {
            assert_eq!(overlap(&a.rects[0].unwrap(), &right.rects[0].unwrap()), 0);
        }
    }
}

/// P-WV1, P-WV2, P-WV3 on dense 2-D and 1-D patterns: regions and masks in range, one region
/// per block and array, and the warps' masks together are the subregions the block's
/// rectangle meets in its region. (Stencils that wrap around the array edge are not dense:
/// their boxes span lines nobody loads.)
#[test]
fn warp_vectors_follow_their_block() {
    for (name, mode) in [
        ("bp", RectMode::BBox),
        ("tran", RectMode::BBox),
        ("walk_rows", RectMode::BBox),
        ("bp", RectMode::FirstLast),
        ("tran", RectMode::FirstLast),
        ("locality_row", RectMode::FirstLast),
        ("hs", RectMode::FirstLast),
    ] {
        let (def, f) = fp(name, mode);
        let params = Params::default();
        for b in 0..def.grid.volume() {
            let tb = f.tb(b);
            for (k, g) in f.arrays.iter().enumerate() {
                let Some(r) = tb.rects[k] else { continue };
                let region = g.region_of(r.sx, r.sy);
                let mut union = 0u16;
                for w in &f.warps[&b] {
                    if let Some(reg) = w.region[k] {
                        assert!((reg as u32) < 1 << params.region_bits);
                        assert_eq!(reg, region, "{name} block {b} array {k}");
                        union |= w.sub[k];
                    }
                }
                assert_eq!(
                    union,
                    g.rect_mask(region, &r),
                    "{name} {mode:?} block {b} array {k}"
                );
            }
        }
    }
}

/// A gather: the rectangles hold few of the lines the blocks load, so the array is not
/// tracked and the notes say why; the affine array beside it is.
#[test]
fn a_gather_is_not_tracked_and_says_why() {
    let mut p = Program::new();
    let hashed = Expr::v(
        1,
        Var::Hash {
            salt: 7,
            range: 1 << 20,
        },
    );
    p.load(
        Space::Global,
        1,
        0,
        Addr {
            base: 0x1000_0000,
            index: hashed,
            elem: 4,
        },
    );
    p.load(
        Space::Global,
        2,
        0,
        Addr {
            base: 0x2000_0000,
            index: Expr::v(1, Var::Gx),
            elem: 4,
        },
    );
    p.exit();
    let def = SynthDef {
        name: "gather".into(),
        grid: Dim3 { x: 16, y: 1, z: 1 },
        block: Dim3 { x: 128, y: 1, z: 1 },
        regs_per_thread: 8,
        shmem_bytes: 0,
        program: p,
        arrays: vec![],
    };
    for mode in [RectMode::FirstLast, RectMode::BBox] {
        let params = Params {
            rect_mode: mode,
            ..Params::default()
        };
        let f = analyze(&SynthKernel::new(def.clone()), &params)
            .unwrap()
            .unwrap();
        assert_eq!(f.arrays.len(), 1, "{mode:?}: only the affine array");
        assert_eq!(f.arrays[0].base, 0x2000_0000);
        assert_eq!(f.arrays[0].coverage, 1.0);
        let text = f
            .notes
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        if mode == RectMode::FirstLast {
            assert!(
                text.contains("0x10000000 is not tracked") && text.contains("gather"),
                "{text}"
            );
        }
        assert!(f
            .tbs
            .iter()
            .all(|(_, t)| t.rects[1..].iter().all(Option::is_none)));
    }
}

fn loads_from(
    bases: &[u64],
    index: Expr,
    grid: u32,
    arrays: Vec<crate::workload::kernel::ArrayDecl>,
) -> SynthDef {
    let mut p = Program::new();
    for (i, &base) in bases.iter().enumerate() {
        p.load(
            Space::Global,
            1 + i as u16,
            0,
            Addr {
                base,
                index: index.clone(),
                elem: 4,
            },
        );
    }
    p.exit();
    SynthDef {
        name: "loads".into(),
        grid: Dim3 {
            x: grid,
            y: 1,
            z: 1,
        },
        block: Dim3 { x: 256, y: 1, z: 1 },
        regs_per_thread: 8,
        shmem_bytes: 0,
        program: p,
        arrays,
    }
}

/// Bad geometry: a 2-D array with more rows than 16-bit coordinates name is not tracked (a
/// note, no panic); more arrays than the five fields keep the five most loaded.
#[test]
fn arrays_beyond_the_fields_are_not_tracked_with_a_note() {
    // One 128-byte row per thread, 70,144 rows.
    let def = loads_from(
        &[0x1000_0000],
        Expr::v(32, Var::Gx),
        274,
        vec![crate::workload::kernel::ArrayDecl {
            base: 0x1000_0000,
            pitch: 128,
        }],
    );
    let f = analyze(&SynthKernel::new(def), &Params::default())
        .unwrap()
        .unwrap();
    assert!(f.arrays.is_empty());
    assert!(
        f.notes[0].to_string().contains("70144 rows exceed"),
        "{:?}",
        f.notes
    );
    assert!(f.tbs.values().all(|t| *t == TbFootprint::default()));
    // Seven arrays: the five most loaded are tracked.
    let bases: Vec<u64> = (1..=7).map(|i| i * 0x1000_0000).collect();
    let f = analyze(
        &SynthKernel::new(loads_from(&bases, Expr::v(1, Var::Gx), 4, vec![])),
        &Params::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(f.arrays.len(), MAX_ARRAYS);
    assert_eq!(f.notes.len(), 2);
    assert!(f
        .notes
        .iter()
        .all(|n| n.to_string().contains("5 most loaded")));
}

/// Saturation: a block spanning more than 255 lines gets width 255, counted in the notes.
#[test]
fn wide_blocks_saturate_at_255_lines() {
    // 256 threads 64 elements (two lines) apart: 511 lines per block.
    let def = loads_from(&[0x1000_0000], Expr::v(64, Var::Gx), 2, vec![]);
    let f = analyze(&SynthKernel::new(def), &Params::default())
        .unwrap()
        .unwrap();
    assert_eq!(f.tb(0).rects[0].unwrap().w, 255);
    assert!(
        f.notes.contains(&Note::Saturated { rects: 2 }),
        "{:?}",
        f.notes
    );
}

/// A real trace: vectoradd's one block of 100 threads loads `a` and `b` (adjacent
/// allocations, one 1-D array to the analysis) at their first load: lines 0..=3 of `a`.
#[test]
fn vectoradd_trace_rectangle_and_warp_vectors() {
    let Some(dir) = crate::testing::shared_trace("vectoradd-100-32") else {
        return;
    };
    let k = crate::workload::kernel::TraceKernel::open(&dir.join("kernel-1.traceg")).unwrap();
    let f = analyze(&k, &Params::default()).unwrap().unwrap();
    assert_eq!(f.arrays.len(), 1, "{:?}", f.arrays);
    let g = &f.arrays[0];
    assert_eq!((g.base, g.pitch, g.coverage), (0x7f2b_2d50_0000, 0, 1.0));
    assert_eq!(
        f.tb(0).rects[0],
        Some(Rect {
            sx: 0,
            sy: 0,
            w: 4,
            h: 1
        })
    );
    assert_eq!(f.warp(0, 0).region[0], Some(0));
    assert_eq!(f.warp(0, 0).sub[0], 1);
    assert!(f.notes.is_empty(), "{:?}", f.notes);
}
