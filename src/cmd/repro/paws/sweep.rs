//! `repro paws`'s sweep from App A to App B (spec §3.5): the phase kernel of 40, `m` and
//! `204 - m` FFMAs for a middle phase `m` from short (4: App A) to long (200: App B), under
//! LRR, GTO and PAWS at both levels. The spec expects the faster baseline to change on the
//! way (App A: GTO > RR, App B: RR > GTO); the sweep shows whether, and where, it does.
//! `--only` names its points by kernel (`phase_40_4_200`).

use super::{measure_all, Cell, POLICIES, TWO_LEVEL};
use anyhow::Result;
use gpusim::workload::kernel::WorkloadSource;
use gpusim::workload::synth::{self, suite};
use serde::Serialize;
use std::fmt::Write as _;

/// The middle phase's FFMAs at each point (4: App A; 200: App B).
pub const MIDDLE: [usize; 7] = [4, 36, 68, 102, 136, 168, 200];

/// The first phase's FFMAs (App A's and B's medium phase).
const FIRST: usize = 40;

/// The FFMAs of the middle and the last phase together (4 + 200).
const REST: usize = 204;

/// One point of the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// FFMAs per phase.
    pub phases: [usize; 3],
    /// Cycles under LRR, GTO, PAWS, TL-RR, TL-GTO, TL-PAWS.
    pub cell: Cell,
}

/// The FFMAs per phase of the point whose middle phase has `m`.
fn phases(m: usize) -> [usize; 3] {
    [FIRST, m, REST - m]
}

/// The kernel name of the point whose middle phase has `m` (`phase_40_4_200`).
pub fn name(m: usize) -> String {
    let [a, b, c] = phases(m);
    format!("phase_{a}_{b}_{c}")
}

/// Runs the points `keep` keeps (by [`name`]) on `config` at `size`, on `jobs` threads.
pub fn run(
    size: &str,
    config: &str,
    jobs: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<Point>> {
    let s = synth::size_index(size)?;
    let policies = &POLICIES[..2 * TWO_LEVEL];
    let middles: Vec<usize> = MIDDLE.into_iter().filter(|&m| keep(&name(m))).collect();
    let open = |i: usize| -> Result<Box<dyn WorkloadSource>> {
        let m = middles[i];
        Ok(Box::new(synth::workload(suite::phases_of(phases(m), s))))
    };
    let names: Vec<String> = middles.iter().map(|&m| name(m)).collect();
    let cells = measure_all(&names, &open, config, policies, jobs)?;
    Ok(middles
        .into_iter()
        .zip(cells)
        .map(|(m, cell)| Point {
            phases: phases(m),
            cell,
        })
        .collect())
}

/// `+4.6%`: the speedup of `col` over `base` in `c` (cycles of `base` over those of `col`).
fn over(c: &Cell, col: usize, base: usize) -> String {
    let r = c.cycles[base] as f64 / c.cycles[col].max(1) as f64;
    format!("{:+.1}%", 100.0 * (r - 1.0))
}

/// The sweep's section of the report.
pub fn markdown(md: &mut String, points: &[Point]) {
    let _ = write!(
        md,
        "\n## From App A to App B\n\n\
         The phase kernel with {FIRST}, m and {REST} - m FFMAs per phase, m from {} (App A) to \
         {} (App B): GTO's speedup over LRR at each level (positive: GTO faster) and PAWS \
         relative to the faster baseline of its level. The spec expects GTO to win at App A \
         and RR at App B (§3.5).\n\n\
         | phases | GTO over LRR | PAWS / faster | TL-GTO over TL-RR | TL-PAWS / faster |\n\
         |---|---:|---:|---:|---:|\n",
        MIDDLE[0],
        MIDDLE[MIDDLE.len() - 1]
    );
    for p in points {
        let [a, b, c] = p.phases;
        let cell = &p.cell;
        let _ = writeln!(
            md,
            "| {a} / {b} / {c} | {} | {:.1}% | {} | {:.1}% |",
            over(cell, 1, 0),
            100.0 * cell.paws_of_best(),
            over(cell, TWO_LEVEL + 1, TWO_LEVEL),
            100.0 * cell.tl_paws_of_best()
        );
    }
}
