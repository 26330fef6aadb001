//! A reference set shaped like `../shared/reference/accelsim/`: `results.json`, one record per
//! trace and scheduler with the reference simulator's statistics (`accelsim`), and
//! `traces/<workload>-<size>.tar.xz`, each trace as both simulators ran it. Read by
//! `gpusched bench --reference` (speed) and `gpusched calibrate` (cycles and counters).

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One record of `results.json` (the fields used).
#[derive(Deserialize)]
pub struct Record {
    /// Suite kernel and size: the trace is `traces/<workload>-<size>.tar.xz`.
    pub workload: String,
    pub size: String,
    /// The reference simulator's scheduler string, and ours (`lrr`, `gto`, `two-level`).
    pub scheduler: String,
    pub gpusched_warp_sched: String,
    /// The reference simulator's figures.
    pub accelsim: serde_json::Value,
}

impl Record {
    /// `<workload>-<size>`, the trace's name.
    pub fn trace(&self) -> String {
        format!("{}-{}", self.workload, self.size)
    }

    /// A number of the reference's figures (`None` when absent).
    pub fn figure(&self, key: &str) -> Option<f64> {
        self.accelsim.get(key).and_then(serde_json::Value::as_f64)
    }

    /// A number of the reference's figures, or an error naming the record.
    pub fn need(&self, key: &str) -> Result<f64> {
        self.figure(key).with_context(|| {
            format!(
                "{} {}: no number `accelsim.{key}` in the reference record",
                self.trace(),
                self.scheduler
            )
        })
    }
}

/// `DIR/results.json` and its records.
pub fn records(reference: &Path) -> Result<(PathBuf, Vec<Record>)> {
    let results = reference.join("results.json");
    let text = gpusim::input::read_text(&results)
        .with_context(|| format!("{}: cannot read", results.display()))?;
    let records: Vec<Record> = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a list of reference records", results.display()))?;
    if records.is_empty() {
        bail!("{}: no record", results.display());
    }
    Ok((results, records))
}

/// Unpacks `traces/<name>.tar.xz` of the reference into `into/<name>` (once).
pub fn unpack(reference: &Path, name: &str, into: &Path) -> Result<PathBuf> {
    let dir = into.join(name);
    if dir.join("kernelslist.g").is_file() {
        return Ok(dir);
    }
    let tar = reference.join("traces").join(format!("{name}.tar.xz"));
    if !tar.is_file() {
        bail!("{}: no such trace archive", tar.display());
    }
    std::fs::create_dir_all(&dir)?;
    let out = Command::new("tar")
        .arg("-xJf")
        .arg(&tar)
        .arg("-C")
        .arg(&dir)
        .output()
        .context("cannot run `tar` (install tar and xz-utils)")?;
    if !out.status.success() {
        bail!(
            "tar -xJf {}: {}",
            tar.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    // An archive may hold the trace directory itself rather than its files.
    if !dir.join("kernelslist.g").is_file() && dir.join(name).join("kernelslist.g").is_file() {
        return Ok(dir.join(name));
    }
    if !dir.join("kernelslist.g").is_file() {
        bail!("{}: no kernelslist.g inside", tar.display());
    }
    Ok(dir)
}
