//! Sweep specs: a TOML file naming the axes of an experiment (workloads, sizes, GPU
//! configurations, scheduling policies) and the metrics to collect; every combination is a
//! point.
//!
//! ```toml
//! [sweep]
//! name = "elf-small"
//! workloads = ["bfs", "km", "trace:../shared/traces/vectoradd-100-32"]
//! sizes = ["small"]                # built-in and suite kernels only
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
//!
//! The golden model has no random state: a point's result depends only on the point, so the
//! spec has no seed axis.

use crate::cmd::sim::RunArgs;
use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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

/// One point of a sweep: a workload on a configuration under a policy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Point {
    /// Index in the sweep (points are numbered in axis order: workloads, sizes, configs,
    /// policies, the last fastest).
    pub index: usize,
    /// The workload.
    pub workload: Workload,
    /// The configuration as the spec names it (a preset, or a file path resolved against
    /// the spec's directory).
    pub config: String,
    /// The policy.
    pub policy: Policy,
}

impl Point {
    /// `gpusched sim` options of the point (its configuration and its policy's options).
    pub fn run_args(&self) -> Result<RunArgs> {
        policy_args(&self.policy, &self.config)
    }
}

/// A parsed spec and its points.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The spec's name.
    pub name: String,
    /// Metrics to collect: dotted paths into a run's JSON report (`cycles`, `l1d.misses`).
    pub metrics: Vec<String>,
    /// Every point, in order.
    pub points: Vec<Point>,
    /// The spec's text (kept beside the results).
    pub text: String,
}

#[derive(Parser)]
#[command(name = "policy", no_binary_name = true)]
struct PolicyParser {
    #[command(flatten)]
    run: RunArgs,
}

/// The `gpusched sim` options of `policy` on configuration `config`.
pub fn policy_args(policy: &Policy, config: &str) -> Result<RunArgs> {
    let words: Vec<&str> = policy.args.split_whitespace().collect();
    if words.iter().any(|w| w.starts_with("--config")) {
        bail!("--config is the `configs` axis, not a policy option");
    }
    let mut run = PolicyParser::try_parse_from(&words)
        .map_err(|e| anyhow!("{}", e.render().to_string().trim_end()))?
        .run;
    if !run.rtl.is_empty() || !run.lockstep.is_empty() {
        bail!("sweeps run the golden model: --rtl and --lockstep are not policy options");
    }
    run.config = config.to_string();
    Ok(run)
}

/// The line of `text` holding the first occurrence of `needle` (quoted when possible) after
/// the first occurrence of `key` (the key it is a value of), for error messages; the key's
/// line, or 1, when it is not found.
fn line_of(text: &str, key: &str, needle: &str) -> usize {
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

impl Spec {
    /// Reads and checks the spec at `path`: every workload, size, configuration and policy
    /// must be valid (an error names the spec's file and line and the valid choices).
    pub fn load(path: &Path) -> Result<Spec> {
        let text = gpusim::input::read_text(path)
            .with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parses spec text read from `path` (relative paths in it are relative to its directory).
    pub fn parse(text: &str, path: &Path) -> Result<Spec> {
        let at_in =
            |key: &str, needle: &str| format!("{}:{}", path.display(), line_of(text, key, needle));
        let file: SpecFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            anyhow!("{}:{line}: {}", path.display(), e.message())
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let t = &file.sweep;
        // The name becomes a directory and a Slurm job name: one plain word.
        let plain = |c: char| c.is_ascii_alphanumeric() || "._+-".contains(c);
        if t.name.is_empty() || !t.name.chars().all(plain) {
            bail!(
                "{}: name `{}`: expected letters, digits, `.`, `_`, `+` or `-`",
                at_in("name", &t.name),
                t.name.escape_debug()
            );
        }
        for (what, list) in [
            ("workloads", &t.workloads),
            ("sizes", &t.sizes),
            ("configs", &t.configs),
            ("metrics", &t.metrics),
        ] {
            let mut seen = std::collections::HashSet::new();
            if let Some(d) = list.iter().find(|x| !seen.insert(x.as_str())) {
                bail!("{}: `{what}` lists `{d}` twice", at_in(what, d));
            }
        }
        for (what, list) in [
            ("workloads", &t.workloads),
            ("sizes", &t.sizes),
            ("configs", &t.configs),
        ] {
            if list.is_empty() {
                bail!("{}: `{what}` is empty", at_in(what, what));
            }
        }
        if file.policy.is_empty() {
            bail!("{}: no [[policy]]", path.display());
        }
        for s in &t.sizes {
            if !["small", "medium", "large"].contains(&s.as_str()) {
                bail!(
                    "{}: unknown size `{s}`; choose small, medium, large",
                    at_in("sizes", s)
                );
            }
        }
        let known = gpusim::workload::names();
        let mut workloads = vec![];
        for w in &t.workloads {
            if let Some(dir) = w.strip_prefix("trace:") {
                let dir = base.join(dir);
                if !dir.join("kernelslist.g").is_file() {
                    bail!(
                        "{}: `{w}`: {} is not an Accel-Sim trace directory (no kernelslist.g)",
                        at_in("workloads", w),
                        dir.display()
                    );
                }
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| w.clone());
                workloads.push(vec![Workload::Trace { name, dir }]);
            } else if known.contains(&w.as_str()) {
                workloads.push(
                    t.sizes
                        .iter()
                        .map(|size| Workload::Named {
                            name: w.clone(),
                            size: size.clone(),
                        })
                        .collect(),
                );
            } else {
                bail!(
                    "{}: unknown workload `{w}`; known: {} (or trace:DIR)",
                    at_in("workloads", w),
                    known.join(", ")
                );
            }
        }
        let mut configs = vec![];
        for c in &t.configs {
            let resolved = if gpusim::config::GpuConfig::preset(c).is_ok() {
                c.clone()
            } else {
                base.join(c).display().to_string()
            };
            crate::cmd::sim::load_config(&resolved).with_context(|| at_in("configs", c))?;
            configs.push(resolved);
        }
        let mut names = std::collections::HashSet::new();
        for p in &file.policy {
            if !names.insert(p.name.as_str()) {
                let line = text[..text.rfind(&format!("\"{}\"", p.name)).unwrap_or(0)]
                    .matches('\n')
                    .count()
                    + 1;
                bail!(
                    "{}:{line}: policy `{}` is named twice",
                    path.display(),
                    p.name
                );
            }
            let run = policy_args(p, &configs[0]).with_context(|| {
                format!("{}: policy `{}`", at_in("[[policy]]", &p.args), p.name)
            })?;
            run.resolve().with_context(|| {
                format!("{}: policy `{}`", at_in("[[policy]]", &p.args), p.name)
            })?;
        }
        let mut points = vec![];
        for w in workloads.into_iter().flatten() {
            for c in &configs {
                for p in &file.policy {
                    points.push(Point {
                        index: points.len(),
                        workload: w.clone(),
                        config: c.clone(),
                        policy: p.clone(),
                    });
                }
            }
        }
        Ok(Spec {
            name: t.name.clone(),
            metrics: t.metrics.clone(),
            points,
            text: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"[sweep]
name = "t"
workloads = ["stream", "compute"]
sizes = ["small"]
configs = ["gtx480"]
metrics = ["cycles"]

[[policy]]
name = "gto"
args = "--warp-sched gto"

[[policy]]
name = "lrr"
args = "--warp-sched lrr --tb-sched bcs"
"#;

    #[test]
    fn every_combination_is_a_point_in_axis_order() {
        let s = Spec::parse(SPEC, Path::new("s.toml")).unwrap();
        let got: Vec<(String, String)> = s
            .points
            .iter()
            .map(|p| (p.workload.name().to_string(), p.policy.name.clone()))
            .collect();
        let want = [
            ("stream", "gto"),
            ("stream", "lrr"),
            ("compute", "gto"),
            ("compute", "lrr"),
        ];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
        );
        assert_eq!(s.points[3].index, 3);
        let run = s.points[1].run_args().unwrap();
        assert_eq!(
            (run.policies.values.given("tb-sched"), run.config.as_str()),
            (Some("bcs"), "gtx480")
        );
    }

    #[test]
    fn a_bad_spec_is_an_error_naming_its_line_and_the_valid_choices() {
        let cases = [
            (
                "\"compute\"",
                "\"computer\"",
                "s.toml:3: unknown workload `computer`; known: stream, compute",
            ),
            (
                "sizes = [\"small\"]",
                "sizes = [\"tiny\"]",
                "s.toml:4: unknown size `tiny`",
            ),
            (
                "--tb-sched bcs",
                "--tb-sched fifo",
                "s.toml:14: policy `lrr`: unknown thread-block scheduler `fifo`",
            ),
            (
                "--warp-sched lrr ",
                "--warp-shed lrr ",
                "s.toml:14: policy `lrr`: error: unexpected argument '--warp-shed'",
            ),
            ("metrics", "metric", "s.toml:6: unknown field `metric`"),
            (
                "name = \"lrr\"",
                "name = \"gto\"",
                "s.toml:13: policy `gto` is named twice",
            ),
            (
                "args = \"--warp-sched gto\"",
                "args = \"--config titanv\"",
                "--config is the `configs` axis",
            ),
            (
                "name = \"t\"",
                "name = \"t\\nx\"",
                "s.toml:2: name `t\\nx`: expected letters, digits",
            ),
            (
                "\"compute\"]",
                "\"compute\", \"stream\"]",
                "s.toml:3: `workloads` lists `stream` twice",
            ),
        ];
        for (from, to, want) in cases {
            let text = SPEC.replacen(from, to, 1);
            assert_ne!(text, SPEC, "{from}");
            let e = format!("{:#}", Spec::parse(&text, Path::new("s.toml")).unwrap_err());
            assert!(e.contains(want), "{from} -> {to}:\n{e}\nwanted: {want}");
        }
    }

    #[test]
    fn the_example_spec_in_the_repository_loads() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("sweeps/example.toml");
        let s = Spec::load(&p).unwrap();
        assert_eq!((s.name.as_str(), s.points.len()), ("example", 18));
    }
}
