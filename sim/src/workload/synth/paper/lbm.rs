//! Lattice-Boltzmann (Parboil `lbm`, the `cuda` version GPGPU-Sim builds):
//! `performStreamCollide_kernel` on `120_120_150_ldc.of`.
//!
//! The grid is fixed at 120 x 120 x 150 cells, padded to 128 x 120 x 154 (`layout_config.h`),
//! as a structure of arrays: distribution `e` of cell (x, y, z) is float `e * P + x + 128 y +
//! 15,360 z`, P = 2,365,440, after a margin of two z planes. One launch per time step, the two
//! grids swapped between steps (`main.cc`), on 120 x 150 blocks of 120 threads: x is the
//! thread, y and z the block (`lbm.cu`).
//!
//! Each thread loads its cell's 19 distributions and its flag word (20 loads, no loop: the 20
//! program points of the ELF thesis's Table 3.2), and, unless the cell is an obstacle, computes
//! the density, the velocity (three divisions) and the 19 collisions; then it stores the 19
//! values into its neighbours' cells (`SCATTER`: distribution `e` to the cell one step in
//! direction `e`). Obstacles are the domain's faces and the input file's cells; the run log of
//! this input counts 343,321 obstacles, 99,248 of them faces. The file's shape is not known
//! here: its 244,073 cells are spread over the interior by a hash ([`FILE_OBSTACLES_PER_MILLE`]).
//! An obstacle cell only swaps registers (not modelled). The lid's acceleration is a select,
//! not a branch.

use super::*;

/// Floats per distribution plane (128 x 120 x 154 cells).
const PLANE: i64 = 2_365_440;
/// Floats before cell (0, 0, 0): two padded z planes.
const MARGIN: u64 = 2 * 128 * 120;
/// Row and plane pitches, floats.
const ROW: i64 = 128;
const SLICE: i64 = 128 * 120;
/// Interior cells the input file makes obstacles, per mille (244,073 of 118 x 118 x 148).
pub(super) const FILE_OBSTACLES_PER_MILLE: i64 = 118;

/// Direction `e`'s neighbour step (dx, dy, dz), in `lbm.h`'s order C N S E W T B NE NW SE SW
/// NT NB ST SB ET EB WT WB.
pub(super) const DIRECTIONS: [(i64, i64, i64); 19] = [
    (0, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (1, 0, 0),
    (-1, 0, 0),
    (0, 0, 1),
    (0, 0, -1),
    (1, 1, 0),
    (-1, 1, 0),
    (1, -1, 0),
    (-1, -1, 0),
    (0, 1, 1),
    (0, 1, -1),
    (0, -1, 1),
    (0, -1, -1),
    (1, 0, 1),
    (1, 0, -1),
    (-1, 0, 1),
    (-1, 0, -1),
];

/// Float `e * PLANE + cell + offset` of the grid at `base`, the cell the thread's own.
fn element(base: u64, e: i64, offset: i64) -> crate::workload::synth::ir::Addr {
    let cell = Expr::v(1, Var::Tx).plus(ROW, Var::Bx).plus(SLICE, Var::By);
    global(base + 4 * MARGIN, cell.offset(e * PLANE + offset))
}

/// The step that reads grid `src` and writes grid `dst` (array indices).
pub(super) fn stream_collide(src: usize, dst: usize) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    for e in 0..19 {
        p.load(Space::Global, 10 + e as u16, 3, element(ARRAY[src], e, 0));
    }
    p.load(Space::Global, 29, 3, element(ARRAY[src], 19, 0));
    p.alu(IntAlu, &[30], &[29]);
    // The fluid cells: inside the faces, and not one of the file's obstacles.
    let mut ifs = 0;
    for (var, n) in [(Var::Tx, 120), (Var::Bx, 120), (Var::By, 150)] {
        ifs += within(&mut p, v(var), 1, n - 1);
    }
    let file = v(Var::ThreadHash {
        salt: 41,
        range: 1000,
    });
    p.begin_if(lt(c(FILE_OBSTACLES_PER_MILLE - 1), file));
    ifs += 1;
    // Density and velocity: sums of the 19 values, three divisions.
    for e in 0..19u16 {
        p.alu(Fp, &[31], &[31, 10 + e]);
    }
    for r in 32..35u16 {
        for e in 0..9u16 {
            p.alu(Fp, &[r], &[r, 10 + 2 * e]);
        }
        p.alu(Sfu, &[r], &[r, 31]);
    }
    p.alu(Fp, &[35], &[32, 33, 34]).alus(3, Fp, 35, &[35]);
    // The collisions: each value relaxed toward its equilibrium.
    for e in 0..19u16 {
        p.alu(Fp, &[36], &[32, 33, 34]).alu(Fp, &[36], &[36, 35]);
        p.alu(Fp, &[36], &[36, 31])
            .alu(Fp, &[10 + e], &[10 + e, 36]);
    }
    close(&mut p, ifs);
    for (e, (dx, dy, dz)) in DIRECTIONS.iter().enumerate() {
        let offset = dx + ROW * dy + SLICE * dz;
        let at = element(ARRAY[dst], e as i64, offset);
        p.store(Space::Global, 10 + e as u16, 3, at);
    }
    p.exit();
    elf_kernel("lbm_stream_collide", dim(120, 150), dim(120, 1), 36, p)
}

/// Time steps simulated of the input's 100 (Parboil's `short`; GPGPU-Sim's list runs the same
/// grid for 3,000): every step is the same kernel on the two grids swapped, one step of about
/// 18 M warp instructions.
pub(super) const STEPS: usize = 4;

/// [`STEPS`] launches, the grids swapped between them.
pub(super) fn lbm_elf() -> Vec<SynthDef> {
    (0..STEPS)
        .map(|t| stream_collide(t % 2, 1 - t % 2))
        .collect()
}
