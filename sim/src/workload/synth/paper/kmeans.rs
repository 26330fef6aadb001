//! K-means (Rodinia 3.1 `kmeans`, CUDA; the same kernels in 2.0): `invert_mapping` and
//! `kmeansPoint` on `kdd_cup` (494,020 points of 34 features, 5 clusters: the run script's
//! `kmeans -o -i kdd_cup`).
//!
//! The host code (`kmeans_cuda.cu`) launches `invert_mapping` once, on ceil(494,020 / 256) =
//! 1,930 blocks rounded up to a square, 44^2 = 1,936, of 256 threads, then `kmeansPoint` on a
//! 44 x 44 grid once per iteration until no point changes cluster ([`ITERATIONS`]; the first
//! [`SIMULATED`] here).
//!
//! * `invert_mapping`: each point's 34 features, read at its row of the point-major array (a
//!   136-byte stride across the warp) and written at their feature-major places (coalesced).
//! * `kmeansPoint`: for each of the 5 clusters and 34 features, a texture fetch of the
//!   feature-major array (coalesced) and a constant load of the centre (one address per warp),
//!   a subtract and a multiply-add; the distance's compare after each cluster; then the
//!   membership store. The texture fetches are global loads here: the model has no texture
//!   cache (Fermi's is 12 kB per SM beside the 16 kB L1D).
//!
//! Program points (ELF thesis Table 3.2): `invert_mapping` 2 (its load and its loop's
//! branch), `kmeansPoint` 3 (the fetch and the two loops; constant loads do not count).

use super::*;

/// Points of `kdd_cup`.
pub(super) const POINTS: i64 = 494_020;
/// Features per point.
const FEATURES: i64 = 34;
/// Clusters (the run's default, minimum = maximum = 5).
const CLUSTERS: i64 = 5;
/// The iterations until no point changes cluster, from the centres the code starts with
/// (points 0 to 4). Not from a simulator's log: a re-execution of the algorithm (its float
/// arithmetic, ties and stopping test) on `kdd_cup` gives 37, with or without fused
/// multiply-adds.
const ITERATIONS: usize = 37;
/// `kmeansPoint` launches simulated: the first [`SIMULATED`] of the [`ITERATIONS`]. Every
/// iteration is the same kernel on the same addresses (only the centres' values change), and
/// each streams the 67 MB feature array five times, about 3.6 M cycles on `gtx480`: the 37
/// would take more than an hour per run here. `invert_mapping` and two iterations (1.3 billion
/// thread instructions) cover the first billion, where the thesis's other chapters stop a
/// benchmark (seed 003 L953, L1256); `invert_mapping` is then more than half of the cycles
/// (about 7% of the whole run's).
const SIMULATED: usize = 2;
const _: () = assert!(SIMULATED < ITERATIONS);
/// Blocks per grid side: the blocks the points need, rounded up to a square.
pub(super) const SIDE: u32 = 44;

const FEATURES_POINT_MAJOR: u64 = ARRAY[0]; // feature_flipped_d[point][feature]
const FEATURES_FEATURE_MAJOR: u64 = ARRAY[1]; // feature_d[feature][point], t_features
const MEMBERSHIP: u64 = ARRAY[2]; // membership_d

/// `point_id < npoints` (one `if`).
fn live(p: &mut Program, point: Expr) {
    p.begin_if(lt(point, c(POINTS)));
}

/// `invert_mapping<<<1936, 256>>>`.
pub(super) fn invert_mapping() -> SynthDef {
    let point = || v(Var::Gx);
    let mut p = Program::new();
    prologue(&mut p);
    live(&mut p, point());
    p.begin_loop(0);
    let from = Expr::v(FEATURES, Var::Gx).plus(1, Var::Loop(0));
    p.alu(IntAlu, &[10], &[3]);
    p.load(Space::Global, 11, 10, global(FEATURES_POINT_MAJOR, from));
    let to = point().plus(POINTS, Var::Loop(0));
    p.alu(IntAlu, &[12], &[3]);
    p.store(Space::Global, 11, 12, global(FEATURES_FEATURE_MAJOR, to));
    p.end_loop(c(FEATURES));
    p.end_if();
    p.exit();
    elf_kernel("km_invert_mapping", dim(SIDE * SIDE, 1), dim(256, 1), 16, p)
}

/// `kmeansPoint<<<(44, 44), 256>>>`.
pub(super) fn kmeans_point() -> SynthDef {
    // point_id = (gridDim.x * blockIdx.y + blockIdx.x) * 256 + threadIdx.x.
    let point = || Expr::v(256, Var::Block).plus(1, Var::Tx);
    let mut p = Program::new();
    prologue(&mut p);
    live(&mut p, point());
    p.begin_loop(0); // clusters
    p.alu(Fp, &[13], &[]);
    p.begin_loop(1); // features
    let at = point().plus(POINTS, Var::Loop(1));
    p.alu(IntAlu, &[10], &[3]);
    p.load(Space::Global, 11, 10, global(FEATURES_FEATURE_MAJOR, at));
    let centre = constant(Expr::v(FEATURES, Var::Loop(0)).plus(1, Var::Loop(1)));
    p.load(Space::Const, 12, 10, centre);
    p.alu(Fp, &[14], &[11, 12]).alu(Fp, &[13], &[13, 14, 14]);
    p.end_loop(c(FEATURES));
    p.alu(Fp, &[15], &[13, 16]).alu(IntAlu, &[16], &[15, 13]);
    p.end_loop(c(CLUSTERS));
    p.end_if();
    live(&mut p, point());
    p.store(Space::Global, 16, 3, global(MEMBERSHIP, point()));
    p.end_if();
    p.exit();
    elf_kernel("km_kmeans_point", dim(SIDE, SIDE), dim(256, 1), 16, p)
}

/// The launches: `invert_mapping`, then `kmeansPoint` per simulated iteration.
pub(super) fn km_elf() -> Vec<SynthDef> {
    std::iter::once(invert_mapping())
        .chain(std::iter::repeat_n(kmeans_point(), SIMULATED))
        .collect()
}
