//! transpose (CUDA SDK): its eight kernels.

use super::*;

/// The transpose sample's matrix side.
pub(super) const TRAN_N: i64 = 2048;

/// The transpose sample's kernels (`transpose.cu`), in the order it runs them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Transpose {
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
pub(super) fn transpose(kind: Transpose) -> SynthDef {
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
    pub(super) const ALL: [Transpose; 8] = [
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

pub(super) fn tran() -> Vec<SynthDef> {
    Transpose::ALL
        .into_iter()
        .flat_map(|k| std::iter::repeat_with(move || transpose(k)).take(3))
        .collect()
}
