//! SRAD v2 (Rodinia): `srad_cuda_1`, `srad_cuda_2`.

use super::*;

/// SRAD's image: 2048 x 2048 (128 x 128 blocks of 16 x 16).
pub(super) const SRAD_N: i64 = 2048;

/// Element (16 by + `dy`, 16 bx + `dx`) of a row-major SRAD array: `dy`, `dx` are
/// `threadIdx` for the block's own tile, constants for a halo row or column.
pub(super) fn srad_at(dy: Expr, dx: Expr) -> Expr {
    let n = SRAD_N;
    Expr::v(16 * n, Var::By)
        .plus(16, Var::Bx)
        .and(dy.times(n))
        .and(dx)
}

/// A halo of a block's 16 x 16 tile: the row above or below it, the column left or right.
#[derive(Clone, Copy)]
pub(super) enum Side {
    North,
    South,
    West,
    East,
}

/// Loads `side`'s halo of array `base` into shared tile `tile` (256 floats each), then, in the
/// blocks on that border of the image, the border's own row or column over it (the kernels
/// load both).
pub(super) fn srad_halo(p: &mut Program, base: u64, side: Side, tile: i64) {
    let last = SRAD_N / 16 - 1;
    let (at, b, border, instead) = match side {
        Side::North => (
            srad_at(c(-1), v(Var::Tx)),
            Var::By,
            0,
            srad_at(c(0), v(Var::Tx)),
        ),
        Side::South => (
            srad_at(c(16), v(Var::Tx)),
            Var::By,
            last,
            srad_at(c(15), v(Var::Tx)),
        ),
        Side::West => (
            srad_at(v(Var::Ty), c(-1)),
            Var::Bx,
            0,
            srad_at(v(Var::Ty), c(0)),
        ),
        Side::East => (
            srad_at(v(Var::Ty), c(16)),
            Var::Bx,
            last,
            srad_at(v(Var::Ty), c(15)),
        ),
    };
    let tile = shared(v(Var::Thread).offset(256 * tile));
    p.load(Space::Global, 11, 3, global(base, at));
    p.store(Space::Shared, 11, 3, tile.clone());
    p.begin_if(eq(v(b), c(border)));
    p.load(Space::Global, 11, 3, global(base, instead));
    p.store(Space::Shared, 11, 3, tile);
    p.end_if();
}

/// `srad_cuda_1`: the row above and below the block's tile of J (a barrier), the columns left
/// and right of it (a barrier), the tile (a barrier), the four directional derivatives and the
/// diffusion coefficient through shared memory (a barrier), stored to five arrays.
pub(super) fn srad_1() -> SynthDef {
    let j = ARRAY[0];
    let centre = srad_at(v(Var::Ty), v(Var::Tx));
    let mut p = Program::new();
    prologue(&mut p);
    srad_halo(&mut p, j, Side::North, 1);
    srad_halo(&mut p, j, Side::South, 2);
    p.barrier();
    srad_halo(&mut p, j, Side::West, 3);
    srad_halo(&mut p, j, Side::East, 4);
    p.barrier();
    p.load(Space::Global, 10, 3, global(j, centre.clone()));
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread)));
    p.barrier();
    for (k, d) in [0, -16, 16, -1, 1].into_iter().enumerate() {
        let at = v(Var::Thread).offset(d).wrap(256);
        p.load(Space::Shared, 13 + k as u16, 3, shared(at));
    }
    for k in 14..18 {
        p.alu(Fp, &[k], &[k, 13]);
    }
    p.alu(Fp, &[18], &[14, 15]).alu(Fp, &[18], &[18, 16]);
    p.alu(Fp, &[18], &[18, 17]).alu(Sfu, &[19], &[13]);
    p.alu(Fp, &[20], &[18, 19]).alu(Fp, &[20], &[20, 20]);
    p.alu(Sfu, &[21], &[20]).alu(Fp, &[21], &[21]);
    p.store(Space::Shared, 21, 3, shared(v(Var::Thread).offset(5 * 256)));
    p.barrier();
    p.load(Space::Shared, 21, 3, shared(v(Var::Thread).offset(5 * 256)));
    p.store(Space::Global, 21, 3, global(ARRAY[1], centre.clone()));
    for (k, base) in [ARRAY[2], ARRAY[3], ARRAY[4], ARRAY[5]]
        .into_iter()
        .enumerate()
    {
        p.store(
            Space::Global,
            14 + k as u16,
            3,
            global(base, centre.clone()),
        );
    }
    p.exit();
    let d = kernel("srad_1", dim(128, 128), dim(16, 16), 28, 6 * 1024, p);
    (0..6).fold(d, |d, k| d.with_rows(ARRAY[k], SRAD_N as u64, 4))
}

/// `srad_cuda_2`: the block's tile of J (a barrier), the coefficients of the row below the
/// tile (a barrier) and of the column right of it (a barrier), the tile's own (a barrier);
/// the divergence from the four derivatives of the point, J's update through shared memory (a
/// barrier) and its store.
pub(super) fn srad_2() -> SynthDef {
    let (j, coef) = (ARRAY[0], ARRAY[1]);
    let centre = srad_at(v(Var::Ty), v(Var::Tx));
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(j, centre.clone()));
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread).offset(3 * 256)));
    p.barrier();
    srad_halo(&mut p, coef, Side::South, 1);
    p.barrier();
    srad_halo(&mut p, coef, Side::East, 2);
    p.barrier();
    p.load(Space::Global, 12, 3, global(coef, centre.clone()));
    p.store(Space::Shared, 12, 3, shared(v(Var::Thread)));
    p.barrier();
    p.load(Space::Shared, 13, 3, shared(v(Var::Thread)));
    p.load(
        Space::Shared,
        14,
        3,
        shared(v(Var::Thread).offset(16).wrap(256)),
    );
    p.load(
        Space::Shared,
        15,
        3,
        shared(v(Var::Thread).offset(1).wrap(256)),
    );
    for (k, base) in [ARRAY[5], ARRAY[4], ARRAY[3], ARRAY[2]]
        .into_iter()
        .enumerate()
    {
        p.load(
            Space::Global,
            16 + k as u16,
            3,
            global(base, centre.clone()),
        );
    }
    p.alu(Fp, &[20], &[13, 16]).alu(Fp, &[20], &[20, 14, 17]);
    p.alu(Fp, &[20], &[20, 13, 18])
        .alu(Fp, &[20], &[20, 15, 19]);
    p.load(Space::Shared, 21, 3, shared(v(Var::Thread).offset(3 * 256)));
    p.alu(Fp, &[21], &[21, 20]);
    p.store(Space::Shared, 21, 3, shared(v(Var::Thread).offset(4 * 256)));
    p.barrier();
    p.load(Space::Shared, 22, 3, shared(v(Var::Thread).offset(4 * 256)));
    p.store(Space::Global, 22, 3, global(j, centre));
    p.exit();
    let d = kernel("srad_2", dim(128, 128), dim(16, 16), 24, 5 * 1024, p);
    (0..6).fold(d, |d, k| d.with_rows(ARRAY[k], SRAD_N as u64, 4))
}

pub(super) fn srad() -> Vec<SynthDef> {
    vec![srad_1(), srad_2(), srad_1(), srad_2()]
}

pub(super) fn srad_elf() -> Vec<SynthDef> {
    for_elf(srad())
}
