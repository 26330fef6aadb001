//! convolutionSeparable (CUDA SDK): the row and column kernels.

use super::*;

/// The SDK sample's image side.
pub(super) const CONV_N: i64 = 1024;

/// One direction of `convolutionSeparable`: `rows` true is `convolutionRowsKernel` (16 x 4
/// threads, 8 outputs of 16 columns each plus a 16-column halo each side), false is
/// `convolutionColumnsKernel` (16 x 8 threads, 8 outputs of 8 rows each plus an 8-row halo):
/// the block's strip into shared memory (halo elements outside the image are not loaded),
/// then per output 17 taps (KERNEL_RADIUS 8) from shared memory, each an FFMA with the
/// filter from constant memory.
pub(super) fn convolution(rows: bool) -> SynthDef {
    let n = CONV_N;
    // Step (threads between consecutive elements of a thread) and the block's geometry.
    let (bdx, bdy) = if rows { (16, 4) } else { (16, 8) };
    let step = if rows { 16 } else { 8 };
    // The thread's first element (the halo's): (x, y) of the image.
    let (x, y) = if rows {
        let x = Expr::v(8 * 16, Var::Bx).plus(1, Var::Tx).offset(-16);
        (x, Expr::v(4, Var::By).plus(1, Var::Ty))
    } else {
        let y = Expr::v(8 * 8, Var::By).plus(1, Var::Ty).offset(-8);
        (Expr::v(16, Var::Bx).plus(1, Var::Tx), y)
    };
    let elem = |i: i64| {
        let (dx, dy) = if rows { (i * step, 0) } else { (0, i * step) };
        at(y.clone().offset(dy), n, x.clone().offset(dx))
    };
    // Shared strip: rows [ty][160] (rows kernel), columns [tx][81] (columns kernel).
    let strip = |i: i64| {
        if rows {
            at(v(Var::Ty), 160, v(Var::Tx).offset(16 * i))
        } else {
            at(v(Var::Tx), 81, v(Var::Ty).offset(8 * i))
        }
    };
    let along = if rows { x.clone() } else { y.clone() };
    let (src, dst) = if rows {
        (ARRAY[0], ARRAY[1])
    } else {
        (ARRAY[1], ARRAY[2])
    };
    let mut p = Program::new();
    prologue(&mut p);
    for i in 0..10 {
        // The halo steps load only inside the image: `base >= 0`, `n - base > 9 step`.
        match i {
            0 => p.begin_if(lt(c(-1), along.clone())),
            9 => p.begin_if(lt(along.clone(), c(n - 9 * step))),
            _ => &mut p,
        };
        p.load(Space::Global, 10, 3, global(src, elem(i)));
        p.store(Space::Shared, 10, 3, shared(strip(i)));
        if i == 0 || i == 9 {
            p.end_if();
        }
    }
    p.barrier();
    for i in 1..9 {
        for j in -8..=8 {
            p.load(Space::Shared, 11, 3, shared(strip(i).offset(j)));
            p.alu(Fp, &[12], &[12, 11]);
        }
        p.store(Space::Global, 12, 3, global(dst, elem(i)));
    }
    p.exit();
    let (name, grid, smem) = if rows {
        ("conv_rows", dim(8, 256), 4 * 160 * 4)
    } else {
        ("conv_columns", dim(64, 16), 16 * 81 * 4)
    };
    (0..3).fold(kernel(name, grid, dim(bdx, bdy), 16, smem, p), |d, k| {
        d.with_rows(ARRAY[k], n as u64, 4)
    })
}

pub(super) fn conv() -> Vec<SynthDef> {
    (0..17)
        .flat_map(|_| [convolution(true), convolution(false)])
        .collect()
}
