//! The `paper` size: seed 000's benchmarks at the thesis's inputs (Table 4.2, seed 000 L464-478:
//! kernel launches and thread blocks per benchmark).
//!
//! Each workload is the benchmark's sequence of launches as its host code makes them (Rodinia
//! 3.x, CUDA SDK), every launch with the benchmark's grid and block, and each kernel's program
//! follows the benchmark's device code: which arrays each thread reads and writes, in which
//! order, staged through shared memory with the same barriers, with the branch conditions that
//! mask threads. Arithmetic is counted, not computed (an FFMA per multiply-add, a MUFU per
//! division). The input sizes are derived from Table 4.2's counts; each [`PaperEntry::input`]
//! says how. The `small`/`medium`/`large` sizes ([`super::suite`]) stay the simplified
//! single-kernel mirrors the reference traces were exported from.

use super::ir::{CmpOp, Cond, Expr, Program, Space, SynthDef, Var};
use super::suite::{at, dim, global, lt, named, nn_records, prologue, shared, v, ARRAY};
use crate::workload::sass::OpClass::*;
use crate::workload::Dim3;

/// The size name.
pub const SIZE: &str = "paper";

/// One benchmark at the paper's input.
pub struct PaperEntry {
    /// Suite workload name.
    pub name: &'static str,
    /// The input and how Table 4.2's counts give it.
    pub input: &'static str,
    /// Table 4.2's kernel launches.
    pub kernels: usize,
    /// Table 4.2's thread blocks (all launches).
    pub blocks: u64,
    /// Builds the launches, in order.
    pub build: fn() -> Vec<SynthDef>,
}

/// The benchmarks with a `paper` size.
pub const PAPER: &[PaperEntry] = &[
    PaperEntry {
        name: "hs",
        input: "1024 x 1024 grid, pyramid height 2 (one launch): 16 x 16 blocks computing 12 x 12 points, ceil(1024 / 12)^2 = 86^2 = 7,396 blocks",
        kernels: 1,
        blocks: 7_396,
        build: hs,
    },
    PaperEntry {
        name: "bp",
        input: "65,536 input units, 16 hidden: bpnn_layerforward and bpnn_adjust_weights on a 1 x 4,096 grid of 16 x 16 blocks each (2 x 4,096 = 8,192)",
        kernels: 2,
        blocks: 8_192,
        build: bp,
    },
    PaperEntry {
        name: "lud",
        input: "1200 x 1200 matrix (75 tiles): 74 steps of lud_diagonal (1 block), lud_perimeter (m blocks) and lud_internal (m x m), m = 74..1, and a last lud_diagonal: 3 x 74 + 1 = 223 launches, 74 + 2,775 + 137,825 + 1 = 140,675 blocks",
        kernels: 223,
        blocks: 140_675,
        build: lud,
    },
    PaperEntry {
        name: "nn",
        input: "5,120 blocks of 256 records (1,310,720 records), one euclid launch",
        kernels: 1,
        blocks: 5_120,
        build: nn,
    },
    PaperEntry {
        name: "nw",
        input: "4096 x 4096 alignment (256 x 256 tiles of 16): needle_cuda_shared_1 on 1..256 blocks, then needle_cuda_shared_2 on 255..1: 511 launches, 256^2 = 65,536 blocks",
        kernels: 511,
        blocks: 65_536,
        build: nw,
    },
    PaperEntry {
        name: "srad",
        input: "2048 x 2048 image, 2 iterations of srad_cuda_1 and srad_cuda_2 on 128 x 128 blocks of 16 x 16: 4 x 16,384 = 65,536",
        kernels: 4,
        blocks: 65_536,
        build: srad,
    },
    PaperEntry {
        name: "conv",
        input: "1024 x 1024 image (the sample's 3072 x 3072 would give 17 x 27,648 = 470,016 blocks), its 17 runs (a loop from -1 to 15) of convolutionRowsKernel ((8, 256) blocks of 16 x 4) and convolutionColumnsKernel ((64, 16) blocks of 16 x 8): 34 launches, 17 x 3,072 = 52,224 blocks",
        kernels: 34,
        blocks: 52_224,
        build: conv,
    },
    PaperEntry {
        name: "tran",
        input: "2048 x 2048 matrix (64 x 64 tiles of 32, blocks of 32 x 8, the SDK 2.x sample): its eight kernels (copy, shared-memory copy, naive, coalesced, no bank conflicts, coarse-grained, fine-grained, diagonal) three launches each (a warm-up, NUM_REPS = 1 launch in the timed loop, one with the loop inside the kernel): 24 launches of 4,096 blocks = 98,304 (SDK 3.x/4.x's 16 x 16 tiles on 1024 x 1024 give the same counts on a quarter of the data)",
        kernels: 24,
        blocks: 98_304,
        build: tran,
    },
    PaperEntry {
        name: "his",
        input: "64 MB of data: 2 runs (a warm-up and 1 timed) of histogram64Kernel (4,370 blocks of 64 threads, 15,360 B each) and mergeHistogram64Kernel (64 x 256), then 2 of histogram256Kernel (240 x 192) and mergeHistogram256Kernel (256 x 256): 8 launches, 2 x 4,930 = 9,860 blocks",
        kernels: 8,
        blocks: 9_860,
        build: his,
    },
    PaperEntry {
        name: "gaussian",
        input: "512 x 512 system, built as Rodinia's README gives (RD_WG_SIZE_0 = 128, RD_WG_SIZE_1 = 16): 511 steps of Fan1 (4 blocks of 128 threads) and Fan2 (32 x 32 blocks of 16 x 16): 1,022 launches, 511 x 1,028 = 525,308 blocks",
        kernels: 1_022,
        blocks: 525_308,
        build: gaussian,
    },
];

/// The entry of `name`, if it has a `paper` size.
pub fn find(name: &str) -> Option<&'static PaperEntry> {
    PAPER.iter().find(|e| e.name == name)
}

/// The workloads with a `paper` size.
pub fn names() -> Vec<&'static str> {
    PAPER.iter().map(|e| e.name).collect()
}

fn kernel(name: &str, grid: Dim3, block: Dim3, regs: u32, smem: u32, p: Program) -> SynthDef {
    named(format!("{name}_{SIZE}"), grid, block, regs, smem, p)
}

fn c(k: i64) -> Expr {
    Expr::c(k)
}

fn eq(lhs: Expr, rhs: Expr) -> Cond {
    Cond {
        lhs,
        op: CmpOp::Eq,
        rhs,
    }
}

/// Opens the regions `lo <= e < hi` (two `if`s: close them with [`close`]).
fn within(p: &mut Program, e: Expr, lo: i64, hi: i64) -> usize {
    p.begin_if(lt(c(lo - 1), e.clone()));
    p.begin_if(lt(e, c(hi)));
    2
}

fn close(p: &mut Program, ifs: usize) {
    for _ in 0..ifs {
        p.end_if();
    }
}

// ---------------------------------------------------------------- HotSpot (Rodinia)

/// `calculate_temp` (hotspot.cu), `n` x `n` grid, pyramid height `iters`: each 16 x 16 block
/// loads a tile of temperature and power overlapping its neighbours' by `iters` on each side
/// (the points inside the grid), runs `iters` steps in shared memory (step i computing the
/// points i + 1 to 14 - i of the tile, a barrier after it and after the copy back but the
/// last), and stores its inner (16 - 2 iters)^2 points.
fn hotspot(n: i64, iters: i64) -> SynthDef {
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

fn hs() -> Vec<SynthDef> {
    vec![hotspot(1024, 2)]
}

// ---------------------------------------------------------------- Backprop (Rodinia)

/// Hidden units of backprop (`HEIGHT` = `WIDTH` = 16).
const BP_HID: i64 = 16;

/// The weight index of thread (tx, ty) of block row `by` (`(hid + 1) * HEIGHT * by + (hid +
/// 1) * ty + tx + 1 + (hid + 1)`): the weights are a row-major `(in + 1) x (hid + 1)` array.
fn bp_weight() -> Expr {
    let w = BP_HID + 1;
    Expr::v(w * 16, Var::By)
        .plus(w, Var::Ty)
        .plus(1, Var::Tx)
        .offset(1 + w)
}

/// `bpnn_layerforward_CUDA`: the block's 16 inputs (thread column 0) and its 16 x 16 weights
/// into shared memory, the products, a 4-step tree sum over the rows, the weights written back
/// and the 16 partial sums stored.
fn bp_layerforward(blocks: u32) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_if(eq(v(Var::Tx), c(0)));
    let input = Expr::v(16, Var::By).plus(1, Var::Ty).offset(1);
    p.load(Space::Global, 10, 3, global(ARRAY[0], input));
    p.store(Space::Shared, 10, 3, shared(v(Var::Ty).offset(256)));
    p.end_if();
    p.barrier();
    p.load(Space::Global, 11, 3, global(ARRAY[1], bp_weight()));
    p.store(Space::Shared, 11, 3, shared(v(Var::Thread)));
    p.barrier();
    p.load(Space::Shared, 12, 3, shared(v(Var::Thread)));
    p.load(Space::Shared, 13, 3, shared(v(Var::Ty).offset(256)));
    p.alu(Fp, &[12], &[12, 13]);
    p.store(Space::Shared, 12, 3, shared(v(Var::Thread)));
    p.barrier();
    for step in 1..=4 {
        let two = 1i64 << step;
        p.begin_if(eq(v(Var::Ty).wrap(two), c(0)));
        p.load(
            Space::Shared,
            14,
            3,
            shared(v(Var::Thread).offset(16 * two / 2)),
        );
        p.load(Space::Shared, 12, 3, shared(v(Var::Thread)));
        p.alu(Fp, &[12], &[12, 14]);
        p.store(Space::Shared, 12, 3, shared(v(Var::Thread)));
        p.end_if();
        p.barrier();
    }
    p.load(Space::Shared, 15, 3, shared(v(Var::Thread)));
    p.store(Space::Global, 15, 3, global(ARRAY[1], bp_weight()));
    p.barrier();
    p.begin_if(eq(v(Var::Tx), c(0)));
    p.load(Space::Shared, 16, 3, shared(at(v(Var::Tx), 16, v(Var::Ty))));
    let sum = Expr::v(BP_HID, Var::By).plus(1, Var::Ty);
    p.store(Space::Global, 16, 3, global(ARRAY[2], sum));
    p.end_if();
    p.exit();
    kernel("bp_layerforward", dim(1, blocks), dim(16, 16), 16, 1088, p).with_rows(
        ARRAY[1],
        BP_HID as u64 + 1,
        4,
    )
}

/// `bpnn_adjust_weights_cuda`: each thread updates its weight and its previous change from
/// the hidden unit's delta (shared by every block) and its input; block 0's first row also
/// updates the bias weights.
fn bp_adjust_weights(blocks: u32) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    // `w += ETA * delta * ly + MOMENTUM * oldw` (the bias row: without `ly`).
    let update = |p: &mut Program, w: Expr, ly: Option<Expr>| {
        p.load(Space::Global, 10, 3, global(ARRAY[3], v(Var::Tx).offset(1)));
        if let Some(ly) = ly {
            p.load(Space::Global, 11, 3, global(ARRAY[0], ly));
        }
        p.load(Space::Global, 12, 3, global(ARRAY[4], w.clone()));
        p.alu(Fp, &[13], &[10, 11]).alu(Fp, &[13], &[13, 12]);
        p.load(Space::Global, 14, 3, global(ARRAY[1], w.clone()));
        p.alu(Fp, &[14], &[14, 13]);
        p.store(Space::Global, 14, 3, global(ARRAY[1], w.clone()));
        p.store(Space::Global, 13, 3, global(ARRAY[4], w));
    };
    let ly = Expr::v(16, Var::By).plus(1, Var::Ty).offset(1);
    update(&mut p, bp_weight(), Some(ly));
    p.barrier();
    p.begin_if(eq(v(Var::Ty), c(0)));
    p.begin_if(eq(v(Var::By), c(0)));
    update(&mut p, v(Var::Tx).offset(1), None);
    p.end_if();
    p.end_if();
    p.exit();
    kernel("bp_adjust_weights", dim(1, blocks), dim(16, 16), 16, 0, p)
        .with_rows(ARRAY[1], BP_HID as u64 + 1, 4)
        .with_rows(ARRAY[4], BP_HID as u64 + 1, 4)
}

fn bp() -> Vec<SynthDef> {
    let blocks = 65_536 / 16;
    vec![bp_layerforward(blocks), bp_adjust_weights(blocks)]
}

// ---------------------------------------------------------------- LUD (Rodinia)

/// LUD's matrix: 75 tiles of 16.
const LUD_N: i64 = 1200;

/// `acc -= x * y` over shared memory for `j` = `Loop(0)` in `0..trips` (at least one trip).
fn lud_dot(p: &mut Program, x: Expr, y: Expr, trips: Expr) {
    p.begin_loop(0);
    p.load(Space::Shared, 12, 3, shared(x));
    p.load(Space::Shared, 13, 3, shared(y));
    p.alu(Fp, &[14], &[14, 12, 13]);
    p.end_loop(trips);
}

/// Step `i` of `lud_diagonal` (`i` an expression: a constant, or `Loop(1) + 1`): threads
/// `tx > i` eliminate `shadow[tx][i]` (`j` in `0..i`, none when `first`) and divide it by the
/// pivot; a barrier; they update `shadow[i + 1][tx]` (`j` in `0..=i`); a barrier.
fn lud_diagonal_step(p: &mut Program, i: Expr, first: bool) {
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

/// `lud_diagonal` at tile offset `off`: one block of 16 threads loads the diagonal tile row by
/// row, factors it in shared memory (15 steps of two barriers), stores rows 1..15.
fn lud_diagonal(off: i64) -> SynthDef {
    let n = LUD_N;
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

/// `lud_perimeter` at tile offset `off` over `m` blocks of 32 threads: threads 0-15 load half
/// of the diagonal tile and block `bx`'s tile of the row perimeter, threads 16-31 the other
/// half and its tile of the column perimeter; each half eliminates its tile in shared memory
/// and stores it back.
fn lud_perimeter(off: i64, m: u32) -> SynthDef {
    let n = LUD_N;
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
    for i in 1..16 {
        p.load(Space::Shared, 15, 3, shared(lane(256 + 16 * i)));
        p.store(Space::Global, 15, 3, global(ARRAY[0], row_tile(i)));
    }
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
    for i in 0..16 {
        p.load(Space::Shared, 15, 3, shared(lane(512 - 16 + 16 * i)));
        p.store(Space::Global, 15, 3, global(ARRAY[0], col_tile(i)));
    }
    p.end_if();
    p.exit();
    kernel("lud_perimeter", dim(m, 1), dim(32, 1), 16, 3 * 1024, p).with_rows(ARRAY[0], n as u64, 4)
}

/// `lud_internal` at tile offset `off` on an `m` x `m` grid of 16 x 16 blocks: block (bx, by)
/// loads its row-perimeter tile (shared with its grid column) and column-perimeter tile
/// (shared with its grid row), multiplies them from shared memory (16 multiply-adds) and
/// updates its own element.
fn lud_internal(off: i64, m: u32) -> SynthDef {
    let n = LUD_N;
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

fn lud() -> Vec<SynthDef> {
    let tiles = (LUD_N / 16) as u32;
    let mut v = vec![];
    for step in 0..tiles - 1 {
        let (off, m) = (16 * step as i64, tiles - 1 - step);
        v.push(lud_diagonal(off));
        v.push(lud_perimeter(off, m));
        v.push(lud_internal(off, m));
    }
    v.push(lud_diagonal(16 * (tiles as i64 - 1)));
    v
}

// ---------------------------------------------------------------- NN (Rodinia)

fn nn() -> Vec<SynthDef> {
    let mut d = nn_records(5_120);
    d.name = format!("nn_{SIZE}");
    vec![d]
}

// ---------------------------------------------------------------- Needleman-Wunsch (Rodinia)

/// NW's alignment: 256 tiles of 16 a side (`max_cols` = 4097 with the border).
const NW_TILES: i64 = 256;

/// `needle_cuda_shared_1` (`second` false) or `_2` on anti-diagonal `i` (1-based, `i` blocks
/// of 16 threads): block `bx` works on tile (b_x, b_y) = (bx, i - 1 - bx) (first half) or
/// (bx + 256 - i, 255 - bx) (second half): it loads its 16 x 16 reference tile row by row and
/// the corner (in the order each kernel has), the score column to its left (a column: one row
/// per thread) and the row above, sweeps the
/// 31 anti-diagonals of the tile in shared memory (a barrier each), and stores its 16 rows.
fn needle(second: bool, i: i64) -> SynthDef {
    let cols = 16 * NW_TILES + 1;
    // Tile origin `cols * 16 * b_y + 16 * b_x`, as an expression of bx.
    let (x0, y0) = if second {
        (NW_TILES - i, NW_TILES - 1)
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

fn nw() -> Vec<SynthDef> {
    let first = (1..=NW_TILES).map(|i| needle(false, i));
    first
        .chain((1..NW_TILES).rev().map(|i| needle(true, i)))
        .collect()
}

// ---------------------------------------------------------------- SRAD v2 (Rodinia)

/// SRAD's image: 2048 x 2048 (128 x 128 blocks of 16 x 16).
const SRAD_N: i64 = 2048;

/// Element (16 by + `dy`, 16 bx + `dx`) of a row-major SRAD array: `dy`, `dx` are
/// `threadIdx` for the block's own tile, constants for a halo row or column.
fn srad_at(dy: Expr, dx: Expr) -> Expr {
    let n = SRAD_N;
    Expr::v(16 * n, Var::By)
        .plus(16, Var::Bx)
        .and(dy.times(n))
        .and(dx)
}

/// A halo of a block's 16 x 16 tile: the row above or below it, the column left or right.
#[derive(Clone, Copy)]
enum Side {
    North,
    South,
    West,
    East,
}

/// Loads `side`'s halo of array `base` into shared tile `tile` (256 floats each), then, in the
/// blocks on that border of the image, the border's own row or column over it (the kernels
/// load both).
fn srad_halo(p: &mut Program, base: u64, side: Side, tile: i64) {
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
fn srad_1() -> SynthDef {
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
fn srad_2() -> SynthDef {
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

fn srad() -> Vec<SynthDef> {
    vec![srad_1(), srad_2(), srad_1(), srad_2()]
}

// ---------------------------------------------------------------- Gaussian (Rodinia)

/// Gaussian's system: 512 equations.
const GAUSS_N: i64 = 512;

/// `Fan1` at step `t`: thread i < n - 1 - t divides a[i + t + 1][t] by the pivot a[t][t]
/// into the multiplier m[i + t + 1][t] (a column: one row per thread).
fn fan1(t: i64) -> SynthDef {
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
fn fan2(t: i64) -> SynthDef {
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

fn gaussian() -> Vec<SynthDef> {
    (0..GAUSS_N - 1).flat_map(|t| [fan1(t), fan2(t)]).collect()
}

// ---------------------------------------------------------------- convolutionSeparable (SDK)

/// The SDK sample's image side.
const CONV_N: i64 = 1024;

/// One direction of `convolutionSeparable`: `rows` true is `convolutionRowsKernel` (16 x 4
/// threads, 8 outputs of 16 columns each plus a 16-column halo each side), false is
/// `convolutionColumnsKernel` (16 x 8 threads, 8 outputs of 8 rows each plus an 8-row halo):
/// the block's strip into shared memory (halo elements outside the image are not loaded),
/// then per output 17 taps (KERNEL_RADIUS 8) from shared memory, each an FFMA with the
/// filter from constant memory.
fn convolution(rows: bool) -> SynthDef {
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

fn conv() -> Vec<SynthDef> {
    (0..17)
        .flat_map(|_| [convolution(true), convolution(false)])
        .collect()
}

// ---------------------------------------------------------------- transpose (SDK)

/// The transpose sample's matrix side.
const TRAN_N: i64 = 2048;

/// The transpose sample's kernels (`transpose.cu`), in the order it runs them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transpose {
    Copy,
    CopySharedMem,
    Naive,
    Coalesced,
    NoBankConflicts,
    CoarseGrained,
    FineGrained,
    Diagonal,
}

/// One kernel of the transpose sample on 32 x 8 blocks over 32 x 32 tiles: each thread
/// moves 4 elements of its tile's column (rows `ty`, `ty` + 8, ...), directly or staged in a
/// shared tile (32 x 32, or 32 x 33 to avoid bank conflicts), written to the same tile
/// (copies, fine-grained) or to the transposed one; `Diagonal` renumbers the blocks
/// diagonally (`bx` = (bx + by) mod 64, `by` = bx) as the sample does.
fn transpose(kind: Transpose) -> SynthDef {
    use Transpose::*;
    let n = TRAN_N;
    let tiles = n / 32;
    let (bx, by) = match kind {
        Diagonal => (Expr::v(1, Var::Bx).plus(1, Var::By).wrap(tiles), v(Var::Bx)),
        _ => (v(Var::Bx), v(Var::By)),
    };
    // Element (row, col) = (32 b_row + ty + 8 i, 32 b_col + tx).
    let elem = |b_row: &Expr, b_col: &Expr, i: i64| {
        let row = b_row.clone().times(32).plus(1, Var::Ty).offset(8 * i);
        at(row, n, b_col.clone().times(32).plus(1, Var::Tx))
    };
    let pitch = match kind {
        NoBankConflicts | CoarseGrained | FineGrained | Diagonal => 33,
        _ => 32,
    };
    let staged = !matches!(kind, Copy | Naive);
    let mut p = Program::new();
    prologue(&mut p);
    let tile = |i: i64, transposed: bool| match transposed {
        false => shared(at(v(Var::Ty).offset(8 * i), pitch, v(Var::Tx))),
        true => shared(at(v(Var::Tx), pitch, v(Var::Ty).offset(8 * i))),
    };
    for i in 0..4 {
        p.load(
            Space::Global,
            10 + i as u16,
            3,
            global(ARRAY[0], elem(&by, &bx, i)),
        );
        if staged {
            p.store(Space::Shared, 10 + i as u16, 3, tile(i, false));
        } else if kind == Copy {
            p.store(
                Space::Global,
                10 + i as u16,
                3,
                global(ARRAY[1], elem(&by, &bx, i)),
            );
        }
    }
    if staged {
        p.barrier();
    }
    for i in 0..4 {
        let r = 14 + i as u16;
        let out = match kind {
            Copy => continue,
            // odata[yIndex + height * xIndex + i]: a column of the output per thread.
            Naive => {
                let row = bx.clone().times(32).plus(1, Var::Tx);
                let col = by.clone().times(32).plus(1, Var::Ty).offset(8 * i);
                let out = global(ARRAY[1], at(row, n, col));
                p.store(Space::Global, 10 + i as u16, 3, out);
                continue;
            }
            CopySharedMem | FineGrained => elem(&by, &bx, i),
            Coalesced | NoBankConflicts | CoarseGrained | Diagonal => elem(&bx, &by, i),
        };
        let transposed = !matches!(kind, CopySharedMem | CoarseGrained);
        p.load(Space::Shared, r, 3, tile(i, transposed));
        p.store(Space::Global, r, 3, global(ARRAY[1], out));
    }
    p.exit();
    let name = match kind {
        Copy => "tran_copy",
        CopySharedMem => "tran_copy_shared",
        Naive => "tran_naive",
        Coalesced => "tran_coalesced",
        NoBankConflicts => "tran_no_bank_conflicts",
        CoarseGrained => "tran_coarse_grained",
        FineGrained => "tran_fine_grained",
        Diagonal => "tran_diagonal",
    };
    let smem = if staged { 32 * pitch as u32 * 4 } else { 0 };
    let g = tiles as u32;
    kernel(name, dim(g, g), dim(32, 8), 16, smem, p)
        .with_rows(ARRAY[0], n as u64, 4)
        .with_rows(ARRAY[1], n as u64, 4)
}

impl Transpose {
    /// Every kernel, in the order the sample runs them.
    const ALL: [Transpose; 8] = [
        Transpose::Copy,
        Transpose::CopySharedMem,
        Transpose::Naive,
        Transpose::Coalesced,
        Transpose::NoBankConflicts,
        Transpose::CoarseGrained,
        Transpose::FineGrained,
        Transpose::Diagonal,
    ];
}

fn tran() -> Vec<SynthDef> {
    Transpose::ALL
        .into_iter()
        .flat_map(|k| std::iter::repeat_with(move || transpose(k)).take(3))
        .collect()
}

// ---------------------------------------------------------------- histogram (SDK)

/// The histogram sample's data: 64 MB.
const HIS_BYTES: i64 = 64 << 20;

/// Blocks of `histogram64Kernel`: 64 threads, each 240 bytes (15 `uint4`) a block-stride apart.
const HIS64_BLOCKS: i64 = (HIS_BYTES + 64 * 240 - 1) / (64 * 240);

/// `histogram64Kernel`: per-thread byte counters in shared memory (64 bins x 64 threads),
/// each thread reads 16-byte words a grid apart and bumps a counter per byte (a shared load
/// and store each), then thread t sums bin t over the block's 64 sub-histograms into the
/// block's partial histogram.
fn histogram64() -> SynthDef {
    let words = HIS_BYTES / 16;
    let grid = HIS64_BLOCKS * 64;
    let mut p = Program::new();
    prologue(&mut p);
    for k in 0..16 {
        p.store(Space::Shared, 4, 3, shared(v(Var::Thread).offset(64 * k)));
    }
    p.barrier();
    p.begin_loop(0);
    let pos = Expr::v(64, Var::Block)
        .plus(1, Var::Thread)
        .plus(grid, Var::Loop(0));
    p.begin_if(lt(pos.clone(), c(words)));
    let mut word = global(ARRAY[0], pos);
    word.elem = 16;
    p.load(Space::Global, 10, 3, word);
    for byte in 0..16u32 {
        p.alu(IntAlu, &[11], &[10]);
        let bin = Var::Hash {
            salt: 64 + byte,
            range: 64,
        };
        let counter = shared(Expr::v(64, bin).plus(1, Var::Thread));
        p.load(Space::Shared, 12, 11, counter.clone());
        p.alu(IntAlu, &[12], &[12]);
        p.store(Space::Shared, 12, 11, counter);
    }
    p.end_if();
    p.end_loop(c((words + grid - 1) / grid));
    p.barrier();
    p.begin_loop(0);
    let counter = shared(Expr::v(64, Var::Thread).plus(1, Var::Loop(0)));
    p.load(Space::Shared, 13, 3, counter);
    p.alu(IntAlu, &[14], &[14, 13]);
    p.end_loop(c(64));
    let partial = Expr::v(64, Var::Block).plus(1, Var::Thread);
    p.store(Space::Global, 14, 3, global(ARRAY[1], partial));
    p.exit();
    kernel(
        "his_histogram64",
        dim(HIS64_BLOCKS as u32, 1),
        dim(64, 1),
        16,
        4096,
        p,
    )
}

/// `histogram256Kernel`: 240 blocks of 192 threads (6 warps), a 256-bin sub-histogram per
/// warp in shared memory; each thread reads 4-byte words a grid apart and adds each byte with
/// a shared atomic, then the block sums its six sub-histograms bin by bin into its partial
/// histogram.
fn histogram256() -> SynthDef {
    let (blocks, threads) = (240i64, 192i64);
    let grid = blocks * threads;
    let words = HIS_BYTES / 4;
    let mut p = Program::new();
    prologue(&mut p);
    for k in 0..8 {
        p.store(
            Space::Shared,
            4,
            3,
            shared(v(Var::Thread).offset(threads * k)),
        );
    }
    p.barrier();
    p.begin_loop(0);
    let pos = Expr::v(threads, Var::Block)
        .plus(1, Var::Thread)
        .plus(grid, Var::Loop(0));
    p.begin_if(lt(pos.clone(), c(words)));
    p.load(Space::Global, 10, 3, global(ARRAY[0], pos));
    for byte in 0..4u32 {
        p.alu(IntAlu, &[11], &[10]);
        let bin = v(Var::Hash {
            salt: 256 + byte,
            range: 256,
        });
        // s_WarpHist + byte: 256 (tid / 32) + bin, i.e. 8 tid - 8 (tid mod 32) + bin.
        let warp = v(Var::Thread).wrap(32).times(-8);
        let warp_hist = Expr::v(8, Var::Thread).and(warp).and(bin);
        p.atomic(Space::Shared, 12, 11, shared(warp_hist));
    }
    p.end_if();
    p.end_loop(c((words + grid - 1) / grid));
    p.barrier();
    // Bins tid and tid + 192 (< 256): the six warps' counters of each.
    for (k, cond) in [(0, None), (threads, Some(256 - threads))] {
        if let Some(limit) = cond {
            p.begin_if(lt(v(Var::Thread), c(limit)));
        }
        for w in 0..6 {
            p.load(
                Space::Shared,
                13,
                3,
                shared(v(Var::Thread).offset(k + 256 * w)),
            );
            p.alu(IntAlu, &[14], &[14, 13]);
        }
        let partial = Expr::v(256, Var::Block).plus(1, Var::Thread).offset(k);
        p.store(Space::Global, 14, 3, global(ARRAY[2], partial));
        if cond.is_some() {
            p.end_if();
        }
    }
    p.exit();
    kernel(
        "his_histogram256",
        dim(240, 1),
        dim(192, 1),
        16,
        6 * 1024,
        p,
    )
}

/// `mergeHistogram64Kernel` (`bins` 64, over `partials` partial histograms) or
/// `mergeHistogram256Kernel`: a block per bin of 256 threads; each thread sums the bin over
/// partial histograms 256 apart, then a shared-memory tree sum and thread 0's store.
fn merge_histogram(bins: i64, partials: i64, from: u64, to: u64) -> SynthDef {
    let mut p = Program::new();
    prologue(&mut p);
    p.begin_loop(0);
    p.begin_if(lt(v(Var::Thread).plus(256, Var::Loop(0)), c(partials)));
    let partial = Expr::v(bins, Var::Thread)
        .plus(256 * bins, Var::Loop(0))
        .plus(1, Var::Block);
    p.load(Space::Global, 10, 3, global(from, partial));
    p.alu(IntAlu, &[11], &[11, 10]);
    p.end_if();
    p.end_loop(c((partials + 255) / 256));
    p.store(Space::Shared, 11, 3, shared(v(Var::Thread)));
    for stride in [128i64, 64, 32, 16, 8, 4, 2, 1] {
        p.barrier();
        p.begin_if(lt(v(Var::Thread), c(stride)));
        p.load(Space::Shared, 12, 3, shared(v(Var::Thread).offset(stride)));
        p.load(Space::Shared, 11, 3, shared(v(Var::Thread)));
        p.alu(IntAlu, &[11], &[11, 12]);
        p.store(Space::Shared, 11, 3, shared(v(Var::Thread)));
        p.end_if();
    }
    p.begin_if(eq(v(Var::Thread), c(0)));
    p.store(Space::Global, 11, 3, global(to, v(Var::Block)));
    p.end_if();
    p.exit();
    let name = format!("his_merge{bins}");
    kernel(&name, dim(bins as u32, 1), dim(256, 1), 16, 1024, p)
}

fn his() -> Vec<SynthDef> {
    // The sample's two loops: a warm-up and a timed run of the 64-bin histogram, then the
    // same of the 256-bin one.
    let h64 = [
        histogram64(),
        merge_histogram(64, HIS64_BLOCKS, ARRAY[1], ARRAY[3]),
    ];
    let h256 = [
        histogram256(),
        merge_histogram(256, 240, ARRAY[2], ARRAY[4]),
    ];
    let runs = [&h64, &h64, &h256, &h256];
    runs.into_iter().flatten().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::sass::OpClass;
    use crate::workload::synth::interp::run_block;

    #[test]
    fn every_paper_size_has_table_4_2s_launches_and_blocks() {
        for e in PAPER {
            let defs = (e.build)();
            assert_eq!(defs.len(), e.kernels, "{}", e.name);
            let blocks: u64 = defs.iter().map(|d| d.grid.volume()).sum();
            assert_eq!(blocks, e.blocks, "{}", e.name);
            assert!(
                defs.iter().all(|d| d.name.ends_with("_paper")),
                "{}",
                e.name
            );
        }
    }

    /// Every global access of `class` of `d`'s blocks as (array index, element of 4 bytes).
    fn accesses(d: &SynthDef, class: OpClass) -> Vec<(usize, i64)> {
        let mut v = vec![];
        for b in 0..d.grid.x * d.grid.y {
            let insts = run_block(d, b).unwrap();
            for w in &insts.warps {
                for i in w.iter().filter(|i| i.class == class) {
                    for a in insts.addrs(i).iter() {
                        let k = (a / ARRAY[0]) as usize - 1;
                        v.push((k, (a - ARRAY[k]) as i64 / 4));
                    }
                }
            }
        }
        v
    }

    fn stores(d: &SynthDef) -> Vec<(usize, i64)> {
        accesses(d, OpClass::StoreGlobal)
    }

    /// The elements `(row, col)` of an `n`-column array among `stores` into array `k`,
    /// sorted; panics on an element stored twice.
    fn cells(stores: &[(usize, i64)], k: usize, n: i64) -> Vec<(i64, i64)> {
        let mut v: Vec<(i64, i64)> = stores
            .iter()
            .filter(|s| s.0 == k)
            .map(|s| (s.1 / n, s.1 % n))
            .collect();
        v.sort_unstable();
        let len = v.len();
        v.dedup();
        assert_eq!(v.len(), len, "an element stored twice");
        v
    }

    #[test]
    fn nw_scores_every_cell_once_in_anti_diagonal_order() {
        let cols = 16 * NW_TILES + 1;
        let defs = nw();
        let mut all = vec![];
        for (k, d) in defs.iter().enumerate() {
            let cells = cells(&stores(d), 0, cols);
            // Launch k works on tile anti-diagonal k (tile row + tile column = k).
            assert!(cells
                .iter()
                .all(|&(r, c)| (r - 1) / 16 + (c - 1) / 16 == k as i64));
            all.extend(cells);
        }
        all.sort_unstable();
        let len = all.len();
        all.dedup();
        assert_eq!((all.len(), len), (4096 * 4096, 4096 * 4096));
        assert!(all.iter().all(|&(r, c)| r >= 1 && c >= 1));
    }

    #[test]
    fn lud_updates_each_steps_trailing_matrix_once() {
        let n = LUD_N;
        for step in [0i64, 40, 73] {
            let off = 16 * step;
            let m = (n / 16 - 1 - step) as u32;
            let inner = cells(&stores(&lud_internal(off, m)), 0, n);
            let want: Vec<(i64, i64)> = (off + 16..n)
                .flat_map(|r| (off + 16..n).map(move |c| (r, c)))
                .collect();
            assert_eq!(inner, want, "lud_internal at step {step}");
            // The perimeter: rows off+1..off+16 right of the diagonal tile, and the columns
            // below it.
            let peri = cells(&stores(&lud_perimeter(off, m)), 0, n);
            let right = (off + 1..off + 16).flat_map(|r| (off + 16..n).map(move |c| (r, c)));
            let below = (off + 16..n).flat_map(|r| (off..off + 16).map(move |c| (r, c)));
            let mut want: Vec<(i64, i64)> = right.chain(below).collect();
            want.sort_unstable();
            assert_eq!(peri, want, "lud_perimeter at step {step}");
        }
    }

    #[test]
    fn gaussian_updates_the_rows_below_each_pivot() {
        let n = GAUSS_N;
        for t in [0i64, 255, 510] {
            let s = stores(&fan2(t));
            let a = cells(&s, 0, n);
            let want: Vec<(i64, i64)> = (t + 1..n)
                .flat_map(|r| (t..n).map(move |c| (r, c)))
                .collect();
            assert_eq!(a, want, "Fan2 at step {t}");
            let b = cells(&s, 2, n);
            assert_eq!(b, (t + 1..n).map(|r| (0, r)).collect::<Vec<_>>());
            let m = cells(&stores(&fan1(t)), 1, n);
            assert_eq!(m, (t + 1..n).map(|r| (r, t)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn hotspot_stores_each_point_of_the_grid_once() {
        let a = cells(&stores(&hotspot(1024, 2)), 2, 1024);
        assert_eq!(a.len(), 1024 * 1024);
        assert_eq!((a[0], a[a.len() - 1]), ((0, 0), (1023, 1023)));
    }

    #[test]
    fn convolution_writes_every_pixel_once_per_direction() {
        let n = CONV_N;
        let all: Vec<(i64, i64)> = (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
        assert_eq!(cells(&stores(&convolution(true)), 1, n), all);
        assert_eq!(cells(&stores(&convolution(false)), 2, n), all);
        // Each direction reads its halo inside the image only: every pixel, some twice.
        for (rows, k) in [(true, 0), (false, 1)] {
            let reads = accesses(&convolution(rows), OpClass::LoadGlobal);
            let inside = reads
                .iter()
                .filter(|a| a.0 == k && (0..n * n).contains(&a.1));
            assert_eq!(inside.count(), reads.len());
            assert!(reads.len() as i64 > n * n);
        }
    }

    #[test]
    fn every_transpose_kernel_writes_each_element_once_where_the_sample_does() {
        use Transpose::*;
        let n = TRAN_N;
        for kind in Transpose::ALL {
            let d = transpose(kind);
            assert_eq!(cells(&stores(&d), 1, n).len(), (n * n) as usize);
            // Block 1 (bx 1, by 0) reads tile (0, 1) (Diagonal: tile (1, 1)); it writes the
            // same tile when copying and tile (1, 0) (Diagonal (1, 1)) when transposing.
            let mut one = d.clone();
            one.grid = dim(2, 1);
            let tile = |cells: Vec<(i64, i64)>| {
                let mut t: Vec<(i64, i64)> = cells.iter().map(|&(r, c)| (r / 32, c / 32)).collect();
                t.dedup();
                t
            };
            let read = tile(cells(&accesses(&one, OpClass::LoadGlobal), 0, n));
            let wrote = tile(cells(&stores(&one), 1, n));
            let (r, w) = match kind {
                Copy | CopySharedMem | FineGrained => ((0, 1), (0, 1)),
                Diagonal => ((1, 1), (1, 1)),
                _ => ((0, 1), (1, 0)),
            };
            assert_eq!((read.last(), wrote.last()), (Some(&r), Some(&w)));
        }
    }

    #[test]
    fn histograms_read_every_word_once_and_merge_every_bin() {
        let words = |d: &SynthDef, elem: i64| {
            let mut w: Vec<i64> = accesses(d, OpClass::LoadGlobal)
                .into_iter()
                .filter(|a| a.0 == 0)
                .map(|a| a.1 / elem)
                .collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        let h256 = words(&histogram256(), 1);
        assert_eq!(h256, (0..HIS_BYTES / 4).collect::<Vec<_>>());
        assert_eq!(histogram64().grid.x as i64 * 64 * 240, 67_123_200);
        for (d, bins) in [
            (merge_histogram(64, HIS64_BLOCKS, ARRAY[1], ARRAY[3]), 64),
            (merge_histogram(256, 240, ARRAY[2], ARRAY[4]), 256),
        ] {
            let k = if bins == 64 { 3 } else { 4 };
            assert_eq!(
                cells(&stores(&d), k, bins),
                (0..bins).map(|b| (0, b)).collect::<Vec<_>>()
            );
        }
    }

    /// Barriers warp 0 of block `b` of `d` passes.
    fn barriers(d: &SynthDef, b: u32) -> usize {
        let insts = run_block(d, b).unwrap();
        insts.warps[0]
            .iter()
            .filter(|i| i.class == OpClass::Barrier)
            .count()
    }

    #[test]
    fn launch_orders_and_barriers_follow_the_sources() {
        let names: Vec<String> = his().into_iter().map(|d| d.name).collect();
        let want = [
            "64", "merge64", "64", "merge64", "256", "merge256", "256", "merge256",
        ];
        let want: Vec<String> = want
            .iter()
            .map(|w| match w.starts_with("merge") {
                true => format!("his_{w}_paper"),
                false => format!("his_histogram{w}_paper"),
            })
            .collect();
        assert_eq!(names, want);
        // hotspot: the load barrier, a barrier after each step and after each copy back but
        // the last; lud_diagonal: the load barrier and two per step; the perimeter: one.
        assert_eq!(barriers(&hotspot(1024, 2), 100), 1 + 2 + 1);
        assert_eq!(barriers(&lud_diagonal(0), 0), 1 + 2 * 15);
        assert_eq!(barriers(&lud_perimeter(0, 3), 1), 1);
        // srad_cuda_1's blocks on the image's first row also load the edge row for `north`.
        let d = srad_1();
        let row0 = |b| {
            let insts = run_block(&d, b).unwrap();
            let loads = insts.warps[0].iter();
            loads.filter(|i| i.class == OpClass::LoadGlobal).count()
        };
        assert_eq!(row0(5), row0(128 + 5) + 1);
    }

    #[test]
    fn every_paper_kernel_runs_its_first_and_last_block() {
        for e in PAPER {
            for d in (e.build)() {
                let last = d.grid.x * d.grid.y - 1;
                for b in [0, last / 2, last] {
                    let insts = run_block(&d, b).unwrap();
                    assert!(insts.warp_instructions() > 0, "{} block {b}", d.name);
                }
            }
        }
    }
}
