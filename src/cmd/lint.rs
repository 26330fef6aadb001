//! `gpusched lint [--dir DIR]`: the Verilog gates on every module of the manifest.

use anyhow::{Context, Result};
use clap::Args;
use gpusched_gen::lint::{verilator_lint, yosys_synth, GateError};
use gpusched_gen::Manifest;
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
    /// Yosys synthesis verdict with the cell count.
    pub synth: Result<u64, GateError>,
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

/// Runs both gates on every module of the manifest in `dir`.
pub fn lint_all(dir: &Path) -> Result<Vec<LintRow>> {
    let m = read_manifest(dir)?;
    if m.modules.is_empty() {
        anyhow::bail!(
            "{}: the manifest lists no module, nothing to lint (run `gpusched gen`)",
            dir.join("manifest.json").display()
        );
    }
    Ok(m.modules
        .iter()
        .map(|e| {
            let f = dir.join(&e.file);
            LintRow {
                module: e.module.clone(),
                lint: verilator_lint(&f, &e.module),
                synth: yosys_synth(&f, &e.module).map(|s| s.cells),
            }
        })
        .collect())
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
        let cells = r
            .synth
            .as_ref()
            .map(|c| c.to_string())
            .unwrap_or_else(|_| "-".into());
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
    let rows = lint_all(&dir)?;
    print_rows(&rows)?;
    Ok(if rows.iter().all(LintRow::passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
