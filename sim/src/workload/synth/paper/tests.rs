//! Each paper workload against Table 4.2 and its benchmark's code.

use super::*;
use super::{
    convolution::*, gaussian::*, histogram::*, hotspot::*, lud::*, nw::*, srad::*, transpose::*,
};
use crate::workload::sass::OpClass;
use crate::workload::synth::interp::run_block;
use std::collections::BTreeMap;

#[test]
fn every_paper_size_has_its_declared_launches_and_blocks() {
    for size in SIZES {
        for e in size.entries {
            let defs = (e.build)();
            let what = format!("{} at {}", e.name, size.name);
            assert_eq!(defs.len(), e.kernels, "{what}");
            let blocks: u64 = defs.iter().map(|d| d.grid.volume()).sum();
            assert_eq!(blocks, e.blocks, "{what}");
            let suffix = format!("_{}", size.name);
            assert!(defs.iter().all(|d| d.name.ends_with(&suffix)), "{what}");
        }
    }
}

/// Every global access of `class` of `d`'s blocks as (array index, element of 4 bytes).
fn accesses(d: &SynthDef, class: OpClass) -> Vec<(usize, i64)> {
    let mut v = vec![];
    for b in 0..d.grid.x * d.grid.y {
        let insts = run_block(d, b).unwrap();
        for w in &insts.warps {
            for i in w.iter().filter(|i| i.class == class) {
                for a in insts.addrs(i).iter() {
                    let k = (a / ARRAY[0]) as usize - 1;
                    v.push((k, (a - ARRAY[k]) as i64 / 4));
                }
            }
        }
    }
    v
}

fn stores(d: &SynthDef) -> Vec<(usize, i64)> {
    accesses(d, OpClass::StoreGlobal)
}

/// The elements `(row, col)` of an `n`-column array among `stores` into array `k`,
/// sorted; panics on an element stored twice.
fn cells(stores: &[(usize, i64)], k: usize, n: i64) -> Vec<(i64, i64)> {
    let mut v: Vec<(i64, i64)> = stores
        .iter()
        .filter(|s| s.0 == k)
        .map(|s| (s.1 / n, s.1 % n))
        .collect();
    v.sort_unstable();
    let len = v.len();
    v.dedup();
    assert_eq!(v.len(), len, "an element stored twice");
    v
}

/// At `paper` (256 tiles) and `elf` (128 tiles).
#[test]
fn nw_scores_every_cell_once_in_anti_diagonal_order() {
    for (tiles, defs) in [(NW_TILES, nw()), (128, nw_elf())] {
        let cols = 16 * tiles + 1;
        let mut all = vec![];
        for (k, d) in defs.iter().enumerate() {
            let cells = cells(&stores(d), 0, cols);
            // Launch k works on tile anti-diagonal k (tile row + tile column = k).
            assert!(cells
                .iter()
                .all(|&(r, c)| (r - 1) / 16 + (c - 1) / 16 == k as i64));
            all.extend(cells);
        }
        all.sort_unstable();
        let len = all.len();
        all.dedup();
        let side = 16 * tiles as usize;
        assert_eq!((all.len(), len), (side * side, side * side));
        assert!(all.iter().all(|&(r, c)| r >= 1 && c >= 1));
    }
}

#[test]
fn lud_updates_each_steps_trailing_matrix_once() {
    for (n, step) in [(LUD_N, 0i64), (LUD_N, 40), (LUD_N, 73), (256, 0), (256, 14)] {
        let off = 16 * step;
        let m = (n / 16 - 1 - step) as u32;
        let inner = cells(&stores(&lud_internal(n, off, m)), 0, n);
        let want: Vec<(i64, i64)> = (off + 16..n)
            .flat_map(|r| (off + 16..n).map(move |c| (r, c)))
            .collect();
        assert_eq!(inner, want, "lud_internal of {n} at step {step}");
        // The perimeter: rows off+1..off+16 right of the diagonal tile, and the columns
        // below it.
        let peri = cells(&stores(&lud_perimeter(n, off, m)), 0, n);
        let right = (off + 1..off + 16).flat_map(|r| (off + 16..n).map(move |c| (r, c)));
        let below = (off + 16..n).flat_map(|r| (off..off + 16).map(move |c| (r, c)));
        let mut want: Vec<(i64, i64)> = right.chain(below).collect();
        want.sort_unstable();
        assert_eq!(peri, want, "lud_perimeter of {n} at step {step}");
    }
}

#[test]
fn gaussian_updates_the_rows_below_each_pivot() {
    let n = GAUSS_N;
    for t in [0i64, 255, 510] {
        let s = stores(&fan2(t));
        let a = cells(&s, 0, n);
        let want: Vec<(i64, i64)> = (t + 1..n)
            .flat_map(|r| (t..n).map(move |c| (r, c)))
            .collect();
        assert_eq!(a, want, "Fan2 at step {t}");
        let b = cells(&s, 2, n);
        assert_eq!(b, (t + 1..n).map(|r| (0, r)).collect::<Vec<_>>());
        let m = cells(&stores(&fan1(t)), 1, n);
        assert_eq!(m, (t + 1..n).map(|r| (r, t)).collect::<Vec<_>>());
    }
}

#[test]
fn hotspot_stores_each_point_of_the_grid_once() {
    let a = cells(&stores(&hotspot(1024, 2)), 2, 1024);
    assert_eq!(a.len(), 1024 * 1024);
    assert_eq!((a[0], a[a.len() - 1]), ((0, 0), (1023, 1023)));
}

#[test]
fn convolution_writes_every_pixel_once_per_direction() {
    let n = CONV_N;
    let all: Vec<(i64, i64)> = (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
    assert_eq!(cells(&stores(&convolution(true)), 1, n), all);
    assert_eq!(cells(&stores(&convolution(false)), 2, n), all);
    // Each direction reads its halo inside the image only: every pixel, some twice.
    for (rows, k) in [(true, 0), (false, 1)] {
        let reads = accesses(&convolution(rows), OpClass::LoadGlobal);
        let inside = reads
            .iter()
            .filter(|a| a.0 == k && (0..n * n).contains(&a.1));
        assert_eq!(inside.count(), reads.len());
        assert!(reads.len() as i64 > n * n);
    }
}

#[test]
fn every_transpose_kernel_writes_each_element_once_where_the_sample_does() {
    use Transpose::*;
    let n = TRAN_N;
    for kind in Transpose::ALL {
        let d = transpose(kind);
        assert_eq!(cells(&stores(&d), 1, n).len(), (n * n) as usize);
        // Block 1 (bx 1, by 0) reads tile (0, 1) (Diagonal: tile (1, 1)); it writes the
        // same tile when copying and tile (1, 0) (Diagonal (1, 1)) when transposing.
        let mut one = d.clone();
        one.grid = dim(2, 1);
        let tile = |cells: Vec<(i64, i64)>| {
            let mut t: Vec<(i64, i64)> = cells.iter().map(|&(r, c)| (r / 32, c / 32)).collect();
            t.dedup();
            t
        };
        let read = tile(cells(&accesses(&one, OpClass::LoadGlobal), 0, n));
        let wrote = tile(cells(&stores(&one), 1, n));
        let (r, w) = match kind {
            Copy | CopySharedMem | FineGrained => ((0, 1), (0, 1)),
            Diagonal => ((1, 1), (1, 1)),
            _ => ((0, 1), (1, 0)),
        };
        assert_eq!((read.last(), wrote.last()), (Some(&r), Some(&w)));
    }
}

#[test]
fn histograms_read_every_word_once_and_merge_every_bin() {
    let words = |d: &SynthDef, elem: i64| {
        let mut w: Vec<i64> = accesses(d, OpClass::LoadGlobal)
            .into_iter()
            .filter(|a| a.0 == 0)
            .map(|a| a.1 / elem)
            .collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let h256 = words(&histogram256(), 1);
    assert_eq!(h256, (0..HIS_BYTES / 4).collect::<Vec<_>>());
    assert_eq!(histogram64().grid.x as i64 * 64 * 240, 67_123_200);
    for (d, bins) in [
        (merge_histogram(64, HIS64_BLOCKS, ARRAY[1], ARRAY[3]), 64),
        (merge_histogram(256, 240, ARRAY[2], ARRAY[4]), 256),
    ] {
        let k = if bins == 64 { 3 } else { 4 };
        assert_eq!(
            cells(&stores(&d), k, bins),
            (0..bins).map(|b| (0, b)).collect::<Vec<_>>()
        );
    }
}

/// Barriers warp 0 of block `b` of `d` passes.
fn barriers(d: &SynthDef, b: u32) -> usize {
    let insts = run_block(d, b).unwrap();
    insts.warps[0]
        .iter()
        .filter(|i| i.class == OpClass::Barrier)
        .count()
}

#[test]
fn launch_orders_and_barriers_follow_the_sources() {
    let names: Vec<String> = his().into_iter().map(|d| d.name).collect();
    let want = [
        "64", "merge64", "64", "merge64", "256", "merge256", "256", "merge256",
    ];
    let want: Vec<String> = want
        .iter()
        .map(|w| match w.starts_with("merge") {
            true => format!("his_{w}_paper"),
            false => format!("his_histogram{w}_paper"),
        })
        .collect();
    assert_eq!(names, want);
    // hotspot: the load barrier, a barrier after each step and after each copy back but
    // the last; lud_diagonal: the load barrier and two per step; the perimeter: after the
    // loads and after the solves (lud_kernel.cu: the version GPGPU-Sim runs).
    assert_eq!(barriers(&hotspot(1024, 2), 100), 1 + 2 + 1);
    assert_eq!(barriers(&lud_diagonal(LUD_N, 0), 0), 1 + 2 * 15);
    assert_eq!(barriers(&lud_perimeter(LUD_N, 0, 3), 1), 2);
    // srad_cuda_1's blocks on the image's first row also load the edge row for `north`.
    let d = srad_1();
    let row0 = |b| {
        let insts = run_block(&d, b).unwrap();
        let loads = insts.warps[0].iter();
        loads.filter(|i| i.class == OpClass::LoadGlobal).count()
    };
    assert_eq!(row0(5), row0(128 + 5) + 1);
}

#[test]
fn every_paper_kernel_runs_its_first_and_last_block() {
    for e in PAPER {
        for d in (e.build)() {
            let last = d.grid.x * d.grid.y - 1;
            for b in [0, last / 2, last] {
                let insts = run_block(&d, b).unwrap();
                assert!(insts.warp_instructions() > 0, "{} block {b}", d.name);
            }
        }
    }
}

/// Program points before merging (loads that count and backward branches), as ELF's compiler
/// finds them.
fn program_points(d: &SynthDef) -> usize {
    use crate::analysis::elf::{code_of, compile, Params};
    use crate::workload::static_code::KernelCode;
    let c = compile(
        &code_of(&KernelCode::of_program(&d.program)),
        &Params::default(),
    );
    c.table.len() + c.merges
}

#[test]
fn bfs_and_kmeans_have_the_elf_theses_program_points() {
    // Seed 003 Table 3.2: BFS Kernel 9, Kernel2 1; KM invert_mapping 2, kmeansPoint 3.
    assert_eq!(program_points(&bfs::expand(3)), 9);
    assert_eq!(program_points(&bfs::settle(3)), 1);
    assert_eq!(program_points(&kmeans::invert_mapping()), 2);
    assert_eq!(program_points(&kmeans::kmeans_point()), 3);
}

/// Elements of array `k` stored by `d`, with their byte offsets, sorted and deduplicated.
fn stored_bytes(d: &SynthDef, k: usize) -> Vec<u64> {
    let mut v = vec![];
    for b in 0..d.grid.volume() as u32 {
        let insts = run_block(d, b).unwrap();
        for w in &insts.warps {
            for i in w.iter().filter(|i| i.class == OpClass::StoreGlobal) {
                v.extend(
                    insts
                        .addrs(i)
                        .iter()
                        .filter(|&a| a / ARRAY[0] == k as u64 + 1),
                );
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn bfs_expands_each_level_with_its_nodes_and_settles_the_next() {
    use bfs::{expand, settle, LEVELS, NODES};
    // Kernel clears the mask of the level's nodes; Kernel2 of the level before sets the same.
    for level in [1, 5, 8] {
        let expanded = stored_bytes(&expand(level), 2);
        assert_eq!(
            expanded,
            stored_bytes(&settle(level - 1), 2),
            "level {level}"
        );
        let (want, got) = (LEVELS[level] as f64, expanded.len() as f64);
        // The level's nodes are drawn by a hash: within five standard deviations.
        let sd = (want * (1.0 - want / NODES as f64)).sqrt();
        assert!(
            (got - want).abs() <= 5.0 * sd + 2.0,
            "level {level}: {got} nodes"
        );
        assert!(expanded.iter().all(|&a| a - ARRAY[2] < NODES as u64));
    }
    // The last level finds nothing new: no cost stored, no node settled.
    assert!(stored_bytes(&expand(LEVELS.len() - 1), 5).is_empty());
    assert!(stored_bytes(&settle(LEVELS.len() - 1), 2).is_empty());
    assert_eq!(bfs::unvisited_per_million(0), 999_999);
    assert_eq!(bfs::unvisited_per_million(LEVELS.len() - 1), 0);
}

#[test]
fn kmeans_inverts_every_feature_once_and_classifies_every_point() {
    use kmeans::{invert_mapping, kmeans_point, POINTS, SIDE};
    let inverted = stored_bytes(&invert_mapping(), 1);
    assert_eq!(inverted.len() as i64, 34 * POINTS);
    assert_eq!(
        *inverted.last().unwrap() - ARRAY[1],
        4 * (34 * POINTS as u64 - 1)
    );
    let point = kmeans_point();
    assert_eq!((point.grid.x, point.grid.y), (SIDE, SIDE));
    // The last live block reads the features of its 196 points, 5 times each.
    let insts = run_block(&point, 1929).unwrap();
    let loads: Vec<u64> = insts
        .warps
        .iter()
        .flatten()
        .filter(|i| i.class == OpClass::LoadGlobal)
        .flat_map(|i| insts.addrs(i).to_vec())
        .collect();
    assert_eq!(loads.len(), 196 * 34 * 5);
    assert!(loads.iter().all(|&a| inverted.binary_search(&a).is_ok()));
    // Blocks past the points only run their guards.
    assert!(run_block(&point, 1935)
        .unwrap()
        .warps
        .iter()
        .flatten()
        .all(|i| i.width == 0));
}

#[test]
fn lbm_streams_each_distribution_to_its_neighbour_with_the_theses_program_points() {
    use lbm::{stream_collide, DIRECTIONS};
    let d = stream_collide(0, 1);
    assert_eq!(program_points(&d), 20);
    // Block (y, z) = (5, 7): thread x loads element e of its cell from grid 0 and stores it
    // to the neighbour cell one step in direction e of grid 1.
    let insts = run_block(&d, 7 * 120 + 5).unwrap();
    let of = |class: OpClass| -> Vec<Vec<u64>> {
        let w = &insts.warps[0];
        w.iter()
            .filter(|i| i.class == class)
            .map(|i| insts.addrs(i).to_vec())
            .collect()
    };
    let (loads, stores) = (of(OpClass::LoadGlobal), of(OpClass::StoreGlobal));
    assert_eq!((loads.len(), stores.len()), (20, 19));
    let cell = |a: u64, base: u64| (a - base) as i64 / 4;
    for (e, (dx, dy, dz)) in DIRECTIONS.iter().enumerate() {
        for lane in [0, 31] {
            let from = cell(loads[e][lane], ARRAY[0]);
            let to = cell(stores[e][lane], ARRAY[1]);
            assert_eq!(to - from, dx + 128 * dy + 128 * 120 * dz, "direction {e}");
        }
    }
    // Distribution planes 2,365,440 floats apart, the flag last.
    assert_eq!(loads[19][0] - loads[18][0], 4 * 2_365_440);
}

/// The float indices (in array `k`) of the global accesses of `class` by `d`'s block `b`,
/// with how many times each is accessed.
fn touched(d: &SynthDef, b: u32, class: OpClass, k: usize) -> BTreeMap<i64, usize> {
    let insts = run_block(d, b).unwrap();
    let mut out = BTreeMap::new();
    for i in insts.warps.iter().flatten().filter(|i| i.class == class) {
        for a in insts
            .addrs(i)
            .iter()
            .filter(|&a| a / ARRAY[0] == k as u64 + 1)
        {
            *out.entry((a - ARRAY[k]) as i64 / 4).or_insert(0) += 1;
        }
    }
    out
}

#[test]
fn fdtd3d_writes_each_point_once_and_reads_each_plane_of_its_column_once() {
    use fdtd3d::{finite_differences, DIM};
    let d = finite_differences(0, 1);
    assert_eq!(program_points(&d), 60);
    let point = |x: i64, y: i64, z: i64| 28 + x + 384 * y + 384 * 384 * z;
    // The first block and the last (block (11, 23): x 352..375, y 368..375 inside the volume).
    for (b, xs, ys) in [(0, 0..32, 0..16), (287, 352..DIM, 368..DIM)] {
        let stored = touched(&d, b, OpClass::StoreGlobal, 1);
        let mut want = BTreeMap::new();
        for z in 0..DIM {
            for y in ys.clone() {
                for x in xs.clone() {
                    want.insert(point(x + 4, y + 4, z + 4), 1);
                }
            }
        }
        assert_eq!(stored, want, "block {b}");
    }
    // Block 0 reads its points' columns in every plane of the haloed volume once (8 planes
    // before the loop, one per plane in it), and, in the planes it writes, the 4 rows above
    // and below it and the 4 columns left and right of it once.
    let column = |x: i64, y: i64| (4..36).contains(&x) && (4..20).contains(&y);
    let halo = |x: i64, y: i64| {
        let (in_x, in_y) = ((4..36).contains(&x), (4..20).contains(&y));
        let (above_below, left_right) = (
            (0..4).contains(&y) || (20..24).contains(&y),
            (0..4).contains(&x) || (36..40).contains(&x),
        );
        in_x && above_below || in_y && left_right
    };
    let mut want = BTreeMap::new();
    for z in 0..DIM + 8 {
        for y in 0..24 {
            for x in 0..40 {
                if column(x, y) || halo(x, y) && (4..DIM + 4).contains(&z) {
                    want.insert(point(x, y, z), 1);
                }
            }
        }
    }
    assert_eq!(touched(&d, 0, OpClass::LoadGlobal, 0), want);
}
