//! A reference set shaped like `../shared/reference/accelsim/`: `results.json`, one record per
//! trace and scheduler with the reference simulator's statistics (`accelsim`), and
//! `traces/<workload>-<size>.tar.xz`, each trace as both simulators ran it, or, in a set
//! `gpusched reference record` made, no traces but each record's `trace_sha256` and
//! `trace_binary_version`: the suite kernel is exported again and must have that digest. Read by
//! `gpusched bench --reference` (speed) and `gpusched calibrate` (cycles and counters).

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
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
    /// The reference simulator's configuration (GPGPU-Sim's `tested-cfgs` name, e.g.
    /// `SM2_GTX480`), when the record names it.
    #[serde(default)]
    pub config: Option<String>,
    /// The reference simulator's figures.
    pub accelsim: Value,
    /// A set without trace archives: the trace's digest ([`trace_digest`]) and the binary
    /// version it was exported with (`gpusched trace export --binary-version`).
    #[serde(default)]
    pub trace_sha256: Option<String>,
    #[serde(default)]
    pub trace_binary_version: Option<u32>,
    /// Where the record is: `<results.json>:<line of its opening brace>`.
    #[serde(skip)]
    pub at: String,
}

/// Figures that are measures, not counts (any non-negative number).
const MEASURES: [&str; 3] = ["gpu_ipc", "wall_s", "max_rss_mb"];
/// Figures that are positive in any run that completed.
const POSITIVE: [&str; 8] = [
    "gpu_sim_cycle",
    "gpu_tot_sim_cycle",
    "gpu_sim_insn",
    "gpu_tot_sim_insn",
    "gpgpu_n_tot_w_icount",
    "gpgpu_n_tot_thrd_icount",
    "wall_s",
    "max_rss_mb",
];
/// The largest count taken as real: 2^53, the largest whole number a JSON reader keeps
/// exactly (a run of that many cycles would take Accel-Sim millennia).
const MAX_COUNT: f64 = (1u64 << 53) as f64;

impl Record {
    /// `<workload>-<size>`, the trace's name.
    pub fn trace(&self) -> String {
        format!("{}-{}", self.workload, self.size)
    }

    /// A number of the reference's figures (`None` when absent).
    pub fn figure(&self, key: &str) -> Option<f64> {
        self.accelsim.get(key).and_then(Value::as_f64)
    }

    /// The error `message` about this record, naming its file, line, trace and scheduler.
    pub fn error(&self, message: impl std::fmt::Display) -> anyhow::Error {
        anyhow!(
            "{}: {} {}: {message}",
            self.at,
            self.trace(),
            self.scheduler
        )
    }

    /// A number of the reference's figures, or an error naming the record.
    pub fn need(&self, key: &str) -> Result<f64> {
        self.figure(key).ok_or_else(|| {
            self.error(format_args!(
                "no number `accelsim.{key}` in the reference record"
            ))
        })
    }

    /// Checks the record: names that make a file name, every figure a count or measure that
    /// can be (not negative, a whole number below [`MAX_COUNT`] for a count, positive where a
    /// completed run's is), a run that completed, and the `required` figures present.
    fn check(&self, required: &[&str]) -> Result<()> {
        for (what, name) in [("workload", &self.workload), ("size", &self.size)] {
            if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
                bail!(self.error(format_args!(
                    "`{what}` = {name:?} is not a trace name (traces/<workload>-<size>.tar.xz)"
                )));
            }
        }
        if self.scheduler.is_empty() || self.gpusched_warp_sched.is_empty() {
            bail!(self.error("empty `scheduler` or `gpusched_warp_sched`"));
        }
        let Some(figures) = self.accelsim.as_object() else {
            bail!(self.error("`accelsim` is not an object of statistics"));
        };
        for (key, v) in figures {
            self.check_figure(key, v)?;
        }
        for key in required {
            self.need(key)?;
        }
        Ok(())
    }

    /// Checks figure `accelsim.<key>` (see [`Self::check`]).
    fn check_figure(&self, key: &str, v: &Value) -> Result<()> {
        match v {
            Value::Number(_) => self.check_number(key, v),
            Value::Bool(false) if key == "completed" => {
                Err(self
                    .error("the reference run did not complete (`accelsim.completed` is false)"))
            }
            Value::Bool(_) => Ok(()),
            // A breakdown by access type and outcome: counts.
            Value::Object(parts) => parts
                .iter()
                .try_for_each(|(k, v)| self.check_number(&format!("{key}.{k}"), v)),
            _ => Err(self.error(format_args!("`accelsim.{key}` = {v}: expected a number"))),
        }
    }

    /// Checks the number `accelsim.<key>` (see [`Self::check`]).
    fn check_number(&self, key: &str, v: &Value) -> Result<()> {
        let bad = |why: &str| Err(self.error(format_args!("`accelsim.{key}` = {v}{why}")));
        let Some(x) = v.as_f64().filter(|x| x.is_finite()) else {
            return bad(" is not a number");
        };
        if x < 0.0 {
            return bad(" is negative: no count or measure of a run is");
        }
        if x == 0.0 && POSITIVE.contains(&key) {
            return bad(", but a run that completed has a positive one");
        }
        if !MEASURES.contains(&key) && (x.fract() != 0.0 || x > MAX_COUNT) {
            return bad(" is not a count (a whole number up to 2^53)");
        }
        if key == "exit_status" && x != 0.0 {
            return bad(": the reference run failed");
        }
        Ok(())
    }
}

/// The line of the opening brace of each object of the top-level array in JSON `text`.
fn record_lines(text: &str) -> Vec<usize> {
    let (mut lines, mut line, mut depth) = (vec![], 1, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        match c {
            '\n' => line += 1,
            _ if in_string => {
                in_string = c != '"' || escaped;
                escaped = c == '\\' && !escaped;
                continue;
            }
            '"' => in_string = true,
            '[' | '{' => {
                if c == '{' && depth == 1 {
                    lines.push(line);
                }
                depth += 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        escaped = false;
    }
    lines
}

/// No two records of one trace name the same scheduler, theirs or ours.
fn check_unique(records: &[Record]) -> Result<()> {
    let mut seen: HashMap<(String, bool, &str), &str> = HashMap::new();
    for r in records {
        for (ours, sched) in [(false, &r.scheduler), (true, &r.gpusched_warp_sched)] {
            if let Some(first) = seen.insert((r.trace(), ours, sched), &r.at) {
                bail!(r.error(format_args!(
                    "the same trace and scheduler `{sched}` as the record at {first}"
                )));
            }
        }
    }
    Ok(())
}

/// `DIR/results.json` and its records, each checked ([`Record::check`], with the figures
/// `required`) and each trace and scheduler once: an error names the record.
pub fn records(reference: &Path, required: &[&str]) -> Result<(PathBuf, Vec<Record>)> {
    let results = reference.join("results.json");
    let text = gpusim::input::read_text(&results)
        .with_context(|| format!("{}: cannot read", results.display()))?;
    let mut records: Vec<Record> = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a list of reference records", results.display()))?;
    if records.is_empty() {
        bail!("{}: no record", results.display());
    }
    for (r, line) in records.iter_mut().zip(record_lines(&text)) {
        r.at = format!("{}:{line}", results.display());
    }
    for r in &records {
        r.check(required)?;
    }
    check_unique(&records)?;
    Ok((results, records))
}

/// Reads the unpacked trace `dir` of the archive `archive` as every reader does (`trace
/// info`'s pass: each line, each block once, the kernel list's sums), and checks that it
/// holds the warp instructions each of `records` says the reference ran.
fn check_trace(dir: &Path, archive: &Path, records: &[&Record]) -> Result<()> {
    let s = gpusim::workload::summary::summarize(dir, &mut |_, _| {})
        .with_context(|| format!("{}: a malformed trace", archive.display()))?;
    let warps: u64 = s.kernels.iter().map(|k| k.warp_instructions).sum();
    for r in records {
        match r.figure("gpgpu_n_tot_w_icount") {
            Some(n) if n != warps as f64 => bail!(r.error(format_args!(
                "`accelsim.gpgpu_n_tot_w_icount` = {n}, but {} holds {warps} warp instructions: \
                 the reference ran another trace",
                archive.display()
            ))),
            _ => {}
        }
    }
    Ok(())
}

/// Unpacks ([`unpack`]) or exports again ([`export_again`]) and checks ([`check_trace`]) the
/// trace of every one of `records`, once each, into `into`, before anything runs; `progress`
/// is told each trace's name. Returns each trace's directory by name.
pub fn unpack_all(
    reference: &Path,
    records: &[&Record],
    into: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<BTreeMap<String, PathBuf>> {
    let mut by_trace: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
    for r in records {
        by_trace.entry(r.trace()).or_default().push(r);
    }
    let mut dirs = BTreeMap::new();
    for (name, rs) in by_trace {
        progress(&name);
        let archive = reference.join("traces").join(format!("{name}.tar.xz"));
        let dir = if archive.is_file() || rs[0].trace_sha256.is_none() {
            unpack(reference, &name, into)?
        } else {
            export_again(&rs, into)?
        };
        let label = if archive.is_file() { &archive } else { &dir };
        check_trace(&dir, label, &rs)?;
        dirs.insert(name, dir);
    }
    Ok(dirs)
}

/// SHA-256 (hex) of a trace directory: `kernelslist.g`, then every file it names, in its
/// order, each as its name, a 0 byte, its length (8 bytes, little-endian) and its bytes.
pub fn trace_digest(dir: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let list = std::fs::read_to_string(dir.join("kernelslist.g"))
        .with_context(|| format!("{}: no kernelslist.g", dir.display()))?;
    let names = std::iter::once("kernelslist.g").chain(
        list.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#')),
    );
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for name in names {
        let path = dir.join(name);
        let ctx = || format!("reading {}", path.display());
        let mut f = gpusim::input::open_regular(&path).with_context(ctx)?;
        h.update(name.as_bytes());
        h.update([0]);
        h.update(f.metadata().with_context(ctx)?.len().to_le_bytes());
        // In 1 MiB pieces: a trace may be far larger than the memory a run should take.
        loop {
            let n = std::io::Read::read(&mut f, &mut buf).with_context(ctx)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
    }
    Ok(format!("{:x}", h.finalize()))
}

/// Exports the suite kernel of `records` (one trace) into `into/<name>` as the records say it
/// was recorded, and checks its digest against each record's.
fn export_again(records: &[&Record], into: &Path) -> Result<PathBuf> {
    let r = records[0];
    let dir = into.join(r.trace());
    if !dir.join("kernelslist.g").is_file() {
        let version = r.trace_binary_version.ok_or_else(|| {
            r.error("a record with `trace_sha256` needs `trace_binary_version` too")
        })?;
        crate::cmd::reference::export(&r.workload, &r.size, &dir, version)
            .map_err(|e| r.error(format_args!("exporting the trace again: {e:#}")))?;
    }
    let digest = trace_digest(&dir)?;
    for r in records {
        match &r.trace_sha256 {
            Some(d) if *d == digest => {}
            Some(d) => bail!(r.error(format_args!(
                "the trace exported now has SHA-256 {digest}, the record's was {d}: the suite \
                 kernel changed since the reference ran; run `gpusched reference record` again"
            ))),
            None => bail!(r.error("no `trace_sha256`, but another record of its trace has one")),
        }
    }
    Ok(dir)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_lines_are_those_of_the_top_level_objects() {
        let text = "[\n {\"workload\": \"a{\\\"[\",\n  \"accelsim\": {\"x\": [1, {}]}},\n{}, {\"b\": \"}\"}\n]";
        assert_eq!(record_lines(text), [2, 4, 4]);
    }

    /// The committed reference sets (`reference/*/`) read, name their configuration, and their
    /// `small` traces exported now have the recorded digests: a change to a suite kernel that
    /// would make a set stale fails here (record the set again, `reference/README.md`).
    #[test]
    fn the_committed_reference_sets_match_the_suite_kernels() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("reference");
        let mut sets = 0;
        for e in std::fs::read_dir(&root).unwrap() {
            let dir = e.unwrap().path();
            if !dir.join("results.json").is_file() {
                continue;
            }
            sets += 1;
            let (_, records) = records(&dir, &["gpu_sim_cycle", "gpgpu_n_tot_w_icount"]).unwrap();
            let config = dir.join("config");
            let list = format!(
                "{},{}",
                config.join("gpgpusim.config").display(),
                config.join("trace.config").display()
            );
            gpusim::config::GpuConfig::load(&list).unwrap();
            let small: Vec<&Record> = records.iter().filter(|r| r.size == "small").collect();
            assert!(small.len() >= 3, "{}", dir.display());
            let tmp = tempfile::tempdir().unwrap();
            unpack_all(&dir, &small, tmp.path(), &mut |_| {}).unwrap();
        }
        assert!(sets >= 1, "no reference set in {}", root.display());
    }
}
