//! FDTD3d (CUDA SDK 4.2): `FiniteDifferencesKernel` at the sample's default input.
//!
//! With no arguments the sample takes the largest cube its device memory allows, clamped to
//! 376 x 376 x 376 (`FDTD3d.h` `k_dim_max`; GPGPU-Sim reports 2 GB, which gives more), radius
//! 4 and 5 time steps: one launch per step on (12, 24) blocks of 32 x 16 threads, the two
//! buffers swapped between steps (`FDTD3dGPU.cu`); the first [`STEPS`] run here. Each buffer
//! is the volume with a 4-cell halo on every side, 384 x 384 x 384 floats after a 28-float
//! pad, so point (x, y, z) of the haloed volume is float `28 + x + 384 y + 147,456 z`
//! ([`point`]) and every warp's row starts on a 128-byte line.
//!
//! Each thread owns one (x, y) column and walks it in z (`FDTD3dGPUKernel.cuh`): it preloads
//! the 8 planes around its first point (3 behind, the current, 4 in front), then per plane
//! loads the next plane in front, and between two barriers writes its current value into the
//! block's shared 24 x 40 tile, the first four warps also the rows 4 above and below the
//! block, the first four lanes of every warp the columns 4 left and right; then it reads the
//! 16 neighbours of the tile and the 5 constant coefficients and stores its point. The z loop
//! is `#pragma unroll 9` with a run-time trip count: 41 rounds of 9 planes and a remainder
//! loop of 7. Its loads are the thesis's 60 program points (seed 003 Table 3.2): 8 + 9 x 5 +
//! 5 = 58 loads and the two loops' branches (the remainder loop's entry test keeps the first
//! loop's branch a program point). Unrolling renames the queue's registers, so the
//! model moves none; in the remainder loop the compiler's moves are left out too.

use super::*;

/// The interior's side, points (`k_dim_max`).
pub(super) const DIM: i64 = 376;
/// The stencil's radius, points.
const RADIUS: i64 = 4;
/// The haloed volume's side, points.
const OUTER: i64 = DIM + 2 * RADIUS;
/// Floats before point (0, 0, 0): `128 / 4 - RADIUS`, so that x = 4 starts a line.
const PAD: i64 = 32 - RADIUS;
/// Planes per round of the unrolled z loop (`#pragma unroll 9`).
const UNROLL: i64 = 9;
/// Shared tile row, floats (`tile[16 + 8][32 + 8]`).
const TILE_ROW: i64 = 32 + 2 * RADIUS;
/// The sample's time steps.
const TIME_STEPS: usize = 5;
/// Time steps simulated: the first of [`TIME_STEPS`]. Every step is the same kernel, and each
/// reads the buffer the step before wrote, 226 MB, about 300 times the L2: no step finds the
/// previous step's data in a cache, so the others repeat the first. All five take about 10
/// CPU-minutes per run with GTO on `gtx480`.
pub(super) const STEPS: usize = 1;
const _: () = assert!(STEPS <= TIME_STEPS);

/// Float index of haloed point (`gx + dx`, `gy + dy`, `z`) for the thread's global (gx, gy).
fn point(dx: i64, dy: i64, z: Expr) -> Expr {
    Expr::v(1, Var::Gx)
        .plus(OUTER, Var::Gy)
        .offset(PAD + dx + OUTER * dy)
        .and(z.times(OUTER * OUTER))
}

/// Shared tile element (`Ty + dy`, `Tx + dx`).
fn tile(dy: i64, dx: i64) -> crate::workload::synth::ir::Addr {
    shared(
        Expr::v(TILE_ROW, Var::Ty)
            .plus(1, Var::Tx)
            .offset(TILE_ROW * dy + dx),
    )
}

/// `validr` (`gx < dimx + RADIUS && gy < dimy + RADIUS`) or `validw` (`< dimx`): two `if`s.
fn valid(p: &mut Program, limit: i64) -> usize {
    p.begin_if(lt(v(Var::Gx), c(limit)));
    p.begin_if(lt(v(Var::Gy), c(limit)));
    2
}

/// One plane of the z loop: plane `z` (an expression of the loop counters) is the current
/// one, so the load reads plane `z + 4` in front of it; `next` is the register it loads.
fn plane(p: &mut Program, input: u64, output: u64, z: Expr, next: u16) {
    let ifs = valid(p, DIM + RADIUS);
    p.alu(IntAlu, &[4], &[4]);
    let front = z.clone().offset(2 * RADIUS);
    p.load(
        Space::Global,
        next,
        4,
        global(input, point(RADIUS, RADIUS, front)),
    );
    close(p, ifs);
    let here = z.offset(RADIUS);
    p.alu(IntAlu, &[5], &[5]).barrier();
    // The halo rows above and below the block (warps 0-3), then its columns left and right
    // (lanes 0-3), each staged in the tile; then the thread's own point.
    let halo = [
        (Var::Ty, (0, -RADIUS), (0, 0)),
        (Var::Ty, (0, 16), (20, 0)),
        (Var::Tx, (-RADIUS, 0), (0, -RADIUS)),
        (Var::Tx, (32, 0), (0, 32)),
    ];
    for (k, (var, (dx, dy), (ty, tx))) in halo.into_iter().enumerate() {
        if k % 2 == 0 {
            p.begin_if(lt(v(var), c(RADIUS)));
        }
        let r = 20 + k as u16;
        let at = point(RADIUS + dx, RADIUS + dy, here.clone());
        p.alu(IntAlu, &[6], &[5]);
        p.load(Space::Global, r, 6, global(input, at));
        let (sy, sx) = match var {
            Var::Ty => (ty, tx + RADIUS),
            _ => (ty + RADIUS, tx + RADIUS),
        };
        p.store(Space::Shared, r, 3, tile(sy, sx));
        if k % 2 == 1 {
            p.end_if();
        }
    }
    p.store(Space::Shared, 18, 3, tile(RADIUS, RADIUS));
    p.barrier();
    // value = stencil[0] * current + sum over i of stencil[i] * (the six neighbours at i).
    p.load(Space::Const, 30, 3, constant(c(0)));
    p.alu(Fp, &[19], &[18, 30]);
    for i in 1..=RADIUS {
        for (k, (dy, dx)) in [(-i, 0), (i, 0), (0, -i), (0, i)].into_iter().enumerate() {
            p.load(
                Space::Shared,
                24 + k as u16,
                3,
                tile(RADIUS + dy, RADIUS + dx),
            );
        }
        p.load(Space::Const, 30, 3, constant(c(i)));
        p.alu(Fp, &[29], &[10, 14]).alu(Fp, &[29], &[29, 24]);
        p.alu(Fp, &[29], &[29, 25]).alu(Fp, &[29], &[29, 26]);
        p.alu(Fp, &[29], &[29, 27]).alu(Fp, &[19], &[19, 29, 30]);
    }
    let ifs = valid(p, DIM);
    p.store(
        Space::Global,
        19,
        5,
        global(output, point(RADIUS, RADIUS, here)),
    );
    close(p, ifs);
}

/// One time step: reads buffer `input`, writes buffer `output` (array indices).
pub(super) fn finite_differences(input: usize, output: usize) -> SynthDef {
    let (input, output) = (ARRAY[input], ARRAY[output]);
    let mut p = Program::new();
    prologue(&mut p);
    // The 8 planes around the first point: behind[2..0], current, infront[0..3].
    let ifs = valid(&mut p, DIM + RADIUS);
    for z in 0..2 * RADIUS {
        p.alu(IntAlu, &[4], &[4]);
        let at = global(input, point(RADIUS, RADIUS, c(z)));
        p.load(Space::Global, 10 + z as u16, 4, at);
    }
    close(&mut p, ifs);
    let rounds = DIM / UNROLL;
    p.begin_loop(0);
    for j in 0..UNROLL {
        let z = Expr::v(UNROLL, Var::Loop(0)).offset(j);
        plane(&mut p, input, output, z, 10 + (j % 8) as u16);
    }
    p.end_loop(c(rounds));
    // The remainder loop, entered when the trip count leaves planes over (the test is the
    // compiled code's; it puts the first loop's fall-through farther from a load than its
    // taken path, so that branch stays a program point).
    p.alu(IntAlu, &[7], &[7]);
    p.begin_if(lt(c(0), c(DIM % UNROLL)));
    p.begin_loop(1);
    let z = Expr::v(1, Var::Loop(1)).offset(UNROLL * rounds);
    plane(&mut p, input, output, z, 17);
    p.end_loop(c(DIM % UNROLL));
    p.end_if();
    p.exit();
    let smem = (16 + 2 * RADIUS) * TILE_ROW * 4;
    let grid = dim((DIM as u32).div_ceil(32), (DIM as u32).div_ceil(16));
    // 28 registers: nvcc's count is not known here; any of 22 to 32 leaves 2 blocks of 512
    // threads per Fermi SM.
    let name = format!("fdtd3d_finite_differences_{ELF_SIZE}");
    named(name, grid, dim(32, 16), 28, smem as u32, p)
}

/// [`STEPS`] launches, the buffers swapped between them.
pub(super) fn fdtd3d_elf() -> Vec<SynthDef> {
    (0..STEPS)
        .map(|t| finite_differences(t % 2, 1 - t % 2))
        .collect()
}
