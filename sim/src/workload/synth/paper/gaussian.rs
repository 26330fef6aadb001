//! Gaussian elimination (Rodinia): `Fan1`, `Fan2`.

use super::*;

/// Gaussian's system: 512 equations.
pub(super) const GAUSS_N: i64 = 512;

/// `Fan1` at step `t`: thread i < n - 1 - t divides a[i + t + 1][t] by the pivot a[t][t]
/// into the multiplier m[i + t + 1][t] (a column: one row per thread).
pub(super) fn fan1(t: i64) -> SynthDef {
    let n = GAUSS_N;
    let below = Expr::v(n, Var::Gx).offset(n * (t + 1) + t);
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_if(lt(v(Var::Gx), c(n - 1 - t)));
    p.load(Space::Global, 10, 3, global(ARRAY[0], below.clone()));
    p.load(Space::Global, 11, 3, global(ARRAY[0], c(n * t + t)));
    p.alu(Sfu, &[12], &[11]).alu(Fp, &[12], &[12, 10]);
    p.store(Space::Global, 12, 3, global(ARRAY[1], below));
    p.end_if();
    p.exit();
    kernel("gaussian_fan1", dim(4, 1), dim(128, 1), 12, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

/// `Fan2` at step `t` on 32 x 32 blocks of 16 x 16: thread (x, y) with x < n - 1 - t and
/// y < n - t updates a[x + 1 + t][y + t] from the multiplier m[x + 1 + t][t] and the pivot row
/// a[t][y + t] (x runs along threadIdx.x, so a warp's 16 lanes read 16 rows); threads with y
/// = 0 also update b[x + 1 + t].
pub(super) fn fan2(t: i64) -> SynthDef {
    let n = GAUSS_N;
    let m = Expr::v(n, Var::Gx).offset(n * (1 + t) + t);
    let a = Expr::v(n, Var::Gx).plus(1, Var::Gy).offset(n * (1 + t) + t);
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_if(lt(v(Var::Gx), c(n - 1 - t)));
    p.begin_if(lt(v(Var::Gy), c(n - t)));
    p.load(Space::Global, 10, 3, global(ARRAY[1], m.clone()));
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[0], v(Var::Gy).offset(n * t + t)),
    );
    p.load(Space::Global, 12, 3, global(ARRAY[0], a.clone()));
    p.alu(Fp, &[12], &[12, 10, 11]);
    p.store(Space::Global, 12, 3, global(ARRAY[0], a));
    p.begin_if(eq(v(Var::Gy), c(0)));
    p.load(Space::Global, 13, 3, global(ARRAY[1], m));
    p.load(Space::Global, 14, 3, global(ARRAY[2], c(t)));
    let b = v(Var::Gx).offset(1 + t);
    p.load(Space::Global, 15, 3, global(ARRAY[2], b.clone()));
    p.alu(Fp, &[15], &[15, 13, 14]);
    p.store(Space::Global, 15, 3, global(ARRAY[2], b));
    close(&mut p, 3);
    p.exit();
    kernel("gaussian_fan2", dim(32, 32), dim(16, 16), 16, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

pub(super) fn gaussian() -> Vec<SynthDef> {
    (0..GAUSS_N - 1).flat_map(|t| [fan1(t), fan2(t)]).collect()
}
