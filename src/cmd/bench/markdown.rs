//! `gpusched bench --markdown`: the figures as Markdown tables, as the results page
//! `docs/src/results/speed.md` holds them.

use super::cosim::CosimRow;
use super::{BenchReport, LockstepRow, ParseFigures};

/// The header of the suite's table.
const SUITE_HEADER: &str = "| workload | thread instructions | cycles | seconds | M thread-instructions/s | k cycles/s | peak RSS (MB) | reader alone (s, share) |\n|---|---:|---:|---:|---:|---:|---:|---:|";

/// The header of the reader's table.
const PARSE_HEADER: &str = "| trace | MB of text | warp instructions | seconds | MB/s | M warp instructions/s |\n|---|---:|---:|---:|---:|---:|";

/// The header of the co-simulation table.
const COSIM_HEADER: &str =
    "| module | cycles run | mismatches | M cycles/s |\n|---|---:|---:|---:|";

/// The header of the lockstep table.
const LOCKSTEP_HEADER: &str = "| case (blocks), gtx480 | kernel | cycles | golden (s) | lockstep (s) | ratio | target | statistics |\n|---|---|---:|---:|---:|---:|---:|---|";

/// A table: `header` (with its separator line), one line per row of cells, then a blank line
/// and `footer`.
pub(super) fn table(
    header: &str,
    rows: impl IntoIterator<Item = Vec<String>>,
    footer: &str,
) -> String {
    let mut out = format!("{header}\n");
    for cells in rows {
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push_str(&format!("\n{footer}\n"));
    out
}

/// The suite's figures: one row per workload, then the totals.
pub fn suite(r: &BenchReport) -> String {
    let rows = r.workloads.iter().map(|w| {
        let reader = match (w.parse_seconds, w.parse_share) {
            (Some(p), Some(s)) => format!("{p:.3} ({:.0}%)", s * 100.0),
            _ => "-".into(),
        };
        vec![
            w.workload.clone(),
            w.thread_instructions.to_string(),
            w.cycles.to_string(),
            format!("{:.3}", w.seconds),
            format!("{:.2}", w.thread_instructions_per_s / 1e6),
            format!("{:.0}", w.cycles_per_s / 1e3),
            format!("{:.1}", w.peak_rss_mb),
            reader,
        ]
    });
    let footer = format!(
        "{}, median of {}: {:.2} M thread-instructions/s, {:.0} k cycles/s over the set, peak RSS {:.1} MB.",
        r.config,
        r.repeat,
        r.thread_instructions_per_s / 1e6,
        r.cycles_per_s / 1e3,
        r.peak_rss_mb
    );
    table(SUITE_HEADER, rows, &footer)
}

/// The reader's figures on a trace (`name`), and on its xz copy with the ratio of the times.
pub fn parse(name: &str, plain: &ParseFigures, xz: Option<&ParseFigures>, repeat: usize) -> String {
    let row = |label: String, f: &ParseFigures| {
        vec![
            label,
            format!("{:.1}", f.bytes as f64 / 1e6),
            f.warp_instructions.to_string(),
            format!("{:.3}", f.seconds),
            format!("{:.0}", f.mb_per_s),
            format!("{:.2}", f.warp_instructions_per_s / 1e6),
        ]
    };
    let mut rows = vec![row(name.to_string(), plain)];
    let footer = match xz {
        Some(x) => {
            rows.push(row(format!("{name} as xz"), x));
            format!(
                "Median of {repeat}; xz / plain: {:.2}x the time (the xz stream decoded on a second thread into a temporary file the reader follows).",
                x.seconds / plain.seconds
            )
        }
        None => format!("Median of {repeat}."),
    };
    table(PARSE_HEADER, rows, &footer)
}

/// Every Verilated module's co-simulation speed.
pub fn cosim(rows: &[CosimRow], repeat: usize) -> String {
    let rows = rows.iter().map(|r| {
        vec![
            r.module.clone(),
            r.cycles.to_string(),
            r.mismatches.to_string(),
            format!("{:.2}", r.cycles_per_s / 1e6),
        ]
    });
    let footer = format!("Median of {repeat}, random stimulus (seed 1), one thread.");
    table(COSIM_HEADER, rows, &footer)
}

/// The cost of the blocks in lockstep inside the GPU.
pub fn lockstep(rows: &[LockstepRow], repeat: usize, threads: usize) -> String {
    let rows = rows.iter().map(|r| {
        vec![
            format!("{} ({})", r.case, r.blocks),
            r.workload.clone(),
            r.cycles.to_string(),
            format!("{:.3}", r.golden_seconds),
            format!("{:.3}", r.lockstep_seconds),
            format!("{:.2}x", r.ratio),
            format!("<= {:.2}x", r.target),
            (if r.identical { "identical" } else { "DIFFER" }).to_string(),
        ]
    });
    let footer = format!("Median of {repeat}, {threads} RTL thread(s).");
    table(LOCKSTEP_HEADER, rows, &footer)
}
