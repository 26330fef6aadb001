//! The Markdown report of `repro elf`.

use super::Results;
use std::fmt::Write;

fn pct(speedup: f64) -> String {
    format!("{:+.1}%", 100.0 * (speedup - 1.0))
}

/// The report: the speedup table with geometric means and the thesis's figures, then the miss
/// rates and reservation failures per configuration.
pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let cols = &r.columns;
    let _ = writeln!(
        s,
        "# ELF experiment (seed 003 ch. III) on `{}`, suite size `{}`\n",
        r.config, r.size
    );
    if !r.left_out.is_empty() {
        let _ = writeln!(
            s,
            "Left out of every row and mean: {} (no `{}` size yet).\n",
            r.left_out.join(", "),
            r.size
        );
    }
    let _ = writeln!(
        s,
        "IPC speedup over GTO (paired issue, round-robin fetch; every column's issue mode, \
         fetch order, ELF recalculation rule and merge boundary are listed below the table). \
         Memory-intensive (M): GTO's DRAM bursts take at least a quarter of the DRAM peak ({:.0} B/cycle; a burst counts whole, also when it reads a smaller sector).\n",
        r.dram_peak_bytes_per_cycle / 4.0
    );
    let _ = write!(s, "| workload | M | waves | GTO IPC |");
    for c in &cols[1..] {
        let _ = write!(s, " {} |", c.label);
    }
    let _ = write!(s, "\n|---|---|---:|---:|");
    for _ in &cols[1..] {
        let _ = write!(s, "---:|");
    }
    s.push('\n');
    for row in &r.rows {
        let _ = write!(
            s,
            "| {} | {} | {} | {:.1} |",
            row.workload,
            if row.memory_intensive { "M" } else { "" },
            super::waves_cell(row.waves),
            row.cells[0].ipc
        );
        for c in &row.cells[1..] {
            let _ = write!(s, " {} |", pct(c.speedup));
        }
        s.push('\n');
    }
    let n_mem = r.rows.iter().filter(|x| x.memory_intensive).count();
    for (label, gm) in [
        (format!("**geomean, all {}**", r.rows.len()), &r.geomean),
        (
            format!("**geomean, memory-intensive {n_mem}**"),
            &r.geomean_memory,
        ),
    ] {
        let _ = write!(s, "| {label} | | | |");
        for g in &gm[1..] {
            let _ = write!(s, " **{}** |", pct(*g));
        }
        s.push('\n');
    }
    let without_all = format!("*geomean without the {} outliers below*", r.outliers.len());
    let mut extra: Vec<(String, &Vec<f64>)> = vec![(without_all, &r.geomean_without_outliers)];
    for o in &r.outliers {
        extra.push((
            format!("*geomean without {}*", o.workload),
            &o.geomean_without,
        ));
    }
    if r.outliers.is_empty() {
        extra.clear();
    }
    for (label, gm) in extra {
        let _ = write!(s, "| {label} | | | |");
        for g in &gm[1..] {
            let _ = write!(s, " *{}* |", pct(*g));
        }
        s.push('\n');
    }
    let _ = write!(s, "| *thesis (45 kernels, GTX480)* | | | |");
    for c in &cols[1..] {
        let _ = match c.thesis {
            Some(t) => write!(s, " *{t:+.1}%* |"),
            None => write!(s, " — |"),
        };
    }
    s.push('\n');
    let few = r.rows.iter().map(|w| (w.workload.as_str(), w.waves));
    let why = "the GPU holds all or nearly all of a launch's blocks at once";
    if let Some(note) = super::few_waves_note(few, why) {
        let _ = writeln!(s, "\n{note}");
    }
    s.push('\n');
    let _ = writeln!(
        s,
        "Outliers: workloads on which some configuration gains more than {:+.0}% or loses more \
         than {:.0}%: {}.\n",
        100.0 * (super::OUTLIER_GAIN - 1.0),
        100.0 * (1.0 - super::OUTLIER_LOSS),
        if r.outliers.is_empty() {
            "none".to_string()
        } else {
            r.outliers
                .iter()
                .map(|o| o.workload.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let _ = writeln!(
        s,
        "| configuration | issue | fetch | ELF recalculation rule | ELF merge boundary |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for c in cols {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            c.label, c.issue, c.fetch, c.recalc, c.merge
        );
    }
    s.push('\n');
    let _ = writeln!(
        s,
        "Averages over all workloads per configuration: L1D and L1I read miss rates, L1D \
         reservation failures (MSHR, miss queue, merge limit, reserved set; NewCAR counts each \
         refused probe) and LSU-blocked cycles per 1000 cycles, summed over the SMs.\n"
    );
    let _ = writeln!(
        s,
        "| configuration | L1D miss rate | L1I miss rate | L1D fails / kcycle (all SMs) | LSU blocked / kcycle (all SMs) |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    let n = r.rows.len().max(1) as f64;
    for (i, c) in cols.iter().enumerate() {
        let avg = |f: &dyn Fn(&super::Cell) -> f64| {
            r.rows.iter().map(|x| f(&x.cells[i])).sum::<f64>() / n
        };
        let _ = writeln!(
            s,
            "| {} | {:.1}% | {:.2}% | {:.0} | {:.0} |",
            c.label,
            100.0 * avg(&|x| x.l1d_miss_rate),
            100.0 * avg(&|x| x.l1i_miss_rate),
            avg(&|x| 1000.0 * x.l1d_fails as f64 / x.cycles.max(1) as f64),
            avg(&|x| 1000.0 * x.lsu_blocked as f64 / x.cycles.max(1) as f64),
        );
    }
    s
}
