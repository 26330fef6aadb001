//! Backprop (Rodinia): `bpnn_layerforward_CUDA`, `bpnn_adjust_weights_cuda`.

use super::*;

/// Hidden units of backprop (`HEIGHT` = `WIDTH` = 16).
pub(super) const BP_HID: i64 = 16;

/// The weight index of thread (tx, ty) of block row `by` (`(hid + 1) * HEIGHT * by + (hid +
/// 1) * ty + tx + 1 + (hid + 1)`): the weights are a row-major `(in + 1) x (hid + 1)` array.
pub(super) fn bp_weight() -> Expr {
    let w = BP_HID + 1;
    Expr::v(w * 16, Var::By)
        .plus(w, Var::Ty)
        .plus(1, Var::Tx)
        .offset(1 + w)
}

/// `bpnn_layerforward_CUDA`: the block's 16 inputs (thread column 0) and its 16 x 16 weights
/// into shared memory, the products, a 4-step tree sum over the rows, the weights written back
/// and the 16 partial sums stored.
pub(super) fn bp_layerforward(blocks: u32) -> SynthDef {
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
pub(super) fn bp_adjust_weights(blocks: u32) -> SynthDef {
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

pub(super) fn bp() -> Vec<SynthDef> {
    let blocks = 65_536 / 16;
    vec![bp_layerforward(blocks), bp_adjust_weights(blocks)]
}

pub(super) fn bp_elf() -> Vec<SynthDef> {
    for_elf(bp())
}
