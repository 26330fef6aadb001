//! histogram (CUDA SDK): histogram64 and histogram256 with their merges.

use super::*;

/// The histogram sample's data: 64 MB.
pub(super) const HIS_BYTES: i64 = 64 << 20;

/// Blocks of `histogram64Kernel`: 64 threads, each 240 bytes (15 `uint4`) a block-stride apart.
pub(super) const HIS64_BLOCKS: i64 = (HIS_BYTES + 64 * 240 - 1) / (64 * 240);

/// `histogram64Kernel`: per-thread byte counters in shared memory (64 bins x 64 threads),
/// each thread reads 16-byte words a grid apart and bumps a counter per byte (a shared load
/// and store each), then thread t sums bin t over the block's 64 sub-histograms into the
/// block's partial histogram.
pub(super) fn histogram64() -> SynthDef {
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
pub(super) fn histogram256() -> SynthDef {
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
pub(super) fn merge_histogram(bins: i64, partials: i64, from: u64, to: u64) -> SynthDef {
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

pub(super) fn his() -> Vec<SynthDef> {
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
