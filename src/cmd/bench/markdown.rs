//! `gpusched bench --markdown`: the figures as Markdown tables, as the results page
//! `docs/src/results/speed.md` holds them.

use super::{BenchReport, ParseFigures};

/// The header of the suite's table.
pub const SUITE_HEADER: &str = "| workload | thread instructions | cycles | seconds | M thread-instructions/s | k cycles/s | peak RSS (MB) | reader alone (s, share) |\n|---|---:|---:|---:|---:|---:|---:|---:|";

/// The header of the reader's table.
pub const PARSE_HEADER: &str = "| trace | MB of text | warp instructions | seconds | MB/s | M warp instructions/s |\n|---|---:|---:|---:|---:|---:|";

/// The suite's figures: one row per workload, then the totals.
pub fn suite(r: &BenchReport) -> String {
    let mut out = format!("{SUITE_HEADER}\n");
    for w in &r.workloads {
        let reader = match (w.parse_seconds, w.parse_share) {
            (Some(p), Some(s)) => format!("{p:.3} ({:.0}%)", s * 100.0),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {:.3} | {:.2} | {:.0} | {:.1} | {reader} |\n",
            w.workload,
            w.thread_instructions,
            w.cycles,
            w.seconds,
            w.thread_instructions_per_s / 1e6,
            w.cycles_per_s / 1e3,
            w.peak_rss_mb
        ));
    }
    out.push_str(&format!(
        "\n{}, median of {}: {:.2} M thread-instructions/s, {:.0} k cycles/s over the set, peak RSS {:.1} MB.\n",
        r.config,
        r.repeat,
        r.thread_instructions_per_s / 1e6,
        r.cycles_per_s / 1e3,
        r.peak_rss_mb
    ));
    out
}

/// The reader's figures on a trace (`name`), and on its xz copy with the ratio of the times.
pub fn parse(name: &str, plain: &ParseFigures, xz: Option<&ParseFigures>, repeat: usize) -> String {
    let row = |label: &str, f: &ParseFigures| {
        format!(
            "| {label} | {:.1} | {} | {:.3} | {:.0} | {:.2} |\n",
            f.bytes as f64 / 1e6,
            f.warp_instructions,
            f.seconds,
            f.mb_per_s,
            f.warp_instructions_per_s / 1e6
        )
    };
    let mut out = format!("{PARSE_HEADER}\n{}", row(name, plain));
    if let Some(x) = xz {
        out.push_str(&row(&format!("{name} as xz"), x));
        out.push_str(&format!(
            "\nMedian of {repeat}; xz / plain: {:.2}x the time (the xz stream decoded on a second thread into a temporary file the reader follows).\n",
            x.seconds / plain.seconds
        ));
    } else {
        out.push_str(&format!("\nMedian of {repeat}.\n"));
    }
    out
}

/// The header of the co-simulation table.
pub const COSIM_HEADER: &str =
    "| module | cycles run | mismatches | M cycles/s |\n|---|---:|---:|---:|";

/// Every Verilated module's co-simulation speed.
pub fn cosim(rows: &[super::cosim::CosimRow], repeat: usize) -> String {
    let mut out = format!("{COSIM_HEADER}\n");
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {:.2} |\n",
            r.module,
            r.cycles,
            r.mismatches,
            r.cycles_per_s / 1e6
        ));
    }
    out.push_str(&format!(
        "\nMedian of {repeat}, random stimulus (seed 1), one thread.\n"
    ));
    out
}

/// The header of the lockstep table.
pub const LOCKSTEP_HEADER: &str = "| stream large, gtx480 | cycles | golden (s) | lockstep (s) | ratio | target | statistics |\n|---|---:|---:|---:|---:|---:|---|";

/// The cost of the blocks in lockstep inside the GPU.
pub fn lockstep(rows: &[super::LockstepRow], repeat: usize, threads: usize) -> String {
    let mut out = format!("{LOCKSTEP_HEADER}\n");
    for r in rows {
        out.push_str(&format!(
            "| {} ({}) | {} | {:.3} | {:.3} | {:.2}x | <= {:.2}x | {} |\n",
            r.case,
            r.blocks,
            r.cycles,
            r.golden_seconds,
            r.lockstep_seconds,
            r.ratio,
            r.target,
            if r.identical { "identical" } else { "DIFFER" }
        ));
    }
    out.push_str(&format!("\nMedian of {repeat}, {threads} RTL thread(s).\n"));
    out
}
