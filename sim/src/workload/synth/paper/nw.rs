//! Needleman-Wunsch (Rodinia): `needle_cuda_shared_1`, `needle_cuda_shared_2`.

use super::*;

/// NW's alignment: 256 tiles of 16 a side (`max_cols` = 4097 with the border).
pub(super) const NW_TILES: i64 = 256;

/// `needle_cuda_shared_1` (`second` false) or `_2` on anti-diagonal `i` (1-based, `i` blocks
/// of 16 threads) of `tiles` x `tiles` tiles: block `bx` works on tile (b_x, b_y) = (bx,
/// i - 1 - bx) (first half) or (bx + tiles - i, tiles - 1 - bx) (second half): it loads its
/// 16 x 16 reference tile row by row and the corner (in the order each kernel has), the score
/// column to its left (a column: one row per thread) and the row above, sweeps the 31
/// anti-diagonals of the tile in shared memory (a barrier each), and stores its 16 rows.
pub(super) fn needle(tiles: i64, second: bool, i: i64) -> SynthDef {
    let cols = 16 * tiles + 1;
    // Tile origin `cols * 16 * b_y + 16 * b_x`, as an expression of bx.
    let (x0, y0) = if second {
        (tiles - i, tiles - 1)
    } else {
        (0, i - 1)
    };
    let origin = Expr::v(16 - 16 * cols, Var::Bx).offset(cols * 16 * y0 + 16 * x0);
    let index = origin.clone().plus(1, Var::Tx).offset(cols + 1);
    let mut p = Program::new();
    prologue(&mut p);
    let corner = |p: &mut Program| {
        p.begin_if(eq(v(Var::Tx), c(0)));
        p.load(Space::Global, 10, 3, global(ARRAY[0], origin.clone()));
        p.store(Space::Shared, 10, 3, shared(c(0)));
        p.end_if();
    };
    // `_1` loads the corner before the reference tile, `_2` after it and its barrier.
    if !second {
        corner(&mut p);
    }
    for ty in 0..16 {
        let r = index.clone().offset(cols * ty);
        p.load(Space::Global, 11, 3, global(ARRAY[1], r));
        let at = shared(v(Var::Tx).offset(289 + 16 * ty));
        p.store(Space::Shared, 11, 3, at);
    }
    p.barrier();
    if second {
        corner(&mut p);
    }
    let west = origin.clone().plus(cols, Var::Tx).offset(cols);
    p.load(Space::Global, 12, 3, global(ARRAY[0], west));
    p.store(
        Space::Shared,
        12,
        3,
        shared(Expr::v(17, Var::Tx).offset(17)),
    );
    p.barrier();
    let north = origin.plus(1, Var::Tx).offset(1);
    p.load(Space::Global, 13, 3, global(ARRAY[0], north));
    p.store(Space::Shared, 13, 3, shared(v(Var::Tx).offset(1)));
    p.barrier();
    // Anti-diagonal m (m = Loop(0), then 14 - Loop(0)): thread tx, while tx <= m, scores cell
    // `cell` of the 17 x 17 score tile from its three neighbours and reference `reference`.
    let sweep = |p: &mut Program, cell: Expr, reference: Expr, active: Cond, trips: i64| {
        p.begin_loop(0);
        p.begin_if(active);
        p.load(Space::Shared, 14, 3, shared(cell.clone().offset(-18)));
        p.load(Space::Shared, 15, 3, shared(cell.clone().offset(-1)));
        p.load(Space::Shared, 16, 3, shared(cell.clone().offset(-17)));
        p.load(Space::Shared, 17, 3, shared(reference));
        p.alu(IntAlu, &[14], &[14, 17])
            .alu(IntAlu, &[15], &[15, 16]);
        p.alu(IntAlu, &[14], &[14, 15]);
        p.store(Space::Shared, 14, 3, shared(cell));
        p.end_if();
        p.barrier();
        p.end_loop(c(trips));
    };
    // Upper-left half: cell (m - tx + 1, tx + 1), reference (m - tx, tx).
    let cell = Expr::v(17, Var::Loop(0)).plus(-16, Var::Tx).offset(18);
    let reference = Expr::v(16, Var::Loop(0)).plus(-15, Var::Tx).offset(289);
    let active = lt(v(Var::Tx), v(Var::Loop(0)).offset(1));
    sweep(&mut p, cell, reference, active, 16);
    // Lower-right half: cell (16 - tx, tx + 16 - m), reference (15 - tx, tx + 15 - m).
    let cell = Expr::v(1, Var::Loop(0)).plus(-16, Var::Tx).offset(274);
    let reference = Expr::v(1, Var::Loop(0))
        .plus(-15, Var::Tx)
        .offset(289 + 241);
    let active = lt(v(Var::Tx).plus(1, Var::Loop(0)), c(15));
    sweep(&mut p, cell, reference, active, 15);
    for ty in 0..16 {
        p.load(
            Space::Shared,
            18,
            3,
            shared(v(Var::Tx).offset(17 * (ty + 1) + 1)),
        );
        let r = index.clone().offset(cols * ty);
        p.store(Space::Global, 18, 3, global(ARRAY[0], r));
    }
    p.exit();
    let name = if second { "nw_shared_2" } else { "nw_shared_1" };
    kernel(name, dim(i as u32, 1), dim(16, 1), 16, 2180, p)
        .with_rows(ARRAY[0], cols as u64, 4)
        .with_rows(ARRAY[1], cols as u64, 4)
}

pub(super) fn nw() -> Vec<SynthDef> {
    nw_of(NW_TILES)
}

pub(super) fn nw_elf() -> Vec<SynthDef> {
    for_elf(nw_of(128))
}

/// Every launch of NW on `tiles` x `tiles` tiles of 16: the first half's anti-diagonals 1 to
/// `tiles`, then the second half's from `tiles - 1` down to 1.
pub(super) fn nw_of(tiles: i64) -> Vec<SynthDef> {
    let first = (1..=tiles).map(|i| needle(tiles, false, i));
    first
        .chain((1..tiles).rev().map(|i| needle(tiles, true, i)))
        .collect()
}
