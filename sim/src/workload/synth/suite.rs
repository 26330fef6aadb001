//! The workload suite: synthetic kernels that reproduce the access patterns of the papers'
//! benchmarks. Each entry names the benchmark it mirrors (and the seed paper), states its
//! pattern, and builds its kernel in three sizes: `small` (tests), `medium` (experiments),
//! `large` (benchmarks); seed 000's benchmarks also at the thesis's inputs in [`super::paper`].
//!
//! Arrays live at distinct 256 MB-aligned bases ([`ARRAY`]); 2-D arrays are row-major with
//! the pitch given in each kernel. Blocks are numbered row-major over the grid
//! (`block = by * gridDim.x + bx`), which is the order the thread-block dispatcher issues them
//! in: "TB i shares with TB i + gridDim.x" means vertically adjacent blocks of a 2-D grid.

use super::ir::{Addr, CmpOp, Cond, Expr, Program, Space, SynthDef, Var};
use crate::workload::sass::OpClass::{self, *};
use crate::workload::Dim3;

/// Base address of array `i` (256 MB apart).
pub const fn array(i: u64) -> u64 {
    0x1000_0000 * (i + 1)
}

/// The first twenty array bases.
pub const ARRAY: [u64; 20] = {
    let mut a = [0u64; 20];
    let mut i = 0;
    while i < 20 {
        a[i] = array(i as u64);
        i += 1;
    }
    a
};

/// Sizes, in order.
pub const SIZES: [&str; 3] = ["small", "medium", "large"];

/// One suite entry.
pub struct Entry {
    /// Workload name.
    pub name: &'static str,
    /// The benchmark it mirrors and the paper (seed) that uses it.
    pub mirrors: &'static str,
    /// The access pattern.
    pub pattern: &'static str,
    /// Builds the kernel at size index 0 (small), 1 (medium) or 2 (large).
    pub build: fn(usize) -> SynthDef,
}

pub(super) fn dim(x: u32, y: u32) -> Dim3 {
    Dim3 { x, y, z: 1 }
}

fn def(
    name: &str,
    s: usize,
    grid: Dim3,
    block: Dim3,
    regs: u32,
    smem: u32,
    p: Program,
) -> SynthDef {
    named(format!("{name}_{}", SIZES[s]), grid, block, regs, smem, p)
}

/// `d` named for size index `s` (`d`'s name is the bare workload name).
fn at_size(mut d: SynthDef, s: usize) -> SynthDef {
    d.name = format!("{}_{}", d.name, SIZES[s]);
    d
}

/// Kernel `name` on `grid` blocks of `block` threads, `regs` registers per thread and `smem`
/// bytes of shared memory per block, running `p`.
pub(super) fn named(
    name: String,
    grid: Dim3,
    block: Dim3,
    regs: u32,
    smem: u32,
    p: Program,
) -> SynthDef {
    SynthDef {
        name,
        grid,
        block,
        regs_per_thread: regs,
        shmem_bytes: smem,
        program: p,
        arrays: vec![],
    }
}

pub(super) fn v(var: Var) -> Expr {
    Expr::v(1, var)
}

/// `row * pitch + col`.
pub(super) fn at(row: Expr, pitch: i64, col: Expr) -> Expr {
    row.times(pitch).and(col)
}

pub(super) fn global(base: u64, index: Expr) -> Addr {
    Addr {
        base,
        index,
        elem: 4,
    }
}

/// Word `index` (4 B) of a space that starts at 0 (constant or shared memory).
fn word(index: Expr) -> Addr {
    Addr {
        base: 0,
        index,
        elem: 4,
    }
}

/// Word `index` of constant memory.
pub(super) fn constant(index: Expr) -> Addr {
    word(index)
}

/// Word `index` of the block's shared memory.
pub(super) fn shared(index: Expr) -> Addr {
    word(index)
}

pub(super) fn lt(lhs: Expr, rhs: Expr) -> Cond {
    Cond {
        lhs,
        op: CmpOp::Lt,
        rhs,
    }
}

/// Thread and block ids into registers 0-2 (S2R, S2R, IMAD) and an address into register 3.
pub(super) fn prologue(p: &mut Program) {
    p.alu(IntAlu, &[0], &[])
        .alu(IntAlu, &[1], &[])
        .alu(IntMul, &[2], &[0, 1])
        .alu(IntAlu, &[3], &[2]);
}

/// `n` FFMAs accumulating into `acc` from `srcs`.
fn ffma(p: &mut Program, n: usize, acc: u16, src: u16) {
    for _ in 0..n {
        p.alu(Fp, &[acc], &[acc, src]);
    }
}

/// One step `k = Loop(0)` of a 16x16-tiled product on `n`-wide row-major matrices: the
/// block's row tile `(by, k)` of `a` and column tile `(k, bx)` of `b` into shared memory, a
/// barrier, `inner` multiply-adds from shared memory, a barrier.
fn tile_product(p: &mut Program, n: i64, a: u64, b: u64, inner: i64) {
    let row = at(v(Var::Gy), n, Expr::v(16, Var::Loop(0)).plus(1, Var::Tx));
    let col = at(Expr::v(16, Var::Loop(0)).plus(1, Var::Ty), n, v(Var::Gx));
    p.load(Space::Global, 10, 3, global(a, row));
    p.load(Space::Global, 11, 3, global(b, col));
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread)));
    p.store(Space::Shared, 11, 3, shared(v(Var::Thread).offset(256)));
    p.barrier();
    for k in 0..inner {
        p.load(Space::Shared, 12, 3, shared(at(v(Var::Ty), 16, Expr::c(k))));
        let col = shared(at(Expr::c(k), 16, v(Var::Tx)).offset(256));
        p.load(Space::Shared, 13, 3, col);
        p.alu(Fp, &[14], &[14, 12, 13]);
    }
    p.barrier();
}

fn pick<T: Copy>(s: usize, v: [T; 3]) -> T {
    v[s]
}

// ---------------------------------------------------------------- seed 000 (locality-aware)

fn hs(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 16]);
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    let mut r = 10;
    for dy in -1..=1 {
        for dx in -1..=1 {
            let idx = at(v(Var::Gy).offset(dy), n, v(Var::Gx).offset(dx)).wrap(n * n);
            p.load(Space::Global, r, 3, global(ARRAY[0], idx));
            r += 1;
        }
    }
    p.load(
        Space::Global,
        19,
        3,
        global(ARRAY[1], at(v(Var::Gy), n, v(Var::Gx))),
    );
    for k in 10..19 {
        p.alu(Fp, &[20], &[20, k]);
    }
    p.alu(Fp, &[20], &[20, 19]);
    p.store(
        Space::Global,
        20,
        3,
        global(ARRAY[2], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.end_loop(Expr::c(pick(s, [2, 4, 8])));
    p.exit();
    def("hs", s, dim(g, g), dim(16, 16), 24, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
        .with_rows(ARRAY[2], n as u64, 4)
}

fn srad(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 16]);
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    let c = at(v(Var::Gy), n, v(Var::Gx));
    p.load(Space::Global, 10, 3, global(ARRAY[0], c.clone()));
    for (k, (dy, dx)) in [(-1, 0), (1, 0), (0, -1), (0, 1)].into_iter().enumerate() {
        let idx = at(v(Var::Gy).offset(dy), n, v(Var::Gx).offset(dx)).wrap(n * n);
        p.load(Space::Global, 11 + k as u16, 3, global(ARRAY[0], idx));
    }
    for k in 11..15 {
        p.alu(Fp, &[15 + (k - 11)], &[k, 10]);
    }
    p.alu(Fp, &[19], &[15, 16]).alu(Fp, &[19], &[19, 17]);
    p.alu(Sfu, &[20], &[19]).alu(Fp, &[21], &[20, 18]);
    for (k, base) in [ARRAY[1], ARRAY[2], ARRAY[3], ARRAY[4]]
        .into_iter()
        .enumerate()
    {
        p.store(Space::Global, 15 + k as u16, 3, global(base, c.clone()));
    }
    p.store(Space::Global, 21, 3, global(ARRAY[5], c));
    p.end_loop(Expr::c(pick(s, [2, 4, 6])));
    p.exit();
    let srad = def("srad", s, dim(g, g), dim(16, 16), 28, 0, p);
    (0..6).fold(srad, |d, k| d.with_rows(ARRAY[k], n as u64, 4))
}

fn conv(s: usize) -> SynthDef {
    let (gx, gy) = pick(s, [(4, 8), (8, 32), (16, 64)]);
    let n = 256 * gx as i64;
    let mut p = Program::new();
    prologue(&mut p);
    for d in -4..=4i64 {
        let idx = at(v(Var::By), n, v(Var::Gx).offset(d).wrap(n));
        p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
        p.load(Space::Const, 11, 3, constant(Expr::c(d + 4)));
        p.alu(Fp, &[12], &[12, 10, 11]);
    }
    p.store(
        Space::Global,
        12,
        3,
        global(ARRAY[1], at(v(Var::By), n, v(Var::Gx))),
    );
    p.exit();
    def("conv", s, dim(gx, gy), dim(256, 1), 16, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

fn his(s: usize) -> SynthDef {
    let g = pick(s, [30, 60, 120]);
    let iters = pick(s, [4, 8, 16]);
    let total = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.store(Space::Shared, 4, 3, shared(v(Var::Thread)));
    p.barrier();
    p.begin_loop(0);
    let idx = v(Var::Block)
        .times(256)
        .plus(1, Var::Thread)
        .plus(total, Var::Loop(0));
    p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
    p.alu(IntAlu, &[11], &[10]);
    p.atomic(
        Space::Shared,
        12,
        11,
        shared(v(Var::Hash {
            salt: 1,
            range: 256,
        })),
    );
    p.end_loop(Expr::c(iters));
    p.barrier();
    p.load(Space::Shared, 13, 3, shared(v(Var::Thread)));
    p.atomic(Space::Global, 14, 13, global(ARRAY[1], v(Var::Thread)));
    p.exit();
    def("his", s, dim(g, 1), dim(256, 1), 16, 1024, p)
}

fn bp(s: usize) -> SynthDef {
    let (gx, gy) = pick(s, [(2, 16), (4, 32), (8, 64)]);
    let w = 16 * gx as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_if(lt(v(Var::Tx), Expr::c(1)));
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Gy)));
    p.store(Space::Shared, 10, 3, shared(v(Var::Ty)));
    p.end_if();
    p.barrier();
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[1], at(v(Var::Gy), w, v(Var::Gx))),
    );
    p.load(Space::Shared, 12, 3, shared(v(Var::Ty)));
    p.alu(Fp, &[13], &[11, 12]);
    p.store(Space::Shared, 13, 3, shared(v(Var::Thread)));
    p.barrier();
    for _ in 0..4 {
        p.load(Space::Shared, 14, 3, shared(v(Var::Thread)));
        p.alu(Fp, &[13], &[13, 14]);
        p.store(Space::Shared, 13, 3, shared(v(Var::Thread)));
        p.barrier();
    }
    p.store(
        Space::Global,
        13,
        3,
        global(ARRAY[2], at(v(Var::By), w, v(Var::Gx))),
    );
    p.exit();
    def("bp", s, dim(gx, gy), dim(16, 16), 20, 1088, p)
        .with_rows(ARRAY[1], w as u64, 4)
        .with_rows(ARRAY[2], w as u64, 4)
}

fn lud(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 16]);
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    // Row panel: tile (by, k); column panel: tile (k, bx).
    tile_product(&mut p, n, ARRAY[0], ARRAY[0], 4);
    p.end_loop(Expr::c(g as i64));
    p.load(
        Space::Global,
        15,
        3,
        global(ARRAY[0], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.alu(Fp, &[15], &[15, 14]);
    p.store(
        Space::Global,
        15,
        3,
        global(ARRAY[0], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.exit();
    def("lud", s, dim(g, g), dim(16, 16), 24, 2048, p).with_rows(ARRAY[0], n as u64, 4)
}

fn tran(s: usize) -> SynthDef {
    let g = pick(s, [6, 12, 24]);
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.load(
        Space::Global,
        10,
        3,
        global(ARRAY[0], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.store(Space::Shared, 10, 3, shared(at(v(Var::Ty), 17, v(Var::Tx))));
    p.barrier();
    p.load(Space::Shared, 11, 3, shared(at(v(Var::Tx), 17, v(Var::Ty))));
    let out = at(
        Expr::v(16, Var::Bx).plus(1, Var::Ty),
        n,
        Expr::v(16, Var::By).plus(1, Var::Tx),
    );
    p.store(Space::Global, 11, 3, global(ARRAY[1], out));
    p.exit();
    def("tran", s, dim(g, g), dim(16, 16), 12, 1088, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

fn gaussian(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 16]);
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    // Multiplier column k (shared by blocks of the same grid row) and pivot row k (shared by
    // blocks of the same grid column).
    p.load(
        Space::Global,
        10,
        3,
        global(ARRAY[1], at(v(Var::Gy), n, v(Var::Loop(0)))),
    );
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[0], at(v(Var::Loop(0)), n, v(Var::Gx))),
    );
    p.load(
        Space::Global,
        12,
        3,
        global(ARRAY[0], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.alu(Fp, &[12], &[12, 10, 11]);
    p.store(
        Space::Global,
        12,
        3,
        global(ARRAY[0], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.end_loop(Expr::c(pick(s, [4, 8, 16])));
    p.exit();
    def("gaussian", s, dim(g, g), dim(16, 16), 16, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

fn sift(s: usize) -> SynthDef {
    let (gx, gy) = pick(s, [(2, 16), (4, 32), (8, 64)]);
    let n = 32 * gx as i64;
    let rows = 8 * gy as i64;
    let mut p = Program::new();
    prologue(&mut p);
    for d in -4..=4i64 {
        let idx = at(v(Var::Gy).offset(d).wrap(rows), n, v(Var::Gx));
        p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
        p.alu(Fp, &[12], &[12, 10]);
    }
    p.store(
        Space::Global,
        12,
        3,
        global(ARRAY[1], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.exit();
    def("sift", s, dim(gx, gy), dim(32, 8), 16, 0, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

fn nn(s: usize) -> SynthDef {
    let mut d = nn_records(pick(s, [30, 120, 480]));
    d.name = format!("nn_{}", SIZES[s]);
    d
}

/// NN's `euclid` over `g` blocks of 256 records (named for size `small`).
pub(super) fn nn_records(g: u32) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Gx).times(2)));
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[0], v(Var::Gx).times(2).offset(1)),
    );
    p.alu(Fp, &[12], &[10]).alu(Fp, &[13], &[11]);
    p.alu(Fp, &[14], &[12, 13]).alu(Sfu, &[15], &[14]);
    p.store(Space::Global, 15, 3, global(ARRAY[1], v(Var::Gx)));
    p.exit();
    def("nn", 0, dim(g, 1), dim(256, 1), 12, 0, p)
}

fn nw(s: usize) -> SynthDef {
    let g = pick(s, [30, 60, 120]);
    let mut p = Program::new();
    prologue(&mut p);
    // Each block owns a private 17 x 17 tile: no inter-block sharing.
    let tile = Expr::v(17 * 17, Var::Block);
    for r in 0..2 {
        let idx = tile.clone().plus(17, Var::Tx).offset(r);
        p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
        p.store(Space::Shared, 10, 3, shared(v(Var::Tx).offset(16 * r)));
    }
    p.barrier();
    p.begin_loop(0);
    p.begin_if(lt(v(Var::Tx), v(Var::Loop(0)).offset(1)));
    p.load(Space::Shared, 11, 3, shared(v(Var::Tx)));
    p.load(Space::Shared, 12, 3, shared(v(Var::Tx).offset(1)));
    p.alu(IntAlu, &[13], &[11, 12]).alu(IntAlu, &[13], &[13]);
    p.store(Space::Shared, 13, 3, shared(v(Var::Tx)));
    p.end_if();
    p.barrier();
    p.end_loop(Expr::c(16));
    p.store(
        Space::Global,
        13,
        3,
        global(ARRAY[1], tile.plus(1, Var::Tx)),
    );
    p.exit();
    def("nw", s, dim(g, 1), dim(16, 1), 16, 2180, p)
}

/// The spec's locality generators (locality_bypass_paws.md §1.5): 192-thread blocks (6
/// warps), a shared pattern read twice, plus a private streaming array. `row`: 1-D grid, TB b
/// reads lines `[3b, 3b + 6)` of each of 6 rows (overlap with b+-1). `col`: 16 x R grid, TB
/// (bx, by) reads a 36-line tile that depends only on bx (TBs b, b+16, b+32... share it).
fn locality(name: &str, s: usize, row: bool) -> SynthDef {
    let tbs = pick(s, [240, 480, 960]);
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(1);
    p.begin_loop(0);
    let shared_index = if row {
        let pitch = (tbs as i64 * 3 + 6) * 32;
        Expr::v(pitch, Var::Loop(0))
            .plus(3 * 32, Var::Block)
            .plus(1, Var::Thread)
    } else {
        Expr::v(36 * 32, Var::Bx)
            .plus(6 * 32, Var::Loop(0))
            .plus(1, Var::Thread)
    };
    p.load(Space::Global, 10, 3, global(ARRAY[0], shared_index));
    let private = Expr::v(192 * 6, Var::Block)
        .plus(192, Var::Loop(0))
        .plus(1, Var::Thread)
        .plus(tbs as i64 * 192 * 6, Var::Loop(1));
    p.load(Space::Global, 11, 3, global(ARRAY[1], private));
    p.alu(Fp, &[12], &[12, 10]).alu(Fp, &[12], &[12, 11]);
    p.end_loop(Expr::c(6));
    p.end_loop(Expr::c(2));
    p.store(
        Space::Global,
        12,
        3,
        global(ARRAY[2], Expr::v(192, Var::Block).plus(1, Var::Thread)),
    );
    p.exit();
    let grid = if row { dim(tbs, 1) } else { dim(16, tbs / 16) };
    let d = def(name, s, grid, dim(192, 1), 16, 0, p);
    if row {
        d.with_rows(ARRAY[0], (tbs as u64 * 3 + 6) * 32, 4)
    } else {
        d
    }
}

fn locality_row(s: usize) -> SynthDef {
    locality("locality_row", s, true)
}

fn locality_col(s: usize) -> SynthDef {
    locality("locality_col", s, false)
}

/// A matrix walked along its rows (lanes on consecutive elements: one line per warp access)
/// or along its columns (lanes `pitch` apart: 32 lines per warp access); same data, same work.
fn walk(name: &str, s: usize, along_rows: bool) -> SynthDef {
    let g = pick(s, [30, 60, 120]);
    let n = 1024i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    // Block b (one warp) owns a 32 x 32 sub-matrix; iteration k reads its row k (lanes on
    // consecutive elements) or its column k (lanes a row apart).
    let (lane_step, iter_step) = if along_rows { (1, n) } else { (n, 1) };
    let idx = Expr::v(32 * n, Var::Block)
        .plus(iter_step, Var::Loop(0))
        .plus(lane_step, Var::Thread);
    p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
    p.alu(Fp, &[11], &[11, 10]);
    p.end_loop(Expr::c(32));
    p.store(Space::Global, 11, 3, global(ARRAY[1], v(Var::Gx)));
    p.exit();
    def(name, s, dim(g, 1), dim(32, 1), 16, 0, p).with_rows(ARRAY[0], n as u64, 4)
}

fn walk_rows(s: usize) -> SynthDef {
    walk("walk_rows", s, true)
}

fn walk_cols(s: usize) -> SynthDef {
    walk("walk_cols", s, false)
}

// ---------------------------------------------------------------- seed 003 ch. III (ELF)

fn bfs(s: usize) -> SynthDef {
    at_size(bfs_of(pick(s, [30, 120, 240])), s)
}

/// `bfs` over `g` blocks of 256 nodes.
pub(super) fn bfs_of(g: u32) -> SynthDef {
    let nodes = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Gx)));
    p.begin_if(Cond {
        lhs: v(Var::ThreadHash { salt: 7, range: 4 }),
        op: CmpOp::Ne,
        rhs: Expr::c(0),
    });
    p.load(Space::Global, 11, 3, global(ARRAY[1], v(Var::Gx)));
    p.begin_loop(0);
    let edge = v(Var::Hash {
        salt: 11,
        range: (8 * nodes) as u32,
    });
    p.load(Space::Global, 12, 11, global(ARRAY[2], edge));
    p.load(
        Space::Global,
        13,
        12,
        global(
            ARRAY[3],
            v(Var::Hash {
                salt: 12,
                range: nodes as u32,
            }),
        ),
    );
    p.alu(IntAlu, &[14], &[13]);
    p.begin_if(Cond {
        lhs: v(Var::Hash { salt: 13, range: 3 }),
        op: CmpOp::Eq,
        rhs: Expr::c(0),
    });
    p.store(
        Space::Global,
        14,
        12,
        global(
            ARRAY[4],
            v(Var::Hash {
                salt: 12,
                range: nodes as u32,
            }),
        ),
    );
    p.end_if();
    p.end_loop(v(Var::ThreadHash { salt: 5, range: 12 }).offset(1));
    p.end_if();
    p.exit();
    named("bfs".into(), dim(g, 1), dim(256, 1), 16, 0, p)
}

fn km(s: usize) -> SynthDef {
    let g = pick(s, [30, 120, 240]);
    let pts = g as i64 * 256;
    let features = 8;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0); // clusters
    p.begin_loop(1); // features
    let feat = at(v(Var::Loop(1)), pts, v(Var::Gx));
    p.load(Space::Global, 10, 3, global(ARRAY[0], feat));
    let centre = at(v(Var::Loop(0)), features, v(Var::Loop(1)));
    p.load(Space::Global, 11, 3, global(ARRAY[1], centre));
    p.alu(Fp, &[12], &[10, 11]).alu(Fp, &[13], &[13, 12, 12]);
    p.end_loop(Expr::c(features));
    p.alu(Fp, &[14], &[13, 14]);
    p.end_loop(Expr::c(pick(s, [3, 5, 5])));
    p.store(Space::Global, 14, 3, global(ARRAY[2], v(Var::Gx)));
    p.exit();
    def("km", s, dim(g, 1), dim(256, 1), 16, 0, p)
}

fn lbm(s: usize) -> SynthDef {
    let g = pick(s, [30, 120, 240]);
    let mut p = Program::new();
    prologue(&mut p);
    for (k, base) in ARRAY.iter().enumerate() {
        p.load(Space::Global, 10 + k as u16, 3, global(*base, v(Var::Gx)));
    }
    for k in 0..20 {
        p.alu(Fp, &[30], &[30, 10 + k]);
        p.alu(Fp, &[31], &[30, 10 + k]);
    }
    for k in 0..20u16 {
        p.store(
            Space::Global,
            10 + k,
            31,
            global(array(20 + k as u64), v(Var::Gx)),
        );
    }
    p.exit();
    def("lbm", s, dim(g, 1), dim(256, 1), 36, 0, p)
}

/// ELF's compute-bound loops: the load early in the body (its consumer far below) or late
/// (consumed at the top of the next iteration).
fn compute_loop(s: usize, early: bool) -> SynthDef {
    let g = pick(s, [30, 60, 120]);
    let total = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Gx)));
    p.begin_loop(0);
    let idx = v(Var::Gx).plus(total, Var::Loop(0));
    if early {
        p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
        ffma(&mut p, 16, 11, 12);
        p.alu(Fp, &[12], &[12, 10]);
    } else {
        p.alu(Fp, &[12], &[12, 10]);
        ffma(&mut p, 16, 11, 12);
        p.load(Space::Global, 10, 3, global(ARRAY[0], idx));
    }
    p.end_loop(Expr::c(pick(s, [4, 16, 48])));
    p.store(Space::Global, 11, 3, global(ARRAY[1], v(Var::Gx)));
    p.exit();
    let name = if early { "loop_early" } else { "loop_late" };
    def(name, s, dim(g, 1), dim(256, 1), 16, 0, p)
}

fn loop_early(s: usize) -> SynthDef {
    compute_loop(s, true)
}

fn loop_late(s: usize) -> SynthDef {
    compute_loop(s, false)
}

/// One stage of a long ELF kernel: a loop over the planes `z = Loop(0)` (`trips` of them, of
/// `planes` in the arrays) of an `n` x `n` grid that loads every tap `(array, dz, dy, dx)`
/// around the thread's point (indices wrap at the edges), folds them with FFMAs and stores
/// into `out`, then four FFMAs after the loop: one load program point per tap and one
/// backward branch.
fn stencil_stage(
    p: &mut Program,
    n: i64,
    planes: i64,
    taps: &[(u64, i64, i64, i64)],
    out: u64,
    trips: i64,
) {
    assert!(taps.len() <= 16, "registers 10..26 hold the taps");
    let point = |dz: i64, dy: i64, dx: i64| {
        v(Var::Loop(0))
            .offset(dz)
            .wrap(planes)
            .times(n * n)
            .and(at(v(Var::Gy).offset(dy), n, v(Var::Gx).offset(dx)).wrap(n * n))
    };
    p.begin_loop(0);
    for (k, &(base, dz, dy, dx)) in taps.iter().enumerate() {
        p.load(
            Space::Global,
            10 + k as u16,
            3,
            global(base, point(dz, dy, dx)),
        );
    }
    for k in 0..taps.len() as u16 {
        p.alu(Fp, &[30], &[30, 10 + k]);
    }
    p.store(Space::Global, 30, 3, global(out, point(0, 0, 0)));
    p.end_loop(Expr::c(trips));
    // The stage's epilogue (normalisation) before the next stage's loads: the loop branch's
    // fall-through is farther from a load than its taken path, so it is a program point.
    ffma(p, 4, 31, 30);
}

/// FDTD-3D (60 program points before merging in the thesis): the six field components
/// updated in turn, each a loop over the z planes loading the component, its coefficient and
/// seven values of the other field's two components around the point (9 loads), then the
/// store: 6 x (9 loads + 1 loop branch) = 60 program points.
fn fdtd3d(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 12]);
    let n = 16 * g as i64;
    let planes = pick(s, [2, 4, 8]);
    let mut p = Program::new();
    prologue(&mut p);
    for c in 0..6usize {
        // E (0..3) from the curl of H (3..6), then H from the curl of E; E looks back one
        // cell, H forward (the leapfrog's staggered grid).
        let (other, d) = if c < 3 { (3, -1) } else { (0, 1) };
        let a = ARRAY[other + (c + 1) % 3];
        let b = ARRAY[other + (c + 2) % 3];
        let taps = [
            (ARRAY[c], 0, 0, 0),
            (ARRAY[6 + c], 0, 0, 0),
            (a, 0, 0, 0),
            (a, 0, d, 0),
            (a, d, 0, 0),
            (b, 0, 0, 0),
            (b, 0, 0, d),
            (b, d, 0, 0),
            (b, 0, d, 0),
        ];
        stencil_stage(&mut p, n, planes, &taps, ARRAY[c], planes);
    }
    p.exit();
    def("fdtd3d", s, dim(g, g), dim(16, 16), 32, 0, p)
}

/// Heartwall (94 program points before merging in the thesis): three loads of the sample
/// point's parameters, then 13 stages of template tracking, each a loop over displacement
/// rows loading six values (frame window, template, running sums) around the point:
/// 3 + 13 x (6 loads + 1 loop branch) = 94 program points.
fn heartwall(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 12]);
    let n = 16 * g as i64;
    let rows = pick(s, [2, 3, 4]);
    let mut p = Program::new();
    prologue(&mut p);
    for k in 0..3u16 {
        let idx = v(Var::Block).times(4).offset(k as i64);
        p.load(Space::Global, 27 + k, 3, global(ARRAY[10], idx));
    }
    for stage in 0..13i64 {
        let frame = ARRAY[(stage % 2) as usize];
        let template = ARRAY[2 + (stage % 3) as usize];
        let sums = ARRAY[5 + (stage % 4) as usize];
        let taps = [
            (frame, 0, 0, 0),
            (frame, 0, 0, 1 + stage % 3),
            (frame, 0, 1, 0),
            (template, 0, 0, 0),
            (template, 0, 0, -1),
            (sums, 0, 0, 0),
        ];
        stencil_stage(&mut p, n, rows, &taps, sums, rows);
    }
    p.alu(Fp, &[30], &[30, 27, 28, 29]);
    p.store(Space::Global, 30, 3, global(ARRAY[11], v(Var::Block)));
    p.exit();
    def("heartwall", s, dim(g, g), dim(16, 16), 32, 0, p)
}

/// LUD's perimeter kernel (48 program points before merging in the thesis: lud's kernels
/// have 48): six loops over the tile's rows, each loading the diagonal tile's row and
/// column values and the perimeter tile around the point (7 loads):
/// 6 x (7 loads + 1 loop branch) = 48 program points.
fn lud_perimeter(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 12]);
    let n = 16 * g as i64;
    let rows = pick(s, [2, 4, 8]);
    let mut p = Program::new();
    prologue(&mut p);
    for phase in 0..6i64 {
        let m = ARRAY[(phase % 2) as usize];
        let taps = [
            (m, 0, 0, 0),
            (m, 0, -1, 0),
            (m, 0, 0, -1),
            (m, 0, -1 - phase, -1),
            (m, 0, -1, -1 - phase),
            (ARRAY[2], 0, phase, 0),
            (ARRAY[2], 0, 0, phase),
        ];
        stencil_stage(&mut p, n, rows, &taps, m, rows);
    }
    p.exit();
    def("lud_perimeter", s, dim(g, g), dim(16, 16), 32, 0, p)
}

// ---------------------------------------------------------------- seed 004 (PAVER)

fn mm(s: usize) -> SynthDef {
    at_size(mm_of(pick(s, [6, 13, 13]), pick(s, [1, 1, 3])), s)
}

/// `mm` on a `g` x `g` grid of 16 x 16 blocks (16 g x 16 g matrices), the tile loop run
/// `reps` times.
pub(super) fn mm_of(g: u32, reps: i64) -> SynthDef {
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(1);
    p.begin_loop(0);
    tile_product(&mut p, n, ARRAY[0], ARRAY[1], 16);
    p.end_loop(Expr::c(g as i64));
    p.end_loop(Expr::c(reps));
    p.store(
        Space::Global,
        14,
        3,
        global(ARRAY[2], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.exit();
    named("mm".into(), dim(g, g), dim(16, 16), 24, 2048, p)
}

/// A 1-D chain: block `i` reads its 256-element chunk and `halo` elements of each neighbour
/// chunk on both sides, `reach` chunks away at most.
fn chain(name: &str, s: usize, reach: i64, int_work: usize) -> SynthDef {
    let (g, rows) = (pick(s, [30, 120, 240]), pick(s, [2, 4, 8]));
    let mut d = chain_of(g, rows, reach, int_work);
    d.name = name.to_string();
    at_size(d, s)
}

/// `pf`'s pattern (each block reads its own 256 columns and one column band either side, in
/// two rows) over `blocks` thread blocks of 256 threads: the 10^5-block kernel of `gpusched
/// bench --paver`.
pub fn pf_of_blocks(blocks: u32) -> SynthDef {
    let mut d = chain_of(blocks, 2, 1, 4);
    d.name = format!("pf_{blocks}_blocks");
    d
}

/// A 1-D chain kernel over `g` blocks: `rows` iterations, each reading the element of every
/// column within `reach` blocks' width (256 columns a block) and writing its own.
pub(super) fn chain_of(g: u32, rows: i64, reach: i64, int_work: usize) -> SynthDef {
    let n = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    let row = Expr::v(n, Var::Loop(0));
    for d in -reach..=reach {
        let idx = row.clone().and(v(Var::Gx).offset(d * 256).wrap(n));
        p.load(
            Space::Global,
            10 + (d + reach) as u16,
            3,
            global(ARRAY[0], idx),
        );
    }
    for k in 0..(2 * reach + 1) as u16 {
        p.alu(IntAlu, &[20], &[20, 10 + k]);
    }
    for _ in 0..int_work {
        p.alu(IntAlu, &[21], &[21, 20]);
    }
    p.store(Space::Global, 21, 3, global(ARRAY[1], row.and(v(Var::Gx))));
    p.end_loop(Expr::c(rows));
    p.exit();
    def("chain", 0, dim(g, 1), dim(256, 1), 24, 0, p)
}

fn pf(s: usize) -> SynthDef {
    chain("pf", s, 1, 4)
}

fn sto(s: usize) -> SynthDef {
    chain("sto", s, 1, 24)
}

fn htw(s: usize) -> SynthDef {
    chain("htw", s, 2, 8)
}

fn spmv(s: usize) -> SynthDef {
    at_size(spmv_of(pick(s, [30, 120, 240])), s)
}

/// `spmv` over `g` blocks of 256 rows.
pub(super) fn spmv_of(g: u32) -> SynthDef {
    let rows = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Gx)));
    p.begin_loop(0);
    let k = Expr::v(16, Var::Gx).plus(1, Var::Loop(0));
    p.load(Space::Global, 11, 10, global(ARRAY[1], k.clone()));
    p.load(Space::Global, 12, 10, global(ARRAY[2], k));
    let x = v(Var::Hash {
        salt: 21,
        range: rows as u32,
    });
    p.load(Space::Global, 13, 11, global(ARRAY[3], x));
    p.alu(Fp, &[14], &[14, 12, 13]);
    p.end_loop(
        v(Var::ThreadHash {
            salt: 22,
            range: 16,
        })
        .offset(1),
    );
    p.store(Space::Global, 14, 3, global(ARRAY[4], v(Var::Gx)));
    p.exit();
    named("spmv".into(), dim(g, 1), dim(256, 1), 16, 0, p)
}

fn btr(s: usize) -> SynthDef {
    at_size(btr_of(pick(s, [30, 120, 240])), s)
}

/// `btr` over `g` blocks of 256 queries.
pub(super) fn btr_of(g: u32) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    // Level l of the tree has 8^l nodes of 64 B: the top levels are shared by every block.
    let node = v(Var::Hash {
        salt: 31,
        range: 1 << 18,
    });
    let level = Expr::v(16, Var::Loop(0)).and(node).wrap(1 << 22);
    p.load(Space::Global, 10, 3, global(ARRAY[0], level));
    p.alu(IntAlu, &[11], &[10]).alu(IntAlu, &[11], &[11, 10]);
    p.alu(IntAlu, &[3], &[11]);
    p.end_loop(Expr::c(6));
    p.store(Space::Global, 11, 3, global(ARRAY[1], v(Var::Gx)));
    p.exit();
    named("btr".into(), dim(g, 1), dim(256, 1), 16, 0, p)
}

fn syrk(s: usize) -> SynthDef {
    at_size(syrk_of(pick(s, [4, 8, 12]), pick(s, [16, 32, 64])), s)
}

/// `syrk` on a `g` x `g` grid of 16 x 16 blocks (N = 16 g), `depth` (M) products a thread.
pub(super) fn syrk_of(g: u32, depth: i64) -> SynthDef {
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    p.load(
        Space::Global,
        10,
        3,
        global(ARRAY[0], at(v(Var::Gy), depth, v(Var::Loop(0)))),
    );
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[0], at(v(Var::Gx), depth, v(Var::Loop(0)))),
    );
    p.alu(Fp, &[12], &[12, 10, 11]);
    p.end_loop(Expr::c(depth));
    p.store(
        Space::Global,
        12,
        3,
        global(ARRAY[1], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.exit();
    named("syrk".into(), dim(g, g), dim(16, 16), 16, 0, p)
}

/// SYR2K (PolyBench, `C += A B^T + B A^T`): thread (i, j) = (gy, gx) reads row i of A and of
/// B and row j of both, `depth` elements each: block (bx, by) shares with its grid row and its
/// grid column, as SYRK, through two arrays (Table 2 gives both SpScore 0.414; ours at `large`
/// is 0.777, as `syrk`'s is denser than the paper's). Large: 16 x 16 blocks, Table 2's 256.
fn syr2k(s: usize) -> SynthDef {
    at_size(syr2k_of(pick(s, [4, 8, 16]), pick(s, [16, 32, 64])), s)
}

/// `syr2k` on a `g` x `g` grid of 16 x 16 blocks (N = 16 g), `depth` (M) products a thread.
pub(super) fn syr2k_of(g: u32, depth: i64) -> SynthDef {
    let n = 16 * g as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    let row = |r: Var| at(v(r), depth, v(Var::Loop(0)));
    p.load(Space::Global, 10, 3, global(ARRAY[0], row(Var::Gy)));
    p.load(Space::Global, 11, 3, global(ARRAY[1], row(Var::Gx)));
    p.load(Space::Global, 12, 3, global(ARRAY[1], row(Var::Gy)));
    p.load(Space::Global, 13, 3, global(ARRAY[0], row(Var::Gx)));
    p.alu(Fp, &[14], &[14, 10, 11]);
    p.alu(Fp, &[14], &[14, 12, 13]);
    p.end_loop(Expr::c(depth));
    p.store(
        Space::Global,
        14,
        3,
        global(ARRAY[2], at(v(Var::Gy), n, v(Var::Gx))),
    );
    p.exit();
    named("syr2k".into(), dim(g, g), dim(16, 16), 18, 0, p)
}

/// GEMM (PolyBench, `C = alpha A B + beta C`, no tiling): thread (i, j) = (gy, gx) reads C[i][j],
/// row i of A and column j of B over `depth` (coalesced across a warp): block (bx, by) shares A's
/// rows with its grid row and B's columns with its grid column.
fn gemm(s: usize) -> SynthDef {
    let g = pick(s, [4, 8, 16]);
    let n = 16 * g as i64;
    let depth = pick(s, [16, 32, 64]);
    let mut p = Program::new();
    prologue(&mut p);
    let c = at(v(Var::Gy), n, v(Var::Gx));
    p.load(Space::Global, 12, 3, global(ARRAY[2], c.clone()));
    p.alu(Fp, &[12], &[12]);
    p.begin_loop(0);
    p.load(
        Space::Global,
        10,
        3,
        global(ARRAY[0], at(v(Var::Gy), depth, v(Var::Loop(0)))),
    );
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[1], at(v(Var::Loop(0)), n, v(Var::Gx))),
    );
    p.alu(Fp, &[12], &[12, 10, 11]);
    p.end_loop(Expr::c(depth));
    p.store(Space::Global, 12, 3, global(ARRAY[2], c));
    p.exit();
    def("gemm", s, dim(g, g), dim(16, 16), 16, 0, p)
}

/// BICG's first kernel (PolyBench, `s = A^T r`): thread j = gx walks column j of A (`rows` x
/// `cols`, coalesced across a warp) and reads every `r[i]`: every block reads all of `r` (a
/// complete graph of equal weights), its columns of A are its own.
fn bicg(s: usize) -> SynthDef {
    let g = pick(s, [8, 32, 64]);
    let cols = g as i64 * 256;
    let rows = pick(s, [32, 128, 256]);
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    p.load(Space::Global, 10, 3, global(ARRAY[0], v(Var::Loop(0))));
    p.load(
        Space::Global,
        11,
        3,
        global(ARRAY[1], at(v(Var::Loop(0)), cols, v(Var::Gx))),
    );
    p.alu(Fp, &[12], &[12, 10, 11]);
    p.end_loop(Expr::c(rows));
    p.store(Space::Global, 12, 3, global(ARRAY[2], v(Var::Gx)));
    p.exit();
    def("bicg", s, dim(g, 1), dim(256, 1), 16, 0, p)
}

// ---------------------------------------------------------------- seed 002 (PAWS)

/// One phase: `iters` iterations of a load followed by `alu` dependent FFMAs.
/// Straight-line phase-structured code (spec §3.5; the report's phases, L53): phase `k` is
/// `alus[k]` dependent FFMAs (latency 4 each) and then two independent global loads, which the
/// first FFMA of phase `k + 1` consumes (so a phase ends at each pair of loads, as PAWS's
/// analysis finds). Each load streams its own array at the thread's global index (no reuse in
/// the L1D), and the blocks come in several waves.
fn phases(name: &str, s: usize, alus: [usize; 3]) -> SynthDef {
    let g = pick(s, [90, 270, 540]);
    let mut p = Program::new();
    prologue(&mut p);
    let mut loaded: Option<[u16; 2]> = None;
    for (k, &n) in alus.iter().enumerate() {
        if let Some([a, b]) = loaded {
            p.alu(Fp, &[11], &[11, a, b]);
        }
        ffma(&mut p, n - usize::from(loaded.is_some()), 11, 3);
        if k + 1 < alus.len() {
            let (a, b) = (20 + 2 * k as u16, 21 + 2 * k as u16);
            p.load(Space::Global, a, 3, global(ARRAY[2 * k], v(Var::Gx)));
            p.load(Space::Global, b, 3, global(ARRAY[2 * k + 1], v(Var::Gx)));
            loaded = Some([a, b]);
        }
    }
    p.store(Space::Global, 11, 3, global(ARRAY[5], v(Var::Gx)));
    p.exit();
    def(name, s, dim(g, 1), dim(256, 1), 32, 0, p)
}

/// The phase kernel of `alus` FFMAs per phase at size index `s`, named `phase_<a>_<b>_<c>`
/// (`repro paws`'s sweep from App A to App B).
pub fn phases_of(alus: [usize; 3], s: usize) -> SynthDef {
    let [a, b, c] = alus;
    phases(&format!("phase_{a}_{b}_{c}"), s, alus)
}

/// App A of spec §3.5: medium (40), short (4), long (200) phases.
fn phase_msl(s: usize) -> SynthDef {
    phases("phase_msl", s, [40, 4, 200])
}

/// App B: medium (40), long (200), short (4) phases.
fn phase_mls(s: usize) -> SynthDef {
    phases("phase_mls", s, [40, 200, 4])
}

// ---------------------------------------------------------------- seed 001 (cache bypassing)

/// The start of seed 001's kernels over `g` blocks of 256 threads: the prologue, then a loop
/// whose body begins with a streaming load into r10 (each iteration the next `g x 256`
/// words).
fn streaming_loop(g: u32) -> Program {
    let total = g as i64 * 256;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    p.load(
        Space::Global,
        10,
        3,
        global(ARRAY[0], v(Var::Gx).plus(total, Var::Loop(0))),
    );
    p
}

fn bypass_mix(s: usize) -> SynthDef {
    let g = pick(s, [30, 120, 240]);
    let mut p = streaming_loop(g);
    let scattered = v(Var::Hash {
        salt: 41,
        range: 1 << 22,
    });
    p.load(Space::Global, 11, 3, global(ARRAY[1], scattered));
    let table = v(Var::Hash {
        salt: 42,
        range: 512,
    });
    p.load(Space::Global, 12, 3, global(ARRAY[2], table));
    p.alu(Fp, &[13], &[13, 10, 11]).alu(Fp, &[13], &[13, 12]);
    p.end_loop(Expr::c(pick(s, [4, 8, 16])));
    p.store(Space::Global, 13, 3, global(ARRAY[3], v(Var::Gx)));
    p.exit();
    def("bypass_mix", s, dim(g, 1), dim(256, 1), 16, 0, p)
}

/// BAA of seed 001 (backprop with shared memory, Table III: 16 kB of it per block, L438): the
/// L1D/shared split sets its residency, 3 / 2 / 1 blocks at 16 / 32 / 48 kB of L1D. Per
/// iteration each thread stages a streaming element in shared memory, then reads its
/// neighbour's and a weight from an 8 kB table every thread reuses.
fn bp_smem(s: usize) -> SynthDef {
    let g = pick(s, [30, 120, 240]);
    let mut p = streaming_loop(g);
    p.store(Space::Shared, 10, 3, shared(v(Var::Thread)));
    p.barrier();
    let weight = v(Var::Hash {
        salt: 43,
        range: 2048,
    });
    p.load(Space::Global, 11, 3, global(ARRAY[1], weight));
    p.load(Space::Shared, 12, 3, shared(v(Var::Thread).offset(1)));
    p.alu(Fp, &[13], &[13, 11, 12]).alu(Fp, &[13], &[13, 10]);
    p.barrier();
    p.end_loop(Expr::c(pick(s, [4, 8, 16])));
    p.store(Space::Global, 13, 3, global(ARRAY[2], v(Var::Gx)));
    p.exit();
    def("bp_smem", s, dim(g, 1), dim(256, 1), 16, 16 * 1024, p)
}

// ---------------------------------------------------------------- seed 003 ch. IV-V (Chimera)

/// A kernel with a Chimera Table 4.2 footprint: `threads` x `regs` registers and `smem` bytes
/// of shared memory per block; `iters` loop iterations set the block length; `overwrite`
/// makes it store into its own input array (not idempotent) after `at` of the iterations.
#[allow(clippy::too_many_arguments)]
fn footprint(
    name: &str,
    s: usize,
    threads: u32,
    regs: u32,
    smem: u32,
    iters: i64,
    overwrite: bool,
) -> SynthDef {
    let g = pick(s, [30, 60, 120]);
    let total = g as i64 * threads as i64;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    let idx = v(Var::Block)
        .times(threads as i64)
        .plus(1, Var::Thread)
        .plus(total, Var::Loop(0));
    p.load(Space::Global, 10, 3, global(ARRAY[0], idx.clone()));
    ffma(&mut p, 8, 11, 10);
    p.alu(Sfu, &[12], &[11]);
    p.end_loop(Expr::c(iters * pick(s, [1, 2, 4])));
    let out = if overwrite { ARRAY[0] } else { ARRAY[1] };
    p.store(
        Space::Global,
        12,
        3,
        global(
            out,
            v(Var::Block).times(threads as i64).plus(1, Var::Thread),
        ),
    );
    p.exit();
    def(name, s, dim(g, 1), dim(threads, 1), regs, smem, p)
}

fn chimera_bs(s: usize) -> SynthDef {
    footprint("chimera_bs", s, 384, 16, 0, 16, false)
}

fn chimera_cp(s: usize) -> SynthDef {
    footprint("chimera_cp", s, 128, 14, 0, 48, true)
}

fn chimera_lud(s: usize) -> SynthDef {
    footprint("chimera_lud", s, 256, 16, 0, 4, true)
}

fn chimera_hw(s: usize) -> SynthDef {
    footprint("chimera_hw", s, 512, 32, 3 * 1024, 8, true)
}

fn chimera_imgvf(s: usize) -> SynthDef {
    footprint("chimera_imgvf", s, 320, 32, 47 * 1024, 64, true)
}

/// Chimera's periodic high-priority task (seed 003 L953, spec §6 C-R2): 7 blocks (half of the
/// `gtx480`'s 15 SMs) of 1,536 threads, one per SM, each a dependent FMA loop of about 28,000 /
/// 140,000 / 280,000 cycles at small / medium / large (the thesis's 200 us at 1.4 GHz).
fn chimera_task(s: usize) -> SynthDef {
    let threads = 1536;
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    ffma(&mut p, 4, 11, 3);
    p.end_loop(Expr::c(pick(s, [165, 827, 1653])));
    p.store(
        Space::Global,
        11,
        3,
        global(
            ARRAY[1],
            v(Var::Block).times(threads as i64).plus(1, Var::Thread),
        ),
    );
    p.exit();
    def(
        "chimera_task",
        s,
        dim(7, 1),
        dim(threads as u32, 1),
        16,
        0,
        p,
    )
}

/// The suite, in catalog order.
pub const SUITE: &[Entry] = &[
    Entry {
        name: "hs",
        mirrors: "HotSpot (Rodinia): seed 000 type I; PAVER HS (seed 004)",
        pattern: "2-D 8-neighbour stencil on a row-major grid, 16x16 blocks: block (bx,by) shares halo rows with blocks (bx,by+-1) (TB i and i+-gridDim.x) and halo columns with TB i+-1",
        build: hs,
    },
    Entry {
        name: "srad",
        mirrors: "SRAD (Rodinia): seed 000 type I",
        pattern: "2-D 4-neighbour stencil, row-major, plus four coefficient arrays written once: halo sharing with TB i+-1 and i+-gridDim.x, more arithmetic per load than hs",
        build: srad,
    },
    Entry {
        name: "conv",
        mirrors: "convolutionRows (CUDA SDK): seed 000 type I",
        pattern: "row convolution, 9 taps along x: TB i shares 4-element edges with TB i+-1 (same row)",
        build: conv,
    },
    Entry {
        name: "his",
        mirrors: "histogram (CUDA SDK): seed 000 type I",
        pattern: "streaming reads of consecutive chunks (TB i reads chunk i), shared-memory atomics on hashed bins, one global atomic merge per thread",
        build: his,
    },
    Entry {
        name: "bp",
        mirrors: "backprop bpnn_layerforward (Rodinia): seed 000 type I; Chimera Table 4.2",
        pattern: "block (bx,by) reads input slice by (shared by every block of grid row by: TB i..i+gridDim.x-1) and its own row-major weight tile; shared-memory reduction with barriers",
        build: bp,
    },
    Entry {
        name: "lud",
        mirrors: "LUD lud_internal (Rodinia): seed 000 type II; Chimera Table 4.2",
        pattern: "block (bx,by) reads row panel by and column panel bx tile by tile: TB i shares its column panel with TB i+gridDim.x (column-major) and its row panel with TB i+1",
        build: lud,
    },
    Entry {
        name: "tran",
        mirrors: "transpose (CUDA SDK): seed 000 type II",
        pattern: "reads a row-major tile, writes it column-major through shared memory: the writes of TB i and TB i+gridDim.x land in the same rows",
        build: tran,
    },
    Entry {
        name: "gaussian",
        mirrors: "Gaussian Fan2 (Rodinia): seed 000 type II",
        pattern: "each step k reads pivot row k (shared by the blocks of a grid column: TB i, i+gridDim.x, ...) and multiplier column k (shared by a grid row), updates its own tile",
        build: gaussian,
    },
    Entry {
        name: "sift",
        mirrors: "SIFT-like column convolution: seed 000 type II (mixed)",
        pattern: "9-tap vertical convolution on 32x8 blocks: TB i shares halo rows with TB i+-gridDim.x",
        build: sift,
    },
    Entry {
        name: "nn",
        mirrors: "NN (Rodinia): seed 000, no inter-block locality",
        pattern: "each thread reads its own record once and writes one distance: streaming, nothing shared",
        build: nn,
    },
    Entry {
        name: "nw",
        mirrors: "Needleman-Wunsch (Rodinia): seed 000, no inter-block locality; Chimera Table 4.2",
        pattern: "each block works on a private tile in shared memory along 16 anti-diagonals with barriers and divergence; nothing shared between blocks",
        build: nw,
    },
    Entry {
        name: "locality_row",
        mirrors: "seed 000 Type-I generator (spec locality_bypass_paws.md §1.5)",
        pattern: "1-D grid of 192-thread blocks: TB b reads lines [3b, 3b+6) of 6 rows twice (overlap with TB b+-1) plus a private stream",
        build: locality_row,
    },
    Entry {
        name: "locality_col",
        mirrors: "seed 000 Type-II generator (spec locality_bypass_paws.md §1.5)",
        pattern: "16 x R grid of 192-thread blocks: TB (bx,by) reads a 36-line tile depending only on bx (TB b shares it with b+16, b+32, ...) twice, plus a private stream",
        build: locality_col,
    },
    Entry {
        name: "walk_rows",
        mirrors: "row-major traversal (layout twin of walk_cols)",
        pattern: "each warp walks its 32x32 sub-matrix row by row: lanes on consecutive elements, one 128 B line per access",
        build: walk_rows,
    },
    Entry {
        name: "walk_cols",
        mirrors: "column-major traversal (layout twin of walk_rows)",
        pattern: "each warp walks its 32x32 sub-matrix column by column: lanes a row apart, 32 lines per access, each line reused over 32 iterations",
        build: walk_cols,
    },
    Entry {
        name: "bfs",
        mirrors: "BFS (Rodinia): seed 003 ch. III memory-intensive; seed 004 irregular graph",
        pattern: "node per thread; 3 of 4 nodes are in the frontier (divergence); 1-12 edges per node (divergent loop), each a random edge-list read and a random visited-flag read, a third of them a random write",
        build: bfs,
    },
    Entry {
        name: "km",
        mirrors: "K-means kmeansPoint (Rodinia): seed 003 ch. III; Chimera Table 4.2",
        pattern: "point per thread, features column-major (coalesced across threads), a small centre table read by every thread of every block (high reuse), nested loops",
        build: km,
    },
    Entry {
        name: "lbm",
        mirrors: "LBM (Parboil): seed 003 ch. III memory-intensive",
        pattern: "20 back-to-back loads from 20 arrays, arithmetic, 20 stores: streaming, very high memory-level parallelism",
        build: lbm,
    },
    Entry {
        name: "loop_early",
        mirrors: "seed 003 ch. III (ELF) compute-bound loop, load early",
        pattern: "loop whose load is at the top of the body and is consumed 16 FFMAs later",
        build: loop_early,
    },
    Entry {
        name: "loop_late",
        mirrors: "seed 003 ch. III (ELF) compute-bound loop, load late",
        pattern: "loop whose load is at the bottom of the body and is consumed at the top of the next iteration",
        build: loop_late,
    },
    Entry {
        name: "fdtd3d",
        mirrors: "FDTD-3D: seed 003 ch. III (ELF), 60 program points (merged to 32)",
        pattern: "six field components in turn, each a loop over z planes with 9 stencil loads: 60 program points",
        build: fdtd3d,
    },
    Entry {
        name: "heartwall",
        mirrors: "Heartwall (Rodinia): seed 003 ch. III (ELF), 94 program points (merged to 32)",
        pattern: "13 template-tracking loops of 6 window loads after 3 parameter loads: 94 program points",
        build: heartwall,
    },
    Entry {
        name: "lud_perimeter",
        mirrors: "LUD perimeter (Rodinia): seed 003 ch. III (ELF), 48 program points (merged to 32)",
        pattern: "six loops over the tile rows with 7 diagonal and perimeter loads each: 48 program points",
        build: lud_perimeter,
    },
    Entry {
        name: "mm",
        mirrors: "matrix multiply (PAVER, seed 004), 13x13 grid at medium/large",
        pattern: "block (bx,by) reads row tiles of A (shared with its grid row: TB i+-1) and column tiles of B (shared with its grid column: TB i+-gridDim.x), shared-memory tiles and barriers",
        build: mm,
    },
    Entry {
        name: "pf",
        mirrors: "PathFinder (Rodinia): seed 004 chain",
        pattern: "1-D chain: TB i reads its chunk and the neighbouring chunks of TB i-1 and i+1, row after row",
        build: pf,
    },
    Entry {
        name: "sto",
        mirrors: "StoreGPU (seed 004) chain",
        pattern: "1-D chain like pf with integer hashing work: TB i shares with TB i+-1",
        build: sto,
    },
    Entry {
        name: "htw",
        mirrors: "Heartwall (Rodinia): seed 004 +-2 band",
        pattern: "TB i reads chunks i-2..i+2: sharing with TB i+-1 and i+-2",
        build: htw,
    },
    Entry {
        name: "spmv",
        mirrors: "SpMV (Parboil): seed 004 irregular",
        pattern: "row per thread, 1-16 non-zeros (divergent loop): streaming column/value reads and random x[col] reads (sparse, random sharing)",
        build: spmv,
    },
    Entry {
        name: "btr",
        mirrors: "B+tree (Rodinia): seed 004 irregular",
        pattern: "6-level tree walk per thread: random node reads, the top levels shared by every block",
        build: btr,
    },
    Entry {
        name: "syrk",
        mirrors: "SYRK (PolyBench): seed 004",
        pattern: "block (bx,by) reads rows by and bx of A (row-major): shares with its grid row and its grid column",
        build: syrk,
    },
    Entry {
        name: "syr2k",
        mirrors: "SYR2K (PolyBench): seed 004",
        pattern: "block (bx,by) reads rows by and bx of A and of B (row-major): shares with its grid row and its grid column through two arrays",
        build: syr2k,
    },
    Entry {
        name: "gemm",
        mirrors: "GEMM (PolyBench, untiled): seed 004",
        pattern: "block (bx,by) reads row tile by of A and column tile bx of B, and its tile of C: shares A with its grid row and B with its grid column",
        build: gemm,
    },
    Entry {
        name: "bicg",
        mirrors: "BICG kernel 1 (PolyBench, s = A^T r): seed 004",
        pattern: "1-D: thread j walks column j of A and reads all of r: every block shares r with every other, its columns of A are its own",
        build: bicg,
    },
    Entry {
        name: "phase_msl",
        mirrors: "seed 002 (PAWS) App A: medium-short-long phases (spec §3.5)",
        pattern: "straight-line code: 40, 4 and 200 dependent FFMAs, each phase ended by two streaming loads that the next phase's first FFMA consumes; three waves of blocks at medium",
        build: phase_msl,
    },
    Entry {
        name: "phase_mls",
        mirrors: "seed 002 (PAWS) App B: medium-long-short phases (spec §3.5)",
        pattern: "straight-line code: 40, 200 and 4 dependent FFMAs, each phase ended by two streaming loads that the next phase's first FFMA consumes; three waves of blocks at medium",
        build: phase_mls,
    },
    Entry {
        name: "bypass_mix",
        mirrors: "seed 001 (cache bypassing): streaming, scattered and high-reuse loads",
        pattern: "per iteration a streaming load (used once), a scattered load over 16 MB and a load from a 2 kB table every thread reuses",
        build: bypass_mix,
    },
    Entry {
        name: "bp_smem",
        mirrors: "backprop with shared memory (BAA of seed 001 Table III: 16 kB shared per block)",
        pattern: "per iteration a streaming load staged in 16 kB of shared memory, a neighbour's element read back and a weight from an 8 kB table every thread reuses; residency set by the L1D/shared split",
        build: bp_smem,
    },
    Entry {
        name: "chimera_bs",
        mirrors: "BlackScholes (SDK) in Chimera Table 4.2: 24 kB context/TB, 4 TBs/SM, idempotent",
        pattern: "384 threads x 16 registers, streaming loads, long blocks, writes only its output array",
        build: chimera_bs,
    },
    Entry {
        name: "chimera_cp",
        mirrors: "CP cenergy (Parboil) in Chimera Table 4.2: 7 kB context/TB, 8 TBs/SM, long, not idempotent",
        pattern: "128 threads x 14 registers, long loop, overwrites its input at the end",
        build: chimera_cp,
    },
    Entry {
        name: "chimera_lud",
        mirrors: "LUD lud_internal in Chimera Table 4.2: 16 kB context/TB, 6 TBs/SM, not idempotent",
        pattern: "256 threads x 16 registers, short blocks, overwrites its input",
        build: chimera_lud,
    },
    Entry {
        name: "chimera_hw",
        mirrors: "Heartwall kernel in Chimera Table 4.2: 67 kB context/TB, 2 TBs/SM, not idempotent",
        pattern: "512 threads x 32 registers + 3 kB shared, overwrites its input",
        build: chimera_hw,
    },
    Entry {
        name: "chimera_imgvf",
        mirrors: "Leukocyte IMGVF_kernel in Chimera Table 4.2: 87 kB context/TB, 1 TB/SM, very long",
        pattern: "320 threads x 32 registers + 47 kB shared, very long loop, overwrites its input",
        build: chimera_imgvf,
    },
    Entry {
        name: "chimera_task",
        mirrors: "the periodic high-priority task of Chimera's evaluation (seed 003 L953): half of the gtx480's SMs, 1 TB/SM, idempotent",
        pattern: "1536 threads x 16 registers, a dependent FMA loop (28k / 140k / 280k cycles), one store of its own output",
        build: chimera_task,
    },
];

/// The entry of workload `name`.
pub fn find(name: &str) -> Option<&'static Entry> {
    SUITE.iter().find(|e| e.name == name)
}

/// Opcode classes used by the suite (for documentation tests).
pub fn classes_used() -> Vec<OpClass> {
    let mut v = vec![];
    for e in SUITE {
        for i in &(e.build)(0).program.insts {
            if !v.contains(&i.class()) {
                v.push(i.class());
            }
        }
    }
    v
}
