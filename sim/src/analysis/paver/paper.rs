//! The paper's Table 2 (L146-L166): per benchmark, the locality graph's sparsity score and
//! thread blocks (statistics averaged over the benchmark's kernels, L177), and the suite kernel
//! that mirrors its sharing pattern, where there is one (`gpusched workloads`).

use serde::Serialize;

/// One row of Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Table2Row {
    /// The paper's benchmark (`MM`).
    pub benchmark: &'static str,
    /// The suite kernel that mirrors it, if any (`mm`).
    pub suite: Option<&'static str>,
    /// SpScore, `1 - nonzeros / TBs^2`.
    pub sparsity: f64,
    /// Thread blocks.
    pub tbs: u32,
    /// Its inter-TB locality category (L109, L319): `high`, `low` or `none`.
    pub category: &'static str,
}

const fn row(
    benchmark: &'static str,
    suite: Option<&'static str>,
    sparsity: f64,
    tbs: u32,
    category: &'static str,
) -> Table2Row {
    Table2Row {
        benchmark,
        suite,
        sparsity,
        tbs,
        category,
    }
}

/// Table 2, in the paper's order.
pub const TABLE2: &[Table2Row] = &[
    row("HS", Some("hs"), 0.995823097, 1849, "high"),
    row("PF", Some("pf"), 0.995689675, 463, "low"),
    row("STO", Some("sto"), 0.99480523, 384, "low"),
    row("BFS", Some("bfs"), 0.006408691, 3907, "low"),
    row("SRAD", Some("srad"), 0.977020264, 16384, "high"),
    row("TPACF", None, 0.745055815, 201, "low"),
    row("MM", Some("mm"), 0.857988166, 169, "high"),
    row("SYR2K", Some("syr2k"), 0.4140625, 256, "high"),
    row("SYRK", Some("syrk"), 0.4140625, 256, "high"),
    row("HTW", Some("htw"), 0.923875433, 51, "high"),
    row("MGS", None, 0.939453125, 32768, "low"),
    row("BTR", Some("btr"), 0.000167, 10000, "high"),
    row("DWT", None, 0.862603306, 4096, "low"),
    row("SPMV", Some("spmv"), 0.430555556, 765, "low"),
    row("MUM", None, 1.0, 196, "none"),
    row("SAD", None, 1.0, 1584, "none"),
    row("BLK", None, 1.0, 480, "none"),
    row("BP", None, 1.0, 4096, "none"),
];

/// The Table 2 row of the benchmark `suite` mirrors.
pub fn mirrored_by(suite: &str) -> Option<&'static Table2Row> {
    TABLE2.iter().find(|r| r.suite == Some(suite))
}
