//! HotSpot (Rodinia): `calculate_temp`.

use super::*;

/// `calculate_temp` (hotspot.cu), `n` x `n` grid, pyramid height `iters`: each 16 x 16 block
/// loads a tile of temperature and power overlapping its neighbours' by `iters` on each side
/// (the points inside the grid), runs `iters` steps in shared memory (step i computing the
/// points i + 1 to 14 - i of the tile, a barrier after it and after the copy back but the
/// last), and stores its inner (16 - 2 iters)^2 points.
pub(super) fn hotspot(n: i64, iters: i64) -> SynthDef {
    let small = 16 - 2 * iters;
    let g = ((n + small - 1) / small) as u32;
    let row = Expr::v(small, Var::By).plus(1, Var::Ty).offset(-iters);
    let col = Expr::v(small, Var::Bx).plus(1, Var::Tx).offset(-iters);
    let index = at(row.clone(), n, col.clone());
    let mut p = Program::new();
    prologue(&mut p);
    let ifs = within(&mut p, row.clone(), 0, n) + within(&mut p, col.clone(), 0, n);
    p.load(Space::Global, 10, 3, global(ARRAY[0], index.clone()));
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread)));
    p.load(Space::Global, 11, 3, global(ARRAY[1], index.clone()));
    p.store(Space::Shared, 11, 3, shared(v(Var::Thread).offset(256)));
    close(&mut p, ifs);
    p.barrier();
    // Step i's `computed`: tx and ty in [i + 1, 14 - i], the point inside the grid.
    let computed = |p: &mut Program, i: i64| {
        within(p, v(Var::Tx), i + 1, 15 - i)
            + within(p, v(Var::Ty), i + 1, 15 - i)
            + within(p, row.clone(), 0, n)
            + within(p, col.clone(), 0, n)
    };
    for i in 0..iters {
        let ifs = computed(&mut p, i);
        for (k, d) in [0, -16, 16, -1, 1].into_iter().enumerate() {
            p.load(
                Space::Shared,
                12 + k as u16,
                3,
                shared(v(Var::Thread).offset(d)),
            );
        }
        p.load(Space::Shared, 17, 3, shared(v(Var::Thread).offset(256)));
        p.alu(Fp, &[18], &[13, 14]).alu(Fp, &[18], &[18, 12]);
        p.alu(Fp, &[19], &[15, 16]).alu(Fp, &[19], &[19, 12]);
        p.alu(Fp, &[20], &[12, 17]).alu(Fp, &[20], &[20, 18]);
        p.alu(Fp, &[20], &[20, 19]).alu(Fp, &[20], &[20, 12]);
        p.store(Space::Shared, 20, 3, shared(v(Var::Thread).offset(512)));
        close(&mut p, ifs);
        p.barrier();
        if i == iters - 1 {
            break;
        }
        let ifs = computed(&mut p, i);
        p.load(Space::Shared, 21, 3, shared(v(Var::Thread).offset(512)));
        p.store(Space::Shared, 21, 3, shared(v(Var::Thread)));
        close(&mut p, ifs);
        p.barrier();
    }
    let ifs = computed(&mut p, iters - 1);
    p.load(Space::Shared, 21, 3, shared(v(Var::Thread).offset(512)));
    p.store(Space::Global, 21, 3, global(ARRAY[2], index));
    close(&mut p, ifs);
    p.exit();
    kernel("hs", dim(g, g), dim(16, 16), 24, 3 * 1024, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
        .with_rows(ARRAY[2], n as u64, 4)
}

pub(super) fn hs() -> Vec<SynthDef> {
    vec![hotspot(1024, 2)]
}

pub(super) fn hs_elf() -> Vec<SynthDef> {
    for_elf(vec![hotspot(512, 2)])
}
