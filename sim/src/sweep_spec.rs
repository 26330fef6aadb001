//! Sweep specs as text: a TOML file naming the axes of an experiment (workloads, sizes, GPU
//! configurations, scheduling policies) and the metrics to collect. This module reads and
//! checks what the text alone decides (its form, names, duplicates, sizes, workloads);
//! `gpusched sweep` then loads each configuration and checks each policy's options.
//!
//! ```toml
//! [sweep]
//! name = "elf-small"
//! workloads = ["bfs", "km", "trace:../shared/traces/vectoradd-100-32"]
//! sizes = ["small"]                # built-in and suite kernels only (`paper`: suite only)
//! configs = ["gtx480"]             # presets or files (relative to the spec)
//! metrics = ["cycles", "ipc", "l1d.misses"]
//!
//! [[policy]]
//! name = "gto"
//! args = "--warp-sched gto --paired-issue"   # any `gpusched sim` scheduling options
//!
//! [[policy]]
//! name = "elf++"
//! args = "--warp-sched elf++"
//! ```

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A spec that is not what it should be: the file, the line and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct SpecError {
    /// The spec's file.
    pub path: String,
    /// The line the error is about (1-based).
    pub line: usize,
    /// What is wrong, and the valid choices.
    pub message: String,
}

/// The `[sweep]` table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepTable {
    name: String,
    workloads: Vec<String>,
    #[serde(default = "default_sizes")]
    sizes: Vec<String>,
    #[serde(default = "default_configs")]
    configs: Vec<String>,
    #[serde(default)]
    metrics: Vec<String>,
}

fn default_sizes() -> Vec<String> {
    vec!["small".into()]
}

fn default_configs() -> Vec<String> {
    vec!["gtx480".into()]
}

/// One `[[policy]]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Its name in the results.
    pub name: String,
    /// `gpusched sim` scheduling options (split at whitespace).
    #[serde(default)]
    pub args: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    sweep: SweepTable,
    policy: Vec<Policy>,
}

/// A workload of a point.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Workload {
    /// A built-in or suite kernel at a size.
    Named {
        /// Its name (`gpusched workloads`).
        name: String,
        /// small, medium or large.
        size: String,
    },
    /// An Accel-Sim trace directory.
    Trace {
        /// Its name in the results (the directory's name).
        name: String,
        /// The directory.
        dir: PathBuf,
    },
}

impl Workload {
    /// Name in the results (`bfs`, `vectoradd-100-32`).
    pub fn name(&self) -> &str {
        match self {
            Workload::Named { name, .. } | Workload::Trace { name, .. } => name,
        }
    }

    /// Size (`-` for a trace).
    pub fn size(&self) -> &str {
        match self {
            Workload::Named { size, .. } => size,
            Workload::Trace { .. } => "-",
        }
    }
}

/// A spec's text read and checked.
#[derive(Clone, Debug)]
pub struct SpecText {
    /// The spec's name (one plain word: it names a directory and a Slurm job).
    pub name: String,
    /// The workloads in axis order (each named kernel once per size).
    pub workloads: Vec<Workload>,
    /// The configurations as written (presets or paths relative to the spec).
    pub configs: Vec<String>,
    /// Metrics to collect: dotted paths into a run's JSON report.
    pub metrics: Vec<String>,
    /// The policies, in order, names unique.
    pub policies: Vec<Policy>,
}

/// Where errors point: the spec's path and text.
struct Place<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Place<'_> {
    /// An error at the line of `needle` after `key` (see [`line_of`]).
    fn err(&self, key: &str, needle: &str, message: String) -> SpecError {
        self.err_at(line_of(self.text, key, needle), message)
    }

    fn err_at(&self, line: usize, message: String) -> SpecError {
        SpecError {
            path: self.path.display().to_string(),
            line,
            message,
        }
    }
}

/// The line of `text` holding the first occurrence of `needle` (quoted when possible) after
/// the first occurrence of `key` (the key it is a value of), for error messages; the key's
/// line, or 1, when it is not found.
pub fn line_of(text: &str, key: &str, needle: &str) -> usize {
    let from = text.find(key).unwrap_or(0);
    let rest = &text[from..];
    let quoted = format!("\"{needle}\"");
    let at = from
        + rest
            .find(&quoted)
            .or_else(|| rest.find(needle))
            .unwrap_or(0);
    text[..at].matches('\n').count() + 1
}

/// Reads spec text from `path` (trace directories in it are relative to its directory).
pub fn parse(text: &str, path: &Path) -> Result<SpecText, SpecError> {
    let place = Place { path, text };
    let file: SpecFile = toml::from_str(text).map_err(|e| {
        // An error at the very end (an unclosed array) is on the last line, not after it.
        let line = e.span().map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        place.err_at(
            line.min(text.lines().count().max(1)),
            e.message().to_string(),
        )
    })?;
    let t = &file.sweep;
    check_name(&place, &t.name)?;
    check_axes(&place, t)?;
    if file.policy.is_empty() {
        return Err(place.err_at(1, "no [[policy]]".into()));
    }
    let mut names = HashSet::new();
    for p in &file.policy {
        if !names.insert(p.name.as_str()) {
            let needle = format!("\"{}\"", p.name);
            let line = text[..text.rfind(&needle).unwrap_or(0)]
                .matches('\n')
                .count()
                + 1;
            return Err(place.err_at(line, format!("policy `{}` is named twice", p.name)));
        }
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut workloads = vec![];
    for w in &t.workloads {
        workloads.extend(workload(&place, base, w, &t.sizes)?);
    }
    Ok(SpecText {
        name: t.name.clone(),
        workloads,
        configs: t.configs.clone(),
        metrics: t.metrics.clone(),
        policies: file.policy,
    })
}

/// The name becomes a directory and a Slurm job name: one plain word.
fn check_name(place: &Place<'_>, name: &str) -> Result<(), SpecError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._+-".contains(c);
    if name.is_empty() || !name.chars().all(plain) {
        return Err(place.err(
            "name",
            name,
            format!(
                "name `{}`: expected letters, digits, `.`, `_`, `+` or `-`",
                crate::input::quote(name)
            ),
        ));
    }
    Ok(())
}

/// No axis lists an item twice; the workload, size and config axes are not empty; sizes
/// are known.
fn check_axes(place: &Place<'_>, t: &SweepTable) -> Result<(), SpecError> {
    for (what, list) in [
        ("workloads", &t.workloads),
        ("sizes", &t.sizes),
        ("configs", &t.configs),
        ("metrics", &t.metrics),
    ] {
        let mut seen = HashSet::new();
        if let Some(d) = list.iter().find(|x| !seen.insert(x.as_str())) {
            let q = crate::input::quote(d);
            return Err(place.err(what, d, format!("`{what}` lists `{q}` twice")));
        }
        if list.is_empty() && what != "metrics" {
            return Err(place.err(what, what, format!("`{what}` is empty")));
        }
    }
    let sizes = crate::workload::synth::sizes();
    for s in &t.sizes {
        if !sizes.contains(&s.as_str()) {
            let q = crate::input::quote(s);
            let message = format!("unknown size `{q}`; choose {}", sizes.join(", "));
            return Err(place.err("sizes", s, message));
        }
    }
    Ok(())
}

/// Workload `w` of the spec: a trace directory (`trace:DIR`, relative to `base`) or a named
/// kernel at each of `sizes`.
fn workload(
    place: &Place<'_>,
    base: &Path,
    w: &str,
    sizes: &[String],
) -> Result<Vec<Workload>, SpecError> {
    let q = crate::input::quote(w);
    if let Some(dir) = w.strip_prefix("trace:") {
        let dir = base.join(dir);
        if !dir.join("kernelslist.g").is_file() {
            let message = format!(
                "`{q}`: {} is not an Accel-Sim trace directory (no kernelslist.g)",
                crate::input::quote(&dir.display().to_string())
            );
            return Err(place.err("workloads", w, message));
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| w.to_string());
        return Ok(vec![Workload::Trace { name, dir }]);
    }
    let known = crate::workload::names();
    if !known.contains(&w) {
        let message = format!(
            "unknown workload `{q}`; known: {} (or trace:DIR)",
            known.join(", ")
        );
        return Err(place.err("workloads", w, message));
    }
    Ok(sizes
        .iter()
        .map(|size| Workload::Named {
            name: w.to_string(),
            size: size.clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "[sweep]\nname = \"t\"\nworkloads = [\"stream\", \"compute\"]\n\
                        sizes = [\"small\", \"large\"]\n\n[[policy]]\nname = \"gto\"\n";

    #[test]
    fn a_spec_reads_into_its_axes() {
        let s = parse(SPEC, Path::new("s.toml")).unwrap();
        let w: Vec<(&str, &str)> = s.workloads.iter().map(|w| (w.name(), w.size())).collect();
        assert_eq!(
            w,
            [
                ("stream", "small"),
                ("stream", "large"),
                ("compute", "small"),
                ("compute", "large")
            ]
        );
        assert_eq!(
            (s.configs.as_slice(), s.policies.len()),
            (&["gtx480".to_string()][..], 1)
        );
    }

    #[test]
    fn errors_name_the_file_and_line_and_quote_what_they_found() {
        for (from, to, want) in [
            ("\"large\"", "\"huge\"", "s.toml:4: unknown size `huge`"),
            ("[[policy]]", "", "s.toml:7: duplicate key `name`"),
            (
                "\"compute\"",
                "\"trace:nowhere\"",
                "s.toml:3: `trace:nowhere`: ",
            ),
            (
                "name = \"t\"",
                "name = \"\"",
                "s.toml:2: name ``: expected letters",
            ),
            (
                "\"large\"",
                "\"small\"",
                "s.toml:4: `sizes` lists `small` twice",
            ),
            ("\"compute\"", "\"c\\u0001\"", "unknown workload `c\\u{1}`"),
        ] {
            let text = SPEC.replacen(from, to, 1);
            let e = parse(&text, Path::new("s.toml")).unwrap_err().to_string();
            assert!(e.contains(want), "{from} -> {to}: {e}");
        }
        // An error at the end of the text names its last line.
        let e = parse("[sweep]\nname = [\"t\"\n", Path::new("s.toml")).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let long = SPEC.replacen("\"compute\"", &format!("\"{}\"", "x".repeat(100_000)), 1);
        let e = parse(&long, Path::new("s.toml")).unwrap_err().to_string();
        assert!(e.len() < 2_000, "a long token is cut: {} bytes", e.len());
    }
}
