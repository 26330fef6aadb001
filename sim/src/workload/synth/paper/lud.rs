//! LU decomposition (Rodinia): `lud_diagonal`, `lud_perimeter`, `lud_internal`.

use super::*;

/// LUD's matrix: 75 tiles of 16.
pub(super) const LUD_N: i64 = 1200;

/// `acc -= x * y` over shared memory for `j` = `Loop(0)` in `0..trips` (at least one trip).
pub(super) fn lud_dot(p: &mut Program, x: Expr, y: Expr, trips: Expr) {
    p.begin_loop(0);
    p.load(Space::Shared, 12, 3, shared(x));
    p.load(Space::Shared, 13, 3, shared(y));
    p.alu(Fp, &[14], &[14, 12, 13]);
    p.end_loop(trips);
}

/// Step `i` of `lud_diagonal` (`i` an expression: a constant, or `Loop(1) + 1`): threads
/// `tx > i` eliminate `shadow[tx][i]` (`j` in `0..i`, none when `first`) and divide it by the
/// pivot; a barrier; they update `shadow[i + 1][tx]` (`j` in `0..=i`); a barrier.
pub(super) fn lud_diagonal_step(p: &mut Program, i: Expr, first: bool) {
    let col_i = |row: Expr| row.times(16).and(i.clone());
    p.begin_if(lt(i.clone(), v(Var::Tx)));
    if !first {
        let y = col_i(v(Var::Loop(0)));
        lud_dot(p, at(v(Var::Tx), 16, v(Var::Loop(0))), y, i.clone());
    }
    p.load(Space::Shared, 15, 3, shared(col_i(i.clone())));
    p.alu(Sfu, &[14], &[14, 15]);
    p.store(Space::Shared, 14, 3, shared(col_i(v(Var::Tx))));
    p.end_if();
    p.barrier();
    p.begin_if(lt(i.clone(), v(Var::Tx)));
    let below = || i.clone().offset(1).times(16);
    let x = below().plus(1, Var::Loop(0));
    lud_dot(
        p,
        x,
        at(v(Var::Loop(0)), 16, v(Var::Tx)),
        i.clone().offset(1),
    );
    p.store(Space::Shared, 14, 3, shared(below().plus(1, Var::Tx)));
    p.end_if();
    p.barrier();
}

/// `lud_diagonal` of an `n` x `n` matrix at tile offset `off`: one block of 16 threads loads the
/// diagonal tile row by row, factors it in shared memory (15 steps of two barriers), stores rows
/// 1..15.
pub(super) fn lud_diagonal(n: i64, off: i64) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    for i in 0..16 {
        let a = v(Var::Tx).offset((off + i) * n + off);
        p.load(Space::Global, 10, 3, global(ARRAY[0], a));
        p.store(Space::Shared, 10, 3, shared(v(Var::Tx).offset(16 * i)));
    }
    p.barrier();
    lud_diagonal_step(&mut p, c(0), true);
    p.begin_loop(1);
    lud_diagonal_step(&mut p, v(Var::Loop(1)).offset(1), false);
    p.end_loop(c(14));
    for i in 1..16 {
        p.load(Space::Shared, 15, 3, shared(v(Var::Tx).offset(16 * i)));
        let a = v(Var::Tx).offset((off + i) * n + off);
        p.store(Space::Global, 15, 3, global(ARRAY[0], a));
    }
    p.exit();
    kernel("lud_diagonal", dim(1, 1), dim(16, 1), 16, 1024, p).with_rows(ARRAY[0], n as u64, 4)
}

/// `lud_perimeter` of an `n` x `n` matrix at tile offset `off` over `m` blocks of 32 threads:
/// threads 0-15 load half of the diagonal tile and block `bx`'s tile of the row perimeter, threads
/// 16-31 the other half and its tile of the column perimeter (a barrier); each half eliminates
/// its tile in shared memory (a barrier) and stores it back.
pub(super) fn lud_perimeter(n: i64, off: i64, m: u32) -> SynthDef {
    let lane = |k: i64| v(Var::Tx).offset(k);
    // Row perimeter tile (off .. off + 16) x (off + 16 (bx + 1) ..): threads 0-15.
    let row_tile = |i: i64| {
        Expr::v(16, Var::Bx)
            .plus(1, Var::Tx)
            .offset((off + i) * n + off + 16)
    };
    // Column perimeter tile (off + 16 (bx + 1) ..) x (off ..): threads 16-31 (tx - 16).
    let col_tile = |i: i64| {
        Expr::v(16 * n, Var::Bx)
            .plus(1, Var::Tx)
            .offset((off + 16 + i) * n + off - 16)
    };
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_if(lt(v(Var::Tx), c(16)));
    for i in 0..8 {
        let a = lane((off + i) * n + off);
        p.load(Space::Global, 10, 3, global(ARRAY[0], a));
        p.store(Space::Shared, 10, 3, shared(lane(16 * i)));
    }
    for i in 0..16 {
        p.load(Space::Global, 11, 3, global(ARRAY[0], row_tile(i)));
        p.store(Space::Shared, 11, 3, shared(lane(256 + 16 * i)));
    }
    p.end_if();
    p.begin_if(lt(c(15), v(Var::Tx)));
    for i in 8..16 {
        let a = lane((off + i) * n + off - 16);
        p.load(Space::Global, 10, 3, global(ARRAY[0], a));
        p.store(Space::Shared, 10, 3, shared(lane(16 * i - 16)));
    }
    for i in 0..16 {
        p.load(Space::Global, 11, 3, global(ARRAY[0], col_tile(i)));
        p.store(Space::Shared, 11, 3, shared(lane(512 - 16 + 16 * i)));
    }
    p.end_if();
    p.barrier();
    // Row half: for i in 1..16, j in 0..i: peri_row[i][tx] -= dia[i][j] * peri_row[j][tx]
    // (i = Loop(1) + 1).
    let i = || v(Var::Loop(1)).offset(1);
    p.begin_if(lt(v(Var::Tx), c(16)));
    p.begin_loop(1);
    let x = i().times(16).plus(1, Var::Loop(0));
    lud_dot(
        &mut p,
        x,
        at(v(Var::Loop(0)), 16, v(Var::Tx)).offset(256),
        i(),
    );
    p.store(
        Space::Shared,
        14,
        3,
        shared(i().times(16).plus(1, Var::Tx).offset(256)),
    );
    p.end_loop(c(15));
    p.end_if();
    // Column half: for i in 0..16, j in 0..i: peri_col[tx'][i] -= peri_col[tx'][j] * dia[j][i],
    // then / dia[i][i] (tx' = tx - 16; peri_col[tx'][k] at 256 + 16 tx + k).
    p.begin_if(lt(c(15), v(Var::Tx)));
    let divide = |p: &mut Program, i: Expr| {
        p.load(Space::Shared, 15, 3, shared(i.clone().times(17)));
        p.alu(Sfu, &[14], &[14, 15]);
        p.store(
            Space::Shared,
            14,
            3,
            shared(Expr::v(16, Var::Tx).and(i).offset(256)),
        );
    };
    divide(&mut p, c(0));
    p.begin_loop(1);
    let x = at(v(Var::Tx), 16, v(Var::Loop(0))).offset(256);
    lud_dot(&mut p, x, Expr::v(16, Var::Loop(0)).and(i()), i());
    divide(&mut p, i());
    p.end_loop(c(15));
    p.end_if();
    // Both halves solved (a barrier), each stores its tile.
    p.barrier();
    p.begin_if(lt(v(Var::Tx), c(16)));
    for i in 1..16 {
        p.load(Space::Shared, 15, 3, shared(lane(256 + 16 * i)));
        p.store(Space::Global, 15, 3, global(ARRAY[0], row_tile(i)));
    }
    p.end_if();
    p.begin_if(lt(c(15), v(Var::Tx)));
    for i in 0..16 {
        p.load(Space::Shared, 15, 3, shared(lane(512 - 16 + 16 * i)));
        p.store(Space::Global, 15, 3, global(ARRAY[0], col_tile(i)));
    }
    p.end_if();
    p.exit();
    kernel("lud_perimeter", dim(m, 1), dim(32, 1), 16, 3 * 1024, p).with_rows(ARRAY[0], n as u64, 4)
}

/// `lud_internal` of an `n` x `n` matrix at tile offset `off` on an `m` x `m` grid of 16 x 16
/// blocks: block (bx, by) loads its row-perimeter tile (shared with its grid column) and
/// column-perimeter tile (shared with its grid row), multiplies them from shared memory (16
/// multiply-adds) and updates its own element.
pub(super) fn lud_internal(n: i64, off: i64, m: u32) -> SynthDef {
    let peri_row = Expr::v(n, Var::Ty)
        .plus(16, Var::Bx)
        .plus(1, Var::Tx)
        .offset(off * n + off + 16);
    let peri_col = Expr::v(16 * n, Var::By)
        .plus(n, Var::Ty)
        .plus(1, Var::Tx)
        .offset((off + 16) * n + off);
    let own = Expr::v(16 * n, Var::By)
        .plus(n, Var::Ty)
        .plus(16, Var::Bx)
        .plus(1, Var::Tx)
        .offset((off + 16) * n + off + 16);
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(ARRAY[0], peri_row));
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread)));
    p.load(Space::Global, 11, 3, global(ARRAY[0], peri_col));
    p.store(Space::Shared, 11, 3, shared(v(Var::Thread).offset(256)));
    p.barrier();
    for i in 0..16 {
        p.load(
            Space::Shared,
            12,
            3,
            shared(at(v(Var::Ty), 16, c(i)).offset(256)),
        );
        p.load(Space::Shared, 13, 3, shared(at(c(i), 16, v(Var::Tx))));
        p.alu(Fp, &[14], &[14, 12, 13]);
    }
    p.load(Space::Global, 15, 3, global(ARRAY[0], own.clone()));
    p.alu(Fp, &[15], &[15, 14]);
    p.store(Space::Global, 15, 3, global(ARRAY[0], own));
    p.exit();
    kernel("lud_internal", dim(m, m), dim(16, 16), 24, 2048, p).with_rows(ARRAY[0], n as u64, 4)
}

pub(super) fn lud() -> Vec<SynthDef> {
    lud_of(LUD_N)
}

pub(super) fn lud_elf() -> Vec<SynthDef> {
    for_elf(lud_of(256))
}

/// Every launch of LUD on an `n` x `n` matrix (`n` a multiple of 16): per step, the diagonal,
/// the perimeter and the internal tiles; the last diagonal tile alone.
pub(super) fn lud_of(n: i64) -> Vec<SynthDef> {
    let tiles = (n / 16) as u32;
    let mut v = vec![];
    for step in 0..tiles - 1 {
        let (off, m) = (16 * step as i64, tiles - 1 - step);
        v.push(lud_diagonal(n, off));
        v.push(lud_perimeter(n, off, m));
        v.push(lud_internal(n, off, m));
    }
    v.push(lud_diagonal(n, 16 * (tiles as i64 - 1)));
    v
}
