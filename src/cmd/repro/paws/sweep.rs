//! `repro paws`'s sweep from App A to App B (spec §3.5): the phase kernel of 40, `m` and
//! `204 - m` FFMAs for a middle phase `m` from short (4: App A) to long (200: App B), under
//! LRR, GTO and PAWS at both levels. The spec expects the faster baseline to change on the
//! way (App A: GTO > RR, App B: RR > GTO); the sweep shows whether, and where, it does.
//! `--only` names its points by kernel (`phase_40_4_200`).

use super::{measure_with, Cell, POLICIES, TWO_LEVEL};
use anyhow::{Context, Result};
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
    /// Per configuration: cycles under LRR, GTO, PAWS, TL-RR, TL-GTO, TL-PAWS.
    pub cells: Vec<Cell>,
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

/// Runs the points `keep` keeps (by [`name`]) on every configuration of `configs` at `size`,
/// on `jobs` threads.
pub fn run(
    size: &str,
    configs: &[String],
    jobs: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<Point>> {
    let s = synth::size_index(size)?;
    let policies = &POLICIES[..2 * TWO_LEVEL];
    let middles: Vec<usize> = MIDDLE.into_iter().filter(|&m| keep(&name(m))).collect();
    let runs: Vec<(usize, usize)> = (middles.iter())
        .flat_map(|&m| (0..configs.len()).map(move |c| (m, c)))
        .collect();
    let mut cells = super::super::pool::map(jobs, &runs, &|&(m, c)| {
        let open = || -> Result<Box<dyn WorkloadSource>> {
            Ok(Box::new(synth::workload(suite::phases_of(phases(m), s))))
        };
        measure_with(&open, &configs[c], policies)
            .with_context(|| format!("{} on {}", name(m), configs[c]))
    })?
    .into_iter();
    Ok(middles
        .into_iter()
        .map(|m| Point {
            phases: phases(m),
            cells: cells.by_ref().take(configs.len()).collect(),
        })
        .collect())
}

/// `+4.6%`: the speedup of `col` over `base` in `c` (cycles of `base` over those of `col`).
fn over(c: &Cell, col: usize, base: usize) -> String {
    let r = c.cycles[base] as f64 / c.cycles[col].max(1) as f64;
    format!("{:+.1}%", 100.0 * (r - 1.0))
}

/// The sweep's section of the report.
pub fn markdown(md: &mut String, configs: &[String], points: &[Point]) {
    let _ = write!(
        md,
        "\n## From App A to App B\n\n\
         The phase kernel with {FIRST}, m and {REST} - m FFMAs per phase, m from {} (App A) to \
         {} (App B): GTO's speedup over LRR at each level (positive: GTO faster) and PAWS \
         relative to the faster baseline of its level. The spec expects GTO to win at App A \
         and RR at App B (§3.5).\n\n| phases |",
        MIDDLE[0],
        MIDDLE[MIDDLE.len() - 1]
    );
    for c in configs {
        let _ = write!(
            md,
            " `{c}` GTO over LRR | PAWS / faster | TL-GTO over TL-RR | TL-PAWS / faster |"
        );
    }
    let _ = write!(md, "\n|---|");
    for _ in configs {
        let _ = write!(md, "---:|---:|---:|---:|");
    }
    let _ = writeln!(md);
    for p in points {
        let [a, b, c] = p.phases;
        let _ = write!(md, "| {a} / {b} / {c} |");
        for cell in &p.cells {
            let _ = write!(
                md,
                " {} | {:.1}% | {} | {:.1}% |",
                over(cell, 1, 0),
                100.0 * cell.paws_of_best(),
                over(cell, TWO_LEVEL + 1, TWO_LEVEL),
                100.0 * cell.tl_paws_of_best()
            );
        }
        let _ = writeln!(md);
    }
}
