//! `gpusched lint [--dir DIR]`: the Verilog gates on every module of the manifest.

use anyhow::{Context, Result};
use clap::Args;
use gpusched_gen::lint::{verilator_lint, yosys_synth, GateError};
use gpusched_gen::report;
use gpusched_gen::Manifest;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gpusched lint`.
#[derive(Args)]
pub struct LintArgs {
    /// Directory holding manifest.json and the Verilog [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Outcome of the gates on one module.
pub struct LintRow {
    /// Module name.
    pub module: String,
    /// Verilator lint verdict.
    pub lint: Result<(), GateError>,
    /// Yosys synthesis verdict with the cell count; `None`: not synthesized here, because
    /// `REPORT.md` has a row for this very Verilog (same hash), made by `gpusched gen` with
    /// the same structural checks.
    pub synth: Result<Option<u64>, GateError>,
}

impl LintRow {
    /// Neither gate failed (a missing tool is reported, not a failure).
    pub fn passed(&self) -> bool {
        verdict(&self.lint) != "FAIL" && verdict(&self.synth) != "FAIL"
    }
}

/// Reads `dir/manifest.json`.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: cannot read (run `gpusched gen` first)", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a gpusched manifest", path.display()))
}

/// Runs both gates on every module of the manifest in `dir`. With `trust_report`, Yosys
/// skips the modules whose Verilog `dir/REPORT.md` has a row for (same SHA-256): `gpusched
/// gen` made that row by synthesizing the same text with `check -assert` and no latch
/// allowed (the `fermi` locality modules take minutes each), and `gen --check` fails when
/// a row no longer matches.
pub fn lint_all(dir: &Path, trust_report: bool) -> Result<Vec<LintRow>> {
    let m = read_manifest(dir)?;
    if m.modules.is_empty() {
        anyhow::bail!(
            "{}: the manifest lists no module, nothing to lint (run `gpusched gen`)",
            dir.join("manifest.json").display()
        );
    }
    let rows = if trust_report {
        report::rows_at(dir)
    } else {
        vec![]
    };
    m.modules
        .iter()
        .map(|e| {
            let f = dir.join(&e.file);
            let text = std::fs::read_to_string(&f)
                .with_context(|| format!("{}: cannot read", f.display()))?;
            let sha = format!("{:x}", Sha256::digest(text.as_bytes()));
            if sha != e.sha256 {
                anyhow::bail!(
                    "{}: its SHA-256 ({}...) is not the one {} lists ({}...): the Verilog was \
                     changed after `gpusched gen` (run it again, or restore the file)",
                    f.display(),
                    &sha[..16],
                    dir.join("manifest.json").display(),
                    e.sha256.get(..16).unwrap_or(&e.sha256)
                );
            }
            let reported = report::row_for(&rows, &e.module, &report::short_hash(&text)).is_some();
            Ok(LintRow {
                module: e.module.clone(),
                lint: verilator_lint(&f, &e.module),
                synth: if reported {
                    Ok(None)
                } else {
                    yosys_synth(&f, &e.module).map(|s| Some(s.cells))
                },
            })
        })
        .collect()
}

/// Short verdict for a table cell; the full message is printed separately.
pub fn verdict<T>(r: &Result<T, GateError>) -> &'static str {
    match r {
        Ok(_) => "pass",
        Err(GateError::ToolMissing { .. }) => "skipped",
        Err(_) => "FAIL",
    }
}

/// Prints the table, then each distinct failure or missing-tool message once.
pub fn print_rows(rows: &[LintRow]) -> anyhow::Result<()> {
    outln!(
        "{:<32} {:>9} {:>9} {:>8}",
        "module",
        "verilator",
        "yosys",
        "cells"
    );
    let mut notes = vec![];
    for r in rows {
        let cells = match &r.synth {
            Ok(Some(c)) => c.to_string(),
            Ok(None) => "REPORT.md".into(),
            Err(_) => "-".into(),
        };
        outln!(
            "{:<32} {:>9} {:>9} {:>8}",
            r.module,
            verdict(&r.lint),
            verdict(&r.synth),
            cells
        );
        for e in [r.lint.as_ref().err(), r.synth.as_ref().err()]
            .into_iter()
            .flatten()
        {
            let msg = e.to_string();
            if !notes.contains(&msg) {
                notes.push(msg);
            }
        }
    }
    for n in notes {
        eprintln!("{n}");
    }
    Ok(())
}

/// Runs `lint`.
pub fn run(a: LintArgs) -> Result<ExitCode> {
    let dir = a.dir.unwrap_or_else(super::default_rtl_dir);
    let rows = lint_all(&dir, false)?;
    print_rows(&rows)?;
    Ok(if rows.iter().all(LintRow::passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpusched_gen::lint::tool_available;

    /// The gate trusts a `REPORT.md` row only for the very Verilog it was made from: a module
    /// with no row, or with a row of another hash, is synthesized.
    #[test]
    fn the_gate_trusts_only_a_report_row_of_the_same_verilog() {
        let have = |t: &str| {
            gpusim::testing::available(
                "rtl",
                tool_available(t),
                &format!("{t} not installed (apt-get install -y {t})"),
            )
        };
        if !have("verilator") || !have("yosys") {
            return;
        }
        let src = crate::cmd::default_rtl_dir();
        let mut m = read_manifest(&src).unwrap();
        m.modules.retain(|e| e.module == "warp_arbiter_lrr_proto");
        let e = m.modules[0].clone();
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(src.join(&e.file)).unwrap();
        std::fs::write(dir.path().join(&e.file), &text).unwrap();
        std::fs::write(
            dir.path().join("manifest.json"),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
        let row = |hash: &str| {
            format!(
                "| module | a | b |\n| {} | `{hash}` | 1 | 2 | 0 | 3 | 4 | 5 | 6 |  |\n",
                e.module
            )
        };
        let report = dir.path().join(report::REPORT);
        std::fs::write(&report, row(&report::short_hash(&text))).unwrap();
        let trusted = lint_all(dir.path(), true).unwrap();
        assert!(matches!(trusted[0].synth, Ok(None)), "same hash: trusted");
        assert!(trusted[0].lint.is_ok() && trusted[0].passed());
        let all = lint_all(dir.path(), false).unwrap();
        assert!(
            matches!(all[0].synth, Ok(Some(c)) if c > 0),
            "--resynth: synthesized"
        );
        std::fs::write(&report, row("0123456789abcdef")).unwrap();
        let other = lint_all(dir.path(), true).unwrap();
        assert!(
            matches!(other[0].synth, Ok(Some(c)) if c > 0),
            "another hash: synthesized"
        );
    }
}
